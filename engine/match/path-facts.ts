/**
 * The paths a tool call touches, read from its input through the tool's entry in `TOOL_PATHS`
 * (engine/tools.ts), and how `path` globs judge them.
 *
 * A call has **files** (each read with `readToolPath`) and **searches**: a directory (Grep's
 * `path`, the working directory when it has none), the filters that select files below it (Grep's
 * `glob`, the rest of Glob's `pattern`) and how deep it looks (LS: its own entries only; a file
 * path written as a directory, `~/.ssh/`, is such a listing too). Codex's
 * `apply_patch` names its files in the patch text. A call whose paths cannot all be known (an open
 * file descriptor, a patch with a header it does not know, more than 256 paths, a filter of more
 * than 1024 characters) is **opaque**.
 *
 * - Any (`deny`, `ask` and every other rule but `allow`): the globs match when the call is
 *   opaque, when one matches some reading of a file, or when one reaches a search (path.ts
 *   `reaches`).
 * - Every (`allow`): the call is covered when it is not opaque, has a path, every real reading of
 *   each file is matched by some glob, and each search's directory and everything below it is.
 */
import { PATH_INPUT_FIELDS, PATH_LIST_FIELD, TOOL_PATHS, type ToolPaths } from '../tools.js';
import { compileSearchFilter, splitSearchPattern, type PathGlob, type SearchFilter } from './path.js';
import { readToolPath, renderReading, type PathEnv, type PathReading } from './path-read.js';

export interface SearchFact {
  readonly root: PathReading;
  /** The filter texts; empty for a search without one. */
  readonly filters: readonly string[];
  /** How many segments below the directory the search looks (Infinity, or 1 for a listing). */
  readonly depth: number;
}

export interface PathFacts {
  readonly files: readonly PathReading[];
  readonly searches: readonly SearchFact[];
  readonly opaque: boolean;
  /**
   * Set when some paths of the call are not known, though those listed are (a shell command's
   * computed words, `cat "$F"`): no allow covers the call, and deny and ask judge what is listed.
   */
  readonly partial?: boolean;
}

/** More paths than this in one call make it opaque. */
export const MAX_CALL_PATHS = 256;

/** A search filter or pattern longer than this makes the call opaque (it is intersected with each glob). */
export const MAX_FILTER_LENGTH = 1024;

const EMPTY: readonly string[] = [];

/** The fields `hasPathField` and `onlyPathField` read by name, for the test that keeps them in step with `PATH_INPUT_FIELDS`. */
export const FIELDS_CHECKED: readonly string[] = ['file_path', 'path', 'notebook_path', 'absolute_path', 'filePath'];

function stringsOf(value: unknown): readonly string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return EMPTY;
}

class FactsBuilder {
  readonly files: PathReading[] = [];
  readonly searches: SearchFact[] = [];
  opaque = false;
  private count = 0;

  constructor(readonly env: PathEnv) {}

  private take(): boolean {
    if (++this.count > MAX_CALL_PATHS) this.opaque = true;
    return !this.opaque;
  }

  file(raw: string): void {
    if (raw.length === 0) return;
    // A path written as a directory (`~/.ssh/`, not a root such as `/`) is judged as a listing of it.
    if (writtenAsDirectory(raw)) {
      this.search(raw, EMPTY, 1);
      return;
    }
    if (!this.take()) return;
    const reading = readToolPath(raw, this.env);
    if (reading.opaque) this.opaque = true;
    else this.files.push(reading);
  }

  search(dir: string, filters: readonly string[], depth: number): void {
    if (!this.take()) return;
    if (filters.some((f) => f.length > MAX_FILTER_LENGTH)) {
      this.opaque = true;
      return;
    }
    const root = readToolPath(dir, this.env);
    if (root.opaque) this.opaque = true;
    else this.searches.push({ root, filters, depth });
  }

  /** A glob that may carry its own directories, below `dir` (null: the working directory). */
  pattern(dir: string | null, pattern: string): void {
    const text = this.env.windows ? pattern.replace(/\\/gu, '/') : pattern;
    const split = splitSearchPattern(text);
    if (/(^|\/)\.\.(\/|$)/u.test(split.filter)) {
      // `*/../x`: where it lands depends on what the wildcard met
      this.opaque = true;
      return;
    }
    let root = dir ?? '';
    if (split.dir !== null) root = isAbsolute(split.dir) || root.length === 0 ? split.dir : `${root}/${split.dir}`;
    this.search(root, split.filter.length > 0 ? [split.filter] : EMPTY, Infinity);
  }
}

/** Whether a path ends in a separator after a name of its own (`a/`, `~/.ssh/`; not `/`, `~/`, `C:\`). */
function writtenAsDirectory(path: string): boolean {
  const last = path.charCodeAt(path.length - 1);
  if (last !== 0x2f && last !== 0x5c) return false;
  const name = path.replace(/[\\/]+$/u, '');
  return name.length > 0 && name !== '~' && !/^[A-Za-z]:$/u.test(name) && !/^[\\/]{2}[^\\/]*([\\/][^\\/]*)?$/u.test(path.slice(0, -1));
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || path === '~' || path.startsWith('~/') || /^[A-Za-z]:/u.test(path);
}

const PATCH_FILE = /^\*\*\*\s*(?:add|update|delete)\s+file\s*:(.*)$/iu;
const PATCH_MOVE = /^\*\*\*\s*move\s+to\s*:(.*)$/iu;
const PATCH_OTHER = /^\*\*\*\s*(?:begin\s+patch|end\s+patch|end\s+of\s+file)\s*$/iu;

/**
 * The files an `apply_patch` text names, and whether it has a header line (one starting with
 * `***`) that is none of Codex's. Header lines are also recognised when indented.
 */
export function patchPaths(text: string): { paths: string[]; unknown: boolean } {
  const paths: string[] = [];
  let unknown = false;
  for (const line of text.split(/\r\n|\r|\n/u)) {
    const t = line.trim();
    if (!t.startsWith('***')) continue;
    const m = PATCH_FILE.exec(t) ?? PATCH_MOVE.exec(t);
    if (m !== null) {
      const path = m[1]!.trim();
      if (path.length > 0) paths.push(path);
      else unknown = true;
    } else if (!PATCH_OTHER.test(t) && line.startsWith('***')) {
      unknown = true;
    }
  }
  return { paths, unknown };
}

function claimed(spec: ToolPaths | undefined): Set<string> {
  const out = new Set<string>();
  if (spec === undefined) return out;
  for (const f of spec.files ?? EMPTY) out.add(f);
  for (const f of spec.globs ?? EMPTY) out.add(f);
  for (const f of spec.patch ?? EMPTY) out.add(f);
  if (spec.search) {
    for (const f of spec.search.dir) out.add(f);
    for (const f of spec.search.filter ?? EMPTY) out.add(f);
    for (const f of spec.search.pattern ?? EMPTY) out.add(f);
  }
  return out;
}

const CLAIMED = new Map<string, Set<string>>();

function claimedBy(tool: string, spec: ToolPaths | undefined): Set<string> {
  let set = CLAIMED.get(tool);
  if (set === undefined) {
    set = claimed(spec);
    if (CLAIMED.size < 1024) CLAIMED.set(tool, set);
  }
  return set;
}

/**
 * The path of a file tool's input when its path fields (its own, which are among the defaults,
 * and the defaults) hold exactly one, the same in each field present; else undefined.
 */
function onlyPathField(input: Record<string, unknown>): string | undefined {
  let found: string | undefined;
  if (input[PATH_LIST_FIELD] !== undefined) return undefined;
  for (let i = 0; i < 5; i++) {
    const v = i === 0 ? input['file_path'] : i === 1 ? input['path'] : i === 2 ? input['notebook_path'] : i === 3 ? input['absolute_path'] : input['filePath'];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length === 0 || (found !== undefined && found !== v)) return undefined;
    found = v;
  }
  return found;
}

/**
 * Whether a path field of every tool (`PATH_INPUT_FIELDS`) holds a path. Spelled out field by
 * field: a named load is much faster than a keyed one, and this runs for every tool call.
 */
function hasPathField(input: Record<string, unknown>): boolean {
  return (
    isPathText(input['file_path']) ||
    isPathText(input['path']) ||
    isPathText(input['notebook_path']) ||
    isPathText(input['absolute_path']) ||
    isPathText(input['filePath']) ||
    Array.isArray(input[PATH_LIST_FIELD])
  );
}

function isPathText(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0;
}

const NO_SEARCHES: readonly SearchFact[] = [];

/**
 * `TOOL_PATHS` as a map; `simple` marks a file tool whose files are all in default fields, whose
 * calls `onlyPathField` can read.
 */
const TOOLS = new Map<string, { spec: ToolPaths; simple: boolean }>(
  Object.entries(TOOL_PATHS).map(([tool, spec]) => [
    tool,
    {
      spec,
      simple: spec.search === undefined && spec.globs === undefined && spec.patch === undefined && (spec.files ?? EMPTY).every((f) => FIELDS_CHECKED.includes(f)),
    },
  ]),
);

/** The paths a call touches; null when it names none. `envOf` is asked only when it names one. */
export function pathFactsOf(tool: string, input: Record<string, unknown>, envOf: PathEnv | (() => PathEnv)): PathFacts | null {
  const known = TOOLS.get(tool);
  const spec = known?.spec;
  // The common cases: a tool without an entry and without a path field; one file field of a file tool.
  if (spec === undefined && !hasPathField(input)) return null;
  const env = typeof envOf === 'function' ? envOf() : envOf;
  const single = known !== undefined && known.simple ? onlyPathField(input) : undefined;
  if (single !== undefined) {
    if (!writtenAsDirectory(single)) {
      const reading = readToolPath(single, env);
      return reading.opaque ? { files: [], searches: NO_SEARCHES, opaque: true } : { files: [reading], searches: NO_SEARCHES, opaque: false };
    }
  }
  const b = new FactsBuilder(env);
  const own = claimedBy(tool, spec);
  for (const f of spec?.files ?? EMPTY) {
    const v = input[f];
    if (typeof v === 'string') b.file(v);
  }
  for (const f of PATH_INPUT_FIELDS) {
    if (own.has(f)) continue;
    const v = input[f];
    if (typeof v === 'string') b.file(v);
  }
  const list = input[PATH_LIST_FIELD];
  if (Array.isArray(list) && !own.has(PATH_LIST_FIELD)) for (const p of list) if (typeof p === 'string') b.file(p);
  const search = spec?.search;
  if (search) {
    const dirs: string[] = [];
    for (const f of search.dir) {
      const v = input[f];
      if (typeof v === 'string') dirs.push(v);
    }
    if (dirs.length > 0 || search.list !== true) {
      const roots = dirs.length > 0 ? dirs : [''];
      const filters: string[] = [];
      for (const f of search.filter ?? EMPTY) filters.push(...stringsOf(input[f]));
      const patterns: string[] = [];
      for (const f of search.pattern ?? EMPTY) patterns.push(...stringsOf(input[f]));
      for (const root of roots) {
        if (patterns.length > 0) for (const p of patterns) b.pattern(root, p);
        else b.search(root, filters, search.list === true ? 1 : Infinity);
      }
    }
  }
  for (const f of spec?.globs ?? EMPTY) for (const p of stringsOf(input[f])) b.pattern(null, p);
  for (const f of spec?.patch ?? EMPTY) {
    const v = input[f];
    if (typeof v !== 'string') continue;
    const { paths, unknown } = patchPaths(v);
    if (unknown) b.opaque = true;
    for (const p of paths) b.file(p);
  }
  if (!b.opaque && b.files.length === 0 && b.searches.length === 0) return null;
  return { files: b.files, searches: b.searches, opaque: b.opaque };
}

/**
 * The paths of a shell command (shell/paths.ts: its words that may name files, the files its
 * redirections read and write), each read as a file; null when it names none. Past
 * `MAX_CALL_PATHS` the rest, like computed words, only make the call `partial`.
 */
export function commandPathFacts(paths: readonly string[], unknown: number, envOf: PathEnv | (() => PathEnv)): PathFacts | null {
  if (paths.length === 0 && unknown === 0) return null;
  const env = typeof envOf === 'function' ? envOf() : envOf;
  const files: PathReading[] = [];
  let partial = unknown > 0 || paths.length > MAX_CALL_PATHS;
  for (let i = 0; i < paths.length && i < MAX_CALL_PATHS; i++) {
    const reading = readToolPath(paths[i]!, env);
    // a word that cannot be read as a path (an open descriptor's alias) is not a file the command names for sure
    if (reading.opaque) partial = true;
    else files.push(reading);
  }
  if (files.length === 0 && !partial) return null;
  return partial ? { files, searches: NO_SEARCHES, opaque: false, partial: true } : { files, searches: NO_SEARCHES, opaque: false };
}

/** The first path of the call as text (a file, else a searched directory); undefined when none. */
export function firstPathText(facts: PathFacts): string | undefined {
  const reading = facts.files[0] ?? facts.searches[0]?.root;
  const segments = reading?.all[0];
  return segments === undefined ? undefined : renderReading(segments);
}

// ---------------------------------------------------------------------------------------------
// Judging

const filterCache = new WeakMap<SearchFact, { folded?: SearchFilter | null; exact?: SearchFilter | null }>();

function filterOf(search: SearchFact, folded: boolean): SearchFilter | null {
  if (search.filters.length === 0) return null;
  let entry = filterCache.get(search);
  if (entry === undefined) filterCache.set(search, (entry = {}));
  if (folded) return entry.folded === undefined ? (entry.folded = compileSearchFilter(search.filters, true)) : entry.folded;
  return entry.exact === undefined ? (entry.exact = compileSearchFilter(search.filters, false)) : entry.exact;
}

/**
 * Any: whether a deny, ask (or any rule but an allow) with these globs fires. The globs share one
 * case (the selector's), so the readings are taken folded or exact once for all of them.
 */
export function anyPathMatches(globs: readonly PathGlob[], facts: PathFacts, env: PathEnv): boolean {
  if (facts.opaque) return true;
  if (globs.length === 0) return false;
  const folded = globs[0]!.folded;
  for (const file of facts.files) {
    const readings = folded ? file.folded : file.all;
    for (let r = 0; r < readings.length; r++) {
      for (let g = 0; g < globs.length; g++) if (globs[g]!.matches(readings[r]!, env)) return true;
    }
  }
  for (const search of facts.searches) {
    const readings = folded ? search.root.folded : search.root.all;
    const filter = filterOf(search, folded);
    for (const reading of readings) {
      for (const g of globs) if (g.reaches(reading, filter, search.depth, env)) return true;
    }
  }
  return false;
}

/** Every: whether an allow with these globs covers the call (each path, each of its real readings). */
export function everyPathCovered(globs: readonly PathGlob[], facts: PathFacts, env: PathEnv): boolean {
  if (facts.opaque || facts.partial === true || globs.length === 0) return false;
  if (facts.files.length === 0 && facts.searches.length === 0) return false;
  const folded = globs[0]!.folded;
  for (const file of facts.files) {
    const readings = folded ? file.folded : file.all;
    for (let r = 0; r < file.real; r++) {
      let covered = false;
      for (let g = 0; g < globs.length && !covered; g++) covered = globs[g]!.matches(readings[r]!, env);
      if (!covered) return false;
    }
  }
  for (const search of facts.searches) {
    const readings = folded ? search.root.folded : search.root.all;
    for (let r = 0; r < search.root.real; r++) {
      let covered = false;
      for (let g = 0; g < globs.length && !covered; g++) covered = globs[g]!.coversTree(readings[r]!, env);
      if (!covered) return false;
    }
  }
  return true;
}
