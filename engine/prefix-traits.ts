/**
 * What a shell command that starts with given words may do, in the terms of the engine's own
 * program tables: whether it may run other commands (a wrapper, a shell, an option or operand
 * the options table marks as running or writing, an unknown subcommand that may be an alias),
 * whether it may change files by its nature (`rm`, `mv`, `cp`), and whether its words may be
 * read as files (any program but those that only name files: `echo`, `ls`).
 *
 * A reader of commands shallower than the engine's (Gemini CLI's `commandPrefix`, which allows
 * every command that starts with the words) needs this to tell whether an allow of a prefix can
 * reach a command the engine would deny through what the program does with its words. Each trait
 * is an over-approximation: true when the tables cannot rule it out.
 */
import { programBasename as basename } from './shell/paths.js';
import { programGrammar, type Level } from './shell/programs/grammar.js';
import { NAME_ONLY } from './shell/programs/readers.js';
import { PROGRAMS } from './shell/wrappers.js';
import { CHANGER_PROGRAMS } from './writes.js';

/** A word with no quotes, expansions, globs or spaces: what it says is what the command has. */
const PLAIN_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

export interface PrefixTraits {
  /** It may run another command: a wrapper, a shell, a script option, an alias. */
  readonly runs: boolean;
  /** It may write, remove, move or change files through its options, operands or nature. */
  readonly writes: boolean;
  /** Its words may be read as files. */
  readonly reads: boolean;
}

/**
 * Programs that run what their words say beyond the wrapper and options tables: builtins that run
 * text as commands or change what a later word runs, those that evaluate a word as arithmetic or
 * as a name whose subscript runs (`let 'a[$(cmd)]'`, `printf -v`, `test -v`), and `find`, whose
 * `-exec` commands the analysis reads itself.
 */
const RUNNING_PROGRAMS: ReadonlySet<string> = new Set([
  'eval', 'source', '.', 'trap', 'alias', 'function', 'coproc', 'enable', 'fc', 'autoload', 'unalias',
  'let', 'declare', 'typeset', 'local', 'export', 'readonly', 'read', 'mapfile', 'readarray', 'getopts', 'printf', 'test', '[', '[[', 'unset',
  'find',
]);

/**
 * The traits of every command that starts with `words` (the words as written: plain, no quotes, no
 * expansions). A word that is not plain (`$x`, a glob) makes every trait true.
 */
export function prefixTraits(words: readonly string[]): PrefixTraits {
  const all: PrefixTraits = { runs: true, writes: true, reads: true };
  const first = words[0];
  if (first === undefined || words.some((w) => !PLAIN_WORD.test(w))) return all;
  const name = basename(first);
  const reads = !NAME_ONLY.has(name);
  let runs = RUNNING_PROGRAMS.has(name) || Object.hasOwn(PROGRAMS.shells, name);
  const wrapper = Object.hasOwn(PROGRAMS.wrappers, name) ? PROGRAMS.wrappers[name] : undefined;
  if (wrapper !== undefined) {
    // a wrapper of some subcommands only (`npm exec`) runs nothing when another subcommand is fixed
    const sub = words[1];
    const fixedOther = wrapper.subcommands !== undefined && sub !== undefined && !sub.startsWith('-') && !wrapper.subcommands.includes(sub);
    if (!fixedOther) runs = true;
  }
  let writes = CHANGER_PROGRAMS.has(name);
  const grammar = programGrammar(name);
  if (grammar !== undefined) {
    const level = levelOf(grammar, words.slice(1));
    if (level === undefined) {
      runs = true;
      writes = true;
    } else if (level.sensitiveBelow) {
      const kinds = effectsBelow(level);
      if (kinds.runs) runs = true;
      if (kinds.writes) writes = true;
    }
  }
  return { runs, writes, reads };
}

const EFFECTS = new WeakMap<Level, { runs: boolean; writes: boolean }>();

/** Whether some option or operand of the level, or of a subcommand below it, runs (a script counts) or writes. */
function effectsBelow(level: Level): { runs: boolean; writes: boolean } {
  const known = EFFECTS.get(level);
  if (known !== undefined) return known;
  const out = { runs: false, writes: false };
  for (const x of [...level.options, ...level.operands]) {
    if (x.kind === 'runs' || x.script !== null) out.runs = true;
    if (x.kind === 'writes') out.writes = true;
  }
  EFFECTS.set(level, out);
  for (const sub of new Set(level.subcommands?.values() ?? [])) {
    const below = effectsBelow(sub);
    out.runs ||= below.runs;
    out.writes ||= below.writes;
  }
  return out;
}

/** The level the words fix (`git status` -> `git status`); undefined when a word leaves it open (an alias, an option before the subcommand). */
function levelOf(root: Level, rest: readonly string[]): Level | undefined {
  let level = root;
  for (const w of rest) {
    if (level.subcommands === null) return level;
    if (w.startsWith('-')) return undefined;
    const next = level.subcommands.get(w);
    if (next === undefined) return undefined;
    level = next;
  }
  // the words end before a subcommand is fixed: any of them, or an alias, may follow
  return level.subcommands === null ? level : undefined;
}


/**
 * Whether a command that starts with the words `prefix` (any words may follow) may be one that a
 * command pattern (`pattern`, split into its words) matches, as the engine reads patterns: a
 * final `*` matches any further words, options may stand anywhere, a subcommand may have another
 * spelling (`npm t`). False only when the two part at a word that fixes different subcommands or
 * operands, or at the program.
 */
export function prefixMayMatch(prefix: readonly string[], pattern: readonly string[]): boolean {
  const [a, p] = [prefix[0], pattern[0]];
  if (a === undefined || p === undefined || !PLAIN_WORD.test(p) || !PLAIN_WORD.test(a)) return true;
  if (basename(a) !== basename(p)) return false;
  let level = programGrammar(basename(a));
  for (let i = 1; ; i++) {
    const [wa, wp] = [prefix[i], pattern[i]];
    // the prefix ends first (any word may follow), or the pattern does (an exact pattern is read with its options anywhere)
    if (wa === undefined || wp === undefined) return true;
    if (!PLAIN_WORD.test(wp) || !PLAIN_WORD.test(wa) || wp.startsWith('-') || wa.startsWith('-')) return true;
    if (wa === wp) {
      level = level?.subcommands?.get(wa);
      continue;
    }
    const subs = level?.subcommands;
    // two spellings of one subcommand
    if (subs != null && subs.get(wa) !== undefined && subs.get(wa) === subs.get(wp)) {
      level = subs.get(wa);
      continue;
    }
    return false;
  }
}
