import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRegex } from '../engine/index.js';
import { plainRegexValid, regexProblem } from './regex-valid.js';

const PIECES = [
  'a', 'b', 'Z', '0', '_', ' ', '-', '/', ',', ':', '=', 'é', '€', '\n', '\u0000', '\ud83d',
  '.', '*', '+', '?', '*?', '|', '(', ')', '(?:', '(?i)', '(?m:', '(?s)', '(?is:', '(?ii)', '(?)', '(?-i)', '(?P<n>', '(?<n>', '(?=',
  '[', ']', '[^', '[a-z]', '[z-a]', '[-a]', '[a-]', '[a-b-c]', '[\\d-z]', '[a-\\d]', '[]a]', '[[:alpha:]]', '[^\\n]', '[\\x00-\\x7f]',
  '^', '$', '{', '}', '{2}', '{0}', '{02}', '{1,3}', '{2,}', '{,3}', '{3,1}', '{100}', '{101}', '{1000}', '{1001}',
  '\\', '\\b', '\\B', '\\A', '\\z', '\\Z', '\\d', '\\D', '\\s', '\\S', '\\w', '\\W', '\\pL', '\\p{Greek}', '\\Q', '\\E', '\\C',
  '\\a', '\\f', '\\n', '\\r', '\\t', '\\v', '\\e', '\\0', '\\1', '\\8', '\\x41', '\\x4', '\\x{41}', '\\u0041', '\\cA', '\\k',
  ...[...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'].map((c) => `\\${c}`),
];

const FLAGS = ['', 'i', 'm', 's', 'ims', 'smi', 'ii', 'x', 'g', 'mm'];

describe('plainRegexValid', () => {
  it('accepts only regexes that RE2 accepts', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }), fc.constantFrom(...FLAGS), (pieces, flags) => {
        const source = pieces.join('');
        if (plainRegexValid(source, flags)) expect(checkRegex(source, flags)).toBeNull();
      }),
      { numRuns: 4000 },
    );
  });

  it.each([
    ['\\btool12\\s+--force\\b', ''],
    ['\\bsecret7\\b', 'i'],
    ['(?i)\\bdrop\\s+table\\b', 'm'],
    ['-----BEGIN [A-Z ]*PRIVATE KEY-----', ''],
    ['^[0-9]{5,}$', ''],
    ['^/usr/bin/rm\\s', ''],
    ['^error:.*$', 'ms'],
    ['curl.*\\|\\s*sh', 'is'],
    ['git\\s+push\\b.*\\s(-f|--force)\\b', ''],
    ['npm ERR!', ''],
    ['x[^\\s\\S]*', ''],
    ['$^', ''],
    ['', ''],
  ])('treats `%s` (flags `%s`) as plain', (source, flags) => {
    expect(plainRegexValid(source, flags)).toBe(true);
    expect(checkRegex(source, flags)).toBeNull();
  });

  it.each([
    ['rm (-rf', ''],
    ['password(?=:)', ''],
    ['a**', ''],
    ['x{1001}', ''],
    ['(x{10}){10}', ''],
    ['\\pL', ''],
    ['[[:alpha:]]', ''],
    ['\\Q*\\E', ''],
    ['a', 'ii'],
    ['a', 'g'],
  ])('leaves `%s` (flags `%s`) to RE2', (source, flags) => {
    expect(plainRegexValid(source, flags)).toBe(false);
  });

  it('gives what checkRegex gives', () => {
    for (const [source, flags] of [['rm (-rf', ''], ['a**', ''], ['ok', 'g'], ['\\bok\\b', 'i'], ['\\pL+', '']] as const) {
      expect(regexProblem(source, flags)).toEqual(checkRegex(source, flags));
    }
  });
});
