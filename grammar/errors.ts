/**
 * Diagnostics of the grammar layer: the engine's diagnostic shape and line index (the one of each),
 * positions in a source text, and the wording of every syntax error.
 *
 * Messages are lowercase, have no trailing period and quote user input in backticks; the fix, when
 * there is a useful one, goes in `help`.
 */
import { EOF, tokenMatcher, type CstNode, type IParserErrorMessageProvider, type IRecognitionException, type IToken, type TokenType } from 'chevrotain';
import { LineIndex, type Diagnostic, type Position, type Severity, type Span } from '../engine/index.js';
import * as T from './tokens.js';

// ---------------------------------------------------------------- the diagnostic shape

export type { Diagnostic, Position, Severity, Span };

export function syntaxError(code: string, message: string, span: Span, help?: string): Diagnostic {
  const d: Diagnostic = { code, severity: 'error', message, span };
  if (help) d.help = help;
  return d;
}

// ---------------------------------------------------------------- positions

/** Turns offsets of one text into line/column positions and spans (the engine's LineIndex, made when first asked). */
export class SourceText {
  private index: LineIndex | undefined;

  constructor(
    readonly text: string,
    readonly file: string,
  ) {}

  private lines(): LineIndex {
    return (this.index ??= new LineIndex(this.text));
  }

  /** The position of an offset; out-of-range or non-finite offsets are clamped into the text. */
  position(offset: number): Position {
    return this.lines().position(offset);
  }

  /** The span `[start, end)`; `end` before `start` gives an empty span at `start`. */
  span(start: number, end: number): Span {
    return this.lines().span(this.file, start, end);
  }

  /** `line:column` of an offset, for messages that point elsewhere. */
  where(offset: number): string {
    const p = this.position(offset);
    return `${p.line}:${p.column}`;
  }
}

/** True for a token read from the text; false for EOF and tokens inserted by error recovery. */
export function isRealToken(tok: IToken | undefined): tok is IToken {
  return tok !== undefined && tok.tokenType !== EOF && !tok.isInsertedInRecovery && Number.isFinite(tok.startOffset);
}

// ---------------------------------------------------------------- showing user text

const MAX_SHOWN = 40;

/** User text in backticks: control characters escaped, long text cut short. */
export function quote(text: string): string {
  let s = text.length > MAX_SHOWN ? text.slice(0, MAX_SHOWN) : text;
  s = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffd]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    return `\\u{${c.charCodeAt(0).toString(16)}}`;
  });
  // a lone surrogate left by the cut above would not survive JSON output
  s = s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\\u{fffd}');
  return '`' + s + (text.length > MAX_SHOWN ? '…' : '') + '`';
}

function found(tok: IToken | undefined): string {
  if (!tok || tok.tokenType === EOF) return 'end of file';
  if (tok.tokenType === T.UnterminatedString || tok.tokenType === T.StringLit) return `the string ${quote(tok.image)}`;
  return quote(tok.image);
}

const DESCRIPTIONS = new Map<TokenType, string>([
  [T.StringLit, 'a string'],
  [T.RegexLit, 'a regex'],
  [T.NumberLit, 'a number'],
  [T.DurationLit, 'a duration such as `10s`'],
  [T.Name, 'a name'],
  [T.AnyWord, 'a word'],
  [T.FieldWord, 'a field'],
  [T.EffectWord, 'a rule effect'],
  [T.SelectorWord, 'a selector'],
  [T.CompareOp, 'a comparison operator'],
  [EOF, 'end of file'],
]);

function describe(t: TokenType): string {
  const known = DESCRIPTIONS.get(t);
  if (known) return known;
  return typeof t.PATTERN === 'string' ? '`' + t.PATTERN + '`' : t.name;
}

const ITEMS = '`policy`, `include`, `import`, `let`, `on`, `test` or `unprotect`';
const EFFECTS = '`deny`, `ask`, `allow`, `block`, `context`, `continue`, `halt`, `run`, `limit`';
const OPERATORS = '`==`, `!=`, `in`, `matches`, `glob`, `startswith`, `endswith`, `contains`';
const RULE_HELP =
  `a rule starts with an effect (${EFFECTS}), then optional tools and clauses such as ` +
  '`command "..."`, `path "..."`, `when ...`, `because "..."`';
const CASE_HELP = 'a test case reads `<seam> [tool] [input] [with { ... }] => <decision>`, e.g. `pre-tool Bash { command: "ls" } => allow`';
const VALUE_HELP =
  'a value is a string, a regex `/.../`, a number, a duration, `true`, `false`, `null`, the name of a `let`, a list `[...]` or an object `{...}`';
const CONDITION_HELP =
  'a condition is a comparison such as `command matches /rm/` or `source == "startup"`, `<field> exists`, `ran <tools>`, `true`, `false`, `not ...` or a condition in parentheses';

// ---------------------------------------------------------------- parser messages

/** A block or bracket the parser is inside. */
export interface Frame {
  kind: 'on' | 'test' | 'list' | 'object' | 'paren';
  /** How a message names it, e.g. "the `on pre-tool` block". */
  label: string;
  open: IToken;
}

/** State the messages read while a parse runs. */
export interface ParseContext {
  frames: Frame[];
  source: SourceText;
  /** The tokens being parsed; only the first `tokenCount` are real (the parser pads the array). */
  tokens: IToken[];
  tokenCount: number;
  /** Parser errors so far; past `MAX_PARSER_ERRORS` the parse stops (`TooManyErrors`). */
  errorCount: number;
  /** Errors the grammar itself notices and recovers from without the parser's help. */
  soft: SoftError[];
  /** Receives each top-level item as soon as it is parsed. */
  onItem?: ((item: CstNode) => void) | undefined;
  /** Receives each rule of an `on` block as soon as it is parsed, before the block ends. */
  onRule?: ((rule: CstNode) => void) | undefined;
}

/** A context with no parse running, for a new parser. */
export function newContext(): ParseContext {
  return { frames: [], source: new SourceText('', ''), tokens: [], tokenCount: 0, errorCount: 0, soft: [] };
}

/**
 * The real token before `tok` (before the end of the file for EOF). The parser's own notion of the
 * previous token is unreliable after recovery has skipped tokens, so messages use this instead.
 */
function tokenBefore(ctx: ParseContext, tok: IToken): IToken | undefined {
  if (!isRealToken(tok)) return ctx.tokenCount > 0 ? ctx.tokens[ctx.tokenCount - 1] : undefined;
  let lo = 0;
  let hi = ctx.tokenCount - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((ctx.tokens[mid] as IToken).startOffset < tok.startOffset) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best >= 0 ? ctx.tokens[best] : undefined;
}

interface Message {
  message: string;
  help?: string | undefined;
}

/** The parser only carries a string per error; the message and its help travel in it as JSON. */
function encode(m: Message): string {
  return JSON.stringify(m);
}

export function decodeMessage(raw: string): Message {
  try {
    const m = JSON.parse(raw) as Partial<Message>;
    if (typeof m.message === 'string') return { message: m.message, help: typeof m.help === 'string' ? m.help : undefined };
  } catch {
    // not one of ours
  }
  return { message: raw };
}

function after(previous: IToken | undefined): string {
  return isRealToken(previous) ? ` after ${quote(previous.image)}` : '';
}

function isKeyword(tok: IToken): boolean {
  return tok.tokenType !== T.Name && T.keywordTokens.get(tok.image) === tok.tokenType;
}

function topLevel(actual: IToken): Message {
  let help = 'each item of a policy file starts with one of these keywords';
  if (actual.tokenType === T.RCurly) help = 'this `}` has no matching `{`';
  else if (tokenIs(actual, T.EffectWord)) help = 'rules go inside a block such as `on pre-tool { ... }`';
  return { message: `expected ${ITEMS}, found ${found(actual)}`, help };
}

function tokenIs(tok: IToken, category: TokenType): boolean {
  return tokenMatcher(tok, category);
}

function quoteHelp(expected: TokenType, actual: IToken): string | undefined {
  if (expected === T.StringLit && tokenIs(actual, T.AnyWord)) return `strings are written in double quotes: \`"${actual.image}"\``;
  if (expected === T.DurationLit && actual.tokenType === T.NumberLit) return 'a duration needs a unit: `ms`, `s`, `m` or `h`, e.g. `10s`';
  return undefined;
}

function mismatch(ctx: ParseContext, expected: TokenType, actual: IToken, previous: IToken | undefined, rule: string): Message {
  const f = found(actual);
  const frame = ctx.frames[ctx.frames.length - 1];
  const opened = frame ? ctx.source.where(frame.open.startOffset) : '';
  const atEnd = actual.tokenType === EOF;
  const prevImage = isRealToken(previous) ? previous.image : '';
  if (expected === EOF) return topLevel(actual);
  // a block's MANY stops only at `}`, the end of the file or the next item: the last two land here
  if (expected === T.RCurly && frame && (rule === 'onBlock' || rule === 'testBlock')) {
    return { message: `expected \`}\` to close ${frame.label}, found ${f}`, help: `add \`}\` to close the block that opens at ${opened}` };
  }
  if ((expected === T.RCurly && rule === 'object') || (expected === T.RBracket && rule === 'list')) {
    const close = expected === T.RCurly ? '`}`' : '`]`';
    const item = expected === T.RCurly ? 'an entry `key: value`' : 'a value';
    const fresh = prevImage === '{' || prevImage === '[' || prevImage === ',';
    const what = fresh ? `${item} or ${close}` : `\`,\` or ${close}`;
    return { message: `expected ${what} in ${frame ? frame.label : 'the brackets'}, found ${f}`, help: frame ? `${frame.label} opens at ${opened}` : undefined };
  }
  if (expected === T.RParen && frame) {
    const what = atEnd ? '`)`' : '`and`, `or` or `)`';
    return { message: `expected ${what} to close the \`(\` at ${opened}, found ${f}` };
  }
  if (expected === T.Colon && rule === 'entry') {
    return { message: `expected \`:\`${after(previous)}, found ${f}`, help: 'object entries are written `key: value`' };
  }
  if (expected === T.Arrow && rule === 'testCase') {
    return { message: `expected \`=>\` and a decision, found ${f}`, help: CASE_HELP };
  }
  if (expected === T.AnyWord && rule === 'testCase') {
    return { message: `expected a decision after \`=>\`, found ${f}`, help: 'e.g. `=> deny`, `=> allow`, `=> block`, `=> none`' };
  }
  if (expected === T.Name && !atEnd && isKeyword(actual)) {
    const role = rule === 'toolList' ? 'tool name' : 'name';
    return {
      message: `expected a ${role}${after(previous)}, found the keyword ${f}`,
      help: `${quote(actual.image)} is a keyword and cannot be used as a ${role} here`,
    };
  }
  if (expected === T.Name && rule === 'onBlock') {
    return {
      message: `expected a seam after \`on\`, found ${f}`,
      help: 'the seams are `pre-tool`, `prompt`, `post-tool`, `stop` and `session-start`',
    };
  }
  if (expected === T.Name && rule === 'toolList') {
    return { message: `expected a tool name${after(previous)}, found ${f}` };
  }
  return { message: `expected ${describe(expected)}${after(previous)}, found ${f}`, help: quoteHelp(expected, actual) };
}

function noViableAlt(actual: IToken, previous: IToken | undefined, rule: string, paths: TokenType[][][]): Message {
  const f = found(actual);
  switch (rule) {
    case 'item':
    case 'file':
      return topLevel(actual);
    case 'value':
      return { message: `expected a value${after(previous)}, found ${f}`, help: VALUE_HELP };
    case 'primary':
      return { message: `expected a condition${after(previous)}, found ${f}`, help: CONDITION_HELP };
    case 'comparison': {
      let help = `the operators are ${OPERATORS}`;
      if (actual.image === '=') help = 'compare with `==`';
      else if (actual.tokenType === T.Not) help = 'put `not` before the field: `not <field> matches ...`';
      return { message: `expected a comparison operator or \`exists\`${after(previous)}, found ${f}`, help };
    }
    case 'becauseClause':
      return { message: `expected a string or the name of a \`let\` after \`because\`, found ${f}`, help: quoteHelp(T.StringLit, actual) };
    case 'matcherClause':
      return {
        message: `expected a string or \`*\` after \`matcher\`, found ${f}`,
        help: 'write the agent\'s matcher as a string, e.g. `matcher "Edit|Write"`, or `matcher *` for every value',
      };
    case 'testCase':
      return { message: `expected a regex or a string after \`because\`, found ${f}` };
    default: {
      const firsts = new Set<string>();
      for (const alt of paths) for (const path of alt) if (path[0] && path[0] !== T.AnyToken) firsts.add(describe(path[0]));
      const list = [...firsts];
      const expected = list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` : (list[0] ?? 'something else');
      return { message: `expected ${expected}${after(previous)}, found ${f}` };
    }
  }
}

/** An error found by the grammar's own recovery (stray tokens in a block, `=` for `==`). */
export interface SoftError {
  token: IToken;
  message: string;
  help?: string | undefined;
}

/** Records a soft error; counts toward the limit like the parser's own. */
export function softError(ctx: ParseContext, token: IToken, m: Message): void {
  if (++ctx.errorCount > MAX_PARSER_ERRORS) throw new TooManyErrors(token);
  ctx.soft.push({ token, message: m.message, help: m.help });
}

/** Stray tokens where a rule (`rules`) or a test case (`cases`) should start. */
export function strayMessage(ctx: ParseContext, first: IToken, kind: 'rules' | 'clauses' | 'cases'): Message {
  const frame = ctx.frames[ctx.frames.length - 1];
  const label = frame ? frame.label : kind === 'cases' ? 'the test block' : 'the block';
  const f = found(first);
  if (kind === 'cases') return { message: `expected a test case or \`}\` to close ${label}, found ${f}`, help: CASE_HELP };
  const previous = tokenBefore(ctx, first);
  const beforePrevious = previous ? tokenBefore(ctx, previous) : undefined;
  const inToolList =
    previous !== undefined &&
    previous.tokenType === T.Name &&
    first.tokenType === T.Name &&
    beforePrevious !== undefined &&
    (beforePrevious.tokenType === T.Comma || tokenIs(beforePrevious, T.EffectWord));
  const help = inToolList ? `separate tool names with commas: \`${previous.image}, ${first.image}\`` : RULE_HELP;
  if (kind === 'clauses') return { message: `expected a clause, the next rule or \`}\`, found ${f}`, help };
  return { message: `expected a rule or \`}\` to close ${label}, found ${f}`, help };
}

/** `=` where a comparison operator belongs. */
export function equalsMessage(ctx: ParseContext, eq: IToken): Message {
  return {
    message: `expected a comparison operator or \`exists\`${after(tokenBefore(ctx, eq))}, found ${found(eq)}`,
    help: 'compare with `==`',
  };
}

/** Past this many errors the parser stops: only the first hundred or so are reported anyway. */
export const MAX_PARSER_ERRORS = 200;

/** Thrown through the parser to stop it once there are too many errors; carries where it stopped. */
export class TooManyErrors extends Error {
  constructor(readonly token: IToken) {
    super('too many errors');
  }
}

/** The error messages of the parser; `ctx` is read while the parser runs. */
export function makeMessageProvider(ctx: ParseContext): IParserErrorMessageProvider {
  // messages are built before the parser records the error, so they count it here
  const count = (tok: IToken): void => {
    if (++ctx.errorCount > MAX_PARSER_ERRORS) throw new TooManyErrors(tok);
  };
  return {
    buildMismatchTokenMessage({ expected, actual, ruleName }) {
      count(actual);
      return encode(mismatch(ctx, expected, actual, tokenBefore(ctx, actual), ruleName));
    },
    buildNotAllInputParsedMessage({ firstRedundant }) {
      count(firstRedundant);
      return encode(topLevel(firstRedundant));
    },
    buildNoViableAltMessage({ expectedPathsPerAlt, actual, ruleName }) {
      const tok = actual[0] as IToken;
      count(tok);
      return encode(noViableAlt(tok, tokenBefore(ctx, tok), ruleName, expectedPathsPerAlt));
    },
    buildEarlyExitMessage({ actual }) {
      const tok = actual[0] as IToken;
      count(tok);
      return encode({ message: `unexpected ${found(tok)}${after(tokenBefore(ctx, tok))}` });
    },
  };
}

/**
 * A parser error as a diagnostic, placed on its token; an error at the end of the file goes just after
 * the last token, `lastToken`.
 */
export function parserDiagnostic(e: IRecognitionException, source: SourceText, lastToken: IToken | undefined): Diagnostic {
  const { message, help } = decodeMessage(e.message);
  const tok = e.token;
  let span: Span;
  if (isRealToken(tok)) span = source.span(tok.startOffset, tok.startOffset + tok.image.length);
  else if (isRealToken(lastToken)) {
    const end = lastToken.startOffset + lastToken.image.length;
    span = source.span(end, end);
  } else span = source.span(0, 0);
  return syntaxError('parse/unexpected-token', message, span, help);
}

// ---------------------------------------------------------------- lexer messages

const CHARACTER_HELP: Record<string, string> = {
  "'": 'strings are written in double quotes',
  '!': 'negate a condition with `not`; compare with `!=`',
  '&': 'combine conditions with `and`',
  '|': 'combine conditions with `or`',
  ';': 'rules need no separator: start the next rule with its effect',
  '~': 'paths and globs are strings: put them in double quotes',
  '.': 'paths and globs are strings: put them in double quotes',
  '<': `there is no ordering comparison; the operators are ${OPERATORS}`,
  '>': `there is no ordering comparison; the operators are ${OPERATORS}`,
  '`': 'strings are written in double quotes',
};

/** A run of characters no token starts with. */
export function lexDiagnostic(offset: number, length: number, source: SourceText): Diagnostic {
  const text = source.text.slice(offset, offset + Math.min(length, 200));
  const first = text.charAt(0);
  const control = /[\u0000-\u0008\u000e-\u001f\u007f]/.test(text);
  const help = control ? 'the file contains control characters; is it a text file?' : CHARACTER_HELP[first];
  const single = text.length === 1 || (text.length === 2 && text.codePointAt(0)! > 0xffff);
  const what = single ? 'character' : 'characters';
  return syntaxError('parse/lex-error', `unexpected ${what} ${quote(text)}`, source.span(offset, offset + length), help);
}
