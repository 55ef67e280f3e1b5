/**
 * A fast path for parsing a file that has no syntax errors: a recursive-descent reading of its
 * tokens (lex-fast.ts) straight into the AST, without the grammar's parser and its concrete syntax
 * tree.
 *
 * It gives exactly what the grammar's parser and the CST visitor (cst-to-ast.ts) give for such a
 * file: the same nodes, fields and spans, and no diagnostics. It makes the parser's choices (the
 * grammar is LL(2), and on valid input each choice is decided by the next token or two), and at the
 * first thing it does not expect (anything the parser or the visitor would report, or would recover
 * from) it gives up, and `parsePolicy` parses the file the usual way, which then reports it.
 *
 * It follows grammar/parser.ts and cst-to-ast.ts: a change to either needs the same change here
 * (parse-fast.test.ts compares the two paths on generated files).
 */
import type { Position, Span } from '../engine/index.js';
import { decodeRegex, decodeString, durationMs, numberValue, SourceText, tokens as T, type IToken } from '../grammar/index.js';
import { tokenMatcher, type TokenType } from 'chevrotain';
import type * as A from './ast.js';
import { lexFast, type FastTokens } from './lex-fast.js';

const GIVE_UP = new Error('not for the fast path');

/** The value of a closed string literal (what `decodeString` gives, without its record when there is no escape). */
function stringValue(image: string): string {
  return image.indexOf('\\') < 0 ? image.slice(1, -1) : decodeString(image).value;
}

/** The token types in a category (`FieldWord`, ...), as the grammar's token matcher sees them. */
function categoryMembers(category: TokenType): ReadonlySet<TokenType> {
  return new Set(T.allTokens.filter((t) => tokenMatcher({ tokenType: t, tokenTypeIdx: t.tokenTypeIdx } as IToken, category)));
}

const EFFECT_WORDS = categoryMembers(T.EffectWord);
const SELECTOR_WORDS = categoryMembers(T.SelectorWord);
const FIELD_WORDS = categoryMembers(T.FieldWord);
const COMPARE_OPS = categoryMembers(T.CompareOp);
const ANY_WORDS = categoryMembers(T.AnyWord);

/** A token, as its index in the token arrays. */
type Tok = number;

class FastParser {
  private pos = 0;
  private readonly types: TokenType[];
  private readonly starts: number[];
  private readonly ends: number[];
  private readonly n: number;
  private readonly text: string;

  constructor(
    tokens: FastTokens,
    private readonly source: SourceText,
  ) {
    this.types = tokens.types;
    this.starts = tokens.starts;
    this.ends = tokens.ends;
    this.n = tokens.types.length;
    this.text = source.text;
  }

  file(): A.Item[] {
    const items: A.Item[] = [];
    while (this.pos < this.n) items.push(this.item());
    return items;
  }

  // ---------------------------------------------------------------- tokens

  /** The token type `k` tokens ahead (1: the next), or undefined past the end. */
  private la(k: number): TokenType | undefined {
    return this.types[this.pos + k - 1];
  }

  /** The next token, which must be of `type`. */
  private take(type: TokenType): Tok {
    if (this.types[this.pos] !== type) throw GIVE_UP;
    return this.pos++;
  }

  /** The next token, which must be of a type in `members` (a category). */
  private takeOf(members: ReadonlySet<TokenType>): Tok {
    const t = this.types[this.pos];
    if (t === undefined || !members.has(t)) throw GIVE_UP;
    return this.pos++;
  }

  private image(tok: Tok): string {
    return this.text.slice(this.starts[tok], this.ends[tok]);
  }

  // ---------------------------------------------------------------- spans

  private position(offset: number): Position {
    return this.source.position(offset);
  }

  private tokSpan(tok: Tok): Span {
    return this.source.span(this.starts[tok]!, this.ends[tok]!);
  }

  /** The span from the start of `first` to the end of `last` (as the visitor's cover of the two). */
  private join(first: Span, last: Span): Span {
    return { file: this.source.file, start: first.start, end: last.end };
  }

  /** The span from a token's start to the end of `last`. */
  private fromToken(tok: Tok, last: Span): Span {
    return { file: this.source.file, start: this.position(this.starts[tok]!), end: last.end };
  }

  /** The span from a token's start to another token's end. */
  private between(first: Tok, last: Tok): Span {
    return { file: this.source.file, start: this.position(this.starts[first]!), end: this.position(this.ends[last]!) };
  }

  private ident(tok: Tok): A.Ident {
    return { kind: 'ident', name: this.image(tok), span: this.tokSpan(tok) };
  }

  private ref(tok: Tok): A.Ref {
    return { kind: 'ref', name: this.image(tok), span: this.tokSpan(tok) };
  }

  private string(tok: Tok): A.StringLit {
    return { kind: 'string', value: stringValue(this.image(tok)), span: this.tokSpan(tok) };
  }

  private regex(tok: Tok): A.RegexLit {
    const { source, flags } = decodeRegex(this.image(tok));
    return { kind: 'regex', source, flags, sourceOffset: this.starts[tok]! + 1, span: this.tokSpan(tok) };
  }

  // ---------------------------------------------------------------- items

  private item(): A.Item {
    const t = this.la(1);
    if (t === T.Policy) {
      const keyword = this.take(T.Policy);
      const name = this.string(this.take(T.StringLit));
      return { kind: 'policy', name, span: this.fromToken(keyword, name.span) };
    }
    if (t === T.Include) {
      const keyword = this.take(T.Include);
      const path = this.string(this.take(T.StringLit));
      return { kind: 'include', path, span: this.fromToken(keyword, path.span) };
    }
    if (t === T.Import) {
      const keyword = this.take(T.Import);
      const agent = this.ident(this.take(T.Name));
      const what = this.ident(this.types[this.pos] === T.Policy ? this.take(T.Policy) : this.take(T.Name));
      const path = this.string(this.take(T.StringLit));
      return { kind: 'import', agent, what, path, span: this.fromToken(keyword, path.span) };
    }
    if (t === T.Unprotect) {
      const keyword = this.take(T.Unprotect);
      const targets = [this.ident(this.types[this.pos] === T.Policy ? this.take(T.Policy) : this.take(T.Name))];
      while (this.la(1) === T.Comma) {
        this.take(T.Comma);
        targets.push(this.ident(this.types[this.pos] === T.Policy ? this.take(T.Policy) : this.take(T.Name)));
      }
      return { kind: 'unprotect', targets, span: this.fromToken(keyword, targets[targets.length - 1]!.span) };
    }
    if (t === T.Let) {
      const keyword = this.take(T.Let);
      const name = this.ident(this.take(T.Name));
      this.take(T.Equals);
      const value = this.value();
      return { kind: 'let', name, value, span: this.fromToken(keyword, value.span) };
    }
    if (t === T.On) {
      const keyword = this.take(T.On);
      const seam = this.ident(this.take(T.Name));
      this.take(T.LCurly);
      const rules: A.RuleNode[] = [];
      while (this.insideBlock()) {
        if (!EFFECT_WORDS.has(this.types[this.pos]!)) throw GIVE_UP;
        rules.push(this.rule());
      }
      const close = this.take(T.RCurly);
      return { kind: 'on', seam, rules, span: this.between(keyword, close) };
    }
    if (t === T.Test) {
      const keyword = this.take(T.Test);
      const name = this.string(this.take(T.StringLit));
      this.take(T.LCurly);
      const cases: A.TestCaseNode[] = [];
      while (this.insideBlock()) {
        if (this.la(1) !== T.Name) throw GIVE_UP;
        cases.push(this.testCase());
      }
      const close = this.take(T.RCurly);
      return { kind: 'test', name, cases, span: this.between(keyword, close) };
    }
    throw GIVE_UP;
  }

  /** A block goes on until its `}`, the end of the file, or the keyword of the next item. */
  private insideBlock(): boolean {
    const t = this.la(1);
    return t !== undefined && t !== T.RCurly && !this.startsItem();
  }

  /** An item keyword next that is not an object key (`on: 1`). */
  private startsItem(): boolean {
    const t = this.la(1);
    return t !== undefined && T.itemKeywords.has(t) && this.la(2) !== T.Colon;
  }

  // ---------------------------------------------------------------- rules

  private rule(): A.RuleNode {
    const effect = this.ident(this.takeOf(EFFECT_WORDS));
    const tools = this.la(1) === T.Name ? this.toolList() : [];
    const selectors: A.SelectorNode[] = [];
    let text: A.StringLit | undefined;
    let hook: A.HookClause | undefined;
    let timeout: A.DurationLit | undefined;
    let dialect: A.Ident | undefined;
    let matcher: A.StringLit | A.Ident | undefined;
    let withClause: A.WithClause | undefined;
    let when: A.ExprNode | undefined;
    let because: A.StringLit | A.Ref | undefined;
    let limit: A.NumberLit | undefined;
    // The end of the rule: the furthest end of its parts (the visitor's cover of them).
    let end = tools.length > 0 ? tools[tools.length - 1]!.span.end : effect.span.end;
    while (this.insideRule()) {
      const t = this.types[this.pos]!;
      if (SELECTOR_WORDS.has(t)) {
        const sel = this.selector();
        selectors.push(sel);
        if (sel.span.end.offset > end.offset) end = sel.span.end;
        continue;
      }
      // A clause written twice is an error of the visitor: the usual parse reports it.
      let span: Span;
      if (t === T.StringLit) {
        if (text) throw GIVE_UP;
        span = (text = this.string(this.take(T.StringLit))).span;
      } else if (t === T.Hook) {
        if (hook) throw GIVE_UP;
        const keyword = this.take(T.Hook);
        const command = this.string(this.take(T.StringLit));
        span = (hook = { kind: 'hook', command, span: this.fromToken(keyword, command.span) }).span;
      } else if (t === T.Timeout) {
        if (timeout) throw GIVE_UP;
        this.take(T.Timeout);
        const duration = this.take(T.DurationLit);
        const text = this.image(duration);
        span = (timeout = { kind: 'duration', ms: durationMs(text), text, span: this.tokSpan(duration) }).span;
      } else if (t === T.Dialect) {
        if (dialect) throw GIVE_UP;
        this.take(T.Dialect);
        span = (dialect = this.ident(this.take(T.Name))).span;
      } else if (t === T.Matcher) {
        if (matcher) throw GIVE_UP;
        this.take(T.Matcher);
        const next = this.la(1);
        if (next === T.StringLit) matcher = this.string(this.take(T.StringLit));
        else if (next === T.Name) matcher = this.ident(this.take(T.Name));
        else throw GIVE_UP;
        span = matcher.span;
      } else if (t === T.With) {
        if (withClause) throw GIVE_UP;
        const keyword = this.take(T.With);
        if (this.la(1) !== T.LCurly) throw GIVE_UP;
        const options = this.object();
        span = (withClause = { kind: 'with', options, span: this.fromToken(keyword, options.span) }).span;
      } else if (t === T.When) {
        if (when) throw GIVE_UP;
        this.take(T.When);
        span = (when = this.orExpr()).span;
      } else if (t === T.Because) {
        if (because) throw GIVE_UP;
        this.take(T.Because);
        const next = this.la(1);
        if (next === T.StringLit) because = this.string(this.take(T.StringLit));
        else if (next === T.Name) because = this.ref(this.take(T.Name));
        else throw GIVE_UP;
        span = because.span;
      } else if (t === T.NumberLit) {
        if (limit) throw GIVE_UP;
        const tok = this.take(T.NumberLit);
        span = (limit = { kind: 'number', value: numberValue(this.image(tok)), span: this.tokSpan(tok) }).span;
      } else {
        throw GIVE_UP;
      }
      if (span.end.offset > end.offset) end = span.end;
    }
    // Fields in the order the visitor sets them, whatever the order of the clauses in the text.
    const rule: A.RuleNode = { kind: 'rule', effect, tools, selectors, span: { file: this.source.file, start: effect.span.start, end } };
    if (text) rule.text = text;
    if (hook) rule.hook = hook;
    if (timeout) rule.timeout = timeout;
    if (dialect) rule.dialect = dialect;
    if (matcher) rule.matcher = matcher;
    if (withClause) rule.with = withClause;
    if (when) rule.when = when;
    if (because) rule.because = because;
    if (limit) rule.limit = limit;
    return rule;
  }

  private insideRule(): boolean {
    return this.insideBlock() && !EFFECT_WORDS.has(this.types[this.pos]!);
  }

  private toolList(): A.ToolPattern[] {
    const out: A.ToolPattern[] = [];
    const first = this.take(T.Name);
    out.push({ kind: 'tool', name: this.image(first), span: this.tokSpan(first) });
    while (this.la(1) === T.Comma) {
      this.pos++;
      const tok = this.take(T.Name);
      out.push({ kind: 'tool', name: this.image(tok), span: this.tokSpan(tok) });
    }
    return out;
  }

  private selector(): A.SelectorNode {
    const selector = this.ident(this.takeOf(SELECTOR_WORDS));
    const values = [this.value()];
    while (this.la(1) === T.Comma) {
      this.pos++;
      values.push(this.value());
    }
    return { kind: 'selector', selector, values, span: this.join(selector.span, values[values.length - 1]!.span) };
  }

  // ---------------------------------------------------------------- conditions

  private orExpr(): A.ExprNode {
    const args = [this.andExpr()];
    while (this.la(1) === T.Or) {
      this.pos++;
      args.push(this.andExpr());
    }
    if (args.length < 2) return args[0]!;
    return { kind: 'or', args, span: this.join(args[0]!.span, args[args.length - 1]!.span) };
  }

  private andExpr(): A.ExprNode {
    const args = [this.notExpr()];
    while (this.la(1) === T.And) {
      this.pos++;
      args.push(this.notExpr());
    }
    if (args.length < 2) return args[0]!;
    return { kind: 'and', args, span: this.join(args[0]!.span, args[args.length - 1]!.span) };
  }

  private notExpr(): A.ExprNode {
    const nots: Tok[] = [];
    while (this.la(1) === T.Not) nots.push(this.take(T.Not));
    const inner = this.primary();
    let expr = inner.expr;
    for (let i = nots.length - 1; i >= 0; i--) {
      const not = this.tokSpan(nots[i]!);
      expr = { kind: 'not', arg: expr, span: this.join(not, inner.outer) };
    }
    return expr;
  }

  private primary(): { expr: A.ExprNode; outer: Span } {
    const t = this.la(1);
    if (t === T.LParen) {
      const open = this.take(T.LParen);
      const expr = this.orExpr();
      const close = this.take(T.RParen);
      return { expr, outer: this.between(open, close) };
    }
    if (t === T.True || t === T.False) {
      const tok = this.take(t);
      const expr: A.ExprNode = { kind: 'boolexpr', value: t === T.True, span: this.tokSpan(tok) };
      return { expr, outer: expr.span };
    }
    if (t === T.Ran) {
      const expr = this.ranExpr();
      return { expr, outer: expr.span };
    }
    const expr = this.comparison();
    return { expr, outer: expr.span };
  }

  private ranExpr(): A.RanExpr {
    const keyword = this.take(T.Ran);
    const tools = this.toolList();
    const selectors: A.SelectorNode[] = [];
    while (this.pos < this.n && SELECTOR_WORDS.has(this.types[this.pos]!)) selectors.push(this.selector());
    const last = selectors[selectors.length - 1]?.span ?? tools[tools.length - 1]!.span;
    return { kind: 'ran', tools, selectors, span: this.fromToken(keyword, last) };
  }

  private comparison(): A.ExprNode {
    const fieldTok = this.takeOf(FIELD_WORDS);
    const span = this.tokSpan(fieldTok);
    const path = this.image(fieldTok).split('.');
    if (path.includes('')) throw GIVE_UP;
    const field: A.FieldNode = { kind: 'field', path, span };
    if (this.la(1) === T.Exists) {
      const exists = this.take(T.Exists);
      return { kind: 'exists', field, span: this.join(span, this.tokSpan(exists)) };
    }
    const op = this.takeOf(COMPARE_OPS);
    const value = this.value();
    return { kind: 'compare', op: this.image(op), opSpan: this.tokSpan(op), field, value, span: this.join(span, value.span) };
  }

  // ---------------------------------------------------------------- values

  private startsValue(t: TokenType | undefined): boolean {
    return (
      t === T.StringLit ||
      t === T.RegexLit ||
      t === T.NumberLit ||
      t === T.DurationLit ||
      t === T.True ||
      t === T.False ||
      t === T.Null ||
      t === T.Name ||
      t === T.LBracket ||
      t === T.LCurly
    );
  }

  private value(): A.ValueNode {
    const tok = this.pos;
    const type = this.types[tok];
    switch (type) {
      case T.StringLit:
        this.pos++;
        return this.string(tok);
      case T.RegexLit:
        this.pos++;
        return this.regex(tok);
      case T.NumberLit:
        this.pos++;
        return { kind: 'number', value: numberValue(this.image(tok)), span: this.tokSpan(tok) };
      case T.DurationLit: {
        this.pos++;
        const text = this.image(tok);
        return { kind: 'duration', ms: durationMs(text), text, span: this.tokSpan(tok) };
      }
      case T.True:
      case T.False:
        this.pos++;
        return { kind: 'bool', value: type === T.True, span: this.tokSpan(tok) };
      case T.Null:
        this.pos++;
        return { kind: 'null', span: this.tokSpan(tok) };
      case T.Name:
        this.pos++;
        return this.ref(tok);
      case T.LBracket:
        return this.list();
      case T.LCurly:
        return this.object();
      default:
        throw GIVE_UP;
    }
  }

  private list(): A.ListLit {
    const open = this.take(T.LBracket);
    const openSpan = this.tokSpan(open);
    const items: A.ValueNode[] = [];
    if (this.la(1) !== T.RBracket) {
      items.push(this.value());
      while (this.la(1) === T.Comma) {
        const after = this.la(2);
        this.pos++;
        if (after === T.RBracket) break;
        if (!this.startsValue(after)) throw GIVE_UP;
        items.push(this.value());
      }
    }
    const close = this.take(T.RBracket);
    return { kind: 'list', items, span: { file: this.source.file, start: openSpan.start, end: this.position(this.ends[close]!) } };
  }

  private object(): A.ObjectLit {
    const open = this.take(T.LCurly);
    const openSpan = this.tokSpan(open);
    const entries: A.ObjectEntry[] = [];
    if (this.la(1) !== T.RCurly) {
      const keys = new Set<string>();
      const entry = (): void => {
        const e = this.entry();
        if (keys.has(e.key)) throw GIVE_UP;
        keys.add(e.key);
        entries.push(e);
      };
      entry();
      while (this.la(1) === T.Comma) {
        const after = this.la(2);
        this.pos++;
        if (after === T.RCurly) break;
        if (after === undefined || !(ANY_WORDS.has(after) || after === T.StringLit)) throw GIVE_UP;
        entry();
      }
    }
    const close = this.take(T.RCurly);
    return { kind: 'object', entries, span: { file: this.source.file, start: openSpan.start, end: this.position(this.ends[close]!) } };
  }

  private entry(): A.ObjectEntry {
    const keyTok = this.pos;
    const type = this.types[keyTok];
    let key: string;
    if (type === T.StringLit) key = stringValue(this.image(keyTok));
    else if (type !== undefined && ANY_WORDS.has(type)) key = this.image(keyTok);
    else throw GIVE_UP;
    this.pos++;
    const keySpan = this.tokSpan(keyTok);
    this.take(T.Colon);
    const value = this.value();
    return { key, keySpan, value, span: this.join(keySpan, value.span) };
  }

  // ---------------------------------------------------------------- tests

  private testCase(): A.TestCaseNode {
    const seam = this.ident(this.take(T.Name));
    const toolTok = this.la(1) === T.Name ? this.take(T.Name) : undefined;
    const tool: A.ToolPattern | undefined = toolTok === undefined ? undefined : { kind: 'tool', name: this.image(toolTok), span: this.tokSpan(toolTok) };
    let payload: A.StringLit | A.ObjectLit | undefined;
    if (this.la(1) === T.StringLit) payload = this.string(this.take(T.StringLit));
    else if (this.la(1) === T.LCurly) payload = this.object();
    let extra: A.ObjectLit | undefined;
    if (this.la(1) === T.With) {
      this.take(T.With);
      if (this.la(1) !== T.LCurly) throw GIVE_UP;
      extra = this.object();
    }
    this.take(T.Arrow);
    const expect = this.ident(this.takeOf(ANY_WORDS));
    let because: A.RegexLit | A.StringLit | undefined;
    if (this.la(1) === T.Because) {
      this.take(T.Because);
      const next = this.la(1);
      if (next === T.RegexLit) because = this.regex(this.take(T.RegexLit));
      else if (next === T.StringLit) because = this.string(this.take(T.StringLit));
      else throw GIVE_UP;
    }
    const out: A.TestCaseNode = { kind: 'case', seam, expect, span: this.join(seam.span, because?.span ?? expect.span) };
    if (tool) out.tool = tool;
    if (payload) out.payload = payload;
    if (extra) out.extra = extra;
    if (because) out.because = because;
    return out;
  }
}

/**
 * The AST of a file with no syntax errors, read without the parser; undefined when the file has
 * anything the fast path does not take (a syntax error, or anything it is not sure of).
 */
export function parseFast(text: string, file: string): A.PolicyFile | undefined {
  try {
    const source = new SourceText(text, file);
    const tokens = lexFast(text);
    if (!tokens) return undefined;
    const items = new FastParser(tokens, source).file();
    return { kind: 'file', file: source.file, items, span: source.span(0, source.text.length) };
  } catch {
    // Not for the fast path, or anything unforeseen: the usual parse decides.
    return undefined;
  }
}
