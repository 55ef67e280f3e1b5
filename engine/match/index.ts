/**
 * Matchers: tool-name globs, gitignore-style path globs, URL and domain globs, and RE2 regexes.
 */
export interface MatchError {
  message: string;
  /** 0-based offset into the glob or regex source where the problem is. */
  offset: number;
}

export type GlobKind = 'tool' | 'path' | 'url' | 'domain';

export interface Matcher {
  test(value: string): boolean;
}

/** Validates a glob of the given kind; null when it is fine. */
export function checkGlob(glob: string, kind: GlobKind): MatchError | null {
  throw new Error('not implemented: ' + glob + kind);
}

/** Validates an RE2 regex (flags a subset of `ims`); null when it is fine. */
export function checkRegex(source: string, flags: string): MatchError | null {
  throw new Error('not implemented: ' + source + flags);
}

/** Compiles an RE2 regex. An invalid regex compiles to a matcher that never matches. */
export function compileRegex(source: string, flags: string): Matcher {
  throw new Error('not implemented: ' + source + flags);
}

/** Tool-name glob: `*` matches any run of characters; case-sensitive; whole name. */
export function compileToolGlob(glob: string): Matcher {
  throw new Error('not implemented: ' + glob);
}

export interface PathContext {
  /** Absolute working directory that relative paths and anchored globs resolve against. */
  cwd: string;
  /** Absolute home directory for `~/`. */
  home: string;
}

/** Path glob (gitignore-style), matched against an absolute, normalised path. */
export interface PathMatcher {
  test(absolutePath: string, ctx: PathContext): boolean;
}

export function compilePathGlob(glob: string): PathMatcher {
  throw new Error('not implemented: ' + glob);
}

/** Resolves a tool's path argument against cwd/home and normalises it (`.`/`..`, duplicate slashes). */
export function resolveToolPath(path: string, ctx: PathContext): string {
  throw new Error('not implemented: ' + path + ctx.cwd);
}

export function compileUrlGlob(glob: string): Matcher {
  throw new Error('not implemented: ' + glob);
}

export function compileDomainGlob(glob: string): Matcher {
  throw new Error('not implemented: ' + glob);
}
