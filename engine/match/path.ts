/**
 * Gitignore-flavoured path globs, matched segment by segment against resolved paths (see
 * path-read.ts for how a tool's path argument is read).
 *
 * Where a glob is anchored:
 * - `/etc/**`: starts with `/`, absolute (on a Windows host: the working directory's drive).
 * - `C:/Users/**`: a drive letter, then `/`: that drive.
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
 * - A glob matches the path itself only: `.env` does not match `/repo/.env/x` (write `.env/` for that).
 *
 * Case: a glob compiled with `fold` compares folded text (path-read.ts `foldSegment`) and is meant
 * for folded readings; otherwise matching is exact.
 *
 * Besides matching a path, a glob answers for a search of a directory (`reaches`: could the search
 * touch a path the glob matches) and for an allow of one (`coversTree`: does it match the directory
 * and everything in it). Search filters (`compileSearchFilter`) are the searches' own globs.
 */
import { codePoints, literalText, nfaRunner, tokenizeGlob, tokensToPredicate, type GlobToken, type NfaStep } from './glob.js';
import { foldCodePoint, foldReading, foldSegment, isIgnorableCodePoint, lexicalSegments, type PathEnv } from './path-read.js';
import type { MatchError, PathContext, PathMatcher } from './types.js';

type Anchor = 'root' | 'drive' | 'home' | 'cwd' | 'anywhere';

interface SegmentPattern {
  readonly kind: 'segment';
  readonly test: (segment: string) => boolean;
  /** The segment's text when it has no wildcard. */
  readonly literal: string | null;
  /** The end of a `*`-led segment from its first `.` (`*.min.js` gives `.min.js`), when literal. */
  readonly suffix: string | null;
  readonly tokens: readonly GlobToken[];
}

type GlobSegment = { readonly kind: 'globstar' } | { readonly kind: 'parent' } | SegmentPattern;

interface ParsedPathGlob {
  readonly anchor: Anchor;
  /** The drive root of a `C:/...` glob (`//C:`). */
  readonly drive: string | null;
  readonly segments: readonly GlobSegment[];
  /** A trailing `/`: the directory and everything in it. */
  readonly dirAndContents: boolean;
  readonly problems: readonly MatchError[];
}

/** One step over path segments; `tokens` (null: any segment) lets two globs be intersected. */
export interface SegmentStep extends NfaStep<string> {
  readonly tokens: readonly GlobToken[] | null;
}

const GLOBSTAR: GlobSegment = { kind: 'globstar' };
const PARENT: GlobSegment = { kind: 'parent' };
const anySegment = (): boolean => true;
const REPEAT: SegmentStep = { repeat: true, test: anySegment, tokens: null };
const ANY_ONE: SegmentStep = { repeat: false, test: anySegment, tokens: null };

/**
 * Resolves a tool's path argument lexically: `~` and `~/x` are relative to `ctx.home`, other
 * relative paths to `ctx.cwd`; then `.`/`..` and duplicate slashes are normalised and a trailing
 * slash dropped. `~user/x` is not expanded (it is a relative path). `cwd` and `home` are expected to
 * be absolute; if they are not, they are read as if they started with `/`. (The `path` selector
 * reads paths with `readToolPath`, which also knows Windows paths and the kernel's magic links.)
 */
export function resolveToolPath(path: string, ctx: PathContext): string {
  return '/' + resolveToolPathSegments(path, ctx).join('/');
}

/** `resolveToolPath`'s result as its segments (`/repo/a` is `['repo', 'a']`, `/` is `[]`). */
export function resolveToolPathSegments(path: string, ctx: PathContext): string[] {
  const p = typeof path === 'string' ? path : '';
  const cwd = typeof ctx?.cwd === 'string' ? ctx.cwd : '/';
  const home = typeof ctx?.home === 'string' ? ctx.home : '/';
  if (p === '~') return lexicalSegments(home, []);
  if (p.startsWith('~/')) return lexicalSegments(p.slice(1), lexicalSegments(home, []));
  if (p.startsWith('/')) return lexicalSegments(p, []);
  return lexicalSegments(p, lexicalSegments(cwd, []));
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

/** The glob's text as folded globs read it: NFC, without the code points folding ignores. */
function foldedSource(glob: string): string {
  if (!/[^\u0000-\u007f]/u.test(glob)) return glob;
  let out = '';
  for (const ch of glob.normalize('NFC')) if (!isIgnorableCodePoint(ch.codePointAt(0)!)) out += ch;
  return out;
}

/** Tokens with their characters folded; a class also takes the folded form of each member. */
function foldTokens(tokens: readonly GlobToken[]): GlobToken[] {
  return tokens.map((t): GlobToken => {
    if (t.kind === 'literal') return { kind: 'literal', cp: foldCodePoint(t.cp), offset: t.offset };
    if (t.kind !== 'class') return t;
    const ranges = [...t.ranges];
    for (let k = 0; k + 1 < t.ranges.length; k += 2) {
      const low = t.ranges[k]!;
      const high = t.ranges[k + 1]!;
      if (high - low > 4096) continue;
      for (let cp = low; cp <= high; cp++) {
        const f = foldCodePoint(cp);
        if (f !== cp) ranges.push(f, f);
      }
    }
    return { kind: 'class', negated: t.negated, ranges, offset: t.offset };
  });
}

function literalTokens(text: string): GlobToken[] {
  return codePoints(text).map((cp): GlobToken => ({ kind: 'literal', cp, offset: 0 }));
}

/** One segment of a glob (no `/`, not `**`, `.` or `..`) as a pattern. */
function segmentPattern(text: string, offset: number, fold: boolean, problems: MatchError[] | null): SegmentPattern {
  const { tokens, problems: found } = tokenizeGlob(text, { wildcards: true }, offset);
  if (problems !== null) {
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
  }
  const exactLiteral = literalText(tokens);
  let exactSuffix: string | null = null;
  if (exactLiteral === null && tokens[0]?.kind === 'star') {
    const tail = literalText(tokens.slice(1));
    const dot = tail === null ? -1 : tail.indexOf('.');
    if (tail !== null && dot >= 0) exactSuffix = tail.slice(dot);
  }
  if (!fold) return { kind: 'segment', test: tokensToPredicate(tokens), literal: exactLiteral, suffix: exactSuffix, tokens };
  if (exactLiteral !== null) {
    const literal = foldSegment(exactLiteral);
    return { kind: 'segment', test: (segment) => segment === literal, literal, suffix: null, tokens: literalTokens(literal) };
  }
  const folded = foldTokens(tokens);
  return { kind: 'segment', test: tokensToPredicate(folded), literal: null, suffix: exactSuffix === null ? null : foldSegment(exactSuffix), tokens: folded };
}

const DRIVE_GLOB = /^[A-Za-z]:\//u;

function parsePathGlob(source: string, fold = false): ParsedPathGlob {
  const glob = fold ? foldedSource(source) : source;
  let anchor: Anchor;
  let drive: string | null = null;
  let body: string;
  let bodyOffset: number;
  if (glob.startsWith('/')) {
    anchor = 'root';
    body = glob.slice(1);
    bodyOffset = 1;
  } else if (DRIVE_GLOB.test(glob)) {
    anchor = 'drive';
    drive = `//${glob[0]!.toUpperCase()}:`;
    body = glob.slice(3);
    bodyOffset = 3;
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
    segments.push(segmentPattern(piece.text, piece.offset, fold, problems));
  }
  problems.sort((a, b) => a.offset - b.offset);
  return { anchor, drive, segments, dirAndContents, problems };
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

/** The glob's steps on top of its anchor's directory (`base`, already in the glob's case). */
function buildSteps(parsed: ParsedPathGlob, base: readonly string[]): SegmentStep[] {
  const items: (SegmentStep | 'globstar')[] = [];
  for (const literal of base) items.push({ repeat: false, test: (segment) => segment === literal, tokens: literalTokens(literal) });
  // `..` never climbs above a Windows root.
  const floor = base[0]?.startsWith('//') === true ? 1 : 0;
  for (const segment of parsed.segments) {
    if (segment.kind === 'parent') {
      if (items.length > floor) items.pop();
    } else if (segment.kind === 'globstar') {
      items.push('globstar');
    } else {
      items.push({ repeat: false, test: segment.test, tokens: segment.tokens });
    }
  }
  if (items[items.length - 1] === 'globstar') {
    // `dir/**`: everything inside, not the directory itself.
    items.splice(items.length - 1, 1, ANY_ONE, 'globstar');
  }
  if (parsed.dirAndContents) items.push('globstar');
  const steps: SegmentStep[] = [];
  for (const item of items) {
    if (item === 'globstar') {
      if (steps[steps.length - 1]?.repeat !== true) steps.push(REPEAT);
    } else {
      steps.push(item);
    }
  }
  return steps;
}

/**
 * Steps over path segments as a predicate. Globs with no `**` compare segment by segment; globs
 * with one `**` check a prefix and a suffix; others run the automaton.
 */
function segmentsMatcher(steps: readonly SegmentStep[]): (segments: readonly string[]) => boolean {
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

// ---------------------------------------------------------------------------------------------
// Searches: a glob against a directory and what lies below it

/** The states of the steps after `segments` (with repeats closed over), and those entered by the last segment. */
function statesAfter(steps: readonly SegmentStep[], segments: readonly string[]): { closed: Uint8Array; entered: Uint8Array } | null {
  const m = steps.length;
  let closed = new Uint8Array(m + 1);
  let entered = new Uint8Array(m + 1);
  closed[0] = 1;
  entered[0] = 1;
  closeRepeats(steps, closed);
  for (const segment of segments) {
    const next = new Uint8Array(m + 1);
    entered = new Uint8Array(m + 1);
    let alive = false;
    for (let i = 0; i < m; i++) {
      if (closed[i] !== 1) continue;
      const step = steps[i]!;
      if (!step.test(segment)) continue;
      const j = step.repeat ? i : i + 1;
      next[j] = 1;
      entered[j] = 1;
      alive = true;
    }
    if (!alive) return null;
    closeRepeats(steps, next);
    closed = next;
  }
  return { closed, entered };
}

function closeRepeats(steps: readonly SegmentStep[], states: Uint8Array): void {
  for (let i = 0; i < steps.length; i++) if (states[i] === 1 && steps[i]!.repeat) states[i + 1] = 1;
}

/** Whether one character can match both tokens (classes against classes: when they may share one). */
function charsMeet(a: GlobToken, b: GlobToken): boolean {
  if (a.kind === 'star' || a.kind === 'one' || b.kind === 'star' || b.kind === 'one') return true;
  if (a.kind === 'literal' && b.kind === 'literal') return a.cp === b.cp;
  if (a.kind === 'literal' && b.kind === 'class') return inClass(b, a.cp);
  if (a.kind === 'class' && b.kind === 'literal') return inClass(a, b.cp);
  if (a.kind === 'class' && b.kind === 'class' && !a.negated && !b.negated) {
    for (let i = 0; i + 1 < a.ranges.length; i += 2) {
      for (let j = 0; j + 1 < b.ranges.length; j += 2) {
        if (a.ranges[i]! <= b.ranges[j + 1]! && b.ranges[j]! <= a.ranges[i + 1]!) return true;
      }
    }
    return false;
  }
  return true;
}

function inClass(t: GlobToken & { kind: 'class' }, cp: number): boolean {
  let hit = false;
  for (let k = 0; k + 1 < t.ranges.length; k += 2) {
    if (cp >= t.ranges[k]! && cp <= t.ranges[k + 1]!) {
      hit = true;
      break;
    }
  }
  return hit !== t.negated;
}

/** Whether some segment name matches both token lists (null: any name). */
export function segmentsMayMeet(a: readonly GlobToken[] | null, b: readonly GlobToken[] | null): boolean {
  if (a === null || b === null) return true;
  const na = a.length;
  const nb = b.length;
  const width = nb + 1;
  const seen = new Uint8Array((na + 1) * width);
  const stack: number[] = [];
  const push = (i: number, j: number) => {
    // close over stars, which may match nothing
    for (let x = i; x <= na; x++) {
      for (let y = j; y <= nb; y++) {
        const k = x * width + y;
        if (seen[k] !== 1) {
          seen[k] = 1;
          stack.push(x, y);
        }
        if (y >= nb || b[y]!.kind !== 'star') break;
      }
      if (x >= na || a[x]!.kind !== 'star') break;
    }
  };
  push(0, 0);
  while (stack.length > 0) {
    const j = stack.pop()!;
    const i = stack.pop()!;
    if (i === na && j === nb) return true;
    if (i >= na || j >= nb) continue;
    const ta = a[i]!;
    const tb = b[j]!;
    if (!charsMeet(ta, tb)) continue;
    push(ta.kind === 'star' ? i : i + 1, tb.kind === 'star' ? j : j + 1);
  }
  return false;
}

/** The states a repeat-free walk may skip to from `i`: `i`, and past every repeat step from it. */
function skipRepeats(steps: readonly SegmentStep[], i: number, out: number[]): void {
  out.length = 0;
  let x = i;
  out.push(x);
  while (x < steps.length && steps[x]!.repeat) out.push(++x);
}

/**
 * Whether a path below the directory (one segment or more) matches both the glob's remaining steps
 * (from any state of `start`) and one alternative of a filter (relative steps).
 */
function meetsFilter(steps: readonly SegmentStep[], start: Uint8Array, filter: readonly SegmentStep[]): boolean {
  const m = steps.length;
  const fm = filter.length;
  const width = fm + 1;
  const seen = new Uint8Array((m + 1) * width);
  const queue: number[] = [];
  const fs: number[] = [];
  skipRepeats(filter, 0, fs);
  for (let i = 0; i <= m; i++) {
    if (start[i] !== 1) continue;
    for (const j of fs) {
      const k = i * width + j;
      if (seen[k] !== 1) {
        seen[k] = 1;
        queue.push(i, j);
      }
    }
  }
  const gs: number[] = [];
  for (let q = 0; q < queue.length; q += 2) {
    const i = queue[q]!;
    const j = queue[q + 1]!;
    if (i >= m || j >= fm) continue;
    const a = steps[i]!;
    const b = filter[j]!;
    if (!segmentsMayMeet(a.tokens, b.tokens)) continue;
    skipRepeats(steps, a.repeat ? i : i + 1, gs);
    skipRepeats(filter, b.repeat ? j : j + 1, fs);
    for (const ni of gs) {
      for (const nj of fs) {
        if (ni === m && nj === fm) return true;
        const k = ni * width + nj;
        if (seen[k] !== 1) {
          seen[k] = 1;
          queue.push(ni, nj);
        }
      }
    }
  }
  return false;
}

/**
 * Whether, from a state entered by the directory's last segment, the glob reaches the end through
 * at most `depth` more segments without a `**` other than a final one: the glob names a fixed
 * place below the directory (`~/.ssh/**` below `~`), or covers everything below it.
 */
function namesPlaceBelow(steps: readonly SegmentStep[], entered: Uint8Array, depth: number): boolean {
  const m = steps.length;
  for (let i = 0; i < m; i++) {
    if (entered[i] !== 1) continue;
    if (steps[i]!.repeat) {
      // a final `**` takes everything below; an inner one floats, and names no fixed place
      if (i === m - 1) return true;
      continue;
    }
    let at = i;
    for (let used = 0; used < depth; used++) {
      at++;
      if (at === m) return true;
      if (steps[at]!.repeat) {
        if (at === m - 1) return true;
        break;
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Search filters

/** A search's file filter (Grep's `glob`, Glob's `pattern`, Gemini's `include`) as alternatives of relative steps. */
export type SearchFilter = readonly (readonly SegmentStep[])[];

const MAX_ALTERNATIVES = 64;

/**
 * `{a,b}` expanded (nested, at most 64 results); null when there would be more. A `{` without a
 * matching `}` or without a `,` is literal.
 */
export function expandBraces(text: string): string[] | null {
  let results = [''];
  let i = 0;
  const flush = (piece: string) => {
    results = results.map((r) => r + piece);
  };
  let literal = '';
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      literal += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === '{') {
      const group = braceGroup(text, i);
      if (group !== null) {
        flush(literal);
        literal = '';
        const options: string[] = [];
        for (const option of group.options) {
          const expanded = expandBraces(option);
          if (expanded === null) return null;
          options.push(...expanded);
        }
        const next: string[] = [];
        for (const r of results) for (const o of options) next.push(r + o);
        if (next.length > MAX_ALTERNATIVES) return null;
        results = next;
        i = group.end;
        continue;
      }
    }
    literal += c;
    i++;
  }
  flush(literal);
  return results;
}

function braceGroup(text: string, open: number): { options: string[]; end: number } | null {
  let depth = 0;
  const options: string[] = [];
  let start = open + 1;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      i++;
    } else if (c === '{') {
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0) {
        options.push(text.slice(start, i));
        return options.length > 1 ? { options, end: i + 1 } : null;
      }
    } else if (c === ',' && depth === 1) {
      options.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return null;
}

/** The pieces of a filter split on whitespace and on commas outside braces (as some agents split one). */
function filterPieces(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    if (i === text.length || /\s/u.test(c!) || (c === ',' && depth === 0)) {
      if (i > start) out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return out;
}

/** One alternative as relative steps; `all` when it may select any file. */
function filterSteps(text: string, fold: boolean): SegmentStep[] | 'all' {
  if (text.startsWith('!')) return 'all';
  const source = fold ? foldedSource(text) : text;
  const dirAndContents = source.length > 1 && source.endsWith('/') && !endsEscaped(source);
  const pieces = splitGlob(dirAndContents ? source.slice(0, -1) : source, 0);
  // Like gitignore: a `/` other than a trailing one anchors the filter at the searched directory.
  const anchored = pieces.length > 1;
  const steps: SegmentStep[] = anchored ? [] : [REPEAT];
  for (const piece of pieces) {
    if (piece.text.length === 0 || piece.text === '.') continue;
    if (piece.text === '..') return 'all';
    if (isGlobstarText(piece.text)) {
      if (steps[steps.length - 1] !== REPEAT) steps.push(REPEAT);
      continue;
    }
    const p = segmentPattern(piece.text, 0, fold, null);
    steps.push({ repeat: false, test: p.test, tokens: p.tokens });
  }
  if (steps.length === 0) return 'all';
  if (steps[steps.length - 1] === REPEAT) steps.splice(steps.length - 1, 1, ANY_ONE, REPEAT);
  if (dirAndContents && steps[steps.length - 1] !== REPEAT) steps.push(REPEAT);
  return steps;
}

/** Whether steps select every file: `*`-like segments only, at most one, and a `**` (as `*` and `**` do). */
function selectsEverything(steps: readonly SegmentStep[]): boolean {
  let singles = 0;
  let repeats = 0;
  for (const s of steps) {
    if (s.repeat) {
      repeats++;
      continue;
    }
    singles++;
    if (s.tokens !== null && !s.tokens.every((t) => t.kind === 'star')) return false;
  }
  return repeats > 0 && singles <= 1;
}

/**
 * The filters of a search, in the glob's case: each text as a whole and split on whitespace and
 * commas, `{a,b}` expanded. Null when the search has no filter or one that selects every file
 * (`*`, `**` and the like, a negation, too many alternatives): such a search is judged as unfiltered.
 */
export function compileSearchFilter(texts: readonly string[], fold: boolean): SearchFilter | null {
  const out: SegmentStep[][] = [];
  let count = 0;
  for (const text of texts) {
    const alternatives = new Set([text, ...filterPieces(text)]);
    for (const alternative of alternatives) {
      if (alternative.length === 0) continue;
      const expanded = expandBraces(alternative);
      if (expanded === null) return null;
      for (const e of expanded) {
        if (e.length === 0) continue;
        if (++count > MAX_ALTERNATIVES * 4) return null;
        const steps = filterSteps(e, fold);
        if (steps === 'all' || selectsEverything(steps)) return null;
        out.push(steps);
      }
    }
  }
  return out.length > 0 ? out : null;
}

/**
 * A search pattern that may carry its own directory (Glob's `pattern`, Gemini's `read_many_files`
 * entries) split into that directory and the filter below it: `src/*.ts` is `src` and `/*.ts`
 * (anchored), `/home/u/.ssh/*` is `/home/u/.ssh` and `/*`, `*.ts` is no directory and `*.ts`
 * (any depth). `dir` is null when the pattern has none; `filter` is empty for `docs/`.
 */
export function splitSearchPattern(pattern: string): { dir: string | null; filter: string } {
  const trailing = pattern.length > 1 && pattern.endsWith('/');
  const body = trailing ? pattern.slice(0, -1) : pattern;
  const pieces = body.split('/');
  // The leading pieces without wildcards are directories; the last piece is a name, unless the pattern ends in `/`.
  let k = 0;
  while (k < pieces.length - 1 && !PATTERN_META.test(pieces[k]!)) k++;
  if (trailing && k === pieces.length - 1 && !PATTERN_META.test(pieces[k]!)) k++;
  const dir = k === 0 ? null : pieces.slice(0, k).join('/') || '/';
  const rest = pieces.slice(k).join('/');
  if (rest.length === 0) return { dir, filter: '' };
  const filter = (body.includes('/') && !rest.startsWith('/') ? '/' + rest : rest) + (trailing ? '/' : '');
  return { dir, filter };
}

const PATTERN_META = /[*?[{\\]/u;

// ---------------------------------------------------------------------------------------------
// Compiled globs

/** A compiled path glob: the lexical `PathMatcher` API, and the reading-based one the selector uses. */
export interface PathGlob extends PathMatcher {
  readonly source: string;
  /** Compiled for folded readings. */
  readonly folded: boolean;
  /** Whether the glob matches a reading (in the glob's case: folded when `folded`). */
  matches(segments: readonly string[], env: PathEnv): boolean;
  /** Whether it matches the directory and everything in it (an allow of a search of it). */
  coversTree(segments: readonly string[], env: PathEnv): boolean;
  /**
   * Whether a search of the directory may touch a path the glob matches: the directory itself; with
   * a filter, a path below it that the filter selects too; without one, a fixed place below it
   * (no `**` before it) within `depth` segments, or everything below it.
   */
  reaches(segments: readonly string[], filter: SearchFilter | null, depth: number, env: PathEnv): boolean;
}

function textOr(value: unknown): string {
  return typeof value === 'string' ? value : '/';
}

const NEVER: PathGlob = {
  source: '',
  folded: false,
  test: () => false,
  testSegments: () => false,
  matches: () => false,
  coversTree: () => false,
  reaches: () => false,
};

class CompiledPathGlob implements PathGlob {
  readonly source: string;
  readonly folded: boolean;
  private readonly parsed: ParsedPathGlob;
  // The steps for the last base seen, through each API.
  private envKey: string | null = null;
  private envSteps: SegmentStep[] = [];
  private envTest: (segments: readonly string[]) => boolean = () => false;
  private ctxKey: string | null = null;
  private ctxTest: (segments: readonly string[]) => boolean = () => false;

  constructor(source: string, parsed: ParsedPathGlob, folded: boolean) {
    this.source = source;
    this.parsed = parsed;
    this.folded = folded;
  }

  private baseKey(env: PathEnv): string {
    switch (this.parsed.anchor) {
      case 'home':
        return env.home;
      case 'cwd':
        return env.cwd;
      case 'root':
        return this.folded ? '' : (env.drive ?? '');
      default:
        return '';
    }
  }

  private base(env: PathEnv): readonly string[] {
    switch (this.parsed.anchor) {
      case 'home':
        return this.folded ? env.homeFolded : env.homeSegments;
      case 'cwd':
        return this.folded ? env.cwdFolded : env.cwdSegments;
      case 'root':
        return this.folded || env.drive === null ? [] : [env.drive];
      case 'drive':
        return this.folded ? [] : [this.parsed.drive!];
      case 'anywhere':
        return [];
    }
  }

  private steps(env: PathEnv): SegmentStep[] {
    const key = this.baseKey(env);
    if (key !== this.envKey) {
      this.envSteps = buildSteps(this.parsed, this.base(env));
      this.envTest = segmentsMatcher(this.envSteps);
      this.envKey = key;
    }
    return this.envSteps;
  }

  matches(segments: readonly string[], env: PathEnv): boolean {
    try {
      this.steps(env);
      return this.envTest(segments);
    } catch {
      return false;
    }
  }

  coversTree(segments: readonly string[], env: PathEnv): boolean {
    try {
      const steps = this.steps(env);
      const m = steps.length;
      const states = statesAfter(steps, segments);
      if (states === null || states.closed[m] !== 1) return false;
      const last = steps[m - 1];
      return last !== undefined && last.repeat && last.test === anySegment && states.closed[m - 1] === 1;
    } catch {
      return false;
    }
  }

  reaches(segments: readonly string[], filter: SearchFilter | null, depth: number, env: PathEnv): boolean {
    try {
      const steps = this.steps(env);
      const states = statesAfter(steps, segments);
      if (states === null) return false;
      if (states.closed[steps.length] === 1) return true;
      if (filter === null) return namesPlaceBelow(steps, states.entered, depth);
      for (const alternative of filter) if (meetsFilter(steps, states.closed, alternative)) return true;
      return false;
    } catch {
      return false;
    }
  }

  testSegments(segments: readonly string[], ctx: PathContext): boolean {
    try {
      const key = this.parsed.anchor === 'home' ? textOr(ctx?.home) : this.parsed.anchor === 'cwd' ? textOr(ctx?.cwd) : '';
      if (key !== this.ctxKey) {
        const lexical = this.parsed.anchor === 'home' || this.parsed.anchor === 'cwd' ? lexicalSegments(key, []) : [];
        const base = this.parsed.anchor === 'drive' ? (this.folded ? [] : [this.parsed.drive!]) : this.folded ? foldReading(lexical) : lexical;
        const steps = buildSteps(this.parsed, base);
        this.ctxTest = segmentsMatcher(steps);
        this.ctxKey = key;
      }
      return this.ctxTest(segments);
    } catch {
      return false;
    }
  }

  test(absolutePath: string, ctx: PathContext): boolean {
    if (typeof absolutePath !== 'string') return false;
    // Resolving again is a no-op on a normalised absolute path and makes any other input safe.
    const segments = resolveToolPathSegments(absolutePath, ctx);
    return this.testSegments(this.folded ? foldReading(segments) : segments, ctx);
  }
}

/** What a path glob requires of every path it matches, for indexing (see requiredPathKey). */
export type PathKey = { kind: 'segment'; value: string } | { kind: 'suffix'; value: string };

/**
 * A key every path the glob matches has, folded (`foldSegment`), so that it holds for the folded
 * reading of a path whether the glob compares exactly or folded: one of the path's segments is
 * `value` (`segment`), or its last segment ends with `value`, which starts with a `.` (`suffix`,
 * from `*.pem`). Null when the glob has neither (only wildcards, `..`, or an invalid glob).
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
  if (best !== null) {
    const value = foldSegment(best);
    return value.length > 0 ? { kind: 'segment', value } : null;
  }
  const last = parsed.segments[parsed.segments.length - 1];
  if (!parsed.dirAndContents && last?.kind === 'segment' && last.suffix !== null) {
    const value = foldSegment(last.suffix);
    return value.startsWith('.') && value.length > 1 ? { kind: 'suffix', value } : null;
  }
  return null;
}

export interface PathGlobOptions {
  /** Compare folded text (case-insensitively), for folded readings. */
  readonly fold?: boolean;
}

/** Compiles a path glob; an invalid glob still compiles (best effort) and never throws. */
export function compilePathGlob(glob: string, options: PathGlobOptions = {}): PathGlob {
  if (typeof glob !== 'string' || glob.length === 0) return NEVER;
  const fold = options.fold === true;
  try {
    return new CompiledPathGlob(glob, parsePathGlob(glob, fold), fold);
  } catch {
    return NEVER;
  }
}
