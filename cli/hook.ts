/**
 * `dshpolicy hook claude|codex|gemini [--policy <file>...]`: dshpolicy as the agent's hook. Reads
 * one event's payload on stdin, decides it with the policy (and any hooks it imports), and answers
 * in the agent's wire protocol on stdout, which carries nothing else. Fails closed: a policy that
 * does not compile, or a payload that cannot be read, denies a tool call and blocks a prompt,
 * naming the problem (`--fail-open` opts out). The answer goes out as soon as it is final, and by
 * the hook's deadline (`--deadline`, below the handler timeout it was installed with) at the
 * latest, failing closed on hooks that have not answered (engine/hooks/deadline.ts). The stop
 * seam's loop guard holds across the separate hook processes of one session, and `ran` facts come
 * from the session's transcript. Gemini CLI is decided on its `BeforeTool` event only
 * (bridges/gemini/hook.ts).
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { alternatives, compilePolicy, type AnyEvent } from '../engine/index.js';
import {
  DEADLINE_MARGIN_SEC,
  decidePayload,
  defaultDeadlineMs,
  discoverPolicies,
  failClosed,
  fileCounts,
  hookAgentNamed,
  HOOK_AGENTS,
  MAX_PAYLOAD,
  problemLine,
  stateDir,
  type HookAgent,
  type HookAnswer,
} from '../bridges/hook.js';
import { guard, UsageError, type Io } from './args.js';
import { cacheDir } from './cache-dir.js';
import { OK } from './exit-codes.js';
import { loadPolicyCached, type LoadCompiler } from './policy-cache.js';

export { deadlineWithin, defaultDeadlineMs, discoverPolicies } from '../bridges/hook.js';

export const HOOK_HELP = `usage: dshpolicy hook claude|codex|gemini [--policy <file>...] [--fail-open]
                      [--codex-ask deny|none] [--state-dir <dir>] [--deadline <duration>]

Runs as the hook of Claude Code, Codex or Gemini CLI: reads the event's payload on stdin and
answers in that agent's protocol on stdout (nothing at all when the policy has no opinion, so the
agent's own permission flow runs). Without --policy, the policy is every *.dshpolicy file in the
nearest .dshpolicy/ directory at or above the project directory (CLAUDE_PROJECT_DIR for Claude
Code, GEMINI_PROJECT_DIR for Gemini CLI, else the payload's cwd). A policy that does not compile
or a payload that cannot be read denies tool calls and blocks prompts, with the reason;
--fail-open lets them through instead. Codex has no "ask": --codex-ask deny (the default) denies
saying approval is required, none leaves the call to Codex's own approval flow. Gemini CLI is
answered on its BeforeTool event only: deny and ask are said, allow leaves the call to Gemini
CLI's own policy. The stop loop guard keeps its count per session in --state-dir (default:
dshpolicy/stop/ under ~/.claude or $CODEX_HOME). The answer goes out once it is final; hooks
that have not answered by --deadline (counted from the hook's start, e.g. 25s or 1500ms; set it
below the handler's timeout; default: the agent's default timeout less ${DEADLINE_MARGIN_SEC}s) are ended, and
deny the tool call or block the prompt (--fail-open: are left out instead).`;

/** `25s`, `1500ms`, `2m`, or a number of seconds (as a handler's `timeout` is written), in milliseconds. */
export function parseDeadline(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000) : NaN;
  if (!(ms >= 1)) throw new UsageError(`\`--deadline\` takes a duration such as \`25s\` or \`1500ms\`, not \`${text}\``);
  return ms;
}

async function readStdin(io: Io): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > MAX_PAYLOAD) return undefined;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface HookDeps {
  /** Loads the policy compiler, on a cache miss only (the hook's bundle keeps it in a file of its own). */
  loadCompiler: LoadCompiler;
  /** When the hook process started (epoch ms): the deadline counts from it. Default: when the command began. */
  startedAt?: number;
}

export async function hookCommand(argv: string[], io: Io, deps: HookDeps): Promise<number> {
  const { values, positionals } = guard(() => parseArgs({ args: argv, options: {
      policy: { type: 'string', multiple: true, short: 'p' },
      'fail-open': { type: 'boolean' },
      'codex-ask': { type: 'string' },
      'state-dir': { type: 'string' },
      deadline: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    }, allowPositionals: true, strict: true }));
  if (values.help) {
    io.stdout.write(`${HOOK_HELP}\n`);
    return OK;
  }
  const name = positionals[0];
  const agent = name === undefined ? undefined : hookAgentNamed(name);
  if (agent === undefined) {
    const commands = HOOK_AGENTS.map((a) => `\`dshpolicy hook ${a.name}\``);
    const names = HOOK_AGENTS.map((a) => `\`${a.name}\``);
    throw new UsageError(name === undefined ? `name the agent: ${alternatives(commands)}` : `unknown agent \`${name}\`: name ${alternatives(names)}`);
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument \`${positionals[1]}\``);
  const ask = values['codex-ask'] ?? 'deny';
  if (ask !== 'deny' && ask !== 'none') throw new UsageError(`\`--codex-ask\` takes \`deny\` or \`none\`, not \`${ask}\``);
  const failOpen = values['fail-open'] === true;
  const startedAt = deps.startedAt ?? Date.now();
  const deadlineMs = values.deadline !== undefined ? parseDeadline(values.deadline) : undefined;
  const deadline = (event: AnyEvent): number => startedAt + (deadlineMs ?? defaultDeadlineMs(agent, event));

  const answer = await decide(agent, io, { policies: values.policy, failOpen, ask, stateDir: values['state-dir'], loadCompiler: deps.loadCompiler, deadline });
  if (answer.stdout) io.stdout.write(answer.stdout);
  if (answer.stderr) io.stderr.write(answer.stderr);
  return answer.exitCode;
}

interface HookOptions {
  policies: string[] | undefined;
  failOpen: boolean;
  ask: 'deny' | 'none';
  stateDir: string | undefined;
  loadCompiler: LoadCompiler;
  deadline: (event: AnyEvent) => number;
}

async function decide(agent: HookAgent, io: Io, opts: HookOptions): Promise<HookAnswer> {
  const raw = await readStdin(io);
  if (raw === undefined) return failClosed(agent, undefined, `the payload is larger than ${MAX_PAYLOAD} bytes`, opts.failOpen);
  const dir = opts.stateDir ?? stateDir(agent);
  return decidePayload(agent, raw, {
    failOpen: opts.failOpen,
    ask: opts.ask,
    deadline: opts.deadline,
    policyFor: async (event) => {
      let files = opts.policies ?? [];
      if (files.length === 0) {
        const projectDir = agent.projectDirEnv !== undefined ? process.env[agent.projectDirEnv] : undefined;
        const start = (projectDir || undefined) ?? event.cwd ?? process.cwd();
        const found = discoverPolicies(start);
        // A `.dshpolicy/` that holds no policy file (emptied, or its files renamed) fails closed.
        if (found.dir !== undefined && found.files.length === 0) return { error: `the policy directory \`${found.dir}\` holds no policy file (\`*.dshpolicy\`)` };
        files = found.files;
        // No policy: no opinion, and the agent goes on as it would without dshpolicy.
        if (files.length === 0) return undefined;
      }
      for (const f of files) if (!existsSync(f)) return { error: `the policy file \`${f}\` does not exist` };
      const loaded = await loadPolicyCached(files, cacheDir(), opts.loadCompiler);
      const firstError = loaded.diagnostics.find((d) => d.severity === 'error');
      if (!loaded.ir || firstError) return { error: `the policy does not compile: ${firstError ? problemLine(firstError) : 'unknown error'}` };
      return compilePolicy(loaded.ir);
    },
    counts: fileCounts(dir),
  });
}

