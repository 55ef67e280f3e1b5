import { describe, it, expect } from 'vitest';
import { requiredLiterals } from './regex-literals.js';

function literals(source: string, flags = ''): string[] | null {
  const result = requiredLiterals(source, flags);
  return result === null ? null : [...result.literals].sort();
}

describe('requiredLiterals', () => {
  it('takes each alternative of an alternation', () => {
    expect(literals('foo|bar')).toEqual(['bar', 'foo']);
    expect(literals('(?:git|hg) push')).toEqual(['git push', 'hg push']);
  });

  it('picks the most selective required piece of a concatenation', () => {
    expect(literals('\\btool12\\s+--force\\b')).toEqual(['--force']);
    expect(literals('rm\\s+-rf')).toEqual(['-rf']);
    expect(literals('^(?:sudo\\s+)?rm\\s+-rf')).toEqual(['-rf']);
    expect(literals('AKIA[0-9A-Z]{16}')).toEqual(['AKIA']);
    expect(literals('curl.*\\|\\s*(ba)?sh')).toEqual(['curl']);
  });

  it('expands optional pieces and small classes', () => {
    expect(literals('colou?r')).toEqual(['color', 'colour']);
    expect(literals('[Rr]m -rf')).toEqual(['Rm -rf', 'rm -rf']);
    expect(literals('(?:ab){2}c')).toEqual(['ababc']);
    expect(literals('x(?:ab)+y')).toEqual(['xab']);
  });

  it('drops literals that contain another one', () => {
    expect(literals('abc|abcd|xabcx')).toEqual(['abc']);
  });

  it('gives nothing useful for empty-matching, short or unanalysable patterns', () => {
    expect(literals('')).toBeNull();
    expect(literals('a*')).toBeNull();
    expect(literals('(?:abc)?')).toBeNull();
    expect(literals('abc|')).toBeNull();
    expect(literals('a')).toBeNull();
    expect(literals('a.b')).toBeNull();
    expect(literals('\\d+')).toBeNull();
    expect(literals('ab\\C')).toBeNull();
    expect(literals('abc', 'x')).toBeNull();
    expect(literals('abc|\\w+')).toBeNull();
  });

  it('keeps astral characters and surrogates out of literals', () => {
    expect(literals('x😀y')).toBeNull();
    expect(literals('abc😀de')).toEqual(['abc']);
  });

  describe('case-insensitive patterns', () => {
    it('lowercases and marks the literals as folded', () => {
      expect(requiredLiterals('(?i)Token', '')).toEqual({ literals: ['to'], folded: true });
      expect(requiredLiterals('PASSWORD', 'i')).toEqual({ literals: ['word'], folded: true });
    });

    it('splits literals at k and s, whose orbits hold U+212A and U+017F', () => {
      expect(literals('(?i)s3cr3t')).toEqual(['3cr3t']);
      expect(literals('(?i)kelvin')).toEqual(['elvin']);
      expect(literals('(?i)sks')).toBeNull();
    });

    it('splits literals at non-ASCII characters', () => {
      expect(literals('(?i)abσcd')).toEqual(['ab']);
      expect(literals('(?i)ab\u212acd')).toEqual(['ab']);
    });

    it('lowercases case-sensitive parts of a partly folded pattern', () => {
      expect(requiredLiterals('(?i:ab)CD', '')).toEqual({ literals: ['abcd'], folded: true });
      expect(requiredLiterals('(?i)123', '')).toEqual({ literals: ['123'], folded: false });
    });

    it('the literals are found in the lowercased text whenever the pattern matches', () => {
      const { literals: found } = requiredLiterals('(?i)api_token', '')!;
      for (const text of ['API_TOKEN', 'Api_Token=1', 'x api_token']) expect(found.some((l) => text.toLowerCase().includes(l))).toBe(true);
    });
  });
});
