/**
 * Runs the real Claude Code CLI once, in print mode, against the scripted model, in a throwaway
 * project with a throwaway HOME, and reports what happened.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HooksSettings } from './hooks.js';
import { ensureClaude } from './install.js';
import { killGroup, killTree } from './proc.js';
import { startModelServer, type ModelServer, type RecordedRequest, type Turn } from './model.js';

export interface RunOptions {
  /** The prompt (`claude -p <prompt>`). Default `go`. */
  prompt?: string;
  /** What the stand-in model answers, one turn per model call. */
  script?: Turn[];
  /** The model's reply once the script is used up. Default `Done.` */
  finalText?: string;
  /** Model calls beyond this many are answered 400 (default 64); 0 makes every model call fail. */
  maxMessageRequests?: number;
  /** `hooks` of the project's `.claude/settings.json`. */
  hooks?: HooksSettings;
  /** `permissions` of the project's `.claude/settings.json`. */
  permissions?: Record<string, unknown>;
  /** Other keys of the project's `.claude/settings.json`. */
  settings?: Record<string, unknown>;
  /** `--allowedTools` entries (e.g. `Bash`, `Bash(git *)`). */
  allowedTools?: string[];
  /** More CLI arguments, placed after the prompt and the output flags. */
  args?: string[];
  /** Extra environment for the CLI (`undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  /** Files to create in the project first (relative paths); `mode` e.g. 0o755 for scripts. */
  files?: Record<string, string | { content: string; mode?: number }>;
  /**
   * `stream-json` (default: adds `--verbose --include-hook-events`, so `events` has every message
   * and hook lifecycle event), `json` (one result object) or `text`.
   */
  outputFormat?: 'stream-json' | 'json' | 'text';
  /** Mark the project trusted in `$HOME/.claude.json`. Default true. */
  trust?: boolean;
  /** Hard limit for the CLI process; it, its process group and its hooks are killed after it. Default 60 s. */
  timeoutMs?: number;
  /** Cap for each of stdout and stderr. Default 8 MiB. */
  maxOutputBytes?: number;
  /** Keep the temp dirs (also with `DSHPOLICY_E2E_KEEP=1`). */
  keep?: boolean;
  /** Use this binary instead of the pinned install. */
  claudePath?: string;
}

/** A line of `--output-format stream-json`. */
export interface StreamEvent {
  type: string;
  subtype?: string;
  [key: string]: unknown;
}

/** A `hook_started` / `hook_response` line (stream-json with `--include-hook-events`). */
export interface HookEvent extends StreamEvent {
  type: 'system';
  subtype: 'hook_started' | 'hook_response';
  hook_name: string;
  hook_event: string;
  exit_code?: number;
  outcome?: string;
  stdout?: string;
  stderr?: string;
  output?: string;
}

export interface RunResult {
  /** Null when the process was killed by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Parsed stdout lines (stream-json), or the single result object (json). */
  events: StreamEvent[];
  /** The final `type: "result"` object, if the CLI printed one. */
  result?: StreamEvent;
  hookEvents: HookEvent[];
  /** The model calls (`POST /v1/messages`), in order. */
  requests: RecordedRequest[];
  /** Every request the stand-in server received, any path. */
  allRequests: RecordedRequest[];
  /** The session transcript (`~/.claude/projects/<dir>/<session>.jsonl`), parsed. */
  transcript: unknown[];
  /** Files in the project after the run (relative path to text, `.git` skipped, each capped). */
  files: Record<string, string>;
  durationMs: number;
  /** The project dir (the CLI's cwd); removed after the run unless kept. */
  project: string;
  home: string;
  kept: boolean;
  /** Whether a project file existed after the run. */
  exists(relative: string): boolean;
  /** A project file's text after the run (throws if absent). */
  read(relative: string): string;
  /** A project file's JSON lines after the run ([] if absent). */
  readJsonl(relative: string): unknown[];
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_OUTPUT_CAP = 8 * 1024 * 1024;
const SNAPSHOT_MAX_FILES = 500;
const SNAPSHOT_MAX_FILE_BYTES = 1024 * 1024;
const CLOSE_GRACE_MS = 2_000;

/** Environment variables passed through from the parent; everything else is left out. */
const PASSED_ENV = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'SHELL', 'USER', 'LOGNAME'];

export async function runClaude(options: RunOptions = {}): Promise<RunResult> {
  const claude = options.claudePath ?? (await ensureClaude());
  const keep = options.keep === true || process.env.DSHPOLICY_E2E_KEEP === '1';
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dshpolicy-e2e-')));
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  let server: ModelServer | undefined;
  try {
    server = await startModelServer({
      script: options.script ?? [],
      finalText: options.finalText,
      ...(options.maxMessageRequests !== undefined ? { maxMessageRequests: options.maxMessageRequests } : {}),
    });
    await prepare(project, home, tmp, options);
    const format = options.outputFormat ?? 'stream-json';
    const args = ['-p', options.prompt ?? 'go', '--output-format', format];
    if (format === 'stream-json') args.push('--verbose', '--include-hook-events');
    args.push(...(options.args ?? []));
    if (options.allowedTools !== undefined && options.allowedTools.length > 0) {
      args.push('--allowedTools', ...options.allowedTools);
    }
    const env = buildEnv(home, tmp, server.url, options.env);
    const ran = await spawnBounded(claude, args, project, env, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.maxOutputBytes ?? DEFAULT_OUTPUT_CAP);
    const events = parseEvents(ran.stdout, format);
    const files = await snapshot(project);
    const transcript = await readTranscripts(home);
    const result = [...events].reverse().find((event) => event.type === 'result');
    return {
      ...ran,
      events,
      result,
      hookEvents: events.filter(isHookEvent),
      requests: server.messageRequests(),
      allRequests: [...server.requests],
      transcript,
      files,
      project,
      home,
      kept: keep,
      exists: (relative) => Object.hasOwn(files, normalize(relative)),
      read: (relative) => {
        const text = files[normalize(relative)];
        if (text === undefined) throw new Error(`e2e: ${relative} does not exist in the project after the run`);
        return text;
      },
      readJsonl: (relative) => {
        const text = files[normalize(relative)];
        return text === undefined ? [] : parseJsonLines(text);
      },
    };
  } finally {
    await server?.close();
    if (!keep) await fs.rm(root, { recursive: true, force: true });
  }
}

async function prepare(project: string, home: string, tmp: string, options: RunOptions): Promise<void> {
  await fs.mkdir(path.join(project, '.claude'), { recursive: true });
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(tmp, { recursive: true });
  const settings: Record<string, unknown> = { ...(options.settings ?? {}) };
  if (options.hooks !== undefined) settings.hooks = options.hooks;
  if (options.permissions !== undefined) settings.permissions = options.permissions;
  await fs.writeFile(path.join(project, '.claude', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
  // In -p mode the trust dialog is skipped; the entry mirrors an interactive user having accepted it.
  const state = options.trust === false ? {} : { projects: { [project]: { hasTrustDialogAccepted: true } } };
  await fs.writeFile(path.join(home, '.claude.json'), JSON.stringify(state, null, 2) + '\n');
  for (const [relative, spec] of Object.entries(options.files ?? {})) {
    const target = path.resolve(project, relative);
    if (!target.startsWith(project + path.sep)) throw new Error(`e2e: file ${relative} is outside the project`);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const { content, mode } = typeof spec === 'string' ? { content: spec, mode: undefined } : spec;
    await fs.writeFile(target, content);
    if (mode !== undefined) await fs.chmod(target, mode);
  }
}

function buildEnv(
  home: string,
  tmp: string,
  baseUrl: string,
  extra: Record<string, string | undefined> | undefined,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.HOME = home;
  // The CLI keeps per-session state (task output, its messaging socket) under $TMPDIR.
  env.TMPDIR = tmp;
  env.ANTHROPIC_BASE_URL = baseUrl;
  env.ANTHROPIC_API_KEY = 'test';
  // No reachability probe (`HEAD /api/hello`), telemetry or update checks: nothing leaves 127.0.0.1.
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

interface Spawned {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
}

function spawnBounded(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  cap: number,
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out = capped(cap);
    const err = capped(cap);
    child.stdout.on('data', out.add);
    child.stderr.on('data', err.add);
    let timedOut = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null; at: number } | undefined;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid);
    }, timeoutMs);
    const finish = (): void => {
      if (settled || exited === undefined) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      resolve({
        exitCode: exited.code,
        signal: exited.signal,
        timedOut,
        stdout: out.text(),
        stderr: err.text(),
        durationMs: Math.round(exited.at - started),
      });
    };
    child.on('error', (error) => {
      clearTimeout(timer);
      settled = true;
      reject(new Error(`e2e: could not start ${command}: ${error.message}`));
    });
    child.on('exit', (code, signal) => {
      exited = { code, signal, at: performance.now() };
      // Leftovers (background shells) would hold the pipes open: end the whole group.
      killGroup(child.pid);
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, CLOSE_GRACE_MS);
    });
    child.on('close', finish);
  });
}

function capped(limit: number): { add: (chunk: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  return {
    add: (chunk) => {
      const room = limit - size;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
      chunks.push(kept);
      size += kept.length;
      dropped += chunk.length - kept.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8') + (dropped > 0 ? `\n[e2e: ${dropped} more bytes dropped]` : ''),
  };
}

function parseEvents(stdout: string, format: string): StreamEvent[] {
  if (format === 'text') return [];
  if (format === 'json') {
    try {
      const value = JSON.parse(stdout) as unknown;
      return isEvent(value) ? [value] : [];
    } catch {
      return [];
    }
  }
  return parseJsonLines(stdout).filter(isEvent);
}

function parseJsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as unknown);
    } catch {
      // not a JSON line
    }
  }
  return out;
}

function isEvent(value: unknown): value is StreamEvent {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function isHookEvent(event: StreamEvent): event is HookEvent {
  return event.type === 'system' && (event.subtype === 'hook_started' || event.subtype === 'hook_response');
}

function normalize(relative: string): string {
  return path.posix.normalize(relative.split(path.sep).join('/')).replace(/^\.\//, '');
}

async function snapshot(project: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  let count = 0;
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (count >= SNAPSHOT_MAX_FILES) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git') await walk(full);
      } else if (entry.isFile()) {
        count += 1;
        const handle = await fs.open(full, 'r');
        try {
          const buffer = Buffer.alloc(SNAPSHOT_MAX_FILE_BYTES);
          const { bytesRead } = await handle.read(buffer, 0, SNAPSHOT_MAX_FILE_BYTES, 0);
          files[normalize(path.relative(project, full))] = buffer.subarray(0, bytesRead).toString('utf8');
        } finally {
          await handle.close();
        }
      }
    }
  };
  await walk(project);
  return files;
}

async function readTranscripts(home: string): Promise<unknown[]> {
  const projects = path.join(home, '.claude', 'projects');
  const out: unknown[] = [];
  let dirs: string[];
  try {
    dirs = await fs.readdir(projects);
  } catch {
    return out;
  }
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await fs.readdir(path.join(projects, dir));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.jsonl'))) {
      const text = await fs.readFile(path.join(projects, dir, name), 'utf8');
      out.push(...parseJsonLines(text.slice(0, DEFAULT_OUTPUT_CAP)));
    }
  }
  return out;
}
