/**
 * Composing a host's listeners at one seam, by the seam's law: the most restrictive kind wins and
 * keeps its reasons and rules; context, diagnostics and rewrites pool from every answer. The result
 * is a function of the set of answers: they are put in one canonical order before they are folded,
 * so the order in which a host registered its listeners never shows, not even in the order of texts.
 *
 * `waterfall` makes one `(event, next)` listener of several. The seam's least restrictive kind
 * (`none` on pre-tool, `allow` on prompt, `accept` on post-tool, `stop`, and `context` on
 * session-start) delegates: only then is `next` (the host's next listener, or its default) asked,
 * and its answer pools with the rest. A listener that throws, or answers something that is not a
 * decision of the seam, fails closed on the gates (`deny`, `block`); elsewhere it adds a diagnostic.
 * Two listeners that rewrite a tool's input, or replace its content, differently cannot both win:
 * the call is denied (the result blocked) rather than one of them picked.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { EventOf } from '../events.js';
import type { Seam } from '../ir.js';
import { fallbackReason, SEAM_KINDS, type SeamDecision } from './decisions.js';

/** A host's listener at seam `S`: it answers with the seam's typed decision, at once or later. */
export type SeamListener<S extends Seam> = (event: EventOf<S>) => SeamDecision<S> | Promise<SeamDecision<S>>;

/** Listeners composed into one: an `(event, next)` listener of the seam, `next` asked only on delegation. */
export type Waterfall<S extends Seam> = (event: EventOf<S>, next?: () => SeamDecision<S> | Promise<SeamDecision<S>>) => Promise<SeamDecision<S>>;

/** Every field any seam's decision has, for folding answers without a switch per seam. */
interface Loose {
  kind: string;
  context?: string[];
  reason?: string;
  reasons?: string[];
  feedback?: string;
  rules?: string[];
  diagnostics?: Diagnostic[];
  updatedInput?: Record<string, unknown>;
  content?: unknown;
  limited?: true;
}

/** A key of a value that does not depend on the order of its objects' keys. */
function canonical(value: unknown): string {
  try {
    const text = JSON.stringify(value, (_key, v: unknown) =>
      v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
    );
    return text ?? String(value);
  } catch {
    return String(value);
  }
}

function uniq(xs: readonly string[]): string[] {
  return [...new Set(xs)];
}

function uniqBy<T>(xs: readonly T[], key: (x: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const x of xs) if (!seen.has(key(x))) seen.set(key(x), x);
  return [...seen.values()];
}

function reasonsOf(d: Loose): string[] {
  if (d.reasons !== undefined && d.reasons.length > 0) return d.reasons;
  const text = d.reason ?? d.feedback;
  return text !== undefined && text !== '' ? [text] : [];
}

/** The strictest word of a seam that gates something, or its neutral word, for an answer that failed. */
function failedDecision(seam: Seam, why: string): Loose {
  const diagnostics = [
    diagnostic('seam/listener-failed', 'error', `a listener of \`${seam}\` failed: \`${why}\``, {
      help: `a listener answers with a decision of the seam (${SEAM_KINDS[seam].map((k) => `\`${k}\``).join(', ')}); on the gates a failing one refuses`,
    }),
  ];
  const reason = `a listener of \`${seam}\` failed, so the event is refused`;
  if (seam === 'pre-tool') return { kind: 'deny', context: [], reason, reasons: [reason], diagnostics };
  if (seam === 'prompt') return { kind: 'block', reason, reasons: [reason], diagnostics };
  if (seam === 'post-tool') return { kind: 'block', feedback: reason, reasons: [reason], context: [], diagnostics };
  return { kind: SEAM_KINDS[seam][0]!, context: [], diagnostics };
}

function isDecisionOf(seam: Seam, v: unknown): v is Loose {
  return v !== null && typeof v === 'object' && (SEAM_KINDS[seam] as readonly unknown[]).includes((v as { kind?: unknown }).kind);
}

/**
 * The decision several answers at one seam stand for (see the opening comment); with none, the
 * seam's neutral decision. An answer of a kind the seam does not have counts as a failed listener.
 */
export function combineDecisions<S extends Seam>(seam: S, decisions: readonly SeamDecision<S>[]): SeamDecision<S>;
export function combineDecisions(seam: Seam, decisions: readonly unknown[]): SeamDecision {
  const kinds = SEAM_KINDS[seam] as readonly string[];
  const answers = decisions
    .map((d) => (isDecisionOf(seam, d) ? d : failedDecision(seam, `answered ${canonical(d)}`)))
    .map((d) => [canonical(d), d] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, d]) => d);
  const rank = (d: Loose) => kinds.indexOf(d.kind);
  const top = answers.reduce((level, d) => Math.max(level, rank(d)), 0);
  const winners = answers.filter((d) => rank(d) === top);
  let kind = kinds[top]!;
  let reasons = uniq(winners.flatMap(reasonsOf));
  let rules = uniq(winners.flatMap((d) => d.rules ?? []));
  const diagnostics = uniqBy(answers.flatMap((d) => d.diagnostics ?? []), canonical);
  const context = uniq(answers.flatMap((d) => d.context ?? []));

  // A rewrite of the input (pre-tool) or of the content (post-tool) stands when the event goes ahead.
  const field = seam === 'pre-tool' ? 'updatedInput' : seam === 'post-tool' ? 'content' : undefined;
  let rewrite: unknown;
  if (field !== undefined && top <= (seam === 'pre-tool' ? 1 : 0)) {
    const rewriters = answers.filter((d) => d[field] !== undefined);
    const distinct = uniqBy(rewriters, (d) => canonical(d[field]));
    if (distinct.length === 1) rewrite = distinct[0]![field];
    if (distinct.length > 1) {
      const what = field === 'updatedInput' ? "rewrote the tool's input" : "replaced the tool's content";
      kind = seam === 'pre-tool' ? 'deny' : 'block';
      reasons = [`listeners ${what} in different ways, so the ${seam === 'pre-tool' ? 'call is refused' : 'result is blocked'}`];
      rules = uniq(rewriters.flatMap((d) => d.rules ?? []));
      diagnostics.push(diagnostic('seam/conflicting-rewrites', 'error', `${distinct.length} listeners of \`${seam}\` ${what} in different ways`, { help: 'at most one listener may rewrite an event, or all of them the same way' }));
    }
  }

  const reason = reasons.length > 0 ? reasons.join('\n\n') : fallbackReason(kind, rules);
  const out: Loose = { kind };
  if (!(seam === 'prompt' && kind === 'block')) out.context = context;
  const neutral = kind === kinds[0] || (seam === 'pre-tool' && kind === 'allow');
  if (seam === 'post-tool' && kind === 'block') {
    out.feedback = reason;
    out.reasons = reasons;
  } else if (!neutral) {
    out.reason = reason;
    out.reasons = reasons;
  }
  if (rewrite !== undefined && field !== undefined) out[field] = rewrite as Record<string, unknown>;
  if (seam === 'stop' && kind === 'stop' && winners.some((d) => d.limited)) out.limited = true;
  out.rules = rules;
  out.diagnostics = diagnostics;
  return out as SeamDecision;
}

async function answerOf<S extends Seam>(seam: S, ask: () => SeamDecision<S> | Promise<SeamDecision<S>>): Promise<SeamDecision<S>> {
  try {
    const d: unknown = await ask();
    return (isDecisionOf(seam, d) ? d : failedDecision(seam, `answered ${canonical(d)}`)) as SeamDecision<S>;
  } catch (err) {
    return failedDecision(seam, String(err)) as SeamDecision<S>;
  }
}

/**
 * Several listeners of one seam as one `(event, next)` listener: every listener answers (together,
 * since order does not matter), the answers combine, and when the result delegates, `next` answers
 * too and pools with them.
 */
export function waterfall<S extends Seam>(seam: S, listeners: readonly SeamListener<S>[]): Waterfall<S> {
  return async (event, next) => {
    const answers = await Promise.all(listeners.map((l) => answerOf(seam, () => l(event))));
    const own = combineDecisions(seam, answers);
    if (next === undefined || own.kind !== SEAM_KINDS[seam][0]) return own;
    return combineDecisions(seam, [own, await answerOf(seam, next)]);
  };
}
