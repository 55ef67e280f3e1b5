/**
 * The path selector from the IR: the selector's `case` field against the default of the rule's
 * effect, `not` in conditions turning any-path into every-path, both evaluators agreeing, and the
 * IR's validation of the field.
 */
import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../events.js';
import type { PolicyIR, Rule, Selector } from '../ir.js';
import { compilePolicy } from '../compile.js';
import { evaluateSync } from '../evaluate.js';
import { evaluateReference, referencePolicy } from '../reference.js';
import { validateIR } from '../validate.js';

function policy(rules: Partial<Rule>[]): PolicyIR {
  return {
    version: 1,
    sources: ['p.dshpolicy'],
    rules: rules.map((r, i) => ({ id: `p.dshpolicy:${i + 1}:1`, seam: 'pre-tool', effect: 'deny', ...r }) as Rule),
    tests: [],
  };
}

function decide(ir: PolicyIR, tool: string, input: Record<string, unknown>): string {
  const event: PolicyEvent = { seam: 'pre-tool', tool, input, cwd: '/repo', home: '/home/u' };
  const fast = evaluateSync(compilePolicy(ir), event).decision;
  expect(evaluateReference(referencePolicy(ir), event).decision, 'the reference agrees').toBe(fast);
  return fast;
}

const env: Selector = { kind: 'path', globs: ['**/.env'] };

describe('the case of path selectors', () => {
  it('folds for a deny and is exact for an allow by default', () => {
    expect(decide(policy([{ effect: 'deny', selectors: [env] }]), 'Read', { file_path: '/repo/.ENV' })).toBe('deny');
    expect(decide(policy([{ effect: 'allow', selectors: [env] }]), 'Read', { file_path: '/repo/.ENV' })).toBe('none');
  });

  it('follows the selector\'s `case` when it has one', () => {
    expect(decide(policy([{ effect: 'deny', selectors: [{ ...env, case: 'exact' }] }]), 'Read', { file_path: '/repo/.ENV' })).toBe('none');
    expect(decide(policy([{ effect: 'allow', selectors: [{ ...env, case: 'fold' }] }]), 'Read', { file_path: '/repo/.ENV' })).toBe('allow');
    expect(decide(policy([{ effect: 'ask', selectors: [{ ...env, case: 'fold' }] }]), 'Read', { file_path: '/repo/.eNv' })).toBe('ask');
  });

  it('an exact deny still resolves Windows spellings and magic links', () => {
    const exact = policy([{ effect: 'deny', selectors: [{ ...env, case: 'exact' }] }]);
    expect(decide(exact, 'Read', { file_path: 'C:\\repo\\.env' })).toBe('deny');
    expect(decide(exact, 'Read', { file_path: '/proc/self/root/repo/.env' })).toBe('deny');
    expect(decide(exact, 'Read', { file_path: '/dev/fd/9' })).toBe('deny');
  });
});

describe('path conditions', () => {
  const glob = (value: string) => ({ op: 'compare' as const, cmp: 'glob' as const, field: { name: 'path' }, value });

  it('`not` turns a deny\'s any-path test into an every-path one', () => {
    const ir = policy([{ effect: 'deny', tools: ['Read'], when: { op: 'not', arg: glob('src/**') } }]);
    expect(decide(ir, 'Read', { file_path: '/repo/src/a.ts' })).toBe('none');
    expect(decide(ir, 'Read', { file_path: '/repo/src/a.ts', path: '/repo/.env' })).toBe('deny');
    expect(decide(ir, 'Read', { file_path: '/repo/SRC/a.ts' })).toBe('deny');
  });

  it('`not` turns an allow\'s every-path test into an any-path one', () => {
    const ir = policy([{ effect: 'allow', tools: ['Read'], when: { op: 'not', arg: glob('**/.env') } }]);
    expect(decide(ir, 'Read', { file_path: '/repo/a.ts' })).toBe('allow');
    expect(decide(ir, 'Read', { file_path: '/repo/a.ts', path: '/repo/.Env' })).toBe('none');
    expect(decide(ir, 'Read', { file_path: '/proc/self/fd/3' })).toBe('none');
  });

  it('a double `not` is the rule\'s own mode again', () => {
    const ir = policy([{ effect: 'deny', tools: ['Read'], when: { op: 'not', arg: { op: 'not', arg: glob('**/.env') } } }]);
    expect(decide(ir, 'Read', { file_path: '/repo/.ENV' })).toBe('deny');
  });
});

describe('the IR', () => {
  it('accepts `case` on path selectors only, with its two values', () => {
    const ok = policy([{ effect: 'deny', selectors: [{ kind: 'path', globs: ['a'], case: 'exact' }] }]);
    expect(validateIR(JSON.parse(JSON.stringify(ok))).diagnostics).toEqual([]);
    const bad = JSON.parse(JSON.stringify(ok));
    bad.rules[0].selectors[0].case = 'upper';
    expect(validateIR(bad).diagnostics.length).toBeGreaterThan(0);
    const onUrl = JSON.parse(JSON.stringify(ok));
    onUrl.rules[0].selectors[0] = { kind: 'url', globs: ['https://x/*'], case: 'fold' };
    expect(validateIR(onUrl).diagnostics.length).toBeGreaterThan(0);
  });
});
