/**
 * JavaScript regexes as Gemini CLI compiles them (`new RegExp(source)`: no flags, so Annex B syntax
 * and UTF-16 code units), read by regexpp (ES2025, not in unicode mode, as `new RegExp` reads
 * them) into a small tree over the engine's character sets, and written again in RE2 syntax with
 * the same matches, or a reason why that cannot be done.
 *
 * Differences handled: JavaScript's `\s` also matches `\v`, U+FEFF, U+2028, U+2029 and every
 * Unicode space separator, RE2's only ASCII spaces, so `\s` is written as a class; JavaScript's `.`
 * excludes `\r`, U+2028 and U+2029, RE2's only `\n`; a JavaScript class atom matches one UTF-16
 * code unit, so an emoji is two atoms, while RE2 reads code points (see `re2Difference`). Lookarounds and
 * backreferences have no RE2 form; repetition counts above 1000 neither.
 */
import type { AST, RegExpParser as RegExpParserClass } from '@eslint-community/regexpp';
import { charSet, intersection, lazyRequire, negate, union, type CharSet } from '../../engine/index.js';

/** Sorted, disjoint, inclusive code-unit ranges `[lo0, hi0, lo1, hi1, ...]` (the engine's character sets, within the BMP). */
export type Units = CharSet;

export type Node =
  | { t: 'set'; units: Units }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; alts: Node[] }
  | { t: 'rep'; body: Node; min: number; max: number; lazy: boolean }
  | { t: 'assert'; kind: '^' | '$' | 'b' | 'B' }
  | { t: 'bad'; why: string };

/** Every UTF-16 code unit. */
const ALL_UNITS: Units = [0, 0xffff];
const SURROGATES: Units = [0xd800, 0xdfff];

/** The code units not in `a`. */
export function negateUnits(a: Units): Units {
  return intersection(negate(a), ALL_UNITS);
}

export const intersectUnits: (a: Units, b: Units) => Units = intersection;

function sameUnits(a: Units, b: Units): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const one = (c: number): Units => [c, c];
const DIGIT: Units = [0x30, 0x39];
const WORD: Units = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
/** JavaScript's WhiteSpace and LineTerminator: what `\s` matches. */
export const JS_SPACE: Units = charSet([
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f,
  0x3000, 0x3000, 0xfeff, 0xfeff,
]);
/** What `.` matches without the `s` flag. */
export const JS_DOT: Units = negateUnits(charSet([0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029]));

// -------- reading (the source is known to be accepted by `new RegExp`)

let parser: RegExpParserClass | undefined;

/** regexpp's reader of ES2025 syntax, with Annex B, loaded at the first regex read. */
function regexpParser(): RegExpParserClass {
  if (parser === undefined) {
    const { RegExpParser } = lazyRequire('@eslint-community/regexpp') as { RegExpParser: typeof RegExpParserClass };
    parser = new RegExpParser({ ecmaVersion: 2025 });
  }
  return parser;
}

const BACKREFERENCE = 'a backreference, which RE2 does not have';

function alternation(alternatives: readonly AST.Alternative[]): Node {
  const alts = alternatives.map(sequence);
  return alts.length === 1 ? alts[0]! : { t: 'alt', alts };
}

function sequence(alternative: AST.Alternative): Node {
  const items = alternative.elements.map(element);
  return items.length === 1 ? items[0]! : { t: 'seq', items };
}

/** A group's body is a sequence or an alternation (a single item becomes a sequence of one). */
function groupBody(alternatives: readonly AST.Alternative[]): Node {
  const body = alternation(alternatives);
  return body.t === 'seq' || body.t === 'alt' ? body : { t: 'seq', items: [body] };
}

function element(e: AST.Element): Node {
  switch (e.type) {
    case 'Quantifier': {
      const body = element(e.element);
      if (body.t === 'assert') return { t: 'bad', why: 'a quantified assertion' };
      return { t: 'rep', body, min: e.min, max: e.max, lazy: !e.greedy };
    }
    case 'Assertion':
      switch (e.kind) {
        case 'start':
          return { t: 'assert', kind: '^' };
        case 'end':
          return { t: 'assert', kind: '$' };
        case 'word':
          return { t: 'assert', kind: e.negate ? 'B' : 'b' };
        default:
          return { t: 'bad', why: 'a lookaround, which RE2 does not have' };
      }
    case 'Group':
      if (e.modifiers !== null) return { t: 'bad', why: 'a group modifier' };
      return groupBody(e.alternatives);
    case 'CapturingGroup':
      return groupBody(e.alternatives);
    case 'Backreference':
      return { t: 'bad', why: BACKREFERENCE };
    case 'Character':
      return { t: 'set', units: one(e.value) };
    case 'CharacterSet':
      return { t: 'set', units: characterSet(e) };
    case 'CharacterClass':
      return { t: 'set', units: characterClass(e) };
    case 'ExpressionCharacterClass':
      return { t: 'bad', why: 'a class expression' };
  }
}

function characterSet(e: AST.CharacterSet): Units {
  switch (e.kind) {
    case 'any':
      return JS_DOT;
    case 'digit':
      return e.negate ? negateUnits(DIGIT) : DIGIT;
    case 'word':
      return e.negate ? negateUnits(WORD) : WORD;
    case 'space':
      return e.negate ? negateUnits(JS_SPACE) : JS_SPACE;
    default:
      // `\p{...}` exists only with the `u` or `v` flag, which Gemini CLI does not give
      return [];
  }
}

function characterClass(e: AST.CharacterClass): Units {
  let units: Units = [];
  for (const item of e.elements) {
    switch (item.type) {
      case 'Character':
        units = union(units, one(item.value));
        break;
      case 'CharacterClassRange':
        units = union(units, [item.min.value, item.max.value]);
        break;
      case 'CharacterSet':
        units = union(units, characterSet(item));
        break;
      default:
        break;
    }
  }
  return e.negate ? negateUnits(units) : units;
}

export type JsRegexCheck = { ok: true } | { ok: false; message: string };

/** What `new RegExp(source)` says, as Gemini CLI calls it. */
export function checkJsRegex(source: string): JsRegexCheck {
  try {
    new RegExp(source);
    return { ok: true };
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const i = raw.lastIndexOf(': ');
    return { ok: false, message: (i >= 0 ? raw.slice(i + 2) : raw).toLowerCase() };
  }
}

/** Gemini CLI's `isSafeRegExp` (policy/utils.ts): a length cap and a nested-quantifier heuristic. */
export function isSafeForGemini(source: string): boolean {
  if (!checkJsRegex(source).ok) return false;
  if (source.length > 2048) return false;
  return !/\([^)]*[*+?{].*\)[*+?{]/.test(source);
}

/** Reads a source `new RegExp` accepts, as it reads it: no flags, so Annex B syntax and UTF-16 code units. */
export function parseJsRegex(source: string): Node {
  try {
    return alternation(regexpParser().parsePattern(source, 0, source.length, { unicode: false }).alternatives);
  } catch (err) {
    return { t: 'bad', why: `not read as JavaScript: ${(err instanceof Error ? err.message : String(err)).toLowerCase()}` };
  }
}

// -------- analyses

/** The first reason in the tree that it has no RE2 form, if any. */
export function badReason(n: Node): string | undefined {
  switch (n.t) {
    case 'bad':
      return n.why;
    case 'seq':
      for (const i of n.items) {
        const w = badReason(i);
        if (w) return w;
      }
      return undefined;
    case 'alt':
      for (const a of n.alts) {
        const w = badReason(a);
        if (w) return w;
      }
      return undefined;
    case 'rep':
      if (n.min > 1000 || (n.max !== Infinity && n.max > 1000)) return 'a repetition count above 1000, which RE2 does not allow';
      return badReason(n.body);
    default:
      return undefined;
  }
}

/** A sequence of one item is that item. */
export function unwrap(n: Node): Node {
  let x = n;
  while (x.t === 'seq' && x.items.length === 1) x = x.items[0]!;
  return x;
}

function nullable(n: Node): boolean {
  switch (n.t) {
    case 'set':
    case 'bad':
      return false;
    case 'assert':
      return true;
    case 'seq':
      return n.items.every(nullable);
    case 'alt':
      return n.alts.some(nullable);
    case 'rep':
      return n.min === 0 || nullable(n.body);
  }
}

function hasAssert(n: Node): boolean {
  switch (n.t) {
    case 'assert':
      return true;
    case 'seq':
      return n.items.some(hasAssert);
    case 'alt':
      return n.alts.some(hasAssert);
    case 'rep':
      return hasAssert(n.body);
    default:
      return false;
  }
}

/**
 * The tree without leading and trailing parts that can match the empty text and hold no
 * assertion: a search finds a match of the rest exactly when it finds one of the whole.
 */
export function trimEdges(n: Node): Node {
  if (n.t !== 'seq') return nullable(n) && !hasAssert(n) ? { t: 'seq', items: [] } : n;
  const items = [...n.items];
  while (items.length > 0 && nullable(items[items.length - 1]!) && !hasAssert(items[items.length - 1]!)) items.pop();
  while (items.length > 0 && nullable(items[0]!) && !hasAssert(items[0]!)) items.shift();
  return items.length === 1 ? items[0]! : { t: 'seq', items };
}

/** Every code unit some atom of the tree can match. */
export function consumable(n: Node): Units {
  switch (n.t) {
    case 'set':
      return n.units;
    case 'seq':
      return n.items.reduce<Units>((acc, i) => union(acc, consumable(i)), []);
    case 'alt':
      return n.alts.reduce<Units>((acc, a) => union(acc, consumable(a)), []);
    case 'rep':
      return n.max === 0 ? [] : consumable(n.body);
    default:
      return [];
  }
}

export function hasAnchor(n: Node): boolean {
  switch (n.t) {
    case 'assert':
      return n.kind === '^' || n.kind === '$';
    case 'seq':
      return n.items.some(hasAnchor);
    case 'alt':
      return n.alts.some(hasAnchor);
    case 'rep':
      return hasAnchor(n.body);
    default:
      return false;
  }
}

function hasNotBoundary(n: Node): boolean {
  switch (n.t) {
    case 'assert':
      return n.kind === 'B';
    case 'seq':
      return n.items.some(hasNotBoundary);
    case 'alt':
      return n.alts.some(hasNotBoundary);
    case 'rep':
      return hasNotBoundary(n.body);
    default:
      return false;
  }
}

/**
 * Why RE2 can find other matches than JavaScript, for a tree `toRe2` writes; undefined when it
 * cannot on texts whose surrogates are paired.
 *
 * Atoms that can match a surrogate (`.`, negated classes, `\S`, `\W`, `\D`) match one UTF-16
 * code unit in JavaScript and a whole character outside the BMP in RE2; the two agree when each
 * such atom repeats without an upper bound directly and, together, they need at most one
 * character. A `\B` holds in JavaScript between the two units of a pair, and in RE2 (which
 * works on UTF-8) inside any character outside ASCII: `/\B/` finds a match in `a\u00a0a` there.
 */
export function re2Difference(n: Node): string | undefined {
  if (hasNotBoundary(n)) return 'a `\\B`, which RE2 also finds inside a character outside ASCII';
  let needed = 0;
  let safe = true;
  const walk = (x: Node, repeated: boolean): void => {
    switch (x.t) {
      case 'set':
        if (intersectUnits(x.units, SURROGATES).length > 0) safe = false;
        return;
      case 'seq':
        x.items.forEach((i) => walk(i, repeated));
        return;
      case 'alt':
        x.alts.forEach((a) => walk(a, repeated));
        return;
      case 'rep': {
        const body = unwrap(x.body);
        if (body.t === 'set' && intersectUnits(body.units, SURROGATES).length > 0) {
          if (x.max !== Infinity || (x.min > 0 && repeated)) safe = false;
          needed += Math.min(x.min, 2);
          return;
        }
        walk(x.body, repeated || x.max > 1);
        return;
      }
      default:
        return;
    }
  };
  walk(n, false);
  if (safe && needed <= 1) return undefined;
  return 'a class for one character, which counts a character outside the basic multilingual plane (such as an emoji) as two in gemini cli and as one in dshpolicy';
}

/**
 * Whether a search for the regex in a JSON text can only find its matches inside one member: no
 * match can take a `,`, `{` or `}` that stands outside a string. Such a regex finds a match in an
 * object's JSON whatever the order of its keys.
 */
export function staysInMember(n: Node): boolean {
  const nfa = buildNfa(n);
  // Lexer states: 0 outside strings, 1 in a string, 2 after a backslash in a string.
  const seen = new Set<number>();
  const work: [number, number][] = [];
  const push = (s: number, l: number) => {
    const k = s * 3 + l;
    if (!seen.has(k)) {
      seen.add(k);
      work.push([s, l]);
    }
  };
  for (const l of [0, 1, 2]) push(nfa.start, l);
  const STRUCT: Units = charSet([0x2c, 0x2c, 0x7b, 0x7b, 0x7d, 0x7d]);
  const QUOTE = one(0x22);
  const BACKSLASH = one(0x5c);
  // Outside strings, compact JSON holds only brackets, `:`, numbers and `true`, `false`, `null`.
  const OUTSIDE = charSet([...unitsOf('[]:+-.0123456789eEtrufalsn')]);
  const ESCAPED = charSet([...unitsOf('"\\/bfnrtu')]);
  while (work.length > 0) {
    const [s, l] = work.pop()!;
    for (const e of nfa.edges[s] ?? []) {
      if (e.units === null) {
        push(e.to, l);
        continue;
      }
      const u = e.units;
      const has = (x: Units) => intersectUnits(u, x).length > 0;
      if (l === 0) {
        if (has(STRUCT)) return false;
        if (has(QUOTE)) push(e.to, 1);
        if (has(OUTSIDE)) push(e.to, 0);
      } else if (l === 1) {
        if (has(QUOTE)) push(e.to, 0);
        if (has(BACKSLASH)) push(e.to, 2);
        if (has(negateUnits(union(QUOTE, BACKSLASH)))) push(e.to, 1);
      } else if (has(ESCAPED)) push(e.to, 1);
    }
  }
  return true;
}

function unitsOf(chars: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < chars.length; i++) out.push(chars.charCodeAt(i), chars.charCodeAt(i));
  return out;
}

interface Nfa {
  start: number;
  edges: { to: number; units: Units | null }[][];
}

/** A Thompson automaton; assertions are empty steps and a repetition above once is a star (a superset). */
function buildNfa(root: Node): Nfa {
  const edges: { to: number; units: Units | null }[][] = [];
  const state = () => {
    edges.push([]);
    return edges.length - 1;
  };
  const add = (from: number, to: number, units: Units | null) => edges[from]!.push({ to, units });
  const build = (n: Node, from: number): number => {
    switch (n.t) {
      case 'set': {
        const to = state();
        add(from, to, n.units);
        return to;
      }
      case 'seq': {
        let at = from;
        for (const i of n.items) at = build(i, at);
        return at;
      }
      case 'alt': {
        const to = state();
        for (const a of n.alts) add(build(a, from), to, null);
        return to;
      }
      case 'rep': {
        const to = state();
        if (n.max === 0) {
          add(from, to, null);
          return to;
        }
        const loopStart = state();
        add(from, loopStart, null);
        const end = build(n.body, loopStart);
        add(end, to, null);
        if (n.min === 0) add(from, to, null);
        if (n.max > 1) add(end, loopStart, null);
        return to;
      }
      default: {
        const to = state();
        add(from, to, null);
        return to;
      }
    }
  };
  const start = state();
  build(root, start);
  return { start, edges };
}

// -------- writing RE2

const RE2_META = new Set([...'\\.^$|?*+()[]{}']);
const CLASS_META = new Set([...'\\]^-[']);

function cpText(cp: number, inClass: boolean): string {
  const ch = String.fromCodePoint(cp);
  const named: Record<number, string> = { 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };
  if (named[cp] !== undefined) return named[cp]!;
  const invisible = cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || (/\p{Zs}/u.test(ch) && cp !== 0x20) || /[\p{Zl}\p{Zp}\p{Cf}\p{Co}\p{Cn}]/u.test(ch);
  if (invisible) {
    return `\\x{${cp.toString(16).toUpperCase()}}`;
  }
  if (inClass ? CLASS_META.has(ch) : RE2_META.has(ch)) return `\\${ch}`;
  return ch;
}

const SPACE_CLASS_BODY = '\\s\\v\\p{Zs}\\x{2028}\\x{2029}\\x{FEFF}';

/** A class body for BMP ranges that hold no surrogate. */
function rangesText(u: Units): string {
  let out = '';
  for (let i = 0; i < u.length; i += 2) {
    const lo = u[i]!;
    const hi = u[i + 1]!;
    out += hi === lo ? cpText(lo, true) : hi === lo + 1 ? cpText(lo, true) + cpText(hi, true) : `${cpText(lo, true)}-${cpText(hi, true)}`;
  }
  return out;
}

/** A set of code units in RE2, where it has one: every surrogate, or none, must be in it. */
function setText(units: Units): string | { why: string } {
  const sur = intersectUnits(units, SURROGATES);
  const all = sur.length === 2 && sur[0] === 0xd800 && sur[1] === 0xdfff;
  if (sur.length > 0 && !all) return { why: 'a class of some surrogate code units, which RE2 cannot say' };
  if (sameUnits(units, DIGIT)) return '\\d';
  if (sameUnits(units, WORD)) return '\\w';
  if (sameUnits(units, negateUnits(DIGIT))) return '\\D';
  if (sameUnits(units, negateUnits(WORD))) return '\\W';
  if (sameUnits(units, JS_SPACE)) return `[${SPACE_CLASS_BODY}]`;
  if (sameUnits(units, negateUnits(JS_SPACE))) return `[^${SPACE_CLASS_BODY}]`;
  if (all) {
    const rest = negateUnits(units);
    return rest.length === 0 ? '(?s:.)' : `[^${rangesText(rest)}]`;
  }
  if (units.length === 2 && units[0] === units[1]) return cpText(units[0]!, false);
  if (units.length === 0) return '[^\\x{0}-\\x{10FFFF}]';
  return `[${rangesText(units)}]`;
}

function isLit(n: Node | undefined, lo: number, hi: number): n is { t: 'set'; units: Units } {
  return n !== undefined && n.t === 'set' && n.units.length === 2 && n.units[0] === n.units[1] && n.units[0]! >= lo && n.units[0]! <= hi;
}

export type Re2Result = { ok: true; source: string } | { ok: false; why: string };

/** The tree in RE2 syntax, matching the same texts unless `re2Difference` says otherwise. */
export function toRe2(n: Node): Re2Result {
  try {
    return { ok: true, source: write(n, 'top') };
  } catch (err) {
    if (err instanceof NoRe2) return { ok: false, why: err.message };
    throw err;
  }
}

class NoRe2 extends Error {}

function write(n: Node, ctx: 'top' | 'seq' | 'rep'): string {
  switch (n.t) {
    case 'bad':
      throw new NoRe2(n.why);
    case 'set': {
      const t = setText(n.units);
      if (typeof t !== 'string') throw new NoRe2(t.why);
      return t;
    }
    case 'assert':
      return n.kind === '^' ? '^' : n.kind === '$' ? '$' : `\\${n.kind}`;
    case 'alt': {
      const body = n.alts.map((a) => write(a, 'top')).join('|');
      return ctx === 'top' ? body : `(?:${body})`;
    }
    case 'seq': {
      let out = '';
      for (let i = 0; i < n.items.length; i++) {
        const a = n.items[i];
        const b = n.items[i + 1];
        // A surrogate pair written as two literal atoms is one character outside the BMP.
        if (isLit(a, 0xd800, 0xdbff) && isLit(b, 0xdc00, 0xdfff)) {
          const cp = ((a.units[0]! - 0xd800) << 10) + (b.units[0]! - 0xdc00) + 0x10000;
          out += `\\x{${cp.toString(16).toUpperCase()}}`;
          i++;
          continue;
        }
        out += write(a!, 'seq');
      }
      if (ctx === 'rep' && unwrap(n).t === 'seq') return `(?:${out})`;
      return out;
    }
    case 'rep': {
      if (n.min > 1000 || (n.max !== Infinity && n.max > 1000)) throw new NoRe2('a repetition count above 1000, which RE2 does not allow');
      const body = write(n.body, 'rep');
      const inner = unwrap(n.body);
      const q =
        n.min === 0 && n.max === Infinity ? '*' : n.min === 1 && n.max === Infinity ? '+' : n.min === 0 && n.max === 1 ? '?' : n.max === Infinity ? `{${n.min},}` : n.min === n.max ? `{${n.min}}` : `{${n.min},${n.max}}`;
      const atomic = inner.t === 'set' || inner.t === 'alt' || (inner.t === 'seq' && inner.items.length !== 1);
      return `${atomic ? body : `(?:${body})`}${q}${n.lazy ? '?' : ''}`;
    }
  }
}

/** A literal text as an RE2 regex. */
export function re2Literal(text: string): string {
  let out = '';
  for (const ch of text) out += cpText(ch.codePointAt(0)!, false);
  return out;
}

/** The literal code units a tree starts with (for `"command":"` detection), and the rest. */
export function splitLiteralPrefix(n: Node, prefix: string): Node | undefined {
  if (n.t !== 'seq') return undefined;
  if (n.items.length < prefix.length) return undefined;
  for (let i = 0; i < prefix.length; i++) {
    const it = n.items[i];
    const c = prefix.charCodeAt(i);
    if (!isLit(it, c, c)) return undefined;
  }
  const rest = n.items.slice(prefix.length);
  return rest.length === 1 ? rest[0]! : { t: 'seq', items: rest };
}
