/**
 * Whether a regex (RE2 syntax) can match any text at all, for `check/regex-never-matches`: the
 * engine's analysis (engine/regex, `neverMatches`, over the one RE2 syntax tree), with the part
 * to blame named the way the lint's messages speak of it.
 */
import { neverMatches } from '../engine/index.js';

/** `bot`/`eot`: start or end of the text; `bol`/`eol`: of a line; `word`/`nonword`: `\b`/`\B`; `class`: a set of no character. */
export type CulpritKind = 'bot' | 'eot' | 'bol' | 'eol' | 'word' | 'nonword' | 'class';

export interface Culprit {
  kind: CulpritKind;
  start: number;
  end: number;
  /** The culprit as written in the source (`^` or `\A`, ...). */
  token: string;
}

const KINDS = {
  beginText: 'bot',
  endText: 'eot',
  beginLine: 'bol',
  endLine: 'eol',
  wordBoundary: 'word',
  notWordBoundary: 'nonword',
  class: 'class',
} as const;

/**
 * Whether no text contains a match of the regex (already validated). Undefined when some text
 * may, or when the regex is not analysable; otherwise the culprit, when removing one assertion or
 * empty class alone makes the regex satisfiable.
 */
export function unsatisfiable(source: string, flags: string): { culprit: Culprit | undefined } | undefined {
  const found = neverMatches(source, flags);
  if (found === undefined) return undefined;
  const c = found.culprit;
  if (c === undefined) return { culprit: undefined };
  return { culprit: { kind: KINDS[c.kind], start: c.start, end: c.end, token: source.slice(c.start, c.end) } };
}
