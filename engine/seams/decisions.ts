/**
 * The typed decisions of the canonical seams, as a host's interception points speak them: one
 * discriminated union per seam (on `kind`), and `seamDecision`, which maps the engine's `Decision`
 * onto them. The mapping is total (every decision word of every seam has its kind) and exact: the
 * reasons, the deciding rules' ids, the diagnostics, the context and a hook's rewrite of the tool
 * input all carry over. Only the trace stays behind (`evaluate` and `explain` give it).
 *
 * A host's own listeners write these shapes too, so what only the engine fills (`rules`,
 * `diagnostics`, `reasons`) is optional; what a host reads at every seam (`context`, `reason`) is not.
 */
import type { Diagnostic } from '../diagnostics.js';
import type { Decision } from '../evaluate.js';
import type { Seam } from '../ir.js';

/** Where a decision came from: the ids (`file:line:col`) of the rules that decided, and the problems met. */
export interface Provenance {
  rules?: string[];
  diagnostics?: Diagnostic[];
}

/** A decision that explains itself: `reason` is the one text a host shows (the `reasons` joined by a blank line). */
export interface Reasoned {
  reason: string;
  /** The separate reasons, in source order; none when the deciding rules gave none (`reason` then names the rules). */
  reasons?: string[];
}

/** The outcomes of the approval seam: only `allowed-once` lets an asked call run. */
export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

/** prompt-submit: go on (with context for the model), or block the prompt with a reason for the user. */
export type PromptDecision = Provenance & ({ kind: 'allow'; context: string[] } | ({ kind: 'block' } & Reasoned));

/**
 * tools/pre-execute: `allow` pre-approves the call, `ask` wants a person (the approval seam), `deny`
 * refuses it, `none` has no opinion and delegates (to the host's next listener, or its default).
 * `updatedInput` is a command hook's rewrite of the tool input; it stands only on `allow` and `none`.
 * `approval` records how an `ask` was settled (see `resolveAsk`).
 */
export type PreToolDecision = Provenance &
  (
    | { kind: 'allow'; context: string[]; updatedInput?: Record<string, unknown>; approval?: 'allowed-once' }
    | ({ kind: 'ask'; context: string[] } & Reasoned)
    | ({ kind: 'deny'; context: string[]; approval?: Exclude<ApprovalOutcome, 'allowed-once'> } & Reasoned)
    | { kind: 'none'; context: string[]; updatedInput?: Record<string, unknown> }
  );

/** A pre-tool decision once its `ask` is settled: the call runs, is refused, or is the host's to decide. */
export type SettledPreToolDecision = Exclude<PreToolDecision, { kind: 'ask' }>;

/** The deny-only guard's answer: deny, or abstain. There is no allow. */
export type GuardDecision = Provenance & (({ kind: 'deny' } & Reasoned) | { kind: 'abstain' });

/**
 * tools/post-execute: accept the result (with context for the model, and optionally a replacement
 * of its content, which only a host's listener gives) or block it with feedback for the model.
 */
export type PostToolDecision = Provenance &
  (
    | { kind: 'accept'; context: string[]; content?: unknown }
    | { kind: 'block'; feedback: string; reasons?: string[]; context: string[] }
  );

/**
 * turn-continuation: `stop` lets the turn end (`limited` when the loop guard turned a continuation
 * into a stop), `continue` runs another step with a model-facing reason, `halt` ends the session.
 */
export type ContinuationDecision = Provenance &
  (
    | { kind: 'stop'; context: string[]; limited?: true }
    | ({ kind: 'continue'; context: string[] } & Reasoned)
    | ({ kind: 'halt'; context: string[] } & Reasoned)
  );

/**
 * session-start: context for the session; it cannot block startup. `halt` comes only from a command
 * hook that answered `continue: false`; a host whose startup cannot be stopped logs it and goes on.
 */
export type SessionStartDecision = Provenance & ({ kind: 'context'; context: string[] } | ({ kind: 'halt'; context: string[] } & Reasoned));

/** The typed decision of each seam. */
export interface SeamDecisions {
  'pre-tool': PreToolDecision;
  prompt: PromptDecision;
  'post-tool': PostToolDecision;
  stop: ContinuationDecision;
  'session-start': SessionStartDecision;
}

/** The typed decision of seam `S`. */
export type SeamDecision<S extends Seam = Seam> = SeamDecisions[S];

/** The kinds of each seam's typed decision, least restrictive first; the first one delegates. */
export const SEAM_KINDS: { readonly [S in Seam]: readonly SeamDecision<S>['kind'][] } = {
  'pre-tool': ['none', 'allow', 'ask', 'deny'],
  prompt: ['allow', 'block'],
  'post-tool': ['accept', 'block'],
  stop: ['stop', 'continue', 'halt'],
  'session-start': ['context', 'halt'],
};

/** The reason of a decision whose rules gave none: what decided, so a host never shows an empty text. */
export function fallbackReason(word: string, rules: readonly string[]): string {
  if (rules.length === 0) return `the policy gives \`${word}\``;
  return `the policy gives \`${word}\` (rule${rules.length === 1 ? '' : 's'} ${rules.map((r) => `\`${r}\``).join(', ')})`;
}

function reasoned(d: Decision): Required<Reasoned> {
  return { reason: d.reason ?? (d.reasons.length > 0 ? d.reasons.join('\n\n') : fallbackReason(d.decision, d.rules)), reasons: [...d.reasons] };
}

/**
 * The typed decision of an engine decision of the same seam. A decision word a seam does not have
 * (from an untyped caller) fails closed: `deny` on pre-tool, `block` on prompt and post-tool; on
 * the other two seams, which gate nothing, `stop` and `context`. A decision of no seam at all is a
 * programming error, and throws.
 */
export function seamDecision<S extends Seam>(d: Decision<S>): SeamDecision<S>;
export function seamDecision(d: Decision): SeamDecision {
  const p: Provenance = { rules: [...d.rules], diagnostics: [...d.diagnostics] };
  const context = [...d.context];
  const word: string = d.decision;
  switch (d.seam) {
    case 'pre-tool': {
      if (word === 'allow' || word === 'none') {
        const out: Extract<PreToolDecision, { kind: 'allow' | 'none' }> = { kind: word, context, ...p };
        if (d.updatedInput) out.updatedInput = d.updatedInput;
        return out;
      }
      if (word === 'ask') return { kind: 'ask', context, ...reasoned(d), ...p };
      return { kind: 'deny', context, ...reasoned(d), ...p };
    }
    case 'prompt':
      if (word === 'allow') return { kind: 'allow', context, ...p };
      return { kind: 'block', ...reasoned(d), ...p };
    case 'post-tool': {
      if (word === 'accept') return { kind: 'accept', context, ...p };
      const { reason, reasons } = reasoned(d);
      return { kind: 'block', feedback: reason, reasons, context, ...p };
    }
    case 'stop': {
      if (word === 'continue' || word === 'halt') return { kind: word, context, ...reasoned(d), ...p };
      const out: ContinuationDecision = { kind: 'stop', context, ...p };
      if (d.trace.some((t) => t.outcome === 'limited')) out.limited = true;
      return out;
    }
    case 'session-start':
      if (word === 'halt') return { kind: 'halt', context, ...reasoned(d), ...p };
      return { kind: 'context', context, ...p };
  }
  throw new TypeError(`\`${String((d as { seam: unknown }).seam)}\` is not a seam`);
}
