/**
 * A JavaScript RegExp in place of RE2, for the patterns where the two provably agree and where the
 * backtracking JavaScript engine provably runs in linear time.
 *
 * Agreement. The parsed pattern (regex-parse.ts, which follows what RE2 parses) is written out as a
 * JavaScript regex with flag `u` only, every set spelled out as code point ranges:
 * - `.` and classes become explicit ranges (RE2 `.` is `[^\n]` without `s`; `\s` is `[\t\n\f\r ]`;
 *   `\d`, `\w` and POSIX classes are ASCII), and case folding is done by the parser (ASCII orbits,
 *   with U+212A for k and U+017F for s), so no JavaScript `i` flag is involved;
 * - `^`/`$` outside `m` mode become JavaScript `^`/`$` (start/end of text, no `m` flag); inside
 *   `m` mode, where RE2 looks at `\n` only, they become `(?:^|(?<=\n))` and `(?=\n|$)` (positive
 *   lookarounds: JavaScript tries empty matches between the two halves of a surrogate pair too,
 *   where a negated class in a lookaround would see an unpaired surrogate);
 * - `\b`/`\B` stay: without `i`, JavaScript word characters are the ASCII `[0-9A-Za-z_]` of RE2.
 * RE2 searches UTF-8 bytes and may put an empty match inside a multi-byte character, JavaScript
 * inside a surrogate pair; of the assertions used, only `\B` holds there (in both), so a pattern
 * that can match the empty string and contains `\B` is left to RE2. Unicode classes (`\pL`),
 * non-ASCII characters under case folding and `\C` are left to RE2 too. (re2js reads code points,
 * so it never puts a match inside a character; the fast path holds for both engines.) Texts given
 * to the fast path must have no unpaired surrogates (re2-wasm's UTF-8 conversion garbles them),
 * see regex.ts.
 *
 * Linear time. Alternatives that start with the same character are first factored (`ab|ac` becomes
 * `a(?:b|c)`). Then these conditions are checked:
 * 1. a quantifier with a choice (`max > min`) applies to a single-character atom, or is `?` on a
 *    group that cannot match the empty string; fixed counts `{n}` are plain sequences; counts are
 *    at most 100;
 * 2. the character set of each such quantified atom is disjoint from FOLLOW (the first characters
 *    that can come after it, looking through assertions and nullable items) and from FIRST (the
 *    first characters of the whole pattern); a `?` group's first set is disjoint from its FOLLOW;
 * 3. the alternatives of a group have pairwise disjoint first sets (counting FOLLOW for a nullable
 *    one), and at most one of them is nullable.
 * Then at every point of a match attempt the next character selects at most one way to go on
 * (continue a loop or leave it, take an alternative, enter or skip an optional group): every other
 * way fails at that character, after O(m) steps through assertions and nullable items (m the
 * pattern size). Backtracking only retries such ways, so an attempt costs O(m²) per character it
 * consumes. An attempt consumes at most F = O(100·m) characters with unquantified atoms (no group
 * repeats), and the others with quantified atoms, whose characters are not in FIRST; an attempt
 * starting inside the span of an earlier one starts on a character in FIRST, so on one that the
 * earlier attempt consumed with an unquantified atom. Hence each text position lies in the spans of
 * at most F + 1 attempts, and a search costs O(n·m²·F): linear in the text for a given pattern.
 */
import { EMPTY_SET, intersects, union, type CharSet } from './regex-charset.js';
import { literalsOfTree } from './regex-literals.js';
import { parseRegex, type AssertKind, type RegexNode } from './regex-parse.js';

/** Largest repetition count on the fast path. */
const MAX_COUNT = 100;
/** Largest pattern size (atoms, counting repetitions) on the fast path. */
const MAX_SIZE = 5000;

export interface RegexAnalysis {
  /** JavaScript source (flag `u`) that agrees with RE2 on well-formed texts, or null. */
  readonly jsSource: string | null;
  /** Literals one of which every matching text contains (see regex-literals.ts), or null. */
  readonly literals: string[] | null;
  readonly folded: boolean;
  /** Why the pattern is not on the fast path. */
  readonly why?: string;
}

/** Analyses an RE2 regex (flags a subset of `ims`); never throws. */
export function analyseRegex(source: string, flags: string): RegexAnalysis {
  const parsed = parseRegex(source, flags);
  if (!parsed.ok) return { jsSource: null, literals: null, folded: false, why: parsed.why };
  const required = literalsOfTree(parsed.node, parsed.foldUsed);
  const literals = required?.literals ?? null;
  const folded = required?.folded ?? false;
  const fast = fastSource(factorAlternatives(parsed.node));
  if ('why' in fast) return { jsSource: null, literals, folded, why: fast.why };
  return { jsSource: fast.source, literals, folded };
}

/**
 * Moves characters that several alternatives start with in front of them (`foo|bar|baz` becomes
 * `foo|ba(?:r|z)`), so that alternatives start differently where possible. Whether a match exists
 * does not depend on the order or grouping of alternatives.
 */
export function factorAlternatives(node: RegexNode): RegexNode {
  switch (node.kind) {
    case 'chars':
    case 'assert':
      return node;
    case 'group':
      return { kind: 'group', item: factorAlternatives(node.item) };
    case 'concat':
      return { kind: 'concat', items: node.items.map(factorAlternatives) };
    case 'repeat':
      return { kind: 'repeat', min: node.min, max: node.max, item: factorAlternatives(node.item) };
    case 'alt':
      return factorSequences(node.alts.map((alt) => sequence(factorAlternatives(alt))));
  }
}

/** The items of a node read as a sequence (nested concatenations and groups without `|` flattened). */
function sequence(node: RegexNode): RegexNode[] {
  if (node.kind === 'concat') return node.items.flatMap(sequence);
  if (node.kind === 'group' && node.item.kind !== 'alt') return sequence(node.item);
  return [node];
}

function sameChars(a: RegexNode | undefined, b: RegexNode): boolean {
  if (a?.kind !== 'chars' || b.kind !== 'chars' || a.set === null || b.set === null) return false;
  return a.set.length === b.set.length && a.set.every((v, i) => v === b.set![i]);
}

function factorSequences(seqs: RegexNode[][]): RegexNode {
  const out: RegexNode[] = [];
  const used = seqs.map(() => false);
  let emptySeen = false;
  for (let i = 0; i < seqs.length; i++) {
    if (used[i]) continue;
    const seq = seqs[i]!;
    const head = seq[0];
    if (head === undefined) {
      if (!emptySeen) out.push({ kind: 'concat', items: [] });
      emptySeen = true;
      continue;
    }
    const same = [i];
    for (let j = i + 1; j < seqs.length; j++) if (!used[j] && sameChars(seqs[j]![0], head)) same.push(j);
    if (same.length === 1) {
      out.push(seq.length === 1 ? head : { kind: 'concat', items: seq });
      continue;
    }
    for (const j of same) used[j] = true;
    out.push({ kind: 'concat', items: [head, factorSequences(same.map((j) => seqs[j]!.slice(1)))] });
  }
  return out.length === 1 ? out[0]! : { kind: 'alt', alts: out };
}

interface Facts {
  readonly nullable: boolean;
  readonly first: CharSet;
}

/** Thrown inside the analysis (not an Error: no stack trace to capture). */
class NotFast {
  constructor(readonly why: string) {}
}

function reject(why: string): never {
  throw new NotFast(why);
}

/** The JavaScript source for a parsed pattern when it qualifies for the fast path, or why not. */
export function fastSource(root: RegexNode): { source: string } | { why: string } {
  try {
    const facts = new Map<RegexNode, Facts>();
    const factsOf = (node: RegexNode): Facts => {
      let f = facts.get(node);
      if (f === undefined) {
        f = computeFacts(node, factsOf);
        facts.set(node, f);
      }
      return f;
    };
    if (size(root) > MAX_SIZE) reject('pattern too large');
    const rootFacts = factsOf(root);
    if (rootFacts.nullable && containsAssert(root, 'notWordBoundary')) reject('`\\B` in a pattern that can match the empty string');
    checkLinear(root, EMPTY_SET, rootFacts.first, factsOf);
    return { source: toJs(root) };
  } catch (error) {
    return { why: error instanceof NotFast ? error.why : 'not analysable' };
  }
}

function computeFacts(node: RegexNode, factsOf: (node: RegexNode) => Facts): Facts {
  switch (node.kind) {
    case 'chars':
      if (node.set === null) reject('unicode class or case-folded non-ASCII character');
      return { nullable: false, first: node.set };
    case 'assert':
      return { nullable: true, first: EMPTY_SET };
    case 'group':
      return factsOf(node.item);
    case 'concat': {
      let first: CharSet = EMPTY_SET;
      for (const item of node.items) {
        const f = factsOf(item);
        first = union(first, f.first);
        if (!f.nullable) return { nullable: false, first };
      }
      return { nullable: true, first };
    }
    case 'alt': {
      let first: CharSet = EMPTY_SET;
      let nullable = false;
      for (const alt of node.alts) {
        const f = factsOf(alt);
        first = union(first, f.first);
        nullable ||= f.nullable;
      }
      return { nullable, first };
    }
    case 'repeat': {
      const f = factsOf(node.item);
      return { nullable: node.min === 0 || f.nullable, first: f.first };
    }
  }
}

function size(node: RegexNode): number {
  switch (node.kind) {
    case 'chars':
    case 'assert':
      return 1;
    case 'group':
      return size(node.item);
    case 'concat':
      return node.items.reduce((n, item) => n + size(item), 0);
    case 'alt':
      return node.alts.reduce((n, alt) => n + size(alt), 0);
    case 'repeat':
      return size(node.item) * Math.max(1, Math.min(node.max, node.min + 1));
  }
}

function containsAssert(node: RegexNode, kind: AssertKind): boolean {
  switch (node.kind) {
    case 'chars':
      return false;
    case 'assert':
      return node.assert === kind;
    case 'group':
    case 'repeat':
      return containsAssert(node.item, kind);
    case 'concat':
      return node.items.some((item) => containsAssert(item, kind));
    case 'alt':
      return node.alts.some((alt) => containsAssert(alt, kind));
  }
}

/** The node itself, or the single-character atom inside groups around it. */
function unwrap(node: RegexNode): RegexNode {
  while (node.kind === 'group') node = node.item;
  return node;
}

/** Checks conditions 1–3 for `node`, given FOLLOW (`follow`) and the pattern's FIRST (`first`). */
function checkLinear(node: RegexNode, follow: CharSet, first: CharSet, factsOf: (node: RegexNode) => Facts): void {
  switch (node.kind) {
    case 'chars':
    case 'assert':
      return;
    case 'group':
      checkLinear(node.item, follow, first, factsOf);
      return;
    case 'concat': {
      let after = follow;
      for (let i = node.items.length - 1; i >= 0; i--) {
        const item = node.items[i]!;
        checkLinear(item, after, first, factsOf);
        const f = factsOf(item);
        after = f.nullable ? union(f.first, after) : f.first;
      }
      return;
    }
    case 'alt': {
      const starts: CharSet[] = [];
      let nullables = 0;
      for (const alt of node.alts) {
        const f = factsOf(alt);
        if (f.nullable) nullables++;
        const start = f.nullable ? union(f.first, follow) : f.first;
        for (const other of starts) if (intersects(start, other)) reject('alternatives start with the same character');
        starts.push(start);
        checkLinear(alt, follow, first, factsOf);
      }
      if (nullables > 1) reject('several alternatives match the empty string');
      return;
    }
    case 'repeat': {
      if (node.min > MAX_COUNT || (node.max !== Infinity && node.max > MAX_COUNT)) reject('repetition count above 100');
      const item = unwrap(node.item);
      if (item.kind === 'chars') {
        if (node.min === node.max) return; // a fixed sequence
        const set = factsOf(item).first;
        if (intersects(set, follow)) reject('a repeated character can also follow the repetition');
        if (intersects(set, first)) reject('a repeated character can also start the pattern');
        return;
      }
      if (node.min === 1 && node.max === 1) {
        checkLinear(node.item, follow, first, factsOf);
        return;
      }
      if (node.min === 0 && node.max === 1 && item.kind !== 'assert') {
        const f = factsOf(node.item);
        if (f.nullable) reject('optional group that can match the empty string');
        if (intersects(f.first, follow)) reject('an optional group starts with a character that can follow it');
        checkLinear(node.item, follow, first, factsOf);
        return;
      }
      reject('repeated group');
    }
  }
}

function escapeCodePoint(cp: number): string {
  if ((cp >= 0x30 && cp <= 0x39) || ((cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a)) return String.fromCharCode(cp);
  return `\\u{${cp.toString(16)}}`;
}

function classSource(set: CharSet): string {
  if (set.length === 2 && set[0] === set[1]) return escapeCodePoint(set[0]!);
  let out = '[';
  for (let i = 0; i < set.length; i += 2) {
    out += escapeCodePoint(set[i]!);
    if (set[i + 1] !== set[i]) out += (set[i + 1]! > set[i]! + 1 ? '-' : '') + escapeCodePoint(set[i + 1]!);
  }
  return out + ']';
}

function toJs(node: RegexNode): string {
  switch (node.kind) {
    case 'chars':
      return classSource(node.set!);
    case 'assert':
      return assertSource(node.assert);
    case 'group':
      return toJs(node.item);
    case 'concat':
      return node.items.map(toJs).join('');
    case 'alt':
      return `(?:${node.alts.map(toJs).join('|')})`;
    case 'repeat': {
      const inner = unwrap(node.item);
      const atom = inner.kind === 'chars' || inner.kind === 'alt' ? toJs(inner) : `(?:${toJs(inner)})`;
      const { min, max } = node;
      if (min === 0 && max === Infinity) return atom + '*';
      if (min === 1 && max === Infinity) return atom + '+';
      if (min === 0 && max === 1) return atom + '?';
      if (max === Infinity) return `${atom}{${min},}`;
      return min === max ? `${atom}{${min}}` : `${atom}{${min},${max}}`;
    }
  }
}

function assertSource(kind: AssertKind): string {
  switch (kind) {
    case 'beginText':
      return '^';
    case 'endText':
      return '$';
    case 'beginLine':
      return '(?:^|(?<=\\n))';
    case 'endLine':
      return '(?=\\n|$)';
    case 'wordBoundary':
      return '\\b';
    case 'notWordBoundary':
      return '\\B';
  }
}
