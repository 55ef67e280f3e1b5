/**
 * The lexer of the fast parse path (parse-fast.ts): the tokens the grammar's lexer
 * (grammar/tokens.ts) makes of a file, as three flat arrays, for a file in which the grammar's
 * lexing steps (`lexPolicy`) find nothing to report. At the first thing that would be reported (a
 * character that starts no token, an unterminated or malformed literal, brackets or `not`s nested
 * too deep), or that it is not sure of, it gives up (undefined).
 *
 * The grammar's lexer tries its patterns in order at each position and takes the first that
 * matches; a keyword yields to a longer name. Here: whitespace and comments are skipped; `"` and
 * `/` start a string and a regex (closed on the same line); a digit starts a duration or a number;
 * `{}[](),:`, `=>`, `==`, `!=` and `=` are punctuation; a word (a name's characters, as long as they
 * go) is a keyword when it is one exactly, a name otherwise. A change to the tokens
 * (grammar/tokens.ts) needs the same change here (parse-fast.test.ts compares the two lexers).
 */
import { decodeRegex, decodeString, MAX_NESTING, tokens as T } from '../grammar/index.js';
import type { TokenType } from 'chevrotain';

export interface FastTokens {
  types: TokenType[];
  /** Offsets of each token's first character and of the character after it. */
  starts: number[];
  ends: number[];
}

const enum C {
  Tab = 9,
  LineFeed = 10,
  VerticalTab = 11,
  FormFeed = 12,
  CarriageReturn = 13,
  Space = 32,
  Bang = 33,
  Quote = 34,
  Hash = 35,
  LParen = 40,
  RParen = 41,
  Star = 42,
  Comma = 44,
  Dash = 45,
  Dot = 46,
  Slash = 47,
  Digit0 = 48,
  Digit9 = 57,
  Colon = 58,
  Equals = 61,
  Greater = 62,
  UpperA = 65,
  UpperZ = 90,
  LBracket = 91,
  Backslash = 92,
  RBracket = 93,
  Underscore = 95,
  LowerA = 97,
  LowerZ = 122,
  LCurly = 123,
  RCurly = 125,
  Bom = 0xfeff,
}

/** The single-character punctuation tokens. */
const PUNCTUATION: Readonly<Record<number, TokenType>> = {
  [C.LCurly]: T.LCurly,
  [C.RCurly]: T.RCurly,
  [C.LBracket]: T.LBracket,
  [C.RBracket]: T.RBracket,
  [C.LParen]: T.LParen,
  [C.RParen]: T.RParen,
  [C.Comma]: T.Comma,
  [C.Colon]: T.Colon,
};

function isDigit(c: number): boolean {
  return c >= C.Digit0 && c <= C.Digit9;
}

function isLetter(c: number): boolean {
  return (c >= C.UpperA && c <= C.UpperZ) || (c >= C.LowerA && c <= C.LowerZ);
}

/** `[A-Za-z_*]`: the first character of a name. */
function startsName(c: number): boolean {
  return isLetter(c) || c === C.Underscore || c === C.Star;
}

/** `[A-Za-z0-9_*.-]`: the other characters of a name. */
function continuesName(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === C.Underscore || c === C.Star || c === C.Dot || c === C.Dash;
}

/** `[A-Za-z0-9_.]`: what may not follow a number or a duration. */
function continuesNumber(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === C.Underscore || c === C.Dot;
}

function isSpace(c: number): boolean {
  return c === C.Space || c === C.Tab || c === C.LineFeed || c === C.CarriageReturn || c === C.FormFeed || c === C.VerticalTab || c === C.Bom;
}

/** Whether the last literal `closedLiteral` read holds a `\`. */
let literalEscapes = false;

/** The end of a literal closed by `delimiter` on its line, from its opening at `offset`; -1 when it is not. */
function closedLiteral(text: string, offset: number, delimiter: number): number {
  const n = text.length;
  literalEscapes = false;
  let i = offset + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === delimiter) return i + 1;
    if (c === C.LineFeed || c === C.CarriageReturn) return -1;
    if (c === C.Backslash) {
      literalEscapes = true;
      const d = i + 1 < n ? text.charCodeAt(i + 1) : C.LineFeed;
      if (d === C.LineFeed || d === C.CarriageReturn) return -1;
      i += 2;
      continue;
    }
    i++;
  }
  return -1;
}

const UNITS = ['ms', 's', 'm', 'h'];

/** The keywords by length: a word is one when it is exactly one of them. */
const KEYWORDS_BY_LENGTH: [string, TokenType][][] = [];
for (const [word, type] of T.keywordTokens) (KEYWORDS_BY_LENGTH[word.length] ??= []).push([word, type]);

/** The keyword `text[start, end)` spells, if any (without slicing the text). */
function keywordAt(text: string, start: number, end: number): TokenType | undefined {
  const candidates = KEYWORDS_BY_LENGTH[end - start];
  if (candidates === undefined) return undefined;
  for (const [word, type] of candidates) if (text.startsWith(word, start)) return type;
  return undefined;
}

export function lexFast(text: string): FastTokens | undefined {
  const types: TokenType[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const n = text.length;
  let depth = 0;
  let nots = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === C.Hash) {
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === C.LineFeed || d === C.CarriageReturn) break;
        i++;
      }
      continue;
    }
    const start = i;
    let type: TokenType;
    if (c === C.Quote) {
      i = closedLiteral(text, start, C.Quote);
      if (i < 0) return undefined;
      // an escape the string's decoding would report
      if (literalEscapes && decodeString(text.slice(start, i)).problems.length > 0) return undefined;
      type = T.StringLit;
    } else if (c === C.Slash) {
      i = closedLiteral(text, start, C.Slash);
      if (i < 0) return undefined;
      while (i < n && isLetter(text.charCodeAt(i))) i++;
      if (decodeRegex(text.slice(start, i)).source === '') return undefined;
      type = T.RegexLit;
    } else if (isDigit(c)) {
      let j = i;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      const unit = UNITS.find((u) => text.startsWith(u, j) && !continuesNumber(text.charCodeAt(j + u.length)));
      if (unit !== undefined) {
        i = j + unit.length;
        type = T.DurationLit;
      } else {
        if (text.charCodeAt(j) === C.Dot && isDigit(text.charCodeAt(j + 1))) {
          j += 2;
          while (j < n && isDigit(text.charCodeAt(j))) j++;
        }
        // a number run together with what follows is malformed (reported)
        if (j < n && continuesNumber(text.charCodeAt(j))) return undefined;
        i = j;
        type = T.NumberLit;
      }
    } else if (startsName(c)) {
      let j = i + 1;
      while (j < n && continuesName(text.charCodeAt(j))) j++;
      i = j;
      type = keywordAt(text, start, i) ?? T.Name;
    } else if (c === C.Equals) {
      const d = text.charCodeAt(i + 1);
      if (d === C.Greater) {
        i += 2;
        type = T.Arrow;
      } else if (d === C.Equals) {
        i += 2;
        type = T.EqEq;
      } else {
        i++;
        type = T.Equals;
      }
    } else if (c === C.Bang && text.charCodeAt(i + 1) === C.Equals) {
      i += 2;
      type = T.NotEq;
    } else {
      const punctuation = PUNCTUATION[c];
      if (punctuation === undefined) return undefined;
      i++;
      type = punctuation;
    }
    // brackets and `not`s nested deeper than the grammar allows are reported
    if (type === T.Not) {
      if (++nots > MAX_NESTING) return undefined;
    } else {
      nots = 0;
      if (T.openers.has(type)) {
        if (depth >= MAX_NESTING) return undefined;
        depth++;
      } else if (T.closers.has(type)) {
        depth = Math.max(0, depth - 1);
      }
    }
    types.push(type);
    starts.push(start);
    ends.push(i);
  }
  return { types, starts, ends };
}
