/**
 * Builders of AST nodes over a known source text, for tests of the stages after parsing: each
 * node's span is where its text is found in the source, so diagnostics point where a parser would.
 */
import { LineIndex, type Span } from '../engine/index.js';
import type * as A from './ast.js';
import { compileWith, type CompileResult } from './compile.js';
import type { ParseFn, SourceHost } from './load.js';

export class AstBuilder {
  private lines: LineIndex | undefined;

  constructor(
    readonly text: string,
    readonly file: string,
  ) {}

  /** Offset of the `n`th (0-based) occurrence of `needle` at or after `from`. */
  find(needle: string, n = 0, from = 0): number {
    let at = this.text.indexOf(needle, from);
    for (let i = 0; i < n && at >= 0; i++) at = this.text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`test source has no occurrence ${n} of ${JSON.stringify(needle)}`);
    return at;
  }

  /** Like `find`, counting only occurrences that are whole words (names, tools, keywords). */
  findWord(word: string, n = 0, from = 0): number {
    const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /[A-Za-z0-9_*-]/.test(ch);
    let seen = 0;
    for (let at = this.text.indexOf(word, from); at >= 0; at = this.text.indexOf(word, at + 1)) {
      if (isWordChar(this.text[at - 1]) || isWordChar(this.text[at + word.length])) continue;
      if (seen++ === n) return at;
    }
    throw new Error(`test source has no word occurrence ${n} of ${JSON.stringify(word)}`);
  }

  wordSpan(word: string, n = 0): Span {
    const at = this.findWord(word, n);
    return this.span(at, at + word.length);
  }

  span(start: number, end: number): Span {
    return (this.lines ??= new LineIndex(this.text)).span(this.file, start, end);
  }

  spanOf(needle: string, n = 0, from = 0): Span {
    const at = this.find(needle, n, from);
    return this.span(at, at + needle.length);
  }

  /** The span from the start of the first node to the end of the furthest one. */
  cover(nodes: readonly ({ span: Span } | undefined)[]): Span {
    const present = nodes.filter((x): x is { span: Span } => x !== undefined);
    const start = Math.min(...present.map((x) => x.span.start.offset));
    const end = Math.max(...present.map((x) => x.span.end.offset));
    return this.span(start, end);
  }

  ident(name: string, n = 0): A.Ident {
    return { kind: 'ident', name, span: this.wordSpan(name, n) };
  }

  /** `literal` is the string as written, quotes included (JSON escapes). */
  str(literal: string, n = 0): A.StringLit {
    return { kind: 'string', value: JSON.parse(literal) as string, span: this.spanOf(literal, n) };
  }

  /** `literal` is the regex as written: `/source/flags`. */
  re(literal: string, n = 0): A.RegexLit {
    const at = this.find(literal, n);
    const close = literal.lastIndexOf('/');
    return {
      kind: 'regex',
      source: literal.slice(1, close).replace(/\\\//g, '/'),
      flags: literal.slice(close + 1),
      sourceOffset: at + 1,
      span: this.span(at, at + literal.length),
    };
  }

  num(literal: string, n = 0): A.NumberLit {
    return { kind: 'number', value: Number(literal), span: this.spanOf(literal, n) };
  }

  dur(literal: string, ms: number, n = 0): A.DurationLit {
    return { kind: 'duration', ms, text: literal, span: this.spanOf(literal, n) };
  }

  bool(literal: 'true' | 'false', n = 0): A.BoolLit {
    return { kind: 'bool', value: literal === 'true', span: this.spanOf(literal, n) };
  }

  nul(n = 0): A.NullLit {
    return { kind: 'null', span: this.spanOf('null', n) };
  }

  ref(name: string, n = 0): A.Ref {
    return { kind: 'ref', name, span: this.wordSpan(name, n) };
  }

  tool(name: string, n = 0): A.ToolPattern {
    return { kind: 'tool', name, span: this.wordSpan(name, n) };
  }

  /** A list; `n` picks the occurrence of `[` it starts at. */
  list(items: A.ValueNode[], n = 0): A.ListLit {
    const open = this.find('[', n);
    let depth = 0;
    let close = open;
    for (let i = open; i < this.text.length; i++) {
      const ch = this.text[i];
      if (ch === '[') depth++;
      if (ch === ']' && --depth === 0) {
        close = i;
        break;
      }
    }
    return { kind: 'list', items, span: this.span(open, close + 1) };
  }

  entry(key: string, value: A.ValueNode): A.ObjectEntry {
    const at = this.text.lastIndexOf(key, value.span.start.offset);
    const keySpan = this.span(at, at + key.length);
    return { key, keySpan, value, span: this.span(at, value.span.end.offset) };
  }

  obj(entries: Record<string, A.ValueNode>, n = 0): A.ObjectLit {
    const list = Object.entries(entries).map(([k, v]) => this.entry(k, v));
    const open = this.find('{', n);
    let depth = 0;
    let close = open;
    for (let i = open; i < this.text.length; i++) {
      const ch = this.text[i];
      if (ch === '{') depth++;
      if (ch === '}' && --depth === 0) {
        close = i;
        break;
      }
    }
    return { kind: 'object', entries: list, span: this.span(open, close + 1) };
  }

  sel(kind: string, values: A.ValueNode[], n = 0): A.SelectorNode {
    const selector = this.ident(kind, n);
    return { kind: 'selector', selector, values, span: this.cover([selector, ...values]) };
  }

  field(path: string, n = 0): A.FieldNode {
    return { kind: 'field', path: path.split('.'), span: this.wordSpan(path, n) };
  }

  cmp(field: A.FieldNode, op: string, value: A.ValueNode): A.CompareExpr {
    const opSpan = this.spanOf(op, 0, field.span.end.offset);
    return { kind: 'compare', op, opSpan, field, value, span: this.cover([field, value]) };
  }

  exists(field: A.FieldNode): A.ExistsExpr {
    return { kind: 'exists', field, span: this.span(field.span.start.offset, this.find('exists', 0, field.span.end.offset) + 6) };
  }

  and(...args: A.ExprNode[]): A.AndExpr {
    return { kind: 'and', args, span: this.cover(args) };
  }

  or(...args: A.ExprNode[]): A.OrExpr {
    return { kind: 'or', args, span: this.cover(args) };
  }

  not(arg: A.ExprNode, n = 0): A.NotExpr {
    const at = this.find('not', n);
    return { kind: 'not', arg, span: this.span(at, arg.span.end.offset) };
  }

  ran(tools: A.ToolPattern[], selectors: A.SelectorNode[], n = 0): A.RanExpr {
    const word = this.ident('ran', n);
    return { kind: 'ran', tools, selectors, span: this.cover([word, ...tools, ...selectors]) };
  }

  boolexpr(literal: 'true' | 'false', n = 0): A.BoolExpr {
    return { kind: 'boolexpr', value: literal === 'true', span: this.spanOf(literal, n) };
  }

  hook(command: A.StringLit): A.HookClause {
    const at = this.text.lastIndexOf('hook', command.span.start.offset);
    return { kind: 'hook', command, span: this.span(at, command.span.end.offset) };
  }

  rule(effect: A.Ident, parts: Partial<Omit<A.RuleNode, 'kind' | 'effect' | 'span'>> = {}): A.RuleNode {
    const node: A.RuleNode = {
      kind: 'rule',
      effect,
      tools: parts.tools ?? [],
      selectors: parts.selectors ?? [],
      span: effect.span,
    };
    for (const key of ['text', 'hook', 'timeout', 'dialect', 'matcher', 'when', 'because', 'limit'] as const) {
      if (parts[key] !== undefined) (node as unknown as Record<string, unknown>)[key] = parts[key];
    }
    node.span = this.cover([effect, ...node.tools, ...node.selectors, node.text, node.hook, node.timeout, node.dialect, node.matcher, node.when, node.because, node.limit]);
    return node;
  }

  on(seam: A.Ident, rules: A.RuleNode[]): A.OnBlock {
    const at = this.text.lastIndexOf('on', seam.span.start.offset);
    const close = this.find('}', 0, rules.length ? rules[rules.length - 1]!.span.end.offset : seam.span.end.offset);
    return { kind: 'on', seam, rules, span: this.span(at, close + 1) };
  }

  kase(seam: A.Ident, expect: A.Ident, parts: Partial<Omit<A.TestCaseNode, 'kind' | 'seam' | 'expect' | 'span'>> = {}): A.TestCaseNode {
    const node: A.TestCaseNode = { kind: 'case', seam, expect, span: seam.span };
    for (const key of ['tool', 'payload', 'extra', 'because'] as const) {
      if (parts[key] !== undefined) (node as unknown as Record<string, unknown>)[key] = parts[key];
    }
    node.span = this.cover([seam, node.tool, node.payload, node.extra, expect, node.because]);
    return node;
  }

  test(name: A.StringLit, cases: A.TestCaseNode[]): A.TestBlock {
    const at = this.text.lastIndexOf('test', name.span.start.offset);
    const close = this.find('}', 0, cases.length ? cases[cases.length - 1]!.span.end.offset : name.span.end.offset);
    return { kind: 'test', name, cases, span: this.span(at, close + 1) };
  }

  let(name: string, value: A.ValueNode, n = 0): A.LetDecl {
    const id = this.ident(name, n);
    const at = this.text.lastIndexOf('let', id.span.start.offset);
    return { kind: 'let', name: id, value, span: this.span(at, value.span.end.offset) };
  }

  policy(name: A.StringLit): A.PolicyDecl {
    const at = this.text.lastIndexOf('policy', name.span.start.offset);
    return { kind: 'policy', name, span: this.span(at, name.span.end.offset) };
  }

  include(path: A.StringLit): A.IncludeDecl {
    const at = this.text.lastIndexOf('include', path.span.start.offset);
    return { kind: 'include', path, span: this.span(at, path.span.end.offset) };
  }

  import(agent: A.Ident, what: A.Ident, path: A.StringLit): A.ImportDecl {
    const at = this.text.lastIndexOf('import', agent.span.start.offset);
    return { kind: 'import', agent, what, path, span: this.span(at, path.span.end.offset) };
  }

  fileNode(items: A.Item[]): A.PolicyFile {
    return { kind: 'file', file: this.file, items, span: this.span(0, this.text.length) };
  }
}

/** A file's text and how to build its AST from it. */
export interface FakeSource {
  text: string;
  build(b: AstBuilder): A.Item[];
}

/** A host and a parser over in-memory files whose ASTs are built by hand. */
export function fakeSources(files: Record<string, FakeSource>): { host: SourceHost; parse: ParseFn } {
  return {
    host: { readFile: (path) => files[path]?.text },
    parse: (text, file) => {
      const source = files[file];
      if (!source) throw new Error(`no fake source for ${file}`);
      const b = new AstBuilder(text, file);
      return { ast: b.fileNode(source.build(b)), diagnostics: [] };
    },
  };
}

/** Compiles one hand-built file `p.dshpolicy` (plus `more` files it may include). */
export function compileFake(text: string, build: (b: AstBuilder) => A.Item[], more: Record<string, FakeSource> = {}): CompileResult {
  const { host, parse } = fakeSources({ 'p.dshpolicy': { text, build }, ...more });
  return compileWith(['p.dshpolicy'], host, parse);
}

/** `code@line:col` of each diagnostic: compact to compare. */
export function codesAt(r: CompileResult): string[] {
  return r.diagnostics.map((d) => `${d.code}@${d.span ? `${d.span.start.line}:${d.span.start.column}` : '-'}`);
}
