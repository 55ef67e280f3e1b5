/**
 * Whether a regex can find a match in any text at all, read from its syntax tree (regex-parse.ts).
 * A fact about the regex alone, whatever the policy around it: `/a$b/` and `/[^\s\S]/` never match.
 *
 * Characters fall in three classes that the assertions can tell apart: a line break, an ASCII
 * word character (what `\b` looks at) and anything else; a position's neighbour is one of those,
 * or the edge of the text. The tree becomes an automaton over those classes that accepts a
 * superset of what the regex matches (counted repetitions become `*` or `+`; a set the tree leaves
 * unspelled, a Unicode class or a folded character outside ASCII, is taken as its hull), and the
 * automaton is searched for a path that meets every assertion. So "never matches" is only said
 * when it is true; "may match" is the answer whenever the regex is not analysable.
 */
import { charSet, contains, intersects, negate, union, type CharSet } from './regex-charset.js';
import { parseRegex, type AssertKind, type RegexNode, type SourceSpan } from './regex-parse.js';

/** A part of the regex that alone makes it unsatisfiable: an assertion, or a class that matches nothing. */
export interface NeverMatchCulprit extends SourceSpan {
  readonly kind: AssertKind | 'class';
}

/** The regex never matches; `culprit` when removing that one part alone would let it match. */
export interface NeverMatches {
  readonly culprit: NeverMatchCulprit | undefined;
}

const NL = 1;
const WORD = 2;
const OTHER = 4;
const ANY_CHAR = NL | WORD | OTHER;
/** The start (before) or the end (after) of the text. */
const EDGE = 8;
const ANY_NEXT = ANY_CHAR | EDGE;

const NEWLINE = 0x0a;
/** RE2's `\b` word characters: ASCII only, with or without case folding. */
const WORD_SET: CharSet = charSet([0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);
/** Neither a line break nor a word character. */
const OTHER_SET: CharSet = negate(union(WORD_SET, [NEWLINE, NEWLINE]));

/** The classes a set of characters touches (for a set the tree leaves unspelled, its hull's). */
function maskOf(set: CharSet | null, hull: CharSet | undefined): number {
  if (set === null) return hull === undefined ? ANY_CHAR : maskOf(hull, undefined);
  return (contains(set, NEWLINE) ? NL : 0) | (intersects(set, WORD_SET) ? WORD : 0) | (intersects(set, OTHER_SET) ? OTHER : 0);
}

/**
 * Whether no text contains a match of the regex (RE2 syntax, flags a subset of `ims`): undefined
 * when some text may, or when the regex is not analysable; otherwise the culprit, if one part
 * alone is to blame.
 */
export function neverMatches(source: string, flags: string): NeverMatches | undefined {
  const parsed = parseRegex(source, flags);
  if (!parsed.ok) return undefined;
  const suspects: RegexNode[] = [];
  collectSuspects(parsed.node, suspects);
  // With no assertion and no empty class, every path of the automaton can be taken.
  if (suspects.length === 0) return undefined;
  if (satisfiable(parsed.node, new Set())) return undefined;
  for (const n of suspects) {
    if (!satisfiable(parsed.node, new Set([n]))) continue;
    const span = parsed.spans.get(n);
    if (span === undefined) break;
    return { culprit: { kind: n.kind === 'assert' ? n.assert : 'class', start: span.start, end: span.end } };
  }
  return { culprit: undefined };
}

/** Assertions and sets of no character, in the order of the pattern. */
function collectSuspects(n: RegexNode, out: RegexNode[]): void {
  switch (n.kind) {
    case 'chars':
      if (maskOf(n.set, n.hull) === 0) out.push(n);
      return;
    case 'assert':
      out.push(n);
      return;
    case 'group':
    case 'repeat':
      collectSuspects(n.item, out);
      return;
    case 'concat':
      for (const item of n.items) collectSuspects(item, out);
      return;
    case 'alt':
      for (const alt of n.alts) collectSuspects(alt, out);
      return;
  }
}

/** The index of each kind of previous character (NL, WORD, OTHER, EDGE) among the four. */
const PREV_INDEX: Readonly<Record<number, number>> = { [NL]: 0, [WORD]: 1, [OTHER]: 2, [EDGE]: 3 };

/** Edge kinds of the automaton. */
const EPS = 0;
const CHAR = 1;
const ASSERT = 2;

/** Whether some text has a match, with the parts in `neutral` matching anything (a class) or always holding (an assertion). */
function satisfiable(tree: RegexNode, neutral: ReadonlySet<RegexNode>): boolean {
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
  const build = (n: RegexNode): number => {
    const s = state();
    switch (n.kind) {
      case 'chars': {
        const e = state();
        link(s, e, CHAR, neutral.has(n) ? ANY_CHAR : maskOf(n.set, n.hull));
        end = e;
        return s;
      }
      case 'assert': {
        const e = state();
        if (neutral.has(n)) link(s, e, EPS);
        else link(s, e, ASSERT, 0, n.assert);
        end = e;
        return s;
      }
      case 'group': {
        const a = build(n.item);
        link(s, a, EPS);
        return s;
      }
      case 'concat': {
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
        for (const alt of n.alts) {
          const a = build(alt);
          link(s, a, EPS);
          link(end, e, EPS);
        }
        end = e;
        return s;
      }
      case 'repeat': {
        if (n.max === 0) {
          end = s;
          return s;
        }
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
    case 'beginText':
      return prev === EDGE ? ANY_NEXT : 0;
    case 'beginLine':
      return prev === EDGE || prev === NL ? ANY_NEXT : 0;
    case 'endText':
      return EDGE;
    case 'endLine':
      return EDGE | NL;
    case 'wordBoundary':
      return prev === WORD ? nonWord : WORD;
    case 'notWordBoundary':
      return prev === WORD ? WORD : nonWord;
  }
}
