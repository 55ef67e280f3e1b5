/**
 * Whether a regex (RE2 syntax) can match any text at all, for `check/regex-never-matches`.
 */

// Characters fall in three classes, all a regex's assertions can tell apart: a line break, an
// ASCII word character (what `\b` looks at), and anything else. A position's neighbour is one of
// those, or the edge of the text.
const NL = 1;
const WORD = 2;
const OTHER = 4;
const ANY_CHAR = NL | WORD | OTHER;
/** The start (before) or the end (after) of the text. */
const EDGE = 8;
const ANY_NEXT = ANY_CHAR | EDGE;

type AssertKind = 'bot' | 'eot' | 'bol' | 'eol' | 'word' | 'nonword';

type CharNode = { t: 'char'; mask: number; id: number; start: number; end: number };
type AssertNode = { t: 'assert'; kind: AssertKind; id: number; start: number; end: number; token: string };
type RNode =
  | { t: 'empty' }
  | CharNode
  | AssertNode
  | { t: 'cat'; items: RNode[] }
  | { t: 'alt'; items: RNode[] }
  | { t: 'rep'; item: RNode; min: number };

export interface Culprit {
  kind: AssertKind | 'class';
  start: number;
  end: number;
  token: string;
}

/**
 * Whether no text contains a match of the regex (RE2 syntax, already validated). The regex is read
 * into an automaton whose characters are the three classes above (a superset of what it matches:
 * counted repetitions become `*` or `+`, case folding and Unicode classes only widen), and the
 * automaton is searched for a path that meets every assertion. Undefined when some path does, or
 * when the regex uses syntax this reader does not know. Otherwise the culprit, when removing one
 * assertion or empty class alone makes the regex satisfiable.
 */
export function unsatisfiable(source: string, flags: string): { culprit: Culprit | undefined } | undefined {
  let tree: RNode;
  const nodes: (CharNode | AssertNode)[] = [];
  try {
    tree = new RegexReader(source, nodes).read({ i: flags.includes('i'), m: flags.includes('m'), s: flags.includes('s') });
  } catch {
    return undefined;
  }
  // With no assertion and no empty class, every path of the automaton can be taken.
  if (nodes.every((n) => n.t === 'char' && n.mask !== 0)) return undefined;
  if (satisfiable(tree, new Set())) return undefined;
  for (const n of nodes) {
    if (n.t === 'char' && n.mask !== 0) continue;
    if (satisfiable(tree, new Set([n.id]))) {
      const kind = n.t === 'char' ? 'class' : n.kind;
      return { culprit: { kind, start: n.start, end: n.end, token: n.t === 'assert' ? n.token : source.slice(n.start, n.end) } };
    }
  }
  return { culprit: undefined };
}

/** The index of each kind of previous character (NL, WORD, OTHER, EDGE) among the four. */
const PREV_INDEX: Readonly<Record<number, number>> = { [NL]: 0, [WORD]: 1, [OTHER]: 2, [EDGE]: 3 };

/** Edge kinds of the automaton. */
const EPS = 0;
const CHAR = 1;
const ASSERT = 2;

function satisfiable(tree: RNode, neutral: ReadonlySet<number>): boolean {
  // The automaton as flat arrays: each state's edges form a linked list (`head`, `nextEdge`); an
  // edge has a target, a kind, and a character mask (CHAR) or an assertion (ASSERT).
  const head: number[] = [];
  const nextEdge: number[] = [];
  const edgeTo: number[] = [];
  const edgeKind: number[] = [];
  const edgeMask: number[] = [];
  const edgeAssert: (AssertKind | undefined)[] = [];
  const state = (): number => head.push(-1) - 1;
  const link = (from: number, to: number, kind: number, mask = 0, assert?: AssertKind): void => {
    const e = edgeTo.push(to) - 1;
    edgeKind.push(kind);
    edgeMask.push(mask);
    edgeAssert.push(assert);
    nextEdge.push(head[from]!);
    head[from] = e;
  };
  // `build` returns a fragment's start state and leaves its end state here.
  let end = 0;
  const build = (n: RNode): number => {
    const s = state();
    switch (n.t) {
      case 'empty':
        end = s;
        return s;
      case 'char': {
        const e = state();
        link(s, e, CHAR, neutral.has(n.id) ? ANY_CHAR : n.mask);
        end = e;
        return s;
      }
      case 'assert': {
        const e = state();
        if (neutral.has(n.id)) link(s, e, EPS);
        else link(s, e, ASSERT, 0, n.kind);
        end = e;
        return s;
      }
      case 'cat': {
        let last = s;
        for (const item of n.items) {
          const a = build(item);
          link(last, a, EPS);
          last = end;
        }
        end = last;
        return s;
      }
      case 'alt': {
        const e = state();
        for (const item of n.items) {
          const a = build(item);
          link(s, a, EPS);
          link(end, e, EPS);
        }
        end = e;
        return s;
      }
      case 'rep': {
        const e = state();
        const a = build(n.item);
        const b = end;
        link(s, a, EPS);
        link(b, a, EPS);
        link(b, e, EPS);
        if (n.min === 0) link(s, e, EPS);
        end = e;
        return s;
      }
    }
  };
  const start = build(tree);
  const accept = end;
  // A search state: where in the automaton, what the previous character was (EDGE: none, the
  // start of the text), and which next characters (EDGE: the end of the text) the assertions met
  // since then still allow; packed as `(at * 16 + prev) * 16 + next`. `seen` holds 64 bits per
  // state: one per (previous character, next characters).
  const seen = new Uint32Array(head.length * 2);
  const stack: number[] = [];
  const push = (at: number, prev: number, next: number): void => {
    const bit = PREV_INDEX[prev]! * 16 + next;
    const word = at * 2 + (bit >> 5);
    const mask = 1 << (bit & 31);
    if ((seen[word]! & mask) !== 0) return;
    seen[word] = seen[word]! | mask;
    stack.push((at * 16 + prev) * 16 + next);
  };
  // A match may start anywhere: after any character, or at the start of the text.
  push(start, EDGE, ANY_NEXT);
  push(start, NL, ANY_NEXT);
  push(start, WORD, ANY_NEXT);
  push(start, OTHER, ANY_NEXT);
  while (stack.length > 0) {
    const key = stack.pop()!;
    const next = key & 15;
    const prev = (key >> 4) & 15;
    const at = key >> 8;
    // ...and end anywhere: before any character the assertions allow, or at the end of the text.
    if (at === accept && next !== 0) return true;
    for (let e = head[at]!; e >= 0; e = nextEdge[e]!) {
      const to = edgeTo[e]!;
      const kind = edgeKind[e]!;
      if (kind === EPS) push(to, prev, next);
      else if (kind === CHAR) {
        const m = edgeMask[e]! & next;
        if (m & NL) push(to, NL, ANY_NEXT);
        if (m & WORD) push(to, WORD, ANY_NEXT);
        if (m & OTHER) push(to, OTHER, ANY_NEXT);
      } else {
        const allowed = assertNext(edgeAssert[e]!, prev);
        if (allowed & next) push(to, prev, allowed & next);
      }
    }
  }
  return false;
}

/** The next characters an assertion allows after `prev` (0: it fails whatever follows). */
function assertNext(kind: AssertKind, prev: number): number {
  const nonWord = NL | OTHER | EDGE;
  switch (kind) {
    case 'bot':
      return prev === EDGE ? ANY_NEXT : 0;
    case 'bol':
      return prev === EDGE || prev === NL ? ANY_NEXT : 0;
    case 'eot':
      return EDGE;
    case 'eol':
      return EDGE | NL;
    case 'word':
      return prev === WORD ? nonWord : WORD;
    case 'nonword':
      return prev === WORD ? WORD : nonWord;
  }
}

// -------- reading RE2 syntax

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
}

const MAX_CP = 0x10ffff;
type Ranges = [number, number][];

const DIGIT: Ranges = [[0x30, 0x39]];
const WORD_RANGES: Ranges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: Ranges = [[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]];
const POSIX: Readonly<Record<string, Ranges>> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x00, 0x7f]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
  cntrl: [[0x00, 0x1f], [0x7f, 0x7f]],
  digit: DIGIT,
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x09, 0x0d], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  word: WORD_RANGES,
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};

/** Neither a line break nor a word character. */
const OTHER_RANGES: Ranges = [[0x00, 0x09], [0x0b, 0x2f], [0x3a, 0x40], [0x5b, 0x5e], [0x60, 0x60], [0x7b, MAX_CP]];

function normalize(r: Ranges): Ranges {
  const sorted = [...r].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(r: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of normalize(r)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

function intersects(r: Ranges, lo: number, hi: number): boolean {
  return r.some(([a, b]) => a <= hi && lo <= b);
}

/** The character classes a set of code points touches; with case folding, a superset of them. */
function maskOf(r: Ranges, fold: boolean): number {
  let mask = 0;
  if (intersects(r, 0x0a, 0x0a)) mask |= NL;
  if (WORD_RANGES.some(([lo, hi]) => intersects(r, lo, hi))) mask |= WORD;
  if (r.some(([lo, hi]) => OTHER_RANGES.some(([a, b]) => a <= hi && lo <= b))) mask |= OTHER;
  if (fold) {
    // A letter may fold to a character outside ASCII (`k` to the Kelvin sign) and back.
    if (intersects(r, 0x41, 0x5a) || intersects(r, 0x61, 0x7a)) mask |= OTHER;
    if (intersects(r, 0x80, MAX_CP)) mask |= WORD;
  }
  return mask;
}

/** `maskOf` of each ASCII character alone, without and with case folding (-1: not yet known). */
const ASCII_MASKS = [new Int8Array(128).fill(-1), new Int8Array(128).fill(-1)] as const;

function literalMask(cp: number, fold: boolean): number {
  if (cp >= 128) return maskOf([[cp, cp]], fold);
  const table = ASCII_MASKS[fold ? 1 : 0];
  let mask = table[cp]!;
  if (mask < 0) table[cp] = mask = maskOf([[cp, cp]], fold);
  return mask;
}

class RegexReader {
  private pos = 0;
  private nextId = 0;

  constructor(
    private readonly src: string,
    private readonly nodes: (CharNode | AssertNode)[],
  ) {}

  read(flags: Flags): RNode {
    const tree = this.alternation({ ...flags });
    if (this.pos !== this.src.length) throw new Error('unexpected )');
    return tree;
  }

  private fail(): never {
    throw new Error('unsupported regex syntax');
  }

  /** Alternatives up to a `)` or the end; `(?i)` and friends change `flags` until then. */
  private alternation(flags: Flags): RNode {
    const alts: RNode[] = [];
    let items: RNode[] = [];
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]!;
      if (c === ')') break;
      if (c === '|') {
        alts.push({ t: 'cat', items });
        items = [];
        this.pos++;
        continue;
      }
      let atom = this.atom(flags);
      if (atom === null) continue;
      for (;;) {
        const r = this.src[this.pos];
        if (r === '*' || r === '+' || r === '?') {
          this.pos++;
          atom = { t: 'rep', item: atom, min: r === '+' ? 1 : 0 };
        } else if (r === '{') {
          const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.src.slice(this.pos));
          if (!m) break;
          this.pos += m[0].length;
          const min = Number(m[1]);
          const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
          atom = max === 0 ? { t: 'empty' } : { t: 'rep', item: atom, min: min === 0 ? 0 : 1 };
        } else {
          break;
        }
        if (this.src[this.pos] === '?') this.pos++; // non-greedy
      }
      items.push(atom);
    }
    alts.push({ t: 'cat', items });
    return alts.length === 1 ? alts[0]! : { t: 'alt', items: alts };
  }

  private char(mask: number, start: number): RNode {
    const n: CharNode = { t: 'char', mask, id: this.nextId++, start, end: this.pos };
    this.nodes.push(n);
    return n;
  }

  private assertion(kind: AssertKind, start: number): RNode {
    const n: AssertNode = { t: 'assert', kind, id: this.nextId++, start, end: this.pos, token: this.src.slice(start, this.pos) };
    this.nodes.push(n);
    return n;
  }

  private literal(cp: number, flags: Flags, start: number): RNode {
    return this.char(literalMask(cp, flags.i), start);
  }

  /** One atom, or null for `(?flags)`, which changes `flags` instead. */
  private atom(flags: Flags): RNode | null {
    const src = this.src;
    const start = this.pos;
    const c = src.codePointAt(this.pos)!;
    const ch = String.fromCodePoint(c);
    this.pos += ch.length;
    switch (ch) {
      case '(':
        return this.group(flags);
      case '[':
        return this.charClass(flags, start);
      case '.':
        return this.char(flags.s ? ANY_CHAR : WORD | OTHER, start);
      case '^':
        return this.assertion(flags.m ? 'bol' : 'bot', start);
      case '$':
        return this.assertion(flags.m ? 'eol' : 'eot', start);
      case '\\':
        return this.escape(flags, start);
      case '*':
      case '+':
      case '?':
        return this.fail();
      default:
        return this.literal(c, flags, start);
    }
  }

  private group(flags: Flags): RNode | null {
    const src = this.src;
    let inner: Flags = { ...flags };
    if (src[this.pos] === '?') {
      const named = /^\?P?<[A-Za-z0-9_]+>/.exec(src.slice(this.pos));
      if (named) {
        this.pos += named[0].length;
      } else {
        const m = /^\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(src.slice(this.pos));
        if (!m) return this.fail();
        this.pos += m[0].length;
        const set = (target: Flags, on: string, value: boolean): void => {
          for (const f of on) if (f === 'i' || f === 'm' || f === 's') target[f] = value;
        };
        if (m[3] === ')') {
          set(flags, m[1] ?? '', true);
          set(flags, m[2] ?? '', false);
          return null;
        }
        set(inner, m[1] ?? '', true);
        set(inner, m[2] ?? '', false);
      }
    }
    const body = this.alternation(inner);
    if (src[this.pos] !== ')') return this.fail();
    this.pos++;
    return body;
  }

  /** A code point written as an escape that stands for one character, or undefined. */
  private escapedChar(): number | undefined {
    const src = this.src;
    const d = src[this.pos];
    if (d === undefined) return this.fail();
    const simple: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    if (d in simple) {
      this.pos++;
      return simple[d];
    }
    if (d === 'x') {
      const braced = /^x\{([0-9A-Fa-f]+)\}/.exec(src.slice(this.pos));
      const short = /^x([0-9A-Fa-f]{2})/.exec(src.slice(this.pos));
      const m = braced ?? short;
      if (!m) return this.fail();
      this.pos += m[0].length;
      return parseInt(m[1]!, 16);
    }
    if (d >= '0' && d <= '7') {
      const m = /^[0-7]{1,3}/.exec(src.slice(this.pos))!;
      this.pos += m[0].length;
      return parseInt(m[0], 8);
    }
    if (/[A-Za-z0-9]/.test(d)) return undefined;
    const cp = src.codePointAt(this.pos)!;
    this.pos += String.fromCodePoint(cp).length;
    return cp;
  }

  /** `\d`, `\s`, `\w` and their negations; `\p...`/`\P...` as null (not read); undefined otherwise. */
  private perlClass(): Ranges | null | undefined {
    const src = this.src;
    const d = src[this.pos];
    const table: Record<string, Ranges> = { d: DIGIT, s: SPACE, w: WORD_RANGES };
    if (d !== undefined && d.toLowerCase() in table && /[dswDSW]/.test(d)) {
      this.pos++;
      const r = table[d.toLowerCase()]!;
      return d === d.toLowerCase() ? r : complement(r);
    }
    if (d === 'p' || d === 'P') {
      const m = /^[pP](\{[^}]*\}|[A-Za-z])/.exec(src.slice(this.pos));
      if (!m) return this.fail();
      this.pos += m[0].length;
      return null;
    }
    return undefined;
  }

  private escape(flags: Flags, start: number): RNode {
    const src = this.src;
    const d = src[this.pos];
    const asserts: Record<string, AssertKind> = { A: 'bot', z: 'eot', b: 'word', B: 'nonword' };
    if (d !== undefined && d in asserts) {
      this.pos++;
      return this.assertion(asserts[d]!, start);
    }
    if (d === 'Q') {
      this.pos++;
      const end = src.indexOf('\\E', this.pos);
      const text = src.slice(this.pos, end < 0 ? undefined : end);
      const items: RNode[] = [];
      let at = this.pos;
      for (const ch of text) {
        this.pos = at + ch.length;
        items.push(this.literal(ch.codePointAt(0)!, flags, at));
        at += ch.length;
      }
      this.pos = end < 0 ? src.length : end + 2;
      return { t: 'cat', items };
    }
    if (d === 'C') {
      this.pos++;
      return this.char(ANY_CHAR, start);
    }
    const perl = this.perlClass();
    if (perl === null) return this.char(ANY_CHAR, start);
    if (perl !== undefined) return this.char(maskOf(perl, flags.i), start);
    const cp = this.escapedChar();
    if (cp === undefined) return this.fail();
    return this.literal(cp, flags, start);
  }

  private charClass(flags: Flags, start: number): RNode {
    const src = this.src;
    const negated = src[this.pos] === '^';
    if (negated) this.pos++;
    const ranges: Ranges = [];
    let unknown = false;
    let first = true;
    for (;;) {
      if (this.pos >= src.length) return this.fail();
      const c = src[this.pos]!;
      if (c === ']' && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === '[' && src[this.pos + 1] === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(src.slice(this.pos));
        const set = m ? POSIX[m[2]!] : undefined;
        if (!m || !set) return this.fail();
        this.pos += m[0].length;
        ranges.push(...(m[1] ? complement(set) : set));
        continue;
      }
      const lo = this.classItem();
      if (lo === null) {
        unknown = true;
        continue;
      }
      if (typeof lo !== 'number') {
        ranges.push(...lo);
        continue;
      }
      if (src[this.pos] === '-' && src[this.pos + 1] !== ']' && this.pos + 1 < src.length) {
        this.pos++;
        const hi = this.classItem();
        if (typeof hi !== 'number' || hi < lo) return this.fail();
        ranges.push([lo, hi]);
      } else {
        ranges.push([lo, lo]);
      }
    }
    if (unknown) return this.char(ANY_CHAR, start);
    const set = negated ? complement(ranges) : normalize(ranges);
    // Folding a negated class happens before the negation, so it only removes characters.
    return this.char(set.length === 0 ? 0 : maskOf(set, flags.i && !negated), start);
  }

  /** A code point, a set (`\d`), or null for a set that is not read (`\pL`). */
  private classItem(): number | Ranges | null {
    const src = this.src;
    if (src[this.pos] === '\\') {
      this.pos++;
      const perl = this.perlClass();
      if (perl !== undefined) return perl;
      const cp = this.escapedChar();
      if (cp === undefined) return this.fail();
      return cp;
    }
    const cp = src.codePointAt(this.pos)!;
    this.pos += String.fromCodePoint(cp).length;
    return cp;
  }
}
