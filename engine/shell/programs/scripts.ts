/**
 * Whether a sed or awk script, or the commands `less +CMD` runs at its start, can run a program or
 * write a file. All can (sed's `e` and `w` commands and the `e` and `w` flags of `s`; awk's
 * `system()`, pipes and `print >`; less's `!`, `|`, `v` and `s`), so the options table marks them
 * as running code, except the scripts read here as harmless. Each reader is conservative:
 * whatever it does not recognise counts as harmful.
 */
import type { ScriptLanguage } from './options.js';

/** True when the script provably neither runs a program nor writes a file. */
export function scriptIsHarmless(language: ScriptLanguage, script: string): boolean {
  if (language === 'less') return readLess(script).harmless;
  return language === 'sed' ? sedIsHarmless(script) : awkIsHarmless(script);
}

/** The shell commands a script runs, as far as the reader can tell (less's `!cmd`); empty for the other languages. */
export function scriptShellCommands(language: ScriptLanguage, script: string): string[] {
  return language === 'less' ? readLess(script).shell : [];
}

// ---------------------------------------------------------------------------------------------
// less: the commands of `+CMD` (and `++CMD`), read as if typed at the start

/** Commands that move, search again, redisplay or quit: they neither run nor write. */
const LESS_SAFE = new Set([...'gGp%FRrjkeydufbzwJKYnNqQ= ']);

/** The end of the line of text that starts at `i` (a search pattern, a shell command): the index of its `\n` or `\r`, or the end. */
function lessLineEnd(s: string, i: number): number {
  while (i < s.length && s[i] !== '\n' && s[i] !== '\r') i++;
  return i;
}

/**
 * Reads the commands less runs at its start: harmless when they only move and search; the shell
 * commands of `!cmd`, `#cmd` (the same, with prompt expansion) and `|Xcmd` (a pipe from mark X).
 * After a command it does not know, every `!`, `#` and `|` further on may start a shell command.
 */
function readLess(script: string): { harmless: boolean; shell: string[] } {
  const s = script.startsWith('+') ? script.slice(1) : script; // `++CMD`: for every file
  const shell: string[] = [];
  let harmless = true;
  let i = 0;
  while (i < s.length) {
    while (isDigitChar(s[i])) i++;
    const c = s[i];
    if (c === undefined) break;
    if (LESS_SAFE.has(c) || c === '\n' || c === '\r') {
      i++;
    } else if (c === '/' || c === '?' || c === '&') {
      // a search or filter pattern, up to the end of its line
      i = lessLineEnd(s, i + 1);
    } else if (c === '!' || c === '#' || c === '|') {
      harmless = false;
      const from = c === '|' ? i + 2 : i + 1;
      const end = lessLineEnd(s, from);
      shell.push(s.slice(Math.min(from, end), end));
      i = end;
    } else {
      harmless = false;
      for (let k = i + 1; k < s.length; k++) {
        const d = s[k];
        if (d === '!' || d === '#' || d === '|') shell.push(s.slice(k + 1, lessLineEnd(s, k + 1)));
      }
      break;
    }
  }
  return { harmless, shell };
}

// ---------------------------------------------------------------------------------------------
// sed (GNU sed's syntax, a superset of POSIX sed's)

/** Commands that take nothing, or an optional number (`q5`, `l 40`). */
const SED_SIMPLE = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'q', 'Q', 'L']);
/** Commands that take a label or version up to `;` or the end of the line. */
const SED_LABEL = new Set([':', 'b', 't', 'T', 'v']);
/** Commands that take text (`a`, `i`, `c`) or a file to read (`r`, `R`) up to the end of the line. */
const SED_LINE = new Set(['a', 'i', 'c', 'r', 'R']);
/** The flags of `s` that neither run nor write (`e` runs the pattern space, `w` writes a file). */
const SED_S_FLAGS = new Set(['g', 'p', 'i', 'I', 'm', 'M']);

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

function isDigitChar(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Reads a delimited part (`/re/`, the replacement of `s`): the index just past the closing delimiter, or -1. */
function delimited(s: string, i: number, delim: string): number {
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === delim) return i + 1;
    if (c === '\n' && delim !== '\n') return -1;
    i++;
  }
  return -1;
}

/** Reads one address (a line number, `first~step`, `$`, `/re/`, `\cREc`); -1 when there is none to read. */
function sedAddress(s: string, i: number): number {
  const c = s[i];
  if (isDigitChar(c)) {
    while (isDigitChar(s[i])) i++;
    if (s[i] === '~') {
      i++;
      while (isDigitChar(s[i])) i++;
    }
    return i;
  }
  if (c === '$') return i + 1;
  if (c === '/' || c === '\\') {
    const delim = c === '/' ? '/' : s[i + 1];
    if (delim === undefined || delim === '\n' || delim === '\\') return -1;
    const end = delimited(s, c === '/' ? i + 1 : i + 2, delim);
    if (end < 0) return -1;
    i = end;
    while (s[i] === 'I' || s[i] === 'M') i++;
    return i;
  }
  return -1;
}

function sedIsHarmless(s: string): boolean {
  let i = 0;
  for (;;) {
    while (i < s.length && (isBlank(s[i]) || s[i] === '\n' || s[i] === ';')) i++;
    if (i >= s.length) return true;
    if (s[i] === '#') {
      while (i < s.length && s[i] !== '\n') i++;
      continue;
    }
    // addresses: addr1[,addr2] where addr2 may also be +N or ~N
    const a = sedAddress(s, i);
    if (a >= 0) {
      i = a;
      while (isBlank(s[i])) i++;
      if (s[i] === ',') {
        i++;
        while (isBlank(s[i])) i++;
        if (s[i] === '+' || s[i] === '~') {
          i++;
          if (!isDigitChar(s[i])) return false;
          while (isDigitChar(s[i])) i++;
        } else {
          const b = sedAddress(s, i);
          if (b < 0) return false;
          i = b;
        }
      }
    }
    while (isBlank(s[i])) i++;
    while (s[i] === '!' || isBlank(s[i])) i++;
    const cmd = s[i];
    if (cmd === undefined) return false;
    i++;
    if (cmd === '{' || cmd === '}') continue;
    if (SED_SIMPLE.has(cmd)) {
      while (isBlank(s[i])) i++;
      while (isDigitChar(s[i])) i++;
    } else if (SED_LABEL.has(cmd)) {
      while (i < s.length && s[i] !== ';' && s[i] !== '\n') i++;
    } else if (SED_LINE.has(cmd)) {
      // text or a file name to the end of the line; a backslash before a newline continues the text
      while (i < s.length && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1;
      continue;
    } else if (cmd === 's' || cmd === 'y') {
      const delim = s[i];
      if (delim === undefined || delim === '\n' || delim === '\\') return false;
      const mid = delimited(s, i + 1, delim);
      if (mid < 0) return false;
      const end = delimited(s, mid, delim);
      if (end < 0) return false;
      i = end;
      if (cmd === 's') {
        while (i < s.length && (SED_S_FLAGS.has(s[i]!) || isDigitChar(s[i]))) i++;
      }
    } else {
      // `e` and `w`/`W` run and write; anything else is not read
      return false;
    }
    while (isBlank(s[i])) i++;
    const after = s[i];
    if (after !== undefined && after !== ';' && after !== '\n' && after !== '}' && after !== '#') return false;
  }
}

// ---------------------------------------------------------------------------------------------
// awk

/**
 * An awk program is read as harmless when, outside its string literals, it has no `|` (pipes to
 * and from commands, and `||`), no `system`, no `@` (gawk's `@load` and `@include`), and no `>`
 * after `print` or `printf` in the same statement (output redirection; `NR > 1` is a comparison).
 */
function awkIsHarmless(s: string): boolean {
  let printing = false;
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"') {
      i++;
      while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
      if (i >= s.length) return false;
      i++;
      continue;
    }
    if (c === '|' || c === '@') return false;
    if (c === '>' && printing) return false;
    if (c === ';' || c === '\n' || c === '{' || c === '}') printing = false;
    if (isWordStart(c)) {
      let j = i + 1;
      while (j < s.length && isWordChar(s[j]!)) j++;
      const word = s.slice(i, j);
      if (word === 'system') return false;
      if (word === 'print' || word === 'printf') printing = true;
      i = j;
      continue;
    }
    i++;
  }
  return true;
}

function isWordStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

function isWordChar(c: string): boolean {
  return isWordStart(c) || (c >= '0' && c <= '9');
}
