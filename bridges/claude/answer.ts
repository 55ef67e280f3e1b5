/**
 * dshpolicy as Claude Code's hook: a decision written back in Claude Code's wire protocol. JSON on
 * stdout with exit 0 wherever JSON can say it (Claude Code reads it for every event); nothing at all
 * for "no opinion", so Claude Code's own permission flow runs; exit 2 with the reason on stderr
 * only where an event's answer has no JSON form.
 */
import type { AnyDecision, AnyEvent } from '../../engine/index.js';
import { CLAUDE_EVENT_TABLE } from './event-table.js';
import { answerJson as json, reasonOf, SEAM_EVENT, SILENT, stopOrStartAnswer, type HookAnswer } from '../common/answer.js';

function context(d: AnyDecision): string | undefined {
  return d.context.length > 0 ? d.context.join('\n\n') : undefined;
}

/** Claude Code's answer to `event` for `decision`. */
export function claudeAnswer(decision: AnyDecision, event: AnyEvent): HookAnswer {
  if (decision.seam === 'agent-event') return agentEventAnswer(decision, event);
  const hookEventName = SEAM_EVENT[decision.seam]!;
  const ctx = context(decision);
  const specific: Record<string, unknown> = { hookEventName };
  if (ctx !== undefined) specific['additionalContext'] = ctx;
  switch (decision.seam) {
    case 'pre-tool': {
      if (decision.decision === 'none' && !decision.updatedInput && ctx === undefined) return SILENT;
      if (decision.decision !== 'none') specific['permissionDecision'] = decision.decision;
      if (decision.decision === 'deny' || decision.decision === 'ask') specific['permissionDecisionReason'] = reasonOf(decision) || `${decision.decision === 'deny' ? 'denied' : 'approval required'} by policy`;
      else if (decision.reasons.length > 0) specific['permissionDecisionReason'] = reasonOf(decision);
      if (decision.updatedInput) specific['updatedInput'] = decision.updatedInput;
      return json({ hookSpecificOutput: specific });
    }
    case 'prompt':
      if (decision.decision === 'block') return json({ decision: 'block', reason: reasonOf(decision) || 'blocked by policy' });
      return ctx === undefined ? SILENT : json({ hookSpecificOutput: specific });
    case 'post-tool': {
      const out: Record<string, unknown> = {};
      if (decision.decision === 'block') Object.assign(out, { decision: 'block', reason: reasonOf(decision) || 'blocked by policy' });
      if (ctx !== undefined) out['hookSpecificOutput'] = specific;
      return Object.keys(out).length === 0 ? SILENT : json(out);
    }
    case 'stop':
    case 'session-start':
      return stopOrStartAnswer(decision, ctx === undefined ? undefined : specific);
  }
}

/** An agent event's decision (from its imported hooks), said the way the event takes it. */
function agentEventAnswer(d: Extract<AnyDecision, { seam: 'agent-event' }>, event: AnyEvent): HookAnswer {
  const info = CLAUDE_EVENT_TABLE.get(d.event);
  if (!info || event.seam !== 'agent-event') return SILENT;
  const reason = reasonOf(d);
  const specific: Record<string, unknown> = { hookEventName: d.event };
  const ctx = context(d);
  if (ctx !== undefined && info.context) specific['additionalContext'] = ctx;
  for (const [k, v] of Object.entries(d.output ?? {})) if (k !== 'worktreePath' && k !== 'action' && k !== 'content') specific[k] = v;
  if (d.decision === 'halt' && info.special === 'permission-request') {
    return json({ hookSpecificOutput: { ...specific, decision: { behavior: 'deny', message: reason, interrupt: true } } });
  }
  if (d.decision === 'halt' && info.halt) return json({ continue: false, stopReason: reason || 'stopped by policy' });
  if (info.special === 'worktree-create') {
    if (d.decision === 'block') return { stdout: '', stderr: `${reason || 'the worktree could not be created'}\n`, exitCode: 1 };
    const path = d.output?.['worktreePath'];
    return typeof path === 'string' ? { stdout: `${path}\n`, stderr: '', exitCode: 0 } : SILENT;
  }
  if (info.special === 'permission-request' && (d.decision === 'allow' || d.decision === 'deny')) {
    const decision: Record<string, unknown> = { behavior: d.decision };
    if (d.decision === 'deny') decision['message'] = reason;
    if (d.decision === 'allow' && d.updatedInput) decision['updatedInput'] = d.updatedInput;
    return json({ hookSpecificOutput: { ...specific, decision } });
  }
  if (info.special === 'elicitation' && (d.decision === 'allow' || d.decision === 'deny')) {
    const action = d.output?.['action'] ?? (d.decision === 'allow' ? 'accept' : 'decline');
    const out: Record<string, unknown> = { ...specific, action };
    if (d.output?.['content'] !== undefined) out['content'] = d.output['content'];
    return json({ hookSpecificOutput: out });
  }
  if (info.special === 'permission-decision' && (d.decision === 'allow' || d.decision === 'deny' || d.decision === 'ask')) {
    return json({ hookSpecificOutput: { ...specific, permissionDecision: d.decision, permissionDecisionReason: reason } });
  }
  if ((d.decision === 'block' || d.decision === 'continue') && info.block === d.decision) {
    const out: Record<string, unknown> = { decision: 'block', reason: reason || 'blocked by policy' };
    if (Object.keys(specific).length > 1) out['hookSpecificOutput'] = specific;
    return json(out);
  }
  if (d.decision !== 'none' && d.decision !== 'allow' && info.exit2 === d.decision) {
    return { stdout: '', stderr: `${reason || 'blocked by policy'}\n`, exitCode: 2 };
  }
  return Object.keys(specific).length > 1 ? json({ hookSpecificOutput: specific }) : SILENT;
}
