/**
 * Reads a command's words with its program's grammar (grammar.ts): which words are options (and
 * which option each spelling is: `-rf` is `-r` and `-f`, `--rec` is `--recursive`), their values,
 * the subcommands (`git -C x push` is `push` under `git`), and the operands, in order.
 *
 * The same reader reads a view's words and a pattern's words, so both sides agree on every
 * spelling. A computed word (`$X`) is read by the text it surely starts with: `--output=$F` is
 * `--output` with a computed value; a bare `$X` where an option may stand is an operand marked
 * `unsure` (it may be any option). In a pattern, a `*` or a glob stands for computed text the same
 * way; a word that must be compared as written (quoted) or that cannot be read as an option makes
 * the pattern unreadable, and it is then matched word by word.
 */
import type { ShellWord } from '../types.js';
import type { Level, OptionDef } from './grammar.js';

/** One option as read: which one, where it was written, and where its value is. */
export interface OptionUse {
  /** The option, or null for one the grammar does not know (or cannot tell: `unsure`). */
  readonly def: OptionDef | null;
  /** The spelling of an unknown option (`-Q`, `--frob`); the canonical name for a known one. */
  readonly name: string;
  /** The word it was written in. */
  readonly at: number;
  /** Where an attached value starts in that word (`-ofile`, `--output=file`), or -1. */
  readonly offset: number;
  /** The first word of a separate value, or -1. */
  readonly valueAt: number;
  /** Just past the last word of a separate value. */
  readonly valueEnd: number;
  /** The depth of the level it was read at. */
  readonly depth: number;
  /** A computed word that may be an option the reader cannot name, or an ambiguous abbreviation. */
  readonly unsure: boolean;
  /** For an ambiguous abbreviation (`--forc`), the options it may stand for. */
  readonly candidates: readonly OptionDef[] | null;
}

export interface Reading {
  /** The program's level, then each subcommand's. */
  readonly levels: Level[];
  /** The word of each subcommand. */
  readonly subAt: number[];
  readonly options: OptionUse[];
  /** The operands' words, in order. */
  readonly operands: number[];
  /** For each operand: a computed word read where an option may stand. */
  readonly unsure: boolean[];
  /** The first word a pattern cannot read as the grammar would (-1: none). */
  unreadable: number;
  /** Filled by the matcher on first need (allow mode): whether each option and operand runs or writes. */
  optionSensitive: boolean[] | null;
  operandSensitive: boolean[] | null;
}

const SHORT_NAMES: readonly string[] = Array.from({ length: 128 }, (_, c) => '-' + String.fromCharCode(c));

/**
 * The text a computed word surely starts with: up to its first `$`, backtick, brace or process
 * substitution (quote removal has been done; what follows may be anything).
 */
export function staticPrefix(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 36 /* $ */ || c === 96 /* ` */ || c === 123 /* { */ || c === 60 /* < */ || c === 62 /* > */) return value.slice(0, i);
  }
  return value;
}

interface LongLookup {
  readonly def: OptionDef | null;
  /** The options an ambiguous abbreviation may stand for; null when it is not one. */
  readonly candidates: OptionDef[] | null;
}

const NONE: LongLookup = { def: null, candidates: null };

/** A long option by name, or by a prefix when the level allows abbreviations. */
function lookupLong(level: Level, name: string): LongLookup {
  const exact = level.long.get(name);
  if (exact !== undefined) return { def: exact, candidates: null };
  if (!level.abbreviate || name.length === 0) return NONE;
  let found: OptionDef | null = null;
  let candidates: OptionDef[] | null = null;
  const names = level.longNames;
  for (let k = 0; k < names.length; k++) {
    if (!names[k]!.startsWith(name)) continue;
    const def = level.long.get(names[k]!)!;
    if (found === null) found = def;
    else if (found !== def && (candidates === null || !candidates.includes(def))) (candidates ??= [found]).push(def);
  }
  if (candidates !== null) return { def: null, candidates };
  return found === null ? NONE : { def: found, candidates: null };
}

function isDigits(text: string, from: number): boolean {
  if (from >= text.length) return false;
  for (let k = from; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** `;`, or `+` after `{}`: the end of a `find -exec` command. */
function endsCommand(words: readonly ShellWord[], j: number): boolean {
  const w = words[j]!;
  if (w.dynamic) return false;
  return w.value === ';' || (w.value === '+' && j > 0 && !words[j - 1]!.dynamic && words[j - 1]!.value === '{}');
}

class Reader {
  readonly r: Reading;
  level: Level;
  /** Operands read at this level. */
  seen = 0;
  optionsOn = true;

  constructor(
    root: Level,
    readonly words: readonly ShellWord[],
    /** Words read as options or operands end here; values may reach beyond (a pattern's final `*`). */
    readonly end: number,
    readonly exact: readonly boolean[] | null,
    readonly prefixes: readonly (string | null)[] | null,
  ) {
    this.level = root;
    this.r = { levels: [root], subAt: [], options: [], operands: [], unsure: [], unreadable: -1, optionSensitive: null, operandSensitive: null };
  }

  /** The known text of word `i`: all of it, or for a computed word (a pattern's `*` or glob) its prefix. */
  textOf(i: number): string {
    const w = this.words[i]!;
    if (!w.dynamic) return w.value;
    const p = this.prefixes !== null ? this.prefixes[i] : null;
    return p ?? staticPrefix(w.value);
  }

  use(
    def: OptionDef | null,
    name: string,
    at: number,
    offset: number,
    valueAt: number,
    valueEnd: number,
    unsure: boolean,
    candidates: readonly OptionDef[] | null = null,
  ): void {
    this.r.options.push({ def, name, at, offset, valueAt, valueEnd, depth: this.level.depth, unsure, candidates });
  }

  /** Stops at a word a pattern cannot read; false for a view, which reads it as an unsure option. */
  cannotRead(i: number): boolean {
    if (this.prefixes === null && this.exact === null) {
      this.use(null, '', i, -1, -1, -1, true);
      return false;
    }
    this.r.unreadable = i;
    return true;
  }

  /** Reads a separate value of `def` after word `i`; returns the next word to read. */
  separateValue(def: OptionDef, i: number, name: string, unsure: boolean): number {
    const words = this.words;
    if (def.value === 'command') {
      let j = i + 1;
      while (j < words.length && !endsCommand(words, j)) j++;
      this.use(def, name, i, -1, i + 1, j, unsure);
      return j < words.length ? j + 1 : j;
    }
    if (def.value === 'required') {
      const end = Math.min(words.length, i + 1 + def.count);
      if (end > i + 1) {
        this.use(def, name, i, -1, i + 1, end, unsure);
        return end;
      }
      this.use(def, name, i, -1, -1, -1, unsure);
      return i + 1;
    }
    if (def.value === 'optional-number' && i + 1 < this.end && !words[i + 1]!.dynamic && isDigits(words[i + 1]!.value, 0)) {
      this.use(def, name, i, -1, i + 1, i + 2, unsure);
      return i + 2;
    }
    this.use(def, name, i, -1, -1, -1, unsure);
    return i + 1;
  }

  /** `--name`, `--name=value`, `--name value`. Returns the next word, or -1 to stop. */
  longOption(i: number, text: string, dashes: number): number {
    const dynamic = this.words[i]!.dynamic;
    const eq = text.indexOf('=', dashes);
    if (dynamic && eq < 0) return this.cannotRead(i) ? -1 : i + 1;
    const name = text.slice(dashes, eq < 0 ? undefined : eq);
    let def: OptionDef | null;
    let candidates: OptionDef[] | null = null;
    if (this.level.singleDash) {
      def = this.level.long.get(name) ?? null;
    } else {
      const found = lookupLong(this.level, name);
      def = found.def;
      candidates = found.candidates;
    }
    if (def === null) {
      const spelled = eq < 0 ? text : text.slice(0, eq);
      // an ambiguous abbreviation: the program refuses it, or (in another version) takes one of them
      if (candidates !== null && this.prefixes === null && this.exact === null) this.use(null, spelled, i, eq < 0 ? -1 : eq + 1, -1, -1, true, candidates);
      else this.use(null, spelled, i, eq < 0 ? -1 : eq + 1, -1, -1, false);
      return i + 1;
    }
    if (eq >= 0) {
      this.use(def, def.name, i, eq + 1, -1, -1, false);
      return i + 1;
    }
    return this.separateValue(def, i, def.name, false);
  }

  /** A bundle of short options: `-rf`, `-ofile`, `-o file`. Returns the next word, or -1 to stop. */
  shortOptions(i: number, text: string): number {
    const dynamic = this.words[i]!.dynamic;
    const level = this.level;
    for (let j = 1; j < text.length; j++) {
      const c = text.charCodeAt(j);
      const def = c < 128 ? level.short[c] : level.shortOther.get(text[j]!);
      if (def === undefined) {
        this.use(null, c < 128 ? SHORT_NAMES[c]! : '-' + text[j], i, -1, -1, -1, false);
        continue;
      }
      if (def.value === 'none') {
        this.use(def, def.name, i, -1, -1, -1, false);
        continue;
      }
      if (j + 1 < text.length || dynamic) {
        // the rest of the word is the value (computed, for a computed word)
        this.use(def, def.name, i, j + 1, -1, -1, false);
        return i + 1;
      }
      return this.separateValue(def, i, def.name, false);
    }
    // a computed word whose known text ended among flags: more letters may follow
    if (dynamic) return this.cannotRead(i) ? -1 : i + 1;
    return i + 1;
  }

  /** An operand, or the subcommand the level expects there. */
  operand(i: number): void {
    const w = this.words[i]!;
    const level = this.level;
    const r = this.r;
    if (level.subcommands !== null && this.seen === 0) {
      if (!w.dynamic) {
        const sub = level.subcommands.get(w.value);
        if (sub !== undefined) {
          r.levels.push(sub);
          r.subAt.push(i);
          this.level = sub;
          this.seen = 0;
          this.optionsOn = true;
          return;
        }
      } else if (this.prefixes !== null) {
        // a pattern's `*` or glob where the subcommand is
        r.unreadable = i;
        return;
      }
    }
    r.operands.push(i);
    // A computed word may be any option when its known text is empty, and any subcommand. The
    // `{}` of `find -exec` is a path that starts with one of find's starting points, never `-`.
    const unknownStart = this.textOf(i) === '' && !(this.prefixes === null && w.value.startsWith('{}'));
    r.unsure.push(w.dynamic && this.optionsOn && (unknownStart || (level.subcommands !== null && this.seen === 0)));
    this.seen++;
    if (this.seen > level.permute) this.optionsOn = false;
  }

  /** Reads the word at `i` where options are read; returns the next word, or -1 to stop. */
  optionWord(i: number): number {
    const w = this.words[i]!;
    const level = this.level;
    const text = this.textOf(i);
    const exact = this.exact !== null && this.exact[i] === true;
    const c0 = text.charCodeAt(0);
    let kind = 0; // 0 operand, 1 option
    if (c0 === 45 /* - */ && (text.length > 1 || w.dynamic)) kind = 1;
    else if (c0 === 43 /* + */ && level.plus !== null) kind = 1;
    else if (!w.dynamic && level.words.has(text)) kind = 1;
    else if (level.keywords.length > 0 && text.indexOf('=') > 0) {
      for (const k of level.keywords) if (k.names.some((n) => text.startsWith(n))) kind = 1;
    }
    if (kind === 0) {
      this.operand(i);
      return this.r.unreadable >= 0 ? -1 : i + 1;
    }
    if (exact) {
      this.r.unreadable = i;
      return -1;
    }
    if (c0 === 45 && !w.dynamic && text === '--') {
      if (level.doubleDash) {
        this.optionsOn = false;
        return i + 1;
      }
      this.use(null, '--', i, -1, -1, -1, false);
      return i + 1;
    }
    if (c0 === 45) {
      const whole = w.dynamic ? undefined : level.words.get(text);
      if (whole !== undefined) return this.separateValue(whole, i, whole.name, false);
      if (level.singleDash) return this.longOption(i, text, text.charCodeAt(1) === 45 ? 2 : 1);
      if (text.charCodeAt(1) === 45) return this.longOption(i, text, 2);
      if (level.numeric !== null && !w.dynamic && isDigits(text, 1)) {
        this.use(level.numeric, level.numeric.name, i, 1, -1, -1, false);
        return i + 1;
      }
      return this.shortOptions(i, text);
    }
    if (c0 === 43 /* + */) {
      this.use(level.plus, level.plus!.name, i, 1, -1, -1, false);
      return i + 1;
    }
    if (!w.dynamic && level.words.has(text)) {
      const def = level.words.get(text)!;
      return this.separateValue(def, i, def.name, false);
    }
    for (const k of level.keywords) {
      const n = k.names.find((name) => text.startsWith(name));
      if (n !== undefined) {
        this.use(k, k.name, i, n.length, -1, -1, false);
        return i + 1;
      }
    }
    this.operand(i);
    return i + 1;
  }

  /** `tar czf a.tgz dir`: the letters of word 1 are options, their values the next words in turn. */
  oldStyle(): number {
    const text = this.words[1]!.value;
    const level = this.level;
    let next = 2;
    for (let j = 0; j < text.length; j++) {
      const c = text.charCodeAt(j);
      const def = c < 128 ? level.short[c] : level.shortOther.get(text[j]!);
      if (def === undefined) {
        this.use(null, c < 128 ? SHORT_NAMES[c]! : '-' + text[j], 1, -1, -1, -1, false);
      } else if (def.value === 'required' && next < this.words.length) {
        this.use(def, def.name, 1, -1, next, next + 1, false);
        next++;
      } else {
        this.use(def, def.name, 1, -1, -1, -1, false);
      }
    }
    return next;
  }

  read(): Reading {
    const words = this.words;
    let i = 1;
    if (this.level.oldStyle && this.end > 1) {
      const w = words[1]!;
      if (!w.dynamic && w.value.length > 0 && w.value.charCodeAt(0) !== 45 && !(this.exact !== null && this.exact[1] === true)) i = this.oldStyle();
    }
    while (i < this.end) {
      if (!this.optionsOn) {
        const w = words[i]!;
        // options are over, but a level may still expect its subcommand (`git -- x` has none)
        this.r.operands.push(i);
        this.r.unsure.push(false);
        this.seen++;
        if (w.dynamic && this.prefixes !== null && this.level.subcommands !== null && this.seen === 1) {
          this.r.unreadable = i;
          return this.r;
        }
        i++;
        continue;
      }
      i = this.optionWord(i);
      if (i < 0) break;
    }
    return this.r;
  }
}

/**
 * Reads `words` (word 0 is the program) with `root`, the program's grammar. `end` limits the words
 * read as options and operands (a pattern's final `*` is not one); values may reach past it.
 * `exact` marks the words a pattern compares as written; `prefixes` gives the known text of a
 * pattern's non-literal words (its `*` and globs), which are marked dynamic.
 */
export function readWords(
  root: Level,
  words: readonly ShellWord[],
  end: number = words.length,
  exact: readonly boolean[] | null = null,
  prefixes: readonly (string | null)[] | null = null,
): Reading {
  return new Reader(root, words, end, exact, prefixes).read();
}
