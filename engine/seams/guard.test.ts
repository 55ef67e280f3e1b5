import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compilePolicy } from '../compile.js';
import { evaluateSync } from '../evaluate.js';
import type { EventOf } from '../events.js';
import { IR_VERSION, type Rule } from '../ir.js';
import { applyGuards, policyGuard, type Guard } from './guard.js';
import type { GuardDecision, PreToolDecision } from './decisions.js';

function policy(rules: Omit<Rule, 'id'>[]) {
  return compilePolicy({ version: IR_VERSION, sources: [], rules: rules.map((r, i) => ({ ...r, id: `r${i}` })), tests: [] });
}

const bash = (command: string): EventOf<'pre-tool'> => ({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd: '/repo' });

const PATTERNS = ['git push *', 'rm *', 'ls *', 'npm test'];
const COMMANDS = ['git push origin', 'rm -rf x', 'ls -a', 'npm test', 'ls && rm x', 'echo hi'];

const ruleArb: fc.Arbitrary<Omit<Rule, 'id'>> = fc
  .record({ effect: fc.constantFrom('deny' as const, 'ask' as const, 'allow' as const, 'run' as const), pattern: fc.constantFrom(...PATTERNS) })
  .map(({ effect, pattern }) => {
    const r: Omit<Rule, 'id'> = { seam: 'pre-tool', effect, tools: ['Bash'], selectors: [{ kind: 'command', patterns: [pattern] }] };
    if (effect === 'run') r.hook = { command: 'true', dialect: 'claude' };
    else if (effect !== 'allow') r.reason = `${effect} ${pattern}`;
    return r;
  });

const outcomeArb: fc.Arbitrary<PreToolDecision> = fc.oneof(
  fc.constant<PreToolDecision>({ kind: 'allow', context: ['c'], approval: 'allowed-once' }),
  fc.constant<PreToolDecision>({ kind: 'allow', context: [], updatedInput: { command: 'ls' } }),
  fc.constant<PreToolDecision>({ kind: 'none', context: [] }),
  fc.constant<PreToolDecision>({ kind: 'ask', reason: 'why', context: [] }),
  fc.constant<PreToolDecision>({ kind: 'deny', reason: 'no', context: [], approval: 'cancelled' }),
);

describe('policyGuard', () => {
  it('never allows: a deny denies, a matching `run` rule denies, everything else abstains', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 5 }), fc.constantFrom(...COMMANDS), (rules, command) => {
        const p = policy(rules);
        const v = policyGuard(p)(bash(command));
        expect(['deny', 'abstain']).toContain(v.kind);
        const d = evaluateSync(p, bash(command));
        expect(v.kind).toBe(d.decision === 'deny' || d.pendingHooks.length > 0 ? 'deny' : 'abstain');
      }),
    );
  });

  it('fails closed on a `run` rule it cannot run, naming it', () => {
    const p = policy([
      { seam: 'pre-tool', effect: 'allow', tools: ['Bash'] },
      { seam: 'pre-tool', effect: 'run', tools: ['Bash'], hook: { command: 'check', dialect: 'claude' } },
    ]);
    const v = policyGuard(p)(bash('ls'));
    expect(v).toMatchObject({ kind: 'deny', reason: 'the guard cannot run the command hook of rule `r1`, so the call is denied', rules: ['r1'] });
    expect(v.diagnostics?.map((d) => d.code)).toEqual(['seam/guard-hook-not-run']);
  });

  it('keeps the reasons and rules of a deny, and abstains on ask', () => {
    const p = policy([
      { seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm *'] }], reason: 'no deletes' },
      { seam: 'pre-tool', effect: 'ask', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['git push *'] }], reason: 'push' },
    ]);
    expect(policyGuard(p)(bash('rm -rf x'))).toEqual({ kind: 'deny', reason: 'no deletes', reasons: ['no deletes'], rules: ['r0'], diagnostics: [] });
    expect(policyGuard(p)(bash('git push'))).toEqual({ kind: 'abstain', rules: [], diagnostics: [] });
  });
});

describe('applyGuards', () => {
  const verdictArb: fc.Arbitrary<Guard> = fc.oneof(
    fc.constant<Guard>(() => ({ kind: 'abstain' })),
    fc.constant<Guard>(() => ({ kind: 'deny', reason: 'guard says no', rules: ['g'] })),
    fc.constant<Guard>(() => ({ kind: 'allow' }) as unknown as GuardDecision),
    fc.constant<Guard>(() => {
      throw new Error('broken');
    }),
  );

  it('only ever turns an outcome into deny', () => {
    fc.assert(
      fc.property(outcomeArb, fc.array(verdictArb, { maxLength: 3 }), (outcome, guards) => {
        const event = bash('ls');
        const out = applyGuards(event, outcome, guards);
        const verdicts = guards.map((g) => {
          try {
            return g(event).kind;
          } catch {
            return 'threw';
          }
        });
        if (verdicts.every((k) => k === 'abstain')) expect(out).toEqual(outcome);
        else expect(out.kind).toBe('deny');
        if (out.kind === 'allow') expect(outcome.kind).toBe('allow');
      }),
    );
  });

  it('pools a guard\'s denial with a denied outcome, keeping how its approval ended', () => {
    const out = applyGuards(bash('ls'), { kind: 'deny', reason: 'no', context: ['c'], rules: ['r'], approval: 'rejected' }, [() => ({ kind: 'deny', reason: 'never', rules: ['g'] })]);
    expect(out).toEqual({ kind: 'deny', reason: 'no\n\nnever', reasons: ['no', 'never'], context: ['c'], rules: ['r', 'g'], diagnostics: [], approval: 'rejected' });
    const allowed = applyGuards(bash('ls'), { kind: 'allow', context: [], updatedInput: { command: 'ls -a' } }, [() => ({ kind: 'deny', reason: 'never' })]);
    expect(allowed).toEqual({ kind: 'deny', reason: 'never', reasons: ['never'], context: [], rules: [], diagnostics: [] });
  });
});
