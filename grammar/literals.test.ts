import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRegex, decodeString, durationMs, encodeString, numberValue } from './literals.js';
import { policyLexer } from './tokens.js';

describe('decodeString', () => {
  it('decodes every escape', () => {
    const { value, problems } = decodeString('"q\\" b\\\\ n\\n t\\t r\\r s\\/ u\\u{41}\\u{1F600}"');
    expect(value).toBe('q" b\\ n\n t\t r\r s/ uA\u{1F600}');
    expect(problems).toEqual([]);
  });

  it('keeps text without escapes as it is', () => {
    expect(decodeString('"日本語 — ok # not a comment"').value).toBe('日本語 — ok # not a comment');
  });

  it('reports an unknown escape at its offset in the token and keeps it', () => {
    const { value, problems } = decodeString('"C:\\windows"');
    expect(value).toBe('C:\\windows');
    expect(problems).toEqual([expect.objectContaining({ code: 'parse/invalid-escape', start: 3, end: 5 })]);
    expect(problems[0]?.message).toContain('`\\w`');
  });

  it('reports malformed and out-of-range unicode escapes', () => {
    expect(decodeString('"\\u{D800}"').problems[0]?.message).toContain('`\\u{D800}`');
    expect(decodeString('"\\u{110000}"').problems[0]?.message).toContain('not a valid code point');
    expect(decodeString('"\\u0041"').problems[0]?.message).toContain('invalid unicode escape');
    expect(decodeString('"\\u{}"').problems).toHaveLength(1);
    expect(decodeString('"\\u{1234567}"').problems).toHaveLength(1);
  });

  it('decodes the text of an unterminated string', () => {
    expect(decodeString('"abc').value).toBe('abc');
    expect(decodeString('"abc\\').value).toBe('abc\\');
    expect(decodeString('"a\\"').value).toBe('a"');
    expect(decodeString('"').value).toBe('');
  });

  it('round-trips any text through encodeString', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const image = encodeString(s);
        const lexed = policyLexer.tokenize(image);
        expect(lexed.errors).toEqual([]);
        expect(lexed.tokens.map((t) => t.tokenType.name)).toEqual(['StringLit']);
        const { value, problems } = decodeString(image);
        expect(problems).toEqual([]);
        expect(value).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  it('writes control characters and line breaks as escapes', () => {
    expect(encodeString('a"b\\c\nd\te\u0000')).toBe('"a\\"b\\\\c\\nd\\te\\u{0}"');
  });
});

describe('decodeRegex', () => {
  it('turns `\\/` into `/` and keeps every other escape', () => {
    expect(decodeRegex('/^\\/usr\\/bin\\/rm\\s/')).toEqual({ source: '^/usr/bin/rm\\s', flags: '', closed: true });
    expect(decodeRegex('/a\\\\/i')).toEqual({ source: 'a\\\\', flags: 'i', closed: true });
  });

  it('separates the flags', () => {
    expect(decodeRegex('/curl.*\\|\\s*sh/is')).toEqual({ source: 'curl.*\\|\\s*sh', flags: 'is', closed: true });
  });

  it('reads an unterminated regex to its end', () => {
    expect(decodeRegex('/rm -rf')).toEqual({ source: 'rm -rf', flags: '', closed: false });
  });
});

describe('durations and numbers', () => {
  it('converts each unit to milliseconds', () => {
    expect([durationMs('500ms'), durationMs('10s'), durationMs('2m'), durationMs('1h')]).toEqual([500, 10_000, 120_000, 3_600_000]);
  });

  it('gives 0 for text that is not a duration', () => {
    expect(durationMs('10sec')).toBe(0);
  });

  it('reads numbers, and the leading digits of a malformed one', () => {
    expect([numberValue('3'), numberValue('1.5'), numberValue('10sec'), numberValue('1.2.3')]).toEqual([3, 1.5, 10, 1.2]);
  });

  it('never gives a number JSON cannot hold', () => {
    expect(Number.isFinite(numberValue('9'.repeat(400)))).toBe(true);
    expect(Number.isFinite(durationMs('9'.repeat(400) + 'h'))).toBe(true);
  });
});
