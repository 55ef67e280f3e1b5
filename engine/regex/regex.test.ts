import { describe, it, expect } from 'vitest';
import { checkRegex, compileRegex, regexMatches, MAX_REGEX_INPUT } from './index.js';

describe('checkRegex: valid regexes', () => {
  it('accepts plain RE2 syntax', () => {
    expect(checkRegex('^git (push|pull)\\b', '')).toBeNull();
    expect(checkRegex('\\d{3}-\\pL+', 'i')).toBeNull();
  });

  it('accepts named groups in both spellings and inline flags', () => {
    expect(checkRegex('(?<user>\\w+)@(?P<host>\\w+)', '')).toBeNull();
    expect(checkRegex('(?i)abc(?-i:def)', '')).toBeNull();
  });

  it('accepts each allowed flag and combinations', () => {
    for (const flags of ['', 'i', 'm', 's', 'ims', 'smi']) expect(checkRegex('a.b', flags)).toBeNull();
  });

  it('accepts the empty regex', () => {
    expect(checkRegex('', '')).toBeNull();
  });
});

describe('checkRegex: errors and offsets', () => {
  it('points at the unclosed group', () => {
    const error = checkRegex('xy(a(b)z', '');
    expect(error?.message).toBe('unclosed group: missing `)`');
    expect(error?.offset).toBe(2);
  });

  it('points at the innermost unclosed group', () => {
    expect(checkRegex('(a(b', '')?.offset).toBe(2);
  });

  it('strips the re2-wasm prefix from messages', () => {
    const error = checkRegex('a(b', 'm');
    expect(error?.message).not.toMatch(/Invalid regular expression/u);
    expect(error?.message).not.toMatch(/\/u/u);
  });

  it('points at an unmatched closing paren', () => {
    expect(checkRegex('ab)cd', '')).toEqual({ message: 'unmatched `)`', offset: 2 });
  });

  it('points at an unterminated character class', () => {
    const error = checkRegex('ab[cd]ef[gh', '');
    expect(error?.message).toMatch(/missing `\]`/u);
    expect(error?.offset).toBe(8);
  });

  it('points at an invalid escape', () => {
    expect(checkRegex('x\\Zy', '')).toEqual({ message: 'invalid escape sequence `\\Z`', offset: 1 });
    expect(checkRegex('ab\\xZZ', '')?.offset).toBe(2);
  });

  it('points at a repetition with nothing to repeat', () => {
    const error = checkRegex('ab|*', '');
    expect(error?.message).toBe('`*` has nothing to repeat');
    expect(error?.offset).toBe(3);
  });

  it('points at a doubled repetition', () => {
    const error = checkRegex('xy+*z', '');
    expect(error?.message).toMatch(/^invalid repetition `\+\*`/u);
    expect(error?.offset).toBe(2);
  });

  it('points at an invalid repetition count', () => {
    const error = checkRegex('ab{2,1}', '');
    expect(error?.message).toMatch(/^invalid repetition count `\{2,1\}`/u);
    expect(error?.offset).toBe(2);
    expect(checkRegex('a{1001}', '')?.offset).toBe(1);
    // a count that is fine alone but too large once nested: RE2 blames the outer one
    expect(checkRegex('(?:a{1000}){1000}', '')?.offset).toBe(11);
  });

  it('points at the invalid character class range', () => {
    expect(checkRegex('x[z-a]', '')).toEqual({ message: 'invalid character class range `z-a`', offset: 2 });
  });

  it('points at the trailing backslash', () => {
    expect(checkRegex('ab\\', '')).toEqual({ message: 'trailing `\\` escapes nothing', offset: 2 });
  });

  it('explains lookbehind, even after a look-alike inside a class', () => {
    const error = checkRegex('[(?<]x(?<=a)b', '');
    expect(error?.message).toBe('lookbehind is not supported: regexes use RE2 syntax, which runs in linear time');
    expect(error?.offset).toBe(6);
    expect(checkRegex('(?<!a)b', '')?.message).toMatch(/^lookbehind is not supported/u);
  });

  it('explains lookahead', () => {
    expect(checkRegex('a(?=b)', '')).toEqual({
      message: 'lookahead is not supported: regexes use RE2 syntax, which runs in linear time',
      offset: 1,
    });
    expect(checkRegex('a(?!b)', '')?.message).toMatch(/^lookahead is not supported/u);
  });

  it('explains backreferences', () => {
    const error = checkRegex('(a)(b)\\2', '');
    expect(error?.message).toMatch(/^backreferences are not supported: regexes use RE2 syntax/u);
    expect(error?.offset).toBe(6);
    expect(checkRegex('(?<n>x)\\k<n>', '')?.message).toMatch(/^backreferences are not supported/u);
    expect(checkRegex('(?<n>x)\\k<n>', '')?.offset).toBe(7);
    expect(checkRegex('x\\8', '')?.message).toMatch(/^backreferences are not supported/u);
  });

  it('maps fragments rewritten by re2-wasm back to the source', () => {
    // re2-wasm escapes `/` and rewrites `(?<` before RE2 sees the pattern
    expect(checkRegex('a/b/c(?<=x)', '')?.offset).toBe(5);
    const named = checkRegex('ab(?<>x)', '');
    expect(named?.message).toMatch(/^invalid named capture group `\(\?<>`/u);
    expect(named?.offset).toBe(2);
  });

  it('reports unsupported group syntax', () => {
    const error = checkRegex('a(?>b)', '');
    expect(error?.message).toMatch(/^unsupported group syntax `\(\?>`/u);
    expect(error?.offset).toBe(1);
  });

  it('reports duplicate group names at the second one', () => {
    expect(checkRegex('(?<n>a)(?<n>b)', '')).toEqual({ message: 'duplicate capture group name', offset: 7 });
  });

  it('rejects unknown flags with an offset past the closing slash', () => {
    const error = checkRegex('abc', 'ig');
    expect(error?.message).toBe('unknown regex flag `g`: the flags are `i`, `m` and `s`');
    // rendered as /abc/ig: `g` is at 3 + 1 + 1
    expect(error?.offset).toBe(5);
    expect(checkRegex('abc', 'u')?.offset).toBe(4);
  });

  it('rejects duplicate flags', () => {
    expect(checkRegex('a', 'ii')).toEqual({ message: 'duplicate regex flag `i`', offset: 3 });
  });

  it('reports a pattern error before a flag error', () => {
    expect(checkRegex('a(', 'x')?.message).toBe('unclosed group: missing `)`');
  });

  it('messages are lowercase without a trailing period', () => {
    for (const [src, flags] of [['a(', ''], ['(?<n>a)(?<n>b)', ''], ['a', 'q'], ['\\Z', ''], ['[a', '']] as const) {
      const message = checkRegex(src, flags)?.message ?? '';
      expect(message.length).toBeGreaterThan(0);
      expect(message[0]).toBe(message[0]!.toLowerCase());
      expect(message.endsWith('.')).toBe(false);
    }
  });
});

describe('compileRegex', () => {
  it('searches anywhere in the value', () => {
    const m = compileRegex('rm -rf', '');
    expect(m.test('sudo rm -rf /')).toBe(true);
    expect(m.test('rm -r /')).toBe(false);
  });

  it('honours the i flag', () => {
    expect(compileRegex('secret', 'i').test('MY_SECRET')).toBe(true);
    expect(compileRegex('secret', '').test('MY_SECRET')).toBe(false);
  });

  it('honours the m flag', () => {
    expect(compileRegex('^b$', 'm').test('a\nb\nc')).toBe(true);
    expect(compileRegex('^b$', '').test('a\nb\nc')).toBe(false);
  });

  it('honours the s flag', () => {
    expect(compileRegex('a.b', 's').test('a\nb')).toBe(true);
    expect(compileRegex('a.b', '').test('a\nb')).toBe(false);
  });

  it('supports inline flags', () => {
    expect(compileRegex('(?i)token', '').test('TOKEN=1')).toBe(true);
    expect(compileRegex('(?i:a)b', '').test('AB')).toBe(false);
    expect(compileRegex('(?s)a.b', '').test('a\nb')).toBe(true);
  });

  it('an invalid regex never matches', () => {
    expect(compileRegex('a(', '').test('a(')).toBe(false);
    expect(compileRegex('a', 'g').test('a')).toBe(false);
    expect(compileRegex('(?<=a)b', '').test('ab')).toBe(false);
  });

  it('is usable repeatedly and across many distinct regexes (cache eviction)', () => {
    const first = compileRegex('^keep-[0-9]+$', '');
    expect(first.test('keep-1')).toBe(true);
    for (let i = 0; i < 1100; i++) expect(regexMatches(`^x${i}$`, '', `x${i}`)).toBe(true);
    // the first regex was evicted and is rebuilt transparently
    expect(first.test('keep-22')).toBe(true);
    expect(first.test('keep-')).toBe(false);
  });

  it('handles a pathological pattern in linear time', () => {
    const value = 'a'.repeat(200_000);
    const started = Date.now();
    expect(compileRegex('(a|aa)*(a+)+$x', '').test(value)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('tests only the first MAX_REGEX_INPUT code units', () => {
    const value = 'a'.repeat(MAX_REGEX_INPUT) + 'NEEDLE';
    expect(compileRegex('NEEDLE', '').test(value)).toBe(false);
    expect(compileRegex('NEEDLE', '').test('a'.repeat(1000) + 'NEEDLE')).toBe(true);
  });

  it('does not split a surrogate pair at the cut', () => {
    const value = 'a'.repeat(MAX_REGEX_INPUT - 1) + '😀';
    expect(compileRegex('a$', '').test(value)).toBe(true);
  });

  it('regexMatches is false for invalid regexes and non-strings', () => {
    expect(regexMatches('a', '', 'cat')).toBe(true);
    expect(regexMatches('a(', '', 'a(')).toBe(false);
    expect(regexMatches('a', '', undefined as unknown as string)).toBe(false);
  });
});
