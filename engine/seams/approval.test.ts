import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { EventOf } from '../events.js';
import { APPROVAL_OUTCOMES, resolveAsk, type Approval } from './approval.js';
import type { PreToolDecision } from './decisions.js';

const event: EventOf<'pre-tool'> = { seam: 'pre-tool', tool: 'Bash', input: { command: 'git push' } };
const ask: Extract<PreToolDecision, { kind: 'ask' }> = { kind: 'ask', reason: 'pushing needs a human', reasons: ['pushing needs a human'], context: ['c'], rules: ['p:2:3'], diagnostics: [] };

/** Approval services: one per outcome, ones that answer nonsense, one that throws, and none at all. */
const serviceArb: fc.Arbitrary<{ name: string; approval?: Approval }> = fc.oneof(
  fc.constantFrom(...APPROVAL_OUTCOMES).map((o) => ({ name: o, approval: async () => o })),
  fc.constantFrom('allow', 'yes', true, undefined, 'Allowed-once').map((o) => ({ name: 'nonsense', approval: () => o as never })),
  fc.constant({ name: 'throws', approval: () => Promise.reject(new Error('channel closed')) }),
  fc.constant({ name: 'missing' }),
);

describe('resolveAsk', () => {
  it('continues only on `allowed-once`; every other outcome denies, with the outcome in the reason', async () => {
    await fc.assert(
      fc.asyncProperty(serviceArb, async ({ name, approval }) => {
        const out = await resolveAsk(event, ask, approval);
        expect(out.kind).toBe(name === 'allowed-once' ? 'allow' : 'deny');
        if (out.kind === 'deny') {
          const outcome = ['rejected', 'cancelled'].includes(name) ? name : 'unavailable';
          expect(out.approval).toBe(outcome);
          expect(out.reason).toContain(`\`${outcome}\``);
          expect(out.reason.startsWith('pushing needs a human\n\n')).toBe(true);
          expect(out).toMatchObject({ context: ['c'], rules: ['p:2:3'] });
        } else {
          expect(out).toEqual({ kind: 'allow', context: ['c'], approval: 'allowed-once', rules: ['p:2:3'], diagnostics: [] });
        }
      }),
    );
  });

  it('says why an outcome stood for `unavailable`', async () => {
    const denied = async (approval?: Approval) => (await resolveAsk(event, ask, approval)) as Extract<PreToolDecision, { kind: 'deny' }>;
    expect((await denied()).reason).toBe(
      'pushing needs a human\n\nthe approval was `unavailable` (no approval service is available); only `allowed-once` lets the call run',
    );
    expect((await denied(() => Promise.reject(new Error('gone')))).reasons).toEqual([
      'pushing needs a human',
      'the approval was `unavailable` (the approval service failed: `Error: gone`); only `allowed-once` lets the call run',
    ]);
    expect((await denied(() => 'cancelled')).reasons?.[1]).toBe('the approval was `cancelled`; only `allowed-once` lets the call run');
  });

  it('passes every decision but `ask` through, and hands the service the call and the ask', async () => {
    for (const d of [{ kind: 'allow', context: [] }, { kind: 'deny', reason: 'no', context: [] }, { kind: 'none', context: [] }] as PreToolDecision[]) {
      expect(await resolveAsk(event, d, () => 'allowed-once')).toBe(d);
    }
    const seen: unknown[] = [];
    await resolveAsk(event, ask, (request) => {
      seen.push(request);
      return 'rejected';
    });
    expect(seen).toEqual([{ event, ask }]);
  });
});
