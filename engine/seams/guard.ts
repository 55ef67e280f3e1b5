/**
 * The deny-only guard: a policy as a final, synchronous invariant on tool calls, applied after the
 * whole pre-execute waterfall (and after an `ask` is settled), just before the call would run. A
 * guard denies or abstains and has no way to allow, so no listener, in any order, can bring back a
 * call it forbids.
 *
 * It evaluates without running hooks: a policy's `deny` denies, `ask` and `allow` abstain (a guard
 * cannot ask a person, and never allows), and a `run` rule that matches the call denies, since the
 * guard cannot know what its hook would have said. Evaluation that fails denies too.
 */
import type { CompiledPolicy } from '../compile.js';
import { diagnostic } from '../diagnostics.js';
import { evaluateSync } from '../evaluate.js';
import type { EventOf } from '../events.js';
import { combineDecisions } from './compose.js';
import { fallbackReason, type GuardDecision, type PreToolDecision } from './decisions.js';

/** A guard: a synchronous, deny-only check of a tool call about to run. */
export type Guard = (event: EventOf<'pre-tool'>) => GuardDecision;

/** The policy as a guard (see the opening comment); never throws. */
export function policyGuard(policy: CompiledPolicy): Guard {
  return (event) => {
    try {
      const d = evaluateSync(policy, event);
      if (d.decision === 'deny') {
        const reason = d.reason ?? fallbackReason('deny', d.rules);
        return { kind: 'deny', reason, reasons: [...d.reasons], rules: [...d.rules], diagnostics: [...d.diagnostics] };
      }
      if (d.pendingHooks.length > 0) {
        const ids = d.pendingHooks.map((id) => `\`${id}\``).join(', ');
        const reason = `the guard cannot run the command hook of ${d.pendingHooks.length === 1 ? 'rule' : 'rules'} ${ids}, so the call is denied`;
        return {
          kind: 'deny',
          reason,
          reasons: [reason],
          rules: [...d.pendingHooks],
          diagnostics: [
            ...d.diagnostics,
            diagnostic('seam/guard-hook-not-run', 'warning', `a guard does not run hooks, and ${ids} matched the call`, {
              help: 'give the guard a policy without `run` rules on the calls it checks, and run hooks in the pre-execute waterfall',
            }),
          ],
        };
      }
      return { kind: 'abstain', rules: [], diagnostics: [...d.diagnostics] };
    } catch (err) {
      return guardFailed(String(err));
    }
  };
}

function guardFailed(why: string): GuardDecision {
  const reason = 'a guard failed, so the call is denied';
  return { kind: 'deny', reason, reasons: [reason], rules: [], diagnostics: [diagnostic('seam/guard-failed', 'error', `a guard failed: \`${why}\``)] };
}

/** What a guard says about a call: its own answer, or a denial when it throws or answers neither `deny` nor `abstain`. */
function verdictOf(guard: Guard, event: EventOf<'pre-tool'>): GuardDecision {
  try {
    const v: unknown = guard(event);
    const kind = v !== null && typeof v === 'object' ? (v as { kind?: unknown }).kind : undefined;
    if (kind === 'deny' || kind === 'abstain') return v as GuardDecision;
    return guardFailed(`answered ${kind === undefined ? String(v) : `kind ${String(kind)}`}, which is neither deny nor abstain`);
  } catch (err) {
    return guardFailed(String(err));
  }
}

/**
 * A pre-execute outcome after the guards, which run in turn on the call: `deny` when some guard
 * denies (its reasons, pooled with a denied outcome's), throws, or answers anything but `deny` or
 * `abstain`; otherwise the outcome itself, with the guards' diagnostics added. So the result is
 * `allow` only when the outcome was.
 */
export function applyGuards<D extends PreToolDecision>(event: EventOf<'pre-tool'>, outcome: D, guards: readonly Guard[]): D | Extract<PreToolDecision, { kind: 'deny' }> {
  const verdicts = guards.map((g) => verdictOf(g, event));
  const denials = verdicts.filter((v) => v.kind === 'deny');
  if (denials.length === 0) {
    const extra = verdicts.flatMap((v) => v.diagnostics ?? []);
    return extra.length === 0 ? outcome : { ...outcome, diagnostics: [...(outcome.diagnostics ?? []), ...extra] };
  }
  // A denial is the strictest kind, so the combination is a deny: the outcome adds its context (and
  // its reasons, when it was a deny already).
  const asDenials = denials.map((v): PreToolDecision => ({ ...v, kind: 'deny', context: [] }));
  const merged = combineDecisions('pre-tool', [outcome, ...asDenials]) as Extract<PreToolDecision, { kind: 'deny' }>;
  if (outcome.kind === 'deny' && outcome.approval !== undefined) merged.approval = outcome.approval;
  const abstained = verdicts.flatMap((v) => (v.kind === 'abstain' ? (v.diagnostics ?? []) : []));
  if (abstained.length > 0) merged.diagnostics = [...(merged.diagnostics ?? []), ...abstained];
  return merged;
}
