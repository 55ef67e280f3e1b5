import { describe, expect, it } from 'vitest';
import { validateIR } from './validate.js';

const ok = { version: 1, sources: ['p'], rules: [{ id: 'p:1:1', seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm -rf /'] }], when: { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: 'x', flags: 'i' } } }], tests: [] };

describe('validateIR', () => {
  it('accepts a valid IR', () => {
    expect(validateIR(ok)).toMatchObject({ diagnostics: [], ir: ok });
  });
  it('rejects another version with a clear message', () => {
    expect(validateIR({ ...ok, version: 2 }).diagnostics[0]).toMatchObject({ code: 'ir/version', pointer: '/version' });
  });
  it('reports schema problems with JSON pointers', () => {
    const bad = { ...ok, rules: [{ id: 'x', seam: 'pre-tool', effect: 'nope', extra: 1 }] };
    const d = validateIR(bad).diagnostics;
    expect(d.map((x) => x.pointer)).toEqual(expect.arrayContaining(['/rules/0', '/rules/0/effect']));
    expect(d.some((x) => x.message === 'unknown property `extra`')).toBe(true);
  });
  it('reports what the schema cannot say', () => {
    const d = validateIR({ ...ok, rules: [{ id: 'x', seam: 'stop', effect: 'deny' }, { id: 'x', seam: 'prompt', effect: 'block', tools: ['Bash'] }] }).diagnostics;
    expect(d.map((x) => x.code)).toEqual(['ir/bad-effect', 'ir/duplicate-id', 'ir/no-tools']);
  });
  it('reports an invalid regex', () => {
    const bad = structuredClone(ok);
    bad.rules[0]!.when.value.regex = '(';
    expect(validateIR(bad).diagnostics[0]).toMatchObject({ code: 'ir/invalid-regex', pointer: '/rules/0/when/value/regex' });
  });
  it('never throws on garbage', () => {
    for (const v of [null, 3, 'x', [], { version: 1 }, { version: 1, sources: 'x', rules: {}, tests: [] }]) {
      expect(validateIR(v).ir).toBeUndefined();
    }
  });
});
