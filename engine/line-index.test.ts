import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineIndex, positionAt } from './line-index.js';

/** The position of `offset` by counting, one character at a time. */
function counted(text: string, offset: number, cr = false): { line: number; column: number; offset: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    const c = text.charAt(i);
    if (c === '\n' || (cr && c === '\r' && text.charAt(i + 1) !== '\n')) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1, offset };
}

describe('LineIndex', () => {
  it('gives 1-based lines and columns; a line ends at `\\n`, a `\\r` before it is part of it', () => {
    const lines = new LineIndex('ab\r\ncd\n\ne');
    expect(lines.position(0)).toEqual({ line: 1, column: 1, offset: 0 });
    expect(lines.position(2)).toEqual({ line: 1, column: 3, offset: 2 });
    expect(lines.position(4)).toEqual({ line: 2, column: 1, offset: 4 });
    expect(lines.position(8)).toEqual({ line: 4, column: 1, offset: 8 });
    expect([1, 2, 3, 4, 5].map((n) => lines.lineText(n))).toEqual(['ab\r', 'cd', '', 'e', undefined]);
    expect(lines.lineText(0)).toBeUndefined();
    expect(new LineIndex('a\n').lineText(2)).toBe('');
  });

  it('ends a line at a lone `\\r` too when asked', () => {
    const lines = new LineIndex('a\rb\r\nc', { cr: true });
    expect([0, 2, 5].map((o) => lines.lineOf(o))).toEqual([1, 2, 3]);
    expect([1, 2, 3].map((n) => lines.lineText(n))).toEqual(['a', 'b\r', 'c']);
    expect(new LineIndex('a\rb').lineOf(2)).toBe(1);
  });

  it('clamps offsets, lines and columns into the text', () => {
    const lines = new LineIndex('ab\ncd');
    expect(lines.position(-3)).toEqual({ line: 1, column: 1, offset: 0 });
    expect(lines.position(99)).toEqual({ line: 2, column: 3, offset: 5 });
    expect(lines.position(Number.NaN)).toEqual({ line: 1, column: 1, offset: 0 });
    expect(lines.position(3.7)).toEqual({ line: 2, column: 1, offset: 3 });
    expect(lines.offsetOf(2, 2)).toBe(4);
    expect(lines.offsetOf(9, 1)).toBe(3);
    expect(lines.offsetOf(1, 99)).toBe(5);
    expect(lines.offsetOf(0, 0)).toBe(0);
  });

  it('gives spans, empty when the end comes before the start', () => {
    const lines = new LineIndex('ab\ncd');
    expect(lines.span('f', 1, 4)).toEqual({ file: 'f', start: { line: 1, column: 2, offset: 1 }, end: { line: 2, column: 2, offset: 4 } });
    expect(lines.span('f', 4, 1)).toEqual({ file: 'f', start: { line: 2, column: 2, offset: 4 }, end: { line: 2, column: 2, offset: 4 } });
  });

  it('agrees with counting, for offsets asked in any order', () => {
    const text = fc.array(fc.constantFrom('a', 'bc', '\n', '\r', '\r\n', ' '), { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 10 }), fc.boolean(), (t, offsets, cr) => {
        const lines = new LineIndex(t, { cr });
        for (const o of offsets.map((x) => x % (t.length + 1))) {
          expect(lines.position(o)).toEqual(counted(t, o, cr));
          expect(lines.offsetOf(lines.position(o).line, lines.position(o).column)).toBe(o);
        }
        expect(positionAt(t, t.length)).toEqual(counted(t, t.length));
      }),
    );
  });
});
