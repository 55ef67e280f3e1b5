/**
 * Regex validation for the checks and lints, without a compile by the regex engine where it can
 * be avoided.
 *
 * A policy with many regexes would spend most of its checks compiling them. `plainRegexValid`
 * recognises a plain subset of RE2 syntax, bounded in size, that the engine always accepts; every
 * other regex (and so every error, with its message and offset) is still decided by the engine,
 * through `checkRegex`.
 *
 * The subset is read from the engine's syntax tree (engine/regex, `parseRegex`), which follows
 * RE2's parser: a regex is plain when the tree reads it (flags distinct ones of `ims`), every
 * character set in it is spelled out (no Unicode classes, no case-folded character outside
 * ASCII), group names are distinct, repetition counts above one are at most MAX_COUNT and none is
 * nested in another, groups nest at most MAX_DEPTH deep, and the pattern is at most MAX_LENGTH
 * characters and MAX_WEIGHT in size (re2-wasm has a small, fixed memory: a large program can fail
 * to compile). Left to the engine as well: patterns with control characters (re2-wasm passes the
 * pattern as a C string, which a NUL would end), `\Q...\E` quoting and POSIX classes (`[:alpha:]`).
 */
import { checkRegex, parseRegex, type MatchError, type RegexNode } from '../engine/index.js';

const MAX_LENGTH = 500;
const MAX_DEPTH = 50;
const MAX_COUNT = 100;
/** A bound on the size of the compiled program (in rough instruction counts), far below RE2's. */
const MAX_WEIGHT = 5000;
const CLASS_WEIGHT = 10;

const NOT_PLAIN = new Error('not in the plain subset');

/** The size of a node's program, in rough instructions; throws NOT_PLAIN outside the subset. */
function weigh(node: RegexNode, depth: number, inCount: boolean, names: Set<string>): number {
  switch (node.kind) {
    case 'chars':
      if (node.set === null) throw NOT_PLAIN;
      return node.set.length === 2 && node.set[0] === node.set[1] ? 1 : CLASS_WEIGHT + node.set.length;
    case 'assert':
      return 1;
    case 'group':
      if (depth >= MAX_DEPTH) throw NOT_PLAIN;
      if (node.name !== undefined) {
        if (names.has(node.name)) throw NOT_PLAIN;
        names.add(node.name);
      }
      return weigh(node.item, depth + 1, inCount, names) + 1;
    case 'concat':
      return node.items.reduce((w, item) => w + weigh(item, depth, inCount, names) + 1, 0);
    case 'alt':
      return node.alts.reduce((w, alt) => w + weigh(alt, depth, inCount, names) + 1, 0);
    case 'repeat': {
      // RE2 bounds the product of nested counts by what each repetition can repeat: its maximum,
      // or its minimum when unbounded. `*`, `+` and `?` count 0 or 1.
      const count = node.max === Infinity ? node.min : node.max;
      const counted = count > 1;
      if (counted && (count > MAX_COUNT || inCount)) throw NOT_PLAIN;
      const copies = Math.max(1, node.max === Infinity ? node.min + 1 : node.max);
      return weigh(node.item, depth, inCount || counted, names) * copies + 1;
    }
  }
}

/** Whether the regex is in the plain subset above (and so valid RE2 with these flags). */
export function plainRegexValid(source: string, flags: string): boolean {
  if (typeof source !== 'string' || typeof flags !== 'string') return false;
  if (source.length > MAX_LENGTH || source.includes('\\Q') || source.includes('[:')) return false;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  const parsed = parseRegex(source, flags);
  if (!parsed.ok) return false;
  try {
    return weigh(parsed.node, 0, false, new Set()) <= MAX_WEIGHT;
  } catch {
    return false;
  }
}

/** Whether the engine itself loads and compiles a regex here (checked once). */
let engineWorks: boolean | undefined;

/** Results of `checkRegex` for regexes outside the plain subset, so each is compiled once. */
const problems = new Map<string, MatchError | null>();
const MAX_PROBLEMS = 10_000;

/**
 * What `checkRegex` says of a regex (null: valid), compiling it only when it is not in the plain
 * subset. When the engine cannot be used at all, every regex goes to `checkRegex`, which then reports it.
 */
export function regexProblem(source: string, flags: string): MatchError | null {
  engineWorks ??= checkRegex('(?:)', '') === null;
  if (engineWorks && plainRegexValid(source, flags)) return null;
  const key = `${flags.length}:${flags}:${source}`;
  const known = problems.get(key);
  if (known !== undefined) return known;
  const problem = checkRegex(source, flags);
  // An engine that could not decide says nothing of the regex: not remembered, so a later compile tries again.
  if (problem?.transient === true) return problem;
  if (problems.size >= MAX_PROBLEMS) problems.clear();
  problems.set(key, problem);
  return problem;
}
