/**
 * Reads are reads: the files a shell command reads, through its input redirections (`cat < .env`,
 * `$(< .env)`) and through its programs' operands (`cat .env`, `sudo head .env`, `grep -r KEY
 * src`), are judged as reads by the policy's `Read` rules. For each file, the policy decides the
 * event a `Read` of that file would be: a `deny` or `ask` there is a `deny` or `ask` of the command.
 * Reads are judged for deny and ask only: an allow of the command never needs an allow of its reads.
 *
 * Which words a program reads is over-approximated, since only deny and ask use it: every word of a
 * program that may name a file is read, except for the programs of the readers table
 * (shell/programs/readers.json) that only name files (`echo`, `ls`, `rm`), the files a program
 * writes (`cp a b` reads `a`), and the words the table says are not files (grep's pattern). A
 * recursive reader (`grep -r`, `rg`, `tar`, `find -exec cat {}`) reads each directory it is given
 * as a search of it, as a `Grep` of that directory is read (match/path-facts.ts): a deny glob fires
 * when it can reach a file below.
 */
import type { Hit } from './algebra.js';
import type { PreToolEvent } from './events.js';
import { EventView } from './fields.js';
import { pathFactsOf, MAX_CALL_PATHS, type PathFacts } from './match/path-facts.js';
import { homeRelative, type CommandPart, type CommandView, type ShellWord } from './shell/index.js';
import { pathOf, programBasename as basename } from './shell/paths.js';
import { computeViews } from './shell/wrappers.js';
import { programGrammar, type Level } from './shell/programs/grammar.js';
import { readWords, type OptionUse } from './shell/programs/read.js';
import { NAME_ONLY, READER_PROGRAMS, READER_RULES, type ReaderRule } from './shell/programs/readers.js';

/** The tool whose rules judge the files a command reads. */
export const READ_TOOL = 'Read';

/** A directory a command reads with what is below it, and the globs that select those files (none: all). */
export interface ReadSearch {
  readonly dir: string;
  readonly filters: readonly string[];
}

/**
 * What one part of a command reads: files (as written, `$HOME/...` as `~/...`), directories it
 * walks, and the shell globs whose files it reads (`cat .e*`, `cat .{e,x}nv`).
 */
export interface PartReads {
  readonly files: readonly string[];
  readonly searches: readonly ReadSearch[];
  readonly globs: readonly string[];
}

/** How the policy judges the reads of a command. */
export interface ReadJudgement {
  /** Deny and ask hits of the `Read` rules that matched a file read, to add to the command's hits. */
  hits: Hit[];
}

/**
 * One read to judge: the `Read` event of a file or of a search, made on demand, and the view to
 * judge it with (a search's view reads the event's `file_path` as a directory searched). The event
 * has the command's `cwd`, `home`, `session` and `permission_mode`: two reads of calls with the same
 * of those and with the same `key` (the file's text, or a search's or glob's, which start with a
 * NUL no file's text has) have the same event and view, and an evaluator may keep hits by them.
 */
export interface ReadQuery {
  /** The shell call whose read this is. */
  readonly call: PreToolEvent;
  readonly key: string;
  event(): PreToolEvent;
  view(): EventView;
}

/** The hits of the `Read` event of one read: the caller's evaluator (the indexed one or the reference scan). */
export type ReadDecider = (read: ReadQuery) => Hit[];

// ---------------------------------------------------------------------------------------------
// Which files a part reads

/**
 * The file a word may name: its text (`--opt=value`, `NAME=value`: the value), `~/...` for
 * `$HOME/...`, a brace expansion as written (`.{e,x}nv`, read as a glob); null for none.
 */
function wordPath(w: ShellWord): string | null {
  if (!w.dynamic) return pathOf(w.value);
  const home = homeRelative(w.value);
  if (home !== null) return home;
  const v = w.value;
  return BRACES.test(v) && !v.includes('$') && !v.includes('`') && !v.includes('<(') && !v.includes('>(') ? pathOf(v) : null;
}

/** A brace expansion the shell makes (`{a,b}`, `{1..3}`; not find's `{}`). */
const BRACES = /\{[^{}]*(?:,|\.\.)[^{}]*\}/;

/** Shell globs in a word's text: its files are those the glob matches (`[` only as a class, not `[`, `a[`). */
const GLOB_TEXT = /[*?]|\[[^\]]*\]/;

/** Collects reads, each once (a list while short, a set past it: most commands read a file or two). */
class ReadsBuilder {
  readonly files: string[] = [];
  readonly searches: ReadSearch[] = [];
  readonly globs: string[] = [];
  /** The keys of the files and searches, once there are many. */
  private seen: Set<string> | null = null;
  private readonly keys: string[] = [];

  /** A file read; `computed` when its word is a brace expansion (`.{e,x}nv`), which the shell expands like a glob. */
  file(text: string, computed = false): void {
    if (text.length === 0 || this.has(text)) return;
    this.files.push(text);
    // `cat .e*`: the shell reads the files the glob matches (a file of that very name too)
    if (GLOB_TEXT.test(text) || (computed && BRACES.test(text))) this.globs.push(text);
    // `curl -d @f`, `-F x=@f`, `gh api -F x=@f`: the file after `@`
    if (text.length > 1 && text.charCodeAt(0) === 64 /* @ */) this.file(text.slice(1), computed);
  }

  search(dir: string, filters: readonly string[]): void {
    if (dir.length === 0 || this.has(`\u0000${dir}\u0000${filters.join('\u0000')}`)) return;
    this.searches.push({ dir, filters });
  }

  get size(): number {
    return this.files.length + this.searches.length + this.globs.length;
  }

  private has(key: string): boolean {
    if (this.seen !== null) {
      if (this.seen.has(key)) return true;
      this.seen.add(key);
      return false;
    }
    if (this.keys.includes(key)) return true;
    this.keys.push(key);
    if (this.keys.length > 16) this.seen = new Set(this.keys);
    return false;
  }
}

/** The files a part writes, by word (an operand or a separate value) and by text (an attached value: `of=f`, `--output=f`). */
interface Written {
  readonly words: ReadonlySet<ShellWord>;
  readonly texts: ReadonlySet<string>;
}

const NO_WRITTEN: Written = { words: new Set(), texts: new Set() };

function writtenOf(part: CommandPart, view: CommandView): Written {
  const w = part.operandWrites;
  if (w === undefined) return NO_WRITTEN;
  const words = new Set<ShellWord>();
  const texts = new Set<string>();
  const inView = new Set(view.words);
  for (const target of w) {
    if (inView.has(target)) words.add(target);
    else texts.add(target.value);
  }
  return { words, texts };
}

/** Whether a word is a written file: the word itself, or an option or keyword word whose attached value is one. */
function isWritten(w: ShellWord, text: string, written: Written): boolean {
  if (written.words.has(w)) return true;
  if (written.texts.size === 0 || !written.texts.has(text)) return false;
  const c = w.value.charCodeAt(0);
  return c === 45 /* - */ || w.value.includes('=');
}

/** The option use matches a spelling of the list (any spelling of the same option). */
function usesOption(use: OptionUse, names: readonly string[]): boolean {
  const def = use.def;
  if (def === null) return names.includes(use.name);
  for (let k = 0; k < def.names.length; k++) if (names.includes(def.names[k]!)) return true;
  return false;
}

/** An option's value as written: attached (`-f.env`, `--file=.env`) or the next word. */
function valueOf(use: OptionUse, words: readonly ShellWord[]): ShellWord | undefined {
  if (use.offset >= 0) {
    const w = words[use.at]!;
    return { value: w.value.slice(use.offset), dynamic: w.dynamic };
  }
  return use.valueAt >= 0 ? words[use.valueAt] : undefined;
}

/** The rules of the levels a reading reached (`git` and `git grep`), merged: lists joined, flags or-ed, the deepest pattern. */
function mergedRule(levels: readonly Level[]): ReaderRule | null {
  let out: ReaderRule | null = null;
  for (const level of levels) {
    const r = READER_RULES.get(level.path);
    if (r === undefined) continue;
    if (out === null) {
      out = r;
      continue;
    }
    const recursive: ReaderRule['recursive'] = r.recursive === true || out.recursive === true ? true : [...(out.recursive ?? []), ...(r.recursive ?? [])];
    const here: ReaderRule['here'] = r.here === true || out.here === true ? true : [...(out.here ?? []), ...(r.here ?? [])];
    out = {
      path: r.path,
      pattern: r.pattern ?? out.pattern,
      notFiles: [...out.notFiles, ...r.notFiles],
      recursive: recursive === true || recursive.length > 0 ? recursive : null,
      here: here === true || here.length > 0 ? here : null,
      filters: [...out.filters, ...r.filters],
      chdir: [...out.chdir, ...r.chdir],
      revisions: out.revisions || r.revisions,
      inPlace: out.inPlace || r.inPlace,
      names: r.names,
    };
  }
  return out;
}

/** `HEAD:.env`, `:src/x`, `main~2:./a`: the path after the revision; null for any other word. */
function revisionPath(text: string): string | null {
  const colon = text.indexOf(':');
  return colon < 0 || colon === text.length - 1 ? null : text.slice(colon + 1);
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path === '~' || path.startsWith('~/');
}

/** `dir/path`, without doubling a separator (`/` and `etc` are `/etc`). */
function joinPath(dir: string, path: string): string {
  return dir.endsWith('/') ? dir + path : `${dir}/${path}`;
}

/** A program with no rule of its own: every word that may name a file, but those it writes. */
function genericReads(words: readonly ShellWord[], inner: ReadonlySet<ShellWord> | null, written: Written, out: ReadsBuilder): void {
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (inner !== null && inner.has(w)) continue;
    const text = wordPath(w);
    if (text === null || isWritten(w, text, written)) continue;
    out.file(text, w.dynamic);
  }
}

/** A program with a rule and options in options.json: its words read with its grammar. */
function grammarReads(grammar: Level, words: readonly ShellWord[], inner: ReadonlySet<ShellWord> | null, written: Written, out: ReadsBuilder): void {
  const reading = readWords(grammar, words);
  const levels = reading.levels;
  if (READER_RULES.get(levels[levels.length - 1]!.path)?.names === true) return;
  const rule = mergedRule(levels);
  if (rule === null) {
    genericReads(words, inner, written, out);
    return;
  }
  // per word: skipped (a subcommand, a pattern, a value that is no file), or the text it reads
  const skip: boolean[] = [];
  for (const at of reading.subAt) skip[at] = true;
  let attached: (ShellWord | undefined)[] | null = null;
  const filters: string[] = [];
  const dirs: string[] = [];
  let recursive = rule.recursive === true;
  let here = rule.here === true;
  let patternGiven = false;
  for (const use of reading.options) {
    if (rule.pattern !== null && rule.pattern !== true && usesOption(use, rule.pattern)) patternGiven = true;
    if (rule.recursive !== null && rule.recursive !== true) {
      for (const t of rule.recursive) {
        if (!usesOption(use, [t.name])) continue;
        if (t.value === null || valueOf(use, words)?.value === t.value) recursive = true;
      }
    }
    if (rule.here !== null && rule.here !== true && usesOption(use, rule.here)) here = true;
    const value = valueOf(use, words);
    if (value === undefined) {
      // an option word without a value names no file (`tar czf`: a bundle of options)
      if (use.def !== null && use.offset < 0) skip[use.at] = true;
      continue;
    }
    const notFile = usesOption(use, rule.notFiles);
    if (usesOption(use, rule.filters) && !value.dynamic) filters.push(value.value);
    if (usesOption(use, rule.chdir)) {
      const dir = wordPath(value);
      if (dir !== null) dirs.push(dir);
    }
    if (use.offset >= 0) {
      if (notFile) skip[use.at] = true;
      else (attached ??= [])[use.at] = value;
    } else if (notFile) {
      for (let k = use.valueAt; k < use.valueEnd; k++) skip[k] = true;
    }
  }
  const operands = reading.operands;
  const roots: string[] = [];
  for (let i = 0; i < operands.length; i++) {
    const at = operands[i]!;
    if (i === 0 && (rule.pattern === true || (rule.pattern !== null && !patternGiven))) {
      skip[at] = true;
      continue;
    }
    const w = words[at]!;
    if (inner !== null && inner.has(w)) continue;
    const text = wordPath(w);
    if (text === null) continue;
    if (written.words.has(w) && !rule.inPlace) {
      skip[at] = true;
      continue;
    }
    if (recursive) roots.push(text);
    for (const dir of dirs) if (!isAbsolute(text)) out.file(joinPath(dir, text), w.dynamic);
  }
  for (let k = 1; k < words.length; k++) {
    if (skip[k] === true) continue;
    const word = words[k]!;
    if (inner !== null && inner.has(word)) continue;
    const text = wordPath(attached?.[k] ?? word);
    // `sed -i`: the files it edits are files it reads
    if (text === null || (!rule.inPlace && isWritten(word, text, written))) continue;
    out.file(text, word.dynamic);
    if (rule.revisions) {
      const path = revisionPath(text);
      if (path !== null) out.file(path, word.dynamic);
    }
  }
  if (recursive) {
    if (roots.length === 0 && here) roots.push('.');
    for (const root of roots) {
      out.search(root, filters);
      for (const dir of dirs) if (!isAbsolute(root)) out.search(joinPath(dir, root), filters);
    }
  }
}

/** A program with a rule but no options in options.json (`ag`, `ack`): its words that are not options. */
function plainReads(rule: ReaderRule, words: readonly ShellWord[], inner: ReadonlySet<ShellWord> | null, written: Written, out: ReadsBuilder): void {
  const roots: string[] = [];
  let first = true;
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (inner !== null && inner.has(w)) continue;
    if (!w.dynamic && w.value.charCodeAt(0) === 45 /* - */) continue;
    if (first && rule.pattern !== null) {
      first = false;
      continue;
    }
    first = false;
    const text = wordPath(w);
    if (text === null || isWritten(w, text, written)) continue;
    out.file(text, w.dynamic);
    roots.push(text);
  }
  if (rule.recursive !== null) {
    if (roots.length === 0 && rule.here !== null) roots.push('.');
    for (const root of roots) out.search(root, []);
  }
}

/** The `find` tests that select files by name or path; their values are filters of what is found. */
const FIND_NAME_TESTS: ReadonlySet<string> = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename']);
/** Tests whose values cannot be read as globs: with one, any file may be found. */
const FIND_OTHER_TESTS: ReadonlySet<string> = new Set(['-regex', '-iregex', '-lname', '-ilname', '-samefile', '-inum']);
const FIND_EXEC: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** Whether a command `find -exec` runs reads the files found: its program (through wrappers) is not one that only names files. */
function execReads(words: readonly ShellWord[]): boolean {
  // without `{}` the command gets no file found: it is a part of its own, judged as any other
  if (!words.some((w) => !w.dynamic && w.value.includes('{}'))) return false;
  const views = computeViews(words as ShellWord[]).views;
  const program = views[views.length - 1]!.words[0];
  if (program === undefined || program.dynamic || program.value.includes('{}')) return true;
  return !NAME_ONLY.has(basename(program.value));
}

/**
 * `find DIR -name N -exec cat {} \;`: the files found are computed words, but they are below each
 * start directory and, when every test of names is positive, match one of the names. When some
 * command run with `{}` reads, that is a search of each start directory with those names as filters
 * (none: every file below).
 */
function findReads(words: readonly ShellWord[], out: ReadsBuilder): void {
  let i = 1;
  // the options before the start directories
  while (i < words.length) {
    const w = words[i]!;
    if (w.dynamic) break;
    if (w.value === '-H' || w.value === '-L' || w.value === '-P' || /^-O\d*$/.test(w.value)) i++;
    else if (w.value === '-D') i += 2;
    else break;
  }
  const starts: string[] = [];
  let given = false;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.dynamic && (w.value.startsWith('-') || w.value === '(' || w.value === '!' || w.value === ',')) break;
    given = true;
    // a start directory named when the command runs is not judged, like any computed word
    const text = w.dynamic ? homeRelative(w.value) : w.value;
    if (text !== null) starts.push(text);
  }
  if (!given) starts.push('.');
  const names: string[] = [];
  let anyName = false;
  let reads = false;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic) continue;
    const v = w.value;
    if (v === '!' || v === '-not') anyName = true;
    else if (FIND_NAME_TESTS.has(v)) {
      const value = words[++i];
      if (value === undefined || value.dynamic) anyName = true;
      else {
        // `-path '*/config/.env'`: the files found are named as its last segment
        const segments = value.value.split('/').filter((s) => s.length > 0);
        names.push(segments.length > 0 ? segments[segments.length - 1]! : value.value);
      }
    } else if (FIND_OTHER_TESTS.has(v)) {
      anyName = true;
      i++;
    } else if (FIND_EXEC.has(v)) {
      let j = i + 1;
      while (j < words.length) {
        const t = words[j]!;
        if (!t.dynamic && (t.value === ';' || (t.value === '+' && words[j - 1]?.value === '{}'))) break;
        j++;
      }
      if (execReads(words.slice(i + 1, j))) reads = true;
      i = j;
    }
  }
  if (!reads) return;
  // with a negated test or one that is not a glob, any file below may be found
  const filters = anyName ? [] : names;
  for (const start of starts) out.search(start, filters);
}

/** The reads of one view: its program's own words (not those of the command it wraps, `inner`). */
function viewReads(part: CommandPart, view: CommandView, inner: ReadonlySet<ShellWord> | null, out: ReadsBuilder): void {
  const words = view.words;
  const program = words[0];
  if (program === undefined || words.length < 2) return;
  if (program.dynamic) {
    // a program computed when the command runs may be any program: its words are read
    genericReads(words, inner, NO_WRITTEN, out);
    return;
  }
  const name = basename(program.value);
  if (NAME_ONLY.has(name)) {
    if (name === 'find') findReads(words, out);
    return;
  }
  const written = writtenOf(part, view);
  const grammar = programGrammar(name);
  const root = grammar?.path ?? name;
  if (!READER_PROGRAMS.has(root)) genericReads(words, inner, written, out);
  else if (grammar !== undefined) grammarReads(grammar, words, inner, written, out);
  else plainReads(READER_RULES.get(name)!, words, inner, written, out);
}

/**
 * What a part reads: the files of its input redirections, and what each view's program reads of
 * its own words. A wrapper's own words (`xargs -a FILE`, `sudo -e FILE`) are read as any program's
 * are; the words of the command it runs are read by that command's view.
 */
export function partReads(part: CommandPart): PartReads {
  const out = new ReadsBuilder();
  addPartReads(part, out);
  return { files: out.files, searches: out.searches, globs: out.globs };
}

function addPartReads(part: CommandPart, out: ReadsBuilder): void {
  for (const w of part.reads ?? []) {
    // a file named when the command runs made the part unknowable already (`$HOME/...` is read as `~/...`)
    const text = w.dynamic ? wordPath(w) : w.value;
    if (text !== null) out.file(text, w.dynamic);
  }
  const views = part.views;
  for (let k = 0; k < views.length; k++) {
    let inner: Set<ShellWord> | null = null;
    if (k < views.length - 1) {
      inner = new Set();
      for (let j = k + 1; j < views.length; j++) for (const w of views[j]!.words) inner.add(w);
    }
    viewReads(part, views[k]!, inner, out);
  }
}

// ---------------------------------------------------------------------------------------------
// Judging

/** A view of a `Read` event whose paths are given, not read from its input: a search, or a call of too many reads. */
export class GivenPathsView extends EventView {
  private given: PathFacts | null | undefined;

  constructor(
    event: PreToolEvent,
    private readonly make: (view: EventView) => PathFacts | null,
  ) {
    super(event);
  }

  override pathFacts(): PathFacts | undefined {
    if (this.given === undefined) this.given = this.make(this);
    return this.given ?? undefined;
  }
}

const OPAQUE: PathFacts = { files: [], searches: [], opaque: true };

/** The `Read` event of one path under the same session as the command's. */
function readEventOf(event: PreToolEvent, path: string): PreToolEvent {
  const readEvent: PreToolEvent = { seam: 'pre-tool', tool: READ_TOOL, input: { file_path: path } };
  if (event.cwd !== undefined) readEvent.cwd = event.cwd;
  if (event.home !== undefined) readEvent.home = event.home;
  if (event.session !== undefined) readEvent.session = event.session;
  if (event.permission_mode !== undefined) readEvent.permission_mode = event.permission_mode;
  return readEvent;
}

/** Whether some part of the command may read a file (cheap: before `partReads`). */
function mayRead(parts: readonly CommandPart[]): boolean {
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.reads !== undefined || p.views.length > 1 || p.views[0]!.words.length > 1) return true;
  }
  return false;
}

/**
 * Judges every file the command's parts read as a `Read` of that file under the same session, and
 * every directory a recursive reader walks as a search of it. More reads than a tool call may name
 * (`MAX_CALL_PATHS`) are judged as one opaque `Read`: every deny and ask with a path fires.
 */
export function judgeReads(parts: readonly CommandPart[], event: PreToolEvent, decideRead: ReadDecider): ReadJudgement {
  const hits: Hit[] = [];
  if (!mayRead(parts)) return { hits };
  const out = new ReadsBuilder();
  for (let i = 0; i < parts.length; i++) addPartReads(parts[i]!, out);
  const { files, searches, globs } = out;
  const take = (got: Hit[], reason: () => string): void => {
    for (const h of got) {
      if (h.effect !== 'deny' && h.effect !== 'ask') continue;
      hits.push({ ...h, reason: h.reason ?? reason() });
    }
  };
  if (out.size > MAX_CALL_PATHS) {
    const path = files[0] ?? searches[0]!.dir;
    take(decideRead(new Query(event, `\u0000opaque\u0000${path}`, path, () => OPAQUE)), () => `the command reads more than ${MAX_CALL_PATHS} files`);
    return { hits };
  }
  for (const file of files) take(decideRead(new Query(event, file, file, null)), () => `the command reads \`${file}\``);
  for (const s of searches) {
    const input: Record<string, unknown> = s.filters.length > 0 ? { path: s.dir, glob: s.filters } : { path: s.dir };
    // the directory and what is below it, as a `Grep` of it with the filters as its `glob`
    const query = new Query(event, `\u0000search\u0000${s.dir}\u0000${s.filters.join('\u0000')}`, s.dir, (v) => pathFactsOf('Grep', input, () => v.pathEnv));
    take(decideRead(query), () => `the command reads \`${s.dir}\` and what is below it`);
  }
  for (const g of globs) {
    // the files a shell glob matches, as a `Glob` of it finds them
    const query = new Query(event, `\u0000glob\u0000${g}`, g, (v) => pathFactsOf('Glob', { pattern: g }, () => v.pathEnv));
    take(decideRead(query), () => `the command reads the files \`${g}\` matches`);
  }
  return { hits };
}

/** A read to judge, its event and view made when first asked for. */
class Query implements ReadQuery {
  private made: PreToolEvent | undefined;
  private seen: EventView | undefined;

  constructor(
    readonly call: PreToolEvent,
    readonly key: string,
    private readonly path: string,
    /** The paths of a view that does not read them from the event's input; null: a `Read` of `path`. */
    private readonly facts: ((view: EventView) => PathFacts | null) | null,
  ) {}

  event(): PreToolEvent {
    return (this.made ??= readEventOf(this.call, this.path));
  }

  view(): EventView {
    return (this.seen ??= this.facts === null ? new EventView(this.event()) : new GivenPathsView(this.event(), this.facts));
  }
}

/** The reads of a part as explanations show them: files as written, a directory walked as `dir (and below it: filters)`, a glob's files. */
export function describeReads(reads: PartReads): string[] {
  const out: string[] = [...reads.files];
  for (const s of reads.searches) out.push(s.filters.length > 0 ? `${s.dir} (and below it: ${s.filters.join(', ')})` : `${s.dir} (and below it)`);
  for (const g of reads.globs) out.push(`${g} (the files it matches)`);
  return out;
}
