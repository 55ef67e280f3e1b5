/**
 * Writes are writes: the files a shell command writes, through its redirections
 * (`echo x >> ~/.bashrc`) and through programs' operands and options (`tee f`, `cp a f`), are
 * judged as writes by the policy's `Write` rules. For each file, the policy decides the event a
 * `Write` of that file would be: a `deny` or `ask` there is a `deny` or `ask` of the command. For a
 * redirection, only an `allow` there lets a command allow cover the part that writes it; a file a
 * program writes is covered by an allow pattern that names it (shell/pattern.ts).
 *
 * For deny and ask only, a command also writes what it removes, moves away or changes the mode or
 * owner of (`rm f`, `mv f x`, `chmod 000 f`: what these programs do by their nature, which an
 * allow's `*` still covers), the file a copy or a move puts into a directory (`cp f dir/` writes
 * `dir/f`), and the files a shell glob among the files it writes matches (`rm .claude/*`, judged as
 * a `Glob` of it finds them).
 */
import type { Hit } from './algebra.js';
import { decide, verdict } from './algebra.js';
import type { PreToolEvent } from './events.js';
import type { EventView } from './fields.js';
import { pathFactsOf } from './match/path-facts.js';
import { GivenPathsView } from './reads.js';
import { homeRelative, type CommandPart, type CommandView, type ShellWord } from './shell/index.js';
import { programGrammar } from './shell/programs/grammar.js';
import { readWords, type OptionUse, type Reading } from './shell/programs/read.js';

/** The tool whose rules judge the files a command writes. */
export const WRITE_TOOL = 'Write';

/** How the policy judges the writes of a command. */
export interface WriteJudgement {
  /** Deny and ask hits of the `Write` rules that matched a target, to add to the command's hits. */
  hits: Hit[];
  /** Per part index, true when every file the part writes is allowed for writing. */
  allowed: boolean[];
  /** The targets no allow covers, for traces. */
  unallowed: string[];
}

/**
 * The hits of the `Write` event for one file: the caller's evaluator (the indexed one or the
 * reference scan). `view`, when given, reads the event's paths otherwise: the files a shell glob
 * matches, as a `Glob` of it finds them.
 */
export type WriteDecider = (event: PreToolEvent, view?: EventView) => Hit[];

/**
 * The programs that remove, move away or change the files they are given, by the path of their
 * grammar's level (an alias reads as its program: `chgrp` is `chown`), with the options that leave
 * the files as they are (`git rm --cached`). Every operand is taken for a file, chmod's mode and
 * chown's owner too: a mode may be written as an option (`chmod -w f`), so it cannot be told from
 * the files. A directory is written as itself, not with what is below it: `rm -rf .claude` writes
 * `.claude`.
 */
const CHANGERS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ['rm', []],
  ['unlink', []],
  ['rmdir', []],
  ['mv', []],
  ['chmod', []],
  ['chown', []],
  ['git rm', ['--cached', '-n']],
  ['git mv', ['-n']],
]);

/** The programs to read for changes (cheap: before reading their words). */
export const CHANGER_PROGRAMS: ReadonlySet<string> = new Set(['rm', 'unlink', 'rmdir', 'mv', 'chmod', 'chown', 'chgrp', 'git', 'cp', 'ln', 'install']);

/** Programs that put what they copy, move or link into the directory they are given last (or with `-t`). */
const INTO_DIRECTORY: ReadonlySet<string> = new Set(['cp', 'mv', 'ln', 'install', 'git mv']);

/** Shell glob characters in a segment of a word's text: the shell writes the files it matches. */
const GLOB_TEXT = /[*?]|\[[^\]]*\]/;

/**
 * Whether the files a shell glob matches are judged, as a `Glob` of it finds them. A search finds
 * more than the shell does: files at any depth below the directory, and names with a leading dot,
 * which the shell's `*` does not match. So a glob is judged only when it names its place: below a
 * directory written out (`.claude/*`, `~/.codex/*.json`), or by a leading dot (`.dsh*`); `*`,
 * `./*` and `*.json` are not (`rm -rf *` leaves `.claude` and `.dshpolicy` alone).
 */
function judgedGlob(text: string): boolean {
  const segments = text.split('/');
  const first = segments.findIndex((s) => GLOB_TEXT.test(s));
  if (first < 0) return false;
  if (segments[first]!.startsWith('.')) return true;
  return segments.slice(0, first).some((s) => s !== '' && s !== '.' && s !== '~');
}

/** The file a target names: its text, or `~/...` for `$HOME/...`; null when it is computed otherwise. */
function fileOf(target: ShellWord): string | null {
  return target.dynamic ? homeRelative(target.value) : target.value;
}

function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash < 0 ? trimmed : trimmed.slice(slash + 1);
}

/** The program's name of a view, when it is one the changes are read for. */
function changerProgram(view: CommandView): string | null {
  const program = view.words[0];
  if (program === undefined || program.dynamic || view.words.length < 2) return null;
  const name = basename(program.value);
  if (!CHANGER_PROGRAMS.has(name)) return null;
  // git changes files only through `rm` and `mv`
  if (name === 'git' && !view.words.some((w) => !w.dynamic && (w.value === 'rm' || w.value === 'mv'))) return null;
  return name;
}

/** True when some part of the command writes a file, or may remove or change one. */
export function writesFiles(parts: readonly CommandPart[]): boolean {
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.writes !== undefined || part.operandWrites !== undefined) return true;
    for (const view of part.views) if (changerProgram(view) !== null) return true;
  }
  return false;
}

function uses(reading: Reading, names: readonly string[]): boolean {
  return names.length > 0 && reading.options.some((u: OptionUse) => u.def !== null && u.def.names.some((n) => names.includes(n)));
}

/** What one view of a part removes or changes, and where a copy or move puts files. */
interface Changes {
  /** Files removed, moved away or changed. */
  files: ShellWord[];
  /** The files a copy or move puts into a directory (`dir/name`). */
  into: string[];
}

function viewChanges(view: CommandView, out: Changes): void {
  const name = changerProgram(view);
  if (name === null) return;
  const grammar = programGrammar(name);
  if (grammar === undefined) return;
  const words = view.words;
  const reading = readWords(grammar, words);
  const level = reading.levels[reading.levels.length - 1]!;
  const operands = reading.operands.map((k) => words[k]!);
  const unless = CHANGERS.get(level.path);
  if (unless !== undefined && !uses(reading, unless)) {
    // a move's destination is written already (the programs table), and stays where it is
    const moved = level.path === 'mv' || level.path === 'git mv' ? (uses(reading, ['-t']) ? operands : operands.slice(0, -1)) : operands;
    out.files.push(...moved);
  }
  if (INTO_DIRECTORY.has(level.path)) intoDirectory(reading, words, operands, out);
}

/** `cp a b dir`, `mv a dir/`, `cp -t dir a`: the destination may be a directory, which then gets `dir/a`. */
function intoDirectory(reading: Reading, words: readonly ShellWord[], operands: readonly ShellWord[], out: Changes): void {
  if (uses(reading, ['-T'])) return;
  let dir: ShellWord | undefined;
  let sources: readonly ShellWord[];
  const target = reading.options.find((u) => u.def !== null && u.def.names.includes('-t'));
  if (target !== undefined) {
    dir = target.offset >= 0 ? { value: words[target.at]!.value.slice(target.offset), dynamic: words[target.at]!.dynamic } : words[target.valueAt];
    sources = operands;
  } else {
    if (operands.length < 2) return;
    dir = operands[operands.length - 1];
    sources = operands.slice(0, -1);
  }
  const base = dir === undefined ? null : fileOf(dir);
  if (base === null) return;
  for (const s of sources) {
    if (s.dynamic) continue;
    const name = basename(s.value);
    if (name !== '' && name !== '.' && name !== '..') out.into.push(`${base.replace(/\/+$/, '')}/${name}`);
  }
}

/**
 * The files a part writes, as deny and ask judge them: its redirections' targets, the files its
 * programs write, what it removes, moves away or changes (`rm f`, `chmod 000 f`), and what a copy
 * puts into a directory; as written (a computed name is left out).
 */
export function partWrites(part: CommandPart): string[] {
  const changes: Changes = { files: [], into: [] };
  for (const view of part.views) viewChanges(view, changes);
  const out: string[] = [];
  for (const w of [...(part.writes ?? []), ...(part.operandWrites ?? []), ...changes.files]) {
    const file = fileOf(w);
    if (file !== null && !out.includes(file)) out.push(file);
  }
  for (const file of changes.into) if (!out.includes(file)) out.push(file);
  return out;
}

/** Judges every file the command's parts write as a `Write` of that file under the same session. */
export function judgeWrites(parts: readonly CommandPart[], event: PreToolEvent, decideWrite: WriteDecider): WriteJudgement {
  const hits: Hit[] = [];
  const allowed: boolean[] = [];
  const unallowed: string[] = [];
  const seen = new Map<string, boolean>();
  const writeEventOf = (file: string): PreToolEvent => {
    const writeEvent: PreToolEvent = { seam: 'pre-tool', tool: WRITE_TOOL, input: { file_path: file } };
    if (event.cwd !== undefined) writeEvent.cwd = event.cwd;
    if (event.home !== undefined) writeEvent.home = event.home;
    if (event.session !== undefined) writeEvent.session = event.session;
    if (event.permission_mode !== undefined) writeEvent.permission_mode = event.permission_mode;
    return writeEvent;
  };
  const take = (got: Hit[], why: string): void => {
    for (const h of got) {
      if (h.effect !== 'deny' && h.effect !== 'ask') continue;
      hits.push({ ...h, reason: h.reason ?? why });
    }
  };
  /** Decides the `Write` of one file once: its deny and ask hits join the command's; true when it is allowed. */
  const judge = (file: string, why = `the command writes \`${file}\``): boolean => {
    const got = decideWrite(writeEventOf(file));
    take(got, why);
    const allowed = decide(verdict('pre-tool', got)).decision === 'allow';
    seen.set(file, allowed);
    return allowed;
  };
  /** The files a shell glob matches, as a `Glob` of it finds them, for deny and ask. */
  const judgeGlob = (glob: string): void => {
    const key = `\u0000glob\u0000${glob}`;
    if (seen.has(key)) return;
    seen.set(key, false);
    const writeEvent = writeEventOf(glob);
    const view = new GivenPathsView(writeEvent, (v) => pathFactsOf('Glob', { pattern: glob }, () => v.pathEnv));
    take(decideWrite(writeEvent, view), `the command writes the files \`${glob}\` matches`);
  };
  /** A file written for deny and ask, and the files it matches when it is a shell glob. */
  const judgeNamed = (file: string, why?: string): void => {
    if (!seen.has(file)) judge(file, why);
    if (judgedGlob(file)) judgeGlob(file);
  };
  for (const part of parts) {
    let ok = true;
    // a file a program's operand or option writes is judged for deny and ask; an allow pattern covers it by naming it
    const named = part.operandWrites ?? [];
    for (let k = 0; k < named.length; k++) {
      const file = fileOf(named[k]!);
      if (file !== null) judgeNamed(file);
    }
    // what the part removes, moves or changes, and what a copy puts into a directory: for deny and ask too
    const changes: Changes = { files: [], into: [] };
    for (const view of part.views) viewChanges(view, changes);
    for (const w of changes.files) {
      // a directory is removed as itself (`rm -rf .claude/` is `.claude`), not listed as a path written as a directory is
      const file = fileOf(w)?.replace(/(?<=[^/])\/+$/, '') ?? null;
      if (file !== null) judgeNamed(file, `the command removes or changes \`${file}\``);
    }
    for (const file of changes.into) judgeNamed(file);
    for (const target of part.writes ?? []) {
      // a target named when the command runs made the part unknowable already (`$HOME/...` is read as `~/...`)
      const file = fileOf(target);
      if (file === null) {
        ok = false;
        continue;
      }
      const targetAllowed = seen.get(file) ?? judge(file);
      if (judgedGlob(file)) judgeGlob(file);
      if (!targetAllowed) {
        ok = false;
        if (!unallowed.includes(file)) unallowed.push(file);
      }
    }
    allowed.push(ok);
  }
  return { hits, allowed, unallowed };
}
