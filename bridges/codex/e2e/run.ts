/**
 * Runs the real Codex CLI once, non-interactively, against the scripted stand-in model, and reports what
 * happened: exit status, output, every request the model received, files left in the project, and
 * whatever the hooks wrote into the capture folder.
 *
 * Layout of one run (a fresh temp folder, removed afterwards unless `keep`):
 *
 *     <root>/project      cwd of Codex; seeded from `files`; project-layer hooks go in .codex/hooks.json
 *     <root>/codex-home   CODEX_HOME: config.toml (stand-in provider, approvals, sandbox, [hooks]) and hooks.json
 *     <root>/home         HOME, so nothing of the real user's leaks in
 *     <root>/bin          `scripts`, executable, for hook commands to call ($DSHPOLICY_E2E_BIN)
 *     <root>/out          a folder for hooks to write into, read back into `captures` ($DSHPOLICY_E2E_OUT)
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { stringify as tomlStringify } from 'smol-toml';
import { ensureCodex } from './install.js';
import { startMockModel, type MockModel, type MockModelOptions, type RecordedRequest, type Turn } from './model.js';

/** The model slug written to config.toml: one the bundled catalog knows, so Codex offers apply_patch. */
export const DEFAULT_MODEL = 'gpt-5.5';
/** The environment variable that carries the (meaningless) key for the stand-in provider. */
export const PROVIDER_KEY_ENV = 'DSHPOLICY_E2E_MODEL_KEY';
/** Set for Codex (so inherited by hooks): the run's `out` folder, whose files come back as `captures`. */
export const OUT_ENV = 'DSHPOLICY_E2E_OUT';
/** Set for Codex (so inherited by hooks): the run's `bin` folder, where `scripts` are written. */
export const BIN_ENV = 'DSHPOLICY_E2E_BIN';

export interface HookHandler {
  type: 'command';
  command: string;
  /** Seconds (Codex's default is 600). */
  timeout?: number;
  async?: boolean;
  statusMessage?: string;
}
export interface HookMatcherGroup {
  matcher?: string;
  hooks: HookHandler[];
}
/** The `hooks` object of a hooks.json, keyed by event name (`PreToolUse`, `Stop`, ...). */
export type HookEvents = Record<string, HookMatcherGroup[]>;

/** Paths of one run, handed to option callbacks so hook commands can point into the run's folders. */
export interface RunPaths {
  root: string;
  project: string;
  codexHome: string;
  home: string;
  /** Where `scripts` are written. */
  bin: string;
  /** A folder for hooks to write into; its files come back as `captures`. */
  out: string;
}

type PerRun<T> = T | ((paths: RunPaths) => T);

export interface RunCodexOptions {
  /** The stand-in model's replies, one per request. */
  script: Turn[];
  /** The prompt given to `codex exec` (default "follow the script"). */
  prompt?: string;
  /** The text the stand-in sends once the script is used up. */
  finalText?: string;
  /** Answers chosen by request content before the script (see `MockModelOptions.route`), e.g. a subagent's. */
  route?: MockModelOptions['route'];
  /** Responses requests beyond this many get HTTP 429 (default 200); 0 makes every model call fail. */
  maxRequests?: number;
  /** Written as `$CODEX_HOME/hooks.json` (`{ "hooks": ... }`). */
  hooks?: PerRun<HookEvents>;
  /** Written as a `[hooks]` table in `$CODEX_HOME/config.toml`. */
  tomlHooks?: PerRun<HookEvents>;
  /** Written as `<project>/.codex/hooks.json`; the project is then marked trusted in config.toml. */
  projectHooks?: PerRun<HookEvents>;
  /** Executable files written into `<root>/bin` (name → content), e.g. hook scripts. */
  scripts?: Record<string, string>;
  /** Files written into the project before the run (relative path → content). */
  files?: Record<string, string>;
  /** Model slug (default {@link DEFAULT_MODEL}). */
  model?: string;
  /** `approval_policy` in config.toml (default "never"; `codex exec` forces never anyway). */
  approvalPolicy?: string;
  /** `sandbox_mode` in config.toml (default "danger-full-access"). */
  sandboxMode?: string;
  /** More config.toml keys, merged over the generated ones (tables merge, other values replace). */
  config?: PerRun<Record<string, unknown>>;
  /** Pass `--dangerously-bypass-hook-trust` (default true). */
  bypassHookTrust?: boolean;
  /** Pass `--strict-config`, so a config.toml key this Codex does not know is an error (default true). */
  strictConfig?: boolean;
  /** More arguments for `codex exec`, placed before the prompt. */
  args?: string[];
  /** More environment for Codex (and so for its hooks and commands). */
  env?: Record<string, string>;
  /** Kill the whole process group after this long (default 60 000 ms). */
  timeoutMs?: number;
  /** Keep the temp folder (default false; also kept when DSHPOLICY_E2E_KEEP=1). */
  keep?: boolean;
  /** The `codex` executable to run (default: {@link ensureCodex}). */
  codexBin?: string;
}

export interface HookStatus {
  /** Event name, e.g. "PreToolUse". */
  event: string;
  /** Codex's status word, e.g. "Completed", "Blocked", "Failed", "Stopped". */
  status: string;
}

export interface RunCodexResult {
  /** Exit code of codex, or null when it was killed by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** True when the hard timeout killed the run. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Every request the stand-in model received, in order (see model.ts helpers). */
  requests: RecordedRequest[];
  durationMs: number;
  /** The project folder (deleted already unless `keep`). */
  project: string;
  codexHome: string;
  root: string;
  /** Regular files in the project after the run (relative path → content, `.codex/` left out; bounded). */
  projectFiles: Record<string, string>;
  /** Files hooks wrote into `out` (relative path → content; bounded). */
  captures: Record<string, string>;
  /** The `hook: <Event> <Status>` lines Codex printed on stderr, in order. */
  hookStatuses: HookStatus[];
  /** The session id from Codex's stderr banner (= hook payloads' `session_id`, the requests' `session-id` header). */
  sessionId: string | undefined;
  /** Removes the temp folder (a no-op when already removed). */
  cleanup(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_STREAM_BYTES = 4 * 1024 * 1024;
const MAX_SNAPSHOT_FILES = 200;
const MAX_SNAPSHOT_FILE_BYTES = 1024 * 1024;
/** Environment variables passed through from the test process; everything else is left out. */
const PASSED_ENV = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TERM'];

/** Runs `codex exec` once against a fresh stand-in model; see the file comment for the layout. */
export async function runCodex(opts: RunCodexOptions): Promise<RunCodexResult> {
  const codex = opts.codexBin ?? (await ensureCodex());
  const root = await mkdtemp(join(tmpdir(), 'dshpolicy-codex-e2e-'));
  const paths: RunPaths = {
    root,
    project: join(root, 'project'),
    codexHome: join(root, 'codex-home'),
    home: join(root, 'home'),
    bin: join(root, 'bin'),
    out: join(root, 'out'),
  };
  const keep = opts.keep === true || process.env['DSHPOLICY_E2E_KEEP'] === '1';
  let removed = false;
  const cleanup = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    await rm(root, { recursive: true, force: true });
  };

  let model: MockModel | undefined;
  try {
    model = await startMockModel({
      script: opts.script,
      ...(opts.finalText !== undefined ? { finalText: opts.finalText } : {}),
      ...(opts.route !== undefined ? { route: opts.route } : {}),
      ...(opts.maxRequests !== undefined ? { maxRequests: opts.maxRequests } : {}),
    });
    for (const dir of [paths.project, paths.codexHome, paths.home, paths.bin, paths.out]) await mkdir(dir, { recursive: true });
    for (const [name, content] of Object.entries(opts.scripts ?? {})) {
      const file = join(paths.bin, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content);
      await chmod(file, 0o755);
    }
    for (const [name, content] of Object.entries(opts.files ?? {})) {
      const file = join(paths.project, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content);
    }
    await writeConfig(opts, paths, model.baseUrl);

    const args = [
      'exec',
      '--skip-git-repo-check',
      ...(opts.bypassHookTrust === false ? [] : ['--dangerously-bypass-hook-trust']),
      ...(opts.strictConfig === false ? [] : ['--strict-config']),
      ...(opts.args ?? []),
      '--',
      opts.prompt ?? 'follow the script',
    ];
    const env: Record<string, string> = {};
    for (const key of PASSED_ENV) {
      const value = process.env[key];
      if (value !== undefined) env[key] = value;
    }
    Object.assign(env, {
      HOME: paths.home,
      CODEX_HOME: paths.codexHome,
      TMPDIR: process.env['TMPDIR'] ?? tmpdir(),
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      [PROVIDER_KEY_ENV]: 'e2e-not-a-secret',
      [OUT_ENV]: paths.out,
      [BIN_ENV]: paths.bin,
      ...opts.env,
    });

    const started = Date.now();
    const proc = await runProcess(codex, args, { cwd: paths.project, env, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    const durationMs = Date.now() - started;

    const result: RunCodexResult = {
      ...proc,
      requests: model.requests,
      durationMs,
      project: paths.project,
      codexHome: paths.codexHome,
      root,
      projectFiles: await snapshot(paths.project, (rel) => rel === '.codex' || rel.startsWith('.codex/')),
      captures: await snapshot(paths.out, () => false),
      hookStatuses: parseHookStatuses(proc.stderr),
      sessionId: /^session id: (\S+)\s*$/m.exec(proc.stderr)?.[1],
      cleanup,
    };
    return result;
  } finally {
    await model?.close();
    if (!keep) await cleanup();
  }
}

function resolvePerRun<T>(value: PerRun<T> | undefined, paths: RunPaths): T | undefined {
  return typeof value === 'function' ? (value as (p: RunPaths) => T)(paths) : value;
}

async function writeConfig(opts: RunCodexOptions, paths: RunPaths, baseUrl: string): Promise<void> {
  const config: Record<string, unknown> = {
    model: opts.model ?? DEFAULT_MODEL,
    model_provider: 'e2e',
    approval_policy: opts.approvalPolicy ?? 'never',
    sandbox_mode: opts.sandboxMode ?? 'danger-full-access',
    check_for_update_on_startup: false,
    analytics: { enabled: false },
    model_providers: {
      e2e: { name: 'e2e stand-in', base_url: baseUrl, wire_api: 'responses', env_key: PROVIDER_KEY_ENV, request_max_retries: 0, stream_max_retries: 0 },
    },
  };
  const hooks = resolvePerRun(opts.hooks, paths);
  if (hooks !== undefined) await writeFile(join(paths.codexHome, 'hooks.json'), `${JSON.stringify({ hooks }, null, 2)}\n`);
  const tomlHooks = resolvePerRun(opts.tomlHooks, paths);
  if (tomlHooks !== undefined) config['hooks'] = tomlHooks;
  const projectHooks = resolvePerRun(opts.projectHooks, paths);
  if (projectHooks !== undefined) {
    await mkdir(join(paths.project, '.codex'), { recursive: true });
    await writeFile(join(paths.project, '.codex', 'hooks.json'), `${JSON.stringify({ hooks: projectHooks }, null, 2)}\n`);
    config['projects'] = { [paths.project]: { trust_level: 'trusted' } };
  }
  const extra = resolvePerRun(opts.config, paths);
  if (extra !== undefined) mergeInto(config, extra);
  await writeFile(join(paths.codexHome, 'config.toml'), tomlStringify(config));
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function mergeInto(target: Record<string, unknown>, extra: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(extra)) {
    const current = target[key];
    if (isTable(current) && isTable(value)) mergeInto(current, value);
    else target[key] = value;
  }
}

interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** Runs a command in its own process group with stdin closed; kills the whole group on timeout and after exit. */
function runProcess(cmd: string, args: string[], o: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<ProcessResult> {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out = collector();
    const err = collector();
    child.stdout.on('data', out.add);
    child.stderr.on('data', err.add);
    let timedOut = false;
    let settled = false;
    const killTimer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, o.timeoutMs);

    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      // Whatever Codex left behind in its group (hooks, commands) goes too.
      killGroup(child.pid);
      // Wait briefly for the pipes to drain; a stray descendant that escaped the group must not hold us.
      const drained = new Promise<void>((r) => {
        if (child.stdout.readableEnded && child.stderr.readableEnded) r();
        else child.once('close', () => r());
      });
      void Promise.race([drained, new Promise<void>((r) => setTimeout(r, 2000).unref())]).then(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolveRun({ exitCode: code, signal, timedOut, stdout: out.text(), stderr: err.text() });
      });
    };
    child.on('error', (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      rejectRun(new Error(`could not start ${cmd}: ${e.message}`));
    });
    child.on('exit', finish);
  });
}

function collector(): { add: (chunk: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  return {
    add: (chunk) => {
      if (size >= MAX_STREAM_BYTES) {
        dropped += chunk.length;
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8') + (dropped > 0 ? `\n[... ${dropped} more bytes not kept]` : ''),
  };
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** Regular files under `dir` (relative path → UTF-8 content), bounded in count and size. */
async function snapshot(dir: string, skip: (rel: string) => boolean): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  let count = 0;
  const walk = async (current: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (count >= MAX_SNAPSHOT_FILES) return;
      const full = join(current, entry.name);
      const rel = relative(dir, full).split('\\').join('/');
      if (skip(rel)) continue;
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        count++;
        const size = (await stat(full)).size;
        files[rel] = size > MAX_SNAPSHOT_FILE_BYTES ? `<${size} bytes, not read>` : await readFile(full, 'utf8');
      }
    }
  };
  await walk(dir);
  return files;
}

/** Picks the `hook: <Event> <Status>` lines out of Codex's stderr. */
export function parseHookStatuses(stderr: string): HookStatus[] {
  const statuses: HookStatus[] = [];
  const plain = stderr.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
  for (const m of plain.matchAll(/^hook: (\w+) (\w+)\s*$/gm)) statuses.push({ event: m[1]!, status: m[2]! });
  return statuses;
}
