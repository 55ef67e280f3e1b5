/**
 * Tokens and the lexer of the policy language.
 *
 * The lexer is deliberately forgiving: text that almost forms a token (a string without its closing
 * quote, a regex without its closing slash, `10sec`) still becomes a token, of a "bad" type that
 * belongs to the category of the good one. The parser then carries on as if the token were fine and
 * `index.ts` reports the problem once, instead of a cascade of parse errors. Characters that start no
 * token at all are gathered into runs (`Invalid`), set aside and reported, one error per run.
 */
import { createToken, Lexer, type ITokenConfig, type TokenType } from 'chevrotain';

// ---------------------------------------------------------------- categories

/** Every token the lexer makes: lets the parser skip any token while it recovers from an error. */
export const AnyToken = createToken({ name: 'AnyToken', pattern: Lexer.NA });

/** A token of the lexer, in the `AnyToken` category. */
function token(config: ITokenConfig): TokenType {
  const categories = config.categories === undefined ? [] : Array.isArray(config.categories) ? config.categories : [config.categories];
  return createToken({ ...config, categories: [...categories, AnyToken] });
}

/** Any word: a plain name or any keyword (object keys, the decision of a test case). */
export const AnyWord = createToken({ name: 'AnyWord', pattern: Lexer.NA });
/**
 * Words that may name a field in a `when` condition: names, selector words (`when command matches
 * ...`) and rule effects. Item and clause keywords are not fields, so `when because` is an error.
 */
export const FieldWord = createToken({ name: 'FieldWord', pattern: Lexer.NA });
/** The effect that starts a rule (`deny`, `ask`, ...). */
export const EffectWord = createToken({ name: 'EffectWord', pattern: Lexer.NA });
/** `command`, `path`, `url`, `domain`. */
export const SelectorWord = createToken({ name: 'SelectorWord', pattern: Lexer.NA });
/** The binary comparison operators of a condition. */
export const CompareOp = createToken({ name: 'CompareOp', pattern: Lexer.NA });

// ---------------------------------------------------------------- trivia

export const WhiteSpace = token({
  name: 'WhiteSpace',
  pattern: /[ \t\r\n\f\v\uFEFF]+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});

/** `#` to the end of the line; kept in its own group so a formatter can put comments back. */
export const Comment = token({ name: 'Comment', pattern: /#[^\r\n]*/, group: 'comments' });

// ---------------------------------------------------------------- literals

/**
 * Scans a quoted literal (`"..."` or `/.../`) from `offset`: to its closing delimiter when `closed`
 * (null if there is none on the line), or to the end of the line when not (an unterminated literal,
 * including a final lone backslash). A plain loop rather than a regex: a regex with a repeated group
 * can exhaust the stack on a very long line.
 */
function quoted(delimiter: number, closed: boolean, flags: boolean) {
  return (text: string, offset: number): [string] | null => {
    if (text.charCodeAt(offset) !== delimiter) return null;
    const n = text.length;
    let i = offset + 1;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === delimiter) {
        if (!closed) return null;
        i++;
        if (flags) while (i < n && isLetter(text.charCodeAt(i))) i++;
        return [text.slice(offset, i)];
      }
      if (c === 10 || c === 13) break;
      if (c === 92 /* \ */) {
        const d = i + 1 < n ? text.charCodeAt(i + 1) : 10;
        i += d === 10 || d === 13 ? 1 : 2;
        if (d === 10 || d === 13) break;
        continue;
      }
      i++;
    }
    return closed ? null : [text.slice(offset, Math.min(i, n))];
  };
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

export const StringLit = token({
  name: 'StringLit',
  pattern: { exec: quoted(34, true, false) },
  start_chars_hint: ['"'],
  line_breaks: false,
});
/** A string that reaches the end of its line (or of the file) without a closing quote. */
export const UnterminatedString = token({
  name: 'UnterminatedString',
  pattern: { exec: quoted(34, false, false) },
  start_chars_hint: ['"'],
  line_breaks: false,
  categories: [StringLit],
});

/** `/pattern/flags`; the flags are any letters here and are checked later. */
export const RegexLit = token({
  name: 'RegexLit',
  pattern: { exec: quoted(47, true, true) },
  start_chars_hint: ['/'],
  line_breaks: false,
});
/** A regex that reaches the end of its line (or of the file) without a closing slash. */
export const UnterminatedRegex = token({
  name: 'UnterminatedRegex',
  pattern: { exec: quoted(47, false, false) },
  start_chars_hint: ['/'],
  line_breaks: false,
  categories: [RegexLit],
});

export const DurationLit = token({
  name: 'DurationLit',
  pattern: /\d+(?:ms|s|m|h)(?![A-Za-z0-9_.])/,
  start_chars_hint: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
});
export const NumberLit = token({
  name: 'NumberLit',
  pattern: /\d+(?:\.\d+)?(?![A-Za-z0-9_.])/,
  start_chars_hint: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
});
/** Digits run together with letters (`10sec`, `1.2.3`): reported, then read as a number or duration. */
export const BadNumber = token({
  name: 'BadNumber',
  pattern: /\d[A-Za-z0-9_.]*/,
  categories: [NumberLit, DurationLit],
});

// ---------------------------------------------------------------- characters that start no token

/** Whether a character can start a token (or whitespace): `!` only as part of `!=`. */
function startsToken(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c === 33 /* ! */) return text.charCodeAt(i + 1) === 61;
  return c < 128 ? STARTS[c] === 1 : c === 0xfeff;
}

const STARTS = new Uint8Array(128);
for (const ch of ' \t\r\n\f\v_*"/#{}[](),:=0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ') STARTS[ch.charCodeAt(0)] = 1;

/**
 * A run of characters that start no token. Matching them as a token (reported and dropped by
 * `parse`) keeps the lexer on its fast path: its own error recovery tries every pattern at every
 * character, which takes seconds on a few megabytes of binary data.
 */
export const Invalid = token({
  name: 'Invalid',
  pattern: {
    exec: (text: string, offset: number): [string] | null => {
      let i = offset;
      while (i < text.length && !startsToken(text, i)) i++;
      return i > offset ? [text.slice(offset, i)] : null;
    },
  },
  // every character that may start a run: the invalid ones below 256, and one per block of 256
  // above (the lexer files characters from 256 on by blocks)
  start_chars_hint: [
    ...Array.from({ length: 256 }, (_, c) => c).filter((c) => c >= 128 || STARTS[c] !== 1),
    ...Array.from({ length: 255 }, (_, b) => (b + 1) * 256),
  ],
  line_breaks: false,
  group: 'invalid',
});

// ---------------------------------------------------------------- punctuation

export const LCurly = token({ name: 'LCurly', pattern: '{' });
export const RCurly = token({ name: 'RCurly', pattern: '}' });
export const LBracket = token({ name: 'LBracket', pattern: '[' });
export const RBracket = token({ name: 'RBracket', pattern: ']' });
export const LParen = token({ name: 'LParen', pattern: '(' });
export const RParen = token({ name: 'RParen', pattern: ')' });
export const Comma = token({ name: 'Comma', pattern: ',' });
export const Colon = token({ name: 'Colon', pattern: ':' });
export const Arrow = token({ name: 'Arrow', pattern: '=>' });
export const EqEq = token({ name: 'EqEq', pattern: '==', categories: [CompareOp] });
export const NotEq = token({ name: 'NotEq', pattern: '!=', categories: [CompareOp] });
export const Equals = token({ name: 'Equals', pattern: '=' });

// ---------------------------------------------------------------- words

export const Name = token({
  name: 'Name',
  pattern: /[A-Za-z_*][A-Za-z0-9_*.-]*/,
  categories: [AnyWord, FieldWord],
});

/** Every keyword by its spelling, filled by `keyword()`. */
export const keywordTokens = new Map<string, TokenType>();

function keyword(word: string, categories: TokenType[] = []): TokenType {
  const name = 'Kw' + word.charAt(0).toUpperCase() + word.slice(1);
  const tok = token({ name, pattern: word, longer_alt: Name, categories: [AnyWord, ...categories] });
  keywordTokens.set(word, tok);
  return tok;
}

// items
export const Policy = keyword('policy');
export const Include = keyword('include');
export const Import = keyword('import');
export const Let = keyword('let');
export const On = keyword('on');
export const Test = keyword('test');
export const Unprotect = keyword('unprotect');
// clauses
export const When = keyword('when');
export const Because = keyword('because');
export const Hook = keyword('hook');
export const Timeout = keyword('timeout');
export const Dialect = keyword('dialect');
export const Matcher = keyword('matcher');
export const With = keyword('with');
// rule effects
export const Deny = keyword('deny', [FieldWord, EffectWord]);
export const Ask = keyword('ask', [FieldWord, EffectWord]);
export const Allow = keyword('allow', [FieldWord, EffectWord]);
export const Block = keyword('block', [FieldWord, EffectWord]);
export const Context = keyword('context', [FieldWord, EffectWord]);
export const Continue = keyword('continue', [FieldWord, EffectWord]);
export const Halt = keyword('halt', [FieldWord, EffectWord]);
export const Run = keyword('run', [FieldWord, EffectWord]);
export const Limit = keyword('limit', [FieldWord, EffectWord]);
// selectors
export const Command = keyword('command', [FieldWord, SelectorWord]);
export const Path = keyword('path', [FieldWord, SelectorWord]);
export const Url = keyword('url', [FieldWord, SelectorWord]);
export const Domain = keyword('domain', [FieldWord, SelectorWord]);
// condition words
export const And = keyword('and', []);
export const Or = keyword('or', []);
export const Not = keyword('not', []);
export const Exists = keyword('exists', []);
export const Ran = keyword('ran', []);
export const True = keyword('true', []);
export const False = keyword('false', []);
export const Null = keyword('null', []);
export const In = keyword('in', [CompareOp]);
export const Matches = keyword('matches', [CompareOp]);
export const Glob = keyword('glob', [CompareOp]);
export const StartsWith = keyword('startswith', [CompareOp]);
export const EndsWith = keyword('endswith', [CompareOp]);
export const Contains = keyword('contains', [CompareOp]);

/** Keywords, longest first, so that a keyword is never cut short by one of its prefixes. */
const keywordsLongestFirst = [...keywordTokens.entries()]
  .sort((a, b) => b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1))
  .map(([, tok]) => tok);

/** Tokens in the order the lexer tries them (first match wins, keywords yield to longer names). */
export const lexerTokens: TokenType[] = [
  WhiteSpace,
  Comment,
  StringLit,
  UnterminatedString,
  RegexLit,
  UnterminatedRegex,
  DurationLit,
  NumberLit,
  BadNumber,
  LCurly,
  RCurly,
  LBracket,
  RBracket,
  LParen,
  RParen,
  Comma,
  Colon,
  Arrow,
  EqEq,
  NotEq,
  Equals,
  ...keywordsLongestFirst,
  Name,
  Invalid,
];

/** Every token type the parser knows, categories included. */
export const allTokens: TokenType[] = [
  ...lexerTokens,
  AnyToken,
  AnyWord,
  FieldWord,
  EffectWord,
  SelectorWord,
  CompareOp,
];

let lexer: Lexer | undefined;

/**
 * The one lexer instance; it holds no state between runs. It is built at its first use (building
 * it takes tens of milliseconds, which a process that never runs it need not pay).
 */
export const policyLexer: Pick<Lexer, 'tokenize'> = {
  tokenize: (text, initialMode) =>
    (lexer ??= new Lexer(lexerTokens, { positionTracking: 'onlyOffset', ensureOptimizations: true })).tokenize(text, initialMode),
};

/** The keywords that start a top-level item. */
export const itemKeywords: ReadonlySet<TokenType> = new Set([Policy, Include, Import, Let, On, Test, Unprotect]);

/** Opening and closing brackets, for the nesting-depth scan. */
export const openers: ReadonlySet<TokenType> = new Set([LCurly, LBracket, LParen]);
export const closers: ReadonlySet<TokenType> = new Set([RCurly, RBracket, RParen]);
