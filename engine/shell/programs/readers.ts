/**
 * The readers table (readers.json, schema readers.schema.json), typed and compiled: which
 * programs only name files (their words are not reads), and how some programs read (a pattern
 * operand that is not a file, options whose values are not files, recursion into directories).
 * engine/reads.ts reads a command's words with it.
 */
import table from './readers.json' with { type: 'json' };

export interface ReaderEntry {
  about: string;
  pattern?: true | string[];
  notFiles?: string[];
  recursive?: true | string[];
  here?: true | string[];
  filters?: string[];
  chdir?: string[];
  revisions?: boolean;
  inPlace?: boolean;
  names?: true;
}

export interface ReadersTable {
  names: { about: string; programs: string[] }[];
  readers: Record<string, ReaderEntry>;
}

/** The table as written in readers.json. */
export const READERS_TABLE: ReadersTable = table as unknown as ReadersTable;

/** An option, by any of its spellings, and the value it must have (`-d=recurse`), or null for any. */
export interface OptionTest {
  readonly name: string;
  readonly value: string | null;
}

/** How a program or a subcommand reads, compiled. */
export interface ReaderRule {
  /** `grep`, `git grep`. */
  readonly path: string;
  readonly pattern: true | readonly string[] | null;
  readonly notFiles: readonly string[];
  readonly recursive: true | readonly OptionTest[] | null;
  readonly here: true | readonly string[] | null;
  readonly filters: readonly string[];
  readonly chdir: readonly string[];
  readonly revisions: boolean;
  readonly inPlace: boolean;
  /** A subcommand that only names files (`git rm`): its words are not reads. */
  readonly names: boolean;
}

const NONE: readonly string[] = Object.freeze([]);

function optionTest(spelling: string): OptionTest {
  const eq = spelling.indexOf('=');
  return eq < 0 ? { name: spelling, value: null } : { name: spelling.slice(0, eq), value: spelling.slice(eq + 1) };
}

function compileReader(path: string, e: ReaderEntry): ReaderRule {
  return {
    path,
    pattern: e.pattern ?? null,
    notFiles: e.notFiles ?? NONE,
    recursive: e.recursive === undefined ? null : e.recursive === true ? true : e.recursive.map(optionTest),
    here: e.here ?? null,
    filters: e.filters ?? NONE,
    chdir: e.chdir ?? NONE,
    revisions: e.revisions === true,
    inPlace: e.inPlace === true,
    names: e.names === true,
  };
}

/** Programs whose words name files without reading them (`echo`, `ls`, `rm`). */
export const NAME_ONLY: ReadonlySet<string> = new Set(READERS_TABLE.names.flatMap((g) => g.programs));

/** The readers' rules by level path (`grep`, `git grep`). */
export const READER_RULES: ReadonlyMap<string, ReaderRule> = new Map(Object.entries(READERS_TABLE.readers).map(([path, e]) => [path, compileReader(path, e)]));

/** The programs (first words of the readers' paths) with a rule at some level. */
export const READER_PROGRAMS: ReadonlySet<string> = new Set([...READER_RULES.keys()].map((p) => p.split(' ')[0]!));
