/**
 * Text that came from outside (events, transcripts, hook output, fixture and policy files) made
 * safe to print on a terminal: whatever could move the cursor, retitle or recolour the terminal,
 * overwrite a line, or reorder what is read becomes a visible escape. Human output only: JSON
 * output is never passed through here, so it stays exact.
 *
 * Two modes. `inline` is for a value shown on one line (a command, a reason, a name, a table
 * cell, a message): every control is escaped, line breaks too, and the output reads back one way.
 * `block` is for lines of a file (a code frame, a diff): tab and line feed stay, and so do
 * backslashes, which are the file's own notation there (a JSON `\n`, a policy's `\u{1b}`).
 *
 * Escaped:
 * - C0 controls, U+0000-U+001F (`block` keeps tab and line feed), DEL and the C1 controls,
 *   U+007F-U+009F;
 * - the bidirectional controls U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, and the
 *   line and paragraph separators U+2028, U+2029 (some viewers break lines there);
 * - lone surrogates (a terminal would show U+FFFD and hide what the text held).
 *
 * Tab, line feed and carriage return read `\t`, `\n`, `\r`; other characters up to U+00FF read
 * `\xHH`, the rest `\uHHHH` (hex digits in lower case).
 *
 * In `inline` text backslashes stay as they are, so paths and regexes read as written, except a
 * run of them that comes right before what would read as an escape (`t`, `n`, `r`, `x` and two
 * hex digits, `u` and four, or an escaped character): that run is doubled. So the output reads
 * back one way: a run of backslashes before an escape body stands for half of itself, its last
 * backslash starting the escape when the run is odd; every other backslash is itself. (`block`
 * text gives that up: a literal `\x1b` in a file reads as an escaped ESC would; the file tells.)
 */

export type TextMode = 'inline' | 'block';

/** What may need escaping (surrogates are checked for a partner one by one). */
const NEEDS_INLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\\]/;
const NEEDS_BLOCK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/;

const BACKSLASH = 0x5c;
const HEX = '0123456789abcdef';

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const isHexDigit = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const hex2 = (c: number) => `\\x${HEX[c >> 4]}${HEX[c & 15]}`;
const hex4 = (c: number) => `\\u${HEX[c >> 12]}${HEX[(c >> 8) & 15]}${HEX[(c >> 4) & 15]}${HEX[c & 15]}`;

/** The escape of the UTF-16 unit at `i`, or undefined when it is printed as it is. */
function escapeAt(text: string, i: number, mode: TextMode): string | undefined {
  const c = text.charCodeAt(i);
  if (c < 0x20) {
    // Anything but `block` is read as `inline`, the stricter.
    if (c === 0x0a) return mode !== 'block' ? '\\n' : undefined;
    if (c === 0x09) return mode !== 'block' ? '\\t' : undefined;
    if (c === 0x0d) return '\\r';
    return hex2(c);
  }
  if (c < 0x7f) return undefined;
  if (c <= 0x9f) return hex2(c);
  if (c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return hex4(c);
  if (isHigh(c)) return isLow(text.charCodeAt(i + 1)) ? undefined : hex4(c);
  if (isLow(c)) return isHigh(text.charCodeAt(i - 1)) ? undefined : hex4(c);
  return undefined;
}

/** Whether the text at `j` (right after a run of backslashes) would read as an `inline` escape. */
function readsAsEscape(text: string, j: number): boolean {
  if (j >= text.length) return false;
  const c = text.charCodeAt(j);
  if (c === 0x74 || c === 0x6e || c === 0x72) return true; // t n r
  if (c === 0x78) return isHexDigit(text.charCodeAt(j + 1)) && isHexDigit(text.charCodeAt(j + 2)); // x
  if (c === 0x75) {
    // u
    for (let k = 1; k <= 4; k++) if (!isHexDigit(text.charCodeAt(j + k))) return false;
    return true;
  }
  return escapeAt(text, j, 'inline') !== undefined;
}

/** The end of the run of backslashes that starts at `i`. */
function runEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length && text.charCodeAt(j) === BACKSLASH) j++;
  return j;
}

/**
 * `text` made safe to print on a terminal (see above): `inline` (the default), a value on one
 * line; `block`, lines of a file. Linear in the length of `text`; never throws; returns `text`
 * itself when nothing needs escaping.
 */
export function terminalSafe(text: string, mode: TextMode = 'inline'): string {
  const block = mode === 'block';
  if (!(block ? NEEDS_BLOCK : NEEDS_INLINE).test(text)) return text;
  let out = '';
  let from = 0; // start of the characters not copied yet
  let i = 0;
  while (i < text.length) {
    if (!block && text.charCodeAt(i) === BACKSLASH) {
      const j = runEnd(text, i);
      if (readsAsEscape(text, j)) {
        out += text.slice(from, j) + text.slice(i, j);
        from = j;
      }
      i = j;
      continue;
    }
    const e = escapeAt(text, i, mode);
    if (e !== undefined) {
      out += text.slice(from, i) + e;
      from = i + 1;
    }
    i++;
  }
  return out + text.slice(from);
}

/**
 * How many characters of `terminalSafe(text, mode)` the first `end` UTF-16 units of `text` make
 * (to put a caret under an escaped line).
 */
export function escapedLength(text: string, end: number, mode: TextMode = 'inline'): number {
  let n = 0;
  let doubled = -1; // the end of the current run of backslashes when it is doubled, else -1
  const stop = Math.min(end, text.length);
  for (let i = 0; i < stop; i++) {
    if (mode !== 'block' && text.charCodeAt(i) === BACKSLASH) {
      if (i === 0 || text.charCodeAt(i - 1) !== BACKSLASH) {
        const j = runEnd(text, i);
        doubled = readsAsEscape(text, j) ? j : -1;
      }
      n += i < doubled ? 2 : 1;
      continue;
    }
    n += escapeAt(text, i, mode)?.length ?? 1;
  }
  return n + Math.max(0, end - stop);
}

/**
 * Whitespace a cell lays out as one space: spaces, tabs, line feeds and the line separators, as
 * the cells always did. A carriage return, vertical tab or form feed is no layout (it is how a
 * line is overwritten): it is escaped like every other control.
 */
function isLayoutSpace(c: number): boolean {
  return (
    // not a line break: in a command it starts another command, which a space would hide
    c === 0x20 || c === 0x09 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/**
 * `text` as one table cell of at most `width` characters: runs of layout whitespace made one space
 * and trimmed, the rest escaped as `inline` text, and when longer cut with `…`, never inside an
 * escape or a surrogate pair. Reads only as much of `text` as the cell shows.
 */
export function terminalCell(text: string, width: number): string {
  let out = '';
  let fits = 0; // the length of `out` at the last boundary that leaves room for `…`
  let space = false;
  let doubled = -1;
  const add = (piece: string): boolean => {
    if (out.length + piece.length > width) return false;
    out += piece;
    if (out.length <= width - 1) fits = out.length;
    return true;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isLayoutSpace(c)) {
      space = out !== '';
      continue;
    }
    if (space) {
      space = false;
      if (!add(' ')) return `${out.slice(0, fits)}…`;
    }
    let piece: string;
    if (c === BACKSLASH) {
      if (i === 0 || text.charCodeAt(i - 1) !== BACKSLASH) {
        const j = runEnd(text, i);
        doubled = j < text.length && !isLayoutSpace(text.charCodeAt(j)) && readsAsEscape(text, j) ? j : -1;
      }
      piece = i < doubled ? '\\\\' : '\\';
    } else if (isHigh(c) && isLow(text.charCodeAt(i + 1))) {
      piece = text.slice(i, i + 2);
      i++;
    } else {
      piece = escapeAt(text, i, 'inline') ?? text[i]!;
    }
    if (!add(piece)) return `${out.slice(0, fits)}…`;
  }
  return out;
}
