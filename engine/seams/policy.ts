/**
 * One policy at every interception point of a host, each answering with its seam's typed decision:
 * the listeners a host registers (or composes with its own through `waterfall`), and the policy's
 * deny-only guard. Hooks run with the options' runner, as `evaluate` runs them; the guard never
 * runs them. Nothing here throws: the evaluator does not.
 */
import type { CompiledPolicy } from '../compile.js';
import { evaluate, type EvaluateOptions } from '../evaluate.js';
import type { EventOf } from '../events.js';
import type { ContinuationDecision, PostToolDecision, PreToolDecision, PromptDecision, SessionStartDecision } from './decisions.js';
import { seamDecision } from './decisions.js';
import { policyGuard, type Guard } from './guard.js';

/** A policy's listener per seam, named after the host's interception points, and its guard. */
export interface PolicySeams {
  /** session-start: context for the new session. */
  sessionStart(event: EventOf<'session-start'>): Promise<SessionStartDecision>;
  /** prompt-submit: allow with context, or block with a reason. */
  promptSubmit(event: EventOf<'prompt'>): Promise<PromptDecision>;
  /** tools/pre-execute: allow, ask, deny, or none (delegate). */
  preExecute(event: EventOf<'pre-tool'>): Promise<PreToolDecision>;
  /** The deny-only guard, synchronous and without hooks, for after the waterfall. */
  guard: Guard;
  /** tools/post-execute: accept with context, or block with feedback. */
  postExecute(event: EventOf<'post-tool'>): Promise<PostToolDecision>;
  /** turn-continuation: stop, continue with a model-facing reason, or halt. */
  turnContinuation(event: EventOf<'stop'>): Promise<ContinuationDecision>;
}

/** The policy at each of a host's interception points (see `PolicySeams`). */
export function policySeams(policy: CompiledPolicy, opts: EvaluateOptions = {}): PolicySeams {
  return {
    sessionStart: async (event) => seamDecision(await evaluate(policy, event, opts)),
    promptSubmit: async (event) => seamDecision(await evaluate(policy, event, opts)),
    preExecute: async (event) => seamDecision(await evaluate(policy, event, opts)),
    guard: policyGuard(policy),
    postExecute: async (event) => seamDecision(await evaluate(policy, event, opts)),
    turnContinuation: async (event) => seamDecision(await evaluate(policy, event, opts)),
  };
}
