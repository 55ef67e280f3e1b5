/**
 * `dshpolicy serve`: the policy behind Claude Code's `http` hooks. Claude Code POSTs each event's
 * payload to the URL; the server answers with the same decision `dshpolicy hook claude` would
 * print, without a process start per event. The policy files (and everything they include or
 * import) are checked before each request and recompiled when they change; a policy that stops
 * compiling fails closed, as in hook mode. Loop-guard counts live in memory, per session.
 */
import { statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compilePolicy, type CompiledPolicy } from '../engine/index.js';
import { format, guard, UsageError, type Io } from './args.js';
import { FAILED, HOOK_BLOCK, OK } from './exit-codes.js';
import { decidePayload, discoverPolicies, failClosed, hookAgentNamed, MAX_PAYLOAD } from '../bridges/hook.js';

/** The agent whose http hooks `serve` answers: Claude Code, the one agent whose hooks can POST. */
const SERVED = hookAgentNamed('claude')!;
import { loadPolicies } from './policy.js';
import { terminalSafe } from './untrusted.js';

export const SERVE_HELP = `usage: dshpolicy serve [--policy <file>...] [--port <n>] [--host <addr>] [--fail-open] [--format human|json]

Answers Claude Code's http hooks: POST the hook payload to the server's URL and it answers with
the decision \`dshpolicy hook claude\` would print (an empty body when the policy has no opinion).
Without --policy, the policy is every *.dshpolicy file in the nearest .dshpolicy/ directory at
or above the current directory. Policy files are recompiled when they change. Listens on
127.0.0.1:${7433} unless told otherwise (--port 0 picks a free port); prints the URL on stderr (with
--format json, {"url": ...} on stdout). Wire it with \`dshpolicy install claude --http <url>\`.`;

export const DEFAULT_PORT = 7433;

export interface ServeOptions {
  policies: string[];
  host: string;
  port: number;
  failOpen: boolean;
}

interface Loaded {
  /** The files the policy was compiled from, with what they looked like then. */
  stamps: { path: string; mtimeMs: number; size: number }[];
  policy: CompiledPolicy | { error: string };
}

function stamp(path: string): { path: string; mtimeMs: number; size: number } {
  try {
    const st = statSync(path);
    return { path, mtimeMs: st.mtimeMs, size: st.size };
  } catch {
    return { path, mtimeMs: -1, size: -1 };
  }
}

/** The policy, recompiled when a file it came from has changed since. */
export class PolicyWatcher {
  private loaded: Loaded | undefined;
  constructor(private readonly files: string[]) {}

  current(): CompiledPolicy | { error: string } {
    if (this.loaded && this.loaded.stamps.every((s) => {
      const now = stamp(s.path);
      return now.mtimeMs === s.mtimeMs && now.size === s.size;
    })) {
      return this.loaded.policy;
    }
    const before = this.files.map((f) => stamp(resolve(f)));
    const r = loadPolicies(this.files);
    const firstError = r.diagnostics.find((d) => d.severity === 'error');
    const sources = new Set([...before.map((s) => s.path), ...(r.ir?.sources ?? []).map((s) => resolve(s))]);
    const stamps = [...sources].map((p) => before.find((b) => b.path === p) ?? stamp(p));
    const where = firstError?.span ? `${firstError.span.file}:${firstError.span.start.line}:${firstError.span.start.column}: ` : '';
    const policy = r.ir && !firstError ? compilePolicy(r.ir) : { error: `the policy does not compile: ${where}${firstError?.message ?? 'unknown error'}` };
    this.loaded = { stamps, policy };
    return policy;
  }
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_PAYLOAD) over = true;
      else chunks.push(c);
    });
    req.on('end', () => done(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => done(undefined));
  });
}

/** Starts the server; resolves once it listens. */
export async function startServer(opts: ServeOptions): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const watcher = new PolicyWatcher(opts.policies);
  const counts = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('dshpolicy serve answers POSTed hook payloads\n');
      return;
    }
    const raw = await readBody(req);
    const answer =
      raw === undefined
        ? failClosed(SERVED, undefined, `the payload is larger than ${MAX_PAYLOAD} bytes`, opts.failOpen)
        : await decidePayload(SERVED, raw, {
            failOpen: opts.failOpen,
            ask: 'deny',
            policyFor: async () => watcher.current(),
            counts: {
              read: (s) => counts.get(s) ?? 0,
              write: (s, n) => {
                if (n === 0) counts.delete(s);
                else counts.set(s, n);
              },
            },
          });
    // An http hook cannot block through its status: what a command hook says with exit 2, JSON says here.
    const body = answer.exitCode === HOOK_BLOCK ? `${JSON.stringify({ decision: 'block', reason: answer.stderr.trim() })}\n` : answer.stdout;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  }
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port, opts.host, () => ok());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    server,
    url: `http://${host}:${addr.port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export async function serveCommand(argv: string[], io: Io): Promise<number> {
  const { values } = guard(() => parseArgs({ args: argv, options: {
      policy: { type: 'string', multiple: true, short: 'p' },
      port: { type: 'string' },
      host: { type: 'string' },
      'fail-open': { type: 'boolean' },
      format: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    }, allowPositionals: false, strict: true }));
  if (values.help) {
    io.stdout.write(`${SERVE_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`\`--port\` takes a port number, not \`${values.port}\``);
  let policies = values.policy ?? [];
  if (policies.length === 0) {
    policies = discoverPolicies(process.cwd()).files;
    if (policies.length === 0) throw new UsageError('no policy: name it with `--policy <file>`, or put *.dshpolicy files in a .dshpolicy/ directory here');
  }
  let started: Awaited<ReturnType<typeof startServer>>;
  try {
    started = await startServer({ policies, host: values.host ?? '127.0.0.1', port, failOpen: values['fail-open'] === true });
  } catch (err) {
    io.stderr.write(`error: cannot listen on ${values.host ?? '127.0.0.1'}:${port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return FAILED;
  }
  if (fmt === 'json') io.stdout.write(`${JSON.stringify({ url: started.url, policies: policies.map((p) => resolve(p)) })}\n`);
  // The policy files may be found in the repository's .dshpolicy/: their names are escaped.
  else io.stderr.write(`dshpolicy serve: listening on ${started.url} (policy: ${policies.map((p) => terminalSafe(p)).join(', ')})\n`);
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void started.close().then(done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return OK;
}
