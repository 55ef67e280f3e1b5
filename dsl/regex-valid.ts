/**
 * Regex validation for the checks and lints, without an RE2 compile where it can be avoided.
 *
 * Compiling a regex with re2-wasm costs about a millisecond, which dominates the checks of a
 * policy with many regexes. `plainRegexValid` recognises a plain subset of RE2 syntax, bounded in
 * size, that RE2 always accepts; every other regex (and so every error, with its message and
 * offset) is still decided by RE2, through the engine's `checkRegex`.
 *
 * The subset: literal characters (no controls, no surrogates); `.`, `^`, `$`; groups `(...)`,
 * `(?:...)`, `(?flags:...)` and `(?flags)` with distinct flags of `ims`; character classes whose
 * items are single characters, ranges in order, and `\d`-style classes (no `]` first, no `[`
 * inside, `-` only first, last or in a range); the escapes `\b \B \A \z`, `\d \D \s \S \w \W`,
 * `\a \f \n \r \t \v`, `\xHH` and escaped ASCII punctuation other than `_`; the quantifiers
 * `*`, `+`, `?` and `{n}`, `{n,}`, `{n,m}` (no leading zeros, n <= m <= MAX_COUNT, none nested
 * in another counted one), each optionally followed by `?`, one per atom, never after an
 * assertion or `(?flags)`. A pattern is at most MAX_LENGTH characters and MAX_WEIGHT in size
 * (re2-wasm has a small, fixed memory: a large program can fail to compile).
 */
import { checkRegex, type MatchError } from '../engine/index.js';

const MAX_LENGTH = 500;
const MAX_DEPTH = 50;
const MAX_COUNT = 100;
/** A bound on the size of the compiled program (in rough instruction counts), far below RE2's. */
const MAX_WEIGHT = 5000;
const CLASS_WEIGHT = 10;

/** ASCII punctuation that RE2 accepts escaped (`_` is a word character, so `\_` is left to RE2). */
const PUNCT = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^`{|}~');
const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
const CLASS_ESCAPES = new Set('dDsSwW');
const ASSERT_ESCAPES = new Set('bBAz');
const HEX = /^[0-9A-Fa-f]{2}$/;

const NOT_PLAIN = new Error('not in the plain subset');

/**
 * What an atom contributes, packed in a number: its weight when a quantifier may follow it, or
 * `-1 - weight` when none may (an assertion, `(?flags)`).
 */
type Atom = number;
const fixed = (weight: number): Atom => -1 - weight;

class PlainReader {
  private pos = 0;
  private depth = 0;
  /** Counted repetitions read so far (to tell whether a group holds one). */
  private counted = 0;

  constructor(private readonly src: string) {}

  read(): void {
    this.alternation();
    if (this.pos !== this.src.length) throw NOT_PLAIN;
  }

  private alternation(): number {
    let weight = this.sequence();
    while (this.src[this.pos] === '|') {
      this.pos++;
      weight += this.sequence() + 1;
    }
    return weight;
  }

  private sequence(): number {
    let weight = 0;
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined || c === '|' || c === ')') return weight;
      const countedBefore = this.counted;
      const atom = this.atom();
      let w = atom >= 0 ? atom : -1 - atom;
      const q = this.src[this.pos];
      if (q === '*' || q === '+' || q === '?' || q === '{') {
        if (atom < 0) throw NOT_PLAIN;
        if (q === '{') {
          const m = /^\{(0|[1-9]\d{0,2})(?:(,)(0|[1-9]\d{0,2})?)?\}/.exec(this.src.slice(this.pos, this.pos + 9));
          if (!m) throw NOT_PLAIN;
          const min = Number(m[1]);
          const max = m[2] === undefined ? min : m[3] === undefined ? min + 1 : Number(m[3]);
          if (min > MAX_COUNT || max > MAX_COUNT + 1 || max < min) throw NOT_PLAIN;
          if (this.counted > countedBefore) throw NOT_PLAIN;
          this.counted++;
          this.pos += m[0].length;
          w *= Math.max(1, max);
        } else {
          this.pos++;
        }
        if (this.src[this.pos] === '?') this.pos++;
        const next = this.src[this.pos];
        if (next === '*' || next === '+' || next === '?' || next === '{') throw NOT_PLAIN;
      }
      weight += w + 1;
      if (weight > MAX_WEIGHT) throw NOT_PLAIN;
    }
  }

  private atom(): Atom {
    const src = this.src;
    const c = src[this.pos]!;
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return this.charClass();
      case '.':
        this.pos++;
        return CLASS_WEIGHT;
      case '^':
      case '$':
        this.pos++;
        return fixed(1);
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
      case ']':
        throw NOT_PLAIN;
      default:
        this.literal();
        return 1;
    }
  }

  private literal(): number {
    const code = this.src.charCodeAt(this.pos);
    if (code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff)) throw NOT_PLAIN;
    this.pos++;
    return code;
  }

  private group(): Atom {
    const src = this.src;
    this.pos++;
    if (++this.depth > MAX_DEPTH) throw NOT_PLAIN;
    if (src[this.pos] === '?') {
      const m = /^\?([ims]*)([:)])/.exec(src.slice(this.pos, this.pos + 6));
      if (!m || new Set(m[1]).size !== m[1]!.length || (m[1] === '' && m[2] === ')')) throw NOT_PLAIN;
      this.pos += m[0].length;
      if (m[2] === ')') {
        this.depth--;
        return fixed(0);
      }
    }
    const weight = this.alternation();
    if (src[this.pos] !== ')') throw NOT_PLAIN;
    this.pos++;
    this.depth--;
    return weight + 1;
  }

  private escape(): Atom {
    const d = this.src[this.pos + 1];
    if (d === undefined) throw NOT_PLAIN;
    if (ASSERT_ESCAPES.has(d)) {
      this.pos += 2;
      return fixed(1);
    }
    if (CLASS_ESCAPES.has(d)) {
      this.pos += 2;
      return CLASS_WEIGHT;
    }
    this.escapedChar();
    return 1;
  }

  /** A single character written as an escape (at a `\`), as its code point. */
  private escapedChar(): number {
    const src = this.src;
    const d = src[this.pos + 1];
    if (d === undefined) throw NOT_PLAIN;
    const simple = SIMPLE_ESCAPES[d];
    if (simple !== undefined) {
      this.pos += 2;
      return simple;
    }
    if (d === 'x') {
      const hex = src.slice(this.pos + 2, this.pos + 4);
      if (!HEX.test(hex)) throw NOT_PLAIN;
      this.pos += 4;
      return parseInt(hex, 16);
    }
    if (PUNCT.has(d)) {
      this.pos += 2;
      return d.charCodeAt(0);
    }
    throw NOT_PLAIN;
  }

  /** A character class; its weight. */
  private charClass(): number {
    const src = this.src;
    this.pos++;
    if (src[this.pos] === '^') this.pos++;
    if (src[this.pos] === ']') throw NOT_PLAIN;
    let items = 0;
    for (let first = true; ; first = false) {
      const c = src[this.pos];
      if (c === undefined || c === '[') throw NOT_PLAIN;
      if (c === ']') {
        this.pos++;
        return CLASS_WEIGHT + 2 * items;
      }
      items++;
      if (c === '-') {
        if (!first && src[this.pos + 1] !== ']') throw NOT_PLAIN;
        this.pos++;
        continue;
      }
      const lo = this.classItem();
      if (src[this.pos] !== '-' || src[this.pos + 1] === ']') continue;
      if (lo === undefined) throw NOT_PLAIN;
      this.pos++;
      const hi = this.classItem();
      if (hi === undefined || hi < lo) throw NOT_PLAIN;
    }
  }

  /** A character of a class as its code point, or undefined for `\d` and the like. */
  private classItem(): number | undefined {
    if (this.src[this.pos] !== '\\') return this.literal();
    const d = this.src[this.pos + 1];
    if (d !== undefined && CLASS_ESCAPES.has(d)) {
      this.pos += 2;
      return undefined;
    }
    return this.escapedChar();
  }
}

/** Whether the regex is in the plain subset above (and so valid RE2 with these flags). */
export function plainRegexValid(source: string, flags: string): boolean {
  if (source.length > MAX_LENGTH || flags.length > 3) return false;
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    if ((f !== 'i' && f !== 'm' && f !== 's') || flags.indexOf(f) !== i) return false;
  }
  try {
    new PlainReader(source).read();
    return true;
  } catch {
    return false;
  }
}

/** Whether RE2 itself loads and compiles a regex here (checked once). */
let re2Works: boolean | undefined;

/** Results of `checkRegex` for regexes outside the plain subset, so each is compiled once. */
const problems = new Map<string, MatchError | null>();
const MAX_PROBLEMS = 10_000;

/**
 * What `checkRegex` says of a regex (null: valid), compiling it only when it is not in the plain
 * subset. When RE2 cannot be used at all, every regex goes to `checkRegex`, which then reports it.
 */
export function regexProblem(source: string, flags: string): MatchError | null {
  re2Works ??= checkRegex('(?:)', '') === null;
  if (re2Works && plainRegexValid(source, flags)) return null;
  const key = `${flags.length}:${flags}:${source}`;
  const known = problems.get(key);
  if (known !== undefined) return known;
  const problem = checkRegex(source, flags);
  // RE2 out of memory says nothing of the regex: not remembered, so a later compile tries again.
  if (problem?.transient === true) return problem;
  if (problems.size >= MAX_PROBLEMS) problems.clear();
  problems.set(key, problem);
  return problem;
}
