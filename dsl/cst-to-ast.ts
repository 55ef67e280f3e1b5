/**
 * CST -> AST: gives the concrete syntax tree its meaning as `ast.ts` nodes, each with its span. The
 * tree's types are the ones generated from the grammar (grammar/cst.ts); a parse can hand over the
 * tree rule by rule and item by item, and the builder follows it (`AstBuilder`).
 *
 * The tree may come from a parse that recovered from errors, so every child may be missing and any
 * token may have been inserted by recovery (no text, no position). Such parts are left out of the
 * AST; an item that loses an essential part (the name of a `let`, the path of an `include`, ...) is
 * left out entirely, since its error has been reported already. A node with no position of its own is
 * placed, empty, just after the last real text read before it.
 *
 * The few checks that belong to the syntax are made here: a clause written twice in one rule, a key
 * written twice in one object, a malformed dotted field.
 *
 * Spans are built bottom-up from the spans of a node's parts and the tokens only the CST holds
 * (keywords, brackets); a node's span shares its boundary positions with its first and last parts.
 */
import { diagnostic, type Diagnostic, type Position, type Span } from '../engine/index.js';
import {
  decodeRegex,
  decodeString,
  durationMs,
  isRealToken,
  numberValue,
  quote,
  tokens as T,
  type AndExprCst,
  type ComparisonCst,
  type CstNode,
  type EntryCst,
  type FileCst,
  type IToken,
  type ItemCst,
  type ListCst,
  type NotExprCst,
  type ObjectCst,
  type OnBlockCst,
  type OrExprCst,
  type PrimaryCst,
  type RanExprCst,
  type RuleCst,
  type SelectorCst,
  type SourceText,
  type TestCaseCst,
  type ToolListCst,
  type ValueCst,
} from '../grammar/index.js';
import type * as A from './ast.js';

/** Builds the AST of one file. `cst` is undefined only when the parser failed outright. */
export function cstToAst(cst: FileCst | undefined, source: SourceText): { ast: A.PolicyFile; diagnostics: Diagnostic[] } {
  const b = new AstBuilder(source);
  for (const item of cst?.children.item ?? []) b.add(item);
  return b.finish();
}

/** The first token of a child list, if it was read from the text. */
function real(toks: IToken[] | undefined): IToken | undefined {
  const tok = toks?.[0];
  return isRealToken(tok) ? tok : undefined;
}

type Part = Span | IToken | IToken[] | undefined;

/** Clauses that a rule may hold once, with how messages name them. */
const CLAUSES = [
  ['text', 'text'],
  ['hookClause', '`hook`'],
  ['timeoutClause', '`timeout`'],
  ['dialectClause', '`dialect`'],
  ['matcherClause', '`matcher`'],
  ['withClause', '`with`'],
  ['whenClause', '`when`'],
  ['becauseClause', '`because`'],
  ['limit', 'count'],
] as const;

/**
 * Builds a file's AST item by item (`add`), so it can follow a parse that hands over items one by
 * one; the rules of an `on` block may come first, one by one too (`addRule`).
 */
export class AstBuilder {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly items: A.Item[] = [];
  /** End offset of the last real text read, where nodes without a position are placed. */
  private lastEnd = 0;
  /** Rules built by `addRule` (null: nothing to build), until their block is added. */
  private readonly early = new Map<RuleCst, A.RuleNode | null>();

  constructor(private readonly source: SourceText) {}

  /** Adds the AST of one top-level item (nothing if the item is too broken to mean anything). */
  add(item: ItemCst): void {
    const node = this.item(item);
    if (node) this.items.push(node);
  }

  /**
   * Builds a rule of an `on` block ahead of its block, which `add` completes later, so that the
   * rule's tree need not be kept. Every node of a rule has a position of its own, so building it
   * before the block's first tokens gives the same AST.
   */
  addRule(rule: RuleCst): void {
    this.early.set(rule, this.rule(rule) ?? null);
  }

  finish(): { ast: A.PolicyFile; diagnostics: Diagnostic[] } {
    const { source } = this;
    const ast: A.PolicyFile = { kind: 'file', file: source.file, items: this.items, span: source.span(0, source.text.length) };
    return { ast, diagnostics: this.diagnostics };
  }

  // ---------------------------------------------------------------- spans

  private tokSpan(tok: IToken): Span {
    if (!isRealToken(tok)) return this.empty();
    const end = tok.startOffset + tok.image.length;
    if (end > this.lastEnd) this.lastEnd = end;
    return this.source.span(tok.startOffset, end);
  }

  private empty(): Span {
    return this.source.span(this.lastEnd, this.lastEnd);
  }

  /**
   * The span covering all `parts` (spans of AST children, or CST tokens); parts may be missing or
   * inserted tokens. With no positioned part, an empty span after the last text read.
   */
  private cover(...parts: Part[]): Span {
    let start: Position | undefined;
    let end: Position | undefined;
    let startOff = Infinity;
    let endOff = -Infinity;
    for (const part of parts) {
      if (part === undefined) continue;
      if ('start' in part) {
        if (part.start.offset < startOff) {
          startOff = part.start.offset;
          start = part.start;
        }
        if (part.end.offset > endOff) {
          endOff = part.end.offset;
          end = part.end;
        }
        continue;
      }
      for (const tok of Array.isArray(part) ? part : [part]) {
        if (!isRealToken(tok)) continue;
        if (tok.startOffset < startOff) {
          startOff = tok.startOffset;
          start = undefined;
        }
        const e = tok.startOffset + tok.image.length;
        if (e > endOff) {
          endOff = e;
          end = undefined;
        }
      }
    }
    if (startOff === Infinity) return this.empty();
    if (endOff > this.lastEnd) this.lastEnd = endOff;
    return {
      file: this.source.file,
      start: start ?? this.source.position(startOff),
      end: end ?? this.source.position(endOff),
    };
  }

  private report(code: string, message: string, span: Span, help?: string): void {
    this.diagnostics.push(diagnostic(code, 'error', message, { span, help }));
  }

  // ---------------------------------------------------------------- items

  private item(node: ItemCst): A.Item | undefined {
    const c = node.children;
    if (c.policyDecl?.[0]) {
      const d = c.policyDecl[0].children;
      const name = this.string(real(d.name));
      return name && { kind: 'policy', name, span: this.cover(d.keyword, name.span) };
    }
    if (c.includeDecl?.[0]) {
      const d = c.includeDecl[0].children;
      const path = this.string(real(d.path));
      return path && { kind: 'include', path, span: this.cover(d.keyword, path.span) };
    }
    if (c.importDecl?.[0]) {
      const d = c.importDecl[0].children;
      const agent = this.ident(real(d.agent));
      const what = this.ident(real(d.what));
      const path = this.string(real(d.path));
      if (!agent || !what || !path) return undefined;
      return { kind: 'import', agent, what, path, span: this.cover(d.keyword, path.span) };
    }
    if (c.letDecl?.[0]) {
      const d = c.letDecl[0].children;
      const name = this.ident(real(d.name));
      const value = d.value?.[0] ? this.value(d.value[0]) : undefined;
      if (!name || !value) return undefined;
      return { kind: 'let', name, value, span: this.cover(d.keyword, value.span) };
    }
    if (c.onBlock?.[0]) return this.onBlock(c.onBlock[0]);
    if (c.testBlock?.[0]) {
      const d = c.testBlock[0].children;
      const name = this.string(real(d.name));
      const cases: A.TestCaseNode[] = [];
      for (const tc of d.testCase ?? []) {
        const node = this.testCase(tc);
        if (node) cases.push(node);
      }
      if (!name) return undefined;
      return { kind: 'test', name, cases, span: this.cover(d.keyword, d.LCurly, cases[cases.length - 1]?.span, d.RCurly) };
    }
    if (c.unprotectDecl?.[0]) {
      const d = c.unprotectDecl[0].children;
      const targets: A.Ident[] = [];
      for (const tok of d.target ?? []) if (isRealToken(tok)) targets.push(this.ident(tok)!);
      if (targets.length === 0) return undefined;
      return { kind: 'unprotect', targets, span: this.cover(d.keyword, targets[targets.length - 1]!.span) };
    }
    return undefined;
  }

  private onBlock(node: OnBlockCst): A.OnBlock | undefined {
    const d = node.children;
    const seam = this.ident(real(d.seam));
    const rules: A.RuleNode[] = [];
    for (const r of d.rule ?? []) {
      const early = this.early.get(r);
      this.early.delete(r);
      const rule = early === undefined ? this.rule(r) : early;
      if (rule) rules.push(rule);
    }
    if (!seam) return undefined;
    return { kind: 'on', seam, rules, span: this.cover(d.keyword, d.LCurly, rules[rules.length - 1]?.span, d.RCurly) };
  }

  // ---------------------------------------------------------------- rules

  private rule(node: RuleCst): A.RuleNode | undefined {
    const c = node.children;
    const effect = this.ident(real(c.effect));
    if (!effect) return undefined;
    // parts in source order are unknown (clauses come in any order): the cover sorts them out
    const parts: Part[] = [effect.span];
    const tools = this.tools(c.toolList?.[0]);
    parts.push(tools[tools.length - 1]?.span);
    const selectors: A.SelectorNode[] = [];
    for (const s of c.selector ?? []) {
      const sel = this.selector(s);
      if (sel) {
        selectors.push(sel);
        parts.push(sel.span);
      }
    }
    const rule: A.RuleNode = { kind: 'rule', effect, tools, selectors, span: effect.span };
    // a clause cut short by a syntax error can leave text that reads as another clause: no repeats then
    if (!hasRecoveredChild(c)) this.noRepeats(c, effect.name);
    const text = this.string(real(c.text));
    if (text) {
      rule.text = text;
      parts.push(text.span);
    }
    const hook = c.hookClause?.[0]?.children;
    if (hook) {
      const command = this.string(real(hook.command));
      if (command) {
        rule.hook = { kind: 'hook', command, span: this.cover(hook.keyword, command.span) };
        parts.push(rule.hook.span);
      }
    }
    const timeout = c.timeoutClause?.[0]?.children;
    const duration = real(timeout?.duration);
    if (timeout && duration) {
      rule.timeout = { kind: 'duration', ms: durationMs(duration.image), text: duration.image, span: this.tokSpan(duration) };
      parts.push(timeout.keyword, rule.timeout.span);
    }
    const dialectClause = c.dialectClause?.[0]?.children;
    const dialect = this.ident(real(dialectClause?.dialect));
    if (dialectClause && dialect) {
      rule.dialect = dialect;
      parts.push(dialectClause.keyword, dialect.span);
    }
    const matcherClause = c.matcherClause?.[0]?.children;
    const matcher = matcherClause ? (this.string(real(matcherClause.pattern)) ?? this.ident(real(matcherClause.any))) : undefined;
    if (matcherClause && matcher) {
      rule.matcher = matcher;
      parts.push(matcherClause.keyword, matcher.span);
    }
    const withClause = c.withClause?.[0]?.children;
    const options = withClause?.options?.[0] ? this.object(withClause.options[0]) : undefined;
    if (withClause && options) {
      rule.with = { kind: 'with', options, span: this.cover(withClause.keyword, options.span) };
      parts.push(rule.with.span);
    }
    const when = c.whenClause?.[0]?.children;
    const expr = when?.orExpr?.[0] ? this.orExpr(when.orExpr[0]) : undefined;
    if (when && expr) {
      rule.when = expr;
      parts.push(when.keyword, expr.span);
    }
    const because = c.becauseClause?.[0]?.children;
    const reason = because ? (this.string(real(because.string)) ?? this.ref(real(because.ref))) : undefined;
    if (because && reason) {
      rule.because = reason;
      parts.push(because.keyword, reason.span);
    }
    const limit = real(c.limit);
    if (limit) {
      rule.limit = { kind: 'number', value: numberValue(limit.image), span: this.tokSpan(limit) };
      parts.push(rule.limit.span);
    }
    rule.span = this.cover(...parts);
    return rule;
  }

  /** Reports every clause written more than once in a rule (selectors may repeat). */
  private noRepeats(c: RuleCst['children'], effect: string): void {
    for (const [key, what] of CLAUSES) {
      const list = c[key];
      if (!list || list.length < 2) continue;
      for (const extra of list.slice(1)) {
        const span =
          'image' in extra ? this.tokSpan(extra) : this.cover(...Object.values(extra.children).map(directTokens));
        const help =
          key === 'text'
            ? 'a rule has one text; join the texts into one string, or write two rules'
            : key === 'limit'
              ? 'a rule has one count'
              : `a rule has one ${what} clause; write two rules to say two things`;
        const message =
          key === 'text' || key === 'limit'
            ? `a \`${effect}\` rule has more than one ${what}`
            : `duplicate ${what} clause in a \`${effect}\` rule`;
        this.report('parse/duplicate-clause', message, span, help);
      }
    }
  }

  private tools(node: ToolListCst | undefined): A.ToolPattern[] {
    const out: A.ToolPattern[] = [];
    for (const tok of node?.children.tool ?? []) {
      if (isRealToken(tok)) out.push({ kind: 'tool', name: tok.image, span: this.tokSpan(tok) });
    }
    return out;
  }

  private selector(node: SelectorCst): A.SelectorNode | undefined {
    const selector = this.ident(real(node.children.kind));
    if (!selector) return undefined;
    const values = this.values(node.children.value);
    return { kind: 'selector', selector, values, span: this.cover(selector.span, values[values.length - 1]?.span) };
  }

  // ---------------------------------------------------------------- conditions

  private orExpr(node: OrExprCst): A.ExprNode | undefined {
    const args: A.ExprNode[] = [];
    for (const a of node.children.andExpr ?? []) {
      const e = this.andExpr(a);
      if (e) args.push(e);
    }
    if (args.length < 2) return args[0];
    return { kind: 'or', args, span: this.cover((args[0] as A.ExprNode).span, (args[args.length - 1] as A.ExprNode).span) };
  }

  private andExpr(node: AndExprCst): A.ExprNode | undefined {
    const args: A.ExprNode[] = [];
    for (const n of node.children.notExpr ?? []) {
      const e = this.notExpr(n);
      if (e) args.push(e);
    }
    if (args.length < 2) return args[0];
    return { kind: 'and', args, span: this.cover((args[0] as A.ExprNode).span, (args[args.length - 1] as A.ExprNode).span) };
  }

  /** `not not x`: the outer `not` holds the inner; each spans from its keyword to the end of `x`. */
  private notExpr(node: NotExprCst): A.ExprNode | undefined {
    const nots = (node.children.Not ?? []).filter(isRealToken).map((t) => this.tokSpan(t));
    const primary = node.children.primary?.[0];
    const inner = primary ? this.primary(primary) : undefined;
    if (!inner) return undefined;
    let expr = inner.expr;
    for (let i = nots.length - 1; i >= 0; i--) {
      expr = { kind: 'not', arg: expr, span: this.cover(nots[i], inner.outer) };
    }
    return expr;
  }

  /** A primary condition, and its span including any parentheses around it. */
  private primary(node: PrimaryCst): { expr: A.ExprNode; outer: Span } | undefined {
    const c = node.children;
    if (c.LParen) {
      const expr = c.orExpr?.[0] ? this.orExpr(c.orExpr[0]) : undefined;
      return expr && { expr, outer: this.cover(c.LParen, expr.span, c.RParen) };
    }
    const t = real(c.True) ?? real(c.False);
    let expr: A.ExprNode | undefined;
    if (t) expr = { kind: 'boolexpr', value: t.tokenType === T.True, span: this.tokSpan(t) };
    else if (c.ranExpr?.[0]) expr = this.ranExpr(c.ranExpr[0]);
    else if (c.comparison?.[0]) expr = this.comparison(c.comparison[0]);
    return expr && { expr, outer: expr.span };
  }

  private ranExpr(node: RanExprCst): A.RanExpr {
    const c = node.children;
    const keyword = real(c.keyword);
    const keywordSpan = keyword ? this.tokSpan(keyword) : undefined;
    const tools = this.tools(c.toolList?.[0]);
    const selectors: A.SelectorNode[] = [];
    for (const s of c.selector ?? []) {
      const sel = this.selector(s);
      if (sel) selectors.push(sel);
    }
    const last = selectors[selectors.length - 1]?.span ?? tools[tools.length - 1]?.span;
    return { kind: 'ran', tools, selectors, span: this.cover(keywordSpan, last) };
  }

  private comparison(node: ComparisonCst): A.ExprNode | undefined {
    const c = node.children;
    const fieldTok = real(c.field);
    if (!fieldTok) return undefined;
    const field = this.field(fieldTok);
    const exists = real(c.Exists);
    if (exists) return { kind: 'exists', field, span: this.cover(field.span, exists) };
    const op = real(c.op);
    const value = c.value?.[0] ? this.value(c.value[0]) : undefined;
    if (!op || !value) return undefined;
    // `=` has been reported as an error; reading it as `==` keeps later checks from repeating it
    const name = op.tokenType === T.Equals ? '==' : op.image;
    return { kind: 'compare', op: name, opSpan: this.tokSpan(op), field, value, span: this.cover(field.span, value.span) };
  }

  private field(tok: IToken): A.FieldNode {
    const span = this.tokSpan(tok);
    const path = tok.image.split('.');
    if (path.includes('')) {
      this.report(
        'parse/invalid-field',
        `invalid field ${quote(tok.image)}`,
        span,
        'a field is a name, or names joined by single dots such as `input.file_path`',
      );
    }
    return { kind: 'field', path, span };
  }

  // ---------------------------------------------------------------- values

  private values(nodes: ValueCst[] | undefined): A.ValueNode[] {
    const out: A.ValueNode[] = [];
    for (const v of nodes ?? []) {
      const value = this.value(v);
      if (value) out.push(value);
    }
    return out;
  }

  private value(node: ValueCst): A.ValueNode | undefined {
    const c = node.children;
    let tok: IToken | undefined;
    if ((tok = real(c.string))) return this.string(tok);
    if ((tok = real(c.regex))) return this.regex(tok);
    if ((tok = real(c.number))) return { kind: 'number', value: numberValue(tok.image), span: this.tokSpan(tok) };
    if ((tok = real(c.duration))) {
      return { kind: 'duration', ms: durationMs(tok.image), text: tok.image, span: this.tokSpan(tok) };
    }
    if ((tok = real(c.True) ?? real(c.False))) return { kind: 'bool', value: tok.tokenType === T.True, span: this.tokSpan(tok) };
    if ((tok = real(c.Null))) return { kind: 'null', span: this.tokSpan(tok) };
    if ((tok = real(c.ref))) return this.ref(tok);
    if (c.list?.[0]) return this.list(c.list[0]);
    if (c.object?.[0]) return this.object(c.object[0]);
    return undefined;
  }

  private list(node: ListCst): A.ListLit {
    const c = node.children;
    const open = real(c.LBracket);
    const openSpan = open ? this.tokSpan(open) : undefined;
    const items = this.values(c.value);
    return { kind: 'list', items, span: this.cover(openSpan, items[items.length - 1]?.span, c.RBracket) };
  }

  private object(node: ObjectCst): A.ObjectLit {
    const c = node.children;
    const open = real(c.LCurly);
    const openSpan = open ? this.tokSpan(open) : undefined;
    const entries: A.ObjectEntry[] = [];
    const seen = new Set<string>();
    for (const e of c.entry ?? []) {
      const entry = this.entry(e);
      if (!entry) continue;
      if (seen.has(entry.key)) {
        this.report('parse/duplicate-key', `duplicate key ${quote(entry.key)} in an object`, entry.keySpan, 'write each key once');
      }
      seen.add(entry.key);
      entries.push(entry);
    }
    return { kind: 'object', entries, span: this.cover(openSpan, entries[entries.length - 1]?.span, c.RCurly) };
  }

  private entry(node: EntryCst): A.ObjectEntry | undefined {
    const keyTok = real(node.children.key);
    if (!keyTok) return undefined;
    const keySpan = this.tokSpan(keyTok);
    const quoted = keyTok.tokenType === T.StringLit || keyTok.tokenType === T.UnterminatedString;
    const key = quoted ? decodeString(keyTok.image).value : keyTok.image;
    const value = node.children.value?.[0] ? this.value(node.children.value[0]) : undefined;
    if (!value) return undefined;
    return { key, keySpan, value, span: this.cover(keySpan, value.span) };
  }

  // ---------------------------------------------------------------- tests

  private testCase(node: TestCaseCst): A.TestCaseNode | undefined {
    const c = node.children;
    const seam = this.ident(real(c.seam));
    if (!seam) return undefined;
    const toolTok = real(c.tool);
    const tool: A.ToolPattern | undefined = toolTok && { kind: 'tool', name: toolTok.image, span: this.tokSpan(toolTok) };
    const payload = this.string(real(c.payloadString)) ?? (c.payloadObject?.[0] ? this.object(c.payloadObject[0]) : undefined);
    const extra = c.extra?.[0] ? this.object(c.extra[0]) : undefined;
    const expect = this.ident(real(c.expect));
    if (!expect) return undefined;
    const reason = real(c.reasonRegex);
    const because = reason ? this.regex(reason) : this.string(real(c.reasonString));
    const out: A.TestCaseNode = { kind: 'case', seam, expect, span: this.cover(seam.span, expect.span, because?.span) };
    if (tool) out.tool = tool;
    if (payload) out.payload = payload;
    if (extra) out.extra = extra;
    if (because) out.because = because;
    return out;
  }

  // ---------------------------------------------------------------- tokens

  private ident(tok: IToken | undefined): A.Ident | undefined {
    return tok && { kind: 'ident', name: tok.image, span: this.tokSpan(tok) };
  }

  private ref(tok: IToken | undefined): A.Ref | undefined {
    return tok && { kind: 'ref', name: tok.image, span: this.tokSpan(tok) };
  }

  private string(tok: IToken | undefined): A.StringLit | undefined {
    return tok && { kind: 'string', value: decodeString(tok.image).value, span: this.tokSpan(tok) };
  }

  private regex(tok: IToken): A.RegexLit {
    const { source, flags } = decodeRegex(tok.image);
    return { kind: 'regex', source, flags, sourceOffset: tok.startOffset + 1, span: this.tokSpan(tok) };
  }
}

/** The tokens directly under a CST child list (nodes are skipped), for locating a repeated clause. */
function directTokens(list: readonly (IToken | CstNode)[] | undefined): IToken[] | undefined {
  return list?.filter((x): x is IToken => 'image' in x);
}

/** Whether a child node was cut short by a syntax error (recovery kept what it had read). */
function hasRecoveredChild(children: RuleCst['children']): boolean {
  for (const key in children) {
    for (const x of children[key as keyof typeof children] ?? []) if ('children' in x && x.recoveredNode) return true;
  }
  return false;
}
