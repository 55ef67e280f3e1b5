/**
 * Generators of RE2 patterns and of texts likely to tell engines apart, for the differential
 * properties (regex-differential.test.ts, backend-re2js.test.ts), and a way to run one engine
 * directly. Test support only: nothing outside tests imports it.
 */
import fc from 'fast-check';
import type { RegexBackend } from './backend.js';

/**
 * An engine's answers for one pattern, compiled once for several texts: `test` is null when the
 * engine rejects the pattern. The compiled pattern is freed afterwards (re2-wasm's heap is small);
 * an engine that cannot decide (out of memory) makes the test fail.
 */
export function withEngine<T>(engine: RegexBackend, source: string, flags: string, use: (test: ((text: string) => boolean) | null) => T): T {
  const compiled = engine.compile(source, flags);
  if (!compiled.ok) {
    if (compiled.error.transient === true) throw new Error(`${engine.name} failed on /${source}/${flags}: ${compiled.error.message}`);
    return use(null);
  }
  try {
    return use((text) => compiled.pattern.test(text));
  } finally {
    compiled.pattern.free();
  }
}

/** A generated pattern piece: its RE2 source and a string it is likely to match. */
export interface Piece {
  readonly src: string;
  readonly ex: string;
}

export const TRICKY = ['\n', '\r', '\r\n', '\u2028', '\u2029', '\u017f', '\u212a', 'K', 'k', 'S', 's', '\u03a3', '\u03c3', '\u03c2', '😀', '\u{10400}', '_', '0', '7', ' ', '\t', '\v', 'é', 'É', '-', '#', 'İ', 'ı'];

const literalPiece: fc.Arbitrary<Piece> = fc.oneof(
  fc.constantFrom('a', 'b', 'k', 's', 'x', 'K', 'S', 'X', '0', '9', '_', ' ', '-', '#', '=', ':', ',', 'é', 'σ', 'Σ', 'ſ', '😀').map((c) => ({ src: c, ex: c })),
  fc.constantFrom(
    { src: '\\.', ex: '.' },
    { src: '\\-', ex: '-' },
    { src: '\\n', ex: '\n' },
    { src: '\\t', ex: '\t' },
    { src: '\\x41', ex: 'A' },
    { src: '\\x{17F}', ex: '\u017f' },
    { src: '\\x{212a}', ex: '\u212a' },
    { src: '\\u0073', ex: 's' },
    { src: '\\u{1F600}', ex: '😀' },
    { src: '\\Qa.b\\E', ex: 'a.b' },
    { src: '\\Q/\\E', ex: '\\/' },
    { src: '\\012', ex: '\n' },
    { src: '\\0', ex: '\0' },
    { src: '/', ex: '/' },
    { src: '{', ex: '{' },
    { src: 'x{01}', ex: 'x{01}' },
    { src: ']', ex: ']' },
    { src: '\\cJ', ex: '\n' },
  ),
  fc.constantFrom('ab', 'ks', 'secret', 'Key', 'rm', 'git', 'push').map((w) => ({ src: w, ex: w })),
);

const classPiece: fc.Arbitrary<Piece> = fc.constantFrom(
  { src: '.', ex: 'a' },
  { src: '\\d', ex: '5' },
  { src: '\\D', ex: 'x' },
  { src: '\\s', ex: ' ' },
  { src: '\\S', ex: 'q' },
  { src: '\\w', ex: '_' },
  { src: '\\W', ex: '\u017f' },
  { src: '[abc]', ex: 'b' },
  { src: '[^a-z]', ex: 'K' },
  { src: '[a-z]', ex: 's' },
  { src: '[ks]', ex: 'S' },
  { src: '[^ks]', ex: '\u212a' },
  { src: '[[:alpha:]]', ex: 'Q' },
  { src: '[[:^space:]]', ex: 'x' },
  { src: '[[:punct:]]', ex: '-' },
  { src: '[\\d_-]', ex: '-' },
  { src: '[^\\n]', ex: '\r' },
  { src: '[\\x{212A}]', ex: 'k' },
  { src: '[a-]', ex: '-' },
  { src: '[]a]', ex: ']' },
  { src: '[^\\W]', ex: 'k' },
  { src: '[\\s\\S]', ex: '\n' },
  { src: '[(?<]', ex: 'P' },
  { src: '\\p{Greek}', ex: 'σ' },
  { src: '[σς]', ex: 'Σ' },
  { src: '[😀-😂]', ex: '😁' },
);

const assertPiece: fc.Arbitrary<Piece> = fc.constantFrom(
  { src: '^', ex: '' },
  { src: '$', ex: '' },
  { src: '\\b', ex: '' },
  { src: '\\B', ex: '' },
  { src: '\\A', ex: '' },
  { src: '\\z', ex: '' },
);

const quantifier = fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '{0,2}', '{2,}', '*?', '+?', '??');

function repeatExample(ex: string, q: string, pick: number): string {
  const min = q.startsWith('+') || q === '{1,3}' ? 1 : q === '{2}' || q === '{2,}' ? 2 : 0;
  return ex.repeat(min + (pick % 2));
}

const { piece } = fc.letrec<{ piece: Piece; atom: Piece; seq: Piece }>((tie) => ({
  atom: fc.oneof(
    { maxDepth: 2, depthIdentifier: 'group' },
    { weight: 5, arbitrary: literalPiece },
    { weight: 4, arbitrary: classPiece },
    { weight: 2, arbitrary: assertPiece },
    {
      weight: 2,
      arbitrary: fc
        .tuple(tie('piece'), fc.constantFrom('(', '(?:', '(?i:', '(?-i:', '(?s:', '(?m:', '(?P<g>', '(?<h>', '(?i)(?:'))
        .map(([inner, open]) => ({ src: `${open}${inner.src})`, ex: inner.ex })),
    },
  ),
  seq: fc
    .array(
      fc.tuple(tie('atom'), fc.option(quantifier, { freq: 3 }), fc.nat(3)).map(([a, q, pick]) =>
        q === null || a.src.startsWith('\\b') || a.src.startsWith('\\B') || '^$'.includes(a.src) || a.src.startsWith('\\A') || a.src.startsWith('\\z')
          ? a
          : { src: a.src + q, ex: repeatExample(a.ex, q, pick) },
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((items) => ({ src: items.map((i) => i.src).join(''), ex: items.map((i) => i.ex).join('') })),
  piece: fc.oneof(
    { weight: 4, arbitrary: tie('seq') },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.array(tie('seq'), { minLength: 2, maxLength: 3 }), fc.nat(2)).map(([alts, pick]) => ({
        src: alts.map((a) => a.src).join('|'),
        ex: alts[pick % alts.length]!.ex,
      })),
    },
  ),
}));

export const pattern = fc
  .tuple(piece, fc.constantFrom('', '', '', '(?i)', '(?m)', '(?s)', '(?i)(?m)'), fc.constantFrom('', '', 'i', 'm', 's', 'im', 'is', 'ms', 'ims'))
  .map(([p, prefix, flags]) => ({ source: prefix + p.src, flags, ex: p.ex }));

/** The example with one code point replaced by, or preceded by, a tricky character. */
function mutated(ex: string): fc.Arbitrary<string> {
  const points = Array.from(ex);
  return fc.tuple(fc.nat(points.length), fc.constantFrom(...TRICKY), fc.boolean()).map(([i, t, replace]) =>
    [...points.slice(0, i), t, ...points.slice(replace ? i + 1 : i)].join(''),
  );
}

/** Texts built from the pattern's example, its case variants and mutations, tricky characters and noise. */
export function textFor(ex: string): fc.Arbitrary<string> {
  const part = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(ex, ex.toUpperCase(), ex.toLowerCase(), ex.replace(/s/gu, '\u017f').replace(/k/giu, '\u212a')) },
    { weight: 3, arbitrary: mutated(ex) },
    { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
    { weight: 2, arbitrary: fc.string({ maxLength: 4 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
  );
  return fc.array(part, { maxLength: 5 }).map((parts) => parts.join(''));
}

export const cases = pattern.chain((p) => fc.tuple(fc.constant(p), fc.array(textFor(p.ex), { minLength: 1, maxLength: 8 })));


/** Tokens of RE2 syntax in any order: where a parser meets odd syntax. */
export const SOUP_TOKEN = fc.constantFrom(
  '(', ')', '(?:', '(?i)', '(?-i:', '(?m)', '(?s)', '[', ']', '[^', '[:alpha:]', '[:^digit:]', '\\', '\\Q', '\\E', '{', '}',
  '{2}', '{1,}', '{,2}', '{01}', '*', '+', '?', '|', '^', '$', '-', '.', 'a', 'k', 'S', 'é', '😀', '\\b', '\\B', '\\s', '\\w', '\\W',
  '\\d', '\\x41', '\\x{17f}', '\\u004B', '\\0', '\\cJ', '/', ':', '_', ' ', '\\n',
);

/** Texts for a pattern made of soup tokens: itself, parts of it, and tricky characters. */
export function soupTexts(tokens: readonly string[]): string[] {
  return [tokens.join(''), tokens.slice(1).join(''), tokens.map((t) => t.replace(/\\/gu, '')).join(''), 'aK\u212a\u017fS\n\r é_😀 ', ''];
}
