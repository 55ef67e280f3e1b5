/**
 * Codex's hook matchers: absent, empty or `*` matches everything; only `[A-Za-z0-9_|]` is a list of
 * exact names; anything else is an RE2 regex. A tool is tested by its canonical name, then by its
 * aliases. A value past MAX_MATCHER_INPUT never matches.
 */
import { checkRegex, compileRegex } from '../../engine/index.js';
import { ALL, exact, invalid, MAX_MATCHER_INPUT, type AgentMatcher } from '../common/matcher.js';

const CODEX_EXACT = /^[A-Za-z0-9_|]+$/;

export function codexMatcher(pattern: string | undefined): AgentMatcher {
  if (pattern === undefined || pattern === '' || pattern === '*') return ALL;
  if (CODEX_EXACT.test(pattern)) return exact(pattern.split('|'));
  const problem = checkRegex(pattern, '');
  // RE2 out of memory says nothing about the pattern: it is checked again at its first test, where
  // a failure fails the event closed (engine/evaluate.ts), rather than silencing the hook for good.
  if (problem && problem.transient !== true) return invalid(`the matcher \`${pattern}\` is not a valid regex: ${problem.message}`);
  const re = compileRegex(pattern, '');
  return { kind: 'regex', test: (v) => v.length <= MAX_MATCHER_INPUT && re.test(v) };
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
