import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DECISION_RANK } from './algebra.js';
import { compilePolicy } from './compile.js';
import type { Decision } from './evaluate.js';
import { IR_VERSION, SEAMS, type Rule, type Seam } from './ir.js';
import { listener, mergeDecisions, preTool, prompt, settleAsk, stop } from './seams.js';

function policy(rules: Omit<Rule, 'id'>[]) {
  return compilePolicy({ version: IR_VERSION, sources: [], rules: rules.map((r, i) => ({ ...r, id: `r${i}` })), tests: [] });
}

const decisionArb = fc.constantFrom(...SEAMS).chain((seam: Seam) =>
  fc.record({
    seam: fc.constant(seam),
    decision: fc.constantFrom(...(DECISION_RANK[seam] as string[])),
    reasons: fc.uniqueArray(fc.constantFrom('a', 'b', 'c')),
    context: fc.uniqueArray(fc.constantFrom('x', 'y')),
    rules: fc.uniqueArray(fc.constantFrom('r1', 'r2')),
    trace: fc.constant([]),
    diagnostics: fc.constant([]),
  }) as fc.Arbitrary<Decision>,
);
const pairOfOneSeam = decisionArb.chain((a) => decisionArb.filter((b) => b.seam === a.seam).map((b) => [a, b] as const));
const view = (d: Decision) => ({ decision: d.decision, reasons: [...d.reasons].sort(), context: [...d.context].sort(), rules: [...d.rules].sort() });

describe('mergeDecisions', () => {
  it('is commutative and idempotent, and keeps the more restrictive word', () => {
    fc.assert(
      fc.property(pairOfOneSeam, ([a, b]) => {
        expect(view(mergeDecisions(a, b))).toEqual(view(mergeDecisions(b, a)));
        expect(view(mergeDecisions(a, a))).toEqual(view({ ...a, context: a.seam === 'prompt' && a.decision === 'block' ? [] : a.context }));
        const rank = DECISION_RANK[a.seam];
        expect(rank.indexOf(mergeDecisions(a, b).decision)).toBe(Math.max(rank.indexOf(a.decision), rank.indexOf(b.decision)));
      }),
    );
  });

  it('is associative', () => {
    const triple = decisionArb.chain((a) => fc.tuple(fc.constant(a), decisionArb.filter((b) => b.seam === a.seam), decisionArb.filter((c) => c.seam === a.seam)));
    fc.assert(
      fc.property(triple, ([a, b, c]) => {
        expect(view(mergeDecisions(mergeDecisions(a, b), c))).toEqual(view(mergeDecisions(a, mergeDecisions(b, c))));
      }),
    );
  });
});

describe('the canonical seams', () => {
  const p = policy([
    { seam: 'pre-tool', effect: 'ask', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['git push *'] }], reason: 'push' },
    { seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm *'] }], reason: 'one' },
    { seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm -rf *'] }], reason: 'two' },
    { seam: 'prompt', effect: 'context', text: 'use npm' },
    { seam: 'stop', effect: 'continue', reason: 'keep going' },
  ]);

  it('return typed decisions with the reasons joined where one text is needed', async () => {
    const d = await preTool(p, { seam: 'pre-tool', tool: 'Bash', input: { command: 'rm -rf x' } });
    expect(d).toMatchObject({ seam: 'pre-tool', decision: 'deny', reasons: ['one', 'two'], reason: 'one\n\ntwo' });
    expect(await prompt(p, { seam: 'prompt', prompt: 'hi' })).toMatchObject({ decision: 'allow', context: ['use npm'] });
    expect(await stop(p, { seam: 'stop', turn: [], stop_hook_active: false })).toMatchObject({ decision: 'continue', reason: 'keep going' });
  });

  it('compose as a waterfall listener in any position', async () => {
    const other = listener(policy([{ seam: 'pre-tool', effect: 'allow', tools: ['Bash'] }]));
    const mine = listener(p);
    const event = { seam: 'pre-tool' as const, tool: 'Bash', input: { command: 'git push origin' } };
    const first = await mine(event, () => other(event));
    const second = await other(event, () => mine(event));
    expect(first.decision).toBe('ask');
    expect(second.decision).toBe('ask');
    expect(await other(event)).toMatchObject({ decision: 'allow' });
  });

  it('settle an ask: approved allows, anything else denies', async () => {
    const ask = await preTool(p, { seam: 'pre-tool', tool: 'Bash', input: { command: 'git push' } });
    expect(ask.decision).toBe('ask');
    expect((await settleAsk(ask)).decision).toBe('deny');
    expect((await settleAsk(ask)).reasons).toContain('no approver is available to answer the question');
    expect((await settleAsk(ask, async () => true)).decision).toBe('allow');
    expect((await settleAsk(ask, async () => false)).decision).toBe('deny');
    expect((await settleAsk(ask, async () => Promise.reject(new Error('gone')))).decision).toBe('deny');
    const none = await preTool(p, { seam: 'pre-tool', tool: 'Read', input: {} });
    expect(await settleAsk(none)).toBe(none);
  });
});
