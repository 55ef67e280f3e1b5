import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Diagnostic } from '../diagnostics.js';
import type { Decision, TraceEntry } from '../evaluate.js';
import { SEAM_DECISIONS, SEAMS, type Seam } from '../ir.js';
import { SEAM_KINDS, seamDecision } from './decisions.js';

/** The kind each engine word of each seam maps to. */
const KIND_OF: { [S in Seam]: Record<string, string> } = {
  'pre-tool': { deny: 'deny', ask: 'ask', allow: 'allow', none: 'none' },
  prompt: { block: 'block', allow: 'allow' },
  'post-tool': { block: 'block', accept: 'accept' },
  stop: { halt: 'halt', continue: 'continue', stop: 'stop' },
  'session-start': { halt: 'halt', none: 'context' },
};

const diagnosticArb: fc.Arbitrary<Diagnostic> = fc.record({
  code: fc.constantFrom('event/input-capped', 'hook/not-run'),
  severity: fc.constantFrom('error' as const, 'warning' as const),
  message: fc.string({ maxLength: 8 }),
});

const limitedEntry: TraceEntry = { rule: 'l1', effect: 'limit', outcome: 'limited' };

const engineDecisionArb: fc.Arbitrary<Decision> = fc.constantFrom(...SEAMS).chain((seam) =>
  fc
    .record({
      seam: fc.constant(seam),
      decision: fc.constantFrom(...(SEAM_DECISIONS[seam] as readonly string[])),
      reasons: fc.uniqueArray(fc.constantFrom('a', 'b', 'c')),
      context: fc.uniqueArray(fc.constantFrom('x', 'y')),
      rules: fc.uniqueArray(fc.constantFrom('f:1:1', 'f:2:1')),
      trace: fc.constantFrom([], [limitedEntry]),
      diagnostics: fc.array(diagnosticArb, { maxLength: 2 }),
      rewrite: fc.option(fc.dictionary(fc.constantFrom('command', 'path'), fc.string({ maxLength: 4 })), { nil: undefined }),
    })
    .map(({ rewrite, ...d }) => {
      const out = { ...d, trace: [...d.trace] } as Decision;
      if (d.reasons.length > 0) out.reason = d.reasons.join('\n\n');
      if (rewrite && seam === 'pre-tool' && (d.decision === 'allow' || d.decision === 'none')) out.updatedInput = rewrite;
      return out;
    }),
);

describe('seamDecision', () => {
  it('maps every decision word of every seam, keeping what a host needs', () => {
    fc.assert(
      fc.property(engineDecisionArb, (d) => {
        const t = seamDecision(d) as unknown as Record<string, unknown> & { kind: string };
        expect(t.kind).toBe(KIND_OF[d.seam][d.decision]);
        expect(SEAM_KINDS[d.seam]).toContain(t.kind);
        expect(t['rules']).toEqual(d.rules);
        expect(t['diagnostics']).toEqual(d.diagnostics);
        expect(t['updatedInput']).toEqual(d.updatedInput);
        const blocksPrompt = d.seam === 'prompt' && d.decision === 'block';
        expect(t['context']).toEqual(blocksPrompt ? undefined : d.context);
        const text = t['reason'] ?? t['feedback'];
        if (text !== undefined) {
          expect(t['reasons']).toEqual(d.reasons);
          if (d.reasons.length > 0) expect(text).toBe(d.reason);
          else expect(text).toMatch(/^the policy gives `/);
        }
        expect(t['limited']).toBe(d.seam === 'stop' && d.decision === 'stop' && d.trace.length > 0 ? true : undefined);
      }),
    );
  });

  it('gives every word that refuses, asks or forces something a reason', () => {
    for (const seam of SEAMS) {
      for (const word of SEAM_DECISIONS[seam]) {
        const t = seamDecision({ seam, decision: word, reasons: [], context: [], rules: ['p:3:1'], trace: [], diagnostics: [] } as Decision) as unknown as Record<string, unknown>;
        const neutral = ['allow', 'none', 'accept', 'stop'].includes(word);
        expect(t['reason'] ?? t['feedback'], `${seam} ${word}`).toBe(neutral ? undefined : `the policy gives \`${word}\` (rule \`p:3:1\`)`);
      }
    }
  });

  it('fails closed on a word a seam does not have', () => {
    const odd = (seam: Seam) => seamDecision({ seam, decision: 'perhaps', reasons: [], context: [], rules: [], trace: [], diagnostics: [] } as unknown as Decision);
    expect(odd('pre-tool').kind).toBe('deny');
    expect(odd('prompt').kind).toBe('block');
    expect(odd('post-tool').kind).toBe('block');
    expect(odd('stop').kind).toBe('stop');
    expect(odd('session-start').kind).toBe('context');
  });
});
