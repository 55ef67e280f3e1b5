import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { regexMatches } from '../../engine/index.js';
import { stableStringify } from './evaluate.js';
import { badReason, checkJsRegex, isSafeForGemini, parseJsRegex, re2Difference, staysInMember, toRe2, trimEdges } from './jsregex.js';

const re2Of = (js: string) => {
  const r = toRe2(trimEdges(parseJsRegex(js)));
  return r.ok ? r.source : `!${r.why}`;
};

describe('JavaScript regexes in RE2', () => {
  it('writes the constructs whose meaning differs', () => {
    expect(re2Of('a\\sb')).toBe('a[\\s\\v\\p{Zs}\\x{2028}\\x{2029}\\x{FEFF}]b');
    expect(re2Of('a.b')).toBe('a[^\\n\\r\\x{2028}\\x{2029}]b');
    expect(re2Of('y[^"]*x')).toBe('y[^"]*x');
    expect(re2Of('(git|npm) x')).toBe('(?:git|npm) x');
    expect(re2Of('x{,5}')).toBe('x\\{,5\\}');
    expect(re2Of('\\cJ\\x41\\u0042\\101\\8')).toBe('\\nABA8');
    expect(re2Of('(😀)+')).toBe('(?:\\x{1F600})+');
    expect(re2Of('"command":"rm .*')).toBe('"command":"rm ');
  });

  it('reports what RE2 cannot run', () => {
    expect(re2Of('a(?=b)')).toBe('!a lookaround, which RE2 does not have');
    expect(re2Of('(a)\\1')).toBe('!a backreference, which RE2 does not have');
    expect(re2Of('(?<n>a)\\k<n>')).toBe('!a backreference, which RE2 does not have');
    expect(re2Of('a{1001}')).toBe('!a repetition count above 1000, which RE2 does not allow');
    expect(re2Of('😀+')).toBe('!a class of some surrogate code units, which RE2 cannot say');
    expect(re2Of('\\1')).toBe('\\x{1}');
  });

  it('follows gemini cli on invalid and unsafe regexes', () => {
    expect(checkJsRegex('git (push')).toEqual({ ok: false, message: 'unterminated group' });
    expect(checkJsRegex('(?i:a)').ok).toBe(false);
    expect(isSafeForGemini('(a+)+')).toBe(false);
    expect(isSafeForGemini('(a|b)*')).toBe(true);
    expect(isSafeForGemini('x'.repeat(2049))).toBe(false);
  });

  it('tells a match that stays inside one member of the JSON', () => {
    const inside = (js: string) => staysInMember(trimEdges(parseJsRegex(js)));
    expect(inside('"file_path":"[^"]*\\.env"')).toBe(true);
    expect(inside('"command":"rm ')).toBe(true);
    expect(inside('"file_path":".*\\.env"')).toBe(false);
    expect(inside('a,b')).toBe(false);
    expect(inside('"command":"git.*--force')).toBe(false);
  });
});

const ATOMS = [
  'a', 'b', '"', ',', '{', '}', ' ', '😀', '\\s', '\\S', '\\d', '\\w', '\\W', '\\D', '.', '[^a]', '[a-c]', '[\\s,]', '\\b', '\\B',
  '^', '$', '\\u00a0', '\\x41', '\\n', '[^"]', '\\.', '1', 'A',
];
const QUANTS = ['', '', '', '*', '+', '?', '{2}', '{1,3}', '*?', '{0,}'];

const regexArb: fc.Arbitrary<string> = fc.letrec<{ alt: string; seq: string; item: string }>((tie) => ({
  item: fc.oneof(
    { depthSize: 'small' },
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTS)).map(([a, q]) => a + q) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('(', '(?:'), tie('alt'), fc.constantFrom(...QUANTS)).map(([o, b, q]) => `${o}${b})${q}`) },
  ),
  seq: fc.array(tie('item'), { minLength: 1, maxLength: 4 }).map((xs) => xs.join('')),
  alt: fc.oneof({ weight: 3, arbitrary: tie('seq') }, { weight: 1, arbitrary: fc.tuple(tie('seq'), tie('seq')).map(([a, b]) => `${a}|${b}`) }),
})).alt.filter((s) => checkJsRegex(s).ok && isSafeForGemini(s));

const CHARS = ['a', 'b', '"', ',', '{', '}', ' ', '😀', '\u00a0', '\n', '\r', '\u2028', 'A', '1', '_', '\t', '\v', '\ufeff', ':'];
const textArb = fc.array(fc.constantFrom(...CHARS), { maxLength: 10 }).map((a) => a.join(''));

describe('the RE2 form matches what JavaScript matches', () => {
  it('on random regexes and texts, wherever no difference is reported', () => {
    let checked = 0;
    fc.assert(
      fc.property(regexArb, fc.array(textArb, { minLength: 5, maxLength: 5 }), (js, texts) => {
        const tree = parseJsRegex(js);
        if (badReason(tree) !== undefined) return;
        const r = toRe2(trimEdges(tree));
        if (!r.ok || re2Difference(trimEdges(tree)) !== undefined) return;
        checked++;
        const re = new RegExp(js);
        for (const t of texts) expect(regexMatches(r.source, '', t), `/${js}/ as /${r.source}/ on ${JSON.stringify(t)}`).toBe(re.test(t));
      }),
      { numRuns: 3000 },
    );
    expect(checked).toBeGreaterThan(500);
  }, 120_000);

  it('finds a match in the JSON of an object whatever the order of its keys, when it stays inside one member', () => {
    const KEYS = ['a', 'command', 'file_path', 'x"y'];
    const objectArb = fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), textArb), { selector: ([k]) => k, minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(regexArb, objectArb, fc.array(fc.nat(), { minLength: 4, maxLength: 4 }), (js, entries, order) => {
        const t = trimEdges(parseJsRegex(js));
        if (!staysInMember(t)) return;
        const permuted = entries.map((e, i) => [order[i]! * 8 + i, e] as const).sort((a, b) => a[0] - b[0]).map(([, e]) => e);
        const re = new RegExp(js);
        expect(re.test(JSON.stringify(Object.fromEntries(permuted))), js).toBe(re.test(stableStringify(Object.fromEntries(entries))));
      }),
      { numRuns: 2000 },
    );
  }, 120_000);
});
