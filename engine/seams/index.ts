/**
 * The typed seam API a host wires into its interception points: the decisions per seam and their
 * mapping from the engine's (decisions.ts), composing a host's listeners (compose.ts), the deny-only
 * guard (guard.ts), the approval seam for `ask` (approval.ts) and one policy at every point (policy.ts).
 */
export {
  seamDecision,
  SEAM_KINDS,
  type ApprovalOutcome,
  type ContinuationDecision,
  type GuardDecision,
  type PostToolDecision,
  type PreToolDecision,
  type PromptDecision,
  type Provenance,
  type Reasoned,
  type SeamDecision,
  type SeamDecisions,
  type SessionStartDecision,
  type SettledPreToolDecision,
} from './decisions.js';
export { combineDecisions, waterfall, type SeamListener, type Waterfall } from './compose.js';
export { applyGuards, policyGuard, type Guard } from './guard.js';
export { APPROVAL_OUTCOMES, resolveAsk, type Approval, type ApprovalRequest } from './approval.js';
export { policySeams, type PolicySeams } from './policy.js';
