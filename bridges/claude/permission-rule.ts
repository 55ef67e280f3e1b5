/**
 * Claude Code permission rules (`Bash(npm run test:*)`, `Read(./.env)`, `Edit(src/**)`,
 * `WebFetch(domain:*.example.com)`, `mcp__github__*`, `Agent(Explore)`, `Bash`), parsed and tested
 * against one tool call. Used for the `if` field of Claude Code hook handlers and for imported
 * `permissions.allow/ask/deny` lists. Pure: no I/O, and nothing here throws, whatever the input.
 *
 * API:
 * - `parseClaudeRule(text)` → `{ rule }` (with `rule.warnings`) or `{ error }` (empty rule,
 *   unbalanced parentheses, text after `)`, an empty or malformed tool name).
 * - `claudeRuleMatches(rule, call, ctx)` → whether the rule matches the call. `ctx.mode` says what
 *   the rule is used for: `if` (hook filter), `allow`, `deny` or `ask`.
 *
 * Tool names: exact (`Task` and `Agent` are aliases of each other); `mcp__server` is every tool of
 * that server; a name with `*` is a glob over the whole name (`mcp__github__*`, `*`). In `allow`,
 * a glob is only honoured after a literal `mcp__<server>__` (otherwise the rule never matches).
 * `Tool(*)` and `Tool()` are `Tool`. A bare name matches only that tool (no tool families).
 *
 * Bash (`Bash(…)` also covers Monitor):
 * - The command is split with the engine's shell analyser into simple commands: `&&`, `||`, `;`,
 *   `|`, `|&`, `&`, newlines, subshells, and commands inside `$()`, backticks and `bash -c '…'`.
 * - `compound: 'any'` (default for `if`, `deny`, `ask`): the rule matches when it matches some
 *   subcommand. `'every'` (default for `allow`): every subcommand must match.
 * - Each subcommand is compared as its words after quote removal, joined by single spaces, with
 *   leading `VAR=value` assignments and redirections removed. The pattern is normalised the same way
 *   (quotes removed, runs of blanks collapsed). `*` matches any run of characters including spaces,
 *   anywhere (also inside quotes); `\*` is a literal star. A final ` *` is a word boundary: `ls *`
 *   matches `ls` and `ls -la`, not `lsof`. A final `:*` means ` *`; a `:` elsewhere is literal.
 * - Wrappers looked through: `timeout`, `time`, `nice`, `nohup`, `stdbuf`, `command`, `builtin`,
 *   `noglob`, and bare `xargs` (no flags). In `allow` only the innermost command is compared; in the
 *   other modes every step (as written, and after each wrapper) is compared, and also the analyser's
 *   wider views (`sudo`, `env`, `exec`, `xargs` with flags, …) and the program's basename
 *   (`/usr/bin/git` → `git`), since matching more is the safe direction for deny, ask and `if`.
 * - `allow`: a subcommand that cannot be analysed, a leading assignment of a variable outside a
 *   small safe list (`NODE_ENV`, `LANG`, …), or a command over 10,000 characters never matches.
 * - `if`: a subcommand that cannot be analysed (unparseable text, `eval`, a computed program) makes
 *   the rule match (fail open). A pattern of more than one word (`git push *`) also matches when the
 *   command contains `$()`, backticks or `$VAR` and some subcommand's program matches the pattern's
 *   first word (`git`).
 * - `Bash(run_in_background:true)`, `Bash(description:…)`, `Bash(timeout:600000)` (but not
 *   `Bash(timeout:*)`, the legacy prefix form) and `Bash(dangerouslyDisableSandbox:true)` are
 *   parameter rules (below).
 *
 * PowerShell: the same shape, compared case-insensitively on the raw text of each subcommand
 * (split on `|`, `;`, `&&`, `||`, newlines outside quotes); the first word is canonicalised through a
 * small alias table (`ls`/`dir`/`gci` → `Get-ChildItem`, …). Unbalanced quotes fail open in `if`.
 *
 * Read and Edit (gitignore-style path globs, see path.ts for `*`, `**`, `?`, `[…]`):
 * - `//abs/x` from the filesystem root; `~/x` from `ctx.home` (never matches without it); `/x` from
 *   `ctx.anchor` (the settings file's anchor directory; `ctx.cwd` when absent); `./x`, `../x` and
 *   `a/b` from `ctx.cwd`; a bare name (`.env`, `*.pem`) at any depth under `ctx.cwd`.
 * - A single-segment directory pattern (`src/**`, `src/`) is `<cwd>/src` in `if` and `allow`, and a
 *   `src` directory at any depth under the cwd in `deny` and `ask`.
 * - In `if`, `deny` and `ask` a rule that matches a directory also matches everything inside it
 *   (gitignore); in `allow` only the path itself is tested.
 * - `Read(…)` covers Read, Grep, Glob, LSP (and NotebookRead); in `deny` it also covers Edit, Write
 *   and MultiEdit. `Edit(…)` covers Edit, Write, NotebookEdit, MultiEdit; in `allow` it also covers
 *   the Read tools. The path is `file_path`, `notebook_path`, `path` or `filePath`; Grep and Glob
 *   without a path use the cwd. Windows paths (`C:\x`) are read as `/c/x`.
 * - Path rules written for Write, NotebookEdit, MultiEdit, Glob, Grep or LSP are never consulted in
 *   `allow`/`deny`/`ask` (a warning says so); in `if` they apply to that one tool.
 *
 * WebFetch(domain:host): the host of `input.url`, case-insensitive, trailing `.` ignored.
 * `*.example.com` matches subdomains at any depth but not `example.com`; a `*` elsewhere matches
 * within one label; `domain:*` is `WebFetch`.
 *
 * Agent (and Task): `Agent(Explore)` matches `input.subagent_type` (`general-purpose` when absent),
 * with `*` as a wildcard. Skill: `Skill(deploy *)` is matched like a Bash pattern against
 * `input.skill` (leading `/` removed) followed by a space and `input.args` when present, or else
 * `input.command` (the legacy SlashCommand shape).
 *
 * Parameter rules `Tool(param:value)`: a top-level scalar field of the input (string, number,
 * boolean) compared as text, `*` a wildcard. Claude Code honours them in deny and ask only: in
 * `allow` they never match; in `if` they do. Primary content fields (`command`, `file_path`, `path`,
 * `notebook_path`, `url`) are rejected with a warning (the rule never matches). A specifier on any
 * other tool that is not `param:value` gives a warning and never matches.
 */
import { domainToASCII } from 'node:url';
import {
  analyzeCommand,
  checkPathGlob,
  codePoints,
  compilePathGlob,
  compileToolGlob,
  computeViews,
  hostOfValue,
  resolveToolPath,
  runNfa,
  type CommandPart,
  type MatchError,
  type NfaStep,
  type PathMatcher,
  type ShellWord,
} from '../../engine/index.js';

// ---------------------------------------------------------------------------------------------
// Public types

/** What a rule is used for: a hook handler's `if` filter, or a permission list. */
export type ClaudeRuleMode = 'if' | 'allow' | 'deny' | 'ask';

/** How a Bash rule treats a compound command: some subcommand, or every subcommand, must match. */
export type ClaudeCompoundMode = 'any' | 'every';

/** How the specifier is read. `inert`: accepted, but never matches (see the rule's warnings). */
export type ClaudeRuleKind = 'tool' | 'bash' | 'powershell' | 'path' | 'domain' | 'param' | 'agent' | 'skill' | 'inert';

export interface ClaudeRule {
  /** The rule text, trimmed. */
  readonly source: string;
  /** The tool-name part as written (`Bash`, `mcp__github__*`). */
  readonly tool: string;
  /** The text between the parentheses, unescaped; null for a bare tool, `Tool(*)` and `Tool()`. */
  readonly specifier: string | null;
  readonly kind: ClaudeRuleKind;
  /** Things Claude Code would warn about at startup (the rule is still usable). */
  readonly warnings: readonly string[];
}

export interface ClaudeRuleParse {
  rule?: ClaudeRule;
  /** Why the text is not a rule; `offset` is 0-based into the text as given. */
  error?: MatchError;
}

export interface ClaudeToolCall {
  tool: string;
  input: Record<string, unknown>;
}

export interface ClaudeRuleContext {
  /** Absolute current directory of the session. */
  cwd: string;
  /** Absolute home directory, for `~/` rules and `~` paths. */
  home?: string;
  /** Directory that `/path` rules are relative to (the settings source's anchor); defaults to cwd. */
  anchor?: string;
  mode: ClaudeRuleMode;
  /** Overrides the compound-command mode (default `every` for allow, `any` otherwise). */
  compound?: ClaudeCompoundMode;
}

// ---------------------------------------------------------------------------------------------
// Character-level patterns shared by Bash, PowerShell, Skill, Agent and parameter rules

const STAR = -1;

/** A pattern as code points, with STAR for a wildcard. */
type Elems = number[];

const anyElement = (): boolean => true;

function toSteps(elems: readonly number[]): NfaStep<number>[] {
  const steps: NfaStep<number>[] = [];
  for (const e of elems) {
    if (e === STAR) {
      if (steps[steps.length - 1]?.repeat !== true) steps.push({ repeat: true, test: anyElement });
    } else {
      steps.push({ repeat: false, test: (cp) => cp === e });
    }
  }
  return steps;
}

/** Every `*` a wildcard, everything else literal. */
function starElems(text: string): Elems {
  return codePoints(text).map((cp) => (cp === 0x2a ? STAR : cp));
}

/** `*` as a wildcard over the whole value. */
function starGlob(text: string): (value: string) => boolean {
  if (!text.includes('*')) return (value) => value === text;
  const steps = toSteps(starElems(text));
  return (value) => runNfa(steps, codePoints(value));
}

interface CommandPattern {
  /** The pattern without a final ` *` (or the whole pattern). */
  readonly head: NfaStep<number>[];
  /** With the final ` *`; null when the pattern has no word-boundary tail. */
  readonly tail: NfaStep<number>[] | null;
  /** The first word, for the `if` dynamic-content fallback. */
  readonly name: NfaStep<number>[];
  readonly words: number;
}

const SPACE = 0x20;

/**
 * Splits a Bash pattern into words with shell quote removal. Quoted text stays literal except `*`,
 * which is a wildcard everywhere; an unquoted `\*` is a literal star. Null on unbalanced quotes.
 */
export function shellPatternWords(src: string): Elems[] | null {
  const words: Elems[] = [];
  let cur: Elems | null = null;
  const cps = codePoints(src);
  const add = (e: number): void => {
    cur ??= [];
    cur.push(e);
  };
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === SPACE || c === 0x09 || c === 0x0a || c === 0x0d) {
      if (cur !== null) words.push(cur);
      cur = null;
    } else if (c === 0x5c /* \ */) {
      if (i + 1 < cps.length) add(cps[++i]!);
      else add(c);
    } else if (c === 0x27 /* ' */) {
      cur ??= [];
      let j = i + 1;
      while (j < cps.length && cps[j] !== 0x27) {
        add(cps[j] === 0x2a ? STAR : cps[j]!);
        j++;
      }
      if (j >= cps.length) return null;
      i = j;
    } else if (c === 0x22 /* " */) {
      cur ??= [];
      let j = i + 1;
      while (j < cps.length && cps[j] !== 0x22) {
        const d = cps[j]!;
        if (d === 0x5c && j + 1 < cps.length && [0x22, 0x5c, 0x24, 0x60].includes(cps[j + 1]!)) {
          add(cps[j + 1]!);
          j += 2;
          continue;
        }
        add(d === 0x2a ? STAR : d);
        j++;
      }
      if (j >= cps.length) return null;
      i = j;
    } else {
      add(c === 0x2a ? STAR : c);
    }
  }
  if (cur !== null) words.push(cur);
  return words;
}

/** Splits at blanks only: every `*` a wildcard. */
export function plainPatternWords(src: string): Elems[] {
  return src
    .split(/\s+/u)
    .filter((w) => w.length > 0)
    .map(starElems);
}

function joinWords(words: readonly Elems[]): Elems {
  const out: Elems = [];
  words.forEach((w, k) => {
    if (k > 0) out.push(SPACE);
    for (const e of w) out.push(e);
  });
  return out;
}

/** A final `:*` becomes ` *`. */
export function colonStar(spec: string): string {
  const text = spec.trim();
  return text.endsWith(':*') ? text.slice(0, -2) + ' *' : text;
}

/** Compiles a command-style pattern (`npm run test:*`, `git * main`, `ls *`). */
function compileCommandPattern(spec: string, quoteRemoval: boolean): CommandPattern {
  const text = colonStar(spec);
  const words = (quoteRemoval ? shellPatternWords(text) : null) ?? plainPatternWords(text);
  const last = words[words.length - 1];
  const boundary = words.length > 1 && last !== undefined && last.length === 1 && last[0] === STAR;
  const headWords = boundary ? words.slice(0, -1) : words;
  return {
    head: toSteps(joinWords(headWords)),
    tail: boundary ? toSteps(joinWords(words)) : null,
    name: toSteps(words[0] ?? []),
    words: words.length,
  };
}

function commandPatternTest(p: CommandPattern, text: string): boolean {
  const cps = codePoints(text);
  return runNfa(p.head, cps) || (p.tail !== null && runNfa(p.tail, cps));
}

// ---------------------------------------------------------------------------------------------
// Bash

/** Wrappers Claude Code strips before matching (bare `xargs` and `noglob` are handled apart). */
const CLAUDE_WRAPPERS: ReadonlySet<string> = new Set(['timeout', 'time', 'nice', 'nohup', 'stdbuf', 'command', 'builtin']);

/** Leading assignments an allow rule looks past (a guess at Claude Code's "known-safe" list). */
const SAFE_ENV_VARS: ReadonlySet<string> = new Set([
  'GOEXPERIMENT', 'GOOS', 'GOARCH', 'CGO_ENABLED', 'GO111MODULE', 'RUST_BACKTRACE', 'RUST_LOG', 'NODE_ENV',
  'PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE', 'PYTEST_DISABLE_PLUGIN_AUTOLOAD', 'PYTEST_DEBUG', 'LANG',
  'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_TIME', 'CHARSET', 'TERM', 'COLORTERM', 'NO_COLOR', 'FORCE_COLOR', 'TZ',
  'LS_COLORS', 'LSCOLORS', 'GREP_COLOR', 'GREP_COLORS', 'GCC_COLORS', 'TIME_STYLE', 'BLOCK_SIZE', 'BLOCKSIZE',
]);

/** Claude Code prompts for longer commands whatever the rules say. */
const MAX_ALLOW_COMMAND = 10_000;

const MAX_CHAIN = 32;

/** The command as written, then after each wrapper Claude Code strips, outermost first. */
function claudeChain(words: ShellWord[]): ShellWord[][] {
  const chain: ShellWord[][] = [words];
  let cur = words;
  for (let n = 0; n < MAX_CHAIN; n++) {
    const first = cur[0];
    if (first === undefined || first.dynamic) break;
    const name = first.value;
    let next: ShellWord[] | null = null;
    if (name === 'noglob') next = cur.slice(1);
    else if (name === 'xargs') {
      const arg = cur[1];
      if (arg !== undefined && (arg.dynamic || !arg.value.startsWith('-'))) next = cur.slice(1);
    } else if (CLAUDE_WRAPPERS.has(name)) {
      const views = computeViews(cur).views;
      if (views.length >= 2) next = views[1]!.words;
    }
    if (next === null || next.length === 0) break;
    chain.push(next);
    cur = next;
  }
  return chain;
}

function wordsText(words: readonly ShellWord[]): string {
  return words.map((w) => w.value).join(' ');
}

function basenameOf(value: string): string | null {
  const slash = value.lastIndexOf('/');
  if (slash < 0 || slash === value.length - 1) return null;
  return value.slice(slash + 1);
}

/** The word lists a subcommand is compared as, for a mode. */
function candidates(part: CommandPart, mode: ClaudeRuleMode): ShellWord[][] {
  const chain = claudeChain(part.words);
  if (mode === 'allow') return [chain[chain.length - 1]!];
  const out: ShellWord[][] = [...chain];
  // the readings dshpolicy adds of its own (xargs's appended words, bash's `time`) are not claude code's
  for (const view of part.views.slice(1)) if (view.alternate !== true) out.push(...claudeChain(view.words));
  const withBase: ShellWord[][] = [];
  for (const words of out) {
    const first = words[0];
    const base = first !== undefined && !first.dynamic ? basenameOf(first.value) : null;
    if (base !== null) withBase.push([{ value: base, dynamic: false }, ...words.slice(1)]);
  }
  return [...out, ...withBase];
}

const ASSIGNMENT = /[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/y;

/**
 * The names of a part's leading assignments, or null when they cannot be read with confidence
 * (then an allow rule does not match).
 */
function leadingAssignments(part: CommandPart): string[] | null {
  const text = part.text;
  const names: string[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    ASSIGNMENT.lastIndex = i;
    const m = ASSIGNMENT.exec(text);
    if (m === null) break;
    names.push(m[0].replace(/(?:\[[^\]]*\])?\+?=$/u, ''));
    i += m[0].length;
    let depth = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (depth === 0 && (c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '&' || c === '|')) break;
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === "'") {
        const j = text.indexOf("'", i + 1);
        if (j < 0) return null;
        i = j + 1;
        continue;
      }
      if (c === '"') {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        if (j >= text.length) return null;
        i = j + 1;
        continue;
      }
      if (c === '(') depth++;
      else if (c === ')') {
        if (depth === 0) return null;
        depth--;
      }
      i++;
    }
  }
  // Something else (a redirection, quoting) before the program: not read with confidence.
  const first = part.words[0];
  if (first !== undefined && !text.startsWith(first.value, i)) return null;
  return names;
}

const DYNAMIC_TEXT = /\$\(|`|\$[A-Za-z_{]/u;

function bashMatches(p: CommandPattern, command: unknown, mode: ClaudeRuleMode, compound: ClaudeCompoundMode): boolean {
  if (typeof command !== 'string') return mode === 'if';
  if (mode === 'allow' && command.length > MAX_ALLOW_COMMAND) return false;
  const parts = analyzeCommand(command).parts;
  if (parts.length === 0) return false;
  let dynamic: boolean | null = null;
  const isDynamic = (): boolean =>
    (dynamic ??= DYNAMIC_TEXT.test(command) || parts.some((part) => part.words.some((w) => w.dynamic)));
  const partMatches = (part: CommandPart): boolean => {
    if (part.unknowable !== null) {
      if (mode === 'if') return true;
      if (mode === 'allow') return false;
    }
    if (mode === 'allow') {
      const names = leadingAssignments(part);
      if (names === null || names.some((n) => !SAFE_ENV_VARS.has(n))) return false;
    }
    const lists = candidates(part, mode);
    if (lists.some((words) => commandPatternTest(p, wordsText(words)))) return true;
    if (mode === 'if' && p.words > 1 && isDynamic()) {
      return lists.some((words) => {
        const first = words[0];
        return first !== undefined && !first.dynamic && runNfa(p.name, codePoints(first.value));
      });
    }
    return false;
  };
  return compound === 'every' ? parts.every(partMatches) : parts.some(partMatches);
}

// ---------------------------------------------------------------------------------------------
// PowerShell

const PS_ALIASES: Readonly<Record<string, string>> = {
  ls: 'get-childitem', dir: 'get-childitem', gci: 'get-childitem',
  cat: 'get-content', gc: 'get-content', type: 'get-content',
  rm: 'remove-item', del: 'remove-item', erase: 'remove-item', rd: 'remove-item', rmdir: 'remove-item', ri: 'remove-item',
  cp: 'copy-item', copy: 'copy-item', cpi: 'copy-item',
  mv: 'move-item', move: 'move-item', mi: 'move-item',
  echo: 'write-output', write: 'write-output',
  cd: 'set-location', sl: 'set-location', chdir: 'set-location',
  pwd: 'get-location', gl: 'get-location',
  iwr: 'invoke-webrequest', curl: 'invoke-webrequest', wget: 'invoke-webrequest',
  irm: 'invoke-restmethod', iex: 'invoke-expression',
  ni: 'new-item', sc: 'set-content', ac: 'add-content', sls: 'select-string',
  ps: 'get-process', gps: 'get-process', kill: 'stop-process', spps: 'stop-process',
  start: 'start-process', saps: 'start-process',
};

/** Lowercases, collapses blanks and canonicalises the first word. */
function normalizePowerShell(text: string): string {
  const words = text.trim().toLowerCase().split(/\s+/u).filter((w) => w.length > 0);
  const first = words[0];
  if (first !== undefined && Object.hasOwn(PS_ALIASES, first)) words[0] = PS_ALIASES[first]!;
  return words.join(' ');
}

/** Splits on `|`, `;`, `&&`, `||` and newlines outside quotes; `ok` false on an unclosed quote. */
function splitPowerShell(command: string): { parts: string[]; ok: boolean } {
  const parts: string[] = [];
  let cur = '';
  let quote: string | null = null;
  const push = (): void => {
    if (cur.trim().length > 0) parts.push(cur);
    cur = '';
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote !== null) {
      cur += c;
      if (c === '`' && quote === '"' && i + 1 < command.length) cur += command[++i]!;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      cur += c;
    } else if (c === '`' && i + 1 < command.length) {
      cur += c + command[++i]!;
    } else if ((c === '&' && command[i + 1] === '&') || (c === '|' && command[i + 1] === '|')) {
      push();
      i++;
    } else if (c === '|' || c === ';' || c === '\n' || c === '\r') {
      push();
    } else {
      cur += c;
    }
  }
  push();
  return { parts, ok: quote === null };
}

function powerShellMatches(p: CommandPattern, command: unknown, mode: ClaudeRuleMode, compound: ClaudeCompoundMode): boolean {
  if (typeof command !== 'string') return mode === 'if';
  if (mode === 'allow' && command.length > MAX_ALLOW_COMMAND) return false;
  const { parts, ok } = splitPowerShell(command);
  if (!ok) {
    if (mode === 'if') return true;
    if (mode === 'allow') return false;
  }
  if (parts.length === 0) return false;
  const test = (part: string): boolean => commandPatternTest(p, normalizePowerShell(part));
  return compound === 'every' ? parts.every(test) : parts.some(test);
}

// ---------------------------------------------------------------------------------------------
// Paths

type PathAnchor = 'root' | 'home' | 'anchor' | 'cwd';

interface PathRule {
  readonly anchor: PathAnchor;
  /** The glob for `if` and `allow`. */
  readonly near: PathMatcher;
  /** The glob for `deny` and `ask` (differs only for single-segment directory patterns). */
  readonly far: PathMatcher;
}

/** Translates a Claude Code path pattern to path.ts globs, and reports glob problems. */
function compilePath(spec: string, warnings: string[]): PathRule {
  let anchor: PathAnchor;
  let near: string;
  let far: string;
  if (spec.startsWith('//')) {
    anchor = 'root';
    near = far = spec.slice(1);
  } else if (spec === '~' || spec.startsWith('~/')) {
    anchor = 'home';
    near = far = spec;
  } else if (spec.startsWith('/')) {
    anchor = 'anchor';
    near = far = '.' + spec;
  } else {
    anchor = 'cwd';
    const trimmed = spec.endsWith('/') ? spec.slice(0, -1) : spec;
    const segments = trimmed.split('/');
    const first = segments[0] ?? '';
    if (first === '.' || first === '..' || first === '**') {
      near = far = first === '**' ? './' + spec : spec;
    } else if (segments.length === 1) {
      if (spec.endsWith('/')) {
        // `src/`: a single-segment directory pattern
        near = './' + spec;
        far = './**/' + spec;
      } else {
        near = far = './**/' + spec;
      }
    } else if (segments.slice(1).every((s) => s === '**' || s === '')) {
      near = './' + spec;
      far = './**/' + spec;
    } else {
      near = far = './' + spec;
    }
  }
  const problem = checkPathGlob(near) ?? checkPathGlob(far);
  if (problem !== null) warnings.push(`path pattern \`${spec}\`: ${problem.message}`);
  return { anchor, near: compilePathGlob(near), far: near === far ? compilePathGlob(near) : compilePathGlob(far) };
}

const NO_HOME = '/\u0000no-home';

/** `C:\Users\x` → `/c/Users/x`; other backslashes become slashes only in such drive paths. */
function posixPath(path: string): string {
  const m = /^([A-Za-z]):[\\/]/u.exec(path);
  if (m === null) return path;
  return '/' + m[1]!.toLowerCase() + '/' + path.slice(3).replace(/\\/gu, '/');
}

const PATH_FIELDS = ['file_path', 'notebook_path', 'path', 'filePath'] as const;
const CWD_DEFAULT_TOOLS: ReadonlySet<string> = new Set(['Grep', 'Glob', 'LS']);

function toolPath(tool: string, input: Record<string, unknown>): string | null {
  for (const field of PATH_FIELDS) {
    if (Object.hasOwn(input, field)) {
      const v = input[field];
      if (typeof v === 'string' && v.length > 0) return v;
    }
  }
  return CWD_DEFAULT_TOOLS.has(tool) ? '.' : null;
}

function pathMatches(rule: PathRule, call: ClaudeToolCall, ctx: ClaudeRuleContext): boolean {
  const raw = toolPath(call.tool, call.input);
  if (raw === null) return false;
  const cwd = typeof ctx.cwd === 'string' && ctx.cwd.length > 0 ? posixPath(ctx.cwd) : '/';
  const home = typeof ctx.home === 'string' && ctx.home.length > 0 ? posixPath(ctx.home) : null;
  if (rule.anchor === 'home' && home === null) return false;
  const anchorDir = typeof ctx.anchor === 'string' && ctx.anchor.length > 0 ? posixPath(ctx.anchor) : cwd;
  const absolute = resolveToolPath(posixPath(raw), { cwd, home: home ?? NO_HOME });
  const globCtx = { cwd: rule.anchor === 'anchor' ? anchorDir : cwd, home: home ?? NO_HOME };
  const far = ctx.mode === 'deny' || ctx.mode === 'ask';
  const matcher = far ? rule.far : rule.near;
  if (matcher.test(absolute, globCtx)) return true;
  if (ctx.mode === 'allow') return false;
  // gitignore: a matched directory takes everything inside it along
  let dir = absolute;
  for (let n = 0; n < 4096; n++) {
    const slash = dir.lastIndexOf('/');
    if (slash <= 0) break;
    dir = dir.slice(0, slash);
    if (matcher.test(dir, globCtx)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Domains

/** `*.example.com` (any depth below, not the apex), `*` within one label elsewhere. */
function compileDomain(spec: string): (host: string) => boolean {
  const glob = spec.trim().toLowerCase().replace(/\.$/u, '');
  if (glob === '*') return () => true;
  const labels = glob.split('.').map((l) => starGlob(/^[\x00-\x7f]*$/u.test(l) || l.includes('*') ? l : domainToASCII(l) || l));
  if (glob.startsWith('*.')) {
    const suffix = labels.slice(1);
    return (host) => {
      const hl = host.split('.');
      if (hl.length <= suffix.length) return false;
      const tail = hl.slice(hl.length - suffix.length);
      return tail.every((l, k) => suffix[k]!(l));
    };
  }
  return (host) => {
    const hl = host.split('.');
    return hl.length === labels.length && hl.every((l, k) => labels[k]!(l));
  };
}

function domainMatches(test: (host: string) => boolean, url: unknown): boolean {
  if (typeof url !== 'string') return false;
  const host = hostOfValue(url);
  return host !== null && test(host);
}

// ---------------------------------------------------------------------------------------------
// Parameters

function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

function paramMatches(name: string, test: (v: string) => boolean, input: Record<string, unknown>): boolean {
  if (!Object.hasOwn(input, name)) return false;
  const text = scalarText(input[name]);
  return text !== null && test(text);
}

// ---------------------------------------------------------------------------------------------
// Tool names and families

type Family = 'bash' | 'powershell' | 'read' | 'edit' | null;

const READ_TOOLS: ReadonlySet<string> = new Set(['Read', 'Grep', 'Glob', 'LSP', 'NotebookRead']);
const EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'NotebookEdit', 'MultiEdit']);
/** Tools a `Read` deny also blocks (not NotebookEdit). */
const READ_DENY_EXTRA: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit']);
const BASH_TOOLS: ReadonlySet<string> = new Set(['Bash', 'Monitor']);

/** Path rules Claude Code accepts but never consults (in `if`, they apply to that tool). */
export const UNCONSULTED_PATH_TOOLS: ReadonlySet<string> = new Set(['Write', 'NotebookEdit', 'MultiEdit', 'Glob', 'Grep', 'LSP']);

export const PRIMARY_FIELDS: ReadonlySet<string> = new Set(['command', 'file_path', 'path', 'notebook_path', 'url']);

/** `name:value` specifiers read as parameter rules for tools whose specifier is otherwise a pattern. */
export const KNOWN_PARAMS: Readonly<Record<string, ReadonlySet<string>>> = {
  Bash: new Set(['run_in_background', 'description', 'timeout', 'dangerouslyDisableSandbox']),
  Monitor: new Set(['run_in_background', 'description', 'timeout']),
  PowerShell: new Set(['run_in_background', 'description', 'timeout', 'dangerouslyDisableSandbox']),
  Read: new Set(['offset', 'limit', 'pages']),
  Edit: new Set(['old_string', 'new_string', 'replace_all']),
  Agent: new Set(['model', 'description', 'prompt', 'run_in_background', 'isolation', 'name', 'team_name', 'mode', 'subagent_type']),
};

export const PARAM_RULE = /^([A-Za-z_][A-Za-z0-9_-]*):([\s\S]*)$/u;

interface Compiled {
  toolTest: (tool: string) => boolean;
  /** Literal rule tool name after aliasing (`Task` → `Agent`), or null for globs and server rules. */
  literal: string | null;
  /** False for allow-mode tool globs that Claude Code skips. */
  allowable: boolean;
  family: Family;
  /** Path rules only honoured in `if` (Write(...) and friends). */
  ifOnly: boolean;
  spec:
    | { kind: 'tool' }
    | { kind: 'inert' }
    | { kind: 'bash' | 'powershell'; pattern: CommandPattern }
    | { kind: 'path'; rule: PathRule }
    | { kind: 'domain'; test: (host: string) => boolean }
    | { kind: 'param'; name: string; test: (v: string) => boolean }
    | { kind: 'agent'; test: (v: string) => boolean }
    | { kind: 'skill'; pattern: CommandPattern };
}

const compiledRules = new WeakMap<ClaudeRule, Compiled>();

const TOOL_NAME = /^[A-Za-z0-9_.*-]+$/u;

function canonicalTool(name: string): string {
  return name === 'Task' ? 'Agent' : name;
}

function compileToolName(name: string, warnings: string[]): Pick<Compiled, 'toolTest' | 'literal' | 'allowable'> {
  if (name.includes('*')) {
    const glob = compileToolGlob(name);
    const allowable = /^mcp__[^*]+?__/u.test(name) && !name.slice(5).split('__')[0]!.includes('*');
    if (!allowable) warnings.push(`tool glob \`${name}\` is skipped in allow rules (write \`mcp__<server>__…\` first)`);
    return { toolTest: (tool) => glob.test(tool), literal: null, allowable };
  }
  if (name.startsWith('mcp__') && name.length > 5 && !name.slice(5).includes('__')) {
    return { toolTest: (tool) => tool === name || tool.startsWith(name + '__'), literal: null, allowable: true };
  }
  const canonical = canonicalTool(name);
  return { toolTest: (tool) => canonicalTool(tool) === canonical, literal: canonical, allowable: true };
}

function compileSpec(literal: string | null, spec: string, warnings: string[]): Pick<Compiled, 'family' | 'ifOnly' | 'spec'> {
  const tool = literal ?? '';
  // `scheme://…` is a URL, not `param:value`
  const param = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//u.test(spec) ? null : PARAM_RULE.exec(spec);
  const known = KNOWN_PARAMS[tool];
  const asParam = (): Pick<Compiled, 'family' | 'ifOnly' | 'spec'> => {
    const name = param![1]!;
    if (PRIMARY_FIELDS.has(name)) {
      warnings.push(`\`${name}\` is the tool's primary content field and cannot be used in a \`param:value\` rule`);
      return { family: null, ifOnly: false, spec: { kind: 'inert' } };
    }
    return { family: null, ifOnly: false, spec: { kind: 'param', name, test: starGlob(param![2]!) } };
  };
  if (tool === 'Bash' || tool === 'Monitor' || tool === 'PowerShell') {
    if (param !== null && known?.has(param[1]!) && !(param[1] === 'timeout' && param[2] === '*')) return asParam();
    const ps = tool === 'PowerShell';
    return {
      family: ps ? 'powershell' : 'bash',
      ifOnly: false,
      spec: { kind: ps ? 'powershell' : 'bash', pattern: compileCommandPattern(ps ? normalizePowerShell(colonStar(spec)) : spec, !ps) },
    };
  }
  if (tool === 'Read' || tool === 'Edit') {
    if (param !== null && known?.has(param[1]!)) return asParam();
    return { family: tool === 'Read' ? 'read' : 'edit', ifOnly: false, spec: { kind: 'path', rule: compilePath(spec, warnings) } };
  }
  if (UNCONSULTED_PATH_TOOLS.has(tool)) {
    if (param !== null && !PRIMARY_FIELDS.has(param[1]!)) return asParam();
    warnings.push(`path rules written for \`${tool}\` are never consulted by Claude Code permissions; write \`${READ_TOOLS.has(tool) ? 'Read' : 'Edit'}(…)\` (in \`if\` it applies to ${tool} only)`);
    return { family: null, ifOnly: true, spec: { kind: 'path', rule: compilePath(spec, warnings) } };
  }
  if (tool === 'WebFetch') {
    if (param !== null && param[1] === 'domain') {
      const domain = param[2]!.trim();
      if (domain.length === 0) {
        warnings.push('`domain:` names no host; this rule never matches');
        return { family: null, ifOnly: false, spec: { kind: 'inert' } };
      }
      return { family: null, ifOnly: false, spec: domain === '*' ? { kind: 'tool' } : { kind: 'domain', test: compileDomain(domain) } };
    }
    if (param !== null) return asParam();
    warnings.push('WebFetch rules take `domain:host`; this rule never matches');
    return { family: null, ifOnly: false, spec: { kind: 'inert' } };
  }
  if (tool === 'Agent') {
    if (param !== null && known?.has(param[1]!)) return asParam();
    return { family: null, ifOnly: false, spec: { kind: 'agent', test: starGlob(spec) } };
  }
  if (tool === 'Skill') {
    return { family: null, ifOnly: false, spec: { kind: 'skill', pattern: compileCommandPattern(spec.replace(/^\//u, ''), false) } };
  }
  if (param !== null) return asParam();
  warnings.push(`\`${literal ?? 'this tool'}\` rules take no specifier other than \`param:value\`; this rule never matches`);
  return { family: null, ifOnly: false, spec: { kind: 'inert' } };
}

/** Finds the specifier between the first `(` and a final `)`, checking balance. */
function splitRule(text: string, base: number): { tool: string; spec: string | null } | { error: MatchError } {
  const open = text.indexOf('(');
  if (open < 0) {
    const close = text.indexOf(')');
    if (close >= 0) return { error: { message: 'unbalanced parentheses: `)` without `(`', offset: base + close } };
    return { tool: text, spec: null };
  }
  if (!text.endsWith(')')) {
    return { error: { message: 'unbalanced parentheses: the rule must end with `)`', offset: base + text.length } };
  }
  const inner = text.slice(open + 1, -1);
  // Balance, ignoring escaped parentheses and quoted text.
  let depth = 0;
  let quote: string | null = null;
  let at = -1;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote !== null) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(') {
      if (depth === 0) at = i;
      depth++;
    } else if (c === ')') {
      depth--;
      if (depth < 0) return { error: { message: 'unbalanced parentheses: `)` closes the rule early', offset: base + open + 1 + i } };
    }
  }
  if (depth !== 0 && quote === null) {
    return { error: { message: 'unbalanced parentheses: `(` is never closed', offset: base + open + 1 + at } };
  }
  const spec = inner.replace(/\\([()])/gu, '$1');
  return { tool: text.slice(0, open), spec };
}

function build(text: string): { rule: ClaudeRule; compiled: Compiled } | { error: MatchError } {
  if (typeof text !== 'string') return { error: { message: 'a rule must be a string', offset: 0 } };
  const lead = text.length - text.trimStart().length;
  const source = text.trim();
  if (source.length === 0) return { error: { message: 'empty rule', offset: 0 } };
  const split = splitRule(source, lead);
  if ('error' in split) return split;
  const tool = split.tool.trim();
  if (tool.length === 0) return { error: { message: 'empty tool name before `(`', offset: lead } };
  if (!TOOL_NAME.test(tool)) {
    const bad = [...tool].findIndex((ch) => !/^[A-Za-z0-9_.*-]$/u.test(ch));
    return {
      error: {
        message: 'a tool name has only letters, digits, `_`, `-`, `.` and `*`',
        offset: lead + (split.tool.length - split.tool.trimStart().length) + Math.max(0, bad),
      },
    };
  }
  const warnings: string[] = [];
  const specText = split.spec === null ? null : split.spec.trim();
  const bare = specText === null || specText === '' || specText === '*';
  if (specText === '') warnings.push(`\`${tool}()\` has an empty specifier; it means \`${tool}\``);
  const names = compileToolName(tool, warnings);
  const specPart: Pick<Compiled, 'family' | 'ifOnly' | 'spec'> = bare
    ? { family: null, ifOnly: false, spec: { kind: 'tool' } }
    : compileSpec(names.literal, specText, warnings);
  const compiled: Compiled = { ...names, ...specPart };
  const rule: ClaudeRule = Object.freeze({
    source,
    tool,
    specifier: bare ? null : specText,
    kind: compiled.spec.kind,
    warnings: Object.freeze(warnings),
  });
  return { rule, compiled };
}

// ---------------------------------------------------------------------------------------------
// API

/** Parses one rule string (`Bash(npm run test:*)`, `Read(./.env)`, `mcp__github`). Never throws. */
export function parseClaudeRule(text: string): ClaudeRuleParse {
  try {
    const built = build(text);
    if ('error' in built) return { error: built.error };
    compiledRules.set(built.rule, built.compiled);
    return { rule: built.rule };
  } catch {
    return { error: { message: 'the rule could not be parsed', offset: 0 } };
  }
}

/** Whether a rule of a tool family (Bash, PowerShell, Read, Edit) applies to a call of `tool` in a mode. */
function familyCovers(c: Compiled, tool: string, mode: ClaudeRuleMode): boolean {
  switch (c.family) {
    case 'bash':
      return BASH_TOOLS.has(tool);
    case 'powershell':
      return tool === 'PowerShell';
    case 'read':
      return READ_TOOLS.has(tool) || (mode === 'deny' && READ_DENY_EXTRA.has(tool));
    case 'edit':
      return EDIT_TOOLS.has(tool) || (mode === 'allow' && READ_TOOLS.has(tool));
    default:
      return c.toolTest(tool);
  }
}

/**
 * Whether `rule` matches a tool call, for the given use (`ctx.mode`). Never throws; on an
 * unexpected internal failure it returns true in `if` mode (fail open) and false otherwise.
 */
export function claudeRuleMatches(rule: ClaudeRule, call: ClaudeToolCall, ctx: ClaudeRuleContext): boolean {
  const mode: ClaudeRuleMode = ctx !== null && typeof ctx === 'object' && ['if', 'allow', 'deny', 'ask'].includes(ctx.mode) ? ctx.mode : 'deny';
  try {
    if (rule === null || typeof rule !== 'object' || call === null || typeof call !== 'object') return false;
    let compiled = compiledRules.get(rule);
    if (compiled === undefined) {
      const built = build(rule.source);
      if ('error' in built) return false;
      compiled = built.compiled;
      compiledRules.set(rule, compiled);
    }
    const tool = call.tool;
    if (typeof tool !== 'string') return false;
    const input: Record<string, unknown> =
      call.input !== null && typeof call.input === 'object' && !Array.isArray(call.input) ? call.input : {};
    if (mode === 'allow' && !compiled.allowable) return false;
    const spec = compiled.spec;
    const compound: ClaudeCompoundMode =
      ctx.compound === 'any' || ctx.compound === 'every' ? ctx.compound : mode === 'allow' ? 'every' : 'any';
    switch (spec.kind) {
      case 'tool':
        return compiled.toolTest(tool);
      case 'inert':
        return false;
      case 'bash':
        return familyCovers(compiled, tool, mode) && bashMatches(spec.pattern, input['command'], mode, compound);
      case 'powershell':
        return familyCovers(compiled, tool, mode) && powerShellMatches(spec.pattern, input['command'], mode, compound);
      case 'path':
        if (compiled.ifOnly) return mode === 'if' && compiled.toolTest(tool) && pathMatches(spec.rule, { tool, input }, { ...ctx, mode });
        return familyCovers(compiled, tool, mode) && pathMatches(spec.rule, { tool, input }, { ...ctx, mode });
      case 'domain':
        return compiled.toolTest(tool) && domainMatches(spec.test, input['url']);
      case 'param':
        return mode !== 'allow' && compiled.toolTest(tool) && paramMatches(spec.name, spec.test, input);
      case 'agent': {
        if (!compiled.toolTest(tool)) return false;
        const type = Object.hasOwn(input, 'subagent_type') ? input['subagent_type'] : undefined;
        const name = type === undefined || type === null || type === '' ? 'general-purpose' : type;
        return typeof name === 'string' && spec.test(name);
      }
      case 'skill': {
        if (!compiled.toolTest(tool)) return false;
        const text = skillText(input);
        return text !== null && commandPatternTest(spec.pattern, text);
      }
      default:
        return false;
    }
  } catch {
    return mode === 'if';
  }
}

/** `skill args` (leading `/` removed), or the legacy `command` field. */
function skillText(input: Record<string, unknown>): string | null {
  const skill = Object.hasOwn(input, 'skill') ? input['skill'] : undefined;
  if (typeof skill === 'string' && skill.length > 0) {
    const args = Object.hasOwn(input, 'args') ? input['args'] : undefined;
    const name = skill.replace(/^\//u, '');
    return typeof args === 'string' && args.trim().length > 0 ? `${name} ${args.trim()}` : name;
  }
  const command = Object.hasOwn(input, 'command') ? input['command'] : undefined;
  if (typeof command === 'string' && command.length > 0) return command.trim().replace(/^\//u, '');
  return null;
}
