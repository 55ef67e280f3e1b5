/**
 * Fast path for the usual shape of a command line: simple commands made of literal words, quoted
 * strings, backslash escapes, variables (`$NAME`, `$1`, `${NAME}`) and redirections, joined by
 * blanks, newlines, comments and the operators `&&`, `||`, `;`, `|`, `|&` and `&`.
 *
 * readSimpleCommands reads the commands of a list and stops at the first command that uses
 * anything else: command substitutions, `$'...'`, `$"..."`, parentheses, here-documents, line
 * continuations, a reserved word at command position, an unterminated quote, a `{name}>`
 * redirection, `${` with quotes or expansions inside, a function substitution (`${ cmd; }`). The
 * parser reads that command and calls it again for the commands after it (parser.ts,
 * parseCommands and parseList): between two commands of a list, with no here-document pending,
 * the parser's state is only its position. For the commands it reads, the parts are those the
 * parser gives: the same word values and dynamic flags, leading assignments dropped, the same part
 * texts, and the views and inner scripts built by buildPartsInto. fast.test.ts compares the two on
 * generated command lines.
 */
import {
  codeAt,
  isAssignmentNameRange,
  isDigitCode,
  isMetaCode,
  isNameCharCode,
  isNameStartCode,
  isSpecialParamCode,
  redirectionLength,
  reservedWordAtCommand,
  WORD_CHAR_CLASS,
} from './chars.js';
import { MAX_SHELL_DEPTH } from './lexer.js';
import type { CommandPart, ShellWord } from './types.js';
import { buildPartsInto, type ScriptParser } from './wrappers.js';
import { assignmentOpaque } from './environment.js';
import { noteAssignedValue } from './facts.js';

/** Targets a redirection may write without touching a file: `/dev/null`, the standard streams, a descriptor (`>&2`). */
export function isHarmlessTarget(target: ShellWord, duplicate: boolean): boolean {
  const v = target.value;
  // `< <(cmd)`, `> >(cmd)`: a pipe to a process substitution, whose command is a part of its own
  if (target.dynamic) return v.length > 2 && (v.startsWith('<(') || v.startsWith('>(')) && v.endsWith(')');
  if (v === '/dev/null' || v === '/dev/stdout' || v === '/dev/stderr' || v === '/dev/tty') return true;
  // `>&2`, `2>&1`, `>&-`: a descriptor, not a file
  return duplicate && (v === '-' || /^[0-9]+-?$/.test(v));
}

/**
 * Classes for the words read in the command loop itself: 0 for the characters of a word of
 * ordinary characters (`.`, `,` and `}` are ordinary until a `{` appears), 1 for those ending a
 * word, 2 for the others, which send the word to readWord. Characters from 128 up are ordinary.
 * `=` matters in the first word of a command only (it may be an assignment): FIRST_WORD_CLASS
 * sends it to readWord, WORD_CLASS does not.
 */
const FIRST_WORD_CLASS: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = WORD_CHAR_CLASS[c] === 0 ? 0 : WORD_CHAR_CLASS[c] === 1 ? 1 : 2;
  for (const c of '.,}') table[c.charCodeAt(0)] = 0;
  return table;
})();
const WORD_CLASS: Uint8Array = (() => {
  const table = FIRST_WORD_CLASS.slice();
  table[61 /* = */] = 0;
  return table;
})();

/**
 * True for the ASCII characters that start a word of the command loop at once: ordinary
 * characters other than digits (which may start a redirection) and `#` (a comment).
 */
const PLAIN_START: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) if (FIRST_WORD_CLASS[c] === 0) table[c] = 1;
  for (const c of '0123456789#') table[c.charCodeAt(0)] = 0;
  return table;
})();

/**
 * Set by readWord for the word just read (read at once, before anything else runs). Only numbers
 * and booleans are kept here: storing a new string in a module variable costs a write barrier.
 */
let wordEnd = 0;
let wordDynamic = false;
/** Set by readWord: a computed piece of the word stands outside double quotes (the word may split). */
let wordSplits = false;
let wordAssignment = false;

/** Set by dollarEnd: the expansion just read is dynamic. */
let dollarDynamic = false;

/**
 * The end of what starts with the `$` at `pos`, read as Lexer.readDollar does: a variable
 * (`$NAME`, `$1`, `$?`, ...), `${...}` without quotes, escapes or expansions inside, or a lone `$`.
 * -1 for anything else (substitutions, function substitutions `${ cmd; }` and `${| cmd; }`,
 * `$'...'` and `$"..."` outside double quotes, and `${` at the depth limit, where it is too deep).
 * Sets dollarDynamic; the value is the text as written.
 */
function dollarEnd(src: string, pos: number, inDouble: boolean, depth: number): number {
  const d = codeAt(src, pos + 1);
  dollarDynamic = true;
  if (d === 40 /* ( */) return -1;
  if (d === 123 /* { */) {
    if (depth >= MAX_SHELL_DEPTH) return -1;
    // `${` then a blank, a newline or `|` opens a function substitution, whose body is a script
    // (`${\` is refused below, line continuation or not)
    const e = codeAt(src, pos + 2);
    if (e === 32 /* space */ || e === 9 /* tab */ || e === 10 /* newline */ || e === 124 /* | */) return -1;
    for (let i = pos + 2; i < src.length; i++) {
      const c = src.charCodeAt(i);
      if (c === 125 /* } */) return i + 1;
      if (c === 92 /* \ */ || c === 39 /* ' */ || c === 34 /* " */ || c === 36 /* $ */ || c === 96 /* ` */) return -1;
      // subscripts, substrings and `@P` evaluate text: the parser records it
      if (c === 91 /* [ */ || c === 58 /* : */ || c === 64 /* @ */ || c === 40 /* ( */ || c === 33 /* ! */) return -1;
    }
    return -1;
  }
  if (isNameStartCode(d)) {
    let i = pos + 2;
    while (isNameCharCode(codeAt(src, i))) i++;
    return i;
  }
  if (isDigitCode(d) || isSpecialParamCode(d)) return pos + 2;
  if ((d === 39 /* ' */ || d === 34) /* " */ && !inDouble) return -1;
  if (d === 91 /* [ */) return -1; // `$[ expr ]`, arithmetic: the parser reads it
  dollarDynamic = false;
  return pos + 1;
}

/**
 * Reads the word starting at `start` as Lexer.readWord does; returns its value, or null when the
 * word uses anything this path does not read. Sets wordEnd (the index just past it), wordDynamic
 * and wordAssignment.
 */
function readWord(src: string, start: number, depth: number): string | null {
  const n = src.length;
  let pos = start;
  let seg = start; // start of the literal run not yet copied into `value`
  let value = '';
  let dynamic = false;
  let splits = false;
  let plain = true; // only unquoted literal text so far
  let sawEquals = false;
  let assignment = false;
  let braceDepth = 0;
  let braceList = false;
  while (pos < n) {
    const c = src.charCodeAt(pos);
    const kind = c < 128 ? WORD_CHAR_CLASS[c]! : 0;
    if (kind === 0) {
      pos++;
      continue;
    }
    if (kind === 1) break;
    if (kind === 3) {
      if (c === 61 /* = */) {
        if (!sawEquals) {
          sawEquals = true;
          // plain: the text so far is src[start, pos) as written
          if (plain && isAssignmentNameRange(src, start, pos)) assignment = true;
        }
      } else if (c === 123 /* { */) {
        braceDepth++;
      } else if (braceDepth > 0) {
        if (c === 44 /* , */ || (c === 46 /* . */ && codeAt(src, pos + 1) === 46)) braceList = true;
        else if (c === 125 /* } */ && --braceDepth === 0 && braceList) dynamic = splits = true; // brace expansion
      }
      pos++;
      continue;
    }
    if (c === 60 /* < */ || c === 62 /* > */) {
      if (codeAt(src, pos + 1) === 40 /* ( */) return null; // process substitution
      break;
    }
    if (c === 92 /* \ */) {
      const d = codeAt(src, pos + 1);
      if (d === 10 /* newline */) return null;
      if (d !== d) {
        pos++; // a backslash at the end of input stays as it is
        continue;
      }
      value += src.slice(seg, pos);
      seg = pos + 1; // the escaped character starts the next run
      pos += 2;
      plain = false;
      continue;
    }
    if (c === 39 /* ' */) {
      const close = src.indexOf("'", pos + 1);
      if (close < 0) return null;
      value += src.slice(seg, pos);
      value += src.slice(pos + 1, close);
      pos = seg = close + 1;
      plain = false;
      continue;
    }
    if (c === 36 /* $ */) {
      // the expansion stays as written: it is part of the literal run
      const e = dollarEnd(src, pos, false, depth);
      if (e < 0) return null;
      if (dollarDynamic) dynamic = splits = true;
      pos = e;
      plain = false;
      continue;
    }
    if (c !== 34 /* " */) return null; // `(` or a backtick
    value += src.slice(seg, pos);
    pos = seg = pos + 1;
    for (;;) {
      if (pos >= n) return null;
      const q = src.charCodeAt(pos);
      if (q === 34 /* " */) break;
      if (q === 96 /* ` */) return null;
      if (q === 36 /* $ */) {
        const e = dollarEnd(src, pos, true, depth);
        if (e < 0) return null;
        if (dollarDynamic) dynamic = true;
        pos = e;
      } else if (q === 92 /* \ */) {
        const d = codeAt(src, pos + 1);
        if (d === 36 /* $ */ || d === 96 /* ` */ || d === 34 /* " */ || d === 92 /* \ */) {
          value += src.slice(seg, pos);
          seg = pos + 1;
          pos += 2;
        } else if (d === 10 /* newline */) {
          value += src.slice(seg, pos);
          pos = seg = pos + 2;
        } else {
          pos++; // the backslash is kept
        }
      } else {
        pos++;
      }
    }
    value += src.slice(seg, pos);
    pos = seg = pos + 1;
    plain = false;
  }
  if (pos === start) return null;
  wordEnd = pos;
  wordDynamic = dynamic;
  wordSplits = splits;
  wordAssignment = assignment;
  return value === '' ? src.slice(seg, pos) : value + src.slice(seg, pos);
}

/**
 * Set by readSimpleCommands when it stops at a reserved word (the word), else null: the parser
 * need not look for it again. Read at once, before anything else runs (nested calls change it).
 */
export let stopKeyword: string | null = null;

/**
 * Reads the commands of a list from `from` (a command boundary) in `src`, a script at nesting
 * depth `depth`, and appends their parts to `out`. Returns the length of the text when it read to
 * the end, else the index of the first command it could not read. `scripts` parses `bash -c`
 * scripts and `eval` arguments one level deeper.
 */
export function readSimpleCommands(src: string, from: number, depth: number, scripts: ScriptParser, out: CommandPart[]): number {
  stopKeyword = null;
  if (depth > MAX_SHELL_DEPTH) return from;
  const n = src.length;
  let i = from;
  for (;;) {
    // blanks, separators and comments between commands
    for (;;) {
      if (i >= n) return n;
      const c = src.charCodeAt(i);
      if (c === 32 /* space */ || c === 9 /* tab */ || c === 10 /* newline */ || c === 59 /* ; */) {
        i++;
      } else if (c === 38 /* & */) {
        // operators are taken as the parser takes them: `&&` and `&`, but `&>` starts a command
        const d = codeAt(src, i + 1);
        if (d === 62 /* > */) break;
        i += d === 38 ? 2 : 1;
      } else if (c === 124 /* | */) {
        const d = codeAt(src, i + 1);
        i += d === 124 /* | */ || d === 38 /* & */ ? 2 : 1;
      } else if (c === 35 /* # */) {
        const nl = src.indexOf('\n', i);
        i = nl < 0 ? n : nl;
      } else if (c === 40 /* ( */ || c === 41 /* ) */) {
        return i; // a subshell, or the end of one
      } else {
        break;
      }
    }
    const commandAt = i;
    const keyword = reservedWordAtCommand(src, i);
    if (keyword !== null) {
      stopKeyword = keyword;
      return commandAt;
    }
    // the words: the first four in locals, all of them in `more` once there are more (an array
    // of the exact size is made at the end, which saves memory and time)
    let count = 0;
    let w0: ShellWord | undefined;
    let w1: ShellWord | undefined;
    let w2: ShellWord | undefined;
    let w3: ShellWord | undefined;
    let more: ShellWord[] | null = null;
    let end = i;
    // character codes are read below the length only: reading past it is slow
    let c = src.charCodeAt(i); // i < n here
    for (;;) {
      while (c === 32 /* space */ || c === 9 /* tab */) c = ++i < n ? src.charCodeAt(i) : NaN;
      let value: string | null = null;
      let dynamic = false;
      let splits = false;
      if (c < 128 ? PLAIN_START[c] === 1 : c === c /* not the end */) {
        // most words: read here up to a blank or an operator, or else by readWord
        const table = count === 0 ? FIRST_WORD_CLASS : WORD_CLASS;
        let j = i + 1;
        let d = NaN;
        for (; j < n; j++) {
          d = src.charCodeAt(j);
          if (d < 128 && table[d] !== 0) break;
        }
        if (j >= n || table[d] === 1) {
          value = src.slice(i, j);
          i = end = j;
          c = j < n ? d : NaN;
        }
      }
      if (value === null) {
        if (i >= n) break;
        if (c === 10 /* newline */ || c === 59 /* ; */ || c === 124 /* | */ || c === 41 /* ) */) break;
        if (c === 38 /* & */ && codeAt(src, i + 1) !== 62 /* > */) break;
        if (c === 35 /* # */) {
          const nl = src.indexOf('\n', i);
          i = nl < 0 ? n : nl;
          break;
        }
        // `(` may define a function (`name ( )`)
        if (c === 40 /* ( */ || (c === 92 /* \ */ && codeAt(src, i + 1) === 10)) return commandAt;
        // a redirection: [digits] followed by `<` or `>`, or `&>`
        let r = i;
        if (isDigitCode(c)) {
          while (isDigitCode(codeAt(src, r))) r++;
        } else if (c === 123 /* { */ && isNameStartCode(codeAt(src, i + 1))) {
          let j = i + 2;
          while (isNameCharCode(codeAt(src, j))) j++;
          const after = codeAt(src, j + 1);
          if (codeAt(src, j) === 125 /* } */ && (after === 60 /* < */ || after === 62) /* > */) return commandAt;
        }
        const o = r === i ? c : codeAt(src, r);
        let opLength = 0;
        if (c === 38 /* & */) {
          opLength = codeAt(src, i + 2) === 62 /* > */ ? 3 : 2; // `&>>` or `&>`
        } else if (o === 60 /* < */ || o === 62 /* > */) {
          const d = codeAt(src, r + 1);
          if (d === 40 /* ( */) return commandAt; // process substitution
          if (o === 60 && d === 60) return commandAt; // a here-document or here-string: the parser feeds it to shells
          opLength = redirectionLength(src, r);
        }
        if (opLength > 0) {
          const c0 = c;
          i = r + opLength;
          c = i < n ? src.charCodeAt(i) : NaN;
          while (c === 32 /* space */ || c === 9 /* tab */) c = ++i < n ? src.charCodeAt(i) : NaN;
          if (c === 92 /* \ */ && codeAt(src, i + 1) === 10) return commandAt;
          // the target, if a word starts here (`<(` and `>(` are words the fast path does not read)
          if (c === 60 /* < */ || c === 62 /* > */ ? codeAt(src, i + 1) === 40 : !isMetaCode(c)) {
            const target = readWord(src, i, depth);
            if (target === null) return commandAt;
            // a redirection that writes or reads a file is left to the parser, which records the file
            const second = codeAt(src, r + 1);
            if ((o === 62 /* > */ || c0 === 38 /* & */ || o === 60) /* < */ && !isHarmlessTarget({ value: target, dynamic: wordDynamic }, second === 38))
              return commandAt;
            i = wordEnd;
          }
          end = i;
          c = i < n ? src.charCodeAt(i) : NaN;
          continue;
        }
        value = readWord(src, i, depth);
        if (value === null) return commandAt;
        i = end = wordEnd;
        c = i < n ? src.charCodeAt(i) : NaN;
        if (count === 0 && wordAssignment) {
          // an assignment that changes what runs, or evaluates a subscript, is left to the parser
          if (assignmentOpaque(value) !== null || value.includes('[')) return commandAt;
          noteAssignedValue(value, wordDynamic);
          continue;
        }
        dynamic = wordDynamic;
        splits = wordSplits;
      }
      const word: ShellWord = splits ? { value, dynamic, splits: true } : { value, dynamic };
      if (count === 0) w0 = word;
      else if (count === 1) w1 = word;
      else if (count === 2) w2 = word;
      else if (count === 3) w3 = word;
      else (more ??= [w0!, w1!, w2!, w3!]).push(word);
      count++;
    }
    if (count > 0) {
      const words =
        count === 1 ? [w0!] : count === 2 ? [w0!, w1!] : count === 3 ? [w0!, w1!, w2!] : count === 4 ? [w0!, w1!, w2!, w3!] : more!;
      buildPartsInto(out, words, src.slice(commandAt, end), null, scripts);
      stopKeyword = null; // the scripts read by buildPartsInto may have set it
    }
  }
}
