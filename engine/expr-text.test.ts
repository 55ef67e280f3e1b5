import { describe, expect, it } from 'vitest';
import { exprText, NotExpressible, type ExprSpelling } from './expr-text.js';
import type { Expr } from './ir.js';

const STRICT: ExprSpelling = { string: (s) => JSON.stringify(s), strict: true };

describe('exprText', () => {
  it('prints conditions as written, with the parentheses they need', () => {
    const e: Expr = {
      op: 'and',
      args: [
        { op: 'not', arg: { op: 'or', args: [{ op: 'compare', cmp: 'in', field: { name: 'input', path: ['mode'] }, value: ['a', 1, null] }, { op: 'const', value: true }] } },
        { op: 'ran', tools: ['Edit', 'Write'], selectors: [{ kind: 'path', globs: ['src/**'] }] },
        { op: 'compare', cmp: 'matches', field: { name: 'prompt' }, value: { regex: 'a/b', flags: 'i' } },
      ],
    };
    expect(exprText(e)).toBe('not (input.mode in ["a", 1, null] or true) and ran Edit, Write path "src/**" and prompt matches /a\\/b/i');
  });

  it('repeats `not` without parentheses and brackets `and` under `not`', () => {
    const x: Expr = { op: 'exists', field: { name: 'cwd' } };
    expect(exprText({ op: 'not', arg: { op: 'not', arg: x } })).toBe('not not cwd exists');
    expect(exprText({ op: 'not', arg: { op: 'and', args: [x, { op: 'const', value: false }] } })).toBe('not (cwd exists and false)');
    expect(exprText({ op: 'or', args: [{ op: 'and', args: [x, x] }, x] })).toBe('cwd exists and cwd exists or cwd exists');
  });

  it('escapes a slash in a regex once: one already escaped stays as it is', () => {
    const regex = (source: string): Expr => ({ op: 'compare', cmp: 'matches', field: { name: 'prompt' }, value: { regex: source, flags: '' } });
    expect(exprText(regex('a\\/b'))).toBe('prompt matches /a\\/b/');
    expect(exprText(regex('a\\\\/b'))).toBe('prompt matches /a\\\\\\/b/');
    expect(exprText(regex('/'))).toBe('prompt matches /\\//');
  });

  it('printed strictly, refuses what policy text cannot say; for people, shows it', () => {
    const field: Expr = { op: 'exists', field: { name: 'input', path: ['a b'] } };
    const regex: Expr = { op: 'compare', cmp: 'matches', field: { name: 'prompt' }, value: { regex: 'a\nb', flags: '' } };
    expect(() => exprText(field, STRICT)).toThrow(NotExpressible);
    expect(() => exprText(regex, STRICT)).toThrow('a regex holds a line break');
    expect(() => exprText({ op: 'ran', tools: [], selectors: [] }, STRICT)).toThrow('names no tool');
    expect(() => exprText({ op: 'compare', cmp: '==', field: { name: 'cwd' }, value: -1 }, STRICT)).toThrow('the number `-1` has no literal');
    expect(() => exprText({ op: 'compare', cmp: 'in', field: { name: 'cwd' }, value: [1e21] }, STRICT)).toThrow(NotExpressible);
    expect(exprText({ op: 'compare', cmp: 'in', field: { name: 'cwd' }, value: [0, 1.5, 12] }, STRICT)).toBe('cwd in [0, 1.5, 12]');
    expect(exprText(field)).toBe('input.a b exists');
    expect(exprText(regex)).toBe('prompt matches /a\nb/');
  });

  it('spells strings as the caller says', () => {
    const e: Expr = { op: 'ran', tools: [], selectors: [{ kind: 'command', patterns: ['a"b'] }] };
    expect(exprText({ op: 'compare', cmp: '==', field: { name: 'cwd' }, value: 'x' }, { string: (s) => `<${s}>`, strict: false })).toBe('cwd == <x>');
    expect(exprText(e)).toBe('ran command "a\\"b"');
  });
});
