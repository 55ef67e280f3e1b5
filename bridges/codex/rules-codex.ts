/**
 * Codex's own meaning of a rules file, independent of dshpolicy's evaluator: the prefix rules,
 * `host_executable` paths and the matcher of `codex-rs/execpolicy` (`Policy::
 * matches_for_command_with_options` with `resolve_host_executables: true`, as Codex's core and its
 * load-time example checks call it), the `shlex` splitting of string examples, and shell quoting
 * of an argv into a command line that bash reads back as that argv.
 */
import { homedir } from 'node:os';

export type CodexDecision = 'allow' | 'prompt' | 'forbidden';

/** `Decision`'s derived order: allow < prompt < forbidden; the strictest match wins. */
export const STRICTNESS: Readonly<Record<CodexDecision, number>> = { allow: 1, prompt: 2, forbidden: 3 };

/** The dshpolicy decision word of a Codex decision (or of no match). */
export function decisionWord(d: CodexDecision | 'none'): 'allow' | 'ask' | 'deny' | 'none' {
  return d === 'forbidden' ? 'deny' : d === 'prompt' ? 'ask' : d;
}

/** One rule as Codex indexes it: one per alternative of the pattern's first token. */
export interface CodexPrefixRule {
  first: string;
  /** The other pattern positions, each a list of alternatives. */
  rest: readonly (readonly string[])[];
  decision: CodexDecision;
  justification?: string;
  /** The id of the `prefix_rule` call it came from. */
  id: string;
}

function prefixMatches(rule: CodexPrefixRule, cmd: readonly string[]): boolean {
  if (cmd.length < rule.rest.length + 1 || cmd[0] !== rule.first) return false;
  return rule.rest.every((alts, i) => alts.includes(cmd[i + 1]!));
}

/** Rust's `Path::file_name` on a Unix path: the last normal component, if any. */
export function pathFileName(path: string): string | null {
  const parts = path.split('/').filter((c) => c !== '' && c !== '.');
  const last = parts[parts.length - 1];
  return last === undefined || last === '..' ? null : last;
}

/**
 * `AbsolutePathBuf::try_from`: `~` and `~/...` are expanded with the home directory; the path
 * must then be absolute, and `.` and `..` are resolved without touching the file system.
 */
export function absolutePath(path: string, home: string): string | null {
  let p = path;
  if (p === '~') p = home;
  else if (p.startsWith('~/')) p = `${home.replace(/\/+$/, '')}/${p.slice(2).replace(/^\/+/, '')}`;
  if (!p.startsWith('/')) return null;
  const out: string[] = [];
  for (const c of p.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..') out.pop();
    else out.push(c);
  }
  return `/${out.join('/')}`;
}

/** A rules file as Codex's matcher sees it. */
export class CodexPolicy {
  private readonly byProgram = new Map<string, CodexPrefixRule[]>();
  private readonly hostExecutables = new Map<string, readonly string[]>();
  readonly home: string;

  constructor(home?: string) {
    this.home = home ?? homedir();
  }

  add(rule: CodexPrefixRule): void {
    const list = this.byProgram.get(rule.first) ?? [];
    list.push(rule);
    this.byProgram.set(rule.first, list);
  }

  /** `host_executable(name, paths)`: the last definition of a name wins. `paths` are absolute already. */
  setHostExecutable(name: string, paths: readonly string[]): void {
    this.hostExecutables.set(name, paths);
  }

  hostExecutable(name: string): readonly string[] | undefined {
    return this.hostExecutables.get(name);
  }

  /**
   * The rules that match an argv: those indexed by its first word; only when none matches, and the
   * first word is an absolute path (after `~`), those of its basename, provided a
   * `host_executable` for that name lists the path or there is none.
   */
  matches(argv: readonly string[]): CodexPrefixRule[] {
    const program = argv[0];
    if (program === undefined) return [];
    const exact = (this.byProgram.get(program) ?? []).filter((r) => prefixMatches(r, argv));
    if (exact.length > 0) return exact;
    const base = pathFileName(program);
    if (base === null) return [];
    const abs = absolutePath(program, this.home);
    if (abs === null) return [];
    const rules = this.byProgram.get(base);
    if (rules === undefined) return [];
    const allowed = this.hostExecutables.get(base);
    if (allowed !== undefined && !allowed.includes(abs)) return [];
    const cmd = [base, ...argv.slice(1)];
    return rules.filter((r) => prefixMatches(r, cmd));
  }

  /** The strictest decision of the matching rules, or `none`. */
  decide(argv: readonly string[]): CodexDecision | 'none' {
    let best: CodexDecision | 'none' = 'none';
    for (const r of this.matches(argv)) if (best === 'none' || STRICTNESS[r.decision] > STRICTNESS[best]) best = r.decision;
    return best;
  }
}

/**
 * `shlex::split` (the Rust crate Codex uses for string examples): blanks separate words, `'...'`
 * is literal, `"..."` keeps a backslash unless it precedes `$`, `` ` ``, `"`, `\` or a newline,
 * an unquoted backslash escapes the next character, and `#` at the start of a word starts a
 * comment. Null when the string is unterminated or ends in a lone backslash.
 */
export function shlexSplit(text: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  const n = text.length;
  const blank = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n';
  while (i < n) {
    const c = text[i]!;
    if (blank(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    let word = '';
    while (i < n && !blank(text[i])) {
      const ch = text[i]!;
      if (ch === "'") {
        const close = text.indexOf("'", i + 1);
        if (close < 0) return null;
        word += text.slice(i + 1, close);
        i = close + 1;
      } else if (ch === '"') {
        i++;
        for (;;) {
          if (i >= n) return null;
          const d = text[i]!;
          if (d === '"') break;
          if (d === '\\') {
            const e = text[i + 1];
            if (e === undefined) return null;
            if (e !== '\n') word += '$`"\\'.includes(e) ? e : `\\${e}`;
            i += 2;
            continue;
          }
          word += d;
          i++;
        }
        i++;
      } else if (ch === '\\') {
        const e = text[i + 1];
        if (e === undefined) return null;
        if (e !== '\n') word += e;
        i += 2;
      } else {
        word += ch;
        i++;
      }
    }
    words.push(word);
  }
  return words;
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const SHELL_KEYWORDS = new Set([
  'if', 'then', 'elif', 'else', 'fi', 'while', 'until', 'do', 'done', 'for', 'select', 'case', 'esac', 'function', 'time', 'coproc', 'in',
]);

/**
 * One word as bash reads it back literally: plain when it is made of characters the shell never
 * treats specially (and, as the first word, is neither a keyword nor an assignment), otherwise
 * single-quoted, with `'` written `'\''`.
 */
export function quoteWord(word: string, first = false): string {
  const plain = word !== '' && SAFE_WORD.test(word) && !(first && (SHELL_KEYWORDS.has(word) || /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word)));
  return plain ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one command line that bash splits back into exactly these words. */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map((w, i) => quoteWord(w, i === 0)).join(' ');
}
