/**
 * dshpolicy as Codex's hook: a decision written back in Codex's wire protocol, using only the
 * outputs Codex accepts (anything else makes Codex mark the hook failed and go ahead). Codex has
 * no `ask`: an asked call is denied with a reason saying approval is required, or (if the user
 * opts for it) left to Codex's own approval flow. A plain `allow` cannot be said either: the call
 * is left to Codex, which is what an allow amounts to there.
 */
import type { AnyDecision, AnyEvent } from '../../engine/index.js';
import { CODEX_EVENT_TABLE } from './event-table.js';
import { answerJson as json, reasonOf, SEAM_EVENT, SILENT, stopOrStartAnswer, type HookAnswer } from '../common/answer.js';

export interface CodexAnswerOptions {
  /** What an `ask` becomes: `deny` (the default) or `none` (Codex's own approval flow decides). */
  ask?: 'deny' | 'none';
}

/** Codex's answer to `event` for `decision`. */
export function codexAnswer(decision: AnyDecision, event: AnyEvent, opts: CodexAnswerOptions = {}): HookAnswer {
  if (decision.seam === 'agent-event') return agentEventAnswer(decision, event);
  const hookEventName = SEAM_EVENT[decision.seam]!;
  const ctx = decision.context.length > 0 ? decision.context.join('\n\n') : undefined;
  const specific: Record<string, unknown> = { hookEventName };
  if (ctx !== undefined) specific['additionalContext'] = ctx;
  const withContext = (out: Record<string, unknown>) => (ctx !== undefined ? { ...out, hookSpecificOutput: { ...specific, ...((out['hookSpecificOutput'] as object) ?? {}) } } : out);
  switch (decision.seam) {
    case 'pre-tool': {
      const ask = opts.ask ?? 'deny';
      if (decision.decision === 'deny' || (decision.decision === 'ask' && ask === 'deny')) {
        const why = reasonOf(decision);
        const reason = decision.decision === 'ask' ? `approval required: ${why || 'the policy asks for a person to approve this call'}` : why || 'denied by policy';
        return json({ hookSpecificOutput: { ...specific, permissionDecision: 'deny', permissionDecisionReason: reason } });
      }
      // Codex takes an allow only with a rewritten input; a plain allow or none leaves the call to it.
      if (decision.updatedInput && (decision.decision === 'allow' || decision.decision === 'none')) {
        return json({ hookSpecificOutput: { ...specific, permissionDecision: 'allow', updatedInput: decision.updatedInput } });
      }
      return ctx !== undefined ? json({ hookSpecificOutput: specific }) : SILENT;
    }
    case 'prompt':
      if (decision.decision === 'block') return json(withContext({ decision: 'block', reason: reasonOf(decision) || 'blocked by policy' }));
      return ctx !== undefined ? json({ hookSpecificOutput: specific }) : SILENT;
    case 'post-tool':
      if (decision.decision === 'block') return json(withContext({ decision: 'block', reason: reasonOf(decision) || 'blocked by policy' }));
      return ctx !== undefined ? json({ hookSpecificOutput: specific }) : SILENT;
    case 'stop':
    case 'session-start':
      return stopOrStartAnswer(decision, ctx === undefined ? undefined : specific);
  }
}

function agentEventAnswer(d: Extract<AnyDecision, { seam: 'agent-event' }>, event: AnyEvent): HookAnswer {
  const info = CODEX_EVENT_TABLE.get(d.event);
  if (!info || event.seam !== 'agent-event') return SILENT;
  const reason = reasonOf(d);
  const specific: Record<string, unknown> = { hookEventName: d.event };
  const ctx = d.context.length > 0 ? d.context.join('\n\n') : undefined;
  if (info.special === 'permission-request') {
    if (d.decision === 'deny' || d.decision === 'halt') return json({ hookSpecificOutput: { ...specific, decision: { behavior: 'deny', message: reason || 'denied by policy' } } });
    if (d.decision === 'allow') return json({ hookSpecificOutput: { ...specific, decision: { behavior: 'allow' } } });
    return SILENT;
  }
  if (d.decision === 'halt' && info.halt) return json({ continue: false, stopReason: reason || 'stopped by policy' });
  if ((d.decision === 'block' || d.decision === 'continue') && info.block === d.decision) return json({ decision: 'block', reason: reason || 'blocked by policy' });
  if (ctx !== undefined && info.context && info.codexSpecific?.includes('additionalContext')) return json({ hookSpecificOutput: { ...specific, additionalContext: ctx } });
  return SILENT;
}
