/**
 * The re2js backend against re2-wasm (RE2 itself): on generated patterns and texts the two accept
 * the same patterns and find the same matches, except for the divergences backend-re2js.ts lists,
 * each of which is checked here to be what it says and nothing more.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { re2jsBackend } from './backend-re2js.js';
import { re2WasmBackend } from './backend-re2wasm.js';
import { checkRegex, compileRegex, regexPlan } from './regex.js';
import { analyseRegex } from './regex-fast.js';
import { isWellFormedText, parseRegex, type RegexNode } from './regex-parse.js';
import { cases, soupTexts, SOUP_TOKEN, withEngine } from './regex-testkit.js';

const RUNS = Number(process.env.REGEX_DIFF_RUNS ?? 1000);
const TIMEOUT = 120_000 + RUNS * 100;

function hasNotWordBoundary(node: RegexNode): boolean {
  switch (node.kind) {
    case 'chars':
      return false;
    case 'assert':
      return node.assert === 'notWordBoundary';
    case 'group':
    case 'repeat':
      return hasNotWordBoundary(node.item);
    case 'concat':
      return node.items.some(hasNotWordBoundary);
    case 'alt':
      return node.alts.some(hasNotWordBoundary);
  }
}

/** Whether the pattern may hold `\B` (the tree says so, or it could not be read). */
function mayHaveNotWordBoundary(source: string, flags: string): boolean {
  const parsed = parseRegex(source, flags);
  return parsed.ok ? hasNotWordBoundary(parsed.node) : source.includes('\\B');
}

/** Why the two engines may answer differently on this text, or null when they must agree. */
function documentedDivergence(source: string, flags: string, text: string): string | null {
  if (!isWellFormedText(text)) return 'unpaired surrogate in the text';
  // eslint-disable-next-line no-control-regex
  if (/[^\u0000-\u007f]/u.test(text) && mayHaveNotWordBoundary(source, flags)) return '`\\B` inside a character outside ASCII';
  return null;
}

/** Compares the engines on one pattern and its texts; returns the divergences met. */
function compare(source: string, flags: string, texts: readonly string[], seen: Map<string, number>): void {
  withEngine(re2WasmBackend, source, flags, (re2) =>
    withEngine(re2jsBackend, source, flags, (js) => {
      // `\C` (one byte) is RE2's only: re2js rejects what re2-wasm accepts.
      if (re2 !== null && js === null && source.includes('\\C')) {
        seen.set('`\\C`', (seen.get('`\\C`') ?? 0) + 1);
        return;
      }
      expect({ source, flags, accepted: js !== null }).toEqual({ source, flags, accepted: re2 !== null });
      if (re2 === null || js === null) return;
      for (const text of texts) {
        const [a, b] = [re2(text), js(text)];
        if (a === b) continue;
        const why = documentedDivergence(source, flags, text);
        expect({ source, flags, text, re2: a, re2js: b, documented: why !== null }).toEqual({ source, flags, text, re2: a, re2js: b, documented: true });
        seen.set(why!, (seen.get(why!) ?? 0) + 1);
      }
    }),
  );
}

describe('re2js and re2-wasm agree', () => {
  it(
    'on generated patterns and texts, except where a documented divergence applies',
    () => {
      const seen = new Map<string, number>();
      let compared = 0;
      fc.assert(
        fc.property(cases, ([{ source, flags }, texts]) => {
          compared++;
          compare(source, flags, texts, seen);
        }),
        { numRuns: RUNS },
      );
      expect(compared).toBe(RUNS);
    },
    TIMEOUT,
  );

  it(
    'on texts with unpaired surrogates and characters outside ASCII, except where a documented divergence applies',
    () => {
      const seen = new Map<string, number>();
      const odd = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\u00e9', '\u00a0', '\u212a');
      const spiced = cases.chain(([p, texts]) =>
        fc.tuple(
          fc.constant(p),
          fc.array(fc.tuple(fc.constantFrom(...texts), fc.nat(), odd).map(([t, at, c]) => t.slice(0, at % (t.length + 1)) + c + t.slice(at % (t.length + 1))), { minLength: 1, maxLength: 8 }),
        ),
      );
      let jsChecked = 0;
      fc.assert(
        fc.property(spiced, ([{ source, flags }, texts]) => {
          compare(source, flags, texts, seen);
          // On an unpaired surrogate re2js answers as the fast path's JavaScript `u` RegExp does.
          const { jsSource } = analyseRegex(source, flags);
          if (jsSource === null) return;
          const js = new RegExp(jsSource, 'u');
          withEngine(re2jsBackend, source, flags, (re2js) => {
            if (re2js === null) return;
            for (const text of texts) {
              if (isWellFormedText(text)) continue;
              jsChecked++;
              expect({ source, flags, text, re2js: re2js(text) }).toEqual({ source, flags, text, re2js: js.test(text) });
            }
          });
        }),
        { numRuns: RUNS },
      );
      // texts with unpaired surrogates are met, so the comparison above does look at them
      expect(seen.get('unpaired surrogate in the text') ?? 0).toBeGreaterThan(0);
      expect(jsChecked).toBeGreaterThan(RUNS / 4);
    },
    TIMEOUT,
  );

  it(
    'on token soup, including which patterns are accepted',
    () => {
      const seen = new Map<string, number>();
      fc.assert(
        fc.property(fc.array(SOUP_TOKEN, { minLength: 1, maxLength: 8 }), fc.constantFrom('', 'i', 'm', 's', 'ims'), (tokens, flags) => {
          compare(tokens.join(''), flags, soupTexts(tokens), seen);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it('on the error messages and offsets of invalid patterns', () => {
    const invalid = ['xy(a(b)z', 'ab)cd', 'ab[cd]ef[gh', 'x\\Zy', 'ab|*', 'xy+*z', 'ab{2,1}', '(?:a{1000}){1000}', 'x[z-a]', 'ab\\', '[(?<]x(?<=a)b', 'a(?=b)', '(a)(b)\\2', '(?<n>x)\\k<n>', 'a/b/c(?<=x)', 'ab(?<>x)', 'a(?>b)', '(?<n>a)(?<n>b)', '\\p{Foo}', '[[:foo:]]'];
    for (const source of invalid) {
      const wasm = re2WasmBackend.compile(source, '');
      const js = re2jsBackend.compile(source, '');
      expect({ source, error: js.ok ? null : js.error }).toEqual({ source, error: wasm.ok ? null : wasm.error });
    }
  });
});

describe('the documented divergences', () => {
  it('re2js reads texts as code points: `\\B` never holds inside a character', () => {
    for (const text of ['a\u00e9b', 'a\u00a0a', 'a😀a']) {
      expect(withEngine(re2WasmBackend, '\\B', '', (t) => t!(text))).toBe(true);
      expect(withEngine(re2jsBackend, '\\B', '', (t) => t!(text))).toBe(false);
    }
    // as in a JavaScript `u` RegExp, between characters of the basic multilingual plane
    expect(/\B/u.test('a\u00e9b')).toBe(false);
    expect(compileRegex('\\B', '').test('a\u00e9b')).toBe(false);
    expect(compileRegex('\\B', '').test('ab')).toBe(true);
  });

  it('re2js reads an unpaired surrogate of a text as one character, as a JavaScript `u` RegExp does', () => {
    const texts = ['a\ud800c', 'a\udc00c', '\ud800ab', 'x\ud800abc', '\udc00\ud800'];
    for (const [source, js] of [['a.c', /a.c/u], ['ab', /ab/u], ['^.{2}$', /^.{2}$/u], ['\\S\\S', /\S\S/u], ['[^a]c', /[^a]c/u]] as const) {
      for (const text of texts) {
        expect({ source, text, re2js: withEngine(re2jsBackend, source, '', (t) => t!(text)) }).toEqual({ source, text, re2js: js.test(text) });
      }
    }
    // re2-wasm garbles them: a high surrogate swallows the next code unit, a low one matches nothing
    expect(withEngine(re2WasmBackend, 'ab', '', (t) => t!('\ud800ab'))).toBe(false);
    expect(withEngine(re2WasmBackend, 'a.c', '', (t) => t!('a\udc00c'))).toBe(false);
    // what the matcher answers, fast path or not, is re2js's
    expect(regexPlan('ab', '').fast).toBe(true);
    expect(compileRegex('ab', '').test('\ud800ab')).toBe(true);
    expect(compileRegex('a.c', '').test('a\udc00c')).toBe(true);
  });

  it('`\\C` does not exist in re2js, and its syntax tree is at most 1000 deep', () => {
    expect(withEngine(re2WasmBackend, 'a\\Cb', '', (t) => t !== null)).toBe(true);
    expect(checkRegex('a\\Cb', '')).toEqual({ message: 'invalid escape sequence `\\C`', offset: 1 });
    const deep = (n: number) => '('.repeat(n) + 'a' + ')'.repeat(n);
    expect(withEngine(re2WasmBackend, deep(1001), '', (t) => t !== null)).toBe(true);
    expect(checkRegex(deep(999), '')).toBeNull();
    expect(checkRegex(deep(1000), '')).toEqual({ message: 'expression nests too deeply', offset: 0 });
  });

  it('an unpaired surrogate in the pattern is invalid UTF-8 for re2js', () => {
    expect(checkRegex('a\ud800', '')).toEqual({ message: 'invalid utf-8 in regex', offset: 0 });
    expect(checkRegex('[\udc00]', '')).toEqual({ message: 'invalid utf-8 in regex', offset: 0 });
    expect(checkRegex('\\x{D800}', '')).toBeNull();
  });

  it('re2js knows Unicode added since re2-wasm, and has no 16 MB ceiling', () => {
    expect(withEngine(re2WasmBackend, '\\p{Kawi}', '', (t) => t !== null)).toBe(false);
    expect(withEngine(re2jsBackend, '\\p{Kawi}', '', (t) => t!('\u{11f00}'))).toBe(true);
    const noise = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    let wasm: ReturnType<typeof re2WasmBackend.compile>;
    try {
      wasm = re2WasmBackend.compile('\\pL{1000}', '');
    } finally {
      process.stderr.write = noise;
    }
    expect(wasm).toMatchObject({ ok: false, error: { transient: true } });
    expect(checkRegex('\\pL{1000}', '')).toBeNull();
    expect(compileRegex('\\pL{1000}', '').test('é'.repeat(1000))).toBe(true);
  });
});
