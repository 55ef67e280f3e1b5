/**
 * Required literals of a regex: strings such that every text in which the regex finds a match
 * contains at least one of them. A text containing none of them cannot match, so a search for the
 * literals (literal-scanner.ts) can answer "no match" without running the regex.
 *
 * Literals never contain surrogates (astral characters split them), so the argument also holds for
 * texts with unpaired surrogates, with either engine: re2js reads such a unit as a character of
 * its own, and re2-wasm's UTF-8 conversion only ever merges it with its neighbour into one astral
 * character, leaving the other characters intact.
 */
import { members, type CharSet } from './regex-charset.js';
import { parseRegex, type RegexNode } from './regex-parse.js';

export interface RequiredLiterals {
  /** Every matching text contains at least one of these (each at least 2 UTF-16 code units long). */
  readonly literals: string[];
  /**
   * The pattern is at least partly case-insensitive: the literals are lowercase ASCII and are to be
   * looked for in `text.toLowerCase()` (or in the text with ASCII letters lowercased).
   */
  readonly folded: boolean;
}

/** Sets of strings are kept up to this size. */
const MAX_STRINGS = 64;
/** Strings are kept up to this length. */
const MAX_LENGTH = 256;
/** A character class becomes alternative literals when it has at most this many members. */
const MAX_CLASS = 8;
/** Shorter literals are not worth looking for. */
const MIN_USEFUL = 2;

/**
 * What is known about the strings a node matches. Each field is a set of strings or null (nothing
 * known). `exact`: the node matches exactly one of these strings. `prefix`/`suffix`: every match
 * starts/ends with one of them. `req`: every match contains one of them.
 */
interface Info {
  readonly exact: string[] | null;
  readonly prefix: string[] | null;
  readonly suffix: string[] | null;
  readonly req: string[] | null;
  /** For a concatenation: every run of it that each match contains (each a sound `req` on its own). */
  readonly options?: (string[] | null)[];
}

const OPAQUE: Info = { exact: null, prefix: null, suffix: null, req: null };
const EMPTY_STRING: Info = { exact: [''], prefix: [''], suffix: [''], req: [''] };

/**
 * Literals required by an RE2 regex (flags a subset of `ims`), or null when there is nothing useful:
 * the pattern is not analysable, can match the empty string, or has no required piece of 2 or more
 * characters.
 */
export function requiredLiterals(source: string, flags: string): RequiredLiterals | null {
  const parsed = parseRegex(source, flags);
  if (!parsed.ok) return null;
  return literalsOfTree(parsed.node, parsed.foldUsed);
}

/** Required literals of a parsed pattern; `folded` when case folding widened any character set. */
export function literalsOfTree(node: RegexNode, folded: boolean): RequiredLiterals | null {
  try {
    const info = analyse(node, folded);
    const best = pick([info.req, info.exact, info.prefix, info.suffix]);
    if (best === null || shortest(best) < MIN_USEFUL) return null;
    return { literals: reduce(best), folded };
  } catch {
    return null;
  }
}

/**
 * Every usable choice of required literals, best first: the pieces of a top-level concatenation
 * each on their own (`\btool12\s+--force\b` gives `--force` and `tool12`), so an index over
 * many patterns can take the piece fewest patterns share. Empty when there is nothing useful.
 */
export function requiredLiteralOptions(source: string, flags: string): RequiredLiterals[] {
  const parsed = parseRegex(source, flags);
  if (!parsed.ok) return [];
  const best = literalsOfTree(parsed.node, parsed.foldUsed);
  if (best === null) return [];
  const out: RequiredLiterals[] = [best];
  const seen = new Set([best.literals.join('\u0000')]);
  try {
    for (const option of analyse(parsed.node, parsed.foldUsed).options ?? []) {
      if (option === null || shortest(option) < MIN_USEFUL) continue;
      const literals = reduce(option);
      const key = literals.join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ literals, folded: parsed.foldUsed });
    }
  } catch {
    // the best choice alone
  }
  return out;
}

function analyse(node: RegexNode, folded: boolean): Info {
  switch (node.kind) {
    case 'chars':
      return charsInfo(node.set, folded);
    case 'assert':
      return EMPTY_STRING;
    case 'group':
      return analyse(node.item, folded);
    case 'concat':
      return concatInfo(node.items.map((item) => analyse(item, folded)));
    case 'alt':
      return altInfo(node.alts.map((alt) => analyse(alt, folded)));
    case 'repeat':
      return repeatInfo(node.min, node.max, analyse(node.item, folded));
  }
}

/**
 * The strings standing for one character of the set. Folded: each member is replaced by its ASCII
 * lowercase, and a set with a non-ASCII member stands for nothing (its lowercase may change length
 * or be shared with unrelated characters). Otherwise: the members themselves, except astral
 * characters and surrogates.
 */
function charsInfo(set: CharSet | null, folded: boolean): Info {
  if (set === null) return OPAQUE;
  if (!folded && set.length === 2 && set[0] === set[1] && set[0]! < 0xd800) {
    const exact = [String.fromCharCode(set[0]!)];
    return { exact, prefix: exact, suffix: exact, req: exact };
  }
  const chars = members(set, folded ? 2 * MAX_CLASS : MAX_CLASS);
  if (chars === null || chars.length === 0) return OPAQUE;
  const strings = new Set<string>();
  for (const c of chars) {
    if (folded ? c > 0x7f : c >= 0xd800 && (c <= 0xdfff || c > 0xffff)) return OPAQUE;
    strings.add(String.fromCharCode(folded && c >= 0x41 && c <= 0x5a ? c | 0x20 : c));
  }
  if (strings.size > MAX_CLASS) return OPAQUE;
  const exact = [...strings];
  return { exact, prefix: exact, suffix: exact, req: exact };
}

/** All concatenations a + b, or null when there would be too many or too long. */
function cross(a: readonly string[], b: readonly string[]): string[] | null {
  if (a.length === 1 && b.length === 1) {
    const joined = a[0]! + b[0]!;
    return joined.length > MAX_LENGTH ? null : [joined];
  }
  if (a.length * b.length > MAX_STRINGS) return null;
  const out = new Set<string>();
  for (const x of a) {
    for (const y of b) {
      if (x.length + y.length > MAX_LENGTH) return null;
      out.add(x + y);
    }
  }
  return [...out];
}

function concatInfo(items: Info[]): Info {
  // Every match of the items so far ends with one of the strings of each run: `run` joins the exact
  // items since the start or since the last inexact item's suffix; `fresh` starts after that item
  // instead (fewer alternatives, often as good). While everything is exact, `run` is exact.
  let run: string[] = [''];
  let fresh: string[] = [''];
  let allExact = true;
  let prefix: string[] | null = null;
  const candidates: (string[] | null)[] = [];
  for (const item of items) {
    if (item.exact !== null) {
      const joined = cross(run, item.exact);
      const joinedFresh = cross(fresh, item.exact);
      if (joined === null || joinedFresh === null) {
        candidates.push(run, fresh);
        if (allExact) prefix = run;
        allExact = false;
      }
      run = joined ?? item.exact;
      fresh = joinedFresh ?? item.exact;
      continue;
    }
    for (const r of [run, fresh]) {
      candidates.push(r);
      if (item.prefix !== null) candidates.push(cross(r, item.prefix));
    }
    if (allExact) prefix = item.prefix === null ? run : (cross(run, item.prefix) ?? run);
    allExact = false;
    candidates.push(item.req);
    run = item.suffix ?? [''];
    fresh = [''];
  }
  candidates.push(run, fresh);
  if (allExact) return { exact: run, prefix: run, suffix: run, req: pick(candidates), options: candidates };
  return { exact: null, prefix, suffix: run, req: pick(candidates), options: candidates };
}

function altInfo(alts: Info[]): Info {
  const all = (get: (info: Info) => string[] | null): string[] | null => {
    const out = new Set<string>();
    for (const alt of alts) {
      const set = get(alt);
      if (set === null) return null;
      for (const s of set) out.add(s);
    }
    return out.size <= MAX_STRINGS ? [...out] : null;
  };
  return {
    exact: all((a) => a.exact),
    prefix: all((a) => a.prefix ?? a.exact),
    suffix: all((a) => a.suffix ?? a.exact),
    req: all((a) => pick([a.req, a.exact, a.prefix, a.suffix])),
  };
}

function repeatInfo(min: number, max: number, item: Info): Info {
  if (min === 0) {
    if (max === 1 && item.exact !== null && item.exact.length < MAX_STRINGS) {
      const exact = [...new Set(['', ...item.exact])];
      return { exact, prefix: exact, suffix: exact, req: exact };
    }
    return OPAQUE;
  }
  if (item.exact === null) return { exact: null, prefix: item.prefix, suffix: item.suffix, req: item.req };
  // The first `min` copies are fixed (and so are the last `min`); keep as many as fit.
  let fixed = item.exact;
  let copies = 1;
  while (copies < min) {
    const next = cross(fixed, item.exact);
    if (next === null) break;
    fixed = next;
    copies++;
  }
  if (copies === min && min === max) return { exact: fixed, prefix: fixed, suffix: fixed, req: fixed };
  return { exact: null, prefix: fixed, suffix: fixed, req: fixed };
}

/** Length of the shortest string of a set of alternatives; -1 when the set is unusable. */
function shortest(set: readonly string[] | null): number {
  if (set === null || set.length === 0 || set.length > MAX_STRINGS) return -1;
  let min = Infinity;
  for (const s of set) min = Math.min(min, s.length);
  return min === 0 ? -1 : min;
}

/**
 * How selective looking for a set of alternatives is: longer is better, more alternatives worse
 * (one more character is worth about four times as many alternatives).
 */
function score(set: readonly string[] | null): number {
  const min = shortest(set);
  return min < 0 ? -Infinity : min - Math.log2(set!.length) / 2;
}

/** The most selective usable candidate. */
function pick(candidates: readonly (string[] | null)[]): string[] | null {
  let best: string[] | null = null;
  let bestScore = -Infinity;
  for (const c of candidates) {
    const s = score(c);
    if (s > bestScore) {
      best = c;
      bestScore = s;
    }
  }
  return best;
}

/** Drops strings that contain another string of the set (the shorter one is found whenever they are). */
function reduce(set: string[]): string[] {
  const sorted = [...new Set(set)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const s of sorted) if (!kept.some((k) => s.includes(k))) kept.push(s);
  return kept;
}
