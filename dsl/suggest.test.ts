import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { closest, codeAlternatives, codeList, didYouMean, editDistance } from './suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('pretool', 'pre-tool')).toBe(1);
    expect(editDistance('Bsh', 'Bash')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
  });

  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('Bahs', 'Bash')).toBe(1);
    expect(editDistance('pormpt', 'prompt')).toBe(1);
  });

  it('is a metric on small strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (a, b) => {
        const d = editDistance(a, b);
        expect(d).toBe(editDistance(b, a));
        expect(d === 0).toBe(a === b);
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
      }),
    );
  });
});

describe('closest', () => {
  it('prefers a candidate equal ignoring case', () => {
    expect(closest('bash', ['Bush', 'Bash'])).toBe('Bash');
  });

  it('finds the nearest candidate within the distance', () => {
    expect(closest('Bsh', ['Read', 'Bash', 'Edit'])).toBe('Bash');
    expect(closest('pretool', ['pre-tool', 'post-tool'])).toBe('pre-tool');
  });

  it('gives nothing when every candidate is far away', () => {
    expect(closest('Frobnicate', ['Bash', 'Read'])).toBeUndefined();
  });

  it('does not match very short words to anything', () => {
    expect(closest('x', ['y', 'ab'])).toBeUndefined();
  });

  it('never suggests the word itself', () => {
    expect(closest('Bash', ['Bash'])).toBeUndefined();
  });

  it('breaks ties by candidate order', () => {
    expect(closest('cat', ['bat', 'hat'])).toBe('bat');
    expect(closest('cat', ['hat', 'bat'])).toBe('hat');
  });
});

describe('formatting', () => {
  it('quotes words', () => {
    expect(didYouMean('Bsh', ['Bash'])).toBe('did you mean `Bash`?');
    expect(didYouMean('zzzzzz', ['Bash'])).toBeUndefined();
    expect(codeList(['a', 'b'])).toBe('`a`, `b`');
    expect(codeAlternatives(['a'])).toBe('`a`');
    expect(codeAlternatives(['a', 'b', 'c'])).toBe('`a`, `b` or `c`');
  });
});
