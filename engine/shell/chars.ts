/** Character classes, program-path helpers and ANSI-C string decoding shared by the lexer and patterns. */

/** Directories whose programs are treated as the bare program name (`/usr/bin/git` is `git`). */
export const SYSTEM_BIN_DIRS: ReadonlySet<string> = new Set([
  '/bin',
  '/usr/bin',
  '/usr/local/bin',
  '/sbin',
  '/usr/sbin',
  '/usr/local/sbin',
  '/opt/homebrew/bin',
]);

/** Words that the shell treats as reserved at the start of a command. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'if', 'then', 'elif', 'else', 'fi', 'while', 'until', 'do', 'done', 'for', 'select', 'case', 'esac',
  'function', 'time', 'coproc', '!', '{', '}', '[[',
]);

export function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

export function isNameStart(c: string | undefined): boolean {
  return c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
}

export function isNameChar(c: string | undefined): boolean {
  return isNameStart(c) || isDigit(c);
}

/** `$?`, `$#`, `$@`, ... */
export function isSpecialParam(c: string | undefined): boolean {
  return c !== undefined && '@*#?-$!'.includes(c);
}

interface ReservedWord {
  readonly word: string;
  /** The character codes of the word (comparing with these is faster than with the string's). */
  readonly codes: Uint16Array;
}

/** Reserved words by the code of their first character (all are ASCII), for lookups without slicing. */
const RESERVED_BY_FIRST: readonly (readonly ReservedWord[] | null)[] = (() => {
  const table: (ReservedWord[] | null)[] = [];
  for (let c = 0; c < 128; c++) table.push(null);
  for (const word of RESERVED_WORDS) {
    const codes = Uint16Array.from(word, (ch) => ch.charCodeAt(0));
    (table[word.charCodeAt(0)] ??= []).push({ word, codes });
  }
  return table;
})();

/**
 * The reserved word at `pos`, where a command starts: the text up to the next metacharacter must
 * be a reserved word. Null when there is none.
 */
export function reservedWordAtCommand(text: string, pos: number): string | null {
  const n = text.length;
  if (pos >= n) return null;
  const c = text.charCodeAt(pos);
  const candidates = c < 128 ? RESERVED_BY_FIRST[c]! : null;
  if (candidates === null) return null;
  // reserved words have no metacharacters: the text up to the next one is the word
  // (character codes are read below the length only: reading past it is slow)
  for (let i = 0; i < candidates.length; i++) {
    const codes = candidates[i]!.codes;
    const length = codes.length;
    if (pos + length > n) continue;
    let k = 1;
    while (k < length && text.charCodeAt(pos + k) === codes[k]) k++;
    if (k === length && (pos + length === n || isMetaCode(text.charCodeAt(pos + length)))) return candidates[i]!.word;
  }
  return null;
}

/**
 * Length of the redirection operator at `i` (`<<<`, `<<-`, `<<`, `<>`, `<&`, `<`, `>>`, `>|`,
 * `>&`, `>`), whose first character is `<` or `>`.
 */
export function redirectionLength(text: string, i: number): number {
  const d = codeAt(text, i + 1);
  if (text.charCodeAt(i) === 60 /* < */) {
    if (d === 60 /* < */) {
      const e = codeAt(text, i + 2);
      return e === 60 /* < */ || e === 45 /* - */ ? 3 : 2;
    }
    return d === 62 /* > */ || d === 38 /* & */ ? 2 : 1;
  }
  return d === 62 /* > */ || d === 124 /* | */ || d === 38 /* & */ ? 2 : 1;
}

/**
 * The character code at `i`, or NaN past the end. Hot loops read below the length only: reading
 * past it with charCodeAt makes V8 fall back to a slower form of the call.
 */
export function codeAt(text: string, i: number): number {
  return i < text.length ? text.charCodeAt(i) : NaN;
}

/**
 * True for the character codes that end an unquoted word: space, tab, newline, `;`, `&`, `|`,
 * `(`, `)`, `<`, `>`, and NaN (the end of input).
 */
export function isMetaCode(c: number): boolean {
  return (
    c !== c || c === 32 || c === 9 || c === 10 || c === 59 || c === 38 ||
    c === 124 || c === 40 || c === 41 || c === 60 || c === 62
  );
}

export function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isNameStartCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

export function isNameCharCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57);
}

/** `$?`, `$#`, `$@`, `$*`, `$-`, `$$`, `$!` */
export function isSpecialParamCode(c: number): boolean {
  return c === 64 || c === 42 || c === 35 || c === 63 || c === 45 || c === 36 || c === 33;
}

/**
 * Word scanner classes of the ASCII characters: 0 ordinary literal, 1 ends the word
 * (blank, newline, `;`, `&`, `|`, `)`), 2 starts a construct (`<`, `>`, `(`, `\`, quotes, `$`),
 * 3 literal that the scanner tracks (`=`, `{`, `}`, `,`, `.`). Other characters are ordinary.
 */
export const WORD_CHAR_CLASS: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (const c of ' \t\n;&|)') table[c.charCodeAt(0)] = 1;
  for (const c of '<>(\\\'"`$') table[c.charCodeAt(0)] = 2;
  for (const c of '={},.') table[c.charCodeAt(0)] = 3;
  return table;
})();

/**
 * True when `text[from, to)` (the unquoted text before a word's first `=`) makes the word an
 * assignment: `NAME`, `NAME+`, `NAME[...]` or `NAME[...]+`.
 */
export function isAssignmentNameRange(text: string, from: number, to: number): boolean {
  if (from >= to || !isNameStartCode(text.charCodeAt(from))) return false;
  let i = from + 1;
  while (i < to && isNameCharCode(text.charCodeAt(i))) i++;
  if (i < to && text.charCodeAt(i) === 91 /* [ */) {
    i++;
    while (i < to && text.charCodeAt(i) !== 93 /* ] */) i++;
    if (i >= to) return false;
    i++;
  }
  if (i < to && text.charCodeAt(i) === 43 /* + */) i++;
  return i === to;
}

/** True when `text` (the unquoted text before a word's first `=`) makes the word an assignment. */
export function isAssignmentName(text: string): boolean {
  return isAssignmentNameRange(text, 0, text.length);
}

/** True when the whole word `NAME=value` is an assignment (for wrapper option parsing). */
export function isAssignmentWord(value: string): boolean {
  // isAssignmentNameRange(value, 0, index of the first `=`), reading no further than needed
  const n = value.length;
  if (n === 0 || !isNameStartCode(value.charCodeAt(0))) return false;
  let i = 1;
  while (i < n && isNameCharCode(value.charCodeAt(i))) i++;
  if (i < n && value.charCodeAt(i) === 91 /* [ */) {
    i++;
    while (i < n && value.charCodeAt(i) !== 93 /* ] */ && value.charCodeAt(i) !== 61 /* = */) i++;
    if (i >= n || value.charCodeAt(i) === 61) return false;
    i++;
  }
  if (i < n && value.charCodeAt(i) === 43 /* + */) i++;
  return i < n && value.charCodeAt(i) === 61 /* = */;
}

/** Index of the last `/` in `path`, or -1. */
function lastSlash(path: string): number {
  let i = path.length - 1;
  while (i >= 0 && path.charCodeAt(i) !== 47 /* / */) i--;
  return i;
}

/**
 * True when `program` is a bare name or lives in one of the system bin directories. The
 * directory is compared with repeated slashes and `.` segments removed (`/usr/bin//git` and
 * `/usr/bin/./git` are `/usr/bin/git`); a `..` segment is never trusted, since a symbolic link
 * on the way can send it anywhere.
 */
export function isTrustedProgramPath(program: string): boolean {
  const slash = lastSlash(program);
  if (slash < 0) return true;
  const dir = program.slice(0, slash);
  if (SYSTEM_BIN_DIRS.has(dir)) return true;
  if (dir.charCodeAt(0) !== 47 /* / */) return false;
  const kept: string[] = [];
  for (const segment of dir.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return false;
    kept.push(segment);
  }
  return SYSTEM_BIN_DIRS.has('/' + kept.join('/'));
}

/** Shortens user input quoted in a message. */
export function shown(text: string): string {
  const flat = text.replace(/\n/g, '\\n');
  return flat.length > 40 ? flat.slice(0, 37) + '...' : flat;
}

function hexValue(text: string, from: number, max: number): { code: number; end: number } | null {
  let code = 0;
  let i = from;
  while (i < text.length && i - from < max) {
    const d = parseInt(text[i]!, 16);
    if (Number.isNaN(d)) break;
    code = code * 16 + d;
    i++;
  }
  return i === from ? null : { code, end: i };
}

function codePoint(code: number): string {
  return code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/**
 * Decodes the body of a `$'...'` string starting at `from` (just after `$'`). Returns the value and
 * the index just past the closing quote, or null when the string is unterminated.
 */
export function decodeAnsiC(text: string, from: number): { value: string; end: number } | null {
  let value = '';
  let i = from;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'") return { value, end: i + 1 };
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const d = text[i + 1];
    if (d === undefined) return null;
    const simple = SIMPLE_ESCAPES[d];
    if (simple !== undefined) {
      value += simple;
      i += 2;
    } else if (d >= '0' && d <= '7') {
      let j = i + 1;
      let code = 0;
      while (j < text.length && j < i + 4 && text[j]! >= '0' && text[j]! <= '7') code = code * 8 + Number(text[j++]);
      value += String.fromCharCode(code & 0xff);
      i = j;
    } else if (d === 'x' || d === 'u' || d === 'U') {
      const h = hexValue(text, i + 2, d === 'x' ? 2 : d === 'u' ? 4 : 8);
      if (h === null) {
        value += '\\' + d;
        i += 2;
      } else {
        value += d === 'x' ? String.fromCharCode(h.code) : codePoint(h.code);
        i = h.end;
      }
    } else if (d === 'c' && i + 2 < text.length && text[i + 2] !== "'") {
      value += String.fromCharCode(text.charCodeAt(i + 2) & 0x1f);
      i += 3;
    } else {
      value += '\\' + d;
      i += 2;
    }
  }
  return null;
}

/**
 * The words a brace expansion of one whole word gives, when it is a plain list without nesting or
 * expansions (`{rm,-rf,/}`, `x{a,b}y`); null otherwise.
 */
export function braceWords(value: string): string[] | null {
  const open = value.indexOf('{');
  const close = value.indexOf('}', open + 1);
  if (open < 0 || close < 0) return null;
  const body = value.slice(open + 1, close);
  if (!body.includes(',') || /[{}$`'"\\]/.test(body) || /[{}$`]/.test(value.slice(0, open) + value.slice(close + 1))) return null;
  const prefix = value.slice(0, open);
  const suffix = value.slice(close + 1);
  return body.split(',').map((alt) => prefix + alt + suffix).filter((w) => w.length > 0);
}
