/**
 * "Did you mean" suggestions for misspelt names: seams, fields, selectors, tools, `let` names.
 */
import { alternatives } from '../engine/index.js';

/**
 * Edit distance with adjacent transpositions (optimal string alignment): the number of single
 * character insertions, deletions, substitutions and swaps of neighbours that turn `a` into `b`.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const cols = b.length + 1;
  // Three rows: two back (for transpositions), previous and current.
  let prev2 = new Array<number>(cols).fill(0);
  let prev = new Array<number>(cols);
  let cur = new Array<number>(cols);
  for (let j = 0; j < cols; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, prev2[j - 2]! + 1);
      }
      cur[j] = d;
    }
    const spare = prev2;
    prev2 = prev;
    prev = cur;
    cur = spare;
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `word`: one equal ignoring case wins; otherwise the nearest one within
 * `maxDistance` edits (and closer than the word is long, so short words do not match everything).
 * Ties go to the earlier candidate, so suggestions are deterministic.
 */
export function closest(word: string, candidates: Iterable<string>, maxDistance = 2): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    if (candidate.toLowerCase() === lower) return candidate;
    const d = editDistance(word, candidate);
    if (d <= maxDistance && d < word.length && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** "did you mean `x`?" or undefined. */
export function didYouMean(word: string, candidates: Iterable<string>, maxDistance = 2): string | undefined {
  const found = closest(word, candidates, maxDistance);
  return found === undefined ? undefined : `did you mean \`${found}\`?`;
}

/** `a`, `b`, `c` */
export function codeList(words: readonly string[]): string {
  return words.map((w) => `\`${w}\``).join(', ');
}

/** `a`, `b` or `c` */
export function codeAlternatives(words: readonly string[]): string {
  return alternatives(words.map((w) => `\`${w}\``));
}

/** The indefinite article for `word`: "an `ask` rule", "a `deny` rule". */
export function an(word: string): 'a' | 'an' {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}
