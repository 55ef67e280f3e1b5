/**
 * Matchers: tool-name globs, gitignore-style path globs, URL and domain globs, and RE2 regexes.
 *
 * Nothing here throws, whatever the input, and every matcher runs in time linear in the tested
 * value (globs are simulated as automata, never turned into backtracking regexes; regexes use RE2).
 * The exact semantics of each kind are documented in glob.ts (tools), path.ts, url.ts (URLs and
 * domains) and engine/regex/regex.ts.
 */
import { checkToolGlob } from './glob.js';
import { checkPathGlob } from './path.js';
import { checkDomainGlob, checkUrlGlob } from './url.js';
import type { GlobKind, MatchError } from './types.js';

export type { GlobKind, MatchError, Matcher, PathContext, PathMatcher } from './types.js';
export { compileToolGlob, codePoints, runNfa, type NfaStep } from './glob.js';
export { checkPathGlob, compilePathGlob, requiredPathKey, resolveToolPath, resolveToolPathSegments, type PathKey } from './path.js';
export {
  compileUrlGlob,
  compileDomainGlob,
  fastHostname,
  hostOfValue,
  parseUrl,
  requiredDomainKey,
  type DomainMatcher,
  type UrlMatcher,
} from './url.js';
export { checkRegex, compileRegex, regexFailures, regexMatches, MAX_REGEX_INPUT } from '../regex/index.js';

/** Validates a glob of the given kind; null when it is fine. */
export function checkGlob(glob: string, kind: GlobKind): MatchError | null {
  try {
    if (typeof glob !== 'string') return { message: 'a glob must be a string', offset: 0 };
    switch (kind) {
      case 'tool':
        return checkToolGlob(glob);
      case 'path':
        return checkPathGlob(glob);
      case 'url':
        return checkUrlGlob(glob);
      case 'domain':
        return checkDomainGlob(glob);
      default:
        return { message: `unknown glob kind ${'`' + String(kind) + '`'}`, offset: 0 };
    }
  } catch {
    return { message: 'glob could not be checked', offset: 0 };
  }
}
