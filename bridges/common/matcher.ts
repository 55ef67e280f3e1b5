/**
 * What the agents' hook-matcher dialects share: the matchers that take every value, a list of
 * exact names, or nothing; and the length past which a value never matches. A matcher is only
 * ever tested against short values (tool names, session sources, triggers), never against tool
 * input, so it cannot be turned into a regex denial of service. Each dialect is in its agent's
 * folder (claude/matcher.ts, codex/matcher.ts).
 */
import { MAX_MATCHER_INPUT, type AgentMatcher } from '../../engine/index.js';

export { MAX_MATCHER_INPUT, type AgentMatcher };

export const ALL: AgentMatcher = { kind: 'all', test: () => true };

export function exact(names: string[]): AgentMatcher {
  const set = new Set(names.filter((n) => n.length > 0));
  return { kind: 'exact', test: (v) => set.has(v) };
}

export function invalid(error: string): AgentMatcher {
  return { kind: 'invalid', error, test: () => false };
}
