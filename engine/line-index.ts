/**
 * Offsets of one text to 1-based line/column positions, spans and line texts, and back: the one
 * line index of the engine and of every layer above it. A line ends at `\n` (a `\r` before it stays
 * part of the line), so positions agree with the grammar's; `{ cr: true }` also ends a line at a
 * `\r` not followed by `\n`, for layout that follows the lines an editor shows.
 *
 * Offsets are UTF-16 indexes; an offset out of the text (or not finite) is clamped into it, so a
 * position is always one of the text's.
 */
import type { Position, Span } from './diagnostics.js';

export interface LineIndexOptions {
  /** A `\r` not followed by `\n` ends a line too. */
  cr?: boolean;
}

export class LineIndex {
  /** The offset where each line starts; `starts[0]` is 0. */
  private readonly starts: number[] = [0];
  /** The 0-based line of the last position asked for: positions are mostly asked for in order. */
  private last = 0;

  constructor(
    readonly text: string,
    options: LineIndexOptions = {},
  ) {
    if (options.cr) {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) this.starts.push(i + 1);
      }
    } else {
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
    }
  }

  /** The 1-based line of an offset. */
  lineOf(offset: number): number {
    return this.lineIndexOf(this.clamp(offset)) + 1;
  }

  position(offset: number): Position {
    const off = this.clamp(offset);
    const line = this.lineIndexOf(off);
    return { line: line + 1, column: off - (this.starts[line] as number) + 1, offset: off };
  }

  /** The span `[start, end)` in `file`; an `end` before `start` gives an empty span at `start`. */
  span(file: string, start: number, end: number): Span {
    const s = this.position(start);
    return { file, start: s, end: this.clamp(end) > s.offset ? this.position(end) : s };
  }

  /** The offset of a 1-based line and column, each clamped into the text. */
  offsetOf(line: number, column: number): number {
    const l = Math.max(1, Math.min(Number.isFinite(line) ? Math.trunc(line) : 1, this.starts.length));
    return this.clamp((this.starts[l - 1] as number) + Math.max(0, column - 1));
  }

  /** The text of a 1-based line without the line break that ends it; undefined past the last line. */
  lineText(line: number): string | undefined {
    if (!Number.isInteger(line) || line < 1 || line > this.starts.length) return undefined;
    const start = this.starts[line - 1] as number;
    const next = this.starts[line];
    if (next === undefined) return this.text.slice(start);
    // the break before `next` is `\n` or a lone `\r`: one character
    return this.text.slice(start, next - 1);
  }

  /** `offset` clamped into the text. */
  private clamp(offset: number): number {
    return Number.isFinite(offset) ? Math.max(0, Math.min(Math.trunc(offset), this.text.length)) : 0;
  }

  /** The 0-based line of a clamped offset: the last one starting at or before it. */
  private lineIndexOf(off: number): number {
    const starts = this.starts;
    const cached = this.last;
    const next = starts[cached + 1];
    if ((starts[cached] as number) <= off && (next === undefined || off < next)) return cached;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= off) lo = mid;
      else hi = mid - 1;
    }
    this.last = lo;
    return lo;
  }
}

/** The position of one offset in `text`; for several offsets of one text, keep a `LineIndex`. */
export function positionAt(text: string, offset: number): Position {
  return new LineIndex(text).position(offset);
}
