/**
 * CST -> AST: gives the concrete syntax tree its meaning as `ast.ts` nodes, each with its span.
 *
 * The tree may come from a parse that recovered from errors, so every child may be missing and any
 * token may have been inserted by recovery (no text, no position). Such parts are left out of the
 * AST; an item that loses an essential part (the name of a `let`, the path of an `include`, ...) is
 * left out entirely, since its error has been reported already. A node with no position of its own is
 * placed, empty, just after the last real text read before it.
 *
 * The few checks that belong to the syntax are made here: a clause written twice in one rule, a key
 * written twice in one object, a malformed dotted field.
 */
import { diagnostic, type Diagnostic, type Span } from '../engine/index.js';
import {
  decodeRegex,
  decodeString,
  durationMs,
  extentOf,
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

const CLAUSE_NAMES = {
  text: 'text',
  hookClause: '`hook`',
  timeoutClause: '`timeout`',
  dialectClause: '`dialect`',
  whenClause: '`when`',
  becauseClause: '`because`',
  limit: 'count',
} as const;

/** Builds a file's AST item by item (`add`), so it can follow a parse that hands over items one by one. */
export class AstBuilder {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly items: A.Item[] = [];
  /** End offset of the last real text read, where nodes without a position are placed. */
  private lastEnd = 0;

  constructor(private readonly source: SourceText) {}

  /** Adds the AST of one top-level item (nothing if the item is too broken to mean anything). */
  add(item: ItemCst): void {
    const node = this.item(item);
    if (node) this.items.push(node);
  }

  finish(): { ast: A.PolicyFile; diagnostics: Diagnostic[] } {
    const { source } = this;
    const ast: A.PolicyFile = { kind: 'file', file: source.file, items: this.items, span: source.span(0, source.text.length) };
    return { ast, diagnostics: this.diagnostics };
  }

  // ---------------------------------------------------------------- spans

  private tokSpan(tok: IToken): Span {
    if (!isRealToken(tok)) return this.source.span(this.lastEnd, this.lastEnd);
    const end = tok.startOffset + tok.image.length;
    if (end > this.lastEnd) this.lastEnd = end;
    return this.source.span(tok.startOffset, end);
  }

  /** The span of a CST node; call `done` once its children are read. */
  private nodeSpan(node: CstNode): Span {
    const ext = extentOf(node);
    if (!ext) return this.source.span(this.lastEnd, this.lastEnd);
    return this.source.span(ext.start, ext.end);
  }

  private done<const N extends { span: Span }>(node: N): N {
    if (node.span.end.offset > this.lastEnd) this.lastEnd = node.span.end.offset;
    return node;
  }

  private between(first: Span, last: Span): Span {
    return { file: first.file, start: first.start, end: last.end };
  }

  private report(code: string, message: string, span: Span, help?: string): void {
    this.diagnostics.push(diagnostic(code, 'error', message, { span, help }));
  }

  // ---------------------------------------------------------------- items

  private item(node: ItemCst): A.Item | undefined {
    const c = node.children;
    const span = this.nodeSpan(node);
    let out: A.Item | undefined;
    if (c.policyDecl?.[0]) {
      const name = this.string(real(c.policyDecl[0].children.name));
      if (name) out = { kind: 'policy', name, span };
    } else if (c.includeDecl?.[0]) {
      const path = this.string(real(c.includeDecl[0].children.path));
      if (path) out = { kind: 'include', path, span };
    } else if (c.importDecl?.[0]) {
      const d = c.importDecl[0].children;
      const agent = this.ident(real(d.agent));
      const what = this.ident(real(d.what));
      const path = this.string(real(d.path));
      if (agent && what && path) out = { kind: 'import', agent, what, path, span };
    } else if (c.letDecl?.[0]) {
      const d = c.letDecl[0].children;
      const name = this.ident(real(d.name));
      const value = d.value?.[0] ? this.value(d.value[0]) : undefined;
      if (name && value) out = { kind: 'let', name, value, span };
    } else if (c.onBlock?.[0]) {
      const d = c.onBlock[0].children;
      const seam = this.ident(real(d.seam));
      const rules: A.RuleNode[] = [];
      for (const r of d.rule ?? []) {
        const rule = this.rule(r);
        if (rule) rules.push(rule);
      }
      if (seam) out = { kind: 'on', seam, rules, span };
    } else if (c.testBlock?.[0]) {
      const d = c.testBlock[0].children;
      const name = this.string(real(d.name));
      const cases: A.TestCaseNode[] = [];
      for (const tc of d.testCase ?? []) {
        const node = this.testCase(tc);
        if (node) cases.push(node);
      }
      if (name) out = { kind: 'test', name, cases, span };
    }
    return out ? this.done(out) : undefined;
  }

  // ---------------------------------------------------------------- rules

  private rule(node: RuleCst): A.RuleNode | undefined {
    const c = node.children;
    const span = this.nodeSpan(node);
    const effect = this.ident(real(c.effect));
    if (!effect) return undefined;
    const rule: A.RuleNode = { kind: 'rule', effect, tools: this.tools(c.toolList?.[0]), selectors: [], span };
    for (const s of c.selector ?? []) {
      const sel = this.selector(s);
      if (sel) rule.selectors.push(sel);
    }
    this.noRepeats(c, effect.name);
    const text = this.string(real(c.text));
    if (text) rule.text = text;
    const hook = c.hookClause?.[0];
    if (hook) {
      const command = this.string(real(hook.children.command));
      if (command) rule.hook = this.done({ kind: 'hook', command, span: this.nodeSpan(hook) });
    }
    const timeout = real(c.timeoutClause?.[0]?.children.duration);
    if (timeout) rule.timeout = { kind: 'duration', ms: durationMs(timeout.image), text: timeout.image, span: this.tokSpan(timeout) };
    const dialect = this.ident(real(c.dialectClause?.[0]?.children.dialect));
    if (dialect) rule.dialect = dialect;
    const when = c.whenClause?.[0]?.children.orExpr?.[0];
    const expr = when ? this.orExpr(when) : undefined;
    if (expr) rule.when = expr;
    const because = c.becauseClause?.[0]?.children;
    if (because) {
      const reason = this.string(real(because.string)) ?? this.ref(real(because.ref));
      if (reason) rule.because = reason;
    }
    const limit = real(c.limit);
    if (limit) rule.limit = { kind: 'number', value: numberValue(limit.image), span: this.tokSpan(limit) };
    return this.done(rule);
  }

  /** Reports every clause written more than once in a rule (selectors may repeat). */
  private noRepeats(c: RuleCst['children'], effect: string): void {
    for (const key of Object.keys(CLAUSE_NAMES) as (keyof typeof CLAUSE_NAMES)[]) {
      const list = c[key] as (IToken | CstNode)[] | undefined;
      if (!list || list.length < 2) continue;
      const what = CLAUSE_NAMES[key];
      for (const extra of list.slice(1)) {
        const span = 'image' in extra ? this.tokSpan(extra) : this.nodeSpan(extra);
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
    const span = this.nodeSpan(node);
    const selector = this.ident(real(node.children.kind));
    if (!selector) return undefined;
    const values = this.values(node.children.value);
    return this.done({ kind: 'selector', selector, values, span });
  }

  // ---------------------------------------------------------------- conditions

  private orExpr(node: OrExprCst): A.ExprNode | undefined {
    const span = this.nodeSpan(node);
    const args: A.ExprNode[] = [];
    for (const a of node.children.andExpr ?? []) {
      const e = this.andExpr(a);
      if (e) args.push(e);
    }
    if (args.length < 2) return args[0];
    return this.done({ kind: 'or', args, span });
  }

  private andExpr(node: AndExprCst): A.ExprNode | undefined {
    const span = this.nodeSpan(node);
    const args: A.ExprNode[] = [];
    for (const n of node.children.notExpr ?? []) {
      const e = this.notExpr(n);
      if (e) args.push(e);
    }
    if (args.length < 2) return args[0];
    return this.done({ kind: 'and', args, span });
  }

  private notExpr(node: NotExprCst): A.ExprNode | undefined {
    const nots = (node.children.Not ?? []).filter(isRealToken);
    const notSpans = nots.map((t) => this.tokSpan(t));
    const primary = node.children.primary?.[0];
    if (!primary) return undefined;
    const outer = this.nodeSpan(primary);
    let expr = this.primary(primary);
    if (!expr) return undefined;
    for (let i = notSpans.length - 1; i >= 0; i--) {
      expr = { kind: 'not', arg: expr, span: this.between(notSpans[i] as Span, outer) };
    }
    return expr;
  }

  private primary(node: PrimaryCst): A.ExprNode | undefined {
    const c = node.children;
    if (c.orExpr?.[0]) return this.orExpr(c.orExpr[0]);
    const t = real(c.True) ?? real(c.False);
    if (t) return { kind: 'boolexpr', value: t.tokenType === T.True, span: this.tokSpan(t) };
    if (c.ranExpr?.[0]) return this.ranExpr(c.ranExpr[0]);
    if (c.comparison?.[0]) return this.comparison(c.comparison[0]);
    return undefined;
  }

  private ranExpr(node: RanExprCst): A.RanExpr {
    const span = this.nodeSpan(node);
    const tools = this.tools(node.children.toolList?.[0]);
    const selectors: A.SelectorNode[] = [];
    for (const s of node.children.selector ?? []) {
      const sel = this.selector(s);
      if (sel) selectors.push(sel);
    }
    return this.done({ kind: 'ran', tools, selectors, span });
  }

  private comparison(node: ComparisonCst): A.ExprNode | undefined {
    const c = node.children;
    const span = this.nodeSpan(node);
    const fieldTok = real(c.field);
    if (!fieldTok) return undefined;
    const field = this.field(fieldTok);
    if (real(c.Exists)) return this.done({ kind: 'exists', field, span });
    const op = real(c.op);
    const value = c.value?.[0] ? this.value(c.value[0]) : undefined;
    if (!op || !value) return undefined;
    return this.done({ kind: 'compare', op: op.image, opSpan: this.tokSpan(op), field, value, span });
  }

  private field(tok: IToken): A.FieldNode {
    const span = this.tokSpan(tok);
    const path = tok.image.split('.');
    if (path.some((p) => p === '')) {
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
    const span = this.nodeSpan(node);
    return this.done({ kind: 'list', items: this.values(node.children.value), span });
  }

  private object(node: ObjectCst): A.ObjectLit {
    const span = this.nodeSpan(node);
    const entries: A.ObjectEntry[] = [];
    const seen = new Set<string>();
    for (const e of node.children.entry ?? []) {
      const entry = this.entry(e);
      if (!entry) continue;
      if (seen.has(entry.key)) {
        this.report('parse/duplicate-key', `duplicate key ${quote(entry.key)} in an object`, entry.keySpan, 'write each key once');
      }
      seen.add(entry.key);
      entries.push(entry);
    }
    return this.done({ kind: 'object', entries, span });
  }

  private entry(node: EntryCst): A.ObjectEntry | undefined {
    const span = this.nodeSpan(node);
    const keyTok = real(node.children.key);
    if (!keyTok) return undefined;
    const keySpan = this.tokSpan(keyTok);
    const key = keyTok.tokenType === T.StringLit || keyTok.tokenType === T.UnterminatedString ? decodeString(keyTok.image).value : keyTok.image;
    const value = node.children.value?.[0] ? this.value(node.children.value[0]) : undefined;
    if (!value) return undefined;
    return this.done({ key, keySpan, value, span });
  }

  // ---------------------------------------------------------------- tests

  private testCase(node: TestCaseCst): A.TestCaseNode | undefined {
    const c = node.children;
    const span = this.nodeSpan(node);
    const seam = this.ident(real(c.seam));
    if (!seam) return undefined;
    const out: Partial<A.TestCaseNode> = { kind: 'case', seam };
    const tool = real(c.tool);
    if (tool) out.tool = { kind: 'tool', name: tool.image, span: this.tokSpan(tool) };
    const payload = this.string(real(c.payloadString)) ?? (c.payloadObject?.[0] ? this.object(c.payloadObject[0]) : undefined);
    if (payload) out.payload = payload;
    if (c.extra?.[0]) out.extra = this.object(c.extra[0]);
    const expect = this.ident(real(c.expect));
    if (!expect) return undefined;
    out.expect = expect;
    const reason = real(c.reasonRegex);
    const because = reason ? this.regex(reason) : this.string(real(c.reasonString));
    if (because) out.because = because;
    return this.done({ ...out, span } as A.TestCaseNode);
  }

  // ---------------------------------------------------------------- tokens

  private ident(tok: IToken | undefined): A.Ident | undefined {
    return tok ? { kind: 'ident', name: tok.image, span: this.tokSpan(tok) } : undefined;
  }

  private ref(tok: IToken | undefined): A.Ref | undefined {
    return tok ? { kind: 'ref', name: tok.image, span: this.tokSpan(tok) } : undefined;
  }

  private string(tok: IToken | undefined): A.StringLit | undefined {
    return tok ? { kind: 'string', value: decodeString(tok.image).value, span: this.tokSpan(tok) } : undefined;
  }

  private regex(tok: IToken): A.RegexLit {
    const { source, flags } = decodeRegex(tok.image);
    return { kind: 'regex', source, flags, sourceOffset: tok.startOffset + 1, span: this.tokSpan(tok) };
  }
}
