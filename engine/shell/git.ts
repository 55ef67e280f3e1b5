/**
 * git's command-line aliases (`git -c alias.p=push p` runs `git push`) and force pushes written as
 * a `+` refspec: views of a git command for deny and ask that its words alone do not show.
 */
import type { CommandView, ShellWord } from './types.js';
import { programGrammar, type Level } from './programs/grammar.js';
import { readWords, staticPrefix } from './programs/read.js';
import { appended, baseName } from './words.js';

const GIT: Level | undefined = programGrammar('git');

/** How many aliases in a row are expanded (git itself refuses loops). */
const MAX_GIT_ALIASES = 8;

/** The words of a git alias's value, split as git splits it (quotes and backslashes); null when it cannot be split. */
function gitAliasWords(value: string): ShellWord[] | null {
  const out: ShellWord[] = [];
  let word: string | null = null;
  let quote = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quote === '' && /\s/.test(c)) {
      if (word !== null) out.push({ value: word, dynamic: false });
      word = null;
      continue;
    }
    word ??= '';
    if (c === '\\' && quote !== "'") {
      if (i + 1 >= value.length) return null;
      word += value[++i];
    } else if ((c === '"' || c === "'") && (quote === '' || quote === c)) {
      quote = quote === '' ? c : '';
    } else word += c;
  }
  if (quote !== '') return null;
  if (word !== null) out.push({ value: word, dynamic: false });
  return out;
}

/** `value` as one shell word. */
function shellQuoted(value: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** What a git command's `-c alias.NAME=VALUE` options make of the subcommand NAME. */
type GitAlias =
  | { kind: 'none' }
  | { kind: 'words'; words: ShellWord[] }
  /** `!CMD`: git runs `CMD` in a shell, with the words after NAME appended. */
  | { kind: 'script'; script: string }
  | { kind: 'unknowable'; reason: string };

const NO_ALIAS: GitAlias = { kind: 'none' };

/** The command an alias set on the command line makes of `words` (a view whose program is git). */
function gitAlias(words: readonly ShellWord[]): GitAlias {
  let defines = false;
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (v.length > 6 && v.indexOf('.') > 0 && /alias\./i.test(v)) defines = true;
  }
  if (!defines || GIT === undefined) return NO_ALIAS;
  const reading = readWords(GIT, words);
  // git never lets an alias hide one of its own commands
  if (reading.levels.length > 1) return NO_ALIAS;
  const at = reading.operands[0];
  const invoked = at === undefined ? undefined : words[at];
  if (at === undefined || invoked === undefined || invoked.dynamic) return NO_ALIAS;
  const key = `alias.${invoked.value.toLowerCase()}=`;
  let found: GitAlias = NO_ALIAS;
  for (const use of reading.options) {
    if (use.def === null || use.depth !== 0 || (use.def.name !== '-c' && use.def.name !== '--config-env')) continue;
    const value = use.offset >= 0 ? { value: words[use.at]!.value.slice(use.offset), dynamic: words[use.at]!.dynamic } : words[use.valueAt];
    if (value === undefined) continue;
    // `alias.p=$X` sets the alias to a computed value
    const setting = (value.dynamic ? staticPrefix(value.value) : value.value).toLowerCase();
    if (!setting.startsWith(key)) continue;
    // the last setting wins
    if (value.dynamic || use.def.name === '--config-env') {
      found = { kind: 'unknowable', reason: `\`git\` runs the alias \`${invoked.value}\`, whose value is known only when the command runs` };
      continue;
    }
    const text = value.value.slice(key.length);
    if (text.startsWith('!')) {
      const args = words.slice(at + 1).map((w) => shellQuoted(w.value));
      found = { kind: 'script', script: [text.slice(1), ...args].join(' ') };
      continue;
    }
    const split = gitAliasWords(text);
    found = split === null || split.length === 0 ? { kind: 'unknowable', reason: `\`git\` cannot split the alias \`${invoked.value}\`` } : { kind: 'words', words: [...words.slice(0, at), ...split, ...words.slice(at + 1)] };
  }
  return found;
}

/** `git push` with `--force` after `push`, when a refspec operand starts with `+` (a forced update); else null. */
function gitForcedPush(words: readonly ShellWord[]): ShellWord[] | null {
  let plus = false;
  for (let k = 2; k < words.length; k++) if (words[k]!.value.charCodeAt(0) === 43 /* + */) plus = true;
  if (!plus || GIT === undefined) return null;
  const reading = readWords(GIT, words);
  const sub = reading.subAt[0];
  if (sub === undefined || reading.levels[1]!.path !== 'git push') return null;
  for (const k of reading.operands) {
    const w = words[k]!;
    // `"+$BRANCH"` is a forced update all the same
    if (k > sub && (w.dynamic ? staticPrefix(w.value) : w.value).startsWith('+')) {
      return [...words.slice(0, sub + 1), { value: '--force', dynamic: false }, ...words.slice(sub + 1)];
    }
  }
  return null;
}

/**
 * Views of git commands that their words alone do not show, for deny and ask: a `-c alias.NAME=VALUE`
 * alias expanded (`git -c alias.p=push p` is `git push`) and a `+` refspec of `git push` as the
 * `--force` it is. Adds them to `views`; returns the scripts of shell aliases (`!CMD`) and why the
 * part is unknowable, if an alias cannot be read.
 */
export function gitViews(views: CommandView[]): { scripts: string[]; unknowable: string | null } | null {
  let result: { scripts: string[]; unknowable: string | null } | null = null;
  const n = views.length;
  for (let v = 0; v < n; v++) {
    const view = views[v]!;
    const program = view.words[0];
    if (program === undefined || program.dynamic || baseName(program.value) !== 'git' || view.words.length < 2) continue;
    let words = view.words;
    for (let k = 0; ; k++) {
      const alias = gitAlias(words);
      if (alias.kind === 'none') break;
      if (k === MAX_GIT_ALIASES) {
        // past the cap the alias chain was not followed to its end: what it runs is unknown
        result ??= { scripts: [], unknowable: null };
        result.unknowable ??= `a chain of more than ${MAX_GIT_ALIASES} git aliases is not followed`;
        break;
      }
      if (alias.kind === 'words') {
        words = alias.words;
        views.push({ words, wrappers: appended(view.wrappers, 'alias'), neutral: false, alternate: true });
        continue;
      }
      result ??= { scripts: [], unknowable: null };
      if (alias.kind === 'script') result.scripts.push(alias.script);
      else result.unknowable ??= alias.reason;
      break;
    }
    const forced = gitForcedPush(words);
    if (forced !== null) views.push({ words: forced, wrappers: appended(view.wrappers, '+refspec'), neutral: false, alternate: true });
  }
  return result;
}
