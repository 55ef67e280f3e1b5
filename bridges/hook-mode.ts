/**
 * Hook mode as a library: one raw payload in, the agent's answer out (`HookAnswer`: stdout, stderr,
 * exit status), for any agent with a `HookAgent` (hook-agent.ts). `dshpolicy hook <agent>` runs it
 * once per process; `dshpolicy serve` runs it per request. Fails closed: a payload that cannot be
 * read, or a policy that cannot be had, denies a tool call and blocks a prompt, naming the problem
 * (`failOpen` opts out). The answer goes out by the deadline at the latest, failing closed on hooks
 * that have not answered (engine/hooks/deadline.ts). The stop seam's loop guard holds across the
 * separate hook processes of one session (a count per session in a state directory), and `ran`
 * facts come from the session's transcript. Never throws for the agents that answer errors; for
 * the others an unexpected error reaches the caller's crash handling, which fails closed too.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { evaluateInTime, type AnyDecision, type AnyEvent, type CompiledPolicy } from '../engine/index.js';
import { ANSWERED_EXIT, problemLine, type HookAnswer } from './common/answer.js';
import { DEADLINE_MARGIN_SEC } from './deadline.js';
import type { HookAgent } from './hook-agent.js';

/** Largest payload read; a larger one is unreadable (and fails closed). */
export const MAX_PAYLOAD = 16 * 1024 * 1024;

/**
 * The deadline of a hook whose handler has `timeoutMs`: the margin below it, but never less than
 * half of it (a short timeout still leaves its hooks some time).
 */
export function deadlineWithin(timeoutMs: number): number {
  return Math.max(timeoutMs - DEADLINE_MARGIN_SEC * 1000, timeoutMs / 2);
}

/** The deadline when none is given: within the timeout the agent gives a handler that names none. */
export function defaultDeadlineMs(agent: HookAgent, event: AnyEvent): number {
  return deadlineWithin(agent.handlerTimeoutMs(event));
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
export function stateDir(agent: HookAgent, env: NodeJS.ProcessEnv = process.env): string {
  return join(agent.configDir(env, env['HOME'] || homedir()), 'dshpolicy', 'stop');
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

/** Loop-guard counts kept in files, one per session, under `dir` (for hook processes). */
export function fileCounts(dir: string): DecideContext['counts'] {
  return { read: (session) => readCount(stateFile(dir, session)), write: (session, n) => writeCount(stateFile(dir, session), n) };
}

/**
 * The answer when the hook cannot decide (a broken policy, an unreadable payload): the agent's own
 * fail-closed answer, or with `failOpen` a notice and no opinion.
 */
export function failClosed(agent: HookAgent, eventName: string | undefined, why: string, failOpen: boolean): HookAnswer {
  const message = `dshpolicy: ${why}`;
  if (failOpen) return { stdout: '', stderr: `${message} (failing open)\n`, exitCode: ANSWERED_EXIT };
  return agent.failClosed(eventName, message);
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

/** Decides one raw payload and says it in the agent's protocol. */
export async function decidePayload(agent: HookAgent, raw: string, ctx: DecideContext): Promise<HookAnswer> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return failClosed(agent, agent.eventNameOf(raw), `the payload is not JSON: ${(err as Error).message}`, ctx.failOpen);
  }
  const read = agent.read(value);
  if (read.kind === 'other') return { stdout: '', stderr: '', exitCode: ANSWERED_EXIT };
  if (read.kind === 'error') return failClosed(agent, read.name, read.message, ctx.failOpen);
  if (!agent.answersErrors) return decideEvent(agent, read.event, read.name, ctx);
  try {
    return await decideEvent(agent, read.event, read.name, ctx);
  } catch (err) {
    return failClosed(agent, read.name, `internal error: ${err instanceof Error ? err.message : String(err)}`, ctx.failOpen);
  }
}

async function decideEvent(agent: HookAgent, event: AnyEvent, name: string | undefined, ctx: DecideContext): Promise<HookAnswer> {
  const policy = await ctx.policyFor(event);
  if (policy === undefined) return { stdout: '', stderr: '', exitCode: ANSWERED_EXIT };
  if ('error' in policy) return failClosed(agent, name, policy.error, ctx.failOpen);

  // The stop seam: the turn's facts from the transcript, and the loop guard's count.
  const session = event.session ?? 'session';
  if (event.seam === 'stop') {
    if (event.transcript_path && agent.readTurn) {
      const facts = await agent.readTurn(event.transcript_path);
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
  return withProblems(agent.answer(decision, event, { ask: ctx.ask }), decision);
}

/** The deadline of an event, from now; `failOpen` leaves late hooks out rather than failing closed. */
function inTime(agent: HookAgent, event: AnyEvent, ctx: DecideContext): { deadlineMs: number; onDeadline?: 'none' } {
  const at = ctx.deadline?.(event) ?? Date.now() + defaultDeadlineMs(agent, event);
  const opts: { deadlineMs: number; onDeadline?: 'none' } = { deadlineMs: at - Date.now() };
  if (ctx.failOpen) opts.onDeadline = 'none';
  return opts;
}

function withProblems(answer: HookAnswer, decision: AnyDecision): HookAnswer {
  const problems = decision.diagnostics.filter((d) => d.severity !== 'info');
  if (problems.length > 0) answer.stderr += problems.map((d) => `dshpolicy: ${problemLine(d)}\n`).join('');
  return answer;
}
