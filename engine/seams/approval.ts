/**
 * The approval seam: how a host settles a pre-tool `ask`. An approval service answers with one of
 * four outcomes; only `allowed-once` lets the call go on (to the guards and the tool). `rejected`,
 * `cancelled` and `unavailable` deny, and so do a missing service, one that throws and one that
 * answers anything else: the denial's reason names the outcome. Decisions other than `ask` pass
 * through as they are.
 */
import type { EventOf } from '../events.js';
import type { ApprovalOutcome, PreToolDecision, SettledPreToolDecision } from './decisions.js';

/** The four outcomes, `allowed-once` first. */
export const APPROVAL_OUTCOMES: readonly ApprovalOutcome[] = ['allowed-once', 'rejected', 'cancelled', 'unavailable'];

/** What an approval service is asked: the call, and the `ask` with its reason. */
export interface ApprovalRequest {
  event: EventOf<'pre-tool'>;
  ask: Extract<PreToolDecision, { kind: 'ask' }>;
}

/** A host's approval service: a person, a channel, a rule of its own. */
export type Approval = (request: ApprovalRequest) => ApprovalOutcome | Promise<ApprovalOutcome>;

const TOLD: Record<Exclude<ApprovalOutcome, 'allowed-once'>, string> = {
  rejected: 'the approval was `rejected`',
  cancelled: 'the approval was `cancelled`',
  unavailable: 'the approval was `unavailable`',
};

/**
 * Settles `decision` for the call `event`: an `ask` goes to `approval` and becomes `allow` (marked
 * `approval: 'allowed-once'`) or `deny` (marked with the outcome, which its reason names); any other
 * decision is returned as it is. Never throws.
 */
export async function resolveAsk(event: EventOf<'pre-tool'>, decision: PreToolDecision, approval?: Approval): Promise<SettledPreToolDecision> {
  if (decision.kind !== 'ask') return decision;
  let outcome: Exclude<ApprovalOutcome, 'allowed-once'> = 'unavailable';
  let detail = 'no approval service is available';
  if (approval !== undefined) {
    try {
      const answer: unknown = await approval({ event, ask: decision });
      if (answer === 'allowed-once') {
        const out: SettledPreToolDecision = { kind: 'allow', context: decision.context, approval: 'allowed-once' };
        if (decision.rules) out.rules = decision.rules;
        if (decision.diagnostics) out.diagnostics = decision.diagnostics;
        return out;
      }
      if (answer === 'rejected' || answer === 'cancelled' || answer === 'unavailable') {
        outcome = answer;
        detail = '';
      } else {
        detail = `the approval service answered \`${String(answer)}\`, which is not an outcome`;
      }
    } catch (err) {
      detail = `the approval service failed: \`${String(err)}\``;
    }
  }
  const told = `${TOLD[outcome]}${detail ? ` (${detail})` : ''}; only \`allowed-once\` lets the call run`;
  const reasons = [...(decision.reasons && decision.reasons.length > 0 ? decision.reasons : [decision.reason]), told];
  const out: SettledPreToolDecision = { kind: 'deny', context: decision.context, reason: reasons.join('\n\n'), reasons, approval: outcome };
  if (decision.rules) out.rules = decision.rules;
  if (decision.diagnostics) out.diagnostics = decision.diagnostics;
  return out;
}
