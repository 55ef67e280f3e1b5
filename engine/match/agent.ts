/**
 * Hook matchers in the dialects of the agents whose hooks configurations dshpolicy imports.
 * They are only ever tested against short values (tool names, session sources, triggers), never
 * against tool input, and a value past MAX_MATCHER_INPUT never matches, so a matcher cannot be
 * turned into a regex denial of service.
 *
 * - Claude Code: trimmed; absent, empty or `*` matches everything; a value made only of letters,
 *   digits, `_`, `-`, space, `,` and `|` is a list of exact names (split on `|` and `,`); anything
 *   else is an unanchored, case-sensitive JavaScript RegExp. A pattern JavaScript rejects (inline
 *   flags such as `(?i)`) never matches. FileChanged and StopFailure use the narrower exact set of
 *   letters, digits, `_` and `|`.
 * - Codex: absent, empty or `*` matches everything; only `[A-Za-z0-9_|]` is a list of exact names
 *   split on `|`; anything else is an unanchored Rust-syntax regex, run with RE2 (the same syntax
 *   family, linear time). An invalid pattern never matches (RE2 out of memory is not a verdict: the
 *   pattern is checked again when it is tested). A tool is tested by its canonical name
 *   and then its aliases; one match is enough.
 */
import type { HookDialect } from '../ir.js';
import { checkRegex, compileRegex } from '../regex/index.js';

/** Longest value a matcher is tested against; longer values never match. */
export const MAX_MATCHER_INPUT = 256;

export interface AgentMatcher {
  /** How the pattern is read: every value, a list of exact names, or a regex. */
  readonly kind: 'all' | 'exact' | 'regex' | 'invalid';
  /** For `invalid`: why the agent rejects the pattern (the group never fires). */
  readonly error?: string;
  test(value: string): boolean;
}

export interface AgentMatcherOptions {
  /** Claude Code's narrower exact set (FileChanged, StopFailure). */
  narrow?: boolean;
}

const CLAUDE_EXACT = /^[A-Za-z0-9_\-, |]+$/;
const CLAUDE_EXACT_NARROW = /^[A-Za-z0-9_|]+$/;
const CODEX_EXACT = /^[A-Za-z0-9_|]+$/;

const ALL: AgentMatcher = { kind: 'all', test: () => true };

function exact(names: string[]): AgentMatcher {
  const set = new Set(names.filter((n) => n.length > 0));
  return { kind: 'exact', test: (v) => set.has(v) };
}

function invalid(error: string): AgentMatcher {
  return { kind: 'invalid', error, test: () => false };
}

/**
 * True when RE2 reads the pattern as JavaScript does, for the short one-line values matched here;
 * undefined when RE2 had no memory to tell.
 */
function re2Equivalent(pattern: string): boolean | undefined {
  // Constructs whose meaning differs between the two engines, or that RE2 lacks.
  if (/\\[cuxkpP0-9]|\(\?[=!<]|\[\^?\]|\(\?<[A-Za-z]/.test(pattern)) return false;
  const problem = checkRegex(pattern, '');
  return problem === null ? true : problem.transient === true ? undefined : false;
}

function claudeMatcher(pattern: string, opts: AgentMatcherOptions): AgentMatcher {
  const p = pattern.trim();
  if (p === '' || p === '*') return ALL;
  if ((opts.narrow ? CLAUDE_EXACT_NARROW : CLAUDE_EXACT).test(p)) {
    return exact(p.split(opts.narrow ? /\|/ : /[|,]/).map((s) => s.trim()));
  }
  let js: RegExp;
  try {
    js = new RegExp(p);
  } catch (err) {
    return invalid(`JavaScript rejects the matcher \`${p}\`: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
  }
  // RE2 where it reads the pattern as JavaScript does (linear time), else the JavaScript RegExp;
  // decided at the first test, so a matcher that never meets a value never loads RE2. While RE2
  // has no memory to tell, the JavaScript RegExp (Claude Code's own engine) answers and the choice
  // waits.
  let test: ((v: string) => boolean) | undefined;
  const choose = (): ((v: string) => boolean) | undefined => {
    const same = re2Equivalent(p);
    if (same === undefined) return undefined;
    if (!same) return (v) => js.test(v);
    const re = compileRegex(p, '');
    return (v) => re.test(v);
  };
  return {
    kind: 'regex',
    test: (v) => {
      if (v.length > MAX_MATCHER_INPUT) return false;
      test ??= choose();
      return test !== undefined ? test(v) : js.test(v);
    },
  };
}

function codexMatcher(pattern: string): AgentMatcher {
  if (pattern === '' || pattern === '*') return ALL;
  if (CODEX_EXACT.test(pattern)) return exact(pattern.split('|'));
  const problem = checkRegex(pattern, '');
  // RE2 out of memory says nothing about the pattern: it is checked again at its first test, where
  // a failure fails the event closed (engine/evaluate.ts), rather than silencing the hook for good.
  if (problem && problem.transient !== true) return invalid(`the matcher \`${pattern}\` is not a valid regex: ${problem.message}`);
  const re = compileRegex(pattern, '');
  return { kind: 'regex', test: (v) => v.length <= MAX_MATCHER_INPUT && re.test(v) };
}

export function compileAgentMatcher(dialect: HookDialect, pattern: string | undefined, opts: AgentMatcherOptions = {}): AgentMatcher {
  if (pattern === undefined) return ALL;
  return dialect === 'claude' ? claudeMatcher(pattern, opts) : codexMatcher(pattern);
}

/** Codex tests a tool's canonical name, then its aliases. */
export const CODEX_TOOL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  apply_patch: ['Write', 'Edit'],
  spawn_agent: ['Agent'],
};

/** The values a Codex matcher is tested against for a tool: canonical name first, then aliases. */
export function codexMatcherInputs(tool: string): string[] {
  return [tool, ...(CODEX_TOOL_ALIASES[tool] ?? [])];
}

