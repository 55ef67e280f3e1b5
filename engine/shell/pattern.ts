/**
 * Command patterns: `git push *`, `npm run lint *`, `rm -rf /`.
 *
 * A pattern is split into words as the shell would split a command (quotes group, backslash
 * escapes). A final bare `*` matches any further words (zero or more); a bare `*` elsewhere matches
 * exactly one word; `*` inside a word matches any run of characters within that word; `\*` and a
 * quoted `*` are literal stars. Nothing else is special (`?` and `[` are literal).
 *
 * For a program in the options table (programs/options.json), a pattern is read with the
 * program's grammar, as the program reads its arguments: its option words are options (`rm -rf *`
 * is every command that sets `-r` and `-f`, however they are spelled), its other words operands,
 * in order; the global options of a multi-command program are looked through (`git push *`
 * matches `git -C x push`). A `*` never lets an `allow` cover an option or operand that runs code
 * or writes files unless the pattern names it (`rg *` does not cover `rg --pre x`). A pattern
 * whose program word or option word is quoted, or that the grammar cannot read, is matched word by
 * word, as written.
 */
import {
  braceWords,
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
import { normalizePath, programGrammar, type Level, type OptionDef } from './programs/grammar.js';
import { readWords, type OptionUse, type Reading } from './programs/read.js';
import { scriptIsHarmless } from './programs/scripts.js';
import type { CommandPart, PatternError, ShellWord } from './types.js';

export type PatternWord =
  | { readonly kind: 'star' }
  | { readonly kind: 'literal'; readonly value: string }
  | { readonly kind: 'glob'; readonly segments: readonly string[] };

/** The words a lexed pattern compares as written (quoted or escaped), by index, beside the words. */
const EXACT: unique symbol = Symbol('exact words');
/** How the pattern is matched (optionsOf), kept on its word list. */
const COMPILED: unique symbol = Symbol('option reading');

type LexedWords = PatternWord[] & { [EXACT]?: boolean[]; [COMPILED]?: Compiled };

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
  const exact: boolean[] = [];
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
    exact.push(!plain);
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
  const lexed: LexedWords = words;
  Object.defineProperty(lexed, EXACT, { value: exact });
  Object.defineProperty(lexed, COMPILED, { value: compileOptions(words, exact) });
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

/**
 * A pattern word against a view's word. A word computed when the command runs (`$x`, `$(cmd)`,
 * find's `{}`, the words xargs reads) may hold any text: it matches every pattern word when `any`
 * (deny and ask read it at its worst), and none otherwise (an allow covers only what it names).
 */
function matchWord(p: PatternWord, w: ShellWord, any = false): boolean {
  if (p.kind === 'star') return true;
  if (w.dynamic) return any;
  return p.kind === 'literal' ? w.value === p.value : globMatch(p.segments, w.value);
}

/** The index just past the directory part of a program path, or 0 for a bare name. */
function baseStart(program: string): number {
  return program.lastIndexOf('/') + 1;
}

/**
 * The program word: as written, or its basename when it lives in a system bin directory
 * (`/usr/bin/git`, also spelled `/usr/bin//git` or `/usr/bin/./git`), or in `any` mode whatever
 * its directory (`./rm`, `/tmp/x/rm`).
 */
function matchProgram(p: PatternWord, w: ShellWord, mode: 'any' | 'allow'): boolean {
  if (matchWord(p, w)) return true;
  if (p.kind === 'star' || w.dynamic) return false;
  const slash = w.value.lastIndexOf('/');
  if (slash < 0 || slash === w.value.length - 1) return false;
  if (mode === 'allow' && !isTrustedProgramPath(w.value)) return false;
  return matchWord(p, { value: w.value.slice(slash + 1), dynamic: false });
}

/** Word by word: each pattern word matches the view's word at its place. */
function matchPlain(pattern: readonly PatternWord[], words: readonly ShellWord[], mode: 'any' | 'allow'): boolean {
  if (pattern.length === 0) return false;
  const open = pattern[pattern.length - 1]!.kind === 'star';
  const fixed = open ? pattern.length - 1 : pattern.length;
  if (open ? words.length < fixed : words.length !== fixed) return false;
  for (let i = 0; i < fixed; i++) {
    const ok = i === 0 ? matchProgram(pattern[i]!, words[i]!, mode) : matchWord(pattern[i]!, words[i]!, mode === 'any');
    if (!ok) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Option-aware patterns

/** An option a pattern names, with the value it wants (null: any value, or none). */
interface OptionPattern {
  readonly def: OptionDef | null;
  readonly name: string;
  readonly value: PatternWord | null;
  /** For values of several words (`find -exec CMD ;`, `find -fprintf FILE FORMAT`). */
  readonly values: readonly PatternWord[] | null;
}

type Compiled =
  | {
      readonly kind: 'options';
      readonly root: Level;
      /** The program's level and its subcommands' levels, as the pattern names them. */
      readonly levels: readonly Level[];
      readonly options: readonly OptionPattern[];
      readonly operands: readonly PatternWord[];
      /** For a program whose operands are paths: each literal operand normalised (else null). */
      readonly paths: readonly (string | null)[] | null;
      /** The pattern ends with a `*` (which may also be the last option's value). */
      readonly open: boolean;
      /** What the pattern was read as, for explanations. */
      readonly reading: Reading;
    }
  | {
      readonly kind: 'words';
      /** An allow must check the view's program for runs and writes options (its program is not a plain name outside the table). */
      readonly check: boolean;
    };

const PLAIN_WORDS: Compiled = Object.freeze({ kind: 'words', check: false });
const CHECKED_WORDS: Compiled = Object.freeze({ kind: 'words', check: true });

/** The rest of a pattern word from `offset` on (an attached value), or null when a glob's star falls before it. */
function attachedPattern(w: PatternWord, offset: number): PatternWord | null {
  if (w.kind === 'literal') return { kind: 'literal', value: w.value.slice(offset) };
  if (w.kind === 'star') return null;
  const first = w.segments[0]!;
  if (offset > first.length) return null;
  const segments = [first.slice(offset), ...w.segments.slice(1)];
  return segments.every((t) => t === '') ? STAR : { kind: 'glob', segments };
}

/** Reads a pattern with its program's grammar; word by word when it has none or cannot be read. */
function compileOptions(words: readonly PatternWord[], exact: readonly boolean[]): Compiled {
  const first = words[0]!;
  if (first.kind !== 'literal') return CHECKED_WORDS;
  const root = programGrammar(first.value.slice(baseStart(first.value)));
  if (root === undefined) return PLAIN_WORDS;
  if (exact[0]) return CHECKED_WORDS;
  const n = words.length;
  const open = n > 1 && words[n - 1]!.kind === 'star';
  const shell: ShellWord[] = words.map((w) => (w.kind === 'literal' ? { value: w.value, dynamic: false } : { value: '', dynamic: true }));
  const prefixes = words.map((w) => (w.kind === 'literal' ? null : w.kind === 'star' ? '' : w.segments[0]!));
  const reading = readWords(root, shell, open ? n - 1 : n, exact, prefixes);
  if (reading.unreadable >= 0) return CHECKED_WORDS;
  const options: OptionPattern[] = [];
  for (const u of reading.options) {
    let value: PatternWord | null = null;
    let values: PatternWord[] | null = null;
    if (u.valueAt >= 0) {
      if (u.def !== null && (u.def.value === 'command' || u.def.count > 1)) values = words.slice(u.valueAt, u.valueEnd);
      else value = words[u.valueAt]!;
    } else if (u.offset >= 0) {
      value = attachedPattern(words[u.at]!, u.offset);
      if (value === null) return CHECKED_WORDS;
      if (u.def !== null && u.def.value === 'command') values = [value];
    }
    options.push({ def: u.def, name: u.name, value, values });
  }
  const operands = reading.operands.map((k) => words[k]!);
  const last = reading.levels[reading.levels.length - 1]!;
  const paths = last.paths ? operands.map((w) => (w.kind === 'literal' ? normalizePath(w.value) : null)) : null;
  return { kind: 'options', root, levels: reading.levels, options, operands, paths, open, reading };
}

function compiledOf(pattern: readonly PatternWord[]): Compiled {
  return (pattern as LexedWords)[COMPILED] ?? CHECKED_WORDS;
}

// A few readings of views, by their word list: the evaluator tests many rules against one part.
const CACHE_SIZE = 8;
const cachedWords: (readonly ShellWord[] | null)[] = new Array<readonly ShellWord[] | null>(CACHE_SIZE).fill(null);
const cachedReadings: (Reading | null)[] = new Array<Reading | null>(CACHE_SIZE).fill(null);
let cacheNext = 0;

/** The reading of a view's words with their program's grammar (`root`). */
function viewReading(root: Level, words: readonly ShellWord[]): Reading {
  for (let k = 0; k < CACHE_SIZE; k++) if (cachedWords[k] === words) return cachedReadings[k]!;
  const reading = readWords(root, words);
  cachedWords[cacheNext] = words;
  cachedReadings[cacheNext] = reading;
  cacheNext = (cacheNext + 1) % CACHE_SIZE;
  return reading;
}

/** The grammar of a view's program (by its basename), if the table has it. */
function viewGrammar(words: readonly ShellWord[]): Level | undefined {
  const w0 = words[0];
  if (w0 === undefined || w0.dynamic) return undefined;
  const start = baseStart(w0.value);
  return programGrammar(start === 0 ? w0.value : w0.value.slice(start));
}

function present(r: Reading, defs: readonly OptionDef[]): boolean {
  if (defs.length === 0) return false;
  for (const u of r.options) if (u.def !== null && defs.includes(u.def)) return true;
  return false;
}

function isAssignment(value: string): boolean {
  const eq = value.indexOf('=');
  return eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*\+?$/.test(value.slice(0, eq));
}

/** A value's text for the checks below: null when it has none; dynamic when some word of it is computed. */
function valueText(u: OptionUse, words: readonly ShellWord[]): { text: string; dynamic: boolean } | null {
  if (u.valueAt >= 0) {
    let dynamic = false;
    for (let k = u.valueAt; k < u.valueEnd; k++) if (words[k]!.dynamic) dynamic = true;
    return { text: words[u.valueAt]!.value, dynamic };
  }
  if (u.offset >= 0) {
    const w = words[u.at]!;
    return { text: w.value.slice(u.offset), dynamic: w.dynamic };
  }
  return null;
}

function optionIsSensitive(r: Reading, u: OptionUse, words: readonly ShellWord[]): boolean {
  if (u.unsure) return r.levels[u.depth]!.sensitiveBelow;
  const def = u.def;
  if (def === null || (def.kind === null && def.script === null)) return false;
  if (present(r, def.unless)) return false;
  const value = valueText(u, words);
  if (def.script !== null) return value !== null && (value.dynamic || !scriptIsHarmless(def.script, value.text));
  if (def.when === null) return true;
  if (value === null) return false;
  if (value.dynamic) return true;
  const text = value.text.replace(/^[\s"']+/, '').toLowerCase();
  return def.when.some((p) => (p.charCodeAt(0) === 42 /* * */ ? text.includes(p.slice(1)) : text.startsWith(p)));
}

function operandIsSensitive(r: Reading, k: number, words: readonly ShellWord[]): boolean {
  const level = r.levels[r.levels.length - 1]!;
  if (r.unsure[k] && level.sensitiveBelow) return true;
  const n = r.operands.length;
  for (const rule of level.operands) {
    const applies = rule.which === 'all' || (rule.which === 'first' ? k === 0 : rule.which === 'last' ? k === n - 1 : k >= rule.from);
    if (!applies || present(r, rule.unless)) continue;
    const w = words[r.operands[k]!]!;
    if (rule.assignment && !w.dynamic && !isAssignment(w.value)) continue;
    if (rule.script !== null) {
      if (w.dynamic || !scriptIsHarmless(rule.script, w.value)) return true;
      continue;
    }
    if (rule.kind !== null) return true;
  }
  return false;
}

/** Fills in which options and operands of a reading run code or write files. */
function sensitivity(r: Reading, words: readonly ShellWord[]): void {
  if (r.optionSensitive !== null) return;
  const options = new Array<boolean>(r.options.length);
  for (let k = 0; k < options.length; k++) options[k] = optionIsSensitive(r, r.options[k]!, words);
  const operands = new Array<boolean>(r.operands.length);
  for (let k = 0; k < operands.length; k++) operands[k] = operandIsSensitive(r, k, words);
  r.optionSensitive = options;
  r.operandSensitive = operands;
}

function sameOption(p: OptionPattern, u: OptionUse): boolean {
  if (p.def === null) return u.def === null && !u.unsure && u.name === p.name;
  return u.def === p.def || (u.candidates !== null && u.candidates.includes(p.def));
}

/** Words `from` to `to` of a view against a sequence of pattern words (a final `*` matches the rest). */
function matchSequence(pattern: readonly PatternWord[], words: readonly ShellWord[], from: number, to: number, any: boolean): boolean {
  const open = pattern.length > 0 && pattern[pattern.length - 1]!.kind === 'star';
  const fixed = open ? pattern.length - 1 : pattern.length;
  const n = to - from;
  if (open ? n < fixed : n !== fixed) return false;
  for (let k = 0; k < fixed; k++) if (!matchWord(pattern[k]!, words[from + k]!, any)) return false;
  return true;
}

function valueMatches(p: OptionPattern, u: OptionUse, words: readonly ShellWord[], any: boolean): boolean {
  if (p.values !== null) {
    if (u.valueAt >= 0) return matchSequence(p.values, words, u.valueAt, u.valueEnd, any);
    return u.offset >= 0 && p.values.length === 1 && attachedMatches(p.values[0]!, words[u.at]!, u.offset, any);
  }
  const want = p.value;
  if (want === null) return true;
  if (u.valueAt >= 0) return u.valueEnd === u.valueAt + 1 && matchWord(want, words[u.valueAt]!, any);
  if (u.offset >= 0) return attachedMatches(want, words[u.at]!, u.offset, any);
  return false;
}

/** The value attached to word `w` from `offset` on, against a pattern word. */
function attachedMatches(want: PatternWord, w: ShellWord, offset: number, any: boolean): boolean {
  if (want.kind === 'star') return true;
  if (w.dynamic) return any;
  if (want.kind === 'literal') return w.value.length - offset === want.value.length && w.value.startsWith(want.value, offset);
  return globMatch(want.segments, w.value.slice(offset));
}

function covered(options: readonly OptionPattern[], u: OptionUse, words: readonly ShellWord[], any: boolean): boolean {
  for (let k = 0; k < options.length; k++) if (sameOption(options[k]!, u) && valueMatches(options[k]!, u, words, any)) return true;
  return false;
}

/**
 * An option-aware pattern against a view's reading. `loose`: the view's program word was computed
 * and may have split into more words, which could set any option: the pattern's options need not
 * be found.
 *
 * For deny and ask, a computed operand where an option may stand (`unsure`: `rm "$x" /`) may be
 * an option instead: read as an operand, or as any options the pattern names. One that may split
 * (`$x` unquoted) may be both at once.
 */
function matchReading(c: Extract<Compiled, { kind: 'options' }>, r: Reading, words: readonly ShellWord[], mode: 'any' | 'allow', loose = false): boolean {
  if (mode === 'allow' || !r.unsure.includes(true)) return readingMatches(c, r, words, mode, loose, r.operands);
  const sure = r.operands.filter((_, k) => !r.unsure[k]);
  if (r.operands.some((at, k) => r.unsure[k] && words[at]!.splits === true))
    return readingMatches(c, r, words, mode, true, r.operands) || readingMatches(c, r, words, mode, true, sure);
  return readingMatches(c, r, words, mode, loose, r.operands) || readingMatches(c, r, words, mode, true, sure);
}

/** matchReading with the view's operands given (`operands`, indexes into `words`). */
function readingMatches(
  c: Extract<Compiled, { kind: 'options' }>,
  r: Reading,
  words: readonly ShellWord[],
  mode: 'any' | 'allow',
  loose: boolean,
  operands: readonly number[],
): boolean {
  const any = mode === 'any';
  const pl = c.levels.length;
  const vl = r.levels.length;
  if (vl < pl) return false;
  for (let k = 1; k < pl; k++) if (r.levels[k] !== c.levels[k]) return false;
  // a deeper subcommand is covered only by a final `*` with no operand before it
  if (vl > pl && (!c.open || c.operands.length > 0)) return false;
  const uses = r.options;
  for (let k = 0; k < c.options.length && !loose; k++) {
    const p = c.options[k]!;
    let found = false;
    for (let j = 0; j < uses.length && !found; j++) found = sameOption(p, uses[j]!) && valueMatches(p, uses[j]!, words, any);
    if (!found) return false;
  }
  const allow = mode === 'allow';
  if (allow) sensitivity(r, words);
  const depth = pl - 1;
  for (let k = 0; k < uses.length; k++) {
    const u = uses[k]!;
    if (covered(c.options, u, words, any)) continue;
    if (allow && r.optionSensitive![k]) return false;
    if (c.open) continue;
    // the global options of the levels above the pattern's subcommand are looked through
    if ((u.def !== null ? u.def.depth : u.depth) < depth) continue;
    return false;
  }
  if (!operandsMatch(c, operands, words, any)) return false;
  if (allow) {
    const pn = c.operands.length;
    for (let k = 0; k < r.operands.length; k++) if (r.operandSensitive![k] && (k >= pn || c.operands[k]!.kind === 'star')) return false;
  }
  return true;
}

/** The operands of a view (indexes into `words`) against the pattern's. */
function operandsMatch(c: Extract<Compiled, { kind: 'options' }>, operands: readonly number[], words: readonly ShellWord[], any: boolean): boolean {
  const pn = c.operands.length;
  const vn = operands.length;
  if (c.open ? vn < pn : vn !== pn) return false;
  for (let k = 0; k < pn; k++) {
    const w = words[operands[k]!]!;
    if (matchWord(c.operands[k]!, w, any)) continue;
    const path = c.paths !== null ? c.paths[k]! : null;
    if (path === null || w.dynamic || normalizePath(w.value) !== path) return false;
  }
  return true;
}

/**
 * In allow mode, for a pattern matched word by word: whether no `*` of the pattern stands for an
 * option or operand of the view that runs code or writes files.
 */
function plainCovers(pattern: readonly PatternWord[], words: readonly ShellWord[]): boolean {
  const root = viewGrammar(words);
  if (root === undefined || !root.sensitiveBelow) return true;
  const r = viewReading(root, words);
  sensitivity(r, words);
  const fixed = pattern[pattern.length - 1]!.kind === 'star' ? pattern.length - 1 : pattern.length;
  const starAt = (at: number): boolean => at >= fixed || pattern[at]!.kind === 'star';
  for (let k = 0; k < r.options.length; k++) if (r.optionSensitive![k] && starAt(r.options[k]!.at)) return false;
  for (let k = 0; k < r.operands.length; k++) if (r.operandSensitive![k] && starAt(r.operands[k]!)) return false;
  return true;
}

/** A pattern against one view's words. */
export function matchWords(pattern: readonly PatternWord[], words: readonly ShellWord[], mode: 'any' | 'allow'): boolean {
  if (pattern.length === 0 || words.length === 0) return false;
  const c = compiledOf(pattern);
  if (mode === 'any' && words[0]!.dynamic) return matchComputedProgram(pattern, c, words);
  if (c.kind === 'words') return matchPlain(pattern, words, mode) && (mode === 'any' || !c.check || plainCovers(pattern, words));
  if (!matchProgram(pattern[0]!, words[0]!, mode)) return false;
  const r = viewReading(c.root, words);
  if (matchReading(c, r, words, mode)) return true;
  return mode === 'any' && matchComputedSubcommand(c, r, words);
}

/**
 * For deny and ask: a computed word where the pattern names a subcommand (`git $x --force` for
 * `git push --force *`) may be that subcommand.
 */
function matchComputedSubcommand(c: Extract<Compiled, { kind: 'options' }>, r: Reading, words: readonly ShellWord[]): boolean {
  let depth = r.levels.length;
  let reading = r;
  let as = words;
  while (depth < c.levels.length) {
    for (let k = 1; k < depth; k++) if (reading.levels[k] !== c.levels[k]) return false;
    const at = reading.operands[0];
    if (at === undefined || !reading.unsure[0]) return false;
    const next = as.slice();
    next[at] = { value: c.levels[depth]!.name, dynamic: false };
    as = next;
    reading = readWords(c.root, as);
    if (reading.levels.length <= depth) return false;
    depth = reading.levels.length;
    if (matchReading(c, reading, as, 'any')) return true;
  }
  return false;
}

/**
 * For deny and ask, a view whose program word is computed when the command runs (`$x -rf /`,
 * `r$(:)m -rf /`, `$(printf rm) -rf /`) may run any program: the pattern matches when the rest of
 * the view's words match the rest of the pattern, read with the pattern's program's options. A
 * word that may split (unquoted) may also hold the pattern's next words and any of its options,
 * and standing alone (`rm${IFS}-rf${IFS}/`) it may be any command at all.
 */
function matchComputedProgram(pattern: readonly PatternWord[], c: Compiled, words: readonly ShellWord[]): boolean {
  // a brace expansion alone is known: the part's alternate view holds the words it gives
  if (braceWords(words[0]!.value) !== null) return false;
  const splits = words[0]!.splits === true;
  if (splits && words.length === 1) return true;
  if (c.kind === 'options') {
    const as: ShellWord[] = words.slice();
    as[0] = { value: (pattern[0] as { value: string }).value, dynamic: false };
    if (matchReading(c, readWords(c.root, as), as, 'any', splits)) return true;
    if (!splits || c.levels.length < 2) return false;
    // the word may hold the subcommands too (`$x --force` for `git push --force *`)
    const subs: ShellWord[] = c.levels.slice(1).map((l) => ({ value: l.name, dynamic: false }));
    const with_ = [as[0]!, ...subs, ...words.slice(1)];
    return matchReading(c, readWords(c.root, with_), with_, 'any', true);
  }
  const rest = words.length - 1;
  for (let k = 1; k <= (splits ? pattern.length : 1); k++) {
    const open = pattern[pattern.length - 1]!.kind === 'star';
    const fixed = (open ? pattern.length - 1 : pattern.length) - k;
    if (fixed < 0) return open;
    if (open ? rest < fixed : rest !== fixed) continue;
    let ok = true;
    for (let i = 0; i < fixed && ok; i++) ok = matchWord(pattern[k + i]!, words[1 + i]!, true);
    if (ok) return true;
  }
  return false;
}

export function matchPart(pattern: readonly PatternWord[], part: CommandPart, mode: 'any' | 'allow'): boolean {
  if (pattern.length === 0) return false;
  const views = part.views.length > 0 ? part.views : [{ words: part.words, wrappers: [], neutral: true }];
  if (mode === 'any') return views.some((v) => matchWords(pattern, v.words, 'any'));
  if (part.unknowable !== null) return false;
  return views.some((v) => v.neutral && matchWords(pattern, v.words, 'allow'));
}

// ---------------------------------------------------------------------------------------------
// For the index, the checker and explanations

/**
 * The word a pattern's index key pairs with its program: for a program with subcommands in the
 * options table, its subcommand (or first operand) after its global options, when literal; for
 * another table program none (options and operands may come in any order); otherwise its second
 * word when literal. Every view the pattern matches has this word as its keyWord.
 */
export function patternKeyWord(pattern: readonly PatternWord[]): string | null {
  const c = compiledOf(pattern);
  if (c.kind === 'options') {
    if (c.root.subcommands === null) return null;
    if (c.levels.length > 1) return c.levels[1]!.name;
    const at = c.reading.operands[0] ?? -1;
    const w = at >= 0 ? pattern[at] : undefined;
    return w !== undefined && w.kind === 'literal' ? w.value : null;
  }
  const first = pattern[0];
  if (first !== undefined && first.kind === 'literal' && programGrammar(first.value.slice(baseStart(first.value))) !== undefined) return null;
  const second = pattern[1];
  return second !== undefined && second.kind === 'literal' ? second.value : null;
}

/**
 * The word of a view that pairs with its program in the index (see patternKeyWord): null when it
 * has none, undefined when that word is computed when the command runs (it may be any word, so
 * every pair of the program may match).
 */
export function keyWord(words: readonly ShellWord[]): string | null | undefined {
  const root = viewGrammar(words);
  if (root === undefined || root.subcommands === null) {
    const w1 = words[1];
    return w1 === undefined ? null : w1.dynamic ? undefined : w1.value;
  }
  const r = viewReading(root, words);
  if (r.levels.length > 1) return r.levels[1]!.name;
  const at = r.operands[0] ?? -1;
  const w = at >= 0 ? words[at] : undefined;
  return w === undefined ? null : w.dynamic ? undefined : w.value;
}

/** Options a pattern names that its program does not have (`rm -Q *`), and the program's level. */
export function unknownPatternOptions(pattern: readonly PatternWord[]): { names: string[]; level: Level } | null {
  const c = compiledOf(pattern);
  if (c.kind !== 'options') return null;
  const names = c.options.filter((o) => o.def === null).map((o) => o.name);
  return names.length > 0 ? { names: [...new Set(names)], level: c.levels[c.levels.length - 1]! } : null;
}

/** The long options of `level` that `--name` abbreviates, when it abbreviates more than one. */
function abbreviated(level: Level, name: string): string[] {
  if (!level.abbreviate || !name.startsWith('--')) return [];
  const prefix = name.slice(2);
  const defs = new Set<OptionDef>();
  for (const n of level.longNames) if (n.startsWith(prefix)) defs.add(level.long.get(n)!);
  return defs.size > 1 ? [...defs].map((d) => d.names.find((n) => n.startsWith('--')) ?? d.name) : [];
}

/** `a`, `a and b`, `a, b and c`, in backticks; at most `max` of them, then how many more. */
function listed(items: readonly string[], max: number): string {
  const shownItems = items.slice(0, max).map((i) => code(i));
  const more = items.length - shownItems.length;
  if (more > 0) return `${shownItems.join(', ')} and ${more} more`;
  return shownItems.length <= 1 ? shownItems.join('') : `${shownItems.slice(0, -1).join(', ')} and ${shownItems[shownItems.length - 1]}`;
}

/**
 * The warning for a command pattern whose option words its program's grammar cannot read: an
 * option the program does not have (`rm -Q *`), or an abbreviation of several (`git push --forc`).
 * Null when every option word is one the program has (or the program is not in the table).
 */
export function commandPatternOptionWarning(source: string): { message: string; help: string } | null {
  const lexed = lexPattern(source);
  if (lexed.error) return null;
  const unknown = unknownPatternOptions(lexed.words);
  if (unknown === null) return null;
  const level = unknown.level;
  const name = unknown.names[0]!;
  const program = level.path;
  const several = abbreviated(level, name);
  if (several.length > 0) {
    return {
      message: `${code(name)} abbreviates several options of ${code(program)} (${listed(several, 4)}), so this pattern matches only commands that write ${code(name)} as it is`,
      help: `write the option in full, as ${code(several[0]!)}`,
    };
  }
  const options = level.options.map((d) => d.name);
  return {
    message: `${code(program)} has no option ${code(name)}, so this pattern matches only commands that write ${code(name)} as it is`,
    help: `${code(program)} has the options ${listed(options, 12)}; to match the word ${code(name)} exactly, quote it (${code(`'${name}'`)}), which compares the pattern word by word`,
  };
}

/** What an option or operand that an allow does not cover does: runs code, writes a file, or may be either (a computed word). */
export type Uncovered = { word: string; kind: 'option' | 'operand'; effect: 'runs' | 'writes' | 'unknown' };

function effectOf(r: Reading, u: OptionUse | null, k: number): Uncovered['effect'] {
  if (u !== null) {
    if (u.unsure || u.def === null) return 'unknown';
    return u.def.kind ?? 'runs';
  }
  if (r.unsure[k]) return 'unknown';
  const rule = r.levels[r.levels.length - 1]!.operands.find((o) => o.kind !== null || o.script !== null);
  return rule?.kind ?? 'runs';
}

/**
 * Why an allow pattern that matches a view in `any` mode does not cover it in `allow` mode
 * because of an option or operand that runs code or writes files: that word, or null.
 */
export function uncoveredWord(pattern: readonly PatternWord[], words: readonly ShellWord[]): Uncovered | null {
  if (!matchWords(pattern, words, 'any') || matchWords(pattern, words, 'allow')) return null;
  const root = viewGrammar(words);
  if (root === undefined) return null;
  const r = viewReading(root, words);
  sensitivity(r, words);
  const c = compiledOf(pattern);
  const named = c.kind === 'options' ? c.options : [];
  for (let k = 0; k < r.options.length; k++) {
    const u = r.options[k]!;
    if (r.optionSensitive![k] && !covered(named, u, words, false)) return { word: words[u.at]!.value, kind: 'option', effect: effectOf(r, u, k) };
  }
  for (let k = 0; k < r.operands.length; k++) {
    if (r.operandSensitive![k]) return { word: words[r.operands[k]!]!.value, kind: 'operand', effect: effectOf(r, null, k) };
  }
  return null;
}

/** How a view's words read with their program's grammar (`rm -fr x` is `rm -f -r x`), or null for a program outside the table. */
export function readingText(words: readonly ShellWord[]): string | null {
  const root = viewGrammar(words);
  if (root === undefined) return null;
  const r = viewReading(root, words);
  const out: string[] = [words[0]!.value];
  const option = (u: OptionUse): string => {
    const v = valueText(u, words);
    const name = u.def !== null ? u.def.name : u.name || words[u.at]!.value;
    if (v === null) return name;
    return name.startsWith('--') || u.def?.value === 'optional' ? `${name}=${v.text}` : `${name} ${v.text}`;
  };
  let next = 0;
  for (let l = 0; l < r.levels.length; l++) {
    for (const u of r.options) if (u.depth === l) out.push(option(u));
    if (l + 1 < r.levels.length) out.push(words[r.subAt[next++]!]!.value);
  }
  for (const k of r.operands) out.push(words[k]!.value);
  return out.join(' ');
}

// ---------------------------------------------------------------------------------------------
// Whether one pattern covers another (for the shadowing lint)

/** Whether every value the pattern word `q` matches, `p` matches too (literal, glob or `*`). */
function wordCovers(p: PatternWord | null, q: PatternWord | null): boolean {
  if (p === null || p.kind === 'star') return true;
  if (q === null || q.kind === 'star') return false;
  if (p.kind === 'literal') return q.kind === 'literal' && q.value === p.value;
  if (q.kind === 'literal') return globMatch(p.segments, q.value);
  return p.segments.length === q.segments.length && p.segments.every((s, i) => s === q.segments[i]);
}

function optionCovers(p: OptionPattern, q: OptionPattern): boolean {
  if (p.def !== q.def || (p.def === null && p.name !== q.name)) return false;
  if (p.values !== null || q.values !== null) {
    if (p.values === null || q.values === null) return p.value === null && p.values === null;
    return p.values.length === q.values.length && p.values.every((w, i) => wordCovers(w, q.values![i]!));
  }
  return wordCovers(p.value, q.value);
}

function isSensitive(def: OptionDef | null): boolean {
  return def !== null && (def.kind !== null || def.script !== null);
}

/**
 * Whether every command part pattern `q` matches, `p` matches too, in `any` and in `allow` mode,
 * when one of them is read with a program's grammar (the options table): true only when that is
 * sure; undefined when neither is (compare their words then). Used by the shadowing lint.
 */
export function optionPatternCovers(p: readonly PatternWord[], q: readonly PatternWord[]): boolean | undefined {
  const cp = compiledOf(p);
  const cq = compiledOf(q);
  if (cp.kind === 'words' && cq.kind === 'words') {
    // a `*` of `p` covers no word that runs or writes in an allow, which `q` may name literally
    if (cp.check && cq.check) return p.length === q.length && p.every((w, k) => wordCovers(w, q[k]!) && wordCovers(q[k]!, w));
    return undefined;
  }
  if (cp.kind !== 'options' || cq.kind !== 'options' || cp.root !== cq.root || !wordCovers(p[0]!, q[0]!)) return false;
  const pl = cp.levels.length;
  if (cq.levels.length < pl || cp.levels.some((l, k) => cq.levels[k] !== l)) return false;
  if (cq.levels.length > pl && (!cp.open || cp.operands.length > 0)) return false;
  if (!cp.open && cq.open) return false;
  // every option p requires, q requires too (with a value p accepts)
  for (const po of cp.options) if (!cq.options.some((qo) => optionCovers(po, qo))) return false;
  for (const qo of cq.options) {
    if (cp.options.some((po) => optionCovers(po, qo))) continue;
    // in an allow, a `*` of p does not cover an option that runs or writes, which q names
    if (isSensitive(qo.def)) return false;
    if (cp.open) continue;
    // a closed p lets through only the global options above its subcommand
    if (qo.def !== null && qo.def.depth < pl - 1) continue;
    return false;
  }
  const pn = cp.operands.length;
  const qn = cq.operands.length;
  if (cp.open ? qn < pn : qn !== pn) return false;
  for (let k = 0; k < pn; k++) if (!wordCovers(cp.operands[k]!, cq.operands[k]!)) return false;
  // nor an operand that runs or writes, which q may name
  if (cq.levels[cq.levels.length - 1]!.operands.length > 0) {
    for (let k = 0; k < qn; k++) if ((k >= pn || cp.operands[k]!.kind === 'star') && cq.operands[k]!.kind !== 'star') return false;
  }
  return true;
}
