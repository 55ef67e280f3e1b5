/**
 * Gitignore-flavoured path globs, matched segment by segment against absolute normalised paths.
 *
 * Where a glob is anchored:
 * - `/etc/**`: starts with `/`, absolute.
 * - `~` or `~/.ssh/**`: the home directory.
 * - `./build`, `../x`, `src/*.ts`, `config/**` (a `/` that is not only a trailing one): the working directory.
 * - `.env`, `*.pem`, `node_modules/` (no `/` but a trailing one), and globs whose first segment is `**`:
 *   any depth anywhere on disk; the glob's segments must match the last segments of the path.
 *
 * Inside a glob:
 * - `*` matches any run of characters within one segment (never `/`); it matches dotfiles too.
 * - `?` matches one character (never `/`); `[abc]`, `[a-z]`, `[!x]` (or `[^x]`) are character classes.
 * - `**` as a whole segment matches zero or more segments; as the last segment (`dir/**`) it matches
 *   one or more, i.e. everything inside the directory but not the directory itself.
 * - a trailing `/` (`build/`) means the directory itself and everything inside it.
 * - `\` escapes the next character; `.` and `..` segments are resolved like in paths.
 * - Matching is case-sensitive. A glob matches the path itself only: `.env` does not match
 *   `/repo/.env/x` (write `.env/` for that).
 */
import { literalText, nfaRunner, tokenizeGlob, tokensToPredicate, type NfaStep } from './glob.js';
import type { MatchError, PathContext, PathMatcher } from './types.js';

type Anchor = 'root' | 'home' | 'cwd' | 'anywhere';

type GlobSegment =
  | { readonly kind: 'globstar' }
  | { readonly kind: 'parent' }
  | {
      readonly kind: 'segment';
      readonly test: (segment: string) => boolean;
      /** The segment's text when it has no wildcard. */
      readonly literal: string | null;
      /** The end of a `*`-led segment from its first `.` (`*.min.js` gives `.min.js`), when literal. */
      readonly suffix: string | null;
    };

interface ParsedPathGlob {
  readonly anchor: Anchor;
  readonly segments: readonly GlobSegment[];
  /** A trailing `/`: the directory and everything in it. */
  readonly dirAndContents: boolean;
  readonly problems: readonly MatchError[];
}

const GLOBSTAR: GlobSegment = { kind: 'globstar' };
const PARENT: GlobSegment = { kind: 'parent' };

/** The segments of a path read as absolute: `.`/`..` resolved (never above the root), empty ones dropped. */
function normalSegments(path: string, out: string[] = []): string[] {
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i < path.length && path.charCodeAt(i) !== 0x2f) continue;
    const len = i - start;
    if (len === 0 || (len === 1 && path.charCodeAt(start) === 0x2e)) {
      // empty or `.`
    } else if (len === 2 && path.charCodeAt(start) === 0x2e && path.charCodeAt(start + 1) === 0x2e) {
      out.pop();
    } else {
      out.push(path.slice(start, i));
    }
    start = i + 1;
  }
  return out;
}

/**
 * Resolves a tool's path argument: `~` and `~/x` are relative to `ctx.home`, other relative paths to
 * `ctx.cwd`; then `.`/`..` and duplicate slashes are normalised and a trailing slash dropped.
 * `~user/x` is not expanded (it is a relative path). `cwd` and `home` are expected to be absolute;
 * if they are not, they are read as if they started with `/`.
 */
export function resolveToolPath(path: string, ctx: PathContext): string {
  return '/' + resolveToolPathSegments(path, ctx).join('/');
}

/** `resolveToolPath`'s result as its segments (`/repo/a` is `['repo', 'a']`, `/` is `[]`). */
export function resolveToolPathSegments(path: string, ctx: PathContext): string[] {
  const p = typeof path === 'string' ? path : '';
  const cwd = typeof ctx?.cwd === 'string' ? ctx.cwd : '/';
  const home = typeof ctx?.home === 'string' ? ctx.home : '/';
  if (p === '~') return normalSegments(home);
  if (p.startsWith('~/')) return normalSegments(p.slice(1), normalSegments(home));
  if (p.startsWith('/')) return normalSegments(p);
  return normalSegments(p, normalSegments(cwd));
}

interface RawSegment {
  readonly text: string;
  readonly offset: number;
}

/** Splits at unescaped `/`; empty pieces are kept (they mark leading, doubled or trailing slashes). */
function splitGlob(text: string, base: number): RawSegment[] {
  const out: RawSegment[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) {
      i++;
    } else if (c === 0x2f) {
      out.push({ text: text.slice(start, i), offset: base + start });
      start = i + 1;
    }
  }
  out.push({ text: text.slice(start), offset: base + start });
  return out;
}

function isGlobstarText(text: string): boolean {
  return text.length >= 2 && /^\*+$/u.test(text);
}

function parsePathGlob(glob: string): ParsedPathGlob {
  let anchor: Anchor;
  let body: string;
  let bodyOffset: number;
  if (glob.startsWith('/')) {
    anchor = 'root';
    body = glob.slice(1);
    bodyOffset = 1;
  } else if (glob === '~' || glob.startsWith('~/')) {
    anchor = 'home';
    body = glob.slice(2);
    bodyOffset = 2;
  } else {
    anchor = 'cwd';
    body = glob;
    bodyOffset = 0;
  }
  const raw = splitGlob(body, bodyOffset);
  // A trailing separator (`dir/`, `/`, `~/`).
  const dirAndContents = glob.endsWith('/') && (raw.length > 1 || anchor !== 'cwd') && !endsEscaped(glob);
  const pieces = raw.filter((piece) => piece.text.length > 0);
  if (anchor === 'cwd') {
    const first = pieces[0]?.text;
    const explicitSeparator = pieces.length > 1;
    if (first === '.' || first === '..') anchor = 'cwd';
    else if (first !== undefined && isGlobstarText(first)) anchor = 'anywhere';
    else if (!explicitSeparator) anchor = 'anywhere';
  }
  const segments: GlobSegment[] = [];
  const problems: MatchError[] = [];
  if (anchor === 'anywhere' && !(pieces[0] !== undefined && isGlobstarText(pieces[0].text))) segments.push(GLOBSTAR);
  for (const piece of pieces) {
    if (isGlobstarText(piece.text)) {
      if (segments[segments.length - 1] !== GLOBSTAR) segments.push(GLOBSTAR);
      continue;
    }
    if (piece.text === '.') continue;
    if (piece.text === '..') {
      segments.push(PARENT);
      continue;
    }
    const { tokens, problems: found } = tokenizeGlob(piece.text, { wildcards: true }, piece.offset);
    problems.push(...found);
    for (const token of tokens) {
      if (token.kind === 'star' && token.count >= 2) {
        problems.push({
          message:
            '`**` only has meaning as a whole path segment (as in `src/**/x` or `dir/**`); use `*` to match within a segment',
          offset: token.offset,
        });
      }
    }
    const literal = literalText(tokens);
    let suffix: string | null = null;
    if (literal === null && tokens[0]?.kind === 'star') {
      const tail = literalText(tokens.slice(1));
      const dot = tail === null ? -1 : tail.indexOf('.');
      if (tail !== null && dot >= 0) suffix = tail.slice(dot);
    }
    segments.push({ kind: 'segment', test: tokensToPredicate(tokens), literal, suffix });
  }
  problems.sort((a, b) => a.offset - b.offset);
  return { anchor, segments, dirAndContents, problems };
}

function endsEscaped(text: string): boolean {
  // true when the final character is escaped by an odd run of backslashes before it
  let count = 0;
  for (let i = text.length - 2; i >= 0 && text.charCodeAt(i) === 0x5c; i--) count++;
  return count % 2 === 1;
}

export function checkPathGlob(glob: string): MatchError | null {
  if (glob.length === 0) return { message: 'empty path glob', offset: 0 };
  const nul = glob.indexOf('\u0000');
  if (nul >= 0) return { message: 'null character in path glob', offset: nul };
  return parsePathGlob(glob).problems[0] ?? null;
}

const anySegment = (): boolean => true;

function buildSteps(parsed: ParsedPathGlob, ctx: PathContext): NfaStep<string>[] {
  const items: GlobSegment[] = [];
  const baseText = parsed.anchor === 'home' ? ctx.home : parsed.anchor === 'cwd' ? ctx.cwd : '/';
  for (const literal of normalSegments(typeof baseText === 'string' ? baseText : '/')) {
    items.push({ kind: 'segment', test: (segment) => segment === literal, literal, suffix: null });
  }
  for (const segment of parsed.segments) {
    if (segment.kind === 'parent') items.pop();
    else items.push(segment);
  }
  if (items[items.length - 1] === GLOBSTAR) {
    // `dir/**`: everything inside, not the directory itself.
    items.splice(items.length - 1, 1, { kind: 'segment', test: anySegment, literal: null, suffix: null }, GLOBSTAR);
  }
  if (parsed.dirAndContents) items.push(GLOBSTAR);
  const steps: NfaStep<string>[] = [];
  for (const item of items) {
    if (item.kind === 'globstar') {
      if (steps[steps.length - 1]?.repeat !== true) steps.push({ repeat: true, test: anySegment });
    } else if (item.kind === 'segment') {
      steps.push({ repeat: false, test: item.test });
    }
  }
  return steps;
}

/**
 * Steps over path segments as a predicate. Globs with no `**` compare segment by segment; globs
 * with one `**` check a prefix and a suffix; others run the automaton.
 */
function segmentsMatcher(steps: readonly NfaStep<string>[]): (segments: readonly string[]) => boolean {
  const repeats: number[] = [];
  steps.forEach((step, i) => {
    if (step.repeat) repeats.push(i);
  });
  const m = steps.length;
  if (repeats.length === 0) {
    return (segments) => {
      if (segments.length !== m) return false;
      for (let i = 0; i < m; i++) if (!steps[i]!.test(segments[i]!)) return false;
      return true;
    };
  }
  if (repeats.length === 1 && steps[repeats[0]!]!.test === anySegment) {
    const r = repeats[0]!;
    const after = m - 1 - r;
    return (segments) => {
      const n = segments.length;
      if (n < m - 1) return false;
      for (let i = 0; i < r; i++) if (!steps[i]!.test(segments[i]!)) return false;
      for (let j = 0; j < after; j++) if (!steps[r + 1 + j]!.test(segments[n - after + j]!)) return false;
      return true;
    };
  }
  return nfaRunner(steps);
}

/** What a path glob requires of every path it matches, for indexing (see requiredPathKey). */
export type PathKey = { kind: 'segment'; value: string } | { kind: 'suffix'; value: string };

/**
 * A key every path the glob matches has: one of its segments is `value` (`segment`), or its last
 * segment ends with `value`, which starts with a `.` (`suffix`, from `*.pem`). Null when the glob
 * has neither (only wildcards, `..`, or an invalid glob).
 */
export function requiredPathKey(glob: string): PathKey | null {
  if (typeof glob !== 'string' || glob.length === 0) return null;
  let parsed: ParsedPathGlob;
  try {
    parsed = parsePathGlob(glob);
  } catch {
    return null;
  }
  if (parsed.segments.some((s) => s.kind === 'parent')) return null;
  let best: string | null = null;
  for (const s of parsed.segments) {
    if (s.kind === 'segment' && s.literal !== null && s.literal.length > 0 && (best === null || s.literal.length > best.length)) best = s.literal;
  }
  if (best !== null) return { kind: 'segment', value: best };
  const last = parsed.segments[parsed.segments.length - 1];
  if (!parsed.dirAndContents && last?.kind === 'segment' && last.suffix !== null) return { kind: 'suffix', value: last.suffix };
  return null;
}

/** Compiles a path glob; an invalid glob still compiles (best effort) and never throws. */
export function compilePathGlob(glob: string): PathMatcher {
  if (typeof glob !== 'string' || glob.length === 0) return { test: () => false, testSegments: () => false };
  let parsed: ParsedPathGlob;
  try {
    parsed = parsePathGlob(glob);
  } catch {
    return { test: () => false, testSegments: () => false };
  }
  let cachedKey: string | null = null;
  let cachedTest: (segments: readonly string[]) => boolean = () => false;
  const testSegments = (segments: readonly string[], ctx: PathContext): boolean => {
    try {
      const key = parsed.anchor === 'home' ? String(ctx.home) : parsed.anchor === 'cwd' ? String(ctx.cwd) : '';
      if (key !== cachedKey) {
        cachedTest = segmentsMatcher(buildSteps(parsed, ctx));
        cachedKey = key;
      }
      return cachedTest(segments);
    } catch {
      return false;
    }
  };
  return {
    test(absolutePath: string, ctx: PathContext): boolean {
      if (typeof absolutePath !== 'string') return false;
      // Resolving again is a no-op on a normalised absolute path and makes any other input safe.
      return testSegments(resolveToolPathSegments(absolutePath, ctx), ctx);
    },
    testSegments,
  };
}
