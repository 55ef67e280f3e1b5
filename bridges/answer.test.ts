/** Claude Code's and Codex's answers side by side: the same decisions, each said in its agent's protocol. */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventDecision, Decision } from '../engine/index.js';
import { claudeAnswer } from './claude/answer.js';
import { codexAnswer } from './codex/answer.js';

function agentDecision(event: string, decision: AgentEventDecision['decision'], extra: Partial<AgentEventDecision> = {}): AgentEventDecision {
  return { seam: 'agent-event', event, decision, reasons: extra.reason ? [extra.reason] : [], context: [], rules: [], trace: [], diagnostics: [], ...extra };
}
const ev = (event: string): AgentEvent => ({ seam: 'agent-event', event, fields: {} });

describe('answers for agent events without a seam', () => {
  it('Claude Code: a PermissionRequest allow carries the rewritten input, a deny its message', () => {
    expect(JSON.parse(claudeAnswer(agentDecision('PermissionRequest', 'allow', { updatedInput: { command: 'ls -la' } }), ev('PermissionRequest')).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: { command: 'ls -la' } } },
    });
    expect(JSON.parse(claudeAnswer(agentDecision('PermissionRequest', 'deny', { reason: 'no' }), ev('PermissionRequest')).stdout).hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'no' });
  });

  it('Claude Code: a worktree path is the last stdout line; a failed creation exits 1', () => {
    expect(claudeAnswer(agentDecision('WorktreeCreate', 'none', { output: { worktreePath: '/w/x' } }), ev('WorktreeCreate'))).toEqual({ stdout: '/w/x\n', stderr: '', exitCode: 0 });
    expect(claudeAnswer(agentDecision('WorktreeCreate', 'block', { reason: 'disk full' }), ev('WorktreeCreate'))).toMatchObject({ stdout: '', exitCode: 1 });
  });

  it('Claude Code: a block with no JSON form is exit 2 with the reason; one with a JSON form is decision block', () => {
    expect(claudeAnswer(agentDecision('TaskCompleted', 'block', { reason: 'not done' }), ev('TaskCompleted'))).toEqual({ stdout: '', stderr: 'not done\n', exitCode: 2 });
    expect(JSON.parse(claudeAnswer(agentDecision('PreCompact', 'block', { reason: 'later' }), ev('PreCompact')).stdout)).toEqual({ decision: 'block', reason: 'later' });
  });

  it('Codex: a PermissionRequest deny has a message; a halt on compaction is continue false; nothing else is said', () => {
    expect(JSON.parse(codexAnswer(agentDecision('PermissionRequest', 'deny'), ev('PermissionRequest')).stdout).hookSpecificOutput.decision).toEqual({ behavior: 'deny', message: 'denied by policy' });
    expect(JSON.parse(codexAnswer(agentDecision('PreCompact', 'halt', { reason: 'no' }), ev('PreCompact')).stdout)).toEqual({ continue: false, stopReason: 'no' });
    expect(codexAnswer(agentDecision('SessionEnd', 'none'), ev('SessionEnd')).stdout).toBe('');
  });
});

describe('answers for seams', () => {
  const pre = (decision: 'deny' | 'ask' | 'allow' | 'none', reasons: string[] = []): Decision => ({ seam: 'pre-tool', decision, reasons, context: [], rules: [], trace: [], diagnostics: [] });
  const event = { seam: 'pre-tool' as const, tool: 'Bash', input: { command: 'x' } };

  it('a deny without a reason still gives one, since Codex rejects a reasonless deny', () => {
    expect(JSON.parse(codexAnswer(pre('deny'), event).stdout).hookSpecificOutput.permissionDecisionReason).toBe('denied by policy');
    expect(JSON.parse(claudeAnswer(pre('deny'), event).stdout).hookSpecificOutput.permissionDecisionReason).toBe('denied by policy');
  });

  it('Codex: ask is a deny saying approval is required, or nothing with ask: none', () => {
    expect(JSON.parse(codexAnswer(pre('ask', ['look first']), event).stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'approval required: look first' });
    expect(codexAnswer(pre('ask', ['look first']), event, { ask: 'none' }).stdout).toBe('');
  });
});
