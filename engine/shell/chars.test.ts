import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAssignmentName, isAssignmentWord } from './chars.js';

/** The definition: `NAME`, `NAME+`, `NAME[...]` or `NAME[...]+` before the first `=`. */
const ASSIGNMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?$/;

describe('assignments', () => {
  const text = fc.string({ unit: fc.constantFrom(...'aZ_09[]=+-x '.split('')), maxLength: 12 });

  it('recognises assignment names as the definition does', () => {
    fc.assert(
      fc.property(text, (v) => {
        expect(isAssignmentName(v)).toBe(ASSIGNMENT_NAME.test(v));
      }),
      { numRuns: 10000 },
    );
  });

  it('recognises assignment words as the definition does', () => {
    fc.assert(
      fc.property(text, (v) => {
        const eq = v.indexOf('=');
        expect(isAssignmentWord(v)).toBe(eq > 0 && ASSIGNMENT_NAME.test(v.slice(0, eq)));
      }),
      { numRuns: 10000 },
    );
  });
});
