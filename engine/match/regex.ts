/**
 * Regexes in RE2 syntax (via re2-wasm), which run in time linear in the input.
 *
 * - Flags: a subset of `i` (ignore case), `m` (`^`/`$` match at line breaks), `s` (`.` matches `\n`).
 *   Inline flags such as `(?i)` or `(?s:...)` work as in RE2.
 * - Matching is a search (unanchored), like `RegExp.prototype.test`.
 * - Only the first 1 MiB (`MAX_REGEX_INPUT` UTF-16 code units) of a tested value is searched.
 * - Lookarounds and backreferences do not exist in RE2 and are reported as errors.
 * - Error offsets: an offset below `source.length` points into the pattern; an offset of
 *   `source.length + 1 + k` points at flag `k` as rendered in `/source/flags`.
 *
 * Validity is always decided by RE2. Tests of a valid regex take two shortcuts that give RE2's
 * answer without calling into WebAssembly: a text that contains none of the regex's required
 * literals does not match (regex-literals.ts, literal-scanner.ts), and a regex whose JavaScript
 * translation provably agrees with RE2 and runs in linear time is run as a JavaScript RegExp
 * (regex-fast.ts), on texts without unpaired surrogates. `regexPlan` tells which applies.
 */
import { lazyRequire } from '../require.js';
import type { RE2 } from 're2-wasm';
import { quote, type MatchError, type Matcher } from './types.js';
import { LiteralScanner } from './literal-scanner.js';
import { analyseRegex, type RegexAnalysis } from './regex-fast.js';
import { isWellFormedText } from './regex-parse.js';

// re2-wasm instantiates its WebAssembly module when loaded (tens of milliseconds): it is loaded at
// the first regex, so a process that compiles none (a hook answering from a cached policy without
// regexes) never pays for it.
let re2Class: typeof RE2 | undefined;
function re2(): typeof RE2 {
  return (re2Class ??= (lazyRequire('re2-wasm') as { RE2: typeof RE2 }).RE2);
}

/** Tested values are cut to this many UTF-16 code units. */
export const MAX_REGEX_INPUT = 1024 * 1024;

/** At most this many regexes are remembered (validity, test plan, RE2 object). */
const CACHE_LIMIT = 1000;

const LINEAR = 'regexes use RE2 syntax, which runs in linear time';

interface CompiledRegex {
  readonly key: string;
  readonly source: string;
  /** The flags RE2 is given (`u` and the known ones of `ims`). */
  readonly re2Flags: string;
  /** The compiled RE2 object; null when the regex is invalid or the object was released. */
  re: RE2 | null;
  readonly error: MatchError | null;
  /** How tests run, worked out at the first test of a valid regex. */
  plan?: Plan;
}

/** RE2 could not compile a regex for want of memory, even after releasing every other one. */
class RegexResourceError extends Error {}

/** re2-wasm's errors when its memory is exhausted (an Emscripten abort), as opposed to a pattern's. */
function isResourceError(error: unknown): boolean {
  // A WebAssembly.RuntimeError (the engine layer is typed without the WebAssembly globals).
  if (error instanceof Error && error.name === 'RuntimeError') return true;
  const message = error instanceof Error ? error.message : String(error);
  return /\(OOM\)|out of memory|Cannot enlarge memory|^abort\(/i.test(message);
}

/**
 * How a valid regex is tested. Both shortcuts give RE2's answer (see regex-fast.ts and
 * regex-literals.ts); anything they do not cover goes to RE2.
 */
interface Plan {
  /** A JavaScript RegExp that agrees with RE2 on well-formed texts and runs in linear time. */
  readonly fast: RegExp | null;
  /** Required literals: a text containing none of them cannot match. */
  readonly prefilter: LiteralScanner | null;
  readonly analysis: RegexAnalysis;
  readonly why?: string;
}

/** Whether a string has no unpaired surrogate (re2-wasm's UTF-8 conversion garbles those). */
const isWellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : isWellFormedText;

function makePlan(source: string, flags: string): Plan {
  const analysis = analyseRegex(source, flags);
  let fast: RegExp | null = null;
  let why = analysis.why;
  if (analysis.jsSource !== null) {
    try {
      fast = new RegExp(analysis.jsSource, 'u');
    } catch {
      why = 'not accepted by the JavaScript regex engine';
    }
  }
  // A fast RegExp is cheaper than a literal scan; the scan pays off in front of RE2.
  const prefilter =
    fast === null && analysis.literals !== null
      ? new LiteralScanner(analysis.literals, { asciiCaseInsensitive: analysis.folded })
      : null;
  return why === undefined ? { fast, prefilter, analysis } : { fast, prefilter, analysis, why };
}

function planOf(source: string, flags: string, entry: CompiledRegex): Plan {
  if (entry.plan !== undefined) return entry.plan;
  try {
    entry.plan = makePlan(source, flags);
  } catch {
    entry.plan = { fast: null, prefilter: null, analysis: { jsSource: null, literals: null, folded: false } };
  }
  // A regex run as a JavaScript RegExp needs RE2 only for the rare text it cannot take.
  if (entry.plan.fast !== null) release(entry);
  return entry.plan;
}

/** Least recently used first; re-inserted on every use. */
const cache = new Map<string, CompiledRegex>();

/** The entries holding an RE2 object, least recently used first. */
const live = new Map<string, CompiledRegex>();

function cacheKey(source: string, flags: string): string {
  return `${flags.length}:${flags}:${source}`;
}

/** Frees an entry's RE2 object: compiled patterns live in WebAssembly memory, which the garbage collector does not reclaim. */
function release(entry: CompiledRegex): void {
  const re = entry.re;
  if (re === null) return;
  entry.re = null;
  if (live.get(entry.key) === entry) live.delete(entry.key);
  freeRe2(re);
}

function freeRe2(re: RE2): void {
  try {
    (re as unknown as { wrapper?: { delete?: () => void } }).wrapper?.delete?.();
  } catch {
    // already released
  }
}

/**
 * Compiles with RE2. re2-wasm has a fixed 16 MB of memory (about 1,700 simple patterns, or a few
 * dozen with large Unicode classes): when it is full, the least recently used half of the RE2
 * objects held is released and the compile tried again, then all of them. A regex whose object was
 * released gets a new one when a test needs RE2 again.
 */
function newRe2(source: string, re2Flags: string): RE2 {
  for (let attempt = 0; ; attempt++) {
    try {
      return new (re2())(source, re2Flags);
    } catch (error) {
      if (!isResourceError(error)) throw error;
      if (attempt === 2 || live.size === 0) throw new RegexResourceError('the regex engine ran out of memory');
    }
    makeRoom(attempt === 0 ? Math.ceil(live.size / 2) : live.size);
  }
}

/** Releases the `count` least recently used RE2 objects, except `keep`'s. */
function makeRoom(count: number, keep?: CompiledRegex): void {
  for (const entry of [...live.values()].slice(0, count)) if (entry !== keep) release(entry);
}

/** Marks an entry's RE2 object as the most recently used. */
function hold(entry: CompiledRegex): void {
  live.delete(entry.key);
  live.set(entry.key, entry);
}

/** The RE2 object of a valid entry, compiled again if it was released; null for an invalid regex. */
function re2Of(entry: CompiledRegex): RE2 | null {
  if (entry.error !== null) return null;
  if (entry.re === null) entry.re = newRe2(entry.source, entry.re2Flags);
  hold(entry);
  return entry.re;
}

function lookup(source: string, flags: string, key = cacheKey(source, flags)): CompiledRegex {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const entry = build(source, flags, key);
  cache.set(key, entry);
  while (cache.size > CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (oldest.done === true) break;
    const evicted = cache.get(oldest.value);
    cache.delete(oldest.value);
    if (evicted !== undefined) release(evicted);
  }
  return entry;
}

/** Drops every cached compiled regex, releasing RE2's memory (matchers rebuild what they need). */
export function clearRegexCache(): void {
  for (const entry of cache.values()) release(entry);
  cache.clear();
  live.clear();
}

/** How many RE2 objects are held (for tests). */
export function liveRegexCount(): number {
  return live.size;
}

function checkFlags(source: string, flags: string): MatchError | null {
  const seen = new Set<string>();
  for (let k = 0; k < flags.length; k++) {
    const flag = flags[k]!;
    const offset = source.length + 1 + k;
    if (flag !== 'i' && flag !== 'm' && flag !== 's') {
      return { message: `unknown regex flag ${quote(flag)}: the flags are \`i\`, \`m\` and \`s\``, offset };
    }
    if (seen.has(flag)) return { message: `duplicate regex flag ${quote(flag)}`, offset };
    seen.add(flag);
  }
  return null;
}

/**
 * Compiles a regex to decide whether it is valid. Throws RegexResourceError when RE2 has no memory
 * for it (nothing is remembered then, so a later call tries again).
 */
function build(source: string, flags: string, key: string): CompiledRegex {
  if (typeof source !== 'string' || typeof flags !== 'string') {
    return { key, source: '', re2Flags: 'u', re: null, error: { message: 'regex source and flags must be strings', offset: 0 } };
  }
  let re: RE2 | null = null;
  let patternError: MatchError | null = null;
  const usable = [...new Set(flags.split('').filter((f) => f === 'i' || f === 'm' || f === 's'))].join('');
  try {
    re = newRe2(source, 'u' + usable);
  } catch (error) {
    if (error instanceof RegexResourceError) throw error;
    patternError = explainRe2Error(source, usable, error instanceof Error ? error.message : String(error));
  }
  const error = patternError ?? checkFlags(source, flags);
  if (error !== null && re !== null) {
    freeRe2(re);
    re = null;
  }
  const entry: CompiledRegex = { key, source, re2Flags: 'u' + usable, re, error };
  if (re !== null) hold(entry);
  return entry;
}

/**
 * Validates an RE2 regex (flags a subset of `ims`); null when it is fine. When RE2 runs out of
 * memory the answer is an error marked `transient`, not a verdict on the regex.
 */
export function checkRegex(source: string, flags: string): MatchError | null {
  try {
    return lookup(source, flags).error;
  } catch (error) {
    if (error instanceof RegexResourceError) return { message: 'the regex engine ran out of memory compiling this regex', offset: 0, transient: true };
    return { message: 'regex could not be compiled', offset: 0 };
  }
}

/**
 * Compiles an RE2 regex. An invalid regex compiles to a matcher that never matches. The regex is
 * built at its first test, so a policy pays for RE2 only when an event reaches one of its regexes.
 */
export function compileRegex(source: string, flags: string): Matcher {
  const key = cacheKey(source, flags);
  let valid: boolean | undefined;
  let plan: Plan | undefined;
  return {
    test: (value: string) => {
      if (valid === undefined) {
        const problem = checkRegex(source, flags);
        // No memory to compile it: this test fails (and the event fails closed); the next tries again.
        if (problem?.transient === true) {
          failures++;
          return false;
        }
        valid = problem === null;
      }
      if (!valid) return false;
      try {
        plan ??= planOf(source, flags, lookup(source, flags, key));
      } catch {
        failures++;
        return false;
      }
      return testPlan(plan, source, flags, key, value);
    },
  };
}

/**
 * Which way a regex is tested: `fast` when a JavaScript RegExp stands in for RE2 (on texts without
 * unpaired surrogates); `literals` when a text must contain one of them to match (`folded`: compared
 * with ASCII letters lowercased), looked for before RE2 runs when the regex is not `fast`; `why` the
 * reason a valid regex is not on the fast path.
 */
export function regexPlan(
  source: string,
  flags: string,
): { fast: boolean; literals: string[] | null; folded: boolean; why?: string } {
  const problem = checkRegex(source, flags);
  if (problem !== null) return { fast: false, literals: null, folded: false, why: problem.transient === true ? problem.message : 'invalid regex' };
  try {
    const plan = planOf(source, flags, lookup(source, flags));
    const out = { fast: plan.fast !== null, literals: plan.analysis.literals, folded: plan.analysis.folded };
    return plan.why === undefined ? out : { ...out, why: plan.why };
  } catch {
    return { fast: false, literals: null, folded: false, why: 'regex could not be compiled' };
  }
}

/** Whether the regex finds a match in the first `MAX_REGEX_INPUT` code units of `value`; false when invalid. */
export function regexMatches(source: string, flags: string, value: string): boolean {
  return testCached(source, flags, undefined, value);
}

/**
 * Tests that failed inside the regex engine (RE2 out of memory, ...) since the process started.
 * Such a test answers false; an evaluator compares the count before and after an event and fails
 * closed when it moved, since a false from a failed test is not a real no-match.
 */
let failures = 0;
export function regexFailures(): number {
  return failures;
}

function testCached(source: string, flags: string, key: string | undefined, value: string): boolean {
  try {
    if (typeof value !== 'string') return false;
    const entry = lookup(source, flags, key);
    if (entry.error !== null) return false;
    return testPlan(planOf(source, flags, entry), source, flags, key, value);
  } catch {
    failures++;
    return false;
  }
}

/** Tests a valid regex: literal prefilter, then the fast RegExp or RE2, on the same capped input. */
function testPlan(plan: Plan, source: string, flags: string, key: string | undefined, value: string): boolean {
  try {
    if (typeof value !== 'string') return false;
    const input = capInput(value);
    if (plan.prefilter !== null && !plan.prefilter.has(input)) return false;
    if (plan.fast !== null && isWellFormed(input)) {
      try {
        return plan.fast.test(input);
      } catch {
        // e.g. the engine's backtrack stack ran out: RE2 answers instead
      }
    }
    return re2Test(lookup(source, flags, key), input);
  } catch {
    failures++;
    return false;
  }
}

/** Tests with RE2; matching needs memory too: when it is full, the other RE2 objects are released and the test tried once more. */
function re2Test(entry: CompiledRegex, input: string): boolean {
  for (let attempt = 0; ; attempt++) {
    const re = re2Of(entry);
    if (re === null) return false;
    try {
      re.lastIndex = 0;
      return re.test(input);
    } catch (error) {
      if (attempt === 1 || !isResourceError(error)) throw error;
    }
    makeRoom(live.size, entry);
  }
}

function capInput(value: string): string {
  if (value.length <= MAX_REGEX_INPUT) return value;
  let end = MAX_REGEX_INPUT;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // keep a surrogate pair whole
  return value.slice(0, end);
}

// ---------------------------------------------------------------------------------------------
// Error messages

/** Per code unit: 0 plain, 1 inside a character class, 2 escaped by the preceding backslash. */
interface SourceMap {
  readonly state: Uint8Array;
  /** Offsets of `(` never closed, innermost last. */
  readonly unclosed: number[];
  /** Offset of the first `)` without a `(`, or -1. */
  readonly unmatchedClose: number;
}

function mapSource(source: string): SourceMap {
  const state = new Uint8Array(source.length);
  const open: number[] = [];
  let unmatchedClose = -1;
  let inClass = false;
  let classStart = 0;
  let quoting = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quoting) {
      state[i] = 2;
      if (c === '\\' && source[i + 1] === 'E') {
        quoting = false;
        state[i + 1] = 2;
        i++;
      }
      continue;
    }
    if (inClass) state[i] = 1;
    if (c === '\\') {
      if (source[i + 1] === 'Q') {
        quoting = true;
        state[i + 1] = 2;
        i++;
        continue;
      }
      if (i + 1 < source.length) state[i + 1] = 2;
      i++;
      continue;
    }
    if (inClass) {
      if (c === '[' && source[i + 1] === ':') {
        const end = source.indexOf(':]', i + 2);
        if (end >= 0) {
          state.fill(1, i, end + 2);
          i = end + 1;
        }
      } else if (c === ']' && i > classStart) {
        inClass = false;
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      classStart = i + 1;
      if (source[classStart] === '^') classStart++;
    } else if (c === '(') {
      open.push(i);
    } else if (c === ')') {
      if (open.length > 0) open.pop();
      else if (unmatchedClose < 0) unmatchedClose = i;
    }
  }
  return { state, unclosed: open, unmatchedClose };
}

/** Where RE2's quoted fragment is in the source: prefer a plain (unescaped, outside a class) start. */
function locate(source: string, fragment: string, map: SourceMap, fromEnd: boolean): number {
  const variants = [fragment, fragment.replace(/\\\//gu, '/'), fragment.replace(/\(\?P</gu, '(?<')];
  for (const wanted of [0, 1]) {
    for (const variant of variants) {
      if (variant.length === 0) continue;
      const found: number[] = [];
      for (let at = source.indexOf(variant); at >= 0; at = source.indexOf(variant, at + 1)) found.push(at);
      if (fromEnd) found.reverse();
      const pick = found.find((at) => (wanted === 0 ? map.state[at] === 0 : map.state[at] !== 2));
      if (pick !== undefined) return pick;
    }
  }
  for (const variant of variants) {
    const at = variant.length > 0 ? source.indexOf(variant) : -1;
    if (at >= 0) return at;
  }
  return 0;
}

function isValidCount(text: string): boolean {
  const m = /^\{(\d+)(,(\d*))?\}$/u.exec(text);
  if (!m) return false;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
  return min <= 1000 && (max === Infinity || (max <= 1000 && min <= max));
}

/** Rewrites a re2-wasm error (`Invalid regular expression: /src/flags: code: fragment`) in plain words. */
export function explainRe2Error(source: string, flags: string, raw: string): MatchError {
  let detail = raw;
  const rendered = source === '' ? '(?:)' : source.replace(/(^|[^\\])((?:\\\\)*)\//gu, '$1$2\\/');
  const prefix = `Invalid regular expression: /${rendered}/u${flags}: `;
  if (detail.startsWith(prefix)) detail = detail.slice(prefix.length);
  else if (detail.startsWith('Invalid regular expression: ')) detail = detail.slice('Invalid regular expression: '.length);
  const colon = detail.indexOf(': ');
  const code = (colon >= 0 ? detail.slice(0, colon) : detail).toLowerCase();
  // For `missing )` and `unexpected )` RE2 quotes the whole (rewritten) pattern; those are located by scanning.
  const fragment = colon >= 0 ? detail.slice(colon + 2) : '';
  const map = mapSource(source);
  const at = (fromEnd = false): number => locate(source, fragment, map, fromEnd);

  switch (code) {
    case 'missing )':
      return {
        message: 'unclosed group: missing `)`',
        offset: map.unclosed[map.unclosed.length - 1] ?? 0,
      };
    case 'unexpected )':
      return { message: 'unmatched `)`', offset: Math.max(0, map.unmatchedClose) };
    case 'missing ]':
      return { message: 'unterminated character class: missing `]`', offset: at() };
    case 'trailing \\':
      return { message: 'trailing `\\` escapes nothing', offset: Math.max(0, source.length - 1) };
    case 'invalid escape sequence': {
      const offset = at();
      if (/^\\[1-9]/u.test(fragment) || /^\\k/u.test(fragment)) {
        return { message: `backreferences are not supported: ${LINEAR}`, offset };
      }
      return { message: `invalid escape sequence ${quote(fragment)}`, offset };
    }
    case 'invalid perl operator': {
      const offset = at();
      const next = source.slice(offset, offset + 4);
      if (next === '(?<=' || next === '(?<!') return { message: `lookbehind is not supported: ${LINEAR}`, offset };
      if (next.startsWith('(?=') || next.startsWith('(?!')) return { message: `lookahead is not supported: ${LINEAR}`, offset };
      if (next.startsWith('(?P=') || next.startsWith('(?P>')) {
        return { message: `backreferences are not supported: ${LINEAR}`, offset };
      }
      return {
        message: `unsupported group syntax ${quote(fragment)}: RE2 knows \`(?:...)\`, \`(?<name>...)\`, \`(?P<name>...)\` and flags like \`(?i)\``,
        offset,
      };
    }
    case 'no argument for repetition operator':
    case 'missing argument to repetition operator':
      return { message: `${quote(fragment)} has nothing to repeat`, offset: at() };
    case 'bad repetition operator':
      return {
        message: `invalid repetition ${quote(fragment)}: a repetition cannot directly follow another (only \`?\` may, to make it lazy)`,
        offset: at(),
      };
    case 'invalid repetition size':
      return {
        message: `invalid repetition count ${quote(fragment)}: counts go up to 1000 and the minimum may not exceed the maximum`,
        offset: at(isValidCount(fragment)),
      };
    case 'invalid character class range':
      return { message: `invalid character class range ${quote(fragment)}`, offset: at() };
    case 'invalid character class':
      return { message: `invalid character class ${quote(fragment)}`, offset: at() };
    case 'invalid named capture group':
      return {
        message: `invalid named capture group ${quote(fragment.replace('(?P<', '(?<'))}: names are letters, digits and \`_\``,
        offset: at(),
      };
    case 'invalid utf-8':
      return { message: 'invalid utf-8 in regex', offset: 0 };
    case 'duplicate capture group name':
      return { message: 'duplicate capture group name', offset: duplicateGroupOffset(source) };
    case 'pattern too large - compile failed':
    case 'pattern too large - reverse compile failed':
      return { message: 'regex is too large to compile', offset: 0 };
    default: {
      const text = detail.length > 0 ? detail[0]!.toLowerCase() + detail.slice(1) : 'invalid regex';
      return { message: text.replace(/\.$/u, ''), offset: fragment.length > 0 ? at() : 0 };
    }
  }
}

function duplicateGroupOffset(source: string): number {
  const seen = new Set<string>();
  const named = /\(\?P?<([A-Za-z0-9_]+)>/gu;
  for (let m = named.exec(source); m !== null; m = named.exec(source)) {
    if (seen.has(m[1]!)) return m.index;
    seen.add(m[1]!);
  }
  return 0;
}
