/**
 * Tokens and the lexer of the policy language.
 *
 * The lexer is deliberately forgiving: text that almost forms a token (a string without its closing
 * quote, a regex without its closing slash, `10sec`) still becomes a token, of a "bad" type that
 * belongs to the category of the good one. The parser then carries on as if the token were fine and
 * `index.ts` reports the problem once, instead of a cascade of parse errors.
 */
import { createToken, Lexer, type TokenType } from 'chevrotain';

// ---------------------------------------------------------------- categories

/** Any word: a plain name or any keyword (object keys, the decision of a test case). */
export const AnyWord = createToken({ name: 'AnyWord', pattern: Lexer.NA });
/** Words that may name a field in a `when` condition: names and keywords that are not operators. */
export const FieldWord = createToken({ name: 'FieldWord', pattern: Lexer.NA });
/** The effect that starts a rule (`deny`, `ask`, ...). */
export const EffectWord = createToken({ name: 'EffectWord', pattern: Lexer.NA });
/** `command`, `path`, `url`, `domain`. */
export const SelectorWord = createToken({ name: 'SelectorWord', pattern: Lexer.NA });
/** The binary comparison operators of a condition. */
export const CompareOp = createToken({ name: 'CompareOp', pattern: Lexer.NA });

// ---------------------------------------------------------------- trivia

export const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /[ \t\r\n\f\v\uFEFF]+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});

/** `#` to the end of the line; kept in its own group so a formatter can put comments back. */
export const Comment = createToken({ name: 'Comment', pattern: /#[^\n]*/, group: 'comments' });

// ---------------------------------------------------------------- literals

export const StringLit = createToken({ name: 'StringLit', pattern: /"(?:[^"\\\n\r]|\\[^\n\r])*"/ });
/** A string that reaches the end of its line (or of the file) without a closing quote. */
export const UnterminatedString = createToken({
  name: 'UnterminatedString',
  pattern: /"(?:[^"\\\n\r]|\\[^\n\r])*\\?/,
  categories: [StringLit],
});

export const RegexLit = createToken({
  name: 'RegexLit',
  pattern: /\/(?:[^/\\\n\r]|\\[^\n\r])*\/[A-Za-z]*/,
});
/** A regex that reaches the end of its line (or of the file) without a closing slash. */
export const UnterminatedRegex = createToken({
  name: 'UnterminatedRegex',
  pattern: /\/(?:[^/\\\n\r]|\\[^\n\r])*\\?/,
  categories: [RegexLit],
});

export const DurationLit = createToken({
  name: 'DurationLit',
  pattern: /\d+(?:ms|s|m|h)(?![A-Za-z0-9_.])/,
  start_chars_hint: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
});
export const NumberLit = createToken({
  name: 'NumberLit',
  pattern: /\d+(?:\.\d+)?(?![A-Za-z0-9_.])/,
  start_chars_hint: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
});
/** Digits run together with letters (`10sec`, `1.2.3`): reported, then read as a number or duration. */
export const BadNumber = createToken({
  name: 'BadNumber',
  pattern: /\d[A-Za-z0-9_.]*/,
  categories: [NumberLit, DurationLit],
});

// ---------------------------------------------------------------- punctuation

export const LCurly = createToken({ name: 'LCurly', pattern: '{' });
export const RCurly = createToken({ name: 'RCurly', pattern: '}' });
export const LBracket = createToken({ name: 'LBracket', pattern: '[' });
export const RBracket = createToken({ name: 'RBracket', pattern: ']' });
export const LParen = createToken({ name: 'LParen', pattern: '(' });
export const RParen = createToken({ name: 'RParen', pattern: ')' });
export const Comma = createToken({ name: 'Comma', pattern: ',' });
export const Colon = createToken({ name: 'Colon', pattern: ':' });
export const Arrow = createToken({ name: 'Arrow', pattern: '=>' });
export const EqEq = createToken({ name: 'EqEq', pattern: '==', categories: [CompareOp] });
export const NotEq = createToken({ name: 'NotEq', pattern: '!=', categories: [CompareOp] });
export const Equals = createToken({ name: 'Equals', pattern: '=' });

// ---------------------------------------------------------------- words

export const Name = createToken({
  name: 'Name',
  pattern: /[A-Za-z_*][A-Za-z0-9_*.-]*/,
  categories: [AnyWord, FieldWord],
});

/** Every keyword by its spelling, filled by `keyword()`. */
export const keywordTokens = new Map<string, TokenType>();

function keyword(word: string, categories: TokenType[] = [FieldWord]): TokenType {
  const name = 'Kw' + word.charAt(0).toUpperCase() + word.slice(1);
  const tok = createToken({ name, pattern: word, longer_alt: Name, categories: [AnyWord, ...categories] });
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
// clauses
export const When = keyword('when');
export const Because = keyword('because');
export const Hook = keyword('hook');
export const Timeout = keyword('timeout');
export const Dialect = keyword('dialect');
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
// condition words: not usable as field names
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
];

/** Every token type the parser knows, categories included. */
export const allTokens: TokenType[] = [
  ...lexerTokens,
  AnyWord,
  FieldWord,
  EffectWord,
  SelectorWord,
  CompareOp,
];

/** The one lexer instance; it holds no state between runs. */
export const policyLexer = new Lexer(lexerTokens, {
  positionTracking: 'onlyOffset',
  ensureOptimizations: true,
});

/** Opening and closing brackets, for the nesting-depth scan. */
export const openers: ReadonlySet<TokenType> = new Set([LCurly, LBracket, LParen]);
export const closers: ReadonlySet<TokenType> = new Set([RCurly, RBracket, RParen]);
