/**
 * Glob building blocks shared by the tool, path and URL matchers, and the tool-name glob itself.
 *
 * Globs are never translated to backtracking regexes. A glob becomes a list of steps, and
 * matching simulates all positions of that list at once over the input (a Thompson-style NFA
 * walk): time is O(input length × glob length) whatever the input, and nothing recurses.
 */
import { describeChar, quote, type MatchError, type Matcher } from './types.js';

/** One step of a compiled glob over elements of type E (code points, or path segments). */
export interface NfaStep<E> {
  /** true: any run (possibly empty) of elements accepted by `test`; false: exactly one such element. */
  readonly repeat: boolean;
  readonly test: (element: E) => boolean;
}

/** Runs the steps over the whole input; true when the steps consume it exactly. */
export function runNfa<E>(steps: readonly NfaStep<E>[], input: readonly E[]): boolean {
  return nfaRunner(steps)(input);
}

/**
 * The steps as a reusable matcher: the two state vectors are allocated once, not per test. A
 * matcher is not re-entered while it runs (step tests never call back into it), so sharing them is safe.
 */
export function nfaRunner<E>(steps: readonly NfaStep<E>[]): (input: readonly E[]) => boolean {
  const m = steps.length;
  let current = new Uint8Array(m + 1);
  let next = new Uint8Array(m + 1);
  return (input) => {
    current.fill(0);
    current[0] = 1;
    closeOverRepeats(steps, current);
    for (let k = 0; k < input.length; k++) {
      const element = input[k]!;
      next.fill(0);
      let alive = false;
      for (let i = 0; i < m; i++) {
        if (current[i] !== 1) continue;
        const step = steps[i]!;
        if (!step.test(element)) continue;
        next[step.repeat ? i : i + 1] = 1;
        alive = true;
      }
      if (!alive) return false;
      closeOverRepeats(steps, next);
      const swap = current;
      current = next;
      next = swap;
    }
    return current[m] === 1;
  };
}

/** A repeat step may match nothing, so being before it also means being after it. */
function closeOverRepeats<E>(steps: readonly NfaStep<E>[], states: Uint8Array): void {
  for (let i = 0; i < steps.length; i++) {
    if (states[i] === 1 && steps[i]!.repeat) states[i + 1] = 1;
  }
}

/**
 * A glob whose only wildcard is `*` (any run of characters), as the literal pieces between its
 * stars: `a*b*c` is `['a', 'b', 'c']`, `*x` is `['', 'x']`. Matching is the classic greedy walk:
 * the first piece is a prefix, the last a suffix, the middle ones are found leftmost in order.
 * Null when a piece starts or ends inside a surrogate pair, where string search and code-point
 * matching could disagree.
 */
export function starPieces(pieces: readonly string[]): ((value: string) => boolean) | null {
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    const a = piece.charCodeAt(0);
    const z = piece.charCodeAt(piece.length - 1);
    if ((a >= 0xdc00 && a <= 0xdfff) || (z >= 0xd800 && z <= 0xdbff)) return null;
  }
  if (pieces.length === 1) {
    const only = pieces[0]!;
    return (value) => value === only;
  }
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  const fixed = first.length + last.length;
  if (pieces.length === 2) {
    if (first === '' && last === '') return () => true;
    return (value) => value.length >= fixed && value.startsWith(first) && value.endsWith(last);
  }
  const middle = pieces.slice(1, -1).filter((piece) => piece.length > 0);
  return (value) => {
    if (value.length < fixed || !value.startsWith(first) || !value.endsWith(last)) return false;
    const limit = value.length - last.length;
    let at = first.length;
    for (const piece of middle) {
      // No piece starts with a low surrogate, so a match never starts inside a pair.
      const found = value.indexOf(piece, at);
      if (found < 0 || found + piece.length > limit) return false;
      at = found + piece.length;
    }
    return true;
  };
}

export function codePoints(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    out.push(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return out;
}

const SLASH = 0x2f;

/** A token of a character-level glob. */
export type GlobToken =
  | { readonly kind: 'literal'; readonly cp: number; readonly offset: number }
  /** `?`: any one character. */
  | { readonly kind: 'one'; readonly offset: number }
  /** `[...]`: `ranges` holds inclusive [low, high] pairs, flattened. */
  | { readonly kind: 'class'; readonly negated: boolean; readonly ranges: readonly number[]; readonly offset: number }
  /** A run of `count` unescaped `*`. */
  | { readonly kind: 'star'; readonly count: number; readonly offset: number };

export interface TokenizeOptions {
  /** Whether `?` and `[...]` are wildcards (path globs) or literal characters (URL globs). */
  readonly wildcards: boolean;
}

export interface TokenizeResult {
  readonly tokens: GlobToken[];
  /** Problems found on the way, in source order; the tokens are still usable. */
  readonly problems: MatchError[];
}

/**
 * Splits a glob (or a piece of one) into tokens. `\` escapes the next character. An unterminated
 * `[` is read as a literal `[` and reported; a trailing lone `\` is read as a literal `\` and reported.
 * `base` is added to every offset.
 */
export function tokenizeGlob(text: string, options: TokenizeOptions, base = 0): TokenizeResult {
  const tokens: GlobToken[] = [];
  const problems: MatchError[] = [];
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (cp === 0x5c /* \ */) {
      if (i + 1 >= text.length) {
        problems.push({ message: 'trailing `\\` escapes nothing: write `\\\\` for a literal backslash', offset: base + i });
        tokens.push({ kind: 'literal', cp, offset: base + i });
        i += 1;
        continue;
      }
      const escaped = text.codePointAt(i + 1)!;
      tokens.push({ kind: 'literal', cp: escaped, offset: base + i });
      i += 1 + (escaped > 0xffff ? 2 : 1);
      continue;
    }
    if (cp === 0x2a /* * */) {
      let j = i;
      while (j < text.length && text.charCodeAt(j) === 0x2a) j++;
      tokens.push({ kind: 'star', count: j - i, offset: base + i });
      i = j;
      continue;
    }
    if (options.wildcards && cp === 0x3f /* ? */) {
      tokens.push({ kind: 'one', offset: base + i });
      i += 1;
      continue;
    }
    if (options.wildcards && cp === 0x5b /* [ */) {
      const parsed = parseClass(text, i, base, problems);
      if (parsed !== null) {
        tokens.push(parsed.token);
        i = parsed.end;
        continue;
      }
      problems.push({ message: 'unterminated character class: missing `]` (write `\\[` for a literal `[`)', offset: base + i });
    }
    tokens.push({ kind: 'literal', cp, offset: base + i });
    i += width;
  }
  return { tokens, problems };
}

/** Parses `[...]` starting at `start`; null when it is not terminated. */
function parseClass(
  text: string,
  start: number,
  base: number,
  problems: MatchError[],
): { token: GlobToken; end: number } | null {
  let j = start + 1;
  let negated = false;
  if (text[j] === '!' || text[j] === '^') {
    negated = true;
    j++;
  }
  const ranges: number[] = [];
  const local: MatchError[] = [];
  let first = true;
  for (;;) {
    if (j >= text.length) return null;
    if (text[j] === ']' && !first) break;
    first = false;
    const itemStart = j;
    const low = readClassChar(text, j);
    if (low === null) return null;
    j = low.end;
    let high = low.cp;
    if (text[j] === '-' && j + 1 < text.length && text[j + 1] !== ']') {
      const upper = readClassChar(text, j + 1);
      if (upper === null) return null;
      high = upper.cp;
      if (high < low.cp) {
        local.push({
          message: `invalid range ${quote(text.slice(itemStart, upper.end))} in character class: the first character comes after the last`,
          offset: base + itemStart,
        });
      }
      j = upper.end;
    }
    ranges.push(low.cp, high);
  }
  problems.push(...local);
  return { token: { kind: 'class', negated, ranges, offset: base + start }, end: j + 1 };
}

function readClassChar(text: string, at: number): { cp: number; end: number } | null {
  let i = at;
  if (text.charCodeAt(i) === 0x5c) {
    i++;
    if (i >= text.length) return null;
  }
  const cp = text.codePointAt(i);
  if (cp === undefined) return null;
  return { cp, end: i + (cp > 0xffff ? 2 : 1) };
}

function classTest(negated: boolean, ranges: readonly number[]): (cp: number) => boolean {
  return (cp) => {
    let hit = false;
    for (let k = 0; k + 1 < ranges.length; k += 2) {
      if (cp >= ranges[k]! && cp <= ranges[k + 1]!) {
        hit = true;
        break;
      }
    }
    return hit !== negated;
  };
}

const anyElement = (): boolean => true;

export interface StepOptions {
  /** Which characters a single `*` may match; default any. */
  readonly star?: (cp: number) => boolean;
  /** Which characters a `**` may match; default any. */
  readonly doubleStar?: (cp: number) => boolean;
  /** Which characters `?` and negated classes may match; default any. */
  readonly one?: (cp: number) => boolean;
}

/** Turns tokens into NFA steps over code points. */
export function tokensToSteps(tokens: readonly GlobToken[], options: StepOptions = {}): NfaStep<number>[] {
  const steps: NfaStep<number>[] = [];
  const one = options.one ?? anyElement;
  for (const token of tokens) {
    switch (token.kind) {
      case 'literal': {
        const want = token.cp;
        steps.push({ repeat: false, test: (cp) => cp === want });
        break;
      }
      case 'one':
        steps.push({ repeat: false, test: one });
        break;
      case 'class': {
        const inClass = classTest(token.negated, token.ranges);
        steps.push({ repeat: false, test: (cp) => one(cp) && inClass(cp) });
        break;
      }
      case 'star': {
        const test = token.count >= 2 ? (options.doubleStar ?? anyElement) : (options.star ?? anyElement);
        const previous = steps[steps.length - 1];
        // Adjacent runs that accept the same characters are one run.
        if (previous !== undefined && previous.repeat && previous.test === test) break;
        steps.push({ repeat: true, test });
        break;
      }
    }
  }
  return steps;
}

/** The literal text of the tokens when none is a wildcard, else null. */
export function literalText(tokens: readonly GlobToken[]): string | null {
  let out = '';
  for (const token of tokens) {
    if (token.kind !== 'literal') return null;
    out += String.fromCodePoint(token.cp);
  }
  return out;
}

/** Compiles tokens to a string predicate, with fast paths for plain text and `*`-only globs. */
export function tokensToPredicate(tokens: readonly GlobToken[], options: StepOptions = {}): (text: string) => boolean {
  const literal = literalText(tokens);
  if (literal !== null) return (text) => text === literal;
  if (options.star === undefined && options.doubleStar === undefined && tokens.every((t) => t.kind === 'literal' || t.kind === 'star')) {
    const pieces = [''];
    for (const t of tokens) {
      if (t.kind === 'star') pieces.push('');
      else if (t.kind === 'literal') pieces[pieces.length - 1] += String.fromCodePoint(t.cp);
    }
    const fast = starPieces(pieces);
    if (fast) return fast;
  }
  const steps = tokensToSteps(tokens, options);
  if (steps.length === 1 && steps[0]!.repeat && steps[0]!.test === anyElement) return () => true;
  const run = nfaRunner(steps);
  return (text) => run(codePoints(text));
}

export function isSlash(cp: number): boolean {
  return cp === SLASH;
}

// ---------------------------------------------------------------------------------------------
// Tool-name globs

const TOOL_CHAR = /^[A-Za-z0-9_.*-]$/u;

export function checkToolGlob(glob: string): MatchError | null {
  if (glob.length === 0) return { message: 'empty tool glob', offset: 0 };
  let offset = 0;
  for (const ch of glob) {
    if (!TOOL_CHAR.test(ch)) {
      return {
        message: `unexpected ${describeChar(ch)} in tool glob ${quote(glob)}: only letters, digits, \`_\`, \`-\`, \`.\` and \`*\` are allowed`,
        offset,
      };
    }
    offset += ch.length;
  }
  return null;
}

/** Tool-name glob: `*` matches any run of characters (including none); everything else is literal. */
export function compileToolGlob(glob: string): Matcher {
  if (typeof glob !== 'string') return { test: () => false };
  if (!glob.includes('*')) return { test: (value) => value === glob };
  const fast = starPieces(glob.split('*'));
  if (fast) return { test: (value: string) => typeof value === 'string' && fast(value) };
  const steps: NfaStep<number>[] = [];
  for (const cp of codePoints(glob)) {
    if (cp === 0x2a) {
      if (steps[steps.length - 1]?.repeat !== true) steps.push({ repeat: true, test: anyElement });
    } else {
      steps.push({ repeat: false, test: (c) => c === cp });
    }
  }
  const run = nfaRunner(steps);
  return {
    test(value: string): boolean {
      if (typeof value !== 'string') return false;
      return run(codePoints(value));
    },
  };
}
