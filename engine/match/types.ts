/**
 * Shared types of the matchers.
 */
export interface MatchError {
  message: string;
  /**
   * 0-based offset into the glob or regex source where the problem is.
   * For regexes, an offset of `source.length` or more points into the flags as rendered
   * in `/source/flags`: the flag at index `k` has offset `source.length + 1 + k`.
   */
  offset: number;
  /**
   * Set when the regex engine could not decide (it ran out of memory), not because of the source:
   * the same check may pass later, so it must not be remembered as the regex's verdict.
   */
  transient?: true;
}

export type GlobKind = 'tool' | 'path' | 'url' | 'domain';

export interface Matcher {
  test(value: string): boolean;
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
  /** The same test over the segments of a path already resolved (`resolveToolPathSegments`). */
  testSegments(segments: readonly string[], ctx: PathContext): boolean;
}

/** Wraps a user-supplied value for a message. */
export function quote(text: string): string {
  const shown = text.length > 48 ? text.slice(0, 48) + '…' : text;
  return '`' + shown + '`';
}

/** Describes one character for a message, making invisible ones visible. */
export function describeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp === 0) return 'null character';
  if (cp === 0x20) return 'space';
  if (cp === 0x09) return 'tab';
  if (cp === 0x0a || cp === 0x0d) return 'line break';
  if (cp < 0x20 || cp === 0x7f) return `control character U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  if (/\s/u.test(ch)) return `whitespace U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return 'character ' + quote(ch);
}

export function isWhitespaceOrControl(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0;
  return cp < 0x20 || cp === 0x7f || /\s/u.test(ch);
}
