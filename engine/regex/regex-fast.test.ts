import { createRequire } from 'node:module';
import { describe, it, expect } from 'vitest';
import type { RE2 as RE2Class } from 're2-wasm';
import { MAX_REGEX_INPUT, compileRegex, regexPlan } from './regex.js';
import { analyseRegex } from './regex-fast.js';

const { RE2 } = createRequire(import.meta.url)('re2-wasm') as { RE2: typeof RE2Class };

function re2(source: string, flags: string, text: string): boolean {
  return new RE2(source, 'u' + flags).test(text);
}

function isFast(source: string, flags = ''): boolean {
  return regexPlan(source, flags).fast;
}

describe('which regexes take the JavaScript fast path', () => {
  it('common policy patterns do', () => {
    for (const source of [
      '\\bsecret12\\b',
      'rm\\s+-rf',
      '(?i)password',
      '^git\\s+push',
      '\\btool12\\s+--force\\b',
      '(?i)\\bapi[_-]?key\\b',
      '^(?:sudo\\s+)?rm\\s+-rf\\s+/',
      '\\d{3}-\\d{4}',
      'AKIA[0-9A-Z]{16}',
      '-----BEGIN (RSA |EC )?PRIVATE KEY-----',
      '\\.env$',
      '(?m)^export\\s+[A-Z_]+=',
      'foo|bar|baz',
      '\\b(?:rm|rmdir|mv)\\b',
      '(?:^|\\s)--force\\b',
      'colou?r',
      '',
    ]) {
      expect({ source, fast: isFast(source) }).toEqual({ source, fast: true });
    }
  });

  it('patterns that a backtracking engine could run in super-linear time do not', () => {
    for (const source of ['(a*)*b', 'a*a*b', '\\s*\\s*x', '(a|ab)*c', '\\s+x', 'a.*b', '.*x', '(?:ab)+', 'a+$', 'x(a|[ab])c', 'x(?:a?|b?)y', '(?:a|b)*c', 'x\\s*\\s*y']) {
      expect({ source, fast: isFast(source) }).toEqual({ source, fast: false });
    }
  });

  it('factors alternatives that start alike', () => {
    expect(analyseRegex('foo|bar|baz', '').jsSource).toBe('(?:foo|ba(?:r|z))');
    expect(analyseRegex('x(a|a)b', '').jsSource).toBe('xab');
    expect(analyseRegex('\\b(?:rm|rmdir)\\b', '').jsSource).toBe('\\brm(?:|dir)\\b');
  });

  it('says why not', () => {
    expect(regexPlan('a*a*b', '').why).toBe('a repeated character can also start the pattern');
    expect(regexPlan('x\\s*\\sy', '').why).toBe('a repeated character can also follow the repetition');
    expect(regexPlan('(a|ab)*c', '').why).toBe('repeated group');
    expect(regexPlan('x(?:ab|ac)', '').why).toBeUndefined(); // factored into x a(?:b|c)
    expect(regexPlan('x(?:[ab]c|bd)', '').why).toBe('alternatives start with the same character');
    expect(regexPlan('x{101}', '').why).toBe('repetition count above 100');
    expect(regexPlan('\\pL', '').why).toBe('unicode class or case-folded non-ASCII character');
    expect(regexPlan('(?i)é', '').why).toBe('unicode class or case-folded non-ASCII character');
    expect(regexPlan('a(', '')).toEqual({ fast: false, literals: null, folded: false, why: 'invalid regex' });
  });

  it('leaves `\\B` in an empty-matching pattern to the engine, since RE2 may match inside a UTF-8 sequence', () => {
    expect(re2('\\B', '', 'a\u00e9b')).toBe(true);
    expect(/\B/u.test('a\u00e9b')).toBe(false);
    expect(isFast('\\B')).toBe(false);
    expect(isFast('x?\\B')).toBe(false);
    expect(isFast('x\\B')).toBe(true);
    // the engine's own answer: RE2's in backend-re2wasm.test.ts, re2js's in backend-re2js.test.ts
  });
});

describe('the JavaScript translation keeps RE2 semantics', () => {
  const cases: [string, string, string][] = [
    ['a.b', '', 'a\rb'],
    ['a.b', '', 'a\u2028b'],
    ['a.b', '', 'a\nb'],
    ['a.b', 's', 'a\nb'],
    ['(?m)^b', '', 'a\rb'],
    ['(?m)^b', '', 'a\u2028b'],
    ['(?m)^b', '', 'a\nb'],
    ['a$', 'm', 'a\r\n'],
    ['a$', 'm', 'a\nb'],
    ['a$', '', 'a\n'],
    ['^$', 'm', '\u{10000}'],
    ['(?m)$', '', '\u{10000}'],
    ['x\\sy', '', 'x\vy'],
    ['x\\sy', '', 'x\fy'],
    ['x\\sy', '', 'x\u00a0y'],
    ['\\d', '', '\u0663'],
    ['\\w', '', '\u00e9'],
    ['(?i)k', '', '\u212a'],
    ['(?i)s', '', '\u017f'],
    ['(?i)\\bk\\b', '', '\u212a'],
    ['(?i)\\bks\\b', '', 'K\u017f'],
    ['(?i)x\\W', '', 'x\u017f'],
    ['(?i)[^k]', '', '\u212a'],
    ['(?i)σ', '', 'Σ'],
    ['\\bé', '', ' é'],
    ['[[:punct:]]', '', '_'],
    ['[[:word:]]', '', '_'],
    ['[(?<]', '', 'P'],
    ['a{,2}', '', 'a{,2}'],
    ['a{01}', '', 'a{01}'],
    ['\\Q/\\E', '', '/'],
    ['\\cJ', '', '\n'],
  ];
  it.each(cases)('%j with flags %j on %j', (source, flags, text) => {
    expect(compileRegex(source, flags).test(text)).toBe(re2(source, flags, text));
    const { jsSource } = analyseRegex(source, flags);
    if (jsSource !== null) expect(new RegExp(jsSource, 'u').test(text)).toBe(re2(source, flags, text));
  });

  it('most of these are on the fast path', () => {
    const fast = cases.filter(([source, flags]) => isFast(source, flags));
    expect(fast.length).toBeGreaterThan(cases.length * 0.8);
  });

  it('tests the same first MAX_REGEX_INPUT code units', () => {
    expect(isFast('NEEDLE')).toBe(true);
    expect(compileRegex('NEEDLE', '').test('a'.repeat(MAX_REGEX_INPUT) + 'NEEDLE')).toBe(false);
    expect(compileRegex('a$', '').test('a'.repeat(MAX_REGEX_INPUT - 1) + '😀')).toBe(true);
  });
});

describe('fast-path regexes on long inputs', () => {
  const within = (source: string, text: string, expected: boolean): void => {
    expect(isFast(source)).toBe(true);
    const started = Date.now();
    expect(compileRegex(source, '').test(text)).toBe(expected);
    // linear: a few milliseconds per megabyte; a quadratic search would take hours
    expect(Date.now() - started).toBeLessThan(2000);
  };

  it('stay linear where a careless pattern would backtrack', () => {
    within('x\\s*y', 'x' + ' '.repeat(1_000_000), false);
    within('\\bfoo\\s+bar', ('foo' + ' '.repeat(50)).repeat(20_000), false);
    within('(?:^|\\s)--force\\b', ' '.repeat(1_000_000) + '--forced', false);
    within('a[^a\\n]*\\n', 'a' + 'b'.repeat(1_000_000), false);
    within('(?m)^export\\s+[A-Z_]+=', ('export ' + 'A'.repeat(40) + '\n').repeat(20_000), false);
    within('rm\\s+-rf', ('rm' + ' '.repeat(30)).repeat(30_000) + 'rm -rf', true);
  }, 60_000);
});
