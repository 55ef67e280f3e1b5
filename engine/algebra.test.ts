import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DECISION_RANK, decide, join, verdict, type Hit, type HitEffect, type Verdict } from './algebra.js';
import { SEAM_EFFECTS, SEAMS, type Seam } from './ir.js';

const HIT_EFFECTS: Record<Seam, HitEffect[]> = {
  'pre-tool': ['deny', 'ask', 'allow'],
  prompt: ['block', 'context'],
  'post-tool': ['block', 'context'],
  stop: ['continue', 'halt', 'limit'],
  'session-start': ['context'],
};

function hitArb(seam: Seam): fc.Arbitrary<Hit> {
  return fc
    .record({
      file: fc.constantFrom('a.dshpolicy', 'b.dshpolicy'),
      offset: fc.nat({ max: 50 }),
      effect: fc.constantFrom(...HIT_EFFECTS[seam]),
      reason: fc.option(fc.constantFrom('r1', 'r2', 'r3'), { nil: undefined }),
      text: fc.constantFrom('c1', 'c2'),
      limit: fc.integer({ min: 1, max: 4 }),
    })
    .map(({ file, offset, effect, reason, text, limit }) => {
      const h: Hit = { rule: `${file}:${offset}`, effect, order: `${file}\u0000${String(offset).padStart(12, '0')}` };
      if (effect === 'context') h.text = text;
      else if (effect === 'limit') h.limit = limit;
      else if (reason !== undefined) h.reason = reason;
      return h;
    });
}

const seamArb = fc.constantFrom(...SEAMS);
const verdictArb = (seam: Seam) => fc.array(hitArb(seam), { maxLength: 8 }).map((hs) => verdict(seam, hs));
const continuationsArb = fc.nat({ max: 10 });

function rank(seam: Seam, word: string): number {
  return DECISION_RANK[seam].indexOf(word);
}

const same = (a: Verdict, b: Verdict, c: number) => expect(decide(a, { continuations: c })).toEqual(decide(b, { continuations: c }));

describe('decision algebra laws', () => {
  it('join is commutative', () => {
    fc.assert(
      fc.property(seamArb.chain((s) => fc.tuple(verdictArb(s), verdictArb(s), continuationsArb)), ([a, b, c]) => {
        expect(join(a, b)).toEqual(join(b, a));
        same(join(a, b), join(b, a), c);
      }),
    );
  });

  it('join is associative', () => {
    fc.assert(
      fc.property(seamArb.chain((s) => fc.tuple(verdictArb(s), verdictArb(s), verdictArb(s))), ([a, b, c]) => {
        expect(join(join(a, b), c)).toEqual(join(a, join(b, c)));
      }),
    );
  });

  it('join is idempotent', () => {
    fc.assert(
      fc.property(seamArb.chain((s) => fc.tuple(verdictArb(s), continuationsArb)), ([a, c]) => {
        expect(join(a, a)).toEqual(a);
        same(join(a, a), a, c);
      }),
    );
  });

  it('decisions do not depend on the order hits arrive in', () => {
    fc.assert(
      fc.property(
        seamArb.chain((s) => fc.tuple(fc.constant(s), fc.array(hitArb(s), { maxLength: 10 }))).chain(([s, hs]) =>
          fc.tuple(fc.constant(s), fc.constant(hs), fc.shuffledSubarray(hs, { minLength: hs.length, maxLength: hs.length })),
        ),
        ([s, hs, shuffled]) => {
          expect(decide(verdict(s, hs))).toEqual(decide(verdict(s, shuffled)));
        },
      ),
    );
  });

  it('adding a decision hit never loosens the decision (monotonic)', () => {
    fc.assert(
      fc.property(
        seamArb.chain((s) => fc.tuple(fc.constant(s), verdictArb(s), hitArb(s).filter((h) => h.effect !== 'limit'), continuationsArb)),
        ([s, v, h, c]) => {
          const before = decide(v, { continuations: 0 });
          const after = decide(join(v, verdict(s, [h])), { continuations: 0 });
          expect(rank(s, after.decision)).toBeGreaterThanOrEqual(rank(s, before.decision));
          // With the loop guard engaged, adding a halt still never loosens.
          if (h.effect === 'halt') expect(decide(join(v, verdict(s, [h])), { continuations: c }).decision).toBe('halt');
        },
      ),
    );
  });

  it('a limit can only turn a continuation into a stop, once the smallest stated limit is reached', () => {
    fc.assert(
      fc.property(verdictArb('stop'), fc.integer({ min: 1, max: 12 }), fc.nat({ max: 14 }), (v, n, c) => {
        const limited = join(v, verdict('stop', [{ rule: 'l', effect: 'limit', limit: n, order: 'z' }]));
        const unguarded = decide(v, { continuations: 0 }).decision;
        const after = decide(limited, { continuations: c }).decision;
        const stated = [n, ...v.hits.filter((h) => h.effect === 'limit').map((h) => h.limit!)];
        if (unguarded !== 'continue') expect(after).toBe(unguarded);
        else expect(after).toBe(c >= Math.min(...stated) ? 'stop' : 'continue');
        // Adding a limit never allows more than the limits already stated.
        if (v.hits.some((h) => h.effect === 'limit')) {
          const before = decide(v, { continuations: c }).decision;
          if (before === 'stop') expect(after).toBe('stop');
        }
      }),
    );
  });

  it('a stated limit above the default raises the cap', () => {
    const v = verdict('stop', [
      { rule: 'c', effect: 'continue', order: 'a' },
      { rule: 'l', effect: 'limit', limit: 10, order: 'b' },
    ]);
    expect(decide(v, { continuations: 9 }).decision).toBe('continue');
    expect(decide(v, { continuations: 10 }).decision).toBe('stop');
  });

  it('every seam only produces its own decision words', () => {
    fc.assert(
      fc.property(seamArb.chain((s) => fc.tuple(fc.constant(s), verdictArb(s), continuationsArb)), ([s, v, c]) => {
        expect(DECISION_RANK[s]).toContain(decide(v, { continuations: c }).decision);
      }),
    );
  });
});

describe('decide', () => {
  const h = (rule: string, effect: HitEffect, extra: Partial<Hit> = {}): Hit => ({ rule, effect, order: rule, ...extra });

  it('pre-tool: deny beats ask beats allow; reasons come from the winning level only', () => {
    const v = verdict('pre-tool', [h('a', 'allow'), h('b', 'ask', { reason: 'ask why' }), h('c', 'deny', { reason: 'deny why' })]);
    expect(decide(v)).toMatchObject({ decision: 'deny', reasons: ['deny why'], rules: ['c'] });
    expect(decide(verdict('pre-tool', [h('a', 'allow'), h('b', 'ask', { reason: 'x' })]))).toMatchObject({ decision: 'ask', reasons: ['x'] });
    expect(decide(verdict('pre-tool', []))).toMatchObject({ decision: 'none', rules: [] });
  });

  it('reasons keep source order and drop duplicates', () => {
    const v = verdict('pre-tool', [
      h('z', 'deny', { reason: 'second', order: 'f\u0000000000000020' }),
      h('y', 'deny', { reason: 'first', order: 'f\u0000000000000010' }),
      h('x', 'deny', { reason: 'first', order: 'f\u0000000000000030' }),
    ]);
    expect(decide(v).reasons).toEqual(['first', 'second']);
  });

  it('prompt: a block drops context; an allowed prompt carries it', () => {
    expect(decide(verdict('prompt', [h('a', 'context', { text: 't' }), h('b', 'block', { reason: 'no' })]))).toMatchObject({
      decision: 'block',
      context: [],
      reasons: ['no'],
    });
    expect(decide(verdict('prompt', [h('a', 'context', { text: 't' })]))).toMatchObject({ decision: 'allow', context: ['t'] });
  });

  it('stop: halt beats continue; continue stops at the default limit without a limit rule', () => {
    expect(decide(verdict('stop', [h('a', 'continue'), h('b', 'halt', { reason: 'h' })])).decision).toBe('halt');
    expect(decide(verdict('stop', [h('a', 'continue', { reason: 'tests' })]), { continuations: 7 })).toMatchObject({
      decision: 'continue',
      reasons: ['tests'],
    });
    expect(decide(verdict('stop', [h('a', 'continue')]), { continuations: 8 })).toMatchObject({ decision: 'stop', limited: { limit: 8 } });
  });

  it('the effects table and the hit effects agree', () => {
    for (const s of SEAMS) for (const e of HIT_EFFECTS[s]) expect(SEAM_EFFECTS[s]).toContain(e);
  });
});
