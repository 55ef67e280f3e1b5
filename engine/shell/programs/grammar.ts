/**
 * The options table compiled into lookups, once at start-up: for each program (and each of its
 * subcommands) a Level with its short options by character code, its long options by name, and
 * its rules for sensitive operands. read.ts reads words with a Level.
 */
import {
  OPTIONS_TABLE,
  type EffectKind,
  type LevelEntry,
  type OperandEntry,
  type OptionEntry,
  type OptionsTable,
  type ScriptLanguage,
  type ValueKind,
} from './options.js';

export interface OptionDef {
  /** The canonical spelling (the first of the table's names). */
  readonly name: string;
  readonly names: readonly string[];
  readonly value: ValueKind;
  /** Words a required value takes. */
  readonly count: number;
  readonly kind: EffectKind | null;
  /** Lowercased value prefixes (or, after a `*`, contained texts) the kind is limited to; null for every value. */
  readonly when: readonly string[] | null;
  readonly script: ScriptLanguage | null;
  /** Options whose presence cancels the kind. */
  unless: readonly OptionDef[];
  /** The depth of the level the option belongs to (0: the program's own, or global, options). */
  readonly depth: number;
  /** The level the option belongs to. */
  readonly level: Level;
}

export interface OperandRule {
  readonly which: 'all' | 'first' | 'last' | 'from';
  readonly from: number;
  readonly assignment: boolean;
  readonly kind: EffectKind | null;
  readonly script: ScriptLanguage | null;
  readonly unless: readonly OptionDef[];
}

export interface Level {
  /** The program's or subcommand's name as the table lists it (`git`, `push`, `test` for `npm t`). */
  readonly name: string;
  /** `git`, `git push`. */
  readonly path: string;
  readonly depth: number;
  /** Short options (getopt style) by character code, for codes below 128. */
  readonly short: readonly (OptionDef | undefined)[];
  /** Short options of other characters. */
  readonly shortOther: ReadonlyMap<string, OptionDef>;
  /** Long options by name without dashes; in the single-dash style, every dash option. */
  readonly long: ReadonlyMap<string, OptionDef>;
  /** The long names, for prefix lookups. */
  readonly longNames: readonly string[];
  /** Options that are whole words (`-delete` in getopt style, `!`, `(`). */
  readonly words: ReadonlyMap<string, OptionDef>;
  /** Keyword options (`of=`), by their prefix including `=`. */
  readonly keywords: readonly OptionDef[];
  /** The `+VALUE` option, if any. */
  readonly plus: OptionDef | null;
  /** The option `-NUM` stands for, if any. */
  readonly numeric: OptionDef | null;
  readonly singleDash: boolean;
  /** Operands after which options stop (Infinity: never). */
  readonly permute: number;
  readonly doubleDash: boolean;
  readonly abbreviate: boolean;
  readonly oldStyle: boolean;
  /** The operands are paths (compared normalised). */
  readonly paths: boolean;
  readonly operands: readonly OperandRule[];
  readonly subcommands: ReadonlyMap<string, Level> | null;
  /** Every option read at this level (its own and inherited ones), in table order. */
  readonly options: readonly OptionDef[];
  /** Some option or operand rule of this level runs or writes. */
  readonly sensitive: boolean;
  /** This level or one below it is sensitive. */
  readonly sensitiveBelow: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function isShortName(name: string): boolean {
  return name.length === 2 && name[0] === '-' && name[1] !== '-';
}

function optionDef(entry: OptionEntry, level: Level): OptionDef {
  return {
    name: entry.names[0]!,
    names: entry.names,
    value: entry.value ?? 'none',
    count: entry.count ?? 1,
    kind: entry.kind ?? null,
    when: entry.when ? entry.when.map((w) => w.toLowerCase()) : null,
    script: entry.script ?? null,
    unless: [],
    depth: level.depth,
    level,
  };
}

/** Where each spelling of `def` is looked up at `level`. */
function register(level: Mutable<Level>, def: OptionDef, shadow: boolean): void {
  const short = level.short as (OptionDef | undefined)[];
  const shortOther = level.shortOther as Map<string, OptionDef>;
  const long = level.long as Map<string, OptionDef>;
  const words = level.words as Map<string, OptionDef>;
  const keywords = level.keywords as OptionDef[];
  const put = <K>(map: Map<K, OptionDef>, key: K): void => {
    if (shadow || !map.has(key)) map.set(key, def);
  };
  for (const name of def.names) {
    if (name === '+') {
      if (shadow || level.plus === null) level.plus = def;
    } else if (name.endsWith('=') && !name.startsWith('-')) {
      if (!keywords.some((k) => k.names.includes(name))) keywords.push(def);
    } else if (!name.startsWith('-')) {
      put(words, name);
    } else if (level.singleDash) {
      put(long, name.replace(/^--?/, ''));
    } else if (name.startsWith('--')) {
      put(long, name.slice(2));
    } else if (isShortName(name)) {
      const c = name.charCodeAt(1);
      if (c < 128) {
        if (shadow || short[c] === undefined) short[c] = def;
      } else {
        put(shortOther, name.slice(1));
      }
    } else {
      put(words, name);
    }
  }
}

function resolveNames(level: Level, names: readonly string[] | undefined, where: string): OptionDef[] {
  const out: OptionDef[] = [];
  for (const n of names ?? []) {
    const def = level.options.find((d) => d.names.includes(n));
    if (!def) throw new Error(`options.json: ${where}: \`unless\` names \`${n}\`, which is not an option there`);
    out.push(def);
  }
  return out;
}

function compileLevel(
  table: OptionsTable,
  entry: LevelEntry,
  name: string,
  path: string,
  depth: number,
  inherited: readonly OptionDef[],
  defaults: { singleDash: boolean },
): Level {
  const singleDash = entry.style === undefined ? defaults.singleDash : entry.style === 'single-dash';
  const permute = entry.permute === undefined || entry.permute === true ? Infinity : entry.permute === false ? 0 : entry.permute;
  const level: Mutable<Level> = {
    name,
    path,
    depth,
    short: new Array<OptionDef | undefined>(128).fill(undefined),
    shortOther: new Map(),
    long: new Map(),
    longNames: [],
    words: new Map(),
    keywords: [],
    plus: null,
    numeric: null,
    singleDash,
    permute,
    doubleDash: entry.doubleDash ?? true,
    abbreviate: entry.abbreviate ?? false,
    oldStyle: entry.oldStyle ?? false,
    paths: entry.paths ?? false,
    operands: [],
    subcommands: null,
    options: [],
    sensitive: false,
    sensitiveBelow: false,
  };
  const entries: OptionEntry[] = [];
  for (const set of entry.use ?? []) {
    const list = table.sets[set];
    if (!list) throw new Error(`options.json: ${path}: unknown option set \`${set}\``);
    entries.push(...list);
  }
  entries.push(...(entry.options ?? []));
  const own = entries.map((e) => optionDef(e, level));
  for (const def of own) register(level, def, true);
  for (const def of inherited) register(level, def, false);
  level.options = [...own, ...inherited.filter((d) => !own.some((o) => o.names.some((n) => d.names.includes(n))))];
  level.longNames = [...level.long.keys()];
  own.forEach((def, i) => {
    (def as Mutable<OptionDef>).unless = resolveNames(level, entries[i]!.unless, path);
  });
  if (entry.numeric !== undefined) {
    level.numeric = level.options.find((d) => d.names.includes(entry.numeric!)) ?? null;
    if (level.numeric === null) throw new Error(`options.json: ${path}: \`numeric\` names \`${entry.numeric}\`, which is not an option there`);
  }
  level.operands = (entry.operands ?? []).map((o: OperandEntry) => ({
    which: o.which,
    from: o.from ?? 0,
    assignment: o.assignment ?? false,
    kind: o.kind ?? null,
    script: o.script ?? null,
    unless: resolveNames(level, o.unless, path),
  }));
  level.sensitive =
    level.options.some((d) => d.kind !== null || d.script !== null) || level.operands.some((o) => o.kind !== null || o.script !== null);
  level.sensitiveBelow = level.sensitive;
  if (entry.subcommands) {
    const passed = entry.inherited ? level.options : inherited;
    const subs = new Map<string, Level>();
    for (const [sub, subEntry] of Object.entries(entry.subcommands)) {
      const compiled = compileLevel(table, subEntry, sub, `${path} ${sub}`, depth + 1, passed, { singleDash });
      for (const n of [sub, ...(subEntry.aliases ?? [])]) {
        if (subs.has(n)) throw new Error(`options.json: ${path}: the subcommand \`${n}\` is listed twice`);
        subs.set(n, compiled);
      }
      if (compiled.sensitiveBelow) level.sensitiveBelow = true;
    }
    level.subcommands = subs;
  }
  return level;
}

/** Every program of the table by name (aliases included). */
export function compileTable(table: OptionsTable): ReadonlyMap<string, Level> {
  const programs = new Map<string, Level>();
  for (const [name, entry] of Object.entries(table.programs)) {
    const level = compileLevel(table, entry, name, name, 0, [], { singleDash: false });
    for (const n of [name, ...(entry.aliases ?? [])]) {
      if (programs.has(n)) throw new Error(`options.json: \`${n}\` is listed twice`);
      programs.set(n, level);
    }
  }
  return programs;
}

/**
 * A path with repeated slashes and `.` segments left out: `//` is `/`, `/./tmp/` is `/tmp/`,
 * `./x` is `x`. A final slash stays (`link/` is not `link`); `..` stays as written.
 */
export function normalizePath(path: string): string {
  if (path.indexOf('/') < 0 && path !== '.') return path;
  const absolute = path.charCodeAt(0) === 47; /* / */
  const dir = path.endsWith('/') || path.endsWith('/.');
  const kept: string[] = [];
  for (const segment of path.split('/')) if (segment !== '' && segment !== '.') kept.push(segment);
  if (kept.length === 0) return absolute ? '/' : '.';
  return (absolute ? '/' : '') + kept.join('/') + (dir ? '/' : '');
}

/** The programs of options.json. */
export const PROGRAM_GRAMMARS: ReadonlyMap<string, Level> = compileTable(OPTIONS_TABLE);

/** The grammar of a program by its name (a basename: `git`, not `/usr/bin/git`), if the table has it. */
export function programGrammar(name: string): Level | undefined {
  return PROGRAM_GRAMMARS.get(name);
}
