/**
 * Command patterns: `git push *`, `npm run lint *`, `rm -rf /`.
 *
 * A pattern is split into words as the shell would split a command (quotes group, backslash
 * escapes). A final bare `*` matches any further words (zero or more); a bare `*` elsewhere matches
 * exactly one word; `*` inside a word matches any run of characters within that word; `\*` and a
 * quoted `*` are literal stars. Nothing else is special (`?` and `[` are literal).
 */
import {
  decodeAnsiC,
  isAssignmentName,
  isDigit,
  isNameChar,
  isNameStart,
  isSpecialParam,
  isTrustedProgramPath,
  RESERVED_WORDS,
  shown,
} from './chars.js';
import type { CommandPart, PatternError, ShellWord } from './types.js';

export type PatternWord =
  | { readonly kind: 'star' }
  | { readonly kind: 'literal'; readonly value: string }
  | { readonly kind: 'glob'; readonly segments: readonly string[] };

const STAR: PatternWord = Object.freeze({ kind: 'star' });

const ONE_COMMAND = 'a command pattern names one simple command';

function fail(message: string, offset: number): { words: PatternWord[]; error: PatternError } {
  return { words: [], error: { message, offset } };
}

function code(text: string): string {
  return '`' + shown(text) + '`';
}

/** Why a `$` at `i` (unquoted or in double quotes) can never match, or null when it is a plain `$`. */
function dollarError(src: string, i: number): PatternError | null {
  const d = src[i + 1];
  let token: string;
  if (d === '(') {
    if (src[i + 2] !== '(') return { message: `${ONE_COMMAND}; \`$(\` starts a command substitution`, offset: i };
    token = '$((';
  } else if (d === '{') {
    const close = src.indexOf('}', i);
    token = close < 0 ? '${' : src.slice(i, close + 1);
  } else if (isNameStart(d)) {
    let j = i + 2;
    while (isNameChar(src[j])) j++;
    token = src.slice(i, j);
  } else if (isDigit(d) || isSpecialParam(d)) {
    token = src.slice(i, i + 2);
  } else {
    return null;
  }
  return {
    message: `${code(token)} is expanded when the command runs, so it never matches written text; use \`*\` for a computed word`,
    offset: i,
  };
}

const SEPARATORS = ['&&', '||', '|&', ';;', '&', '|', ';'] as const;
const REDIRECTIONS = ['<<<', '<<-', '<<', '<>', '<&', '<', '>>', '>|', '>&', '>'] as const;

/** Splits a pattern into words, or reports why it can never match. */
export function lexPattern(src: string): { words: PatternWord[]; error: PatternError | null } {
  const words: PatternWord[] = [];
  let segments: string[] | null = null; // the current word's text between unquoted stars
  let hasStar = false;
  let plain = true; // the current word is unquoted, unescaped text so far
  let sawEquals = false;
  let assignment = false;
  let wordStart = 0;
  let braceDepth = 0;
  let braceAt = -1;
  let braceList = false;
  let i = 0;

  const begin = (): string[] => {
    if (segments === null) {
      segments = [''];
      hasStar = false;
      plain = true;
      sawEquals = false;
      assignment = false;
      wordStart = i;
      braceDepth = 0;
      braceList = false;
    }
    return segments;
  };
  const add = (text: string): void => {
    const s = begin();
    s[s.length - 1] += text;
  };
  const finish = (): PatternError | null => {
    const s: string[] | null = segments;
    if (s === null) return null;
    segments = null;
    const raw = src.slice(wordStart, i);
    if (words.length === 0 && plain && RESERVED_WORDS.has(raw) && raw !== 'time')
      return { message: `${code(raw)} is a shell keyword, not a command`, offset: wordStart };
    if (words.length === 0 && assignment)
      return { message: `leading assignments are removed before matching, so ${code(raw)} never matches`, offset: wordStart };
    if (!hasStar) words.push({ kind: 'literal', value: s[0]! });
    else if (s.every((t) => t === '')) words.push(STAR);
    else words.push({ kind: 'glob', segments: s.filter((t, k) => t !== '' || k === 0 || k === s.length - 1) });
    return null;
  };

  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t') {
      const error = finish();
      if (error) return { words: [], error };
      i++;
      continue;
    }
    if (c === '\\') {
      const d = src[i + 1];
      if (d === '\n') {
        i += 2;
        continue;
      }
      add(d ?? '\\');
      plain = false;
      i += d === undefined ? 1 : 2;
      continue;
    }
    if (c === "'") {
      const close = src.indexOf("'", i + 1);
      if (close < 0) return fail('unterminated single quote', i);
      add(src.slice(i + 1, close));
      plain = false;
      i = close + 1;
      continue;
    }
    if (c === '"') {
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= src.length) return fail('unterminated double quote', i);
        const ch = src[j]!;
        if (ch === '"') break;
        if (ch === '\\' && '$`"\\\n'.includes(src[j + 1] ?? 'x')) {
          if (src[j + 1] !== '\n') text += src[j + 1];
          j += 2;
          continue;
        }
        if (ch === '$') {
          const error = dollarError(src, j);
          if (error) return { words: [], error };
        }
        if (ch === '`') return fail(`${ONE_COMMAND}; a backtick starts a command substitution`, j);
        text += ch;
        j++;
      }
      add(text);
      plain = false;
      i = j + 1;
      continue;
    }
    if (c === '$') {
      const d = src[i + 1];
      if (d === "'") {
        const decoded = decodeAnsiC(src, i + 2);
        if (decoded === null) return fail("unterminated `$'` string", i);
        add(decoded.value);
        plain = false;
        i = decoded.end;
        continue;
      }
      if (d === '"') {
        begin();
        plain = false;
        i++;
        continue;
      }
      const error = dollarError(src, i);
      if (error) return { words: [], error };
    }
    if (c === '`') return fail(`${ONE_COMMAND}; a backtick starts a command substitution`, i);
    if (c === '\n') return fail(`${ONE_COMMAND}; a newline splits commands`, i);
    if (c === '#' && segments === null) return fail('`#` starts a comment; quote it to match a literal `#`', i);
    if (c === '(' || c === ')') return fail(`${ONE_COMMAND}; \`${c}\` ${c === '(' ? 'starts' : 'ends'} a subshell`, i);
    if (c === '<' || c === '>' || (c === '&' && src[i + 1] === '>')) {
      if (c !== '&' && src[i + 1] === '(')
        return fail(`${ONE_COMMAND}; \`${c}(\` starts a process substitution`, i);
      const op = c === '&' ? (src[i + 2] === '>' ? '&>>' : '&>') : REDIRECTIONS.find((o) => src.startsWith(o, i))!;
      const current: string[] | null = segments;
      const start = current !== null && plain && !hasStar && /^\d+$/.test(current[0]!) ? wordStart : i;
      return fail(
        `redirections are removed before matching, so ${code(src.slice(start, i + op.length))} never matches; quote it to match it literally`,
        start,
      );
    }
    if (c === '&' || c === '|' || c === ';') {
      const op = SEPARATORS.find((o) => src.startsWith(o, i))!;
      return fail(`${ONE_COMMAND}; \`${op}\` splits commands`, i);
    }
    if (c === '*') {
      begin().push('');
      hasStar = true;
      i++;
      continue;
    }
    if (c === '=' && !sawEquals) {
      const s = begin();
      sawEquals = true;
      assignment = plain && !hasStar && isAssignmentName(s[0]!);
    } else if (c === '{') {
      begin();
      if (braceDepth++ === 0) {
        braceAt = i;
        braceList = false;
      }
    } else if (braceDepth > 0) {
      if (c === ',' || (c === '.' && src[i + 1] === '.')) braceList = true;
      else if (c === '}' && --braceDepth === 0 && braceList)
        return fail(
          `${code(src.slice(braceAt, i + 1))} is brace-expanded by the shell, so it never matches written text; quote it to match it literally`,
          braceAt,
        );
    }
    add(c);
    i++;
  }
  const error = finish();
  if (error) return { words: [], error };
  if (words.length === 0) return fail('empty command pattern', 0);
  return { words, error: null };
}

/** `*` globbing within one word: the segments are the literal text between the stars. */
export function globMatch(segments: readonly string[], value: string): boolean {
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  if (!value.startsWith(first)) return false;
  const limit = value.length - last.length;
  let at = first.length;
  if (limit < at) return false;
  for (let k = 1; k < segments.length - 1; k++) {
    const seg = segments[k]!;
    const found = value.indexOf(seg, at);
    if (found < 0 || found + seg.length > limit) return false;
    at = found + seg.length;
  }
  return value.endsWith(last);
}

function matchWord(p: PatternWord, w: ShellWord): boolean {
  if (p.kind === 'star') return true;
  if (w.dynamic) return false;
  return p.kind === 'literal' ? w.value === p.value : globMatch(p.segments, w.value);
}

/**
 * The program word: as written, or its basename when it lives in a system bin directory
 * (`/usr/bin/git`), or in `any` mode whatever its directory (`./rm`, `/tmp/x/rm`).
 */
function matchProgram(p: PatternWord, w: ShellWord, mode: 'any' | 'allow'): boolean {
  if (matchWord(p, w)) return true;
  if (p.kind === 'star' || w.dynamic) return false;
  const slash = w.value.lastIndexOf('/');
  if (slash < 0 || slash === w.value.length - 1) return false;
  if (mode === 'allow' && !isTrustedProgramPath(w.value)) return false;
  return matchWord(p, { value: w.value.slice(slash + 1), dynamic: false });
}

export function matchWords(pattern: readonly PatternWord[], words: readonly ShellWord[], mode: 'any' | 'allow'): boolean {
  if (pattern.length === 0) return false;
  const open = pattern[pattern.length - 1]!.kind === 'star';
  const fixed = open ? pattern.length - 1 : pattern.length;
  if (open ? words.length < fixed : words.length !== fixed) return false;
  for (let i = 0; i < fixed; i++) {
    const ok = i === 0 ? matchProgram(pattern[i]!, words[i]!, mode) : matchWord(pattern[i]!, words[i]!);
    if (!ok) return false;
  }
  return true;
}

export function matchPart(pattern: readonly PatternWord[], part: CommandPart, mode: 'any' | 'allow'): boolean {
  if (pattern.length === 0) return false;
  const views = part.views.length > 0 ? part.views : [{ words: part.words, wrappers: [], neutral: true }];
  if (mode === 'any') return views.some((v) => matchWords(pattern, v.words, 'any'));
  if (part.unknowable !== null) return false;
  return views.some((v) => v.neutral && matchWords(pattern, v.words, 'allow'));
}
