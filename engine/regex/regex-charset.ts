/**
 * Sets of Unicode code points, as sorted lists of disjoint, non-adjacent inclusive ranges stored
 * flat: `[lo0, hi0, lo1, hi1, ...]`. Used to analyse regexes (see regex-parse.ts), and by the
 * Gemini bridge for the UTF-16 code units of JavaScript regexes.
 */

export type CharSet = readonly number[];

export const MAX_CODE_POINT = 0x10ffff;

export const EMPTY_SET: CharSet = [];
export const ALL_CHARS: CharSet = [0, MAX_CODE_POINT];
export const NEWLINE_SET: CharSet = [0x0a, 0x0a];

/** Builds a set from ranges in any order, possibly overlapping. */
export function charSet(ranges: readonly number[]): CharSet {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2) pairs.push([ranges[i]!, ranges[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    if (hi < lo) continue;
    const last = out.length - 1;
    if (last > 0 && lo <= out[last]! + 1) {
      if (hi > out[last]!) out[last] = hi;
    } else {
      out.push(lo, hi);
    }
  }
  return out;
}

export function singleChar(cp: number): CharSet {
  return [cp, cp];
}

export function union(a: CharSet, b: CharSet): CharSet {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return charSet([...a, ...b]);
}

/** The code points in 0..U+10FFFF that are not in `a`. */
export function negate(a: CharSet): CharSet {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < a.length; i += 2) {
    if (a[i]! > next) out.push(next, a[i]! - 1);
    next = a[i + 1]! + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

/** The code points in both sets. */
export function intersection(a: CharSet, b: CharSet): CharSet {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i]!, b[j]!);
    const hi = Math.min(a[i + 1]!, b[j + 1]!);
    if (lo <= hi) out.push(lo, hi);
    if (a[i + 1]! < b[j + 1]!) i += 2;
    else j += 2;
  }
  return out;
}

export function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i + 1]! < b[j]!) i += 2;
    else if (b[j + 1]! < a[i]!) j += 2;
    else return true;
  }
  return false;
}

export function contains(a: CharSet, cp: number): boolean {
  for (let i = 0; i < a.length; i += 2) {
    if (cp < a[i]!) return false;
    if (cp <= a[i + 1]!) return true;
  }
  return false;
}

/** Number of code points in the set. */
export function setSize(a: CharSet): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 2) n += a[i + 1]! - a[i]! + 1;
  return n;
}

/** The members of a set of at most `limit` code points, or null when it has more. */
export function members(a: CharSet, limit: number): number[] | null {
  if (setSize(a) > limit) return null;
  const out: number[] = [];
  for (let i = 0; i < a.length; i += 2) for (let c = a[i]!; c <= a[i + 1]!; c++) out.push(c);
  return out;
}

/**
 * RE2's simple case folding orbit of an ASCII code point: the ASCII letter pair, plus U+212A
 * (Kelvin sign) for k and U+017F (long s) for s. Other ASCII code points have no case.
 */
export function asciiFoldOrbit(cp: number): number[] {
  const lower = cp | 0x20;
  if (lower < 0x61 || lower > 0x7a) return [cp];
  const orbit = [lower - 0x20, lower];
  if (lower === 0x6b) orbit.push(0x212a);
  if (lower === 0x73) orbit.push(0x17f);
  return orbit;
}

/**
 * Adds the case folding orbits of the members of an ASCII-only range, as RE2 does for a range
 * under `(?i)`. Returns null when the range goes past ASCII, where the orbits are not tabulated here.
 */
export function foldAsciiRange(lo: number, hi: number): CharSet | null {
  if (hi > 0x7f) return null;
  const ranges: number[] = [lo, hi];
  for (let c = Math.max(lo, 0x41); c <= Math.min(hi, 0x7a); c++) {
    for (const o of asciiFoldOrbit(c)) ranges.push(o, o);
  }
  return charSet(ranges);
}

/** Whether the set holds no code point above U+007F. */
export function isAscii(a: CharSet): boolean {
  return a.length === 0 || a[a.length - 1]! <= 0x7f;
}
