import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseRegex, re2WasmPattern, isWellFormedText, type RegexNode } from './regex-parse.js';
import type { CharSet } from './regex-charset.js';

function parse(source: string, flags = ''): RegexNode {
  const result = parseRegex(source, flags);
  if (!result.ok) throw new Error(`not analysable: ${result.why}`);
  return result.node;
}

/** The set of a pattern made of one character class. */
function setOf(source: string, flags = ''): CharSet | null {
  const node = parse(source, flags);
  if (node.kind !== 'chars') throw new Error(`not a single class: ${node.kind}`);
  return node.set;
}

function why(source: string, flags = ''): string | null {
  const result = parseRegex(source, flags);
  return result.ok ? null : result.why;
}

describe('re2WasmPattern', () => {
  it('repeats the rewrites re2-wasm makes before RE2 parses', () => {
    expect(re2WasmPattern('', false)).toBe('(?:)');
    expect(re2WasmPattern('a/b', false)).toBe('a\\/b');
    expect(re2WasmPattern('a\\/b', false)).toBe('a\\/b');
    expect(re2WasmPattern('\\u0041\\u{1F600}', false)).toBe('\\x{0041}\\x{1F600}');
    expect(re2WasmPattern('\\cJ\\ca', false)).toBe('\\x0A\\x00');
    expect(re2WasmPattern('(?<n>x)(?<=y)', false)).toBe('(?P<n>x)(?<=y)');
    expect(re2WasmPattern('[(?<]', false)).toBe('[(?P<]');
    expect(re2WasmPattern('^a$', true)).toBe('(?m)^a$');
  });
});

describe('parseRegex: what RE2 parses', () => {
  it('reads literals and concatenations', () => {
    expect(parse('ab')).toEqual({
      kind: 'concat',
      items: [
        { kind: 'chars', set: [0x61, 0x61] },
        { kind: 'chars', set: [0x62, 0x62] },
      ],
    });
    expect(setOf('😀')).toEqual([0x1f600, 0x1f600]);
    expect(setOf('\\x{1F600}')).toEqual([0x1f600, 0x1f600]);
  });

  it('spells out the dot, Perl and POSIX classes as RE2 defines them', () => {
    expect(setOf('.')).toEqual([0, 9, 11, 0x10ffff]);
    expect(setOf('.', 's')).toEqual([0, 0x10ffff]);
    expect(parse('(?s:.)')).toEqual({ kind: 'group', item: { kind: 'chars', set: [0, 0x10ffff] } });
    expect(setOf('\\s')).toEqual([9, 10, 12, 13, 32, 32]);
    expect(setOf('[[:space:]]')).toEqual([9, 13, 32, 32]);
    expect(setOf('\\d')).toEqual([0x30, 0x39]);
    expect(setOf('\\w')).toEqual([0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);
    expect(setOf('\\D')).toEqual([0, 0x2f, 0x3a, 0x10ffff]);
    expect(setOf('[^\\n]')).toEqual([0, 9, 11, 0x10ffff]);
  });

  it('reads class syntax: leading `]`, `-` at the ends, ranges and escapes', () => {
    expect(setOf('[]a]')).toEqual([0x5d, 0x5d, 0x61, 0x61]);
    expect(setOf('[a-]')).toEqual([0x2d, 0x2d, 0x61, 0x61]);
    expect(setOf('[a-c-e]')).toEqual([0x2d, 0x2d, 0x61, 0x63, 0x65, 0x65]);
    expect(setOf('[\\d_-]')).toEqual([0x2d, 0x2d, 0x30, 0x39, 0x5f, 0x5f]);
    expect(setOf('[\\x41-\\x43]')).toEqual([0x41, 0x43]);
    expect(setOf('[[:x]')).toEqual([0x3a, 0x3a, 0x5b, 0x5b, 0x78, 0x78]);
    // re2-wasm turns `(?<` into `(?P<` even inside a class
    expect(setOf('[(?<]')).toEqual([0x28, 0x28, 0x3c, 0x3c, 0x3f, 0x3f, 0x50, 0x50]);
  });

  it('folds ASCII case with the Kelvin sign and the long s, as RE2 does', () => {
    expect(setOf('a', 'i')).toEqual([0x41, 0x41, 0x61, 0x61]);
    expect(setOf('k', 'i')).toEqual([0x4b, 0x4b, 0x6b, 0x6b, 0x212a, 0x212a]);
    expect(setOf('(?i)S')).toEqual([0x53, 0x53, 0x73, 0x73, 0x17f, 0x17f]);
    expect(setOf('(?i)[^k]')).toEqual([0, 0x4a, 0x4c, 0x6a, 0x6c, 0x2129, 0x212b, 0x10ffff]);
    // a negated group under folding is the complement of the folded group
    expect(setOf('(?i)\\W')).toEqual([0, 0x2f, 0x3a, 0x40, 0x5b, 0x5e, 0x60, 0x60, 0x7b, 0x17e, 0x180, 0x2129, 0x212b, 0x10ffff]);
    expect(parseRegex('(?i)a', '')).toMatchObject({ ok: true, foldUsed: true });
    expect(parseRegex('(?i)1', '')).toMatchObject({ ok: true, foldUsed: false });
  });

  it('leaves Unicode classes and folded non-ASCII characters unspelled', () => {
    expect(setOf('\\pL')).toBeNull();
    expect(setOf('\\p{Greek}')).toBeNull();
    expect(setOf('[a\\PL]')).toBeNull();
    expect(setOf('é', 'i')).toBeNull();
    expect(setOf('[é]', 'i')).toBeNull();
    expect(setOf('é')).toEqual([0xe9, 0xe9]);
  });

  it('treats a `{` that does not start a count as a literal', () => {
    expect(parse('a{,3}')).toMatchObject({ kind: 'concat', items: [{}, { set: [0x7b, 0x7b] }, {}, {}, {}] });
    expect(parse('a{01}')).toMatchObject({ kind: 'concat' });
    expect(parse('a{1,2}')).toEqual({ kind: 'repeat', min: 1, max: 2, item: { kind: 'chars', set: [0x61, 0x61] } });
    expect(parse('a{2,}?')).toMatchObject({ kind: 'repeat', min: 2, max: Infinity });
  });

  it('applies a repetition to the last character only', () => {
    expect(parse('ab*')).toMatchObject({ kind: 'concat', items: [{ kind: 'chars' }, { kind: 'repeat', min: 0, item: { set: [0x62, 0x62] } }] });
    expect(parse('\\Qa.\\E+')).toMatchObject({ kind: 'concat', items: [{ set: [0x61, 0x61] }, { kind: 'repeat', item: { set: [0x2e, 0x2e] } }] });
  });

  it('scopes inline flags to the enclosing group, across `|`', () => {
    // (?i) before `|` still applies to the next alternative
    expect(parse('(?:(?i)a|b)B')).toMatchObject({
      kind: 'concat',
      items: [{ kind: 'group', item: { kind: 'alt', alts: [{ set: [0x41, 0x41, 0x61, 0x61] }, { set: [0x42, 0x42, 0x62, 0x62] }] } }, { set: [0x42, 0x42] }],
    });
    expect(setOf('(?i-i)a')).toEqual([0x61, 0x61]);
    expect(parse('(?i:a)b')).toMatchObject({ items: [{ kind: 'group', item: { set: [0x41, 0x41, 0x61, 0x61] } }, { set: [0x62, 0x62] }] });
  });

  it('distinguishes text and line anchors', () => {
    expect(parse('^$')).toMatchObject({ items: [{ assert: 'beginText' }, { assert: 'endText' }] });
    expect(parse('^$', 'm')).toMatchObject({ items: [{ assert: 'beginLine' }, { assert: 'endLine' }] });
    expect(parse('(?m)^(?-m:$)')).toMatchObject({ items: [{ assert: 'beginLine' }, { kind: 'group', item: { assert: 'endText' } }] });
    expect(parse('\\A\\z', 'm')).toMatchObject({ items: [{ assert: 'beginText' }, { assert: 'endText' }] });
    expect(parse('\\b\\B')).toMatchObject({ items: [{ assert: 'wordBoundary' }, { assert: 'notWordBoundary' }] });
  });

  it('reads escapes: octal, hex, control and punctuation', () => {
    expect(setOf('\\0')).toEqual([0, 0]);
    expect(setOf('\\012')).toEqual([10, 10]);
    expect(setOf('\\x{212a}')).toEqual([0x212a, 0x212a]);
    expect(setOf('\\v')).toEqual([11, 11]);
    expect(setOf('\\_')).toEqual([0x5f, 0x5f]);
    expect(parse('\\Q/\\E')).toMatchObject({ items: [{ set: [0x5c, 0x5c] }, { set: [0x2f, 0x2f] }] });
  });

  it('reads named and capturing groups', () => {
    expect(parse('(?P<a>x)(?<b>y)(z)')).toMatchObject({ kind: 'concat', items: [{ kind: 'group' }, { kind: 'group' }, { kind: 'group' }] });
    const node = parse('(?P<a>x)(?<b>y)(z)');
    expect(node.kind === 'concat' && node.items.map((g) => (g.kind === 'group' ? (g.name ?? null) : g.kind))).toEqual(['a', 'b', null]);
  });

  it('gives each set and assertion its span in the source, through re2-wasm\'s rewrites', () => {
    const source = 'a/\\u0041[(?<]\\b\\Qx/\\E$';
    const result = parseRegex(source, 'm');
    if (!result.ok) throw new Error(result.why);
    const texts = [...result.spans.values()].map(({ start, end }) => source.slice(start, end));
    // re2-wasm escapes the `/` inside `\\Q...\\E` too, where RE2 reads `\\/` as two characters
    expect(texts.sort()).toEqual(['$', '/', '/', '/', '[(?<]', '\\b', '\\u0041', 'a', 'x'].sort());
  });
});

describe('parseRegex: not analysable', () => {
  it('reports what it does not follow instead of throwing', () => {
    expect(why('\\C')).toMatch(/bytes/u);
    expect(why('a(?i)*')).toMatch(/repetition/u);
    expect(why('(a)\\1')).toMatch(/backreference/u);
    expect(why('(?=a)')).toMatch(/group syntax/u);
    expect(why('\\x{D800}')).toMatch(/surrogate/u);
    expect(why('a\ud800')).toMatch(/surrogate/u);
    expect(why('a', 'g')).toMatch(/flags/u);
    expect(why('a', 'ii')).toMatch(/flags/u);
    expect(why('('.repeat(200) + ')'.repeat(200))).toMatch(/nest/u);
    expect(why('a{1001}')).toMatch(/count/u);
    expect(why('a**')).toMatch(/stacked/u);
    expect(why('*a')).toMatch(/operand/u);
    expect(why('a)')).toMatch(/\)/u);
    expect(why('[a')).toMatch(/\]/u);
    expect(why('[[:foo:]]')).toMatch(/class name/u);
  });

  it('never throws, whatever the input', () => {
    const special = fc.constantFrom('(', ')', '(?', '(?i)', '[', ']', '[:', ':]', '\\', '\\Q', '\\E', '{', '}', '{2,', '*', '+', '?', '|', '^', '$', '-', 'a', 'é', '😀', '\ud800', '\\p', '\\x{', '1');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(special, { maxLength: 20 }).map((p) => p.join(''))), fc.string({ maxLength: 4 }), (source, flags) => {
        const result = parseRegex(source, flags);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 3000 },
    );
  }, 60_000);
});

describe('isWellFormedText', () => {
  it('rejects unpaired surrogates only', () => {
    expect(isWellFormedText('a😀b')).toBe(true);
    expect(isWellFormedText('a\ud83d')).toBe(false);
    expect(isWellFormedText('\ude00a')).toBe(false);
    expect(isWellFormedText('\ud83d\ud83d\ude00')).toBe(false);
  });
});
