import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Decision } from '../evaluate.js';
import type { EventOf } from '../events.js';
import { SEAM_DECISIONS, SEAMS, type Seam } from '../ir.js';
import { combineDecisions, waterfall } from './compose.js';
import { SEAM_KINDS, seamDecision, type PostToolDecision, type PreToolDecision, type SeamDecision } from './decisions.js';

const EVENTS: { [S in Seam]: EventOf<S> } = {
  'pre-tool': { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' } },
  prompt: { seam: 'prompt', prompt: 'hi' },
  'post-tool': { seam: 'post-tool', tool: 'Bash', input: { command: 'ls' }, output: 'a' },
  stop: { seam: 'stop', turn: [], stop_hook_active: false },
  'session-start': { seam: 'session-start', source: 'startup' },
};

/** Typed decisions of one seam: what the engine maps, plus a host's content replacements. */
function typedOf(seam: Seam): fc.Arbitrary<SeamDecision> {
  return fc
    .record({
      decision: fc.constantFrom(...(SEAM_DECISIONS[seam] as readonly string[])),
      reasons: fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { maxLength: 2 }),
      context: fc.uniqueArray(fc.constantFrom('x', 'y', 'z'), { maxLength: 2 }),
      rules: fc.uniqueArray(fc.constantFrom('f:1:1', 'f:2:1', 'g:1:1'), { maxLength: 2 }),
      limited: fc.boolean(),
      rewrite: fc.option(fc.constantFrom({ command: 'ls -a' }, { command: 'ls -l' }), { nil: undefined }),
      content: fc.option(fc.constantFrom('one', 'two'), { nil: undefined }),
    })
    .map(({ decision, reasons, context, rules, limited, rewrite, content }) => {
      const d: Decision = { seam, decision: decision as Decision['decision'], reasons, context, rules, trace: limited ? [{ rule: 'l', effect: 'limit', outcome: 'limited' }] : [], diagnostics: [] };
      if (reasons.length > 0) d.reason = reasons.join('\n\n');
      if (rewrite && (decision === 'allow' || decision === 'none')) d.updatedInput = rewrite;
      const t = seamDecision(d);
      if (t.kind === 'accept' && content !== undefined) (t as PostToolDecision & { kind: 'accept' }).content = content;
      return t;
    });
}

const answersArb = fc.constantFrom(...SEAMS).chain((seam) =>
  fc
    .array(typedOf(seam), { maxLength: 5 })
    .chain((ds) => fc.tuple(fc.constant(seam), fc.constant(ds), fc.shuffledSubarray(ds, { minLength: ds.length, maxLength: ds.length }))),
);

const rank = (seam: Seam, kind: string) => (SEAM_KINDS[seam] as readonly string[]).indexOf(kind);

describe('combineDecisions', () => {
  it('does not depend on the order of the answers, in any field', () => {
    fc.assert(
      fc.property(answersArb, ([seam, ds, shuffled]) => {
        expect(combineDecisions(seam, shuffled)).toEqual(combineDecisions(seam, ds));
      }),
    );
  });

  it('gives the most restrictive kind (stricter only when rewrites conflict)', () => {
    fc.assert(
      fc.property(answersArb, ([seam, ds]) => {
        const out = combineDecisions(seam, ds);
        const top = ds.reduce((r, d) => Math.max(r, rank(seam, d.kind)), 0);
        if ((out.diagnostics ?? []).some((x) => x.code === 'seam/conflicting-rewrites')) expect(out.kind).toBe(seam === 'pre-tool' ? 'deny' : 'block');
        else expect(rank(seam, out.kind)).toBe(top);
      }),
    );
  });

  it('pools context, drops it from a blocked prompt, and joins the winners\' reasons', () => {
    const out = combineDecisions('pre-tool', [
      { kind: 'deny', reason: 'one', context: ['c1'], rules: ['r1'] },
      { kind: 'allow', context: ['c2'], rules: ['r2'] },
      { kind: 'deny', reason: 'two', context: [], rules: ['r3'] },
    ]);
    expect(out).toEqual({ kind: 'deny', reason: 'one\n\ntwo', reasons: ['one', 'two'], context: ['c1', 'c2'], rules: ['r1', 'r3'], diagnostics: [] });
    expect(combineDecisions('prompt', [{ kind: 'allow', context: ['c'] }, { kind: 'block', reason: 'no' }])).toEqual({ kind: 'block', reason: 'no', reasons: ['no'], rules: [], diagnostics: [] });
    expect(combineDecisions('stop', [])).toEqual({ kind: 'stop', context: [], rules: [], diagnostics: [] });
  });

  it('keeps one rewrite, and refuses rewrites that disagree', () => {
    const a: PreToolDecision = { kind: 'none', context: [], updatedInput: { command: 'ls -a' } };
    const b: PreToolDecision = { kind: 'allow', context: [], updatedInput: { command: 'ls -l' } };
    expect(combineDecisions('pre-tool', [a, { kind: 'allow', context: [] }])).toMatchObject({ kind: 'allow', updatedInput: { command: 'ls -a' } });
    expect(combineDecisions('pre-tool', [a, { ...a }])).toMatchObject({ kind: 'none', updatedInput: { command: 'ls -a' } });
    expect(combineDecisions('pre-tool', [a, { kind: 'ask', reason: 'why', context: [] }])).not.toHaveProperty('updatedInput');
    const conflict = combineDecisions('pre-tool', [a, b]);
    expect(conflict).toMatchObject({ kind: 'deny', reason: "listeners rewrote the tool's input in different ways, so the call is refused" });
    expect(conflict.diagnostics?.map((d) => d.code)).toEqual(['seam/conflicting-rewrites']);
    const replaced = combineDecisions('post-tool', [
      { kind: 'accept', context: [], content: 'one' },
      { kind: 'accept', context: [], content: 'two' },
    ]);
    expect(replaced).toMatchObject({ kind: 'block', feedback: "listeners replaced the tool's content in different ways, so the result is blocked" });
    expect(combineDecisions('post-tool', [{ kind: 'accept', context: ['c'], content: 'one' }])).toEqual({ kind: 'accept', context: ['c'], content: 'one', rules: [], diagnostics: [] });
  });

  it('counts an answer that is not a decision of the seam as a failed listener', () => {
    const odd = [{ kind: 'allow', context: [] }] as unknown as SeamDecision<'post-tool'>[];
    expect(combineDecisions('post-tool', odd)).toMatchObject({ kind: 'block', diagnostics: [{ code: 'seam/listener-failed' }] });
  });
});

describe('waterfall', () => {
  it('does not depend on the order of its listeners, and asks `next` exactly when the result delegates', async () => {
    await fc.assert(
      fc.asyncProperty(answersArb, typedOfAnySeam(), async ([seam, ds, shuffled], nextAnswers) => {
        const fallback = nextAnswers[seam];
        let asked = 0;
        const next = () => {
          asked++;
          return fallback;
        };
        const one = await waterfall(seam, ds.map((d) => () => d))(EVENTS[seam], next);
        const other = await waterfall(seam, shuffled.map((d) => async () => d))(EVENTS[seam], next);
        expect(other).toEqual(one);
        const delegates = combineDecisions(seam, ds).kind === SEAM_KINDS[seam][0];
        expect(asked).toBe(delegates ? 2 : 0);
        expect(one).toEqual(delegates ? combineDecisions(seam, [combineDecisions(seam, ds), fallback]) : combineDecisions(seam, ds));
      }),
    );
  });

  it('fails closed on the gates when a listener throws, and adds nothing elsewhere', async () => {
    const boom = () => {
      throw new Error('boom');
    };
    const pre = await waterfall('pre-tool', [boom, () => ({ kind: 'allow', context: [] })])(EVENTS['pre-tool']);
    expect(pre).toMatchObject({ kind: 'deny', reason: 'a listener of `pre-tool` failed, so the event is refused', diagnostics: [{ code: 'seam/listener-failed', message: 'a listener of `pre-tool` failed: `Error: boom`' }] });
    expect((await waterfall('prompt', [boom])(EVENTS.prompt)).kind).toBe('block');
    expect((await waterfall('post-tool', [async () => Promise.reject(new Error('x'))])(EVENTS['post-tool'])).kind).toBe('block');
    const stop = await waterfall('stop', [boom, () => ({ kind: 'stop', context: ['c'] })])(EVENTS.stop);
    expect(stop).toMatchObject({ kind: 'stop', context: ['c'], diagnostics: [{ code: 'seam/listener-failed' }] });
    const none = await waterfall('pre-tool', [() => ({ kind: 'none', context: [] })])(EVENTS['pre-tool'], boom);
    expect(none.kind).toBe('deny');
  });
});

/** One typed decision per seam, for a host's `next`. */
function typedOfAnySeam(): fc.Arbitrary<{ [S in Seam]: SeamDecision<S> }> {
  return fc.record({
    'pre-tool': typedOf('pre-tool'),
    prompt: typedOf('prompt'),
    'post-tool': typedOf('post-tool'),
    stop: typedOf('stop'),
    'session-start': typedOf('session-start'),
  }) as fc.Arbitrary<{ [S in Seam]: SeamDecision<S> }>;
}
