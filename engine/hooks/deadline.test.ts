/**
 * Hook mode's evaluation with real hook processes: the answer goes out once it is final, hooks
 * still running are ended with their process groups, and late hooks fail closed at the deadline.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../compile.js';
import type { AgentEvent, PolicyEvent } from '../events.js';
import { IR_VERSION, type PolicyIR, type Rule, type RuleSeam } from '../ir.js';
import type { HookOutcome, HookRunner } from '../evaluate.js';
import { evaluateInTime } from './deadline.js';

const cwd = mkdtempSync(join(tmpdir(), 'dshpolicy-deadline-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const marker = (name: string) => join(cwd, name);

let n = 0;
function rule(seam: RuleSeam, effect: Rule['effect'], extra: Partial<Rule> = {}): Rule {
  n++;
  return { id: `p.dshpolicy:${n}:1`, seam, effect, ...extra };
}
const run = (command: string, seam: RuleSeam = 'pre-tool', extra: Partial<Rule['hook']> = {}): Rule =>
  rule(seam, 'run', { hook: { command, dialect: 'claude', ...extra } });
function policy(...rules: Rule[]) {
  const ir: PolicyIR = { version: IR_VERSION, sources: ['p.dshpolicy'], rules, tests: [] };
  return compilePolicy(ir);
}
const bash = (command: string): PolicyEvent => ({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await work;
  return { value, ms: Date.now() - start };
}

describe('answering once the decision is final', () => {
  it('a deny of the rules answers at once, and the hooks beside it are never started', async () => {
    const p = policy(rule('pre-tool', 'deny', { tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm *'] }], reason: 'no rm' }), run(`touch ${marker('started')}; sleep 30`));
    const { value, ms } = await timed(evaluateInTime(p, bash('rm -rf x'), { deadlineMs: 20_000 }));
    expect(value).toMatchObject({ decision: 'deny', reasons: ['no rm'] });
    expect(ms).toBeLessThan(1500);
    expect(value.trace.find((t) => t.effect === 'run')?.hook?.summary).toBe('not run: the decision was already final');
    await sleep(200);
    expect(existsSync(marker('started'))).toBe(false);
  });

  it('a hook that denies ends the hooks still running, with their whole process groups', async () => {
    const p = policy(
      run('sleep 0.2; echo "hook says no" >&2; exit 2'),
      run(`echo $$ > ${marker('slow.pid')}; (sleep 1; touch ${marker('survived')}) & sleep 30`),
    );
    const { value, ms } = await timed(evaluateInTime(p, bash('ls'), { deadlineMs: 20_000 }));
    expect(value).toMatchObject({ decision: 'deny', reasons: ['hook says no'] });
    expect(ms).toBeLessThan(2000);
    const pid = Number(readFileSync(marker('slow.pid'), 'utf8'));
    await sleep(1500);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(marker('survived'))).toBe(false);
  });

  it('a stop halted by a hook answers at once; an ask does not end the others (a deny could still come)', async () => {
    const stop: PolicyEvent = { seam: 'stop', turn: [], stop_hook_active: false, cwd };
    const halting = policy(run(`echo '{"continue":false,"stopReason":"enough"}'`, 'stop'), run('sleep 30', 'stop'));
    const { value, ms } = await timed(evaluateInTime(halting, stop, { deadlineMs: 20_000 }));
    expect(value).toMatchObject({ decision: 'halt', reasons: ['enough'] });
    expect(ms).toBeLessThan(1500);
    const asking = policy(
      run(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"maybe"}}'`),
      run('sleep 0.5; echo nope >&2; exit 2'),
    );
    expect(await evaluateInTime(asking, bash('ls'), { deadlineMs: 20_000 })).toMatchObject({ decision: 'deny', reasons: ['nope'] });
  });

  it('hooks that finish in time decide as they always do', async () => {
    const p = policy(run('exit 0'), run(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`));
    expect(await evaluateInTime(p, bash('ls'), { deadlineMs: 20_000 })).toMatchObject({ decision: 'allow', diagnostics: [] });
  });
});

describe('the deadline', () => {
  it('a hook that has not answered denies the tool call, naming the hook, and is ended', async () => {
    const p = policy(rule('pre-tool', 'ask', { tools: ['Bash'], reason: 'ask first' }), run(`echo $$ > ${marker('late.pid')}; sleep 30`));
    const { value, ms } = await timed(evaluateInTime(p, bash('ls'), { deadlineMs: 400 }));
    expect(value).toMatchObject({ decision: 'deny', reasons: ['hook `echo $$ > ' + marker('late.pid') + '; sleep 30` did not answer in time'] });
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(1500);
    expect(value.diagnostics).toContainEqual(expect.objectContaining({ code: 'hook/deadline', severity: 'warning' }));
    await sleep(100);
    expect(isAlive(Number(readFileSync(marker('late.pid'), 'utf8')))).toBe(false);
  });

  it('blocks a prompt and a tool\'s output; a stop and a session start go ahead without the hook', async () => {
    const prompt: PolicyEvent = { seam: 'prompt', prompt: 'hi', cwd };
    expect(await evaluateInTime(policy(run('sleep 30', 'prompt')), prompt, { deadlineMs: 200 })).toMatchObject({ decision: 'block', reasons: ['hook `sleep 30` did not answer in time'] });
    const post: PolicyEvent = { seam: 'post-tool', tool: 'Bash', input: { command: 'ls' }, output: 'x', cwd };
    expect(await evaluateInTime(policy(run('sleep 30', 'post-tool')), post, { deadlineMs: 200 })).toMatchObject({ decision: 'block' });
    const stop: PolicyEvent = { seam: 'stop', turn: [], stop_hook_active: false, cwd };
    // The policy's own continue still stands: only the late hook is left out.
    const continuing = policy(rule('stop', 'continue', { reason: 'run the tests' }), run('sleep 30', 'stop'));
    expect(await evaluateInTime(continuing, stop, { deadlineMs: 200 })).toMatchObject({ decision: 'continue', reasons: ['run the tests'] });
    const stopping = await evaluateInTime(policy(run('sleep 30', 'stop')), stop, { deadlineMs: 200 });
    expect(stopping).toMatchObject({ decision: 'stop' });
    expect(stopping.diagnostics[0]?.message).toContain('left out of the decision');
    const start: PolicyEvent = { seam: 'session-start', source: 'startup', cwd };
    expect(await evaluateInTime(policy(run('sleep 30', 'session-start')), start, { deadlineMs: 200 })).toMatchObject({ decision: 'none' });
  });

  it('a late permission request is denied; other agent events go ahead', async () => {
    const permission: AgentEvent = { seam: 'agent-event', event: 'PermissionRequest', agent: 'claude', fields: { tool_name: 'Bash', tool_input: { command: 'ls' } }, cwd };
    const p = policy(rule('agent-event', 'run', { hook: { command: 'sleep 30', dialect: 'claude', event: 'PermissionRequest' } }));
    expect(await evaluateInTime(p, permission, { deadlineMs: 200 })).toMatchObject({ decision: 'deny', reasons: ['hook `sleep 30` did not answer in time'] });
    const compact: AgentEvent = { seam: 'agent-event', event: 'PreCompact', agent: 'claude', fields: { trigger: 'auto' }, cwd };
    const q = policy(rule('agent-event', 'run', { hook: { command: 'sleep 30', dialect: 'claude', event: 'PreCompact' } }));
    expect(await evaluateInTime(q, compact, { deadlineMs: 200 })).toMatchObject({ decision: 'none' });
  });

  it('`on_deadline: "none"` (or onDeadline for every hook) leaves the late hook out', async () => {
    const own = policy(run('sleep 30', 'pre-tool', { onDeadline: 'none' }), run('sleep 30'));
    // The rule without the option still fails closed.
    expect(await evaluateInTime(own, bash('ls'), { deadlineMs: 200 })).toMatchObject({ decision: 'deny', reasons: ['hook `sleep 30` did not answer in time'] });
    const lenient = await evaluateInTime(policy(run('sleep 30', 'pre-tool', { onDeadline: 'none' })), bash('ls'), { deadlineMs: 200 });
    expect(lenient).toMatchObject({ decision: 'none', reasons: [] });
    expect(lenient.diagnostics).toContainEqual(expect.objectContaining({ code: 'hook/deadline', severity: 'warning' }));
    expect(await evaluateInTime(policy(run('sleep 30')), bash('ls'), { deadlineMs: 200, onDeadline: 'none' })).toMatchObject({ decision: 'none' });
  });

  it('what a hook says after it was counted is dropped', async () => {
    let answer: ((o: HookOutcome) => void) | undefined;
    const runner: HookRunner = () => new Promise((resolve) => (answer = resolve));
    const p = policy(run('slow', 'pre-tool', { onDeadline: 'none' }));
    const decision = await evaluateInTime(p, bash('ls'), { deadlineMs: 100, runner });
    answer!({ effect: 'allow', exitCode: 0, timedOut: false, summary: 'exit 0' });
    expect(decision).toMatchObject({ decision: 'none' });
    expect(decision.trace[0]?.hook?.summary).toMatch(/^no answer by the deadline/);
  });

  it('the signal reaches the runner, and a hook that leaves a daemon holding its pipes does not hold the answer', async () => {
    let signal: AbortSignal | undefined;
    const spy: HookRunner = (cr, ev, o) => {
      signal = (o as { signal?: AbortSignal }).signal;
      return new Promise(() => undefined);
    };
    await evaluateInTime(policy(run('x')), bash('ls'), { deadlineMs: 50, runner: spy });
    expect(signal?.aborted).toBe(true);
    // The daemon leaves the process group (setsid) with the hook's stdout: only the deadline ends the wait.
    const p = policy(run(`setsid sh -c 'echo $$ > ${marker('daemon.pid')}; exec sleep 20' & sleep 30`));
    const { value, ms } = await timed(evaluateInTime(p, bash('ls'), { deadlineMs: 300 }));
    expect(value.decision).toBe('deny');
    expect(ms).toBeLessThan(1500);
    await sleep(100);
    const daemon = Number(readFileSync(marker('daemon.pid'), 'utf8'));
    try {
      process.kill(daemon, 'SIGKILL');
    } catch {
      // gone already
    }
  });
});
