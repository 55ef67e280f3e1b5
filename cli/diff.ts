/**
 * Unified diffs of two texts, computed by the `diff` package, with three lines of context: the
 * hunk lines (for `fmt --check`, which styles and cuts them) and the whole diff as text (for
 * `install --dry-run`). A last line without a line break is marked `\ No newline at end of file`.
 * The lines are the texts' own: whoever prints them to a terminal escapes them (untrusted.ts).
 */
import { formatPatch, OMIT_HEADERS, structuredPatch, type StructuredPatch } from 'diff';

const CONTEXT = 3;
/**
 * Two texts further apart than this many changed lines are not searched for what they share (the
 * search takes time that grows with their length times this): the diff removes the one and adds
 * the other whole.
 */
const MAX_EDIT = 1000;

/**
 * The diff from `before` to `after` as lines without file headers: each hunk's `@@ -a,b +c,d @@`,
 * then its lines, marked ` ` (context), `-`, `+` or `\`. None when the texts are equal.
 */
export function diffLines(before: string, after: string): string[] {
  if (before === after) return [];
  const patch = structuredPatch('', '', before, after, undefined, undefined, { context: CONTEXT, maxEditLength: MAX_EDIT }) ?? replaceWhole(before, after);
  return formatPatch(patch, OMIT_HEADERS).replace(/\n$/, '').split('\n');
}

/** The diff from `before` to `after` as text, under `--- beforeName` and `+++ afterName`; '' when they are equal. */
export function unifiedDiff(before: string, after: string, beforeName: string, afterName: string): string {
  if (before === after) return '';
  return [`--- ${beforeName}`, `+++ ${afterName}`, ...diffLines(before, after)].join('\n') + '\n';
}

/** One hunk that removes every line of `before` and adds every line of `after`. */
function replaceWhole(before: string, after: string): StructuredPatch {
  const removed = marked('-', before);
  const added = marked('+', after);
  const count = (lines: string[]) => lines.filter((l) => !l.startsWith('\\')).length;
  const hunk = { oldStart: 1, oldLines: count(removed), newStart: 1, newLines: count(added), lines: [...removed, ...added] };
  return { oldFileName: '', newFileName: '', oldHeader: undefined, newHeader: undefined, hunks: [hunk] };
}

function marked(mark: '-' | '+', text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  const ended = lines[lines.length - 1] === '';
  if (ended) lines.pop();
  const out = lines.map((l) => mark + l);
  if (!ended) out.push('\\ No newline at end of file');
  return out;
}
