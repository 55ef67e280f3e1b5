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

/** True for characters that end an unquoted word (`undefined` is the end of input). */
export function isMeta(c: string | undefined): boolean {
  return (
    c === undefined ||
    c === ' ' || c === '\t' || c === '\n' ||
    c === ';' || c === '&' || c === '|' ||
    c === '(' || c === ')' || c === '<' || c === '>'
  );
}

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

const ASSIGNMENT_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?$/;

/** True when `text` (the unquoted text before a word's first `=`) makes the word an assignment. */
export function isAssignmentName(text: string): boolean {
  return ASSIGNMENT_PREFIX.test(text);
}

/** True when the whole word `NAME=value` is an assignment (for wrapper option parsing). */
export function isAssignmentWord(value: string): boolean {
  const eq = value.indexOf('=');
  return eq > 0 && isAssignmentName(value.slice(0, eq));
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** True when `program` is a bare name or lives in one of the system bin directories. */
export function isTrustedProgramPath(program: string): boolean {
  const slash = program.lastIndexOf('/');
  if (slash < 0) return true;
  return SYSTEM_BIN_DIRS.has(program.slice(0, slash));
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
