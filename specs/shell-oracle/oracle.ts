/**
 * The oracle's check: every program a command line really ran (from the sandbox) must be accounted
 * for by the engine's analysis of that line, or the analysis must declare the call opaque.
 *
 * An argv is accounted for when some view of some part has words that can be that argv:
 * - the program (first word) by basename: `/usr/bin/rm` is `rm`, `\rm` was already unquoted;
 * - a static word equals its argv word; a word starting with `~` also stands for the home folder;
 * - a static argument word with glob characters (`*`, `?`, `[`) may have been expanded by the shell
 *   into one or more names it matches (the engine keeps globs as written), or stayed as it is; this
 *   never applies to the program word, where the engine must see the name that runs;
 * - a dynamic word (`$X`, `$(...)`, `{a,b}`) stands for any number of argv words, zero included,
 *   since an unquoted expansion may split into several words or none.
 * An analysis with a part whose `unknowable` is set declares the call opaque, which covers any argv.
 * The oracle is one-sided: a part that did not run is never a miss.
 */
import { analyzeCommand, type CommandAnalysis, type CommandPart, type ShellWord } from '../../engine/index.js';
import type { RunResult, Sandbox } from './sandbox.js';

export interface OracleVerdict {
  /** Some part is unknowable: the engine declared the call opaque. */
  opaque: boolean;
  /** The argv that ran and that no view accounts for. */
  misses: string[][];
}

export interface AccountOptions {
  /** The home folder the command ran with (for `~`). */
  home: string;
}

function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash < 0 ? trimmed : trimmed.slice(slash + 1);
}

const GLOB_CHARS = /[*?[]/;

/** A bash glob as a regex over one name (`*` and `?` never match `/`). */
function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) {
        re += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      re += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = close;
    } else re += c.replace(/[\\^$.|+(){}]/g, '\\$&');
  }
  return new RegExp('^' + re + '$', 's');
}

function sameWord(word: string, arg: string, home: string): boolean {
  if (word === arg) return true;
  if (word === '~' || word.startsWith('~/')) return home + word.slice(1) === arg;
  return false;
}

/** Whether the engine's words can be this argv. */
export function wordsAccountFor(words: readonly ShellWord[], argv: readonly string[], options: AccountOptions): boolean {
  if (words.length === 0 || argv.length === 0) return false;
  const first = words[0]!;
  // The program: by basename, or a dynamic word that may produce it (with other words after it).
  if (!first.dynamic) {
    if (basename(first.value) !== basename(argv[0]!)) return false;
    return restAccountFor(words, 1, argv, 1, options);
  }
  return restAccountFor(words, 0, argv, 0, options);
}

function restAccountFor(words: readonly ShellWord[], wi: number, argv: readonly string[], ai: number, options: AccountOptions): boolean {
  // reach[j]: words[wi..k) can produce argv[ai..j); a small DP, one row per word.
  let reach: boolean[] = new Array<boolean>(argv.length + 1).fill(false);
  reach[ai] = true;
  for (let k = wi; k < words.length; k++) {
    const w = words[k]!;
    const next = new Array<boolean>(argv.length + 1).fill(false);
    const glob = !w.dynamic && GLOB_CHARS.test(w.value) ? globRegex(w.value) : null;
    for (let j = ai; j <= argv.length; j++) {
      if (!reach[j]) continue;
      if (w.dynamic) {
        for (let e = j; e <= argv.length; e++) next[e] = true;
        break;
      }
      if (j < argv.length && sameWord(w.value, argv[j]!, options.home)) next[j + 1] = true;
      if (glob) for (let e = j; e < argv.length && glob.test(argv[e]!); e++) next[e + 1] = true;
    }
    reach = next;
  }
  return reach[argv.length]!;
}

/** Whether some view of this part accounts for the argv. */
export function partAccountsFor(part: CommandPart, argv: readonly string[], options: AccountOptions): boolean {
  if (wordsAccountFor(part.words, argv, options)) return true;
  return part.views.some((v) => wordsAccountFor(v.words, argv, options));
}

/** The oracle's verdict on one run. */
export function oracleVerdict(analysis: CommandAnalysis, ran: readonly string[][], options: AccountOptions): OracleVerdict {
  const opaque = analysis.parts.some((p) => p.unknowable !== null);
  const misses = opaque ? [] : ran.filter((argv) => !analysis.parts.some((p) => partAccountsFor(p, argv, options)));
  return { opaque, misses: misses.map((m) => [...m]) };
}

function shownWords(words: readonly ShellWord[]): string {
  return words.map((w) => (w.dynamic ? `<${w.value}>` : JSON.stringify(w.value))).join(' ');
}

/** A readable account of a miss: what ran, and what the engine reported. */
export function describeMisses(command: string, analysis: CommandAnalysis, verdict: OracleVerdict): string {
  const lines = [`the engine does not account for what \`${command}\` ran`];
  for (const argv of verdict.misses) lines.push(`  ran: ${argv.map((a) => JSON.stringify(a)).join(' ')}`);
  lines.push('  the engine reported:');
  if (analysis.parts.length === 0) lines.push('    no parts');
  analysis.parts.forEach((p, i) => {
    lines.push(`    part ${i + 1}: ${JSON.stringify(p.text)}${p.unknowable ? ` (unknowable: ${p.unknowable})` : ''}`);
    for (const v of p.views) lines.push(`      view: ${shownWords(v.words)}${v.wrappers.length ? ` (through ${v.wrappers.join(', ')})` : ''}`);
  });
  return lines.join('\n');
}

export interface OracleRun {
  analysis: CommandAnalysis;
  run: RunResult;
  verdict: OracleVerdict;
}

/** The home folder commands run with in the sandbox. */
export const SANDBOX_HOME = '/home/u';

/** Runs `command` in the sandbox and checks the engine's analysis of it against what ran. */
export async function runOracle(sandbox: Sandbox, command: string, shell = 'bash'): Promise<OracleRun> {
  const run = await sandbox.run(command, shell);
  const analysis = analyzeCommand(command);
  return { analysis, run, verdict: oracleVerdict(analysis, run.ran, { home: SANDBOX_HOME }) };
}

/** Throws a readable error when the engine does not account for what `command` ran. */
export async function expectOracle(sandbox: Sandbox, command: string, shell = 'bash'): Promise<OracleRun> {
  const result = await runOracle(sandbox, command, shell);
  if (result.verdict.misses.length > 0) throw new Error(describeMisses(command, result.analysis, result.verdict));
  return result;
}
