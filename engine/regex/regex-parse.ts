/**
 * The one syntax tree of RE2 patterns, as regex.ts compiles them: a parser producing a small tree
 * for the analyses (required literals, a JavaScript translation, whether a regex can match at
 * all). It follows RE2's parser (re2/parse.cc) for what it accepts and reports anything else as
 * not analysable; it never throws.
 *
 * re2-wasm rewrites a pattern before RE2 parses it (`/` is escaped, `\uXXXX` and `\u{...}` become
 * `\x{...}`, `\cX` becomes `\xNN`, `(?<` becomes `(?P<`, even inside a class, and flag `m` becomes a
 * leading `(?m)`); `re2WasmPattern` repeats that rewrite, the re2js backend compiles its output
 * (re2-wasm makes it itself), and the parser reads it, so the tree describes what the engine runs.
 * Each character set and assertion of the tree has its span in the pattern as written (`spans`).
 *
 * Character sets are exact except where marked `null` (Unicode classes such as `\pL`, and non-ASCII
 * characters under case folding, whose folding orbits are not tabulated here); those carry a
 * superset (`hull`) instead.
 */
import {
  ALL_CHARS,
  NEWLINE_SET,
  asciiFoldOrbit,
  charSet,
  foldAsciiRange,
  negate,
  singleChar,
  union,
  type CharSet,
} from './regex-charset.js';

export type AssertKind = 'beginText' | 'endText' | 'beginLine' | 'endLine' | 'wordBoundary' | 'notWordBoundary';

export type RegexNode =
  /**
   * One code point from `set`; `set` is null when the parser does not spell the class out, and
   * `hull` is then a superset of it (every character, when nothing better is known).
   */
  | { readonly kind: 'chars'; readonly set: CharSet | null; readonly hull?: CharSet }
  | { readonly kind: 'assert'; readonly assert: AssertKind }
  | { readonly kind: 'concat'; readonly items: readonly RegexNode[] }
  | { readonly kind: 'alt'; readonly alts: readonly RegexNode[] }
  /** `max` is Infinity for an unbounded repetition. Greediness does not change whether a match exists. */
  | { readonly kind: 'repeat'; readonly min: number; readonly max: number; readonly item: RegexNode }
  /** A capturing or non-capturing group; `name` for a named one. */
  | { readonly kind: 'group'; readonly item: RegexNode; readonly name?: string };

/** Where a node is in the pattern as written: code units `start` (inclusive) to `end` (exclusive). */
export interface SourceSpan {
  readonly start: number;
  readonly end: number;
}

export type ParseResult =
  | {
      readonly ok: true;
      readonly node: RegexNode;
      /** Whether case folding widened any character set (the pattern is at least partly case-insensitive). */
      readonly foldUsed: boolean;
      /** The span of every `chars` and `assert` node in the source (a rewritten escape spans all of it). */
      readonly spans: ReadonlyMap<RegexNode, SourceSpan>;
    }
  | { readonly ok: false; readonly why: string };

/**
 * A superset of what a character outside ASCII matches under case folding: its orbit holds
 * characters outside ASCII and perhaps ASCII letters (U+212A folds with k, U+017F with s).
 */
const FOLD_HULL: CharSet = charSet([0x41, 0x5a, 0x61, 0x7a, 0x80, 0x10ffff]);

/** Groups may nest this deep; deeper patterns are not analysed. */
const MAX_DEPTH = 100;
/** RE2's largest repetition count. */
const MAX_REPEAT = 1000;

/** Thrown inside the parser (not an Error: no stack trace to capture). */
class NotAnalysable {
  constructor(readonly why: string) {}
}

function fail(why: string): never {
  throw new NotAnalysable(why);
}

const PERL_GROUPS: Record<string, readonly number[]> = {
  d: [0x30, 0x39],
  s: [0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20],
  w: [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a],
};

const POSIX_GROUPS: Record<string, readonly number[]> = {
  alnum: [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a],
  alpha: [0x41, 0x5a, 0x61, 0x7a],
  ascii: [0x00, 0x7f],
  blank: [0x09, 0x09, 0x20, 0x20],
  cntrl: [0x00, 0x1f, 0x7f, 0x7f],
  digit: [0x30, 0x39],
  graph: [0x21, 0x7e],
  lower: [0x61, 0x7a],
  print: [0x20, 0x7e],
  punct: [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e],
  space: [0x09, 0x0d, 0x20, 0x20],
  upper: [0x41, 0x5a],
  word: [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a],
  xdigit: [0x30, 0x39, 0x41, 0x46, 0x61, 0x66],
};

const ALPHA_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const HEX = '0123456789ABCDEF';

function isHexadecimal(char: string): boolean {
  return HEX.indexOf(char.toUpperCase()) !== -1;
}

/** The pattern RE2 receives from re2-wasm for `new RE2(source, flags)`, with `m` in flags or not. */
export function re2WasmPattern(source: string, multiline: boolean): string {
  return rewrite(source, multiline, false).pattern;
}

/**
 * re2-wasm's rewrite, and where each code unit of its output comes from: `from[j]` to `to[j]`
 * (exclusive) in the source is the piece that became code unit `j` (empty for what re2-wasm adds).
 */
function rewrite(source: string, multiline: boolean, track = true): { pattern: string; from: Int32Array; to: Int32Array } {
  let pattern = source === '' ? '(?:)' : source;
  // An unescaped `/` gets a backslash, which comes from the `/`.
  const slashes: number[] = [];
  pattern = pattern.replace(/(^|[^\\])((?:\\\\)*)\//g, (_all: string, lead: string, pairs: string, at: number) => {
    if (track) slashes.push(at + lead.length + pairs.length);
    return `${lead}${pairs}\\/`;
  });
  const midFrom: number[] = [];
  for (let i = 0, k = 0; track && i < (source === '' ? 0 : source.length); i++) {
    if (slashes[k] === i) {
      midFrom.push(i);
      k++;
    }
    midFrom.push(i);
  }
  const origin = (i: number): number => (source === '' ? 0 : midFrom[i]!);
  const out: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  /** Appends `text`, made from the code units `i` to `j` (exclusive) of the escaped pattern. */
  const emit = (i: number, j: number, ...text: string[]): void => {
    if (!track) {
      out.push(...text);
      return;
    }
    const a = origin(i);
    const b = source === '' ? 0 : origin(j - 1) + 1;
    for (const t of text) {
      out.push(t);
      for (let n = 0; n < t.length; n++) {
        from.push(a);
        to.push(b);
      }
    }
  };
  if (multiline) {
    out.push('(?m)');
    if (track) {
      from.push(0, 0, 0, 0);
      to.push(0, 0, 0, 0);
    }
  }
  for (let i = 0; i < pattern.length; ) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) {
      const next = pattern[i + 1]!;
      if (next === '\\') {
        emit(i, i + 2, '\\\\');
        i += 2;
      } else if (next === 'c') {
        if (i + 2 < pattern.length) {
          const alphaIndex = ALPHA_UPPER.indexOf(pattern[i + 2]!) + 1;
          emit(i, i + 3, '\\x', HEX[Math.floor(alphaIndex / 16)]!, HEX[alphaIndex % 16]!);
          i += 3;
        } else {
          emit(i, i + 2, '\\c');
          i += 2;
        }
      } else if (next === 'u' && i + 2 < pattern.length && isHexadecimal(pattern[i + 2]!)) {
        let j = i + 3;
        while (j < i + 6 && j < pattern.length && isHexadecimal(pattern[j]!)) j++;
        emit(i, j, '\\x{', pattern.slice(i + 2, j), '}');
        i = j;
      } else if (next === 'u' && i + 2 < pattern.length && pattern[i + 2] === '{') {
        emit(i, i + 2, '\\x');
        i += 2;
      } else {
        emit(i, i + 2, '\\', next);
        i += 2;
      }
    } else if (ch === '/') {
      emit(i, i + 1, '\\/');
      i += 1;
    } else if (pattern.startsWith('(?<', i) && pattern[i + 3] !== '=' && pattern[i + 3] !== '!') {
      emit(i, i + 3, '(?P<');
      i += 3;
    } else {
      emit(i, i + 1, ch);
      i += 1;
    }
  }
  return { pattern: out.join(''), from: Int32Array.from(from), to: Int32Array.from(to) };
}

/** Whether the string has no unpaired surrogate. */
export function isWellFormedText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c >= 0xdc00) return false;
    const d = text.charCodeAt(i + 1);
    if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
    i++;
  }
  return true;
}

/**
 * Parses a regex as regex.ts compiles it: RE2 syntax after re2-wasm's rewrite, flags a subset of `ims`.
 * Never throws; anything outside the understood subset gives `{ ok: false, why }`.
 */
export function parseRegex(source: string, flags: string): ParseResult {
  try {
    if (typeof source !== 'string' || typeof flags !== 'string') return { ok: false, why: 'not a string' };
    if (!/^(?!.*(.).*\1)[ims]*$/u.test(flags)) return { ok: false, why: 'invalid flags' };
    if (!isWellFormedText(source)) return { ok: false, why: 'unpaired surrogate in the pattern' };
    const { pattern, from, to } = rewrite(source, flags.includes('m'));
    if (!isWellFormedText(pattern)) return { ok: false, why: 'unpaired surrogate in the pattern' };
    const parser = new Parser(pattern, flags.includes('i'), flags.includes('s'), from, to);
    const node = parser.parse();
    return { ok: true, node, foldUsed: parser.foldUsed, spans: parser.spans };
  } catch (error) {
    return { ok: false, why: error instanceof NotAnalysable ? error.why : 'not analysable' };
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAsciiLetter(c: number): boolean {
  return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
}

function isHexDigit(c: number): boolean {
  return isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

function concat(items: RegexNode[]): RegexNode {
  return items.length === 1 ? items[0]! : { kind: 'concat', items };
}

interface Repetition {
  readonly min: number;
  readonly max: number;
  readonly end: number;
}

class Parser {
  private pos = 0;
  private depth = 0;
  private oneLine = true;
  foldUsed = false;
  readonly spans = new Map<RegexNode, SourceSpan>();

  constructor(
    private readonly src: string,
    private fold: boolean,
    private dotNL: boolean,
    private readonly from: Int32Array,
    private readonly to: Int32Array,
  ) {}

  /** Records where a set or an assertion read from `start` to here is in the source. */
  private leaf(node: RegexNode, start: number): RegexNode {
    const last = Math.max(start, this.pos - 1);
    this.spans.set(node, { start: this.from[start] ?? 0, end: this.to[last] ?? 0 });
    return node;
  }

  parse(): RegexNode {
    const node = this.parseAlternation();
    if (this.pos < this.src.length) fail('unmatched `)`');
    return node;
  }

  private at(offset = 0): number {
    const i = this.pos + offset;
    return i < this.src.length ? this.src.charCodeAt(i) : -1;
  }

  /** Reads the code point at the position and moves past it. */
  private nextCodePoint(): number {
    const cp = this.src.codePointAt(this.pos);
    if (cp === undefined) fail('unexpected end of pattern');
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  private parseAlternation(): RegexNode {
    const alts: RegexNode[] = [];
    let items: RegexNode[] = [];
    let canRepeat = false;
    while (this.pos < this.src.length) {
      const c = this.at();
      if (c === 0x29 /* ) */) break;
      if (c === 0x7c /* | */) {
        alts.push(concat(items));
        items = [];
        canRepeat = false;
        this.pos++;
        continue;
      }
      const rep = this.repetitionAt(this.pos);
      if (rep !== null) {
        if (!canRepeat) fail('repetition without an operand');
        this.pos = rep.end;
        if (this.at() === 0x3f /* ? */) this.pos++; // non-greedy
        if (this.repetitionAt(this.pos) !== null) fail('stacked repetition');
        const item = items.pop()!;
        items.push({ kind: 'repeat', min: rep.min, max: rep.max, item });
        canRepeat = false;
        continue;
      }
      canRepeat = this.parseAtom(items);
    }
    alts.push(concat(items));
    return alts.length === 1 ? alts[0]! : { kind: 'alt', alts };
  }

  /** A repetition operator at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`), or null. */
  private repetitionAt(i: number): Repetition | null {
    const c = i < this.src.length ? this.src.charCodeAt(i) : -1;
    if (c === 0x2a) return { min: 0, max: Infinity, end: i + 1 };
    if (c === 0x2b) return { min: 1, max: Infinity, end: i + 1 };
    if (c === 0x3f) return { min: 0, max: 1, end: i + 1 };
    if (c !== 0x7b) return null;
    // RE2 treats `{` that does not start a well-formed count as a literal.
    let p = i + 1;
    const readInt = (): number | null => {
      const start = p;
      let n = 0;
      while (p < this.src.length && isDigit(this.src.charCodeAt(p))) {
        if (n >= 100000000) return null;
        n = n * 10 + this.src.charCodeAt(p) - 0x30;
        p++;
      }
      if (p === start) return null;
      if (p - start >= 2 && this.src.charCodeAt(start) === 0x30) return null; // no leading zeros
      return n;
    };
    const min = readInt();
    if (min === null || p >= this.src.length) return null;
    let max = min;
    if (this.src.charCodeAt(p) === 0x2c /* , */) {
      p++;
      if (p >= this.src.length) return null;
      if (this.src.charCodeAt(p) === 0x7d) {
        max = Infinity;
      } else {
        const n = readInt();
        if (n === null) return null;
        max = n;
      }
    }
    if (p >= this.src.length || this.src.charCodeAt(p) !== 0x7d) return null;
    if (min > MAX_REPEAT || (max !== Infinity && (max > MAX_REPEAT || min > max))) fail('invalid repetition count');
    return { min, max, end: p + 1 };
  }

  /** Parses one atom onto `items`; returns whether a following repetition may apply to it. */
  private parseAtom(items: RegexNode[]): boolean {
    const c = this.at();
    const start = this.pos;
    switch (c) {
      case 0x28 /* ( */:
        return this.parseGroup(items);
      case 0x5e /* ^ */:
        this.pos++;
        items.push(this.leaf({ kind: 'assert', assert: this.oneLine ? 'beginText' : 'beginLine' }, start));
        return true;
      case 0x24 /* $ */:
        this.pos++;
        items.push(this.leaf({ kind: 'assert', assert: this.oneLine ? 'endText' : 'endLine' }, start));
        return true;
      case 0x2e /* . */:
        this.pos++;
        items.push(this.leaf({ kind: 'chars', set: this.dotNL ? ALL_CHARS : negate(NEWLINE_SET) }, start));
        return true;
      case 0x5b /* [ */:
        items.push(this.leaf(this.parseClass(), start));
        return true;
      case 0x5c /* \ */:
        return this.parseEscapeAtom(items);
      default:
        items.push(this.literal(this.nextCodePoint(), start));
        return true;
    }
  }

  /** A literal character read from `start`. */
  private literal(cp: number, start: number): RegexNode {
    if (!this.fold) return this.leaf({ kind: 'chars', set: singleChar(cp) }, start);
    if (cp > 0x7f) return this.leaf({ kind: 'chars', set: null, hull: FOLD_HULL }, start);
    const orbit = asciiFoldOrbit(cp);
    if (orbit.length > 1) this.foldUsed = true;
    return this.leaf({ kind: 'chars', set: charSet(orbit.flatMap((o) => [o, o])) }, start);
  }

  private parseGroup(items: RegexNode[]): boolean {
    this.pos++; // (
    if (this.at() === 0x3f /* ? */) {
      if (this.at(1) === 0x50 /* P */ && this.at(2) === 0x3c /* < */) {
        const end = this.src.indexOf('>', this.pos + 3);
        if (end < 0) fail('invalid named group');
        const name = this.src.slice(this.pos + 3, end);
        if (!/^[A-Za-z0-9_]+$/u.test(name)) fail('invalid group name');
        this.pos = end + 1;
        items.push({ ...this.groupBody(), name });
        return true;
      }
      let t = this.pos + 1;
      let negated = false;
      let sawFlags = false;
      let fold = this.fold;
      let oneLine = this.oneLine;
      let dotNL = this.dotNL;
      for (;;) {
        const f = t < this.src.length ? this.src.charCodeAt(t) : -1;
        t++;
        if (f === 0x69 /* i */) {
          sawFlags = true;
          fold = !negated;
        } else if (f === 0x6d /* m */) {
          sawFlags = true;
          oneLine = negated;
        } else if (f === 0x73 /* s */) {
          sawFlags = true;
          dotNL = !negated;
        } else if (f === 0x55 /* U */) {
          sawFlags = true;
        } else if (f === 0x2d /* - */) {
          if (negated) fail('invalid flags');
          negated = true;
          sawFlags = false;
        } else if (f === 0x3a /* : */ || f === 0x29 /* ) */) {
          if (negated && !sawFlags) fail('invalid flags');
          this.pos = t;
          if (f === 0x29) {
            // Flags for the rest of the enclosing group; a following repetition would apply to the
            // item before, which this parser does not follow.
            this.fold = fold;
            this.oneLine = oneLine;
            this.dotNL = dotNL;
            return false;
          }
          const saved = [this.fold, this.oneLine, this.dotNL] as const;
          this.fold = fold;
          this.oneLine = oneLine;
          this.dotNL = dotNL;
          items.push(this.groupBody(saved));
          return true;
        } else {
          fail('unsupported group syntax');
        }
      }
    }
    items.push(this.groupBody());
    return true;
  }

  /** Parses a group's body up to its `)`; the flags in force at the `(` come back at the `)`. */
  private groupBody(saved: readonly [boolean, boolean, boolean] = [this.fold, this.oneLine, this.dotNL]): { kind: 'group'; item: RegexNode } {
    if (++this.depth > MAX_DEPTH) fail('groups nest too deep');
    const item = this.parseAlternation();
    if (this.at() !== 0x29) fail('missing `)`');
    this.pos++;
    this.depth--;
    [this.fold, this.oneLine, this.dotNL] = saved;
    return { kind: 'group', item };
  }

  private parseEscapeAtom(items: RegexNode[]): boolean {
    const e = this.at(1);
    const start = this.pos;
    switch (e) {
      case 0x62 /* b */:
      case 0x42 /* B */:
        this.pos += 2;
        items.push(this.leaf({ kind: 'assert', assert: e === 0x62 ? 'wordBoundary' : 'notWordBoundary' }, start));
        return true;
      case 0x41 /* A */:
        this.pos += 2;
        items.push(this.leaf({ kind: 'assert', assert: 'beginText' }, start));
        return true;
      case 0x7a /* z */:
        this.pos += 2;
        items.push(this.leaf({ kind: 'assert', assert: 'endText' }, start));
        return true;
      case 0x43 /* C */:
        return fail('`\\C` matches single bytes');
      case 0x51 /* Q */: {
        this.pos += 2;
        let pushed = false;
        while (this.pos < this.src.length) {
          if (this.at() === 0x5c && this.at(1) === 0x45 /* \E */) {
            this.pos += 2;
            break;
          }
          const at = this.pos;
          items.push(this.literal(this.nextCodePoint(), at));
          pushed = true;
        }
        return pushed;
      }
      case 0x70 /* p */:
      case 0x50 /* P */:
        this.skipUnicodeGroup();
        items.push(this.leaf({ kind: 'chars', set: null, hull: ALL_CHARS }, start));
        return true;
      default: {
        const group = this.perlGroup(e);
        if (group !== null) {
          this.pos += 2;
          items.push(this.leaf({ kind: 'chars', set: group }, start));
          return true;
        }
        items.push(this.literal(this.parseEscape(), start));
        return true;
      }
    }
  }

  /** Skips `\pN`, `\p{Name}` or `\P...`; the class is left unspelled. */
  private skipUnicodeGroup(): void {
    this.pos += 2;
    if (this.at() === 0x7b /* { */) {
      const end = this.src.indexOf('}', this.pos);
      if (end < 0) fail('unterminated unicode class');
      this.pos = end + 1;
    } else {
      this.nextCodePoint();
    }
  }

  /** `\d`, `\s`, `\w` and their negations as RE2 builds them, or null for another letter. */
  private perlGroup(letter: number): CharSet | null {
    const name = String.fromCharCode(letter | 0x20);
    const ranges = PERL_GROUPS[name];
    if (ranges === undefined || !isAsciiLetter(letter)) return null;
    return this.group(ranges, letter < 0x61);
  }

  /**
   * A Perl or POSIX class: under case folding its members are folded first, and a negated one is
   * the complement of the folded class (RE2's AddUGroup).
   */
  private group(ranges: readonly number[], negated: boolean): CharSet {
    let set: CharSet = charSet([...ranges]);
    if (this.fold) {
      let folded: CharSet = [];
      for (let i = 0; i < set.length; i += 2) folded = union(folded, foldAsciiRange(set[i]!, set[i + 1]!)!);
      if (folded.length !== set.length || folded.some((v, i) => v !== set[i])) this.foldUsed = true;
      set = folded;
    }
    return negated ? negate(set) : set;
  }

  /** RE2's ParseEscape: a single escaped code point. */
  private parseEscape(): number {
    this.pos++; // backslash
    if (this.pos >= this.src.length) fail('trailing backslash');
    const c = this.nextCodePoint();
    if (c < 0x80 && !isAsciiLetter(c) && !isDigit(c)) return c;
    if (c >= 0x31 && c <= 0x37 && !(this.at() >= 0x30 && this.at() <= 0x37)) fail('backreference');
    if (c >= 0x30 && c <= 0x37) {
      let code = c - 0x30;
      for (let k = 0; k < 2 && this.at() >= 0x30 && this.at() <= 0x37; k++) code = code * 8 + this.src.charCodeAt(this.pos++) - 0x30;
      return checkRune(code);
    }
    switch (c) {
      case 0x78 /* x */: {
        if (this.at() === 0x7b /* { */) {
          this.pos++;
          let code = 0;
          let digits = 0;
          while (isHexDigit(this.at())) {
            code = code * 16 + parseInt(this.src[this.pos]!, 16);
            if (code > 0x10ffff) fail('invalid escape');
            digits++;
            this.pos++;
          }
          if (digits === 0 || this.at() !== 0x7d) fail('invalid escape');
          this.pos++;
          return checkRune(code);
        }
        if (!isHexDigit(this.at()) || !isHexDigit(this.at(1))) fail('invalid escape');
        const code = parseInt(this.src.slice(this.pos, this.pos + 2), 16);
        this.pos += 2;
        return code;
      }
      case 0x6e:
        return 0x0a; // \n
      case 0x72:
        return 0x0d; // \r
      case 0x74:
        return 0x09; // \t
      case 0x61:
        return 0x07; // \a
      case 0x66:
        return 0x0c; // \f
      case 0x76:
        return 0x0b; // \v
      default:
        return fail('invalid escape');
    }
  }

  private parseClass(): RegexNode {
    this.pos++; // [
    let negated = false;
    if (this.at() === 0x5e /* ^ */) {
      negated = true;
      this.pos++;
    }
    let set: CharSet = [];
    let unspelled = false;
    /** The spelled parts and supersets of the others. */
    let hull: CharSet = [];
    const add = (part: CharSet | null, partHull: CharSet = ALL_CHARS): void => {
      if (part === null) unspelled = true;
      else set = union(set, part);
      hull = union(hull, part ?? partHull);
    };
    let first = true;
    while (this.pos < this.src.length && (this.at() !== 0x5d /* ] */ || first)) {
      first = false;
      if (this.at() === 0x5b && this.at(1) === 0x3a && this.pos + 2 < this.src.length) {
        const end = this.src.indexOf(':]', this.pos + 2);
        if (end >= 0) {
          let name = this.src.slice(this.pos + 2, end);
          const neg = name.startsWith('^');
          if (neg) name = name.slice(1);
          const ranges = Object.hasOwn(POSIX_GROUPS, name) ? POSIX_GROUPS[name] : undefined;
          if (ranges === undefined) fail('invalid class name');
          add(this.group(ranges, neg));
          this.pos = end + 2;
          continue;
        }
      }
      if (this.at() === 0x5c && (this.at(1) === 0x70 || this.at(1) === 0x50) && this.pos + 2 < this.src.length) {
        this.skipUnicodeGroup();
        add(null);
        continue;
      }
      if (this.at() === 0x5c && this.pos + 1 < this.src.length) {
        const group = this.perlGroup(this.at(1));
        if (group !== null) {
          this.pos += 2;
          add(group);
          continue;
        }
      }
      const lo = this.classChar();
      let hi = lo;
      if (this.at() === 0x2d /* - */ && this.pos + 1 < this.src.length && this.at(1) !== 0x5d) {
        this.pos++;
        hi = this.classChar();
        if (hi < lo) fail('invalid class range');
      }
      if (!this.fold) {
        add([lo, hi]);
      } else {
        const folded = foldAsciiRange(lo, hi);
        if (folded !== null && folded.length !== 2) this.foldUsed = true;
        add(folded, union([lo, hi], FOLD_HULL));
      }
    }
    if (this.pos >= this.src.length) fail('missing `]`');
    this.pos++; // ]
    // Negated, the class is within the complement of its spelled parts.
    if (unspelled) return { kind: 'chars', set: null, hull: negated ? negate(set) : hull };
    return { kind: 'chars', set: negated ? negate(set) : set };
  }

  private classChar(): number {
    if (this.pos >= this.src.length) fail('missing `]`');
    if (this.at() === 0x5c) return this.parseEscape();
    return this.nextCodePoint();
  }
}

/** Surrogate code points written as escapes are left to RE2 (its UTF-8 handling of them differs). */
function checkRune(code: number): number {
  if (code >= 0xd800 && code <= 0xdfff) fail('surrogate code point');
  return code;
}
