import { describe, expect, it } from 'vitest';
import { IR_VERSION, type PolicyIR, type Rule } from '../engine/index.js';
import { DEADLINE_MARGIN_SEC } from './deadline.js';
import { handlerTimeout, hookDeadlineSec, hookTimeoutLints, MIN_HANDLER_TIMEOUT_SEC, runHookTimeoutMs } from './handler-timeout.js';
import { installableAgents } from './install/agent.js';

const span = { file: 'p.dshpolicy', start: { line: 2, column: 3, offset: 10 }, end: { line: 2, column: 40, offset: 47 } };

function run(seam: Rule['seam'], timeoutMs?: number, extra: Partial<NonNullable<Rule['hook']>> = {}): Rule {
  return { id: `p.dshpolicy:${seam}`, seam, effect: 'run', hook: { command: './h.sh', dialect: 'claude', ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...extra }, span };
}

const ir = (...rules: Rule[]): PolicyIR => ({ version: IR_VERSION, sources: ['p.dshpolicy'], rules, tests: [] });

describe('the handler timeout', () => {
  it('is the shared limits: 600 s at most for both agents, the hook answering 5 s before', () => {
    expect(Object.fromEntries(installableAgents().map((a) => [a.name, a.install.maxHandlerTimeoutSec]))).toEqual({ claude: 600, codex: 600 });
    expect(DEADLINE_MARGIN_SEC).toBe(5);
    expect(hookDeadlineSec(30)).toBe(25);
  });

  it('gives a policy without run hooks the minimum, and a user install without a policy the agent\'s longest', () => {
    expect(handlerTimeout(ir({ id: 'x', seam: 'pre-tool', effect: 'deny' }), 'claude')).toEqual({ seconds: MIN_HANDLER_TIMEOUT_SEC, capped: false });
    expect(handlerTimeout(undefined, 'codex')).toEqual({ seconds: 600, capped: true });
  });

  it('covers the slowest hook plus the margin, rounded up to a second, and stops at the agent\'s longest', () => {
    expect(handlerTimeout(ir(run('pre-tool', 10_000)), 'claude').seconds).toBe(30);
    expect(handlerTimeout(ir(run('pre-tool', 10_000), run('stop', 90_500)), 'claude')).toMatchObject({ seconds: 96, capped: false, longest: { ms: 90_500 } });
    expect(handlerTimeout(ir(run('pre-tool', 3_600_000)), 'codex')).toMatchObject({ seconds: 600, capped: true });
    // Without a timeout, the agents' default: 600 s, and Claude Code's 30 s on a prompt.
    expect(handlerTimeout(ir(run('pre-tool')), 'claude')).toMatchObject({ seconds: 600, capped: true });
    expect(handlerTimeout(ir(run('prompt')), 'claude').seconds).toBe(35);
    expect(handlerTimeout(ir(run('prompt', undefined, { dialect: 'codex' })), 'claude').seconds).toBe(600);
  });

  it('counts hooks on agent events only where the agent has the event, with that event\'s default', () => {
    const notification = run('agent-event', 120_000, { event: 'Notification' });
    expect(handlerTimeout(ir(notification), 'claude').seconds).toBe(125);
    // Codex has no Notification event: install does not wire it, so its hook does not count.
    expect(handlerTimeout(ir(notification), 'codex').seconds).toBe(30);
    expect(runHookTimeoutMs(run('agent-event', undefined, { event: 'SessionEnd' }))).toBe(1_500);
  });
});

describe('check/hook-timeout-exceeds', () => {
  it('warns at a run rule whose own timeout is longer than its hook can have', () => {
    const long = run('pre-tool', 596_000);
    const diagnostics = hookTimeoutLints(ir(run('pre-tool', 595_000), long, run('stop')));
    expect(diagnostics).toEqual([
      {
        code: 'check/hook-timeout-exceeds',
        severity: 'warning',
        message: "the timeout of this hook (`596s`) cannot fit: claude code and codex wait at most 600 s for dshpolicy's hook, which answers 5 s before that",
        span,
        help: 'past 595s the hook is ended and counts as not answering in time (a tool call is denied, a prompt blocked); give it a `timeout` of 595s or less',
      },
    ]);
  });

  it('says how to fix an imported hook in its own file, and names only the agents asked about', () => {
    const [d] = hookTimeoutLints(ir(run('pre-tool', 3_600_000, { event: 'PreToolUse' })), ['codex']);
    expect(d!.message).toContain('(`3600` s) cannot fit: codex waits at most 600 s');
    expect(d!.help).toContain('set its `timeout` to 595 or less');
    // A hook on an event the agent does not have never runs there.
    expect(hookTimeoutLints(ir(run('agent-event', 3_600_000, { event: 'Notification' })), ['codex'])).toEqual([]);
  });
});
