/**
 * Differential properties against the engines themselves: the fast path, the literal prefilter
 * and the literal scanner must give exactly what the engine in use (re2-wasm, which is RE2, and
 * re2js, the default) or `String.prototype.includes` gives.
 */
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { clearRegexCache, compileRegex, regexPlan, useRegexBackend } from './regex.js';
import { analyseRegex, factorAlternatives, fastSource } from './regex-fast.js';
import { isWellFormedText, parseRegex, type AssertKind, type RegexNode } from './regex-parse.js';
import { contains } from './regex-charset.js';
import { requiredLiteralOptions, requiredLiterals } from './regex-literals.js';
import { LiteralScanner } from './literal-scanner.js';
import { re2jsBackend } from './backend-re2js.js';
import { re2WasmBackend } from './backend-re2wasm.js';
import { cases, pattern, soupTexts, SOUP_TOKEN, TRICKY, withEngine } from './regex-testkit.js';

/** More runs for a deeper search: REGEX_DIFF_RUNS=20000 npx vitest run engine/regex/regex-differential.test.ts */
const RUNS = Number(process.env.REGEX_DIFF_RUNS ?? 1000);
const TIMEOUT = 120_000 + RUNS * 100;

for (const engine of [re2WasmBackend, re2jsBackend]) describe(`fast path and prefilter against ${engine.name}`, () => {
  beforeAll(() => useRegexBackend(engine));
  afterAll(() => useRegexBackend(re2jsBackend));
  const withRe2 = <T>(source: string, flags: string, use: (test: ((text: string) => boolean) | null) => T): T => withEngine(engine, source, flags, use);

  it(
    'compileRegex agrees with the engine on generated patterns and texts',
    () => {
      let runs = 0;
      let valid = 0;
      let fast = 0;
      let prefiltered = 0;
      let matched = 0;
      fc.assert(
        fc.property(cases, ([{ source, flags }, texts]) => {
          // compiled regexes stay cached in RE2's fixed-size heap; keep it from filling up
          if (++runs % 200 === 0) clearRegexCache();
          const matcher = compileRegex(source, flags);
          withRe2(source, flags, (re2) => {
            if (re2 === null) {
              for (const text of texts) expect(matcher.test(text)).toBe(false);
              return;
            }
            valid++;
            const plan = regexPlan(source, flags);
            if (plan.fast) fast++;
            if (plan.literals !== null) prefiltered++;
            for (const text of texts) {
              const expected = re2(text);
              if (expected) matched++;
              expect({ source, flags, text, result: matcher.test(text) }).toEqual({ source, flags, text, result: expected });
            }
          });
        }),
        // each run compiles the pattern twice in RE2, which is slow: fewer runs here
        { numRuns: Math.ceil(RUNS / 2) },
      );
      // The generator must exercise both shortcuts, and texts must match often enough.
      expect(fast).toBeGreaterThan(valid * 0.12);
      expect(prefiltered).toBeGreaterThan(valid * 0.1);
      expect(matched).toBeGreaterThan(RUNS / 4);
    },
    TIMEOUT,
  );

  it(
    'compileRegex agrees with the engine on token soup, where the parser meets odd syntax',
    () => {
      let fast = 0;
      let runs = 0;
      fc.assert(
        fc.property(fc.array(SOUP_TOKEN, { minLength: 1, maxLength: 8 }), fc.constantFrom('', 'i', 'm', 's', 'ims'), (tokens, flags) => {
          if (++runs % 300 === 0) clearRegexCache();
          const source = tokens.join('');
          withRe2(source, flags, (re2) => {
            if (re2 === null) return;
            if (regexPlan(source, flags).fast) fast++;
            const matcher = compileRegex(source, flags);
            const texts = soupTexts(tokens);
            for (const text of texts) expect({ source, flags, text, result: matcher.test(text) }).toEqual({ source, flags, text, result: re2(text) });
          });
        }),
        { numRuns: RUNS },
      );
      expect(fast).toBeGreaterThan(RUNS / 20);
    },
    TIMEOUT,
  );

  it(
    'the JavaScript translation alone agrees with the engine on well-formed texts',
    () => {
      let checked = 0;
      fc.assert(
        fc.property(cases, ([{ source, flags }, texts]) => {
          const { jsSource } = analyseRegex(source, flags);
          if (jsSource === null) return;
          const js = new RegExp(jsSource, 'u');
          withRe2(source, flags, (re2) => {
            if (re2 === null) return; // e.g. duplicate group names, which only RE2 checks
            for (const text of texts) {
              if (!isWellFormedText(text)) continue;
              const expected = re2!(text);
              expect({ source, flags, jsSource, text, result: js.test(text) }).toEqual({ source, flags, jsSource, text, result: expected });
              checked++;
            }
          });
        }),
        { numRuns: RUNS },
      );
      expect(checked).toBeGreaterThan(RUNS / 2);
    },
    TIMEOUT,
  );

  it(
    'whenever the engine matches, a required literal occurs in the text',
    () => {
      let withLiterals = 0;
      fc.assert(
        fc.property(cases, ([{ source, flags }, texts]) => {
          const required = requiredLiterals(source, flags);
          if (required === null) return;
          withRe2(source, flags, (re2) => {
            if (re2 === null) return;
            withLiterals++;
            for (const text of texts) {
              if (!re2(text)) continue;
              const haystack = required.folded ? text.toLowerCase() : text;
              const found = required.literals.some((l) => haystack.includes(l));
              expect({ source, flags, text, literals: required.literals, found }).toEqual({ source, flags, text, literals: required.literals, found: true });
            }
          });
        }),
        { numRuns: RUNS },
      );
      expect(withLiterals).toBeGreaterThan(RUNS / 10);
    },
    TIMEOUT,
  );

  it(
    'whenever the engine matches, every choice of required literals has one in the text',
    () => {
      let options = 0;
      fc.assert(
        fc.property(cases, ([{ source, flags }, texts]) => {
          const choices = requiredLiteralOptions(source, flags);
          if (choices.length === 0) return;
          withRe2(source, flags, (re2) => {
            if (re2 === null) return;
            options += choices.length;
            for (const text of texts) {
              if (!re2(text)) continue;
              for (const required of choices) {
                const haystack = required.folded ? text.toLowerCase() : text;
                const found = required.literals.some((l) => haystack.includes(l));
                expect({ source, flags, text, literals: required.literals, found }).toEqual({ source, flags, text, literals: required.literals, found: true });
              }
            }
          });
        }),
        { numRuns: RUNS },
      );
      expect(options).toBeGreaterThan(RUNS / 10);
    },
    TIMEOUT,
  );
});

describe('LiteralScanner against String.prototype.includes', () => {
  const alphabet = fc.constantFrom('a', 'b', 'A', 'B', 'ab', 'ba', '\u017f', '\ud800', '\udc00', '😀', 'é', '\n', 'k', 'K');
  const word = fc.array(alphabet, { maxLength: 4 }).map((parts) => parts.join(''));

  it('finds exactly the literals that occur', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), fc.array(fc.oneof(word, fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 12 }), fc.boolean(), (literals, parts, fold) => {
        const text = parts.join('');
        const scanner = new LiteralScanner(literals, { asciiCaseInsensitive: fold });
        const lower = (s: string): string => (fold ? s.replace(/[A-Z]/gu, (c) => c.toLowerCase()) : s);
        const expected = literals.map((l, i) => (lower(text).includes(lower(l)) ? i : -1)).filter((i) => i >= 0);
        expect(scanner.findAll(text)).toEqual(expected);
        expect(scanner.has(text)).toBe(expected.length > 0);
        const seen: number[] = [];
        scanner.scan(text, (i) => {
          seen.push(i);
        });
        expect(new Set(seen).size).toBe(seen.length);
      }),
      { numRuns: 2000 },
    );
  }, 60_000);
});

/**
 * A backtracking matcher over the parsed tree, in the way JavaScript's engine runs a regex (greedy
 * loops, alternatives in order, every start position), that counts its steps: a deterministic
 * check of the fast path's linear-time argument.
 */
function backtrackingSteps(root: RegexNode, text: string, limit: number): { matched: boolean; steps: number } {
  const cps = Array.from(text, (c) => c.codePointAt(0)!);
  const n = cps.length;
  let steps = 0;
  const isWord = (i: number): boolean => {
    const c = i >= 0 && i < n ? cps[i]! : -1;
    return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);
  };
  const holds = (kind: AssertKind, pos: number): boolean => {
    switch (kind) {
      case 'beginText':
        return pos === 0;
      case 'endText':
        return pos === n;
      case 'beginLine':
        return pos === 0 || cps[pos - 1] === 10;
      case 'endLine':
        return pos === n || cps[pos] === 10;
      case 'wordBoundary':
        return isWord(pos - 1) !== isWord(pos);
      case 'notWordBoundary':
        return isWord(pos - 1) === isWord(pos);
    }
  };
  const match = (node: RegexNode, pos: number, k: (pos: number) => boolean): boolean => {
    if (++steps > limit) throw new Error('step limit');
    switch (node.kind) {
      case 'chars':
        return pos < n && contains(node.set!, cps[pos]!) && k(pos + 1);
      case 'assert':
        return holds(node.assert, pos) && k(pos);
      case 'group':
        return match(node.item, pos, k);
      case 'concat': {
        const from = (i: number, p: number): boolean => (i === node.items.length ? k(p) : match(node.items[i]!, p, (q) => from(i + 1, q)));
        return from(0, pos);
      }
      case 'alt':
        return node.alts.some((alt) => match(alt, pos, k));
      case 'repeat': {
        const again = (count: number, p: number): boolean =>
          (count < node.max && match(node.item, p, (q) => q !== p && again(count + 1, q))) || (count >= node.min && k(p));
        return again(0, pos);
      }
    }
  };
  for (let start = 0; start <= n; start++) if (match(root, start, () => true)) return { matched: true, steps };
  return { matched: false, steps };
}

function fastTree(source: string, flags: string): RegexNode | null {
  const parsed = parseRegex(source, flags);
  if (!parsed.ok) return null;
  const tree = factorAlternatives(parsed.node);
  return 'source' in fastSource(tree) ? tree : null;
}

/** How much more work a text four times longer takes: about 4 when linear, 16 when quadratic. */
function growth(tree: RegexNode, unit: string, length: number): number {
  const text = (n: number): string => unit.repeat(Math.ceil(n / Math.max(1, unit.length)));
  const small = backtrackingSteps(tree, text(length), 1e7).steps;
  try {
    return backtrackingSteps(tree, text(4 * length), 20 * small).steps / small;
  } catch {
    return Infinity; // over the step limit
  }
}

describe('the fast path runs in linear time', () => {
  it(
    'the step-counting model detects quadratic patterns',
    () => {
      for (const [source, unit] of [['\\s*\\s*x', ' '], ['a*a*b', 'a'], ['a.*b', 'a'], ['(?:a|ab)*c', 'ab']] as const) {
        const tree = parseRegex(source, '');
        expect(tree.ok).toBe(true);
        expect(growth((tree as { node: RegexNode }).node, unit, 60)).toBeGreaterThan(10);
      }
      const linear = fastTree('x\\s*y', '')!;
      expect(growth(linear, ' ', 60)).toBeLessThan(5);
    },
    TIMEOUT,
  );

  it(
    'fast-path patterns take linearly many backtracking steps on repetitive texts',
    () => {
      let checked = 0;
      const unit = (ex: string): fc.Arbitrary<string> =>
        fc.oneof(fc.constantFrom(ex, ex.slice(0, -1), ex.slice(1), ex + ' ', ex + '\n', ex.repeat(2).slice(0, -1)), fc.constantFrom(...TRICKY), fc.string({ minLength: 1, maxLength: 3 }));
      fc.assert(
        fc.property(pattern.chain((p) => fc.tuple(fc.constant(p), unit(p.ex))), ([{ source, flags }, u]) => {
          const tree = fastTree(source, flags);
          if (tree === null || u.length === 0) return;
          checked++;
          const ratio = growth(tree, u, 200);
          expect({ source, flags, unit: u, linear: ratio < 6 }).toEqual({ source, flags, unit: u, linear: true });
          // and the model agrees with RE2, so it models the right language
          const text = u.repeat(10);
          if (isWellFormedText(text)) withEngine(re2WasmBackend, source, flags, (re2) => re2 === null || expect(backtrackingSteps(tree, text, 1e8).matched).toBe(re2(text)));
        }),
        { numRuns: RUNS },
      );
      expect(checked).toBeGreaterThan(RUNS / 10);
    },
    TIMEOUT,
  );
});
