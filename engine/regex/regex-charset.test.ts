import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { asciiFoldOrbit, charSet, contains, foldAsciiRange, intersection, intersects, members, negate, setSize, union } from './regex-charset.js';

// Sets over a small universe, with the top of the range included, compared with plain arrays.
const point = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(0x10ffff), fc.constant(0x10fffe));
const ranges = fc.array(fc.tuple(point, point), { maxLength: 5 }).map((pairs) => pairs.flatMap(([a, b]) => [Math.min(a, b), Math.max(a, b)]));
const probes = [...Array.from({ length: 42 }, (_, i) => i), 0x10fffe, 0x10ffff];

function has(pairs: number[], cp: number): boolean {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i]! <= cp && cp <= pairs[i + 1]!) return true;
  return false;
}

describe('character sets', () => {
  it('charSet, union, intersection, negate and intersects agree with membership', () => {
    fc.assert(
      fc.property(ranges, ranges, (a, b) => {
        const sa = charSet(a);
        const sb = charSet(b);
        for (let i = 2; i < sa.length; i += 2) expect(sa[i]!).toBeGreaterThan(sa[i - 1]! + 1); // sorted, merged
        for (const cp of probes) {
          expect(contains(sa, cp)).toBe(has(a, cp));
          expect(contains(union(sa, sb), cp)).toBe(has(a, cp) || has(b, cp));
          expect(contains(negate(sa), cp)).toBe(!has(a, cp));
          expect(contains(intersection(sa, sb), cp)).toBe(has(a, cp) && has(b, cp));
        }
        expect(intersection(sa, sb)).toEqual(charSet([...intersection(sa, sb)]));
        expect(intersects(sa, sb)).toBe(probes.some((cp) => has(a, cp) && has(b, cp)));
        expect(negate(negate(sa))).toEqual(sa);
      }),
    );
  });

  it('counts and lists members', () => {
    expect(setSize(charSet([5, 7, 1, 1]))).toBe(4);
    expect(members(charSet([5, 7, 1, 1]), 4)).toEqual([1, 5, 6, 7]);
    expect(members(charSet([0, 100]), 4)).toBeNull();
  });

  it('folds ASCII as RE2 does', () => {
    expect(asciiFoldOrbit(0x6b)).toEqual([0x4b, 0x6b, 0x212a]);
    expect(asciiFoldOrbit(0x53)).toEqual([0x53, 0x73, 0x17f]);
    expect(asciiFoldOrbit(0x41)).toEqual([0x41, 0x61]);
    expect(asciiFoldOrbit(0x5f)).toEqual([0x5f]);
    expect(foldAsciiRange(0x61, 0x62)).toEqual([0x41, 0x42, 0x61, 0x62]);
    expect(foldAsciiRange(0x30, 0x39)).toEqual([0x30, 0x39]);
    expect(foldAsciiRange(0x70, 0x80)).toBeNull();
  });
});
