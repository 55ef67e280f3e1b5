import { applyPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines, unifiedDiff } from './diff.js';

describe('unifiedDiff', () => {
  it('prints hunks with three lines of context under the two names', () => {
    expect(unifiedDiff('a\nb\nc\n', 'a\nB\nc\nd\n', 'x', 'x')).toBe('--- x\n+++ x\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n');
    expect(unifiedDiff('', 'n\n', '/dev/null', 'y')).toBe('--- /dev/null\n+++ y\n@@ -0,0 +1,1 @@\n+n\n');
    expect(unifiedDiff('same', 'same', 'a', 'b')).toBe('');
  });

  it('marks a last line without a line break', () => {
    expect(diffLines('a\nb', 'a\nb\n')).toEqual(['@@ -1,2 +1,2 @@', ' a', '-b', '\\ No newline at end of file', '+b']);
  });

  it('removes and adds whole texts too far apart to search', () => {
    const before = Array.from({ length: 600 }, (_, i) => `old ${i}`).join('\n');
    const after = `${Array.from({ length: 600 }, (_, i) => `new ${i}`).join('\n')}\n`;
    const lines = diffLines(before, after);
    expect(lines[0]).toBe('@@ -1,600 +1,600 @@');
    expect(lines.slice(1, 3)).toEqual(['-old 0', '-old 1']);
    expect(lines[600]).toBe('-old 599');
    expect(lines[601]).toBe('\\ No newline at end of file');
    expect(lines[602]).toBe('+new 0');
    expect(lines).toHaveLength(1 + 600 + 1 + 600);
    expect(applyPatch(before, unifiedDiff(before, after, 'a', 'b'))).toBe(after);
  });

  it('gives a patch that turns the one text into the other', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '', ' x'), { maxLength: 30 }).chain((lines) =>
      fc.boolean().map((ended) => (lines.length === 0 ? '' : lines.join('\n') + (ended ? '\n' : ''))),
    );
    fc.assert(
      fc.property(text, text, (before, after) => {
        const patch = unifiedDiff(before, after, 'a', 'b');
        expect(patch === '' ? before : applyPatch(before, patch)).toBe(after);
      }),
    );
  });
});
