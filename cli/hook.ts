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
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  compilePolicy,
  defaultHookTimeoutMs,
  evaluateInTime,
  type CompiledPolicy,
  normalizeAnyEvent,
  type AnyDecision,
  type AnyEvent,
  type Diagnostic,
} from '../engine/index.js';
import {
  claudeAnswer,
  codexAnswer,
  DEADLINE_MARGIN_SEC,
  decodeGeminiPayload,
  geminiAnswer,
  geminiDeny,
  GEMINI_TOOL_EVENT,
  readClaudeTurn,
  readCodexTurn,
  type HookAnswer,
} from '../bridges/hook.js';
import { guard, UsageError, type Io } from './args.js';
import { cacheDir } from './cache-dir.js';
import { HOOK_ANSWERED, HOOK_BLOCK, OK } from './exit-codes.js';
import { loadPolicyCached, type LoadCompiler } from './policy-cache.js';

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

/** Largest payload read; a larger one is unreadable (and fails closed). */
export const MAX_PAYLOAD = 16 * 1024 * 1024;

export type Agent = 'claude' | 'codex' | 'gemini';

/** Gemini CLI's timeout of a command hook that names none. */
export const GEMINI_DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The deadline of a hook whose handler has `timeoutMs`: the margin below it, but never less than
 * half of it (a short timeout still leaves its hooks some time).
 */
export function deadlineWithin(timeoutMs: number): number {
  return Math.max(timeoutMs - DEADLINE_MARGIN_SEC * 1000, timeoutMs / 2);
}

/** The deadline when none is given: within the timeout the agent gives a handler that names none. */
export function defaultDeadlineMs(agent: Agent, event: AnyEvent): number {
  return deadlineWithin(agent === 'gemini' ? GEMINI_DEFAULT_TIMEOUT_MS : defaultHookTimeoutMs(agent, event));
}

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

/** The policy files of a project: every `*.dshpolicy` in the nearest `.dshpolicy/` at or above `start`. */
export function discoverPolicies(start: string): { dir?: string; files: string[] } {
  let dir = resolve(start);
  for (;;) {
    const candidate = join(dir, '.dshpolicy');
    try {
      if (statSync(candidate).isDirectory()) {
        const files = readdirSync(candidate).filter((f) => f.endsWith('.dshpolicy')).sort().map((f) => join(candidate, f));
        return { dir: candidate, files };
      }
    } catch {
      // not here
    }
    const up = dirname(dir);
    if (up === dir) return { files: [] };
    dir = up;
  }
}

/** The directory where the stop loop guard keeps its per-session counts. */
export function stateDir(agent: Agent, env: NodeJS.ProcessEnv = process.env): string {
  const home = env['HOME'] || homedir();
  const base =
    agent === 'claude' ? env['CLAUDE_CONFIG_DIR'] || join(home, '.claude') : agent === 'codex' ? env['CODEX_HOME'] || join(home, '.codex') : join(home, '.gemini');
  return join(base, 'dshpolicy', 'stop');
}

function stateFile(dir: string, session: string): string {
  return join(dir, `${session.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128) || 'session'}.json`);
}

function readCount(file: string): number {
  try {
    const n = (JSON.parse(readFileSync(file, 'utf8')) as { continuations?: unknown }).continuations;
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0;
  } catch {
    return 0;
  }
}

function writeCount(file: string, n: number): void {
  try {
    if (n === 0) {
      rmSync(file, { force: true });
      return;
    }
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ continuations: n }));
    renameSync(tmp, file);
  } catch {
    // a guard that cannot persist still has the agent's own stop_hook_active
  }
}

/** One line naming where a problem is: `file:line:col: message`, or the message alone. */
function where(d: Diagnostic): string {
  // Absolute: the agent's working directory is not necessarily where the policy is.
  const at = d.span ? `${resolve(d.span.file)}:${d.span.start.line}:${d.span.start.column}: ` : d.pointer ? `${d.pointer}: ` : '';
  return `${at}${d.message}`;
}

/** The hook event a payload that is not valid JSON names, read as best it can be. */
function eventNameOf(raw: string): string | undefined {
  return /"hook_event_name"\s*:\s*"([A-Za-z]+)"/.exec(raw)?.[1];
}

/**
 * The answer when the hook cannot decide (a broken policy, an unreadable payload): a tool call
 * denied and a prompt blocked, with the reason; a stop never trapped; elsewhere a notice.
 */
export function failClosed(agent: Agent, eventName: string | undefined, why: string, failOpen: boolean): HookAnswer {
  const message = `dshpolicy: ${why}`;
  if (failOpen) return { stdout: '', stderr: `${message} (failing open)\n`, exitCode: HOOK_ANSWERED };
  const json = (v: unknown): HookAnswer => ({ stdout: `${JSON.stringify(v)}\n`, stderr: `${message}\n`, exitCode: HOOK_ANSWERED });
  if (agent === 'gemini') {
    // Gemini CLI goes ahead on an exit code other than 0 and 2: a tool call is denied in JSON, and
    // a payload naming no event exits 2, which blocks the call with stderr as the reason.
    if (eventName === GEMINI_TOOL_EVENT) return { ...geminiDeny(message), stderr: `${message}\n` };
    return { stdout: '', stderr: `${message}\n`, exitCode: eventName === undefined ? HOOK_BLOCK : HOOK_ANSWERED };
  }
  switch (eventName) {
    case 'PreToolUse':
      return json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: message } });
    case 'UserPromptSubmit':
    case 'PostToolUse':
      return json({ decision: 'block', reason: message });
    case 'PermissionRequest':
      return json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message } } });
    case 'Stop':
    case 'SubagentStop':
      // Failing closed here would keep the agent from ever stopping.
      return { stdout: '', stderr: `${message}\n`, exitCode: HOOK_ANSWERED };
    case undefined:
      // The event is unknown: exit 2 blocks where an event can block.
      return { stdout: '', stderr: `${message}\n`, exitCode: HOOK_BLOCK };
    default:
      return { stdout: '', stderr: `${message}\n`, exitCode: HOOK_ANSWERED };
  }
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
  const agent = positionals[0];
  if (agent !== 'claude' && agent !== 'codex' && agent !== 'gemini') {
    throw new UsageError(agent === undefined ? 'name the agent: `dshpolicy hook claude`, `dshpolicy hook codex` or `dshpolicy hook gemini`' : `unknown agent \`${agent}\`: name \`claude\`, \`codex\` or \`gemini\``);
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

/** Where a decision's policy and loop-guard counts come from: files for a hook process, memory for `serve`. */
export interface DecideContext {
  failOpen: boolean;
  ask: 'deny' | 'none';
  /** The policy for an event; `undefined` when there is none (no opinion), or why it cannot be had. */
  policyFor(event: AnyEvent): Promise<CompiledPolicy | { error: string } | undefined>;
  /** Consecutive forced continuations of a session, as the stop loop guard keeps them. */
  counts: { read(session: string): number; write(session: string, n: number): void };
  /**
   * When the answer must be out (epoch ms): hooks that have not answered by then fail closed.
   * Default: the agent's default handler timeout, less the margin, from now.
   */
  deadline?: (event: AnyEvent) => number;
}

async function decide(agent: Agent, io: Io, opts: HookOptions): Promise<HookAnswer> {
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
        const projectDir = agent === 'claude' ? process.env['CLAUDE_PROJECT_DIR'] : agent === 'gemini' ? process.env['GEMINI_PROJECT_DIR'] : undefined;
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
      if (!loaded.ir || firstError) return { error: `the policy does not compile: ${firstError ? where(firstError) : 'unknown error'}` };
      return compilePolicy(loaded.ir);
    },
    counts: { read: (session) => readCount(stateFile(dir, session)), write: (session, n) => writeCount(stateFile(dir, session), n) },
  });
}

/** Decides one raw payload and says it in the agent's protocol. Never throws. */
export async function decidePayload(agent: Agent, raw: string, ctx: DecideContext): Promise<HookAnswer> {
  if (agent === 'gemini') return decideGemini(raw, ctx);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return failClosed(agent, eventNameOf(raw), `the payload is not JSON: ${(err as Error).message}`, ctx.failOpen);
  }
  const named = (value as Record<string, unknown> | null)?.['hook_event_name'];
  const name = typeof named === 'string' ? named : undefined;
  const norm = normalizeAnyEvent(value);
  if (!norm.event) {
    const d = norm.diagnostics[0];
    return failClosed(agent, name, `the payload cannot be read: ${d ? where(d) : 'unknown problem'}`, ctx.failOpen);
  }
  const event: AnyEvent = norm.event;
  if (event.seam === 'agent-event' && event.agent === undefined) event.agent = agent;

  const policy = await ctx.policyFor(event);
  if (policy === undefined) return { stdout: '', stderr: '', exitCode: HOOK_ANSWERED };
  if ('error' in policy) return failClosed(agent, name, policy.error, ctx.failOpen);

  // The stop seam: the turn's facts from the transcript, and the loop guard's count.
  const session = event.session ?? 'session';
  if (event.seam === 'stop') {
    if (event.transcript_path) {
      const facts = agent === 'claude' ? await readClaudeTurn(event.transcript_path) : await readCodexTurn(event.transcript_path);
      event.turn = facts.turn;
      if (event.last_message === undefined && facts.lastMessage !== undefined) event.last_message = facts.lastMessage;
    }
    // A stop that is not a continuation starts the count again.
    event.continuations = event.stop_hook_active ? Math.max(1, ctx.counts.read(session)) : 0;
  }

  const decision: AnyDecision = await evaluateInTime(policy, event, inTime(agent, event, ctx));
  if (event.seam === 'stop' && decision.seam === 'stop') {
    ctx.counts.write(session, decision.decision === 'continue' ? (event.continuations ?? 0) + 1 : 0);
  }
  const answer = agent === 'claude' ? claudeAnswer(decision, event) : codexAnswer(decision, event, { ask: ctx.ask });
  return withProblems(answer, decision);
}

/** The deadline of an event, from now; `--fail-open` leaves late hooks out rather than failing closed. */
function inTime(agent: Agent, event: AnyEvent, ctx: DecideContext): { deadlineMs: number; onDeadline?: 'none' } {
  const at = ctx.deadline?.(event) ?? Date.now() + defaultDeadlineMs(agent, event);
  const opts: { deadlineMs: number; onDeadline?: 'none' } = { deadlineMs: at - Date.now() };
  if (ctx.failOpen) opts.onDeadline = 'none';
  return opts;
}

function withProblems(answer: HookAnswer, decision: AnyDecision): HookAnswer {
  const problems = decision.diagnostics.filter((d) => d.severity !== 'info');
  if (problems.length > 0) answer.stderr += problems.map((d) => `dshpolicy: ${where(d)}\n`).join('');
  return answer;
}

/**
 * A Gemini CLI payload: a `BeforeTool` event decided as a pre-tool event, any other event left
 * alone. Gemini CLI lets a call through when its hook fails, so an unexpected error here is
 * answered as a deny too.
 */
async function decideGemini(raw: string, ctx: DecideContext): Promise<HookAnswer> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return failClosed('gemini', eventNameOf(raw), `the payload is not JSON: ${(err as Error).message}`, ctx.failOpen);
  }
  const decoded = decodeGeminiPayload(value);
  if (decoded.kind === 'other') return { stdout: '', stderr: '', exitCode: HOOK_ANSWERED };
  if (decoded.kind === 'error') return failClosed('gemini', decoded.event, `the payload cannot be read: ${decoded.message}`, ctx.failOpen);
  try {
    const policy = await ctx.policyFor(decoded.event);
    if (policy === undefined) return { stdout: '', stderr: '', exitCode: HOOK_ANSWERED };
    if ('error' in policy) return failClosed('gemini', GEMINI_TOOL_EVENT, policy.error, ctx.failOpen);
    const decision = await evaluateInTime(policy, decoded.event, inTime('gemini', decoded.event, ctx));
    return withProblems(geminiAnswer(decision), decision);
  } catch (err) {
    return failClosed('gemini', GEMINI_TOOL_EVENT, `internal error: ${err instanceof Error ? err.message : String(err)}`, ctx.failOpen);
  }
}
