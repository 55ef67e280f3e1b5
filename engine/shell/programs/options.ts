/**
 * The options table (options.json, schema options.schema.json), typed: for each program the
 * option grammar that command patterns read its words with, its subcommands and their options,
 * and the options and operands that run code or write files. grammar.ts compiles it into lookups.
 */
import table from './options.json' with { type: 'json' };

/**
 * What follows an option: nothing; a value that is required (attached or the next word), optional
 * (attached only: `-i.bak`, `--color=auto`), optional but also taken from the next word when that
 * word is a number (`make -j 4`); or a command of several words ended by `;` or `+` (`find -exec`).
 */
export type ValueKind = 'none' | 'required' | 'optional' | 'optional-number' | 'command';

/** What a sensitive option or operand does: runs a program (or code), or writes a file. */
export type EffectKind = 'runs' | 'writes';

/** Languages of scripts that dshpolicy reads to tell whether they run or write (programs/scripts.ts); `less`: the commands of `less +CMD`. */
export type ScriptLanguage = 'sed' | 'awk' | 'less';

export interface OptionEntry {
  /**
   * The spellings of one option: `-x` (a short option), `--name` (a long option), `-name` (a
   * whole-word option, as `find -delete`), `+` (a word starting with `+`, its value attached:
   * `vim +cmd`), `name=` (a keyword: `dd of=FILE`), or another word that is an option by itself
   * (`find !`). The first is the canonical spelling.
   */
  names: string[];
  value?: ValueKind;
  /** How many words a required value takes (`find -fprintf FILE FORMAT` takes 2); default 1. */
  count?: number;
  kind?: EffectKind;
  /**
   * The kind applies only when the value starts with one of these, or contains the text after a
   * leading `*` (ASCII case ignored; leading blanks and quotes of the value are skipped).
   */
  when?: string[];
  /** The value is a script in this language: it runs or writes when the script can. */
  script?: ScriptLanguage;
  /** The kind does not apply when one of these options is also given (`sed --sandbox`). */
  unless?: string[];
  about?: string;
}

export interface OperandEntry {
  /** Which operands: all of them, the first, the last, or those from index `from` (0-based) on. */
  which: 'all' | 'first' | 'last' | 'from';
  from?: number;
  /** Only operands of the form `NAME=value` (make's variable assignments). */
  assignment?: boolean;
  kind?: EffectKind;
  script?: ScriptLanguage;
  /** The rule does not apply when one of these options is given (`awk -f FILE`: no program operand). */
  unless?: string[];
  about?: string;
}

export interface LevelEntry {
  about?: string;
  /** Other names of this program (`vi` and `nvim` for `vim`) or subcommand (`t` for `npm test`). */
  aliases?: string[];
  options?: OptionEntry[];
  /** Names of shared option lists (the table's `sets`) this level also has; its own options replace theirs. */
  use?: string[];
  /**
   * `getopt` (default): short options bundle (`-rf`), long options start with `--`.
   * `single-dash`: every option is a whole word, written `-name` or `--name` (find, go, terraform).
   */
  style?: 'getopt' | 'single-dash';
  /**
   * Whether options may follow operands: true (default, GNU style), false (options stop at the
   * first operand), or the number of operands after which they stop (ssh reads options after its
   * host, not after the remote command).
   */
  permute?: boolean | number;
  /** Whether `--` ends the options (default true). */
  doubleDash?: boolean;
  /** Whether a long option may be shortened to a prefix that names one option (default false). */
  abbreviate?: boolean;
  /** The first word, when it does not start with `-`, is a bundle of short options (`tar xzf a.tgz`). */
  oldStyle?: boolean;
  /** `-NUM` is this option with the value NUM (`head -5` is `head -n 5`). */
  numeric?: string;
  /**
   * The operands are paths: they are compared with repeated slashes and `.` segments left out
   * (`rm -rf //` is `rm -rf /`, `./x` is `x`).
   */
  paths?: boolean;
  operands?: OperandEntry[];
  /** Subcommands, read at the first operand of this level. */
  subcommands?: Record<string, LevelEntry>;
  /** This level's options are also read after its subcommands (`npm test --prefix x`, `kubectl get -n ns`). */
  inherited?: boolean;
}

export interface ProgramEntry extends LevelEntry {
  about: string;
}

export interface OptionsTable {
  /** Option lists shared by several levels (git's diff options). */
  sets: Record<string, OptionEntry[]>;
  programs: Record<string, ProgramEntry>;
}

/** The table as written in options.json. */
export const OPTIONS_TABLE: OptionsTable = table as unknown as OptionsTable;
