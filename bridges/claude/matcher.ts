/**
 * Claude Code's hook matchers: trimmed; absent, empty or `*` matches everything; a value made only
 * of letters, digits, `_`, `-`, space, `,` and `|` is a list of exact names (split on `|` and `,`);
 * anything else is an unanchored, case-sensitive JavaScript RegExp. A pattern JavaScript rejects
 * (inline flags such as `(?i)`) never matches. FileChanged and StopFailure use the narrower exact
 * set of letters, digits, `_` and `|`. A value past MAX_MATCHER_INPUT never matches.
 */
import { checkRegex, compileRegex, type AgentMatcherOptions } from '../../engine/index.js';
import { ALL, exact, invalid, MAX_MATCHER_INPUT, type AgentMatcher } from '../common/matcher.js';

const CLAUDE_EXACT = /^[A-Za-z0-9_\-, |]+$/;
const CLAUDE_EXACT_NARROW = /^[A-Za-z0-9_|]+$/;

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

export function claudeMatcher(pattern: string | undefined, opts: AgentMatcherOptions = {}): AgentMatcher {
  if (pattern === undefined) return ALL;
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
