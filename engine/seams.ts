/**
 * The canonical seams as functions of the engine's `Decision`, plus the two ways a host composes
 * them: as a waterfall listener `(event, next)` beside its own listeners, and with an approver for
 * `ask`. The typed seam API (a discriminated union per seam, the waterfall, the deny-only guard and
 * the approval seam) lives in seams/ and is exported from here too.
 */
import { DECISION_RANK } from './algebra.js';
import type { CompiledPolicy } from './compile.js';
import { evaluate, type Decision, type EvaluateOptions } from './evaluate.js';
import type { EventOf, PolicyEvent } from './events.js';
import type { Seam } from './ir.js';

export * from './seams/index.js';

export const sessionStart = (p: CompiledPolicy, e: EventOf<'session-start'>, o?: EvaluateOptions) => evaluate(p, e, o);
export const prompt = (p: CompiledPolicy, e: EventOf<'prompt'>, o?: EvaluateOptions) => evaluate(p, e, o);
export const preTool = (p: CompiledPolicy, e: EventOf<'pre-tool'>, o?: EvaluateOptions) => evaluate(p, e, o);
export const postTool = (p: CompiledPolicy, e: EventOf<'post-tool'>, o?: EvaluateOptions) => evaluate(p, e, o);
export const stop = (p: CompiledPolicy, e: EventOf<'stop'>, o?: EvaluateOptions) => evaluate(p, e, o);

function uniq(xs: string[]): string[] {
  return [...new Set(xs)];
}

/**
 * Merges two decisions of one seam by the seam's law: the more restrictive word wins and keeps its
 * reasons; equal words pool theirs. Context pools, except that a blocked prompt carries none.
 */
export function mergeDecisions<S extends Seam>(a: Decision<S>, b: Decision<S>): Decision<S> {
  if (a.seam !== b.seam) throw new Error(`cannot merge decisions of seams ${a.seam} and ${b.seam}`);
  const rank = DECISION_RANK[a.seam];
  const ra = rank.indexOf(a.decision);
  const rb = rank.indexOf(b.decision);
  const winners = ra === rb ? [a, b] : ra > rb ? [a] : [b];
  const top = winners[0]!;
  const reasons = uniq(winners.flatMap((d) => d.reasons));
  const out: Decision<S> = {
    seam: a.seam,
    decision: top.decision,
    reasons,
    context: a.seam === 'prompt' && top.decision === 'block' ? [] : uniq([...a.context, ...b.context]),
    rules: uniq(winners.flatMap((d) => d.rules)),
    trace: [...a.trace, ...b.trace],
    diagnostics: [...a.diagnostics, ...b.diagnostics],
  };
  if (reasons.length > 0) out.reason = reasons.join('\n\n');
  const rewrite = winners.find((d) => d.updatedInput)?.updatedInput;
  if (rewrite && (out.decision === 'allow' || out.decision === 'none')) out.updatedInput = rewrite;
  return out;
}

export type Listener = <E extends PolicyEvent>(event: E, next?: () => Promise<Decision<E['seam']>>) => Promise<Decision<E['seam']>>;

/**
 * The policy as a waterfall listener: it evaluates the event, asks the rest of the chain, and
 * merges both by the seam's law, so where it sits in the chain never changes the outcome.
 */
export function listener(policy: CompiledPolicy, opts: EvaluateOptions = {}): Listener {
  return async (event, next) => {
    const own = await evaluate(policy, event, opts);
    if (!next) return own;
    return mergeDecisions(own, await next());
  };
}

/** Asks a person (or any approver) about an `ask`: true approves the call once. */
export type Approver = (decision: Decision<'pre-tool'>) => Promise<boolean>;

/**
 * Settles an `ask`: with an approver that approves, `allow`; otherwise `deny` (no approver, a
 * rejection or a failing approver all deny). Other decisions pass through unchanged.
 */
export async function settleAsk(decision: Decision<'pre-tool'>, approver?: Approver): Promise<Decision<'pre-tool'>> {
  if (decision.decision !== 'ask') return decision;
  let approved = false;
  let why = 'no approver is available to answer the question';
  if (approver) {
    try {
      approved = await approver(decision);
      why = 'the approver declined';
    } catch (err) {
      why = `the approver failed: ${String(err)}`;
    }
  }
  if (approved) return { ...decision, decision: 'allow' };
  const reasons = [...decision.reasons, why];
  return { ...decision, decision: 'deny', reasons, reason: reasons.join('\n\n') };
}
