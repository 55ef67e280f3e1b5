/**
 * Regexes in RE2 syntax, which run in time linear in the input.
 *
 * - Flags: a subset of `i` (ignore case), `m` (`^`/`$` match at line breaks), `s` (`.` matches `\n`).
 *   Inline flags such as `(?i)` or `(?s:...)` work as in RE2.
 * - Matching is a search (unanchored), like `RegExp.prototype.test`.
 * - Only the first 1 MiB (`MAX_REGEX_INPUT` UTF-16 code units) of a tested value is searched.
 * - Lookarounds and backreferences do not exist in RE2 and are reported as errors.
 * - Error offsets: an offset below `source.length` points into the pattern; an offset of
 *   `source.length + 1 + k` points at flag `k` as rendered in `/source/flags`.
 *
 * Validity is always decided by the regex engine, a `RegexBackend` (backend.ts): re2js by
 * default, re2-wasm on request (`useRegexBackend`). Tests of a valid regex take two shortcuts that
 * give the engine's answer without running it: a text that contains none of the regex's required
 * literals does not match (regex-literals.ts, literal-scanner.ts), and a regex whose JavaScript
 * translation provably agrees with RE2 and runs in linear time is run as a JavaScript RegExp
 * (regex-fast.ts), on texts without unpaired surrogates. `regexPlan` tells which applies.
 *
 * An engine that fails (out of memory, an internal error) never makes a regex invalid: the check
 * says so with a `transient` error, which is not remembered, and a test answers false and counts
 * in `regexFailures`, so an evaluator can fail closed.
 */
import { quote, type MatchError, type Matcher } from '../match/types.js';
import type { CompiledPattern, RegexBackend } from './backend.js';
import { re2jsBackend } from './backend-re2js.js';
import { LiteralScanner } from './literal-scanner.js';
import { analyseRegex, type RegexAnalysis } from './regex-fast.js';
import { isWellFormedText } from './regex-parse.js';

/** Tested values are cut to this many UTF-16 code units. */
export const MAX_REGEX_INPUT = 1024 * 1024;

/** At most this many regexes are remembered (validity, test plan, compiled pattern). */
const CACHE_LIMIT = 1000;

let backend: RegexBackend = re2jsBackend;

/** The engine regexes are compiled with. */
export function regexBackend(): RegexBackend {
  return backend;
}

/**
 * Makes `next` the engine of the regexes compiled from now on, forgetting every cached one.
 * Matchers made before keep the validity they found.
 */
export function useRegexBackend(next: RegexBackend): void {
  if (next === backend) return;
  clearRegexCache();
  backend = next;
}

interface CompiledRegex {
  readonly key: string;
  readonly source: string;
  /** The flags the engine is given (the known ones of `ims`, each once). */
  readonly flags: string;
  /** The compiled pattern; null when the regex is invalid or the pattern was let go. */
  pattern: CompiledPattern | null;
  readonly error: MatchError | null;
  /** How tests run, worked out at the first test of a valid regex. */
  plan?: Plan;
}

/** The engine could not decide on a regex (out of memory, ...); the error says so. */
class TransientFailure {
  constructor(readonly error: MatchError) {}
}

/**
 * How a valid regex is tested. Both shortcuts give the engine's answer (see regex-fast.ts and
 * regex-literals.ts); anything they do not cover goes to the engine.
 */
interface Plan {
  /** A JavaScript RegExp that agrees with RE2 on well-formed texts and runs in linear time. */
  readonly fast: RegExp | null;
  /** Required literals: a text containing none of them cannot match. */
  readonly prefilter: LiteralScanner | null;
  readonly analysis: RegexAnalysis;
  readonly why?: string;
}

/** Whether a string has no unpaired surrogate (the fast path's RegExp is only proven on those). */
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
  // A fast RegExp is cheaper than a literal scan; the scan pays off in front of the engine.
  const prefilter =
    fast === null && analysis.literals !== null
      ? new LiteralScanner(analysis.literals, { asciiCaseInsensitive: analysis.folded })
      : null;
  return why === undefined ? { fast, prefilter, analysis } : { fast, prefilter, analysis, why };
}

function planOf(entry: CompiledRegex): Plan {
  if (entry.plan !== undefined) return entry.plan;
  try {
    entry.plan = makePlan(entry.source, entry.flags);
  } catch {
    entry.plan = { fast: null, prefilter: null, analysis: { jsSource: null, literals: null, folded: false } };
  }
  // A regex run as a JavaScript RegExp needs the engine only for the rare text it cannot take.
  if (entry.plan.fast !== null) release(entry);
  return entry.plan;
}

/** Least recently used first; re-inserted on every use. */
const cache = new Map<string, CompiledRegex>();

function cacheKey(source: string, flags: string): string {
  return `${flags.length}:${flags}:${source}`;
}

function release(entry: CompiledRegex): void {
  const pattern = entry.pattern;
  entry.pattern = null;
  pattern?.free();
}

/** The compiled pattern of a valid entry, compiled again if it was let go; null for an invalid regex. */
function patternOf(entry: CompiledRegex): CompiledPattern | null {
  if (entry.error !== null) return null;
  if (entry.pattern === null) {
    const compiled = backend.compile(entry.source, entry.flags);
    if (!compiled.ok) throw new TransientFailure(compiled.error);
    entry.pattern = compiled.pattern;
  }
  return entry.pattern;
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

/** Drops every cached compiled regex (matchers rebuild what they need). */
export function clearRegexCache(): void {
  for (const entry of cache.values()) release(entry);
  cache.clear();
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
 * Compiles a regex to decide whether it is valid. Throws TransientFailure when the engine cannot
 * decide (nothing is remembered then, so a later call tries again).
 */
function build(source: string, flags: string, key: string): CompiledRegex {
  if (typeof source !== 'string' || typeof flags !== 'string') {
    return { key, source: '', flags: '', pattern: null, error: { message: 'regex source and flags must be strings', offset: 0 } };
  }
  const usable = [...new Set(flags.split('').filter((f) => f === 'i' || f === 'm' || f === 's'))].join('');
  const compiled = backend.compile(source, usable);
  if (!compiled.ok && compiled.error.transient === true) throw new TransientFailure(compiled.error);
  let pattern = compiled.ok ? compiled.pattern : null;
  const error = (compiled.ok ? null : compiled.error) ?? checkFlags(source, flags);
  if (error !== null && pattern !== null) {
    pattern.free();
    pattern = null;
  }
  return { key, source, flags: usable, pattern, error };
}

/**
 * Validates an RE2 regex (flags a subset of `ims`); null when it is fine. When the engine cannot
 * decide (out of memory, ...) the answer is an error marked `transient`, not a verdict on the regex.
 */
export function checkRegex(source: string, flags: string): MatchError | null {
  try {
    return lookup(source, flags).error;
  } catch (error) {
    if (error instanceof TransientFailure) return error.error;
    return { message: 'regex could not be compiled', offset: 0 };
  }
}

/**
 * Compiles an RE2 regex. An invalid regex compiles to a matcher that never matches. The regex is
 * built at its first test, so a policy pays for the engine only when an event reaches one of its regexes.
 */
export function compileRegex(source: string, flags: string): Matcher {
  const key = cacheKey(source, flags);
  let valid: boolean | undefined;
  let plan: Plan | undefined;
  return {
    test: (value: string) => {
      if (valid === undefined) {
        const problem = checkRegex(source, flags);
        // The engine could not compile it: this test fails (and the event fails closed); the next tries again.
        if (problem?.transient === true) {
          failures++;
          return false;
        }
        valid = problem === null;
      }
      if (!valid) return false;
      try {
        plan ??= planOf(lookup(source, flags, key));
      } catch {
        failures++;
        return false;
      }
      return testPlan(plan, source, flags, key, value);
    },
  };
}

/**
 * Which way a regex is tested: `fast` when a JavaScript RegExp stands in for the engine (on texts
 * without unpaired surrogates); `literals` when a text must contain one of them to match
 * (`folded`: compared with ASCII letters lowercased), looked for before the engine runs when the
 * regex is not `fast`; `why` the reason a valid regex is not on the fast path.
 */
export function regexPlan(
  source: string,
  flags: string,
): { fast: boolean; literals: string[] | null; folded: boolean; why?: string } {
  const problem = checkRegex(source, flags);
  if (problem !== null) return { fast: false, literals: null, folded: false, why: problem.transient === true ? problem.message : 'invalid regex' };
  try {
    const plan = planOf(lookup(source, flags));
    const out = { fast: plan.fast !== null, literals: plan.analysis.literals, folded: plan.analysis.folded };
    return plan.why === undefined ? out : { ...out, why: plan.why };
  } catch {
    return { fast: false, literals: null, folded: false, why: 'regex could not be compiled' };
  }
}

/** Whether the regex finds a match in the first `MAX_REGEX_INPUT` code units of `value`; false when invalid. */
export function regexMatches(source: string, flags: string, value: string): boolean {
  try {
    if (typeof value !== 'string') return false;
    const entry = lookup(source, flags);
    if (entry.error !== null) return false;
    return testPlan(planOf(entry), source, flags, entry.key, value);
  } catch {
    failures++;
    return false;
  }
}

/**
 * Tests that failed inside the regex engine since the process started. Such a test answers false;
 * an evaluator compares the count before and after an event and fails closed when it moved, since
 * a false from a failed test is not a real no-match.
 */
let failures = 0;
export function regexFailures(): number {
  return failures;
}

/** Tests a valid regex: literal prefilter, then the fast RegExp or the engine, on the same capped input. */
function testPlan(plan: Plan, source: string, flags: string, key: string, value: string): boolean {
  try {
    if (typeof value !== 'string') return false;
    const input = capInput(value);
    if (plan.prefilter !== null && !plan.prefilter.has(input)) return false;
    if (plan.fast !== null && isWellFormed(input)) {
      try {
        return plan.fast.test(input);
      } catch {
        // e.g. the engine's backtrack stack ran out: the regex engine answers instead
      }
    }
    const pattern = patternOf(lookup(source, flags, key));
    return pattern !== null && pattern.test(input);
  } catch {
    failures++;
    return false;
  }
}

function capInput(value: string): string {
  if (value.length <= MAX_REGEX_INPUT) return value;
  let end = MAX_REGEX_INPUT;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // keep a surrogate pair whole
  return value.slice(0, end);
}
