/**
 * The paths a shell command can touch, as far as its text says: the words that may name a file
 * (every static word but options and URLs; the value of `--opt=value` and `name=value` words;
 * `$HOME/...` read as `~/...`) and the files its redirections read and write. A `path` selector on
 * a shell tool is matched against these, so `deny Bash path "**\/.env"` keeps `.env` out of `cat`,
 * `cp`, `tar` and redirections alike. Words computed when the command runs may name anything: they
 * are counted in `unknown`.
 */
import type { CommandAnalysis, ShellWord } from './types.js';

export interface CommandPaths {
  /** Path texts as written after quote removal (`~/.ssh/id_rsa`, `.env`, `/etc/passwd`), each once. */
  readonly paths: readonly string[];
  /** Words computed when the command runs that may name a file (`cat "$F"`). */
  readonly unknown: number;
}

/** More paths than this are not listed; the rest count as unknown. */
export const MAX_COMMAND_PATHS = 512;

/** `$HOME/x`, `${HOME}/x` read as `~/x`; null when the word holds any other expansion. */
export function homeRelative(value: string): string | null {
  let rest: string | null = null;
  if (value === '$HOME' || value === '${HOME}') return '~';
  if (value.startsWith('$HOME/')) rest = value.slice(5);
  else if (value.startsWith('${HOME}/')) rest = value.slice(7);
  if (rest === null || rest.includes('$') || rest.includes('`')) return null;
  return '~' + rest;
}

/** The path a word may name, or null when it names none (an option, a URL, empty text). */
export function pathOf(value: string): string | null {
  if (value.length === 0 || value.length > 4096 || value.includes('\n')) return null;
  if (value.includes('://')) return null;
  const c = value.charCodeAt(0);
  if (c === 45 /* - */ || c === 43 /* + */) {
    // `--output=~/.bashrc`, `-o=x`: the value
    const eq = value.indexOf('=');
    return eq > 0 && eq < value.length - 1 ? pathOf(value.slice(eq + 1)) : null;
  }
  const eq = value.indexOf('=');
  // `if=/dev/sda`, `of=~/.bashrc` (dd), `NAME=value`
  if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value.slice(0, eq))) return eq < value.length - 1 ? pathOf(value.slice(eq + 1)) : null;
  return value;
}

/** Every path the parts of a command may touch. */
export function commandPaths(analysis: CommandAnalysis): CommandPaths {
  const seen = new Set<string>();
  const paths: string[] = [];
  let unknown = 0;
  const add = (word: ShellWord): void => {
    let text: string | null;
    if (word.dynamic) {
      text = homeRelative(word.value);
      if (text === null) {
        unknown++;
        return;
      }
    } else {
      text = pathOf(word.value);
      if (text === null) return;
    }
    if (seen.has(text)) return;
    if (paths.length >= MAX_COMMAND_PATHS) {
      unknown++;
      return;
    }
    seen.add(text);
    paths.push(text);
  };
  for (const part of analysis.parts) {
    for (const w of part.words) add(w);
    for (const w of part.writes ?? []) add(w);
    for (const w of part.reads ?? []) add(w);
  }
  return { paths, unknown };
}

/** A program word's name without its directory (`/usr/bin/git` is `git`), as the program tables know it. */
export function programBasename(program: string): string {
  const slash = program.lastIndexOf('/');
  return slash < 0 ? program : program.slice(slash + 1);
}
