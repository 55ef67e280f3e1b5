/**
 * The decision algebra. An evaluation produces a set of hits (one per rule or hook outcome that
 * fired); a seam's decision is a function of that set alone. Joining two verdicts is set union,
 * so it is commutative, associative and idempotent by construction, and the decision functions
 * below are monotone: adding a hit never moves a decision down its seam's order.
 *
 * The one deliberate exception is the stop seam's `limit` guard, which exists to turn a forced
 * continuation back into a stop once the loop has gone on long enough. Among `limit` hits the
 * smallest governs (adding one never allows more continuations than the others do); with none,
 * DEFAULT_STOP_LIMIT applies.
 */
import type { Seam } from './ir.js';

export type HitEffect = 'deny' | 'ask' | 'allow' | 'block' | 'context' | 'continue' | 'halt' | 'limit';

export interface Hit {
  /** The rule id (or `ruleId#hook` for a hook's outcome). */
  rule: string;
  effect: HitEffect;
  reason?: string;
  /** The text a context hit contributes. */
  text?: string;
  /** The count of a `limit` hit. */
  limit?: number;
  /**
   * Sort key that puts reasons in source order whatever order rules were evaluated or files given:
   * file name, then offset. Ties break on rule id, effect and text, so the order is total.
   */
  order: string;
}

export interface Verdict {
  seam: Seam;
  /** Sorted by `hitKey`, no duplicates. */
  hits: Hit[];
}

export interface Decided {
  decision: string;
  reasons: string[];
  context: string[];
  /** Ids of the rules that decided (the winning level's rules). */
  rules: string[];
  /** Set when the stop seam's loop guard turned a continuation into a stop. */
  limited?: { limit: number; continuations: number };
}

/** Continuations in a row allowed when a policy sets no `limit` (Claude Code's own cap is 8). */
export const DEFAULT_STOP_LIMIT = 8;

const PRE_TOOL_LEVEL: Record<string, number> = { allow: 1, ask: 2, deny: 3 };

function hitKey(h: Hit): string {
  return [h.order, h.rule, h.effect, h.reason ?? '', h.text ?? '', h.limit ?? ''].join('\u0000');
}

function compareHits(a: Hit, b: Hit): number {
  const ka = hitKey(a);
  const kb = hitKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Makes a verdict from hits in any order, with duplicates. */
export function verdict(seam: Seam, hits: Iterable<Hit>): Verdict {
  // Most events have no hit or one: nothing to deduplicate or sort.
  if (Array.isArray(hits) && hits.length <= 1) return { seam, hits: hits.slice() as Hit[] };
  const byKey = new Map<string, Hit>();
  for (const h of hits) byKey.set(hitKey(h), h);
  return { seam, hits: [...byKey.values()].sort(compareHits) };
}

export function join(a: Verdict, b: Verdict): Verdict {
  if (a.seam !== b.seam) throw new Error(`cannot join verdicts of seams ${a.seam} and ${b.seam}`);
  return verdict(a.seam, [...a.hits, ...b.hits]);
}

/** The distinct values in first-seen order (lists here are short: a linear check beats a Set). */
function pushUnique(out: string[], value: string): void {
  for (let i = 0; i < out.length; i++) if (out[i] === value) return;
  out.push(value);
}

function reasonsOf(hits: Hit[]): string[] {
  const out: string[] = [];
  for (const h of hits) if (h.reason) pushUnique(out, h.reason);
  return out;
}

function textsOf(hits: Hit[]): string[] {
  const out: string[] = [];
  for (const h of hits) if (h.text !== undefined) pushUnique(out, h.text);
  return out;
}

function rulesOf(hits: Hit[]): string[] {
  const out: string[] = [];
  for (const h of hits) pushUnique(out, h.rule);
  return out;
}

export interface DecideOptions {
  /** Stop seam: forced continuations in a row so far. */
  continuations?: number;
}

/** The decision a verdict stands for, per the seam table in the language reference. */
export function decide(v: Verdict, opts: DecideOptions = {}): Decided {
  const hits = v.hits;
  if (hits.length === 0) return emptyDecision(v.seam);
  const of = (effect: HitEffect) => hits.filter((h) => h.effect === effect);
  const context = textsOf(of('context'));
  switch (v.seam) {
    case 'pre-tool': {
      let level = 0;
      for (const h of hits) level = Math.max(level, PRE_TOOL_LEVEL[h.effect] ?? 0);
      const word = (['none', 'allow', 'ask', 'deny'] as const)[level]!;
      const winners = level === 0 ? [] : hits.filter((h) => PRE_TOOL_LEVEL[h.effect] === level);
      return { decision: word, reasons: reasonsOf(winners), context, rules: rulesOf(winners) };
    }
    case 'prompt': {
      const blocks = of('block');
      if (blocks.length > 0) return { decision: 'block', reasons: reasonsOf(blocks), context: [], rules: rulesOf(blocks) };
      const ctx = of('context');
      return { decision: 'allow', reasons: [], context, rules: rulesOf(ctx) };
    }
    case 'post-tool': {
      const blocks = of('block');
      if (blocks.length > 0) return { decision: 'block', reasons: reasonsOf(blocks), context, rules: rulesOf(blocks) };
      return { decision: 'accept', reasons: [], context, rules: rulesOf(of('context')) };
    }
    case 'stop': {
      const halts = of('halt');
      if (halts.length > 0) return { decision: 'halt', reasons: reasonsOf(halts), context, rules: rulesOf(halts) };
      const conts = of('continue');
      if (conts.length === 0) return { decision: 'stop', reasons: [], context, rules: [] };
      const limits = of('limit');
      // The smallest stated limit governs; the default applies only when the policy states none.
      const limit = limits.length > 0 ? Math.min(...limits.map((h) => h.limit ?? DEFAULT_STOP_LIMIT)) : DEFAULT_STOP_LIMIT;
      const continuations = opts.continuations ?? 0;
      if (continuations >= limit) {
        const limitRules = limits.filter((h) => h.limit === limit);
        return {
          decision: 'stop',
          reasons: [],
          context,
          rules: rulesOf(limitRules),
          limited: { limit, continuations },
        };
      }
      return { decision: 'continue', reasons: reasonsOf(conts), context, rules: rulesOf(conts) };
    }
    case 'session-start': {
      // Only a hook can halt here (`continue: false`): the session ends before its first request.
      const halts = of('halt');
      if (halts.length > 0) return { decision: 'halt', reasons: reasonsOf(halts), context, rules: rulesOf(halts) };
      return { decision: 'none', reasons: [], context, rules: rulesOf(of('context')) };
    }
  }
}

/** The decision of a verdict without hits. */
function emptyDecision(seam: Seam): Decided {
  const decision = seam === 'pre-tool' || seam === 'session-start' ? 'none' : seam === 'prompt' ? 'allow' : seam === 'post-tool' ? 'accept' : 'stop';
  return { decision, reasons: [], context: [], rules: [] };
}

/** Order of a seam's decision words, least restrictive first, for monotonicity checks. */
export const DECISION_RANK: Record<Seam, readonly string[]> = {
  'pre-tool': ['none', 'allow', 'ask', 'deny'],
  prompt: ['allow', 'block'],
  'post-tool': ['accept', 'block'],
  stop: ['stop', 'continue', 'halt'],
  'session-start': ['none', 'halt'],
};
