/**
 * Shell-command analysis for the `command` selector: splits a command line into simple commands
 * (through && || ; | & newlines, subshells, groups, $( ), backticks, bash -c strings), looks
 * through wrappers, and matches command patterns against the parts.
 *
 * Semantics, as a policy author sees them:
 * - Parts: every simple command is a part, wherever it appears (lists, pipes, subshells, groups,
 *   control-flow bodies, function bodies, `$( )`, backticks, `<( )`, substitutions inside words,
 *   redirection targets, assignments, `[[ ]]`, `(( ))`, and unquoted here-document bodies). The
 *   script of `bash -c` (sh, zsh, dash, ksh, mksh, ash, fish) replaces that part when the shell is
 *   reached as written or through neutral wrappers; behind `sudo`, `doas`, `xargs` or a shell from
 *   an arbitrary path the part stays and the script's parts follow it. Static `eval` arguments and
 *   `find -exec`/`-execdir`/`-ok`/`-okdir` commands also become parts of their own.
 * - Words keep their written value after quote removal. Variables, substitutions, arithmetic and
 *   brace expansion make a word dynamic; globs (`*.txt`) and `~` stay literal text.
 * - Unknowable parts (never allowed): `eval`, a computed program (`$CMD`), a computed `bash -c`
 *   script, `env -S`, more than MAX_SHELL_WRAPPERS wrappers, nesting deeper than MAX_SHELL_DEPTH,
 *   and unparseable text (the commands cut short keep the words read so far).
 * - Views look through sudo, doas, xargs (privileged) and env, nice, nohup, timeout, time,
 *   command, builtin, exec, stdbuf, ionice, chrt (neutral). A wrapper run from a path outside the
 *   system bin directories is never neutral. `command -v`, `sudo -l`/`-e`, `ionice -p`, `chrt -p`
 *   run nothing, so they have no inner view.
 *
 * Layout: chars.ts (character classes, ANSI-C strings), lexer.ts (words, quotes, expansions),
 * parser.ts (lists, keywords, redirections, here-documents), fast.ts (the same analysis for plain
 * simple commands, which the parser hands them to), wrappers.ts (views through wrappers,
 * unknowable parts, `bash -c` scripts), pattern.ts (pattern words and matching). The analysis of
 * every command line in testdata/golden.jsonl.gz is fixed (golden.test.ts).
 */
import { parseCommands } from './parser.js';
import { lexPattern, matchPart, type PatternWord } from './pattern.js';
import type { CommandAnalysis, CommandPart, CommandPattern, PatternError } from './types.js';
import { CAP_REASONS, unknowablePart } from './wrappers.js';
import { programGrammar } from './programs/grammar.js';
import { NESTING_REASON } from './lexer.js';
import { analysisFacts, EVALUATES_REASON, resetFacts } from './facts.js';

export type { CommandAnalysis, CommandPart, CommandPattern, CommandView, PatternError, ShellWord } from './types.js';
export { MAX_SHELL_DEPTH } from './lexer.js';
export { globMatch as wordGlobMatch } from './pattern.js';
export { commandPatternOptionWarning, optionPatternCovers } from './pattern.js';
export { commandPaths, homeRelative, type CommandPaths } from './paths.js';
export { MAX_SHELL_WRAPPERS, MAX_FIND_EXEC, PROGRAMS } from './wrappers.js';

/** Longest command analysed; the text beyond it becomes one unknowable part. */
export const MAX_COMMAND_LENGTH = 1 << 20;

const LENGTH_REASON = 'command longer than 1 MiB';

/** The unknowable reasons that say a cap of the analysis was passed. */
const CAPS: ReadonlySet<string> = new Set([LENGTH_REASON, NESTING_REASON, CAP_REASONS.wrappers, CAP_REASONS.findExec, 'command could not be analysed', 'too complex to analyse']);

/** Splits a command line into its simple commands. Never throws. */
export function analyzeCommand(command: string): CommandAnalysis {
  const text = typeof command === 'string' ? command : String(command);
  try {
    const head = text.length > MAX_COMMAND_LENGTH ? text.slice(0, MAX_COMMAND_LENGTH) : text;
    resetFacts();
    const parts = parseCommands(head, 0);
    if (analysisFacts.evaluates && analysisFacts.riskyValue) parts.push(unknowablePart(head, EVALUATES_REASON));
    if (analysisFacts.zsh !== null) parts.push(unknowablePart(head, analysisFacts.zsh));
    if (analysisFacts.direct !== null) parts.push(unknowablePart(head, analysisFacts.direct));
    if (head.length < text.length) parts.push(unknowablePart(text.slice(MAX_COMMAND_LENGTH), LENGTH_REASON));
    const analysis: CommandAnalysis = { parts };
    for (let i = 0; i < parts.length; i++) {
      const reason = parts[i]!.unknowable;
      if (reason !== null && CAPS.has(reason)) {
        analysis.capped = reason;
        break;
      }
    }
    return analysis;
  } catch {
    return { parts: [unknowablePart(text, 'command could not be analysed')], capped: 'command could not be analysed' };
  }
}

/**
 * The first word of a pattern that should match word by word, as the permission languages of the
 * agents compare words (`git push` never matches `git -C x push` there): a bare program name whose
 * options the programs table reads is quoted (`'git'`), which turns option reading off for the
 * pattern; any other word is returned as it is.
 */
export function exactProgramWord(word: string): string {
  if (!/^[A-Za-z0-9._+/~-]+$/.test(word)) return word;
  // a program by path (`/usr/bin/git`) is read with its basename's options too
  const base = word.slice(word.lastIndexOf('/') + 1);
  return base !== '' && programGrammar(base) !== undefined ? `'${word}'` : word;
}

/** Tools whose `command` is in a shell language other than bash's (Claude Code's `PowerShell`), by name; null for the others. */
export function foreignShellTool(tool: string | undefined): string | null {
  return tool === 'PowerShell' ? 'PowerShell' : null;
}

export { computeViews, unknowablePart } from './wrappers.js';

/** Why the call cannot be fully read (the first unknowable part's reason), or undefined when every part can. */
export function opaqueReason(analysis: CommandAnalysis): string | undefined {
  const parts = analysis.parts;
  for (let i = 0; i < parts.length; i++) {
    const reason = parts[i]!.unknowable;
    if (reason !== null) return reason;
  }
  return undefined;
}

/** Validates a command pattern; null when it is fine. */
export function checkCommandPattern(pattern: string): PatternError | null {
  try {
    if (typeof pattern !== 'string') return { message: 'a command pattern must be a string', offset: 0 };
    return lexPattern(pattern).error;
  } catch {
    return { message: 'command pattern could not be checked', offset: 0 };
  }
}

/** Compiles a pattern (call checkCommandPattern first; an invalid pattern compiles to one that never matches). */
export function compileCommandPattern(pattern: string): CommandPattern {
  try {
    const lexed = lexPattern(pattern);
    return Object.freeze({ source: pattern, words: Object.freeze(lexed.error ? [] : lexed.words) });
  } catch {
    return Object.freeze({ source: String(pattern), words: Object.freeze([]) });
  }
}

/**
 * `any` mode (deny, ask, ran): true when some view of the part matches.
 * `allow` mode: true only when the part is knowable and the as-written view, or a view reached
 * through privilege-neutral wrappers only, matches.
 */
export function matchCommandPart(pattern: CommandPattern, part: CommandPart, mode: 'any' | 'allow'): boolean {
  try {
    return matchPart(pattern.words as readonly PatternWord[], part, mode);
  } catch {
    return false;
  }
}
