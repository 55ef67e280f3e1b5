/**
 * The canonical layout of a policy file (`dshpolicy fmt`), comments kept.
 *
 * The text is parsed (a file with syntax errors is not formatted: its diagnostics are returned
 * instead) and printed again from its AST, with the literals that have a text of their own (regexes,
 * numbers, durations) copied as written and strings re-encoded by the grammar's `encodeString`. The
 * layout is described in docs/language.md, "Canonical layout (`dshpolicy fmt`)". In short:
 *
 * - top-level items, rules and test cases one per line; two spaces of indent per block or bracket;
 * - a rule's clauses in one order: tools, count, selectors, text, hook, dialect, matcher, timeout,
 *   with, when, because (the order never matters to the language, [§5]);
 * - lists `[a, b]` and objects `{ key: value }` (a hook's options: `with {key: value}`) on one
 *   line; one element per line, each followed by a comma, when they hold a comment or (in `let`
 *   values and test cases, not in rules) would go beyond 100 columns;
 * - at most one blank line between two items, rules, cases or elements, as written;
 * - comments where they were: a comment on a line of its own stays before what follows it; a
 *   comment after code stays after that code on its line; a comment inside a rule (or a case, or an
 *   item, outside its brackets), which the rule's one line cannot keep, moves onto its own line just
 *   above the rule.
 *
 * Formatting keeps the AST, positions aside: the output is re-parsed and compared before it is
 * returned (a difference is the error `fmt/internal`), so the compiled IR only differs in what
 * carries a position: spans, rule ids and the `line <n>` in test names.
 */
import { LineIndex, type Diagnostic, type Span } from '../engine/index.js';
import { capDiagnostics, encodeString, parse, SourceText, type IToken } from '../grammar/index.js';
import type * as A from './ast.js';
import { AstBuilder } from './cst-to-ast.js';

/** Lists and objects longer than this (from the start of their line) are broken one element per line. */
export const FORMAT_WIDTH = 100;
const INDENT = '  ';
/** Between code and a comment after it on its line. */
const BEFORE_COMMENT = '  ';

export type FormatResult =
  /** `changed`: whether `text` differs from the input. */
  | { ok: true; text: string; changed: boolean; diagnostics: Diagnostic[] }
  /** The file has syntax errors (or the formatter failed its own check): it is not formatted. */
  | { ok: false; diagnostics: Diagnostic[] };

/** The AST and the comments of a text, or its syntax errors. */
function read(text: string, file: string): { ast: A.PolicyFile; comments: IToken[]; errors: Diagnostic[] } {
  const builder = new AstBuilder(new SourceText(text, file));
  const parsed = parse(text, file, { onItem: (item) => builder.add(item) });
  const { ast, diagnostics } = builder.finish();
  const errors = capDiagnostics([...parsed.diagnostics, ...diagnostics]).filter((d) => d.severity === 'error');
  return { ast, comments: parsed.comments, errors };
}

/**
 * The canonical text of a policy file. `file` names it in diagnostics. Never throws on any input;
 * the result of a successful format formats to itself.
 */
export function formatPolicy(text: string, file = 'policy.dshpolicy'): FormatResult {
  try {
    const { ast, comments, errors } = read(text, file);
    if (errors.length > 0) return { ok: false, diagnostics: errors };
    const out = new Printer(text, comments).file(ast);
    // The output must mean what the input meant, and keep every comment.
    const again = read(out, file);
    const same =
      again.errors.length === 0 &&
      astShape(again.ast) === astShape(ast) &&
      commentTexts(again.comments) === commentTexts(comments);
    if (!same) return { ok: false, diagnostics: [internal(file, 'the formatted text would not mean the same as the file')] };
    return { ok: true, text: out, changed: out !== text, diagnostics: [] };
  } catch (e) {
    const what = e instanceof Error ? e.message : String(e);
    return { ok: false, diagnostics: [internal(file, `the formatter failed: ${(what.split('\n')[0] ?? '').slice(0, 200)}`)] };
  }
}

function internal(file: string, message: string): Diagnostic {
  const start = { line: 1, column: 1, offset: 0 };
  const span: Span = { file, start, end: start };
  return {
    code: 'fmt/internal',
    severity: 'error',
    message: message.toLowerCase(),
    span,
    help: 'this is a bug in dshpolicy; please report it with the file that caused it (the file was left as it is)',
  };
}

const POSITION_KEYS = new Set(['span', 'keySpan', 'opSpan', 'sourceOffset', 'file']);

/** The AST as JSON without positions: what formatting must keep. */
export function astShape(ast: A.PolicyFile): string {
  return JSON.stringify(ast, (key, value: unknown) => (POSITION_KEYS.has(key) ? undefined : value));
}

function commentTexts(comments: readonly IToken[]): string {
  return JSON.stringify(comments.map((c) => c.image.trimEnd()).sort());
}

// ---------------------------------------------------------------- printing

interface Comment {
  start: number;
  end: number;
  line: number;
  text: string;
}

/** An element of a region (the items of a file, the rules of a block, the elements of a list...). */
interface Unit {
  start: number;
  end: number;
  /** Its lines, indented by `indent`, and the comments inside it that go above it. */
  print(indent: string): { lines: string[]; above: Comment[] };
}

/**
 * Lines under construction: a unit's first line starts with its indent; `add` appends to the last
 * line; `value` appends a value that may span lines (its inner lines are indented from `indent`).
 * `wrap`: lists and objects too long for the width break (else only those holding a comment do).
 */
class Lines {
  readonly lines: string[];
  constructor(
    private readonly printer: Printer,
    readonly indent: string,
    readonly wrap: boolean,
  ) {
    this.lines = [indent];
  }

  get column(): number {
    return (this.lines[this.lines.length - 1] as string).length;
  }

  add(s: string): this {
    this.lines[this.lines.length - 1] += s;
    return this;
  }

  value(v: A.ValueNode, tail = 0, tight = false): this {
    const [first, ...rest] = this.printer.value(v, this.indent, this.column, tail, tight, this.wrap);
    this.add(first as string);
    this.lines.push(...rest);
    return this;
  }
}

class Printer {
  private readonly comments: Comment[];
  /** Lines as an editor shows them: a lone `\r` ends one too, as it ends a comment. */
  private readonly lines: LineIndex;

  constructor(
    private readonly text: string,
    tokens: readonly IToken[],
  ) {
    this.lines = new LineIndex(text, { cr: true });
    this.comments = tokens
      .map((t) => ({ start: t.startOffset, end: t.startOffset + t.image.length, line: 0, text: t.image.trimEnd() }))
      .sort((a, b) => a.start - b.start);
    for (const c of this.comments) c.line = this.lines.lineOf(c.start);
  }

  /** The comments that start in `[start, end)`. */
  private within(start: number, end: number): Comment[] {
    const from = lowerBound(this.comments.length, (i) => (this.comments[i] as Comment).start >= start);
    const to = lowerBound(this.comments.length, (i) => (this.comments[i] as Comment).start >= end);
    return this.comments.slice(from, Math.max(from, to));
  }

  /** Whether the text between two offsets holds an empty line. */
  private blankBetween(start: number, end: number): boolean {
    return /(?:\r\n?|\n)[^\S\r\n]*(?:\r\n?|\n)/.test(this.text.slice(start, end));
  }

  private raw(span: Span): string {
    return this.text.slice(span.start.offset, span.end.offset);
  }

  /** The offset of `ch` at or after `from`, skipping whitespace and comments. */
  private next(from: number, ch: string): number {
    for (let i = from; i < this.text.length; i++) {
      const c = this.text.charAt(i);
      if (c === ch) return i;
      if (c === '#') {
        while (i < this.text.length && this.text.charAt(i) !== '\n' && this.text.charAt(i) !== '\r') i++;
      } else if (!/\s|\uFEFF/.test(c)) break;
    }
    throw new Error(`expected \`${ch}\` at offset ${from}`);
  }

  /**
   * The comments inside `[start, end)` that are not inside a list or object of `node`: those go
   * with the list or object, which then breaks one element per line.
   */
  private above(start: number, end: number, node: unknown): Comment[] {
    const inside = this.within(start, end);
    if (inside.length === 0) return inside;
    const brackets: [number, number][] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) {
        v.forEach(walk);
        return;
      }
      if (!v || typeof v !== 'object') return;
      const o = v as Record<string, unknown>;
      if ((o['kind'] === 'list' || o['kind'] === 'object') && o['span']) {
        const s = o['span'] as Span;
        brackets.push([s.start.offset, s.end.offset]);
        return;
      }
      for (const [k, x] of Object.entries(o)) if (!POSITION_KEYS.has(k)) walk(x);
    };
    walk(node);
    return inside.filter((c) => !brackets.some(([s, e]) => c.start >= s && c.start < e));
  }

  // ---------------------------------------------------------------- regions

  /**
   * Prints a sequence of units with the comments between them, one per line under `indent`, each
   * unit followed by `suffix`. A comment inside a unit is the unit's; a comment on the line where a
   * unit ends is that unit's trailing comment; a comment on the line of the opening bracket
   * (`openLine`), before any unit, stays after the bracket (`open`); any other comment is a line
   * of its own, in order. A blank line between two of them is kept (one at most).
   */
  private region(units: Unit[], comments: Comment[], openLine: number | undefined, indent: string, suffix: string): { open?: Comment; lines: string[] } {
    const trailing = new Map<Unit, Comment>();
    const elements: ({ unit: Unit } | { comment: Comment })[] = units.map((unit) => ({ unit }));
    let open: Comment | undefined;
    for (const c of comments) {
      // units are in source order and do not overlap: the last one starting before the comment
      // holds it, or is the one before it
      const last = units[lowerBound(units.length, (i) => (units[i] as Unit).start > c.start) - 1];
      if (last && c.start < last.end) continue;
      const prev = last;
      if (prev && this.lines.lineOf(prev.end - 1) === c.line && !trailing.has(prev)) trailing.set(prev, c);
      else if (!prev && openLine !== undefined && c.line === openLine && !open) open = c;
      else elements.push({ comment: c });
    }
    const startOf = (e: { unit: Unit } | { comment: Comment }): number => ('unit' in e ? e.unit.start : e.comment.start);
    elements.sort((a, b) => startOf(a) - startOf(b));
    const lines: string[] = [];
    let prevEnd: number | undefined;
    for (const e of elements) {
      if (prevEnd !== undefined && this.blankBetween(prevEnd, startOf(e))) lines.push('');
      if ('comment' in e) {
        lines.push(indent + e.comment.text);
        prevEnd = e.comment.end;
        continue;
      }
      const { lines: own, above } = e.unit.print(indent);
      for (const c of above) lines.push(indent + c.text);
      const t = trailing.get(e.unit);
      own[own.length - 1] += suffix + (t ? BEFORE_COMMENT + t.text : '');
      lines.push(...own);
      prevEnd = e.unit.end;
    }
    return open ? { open, lines } : { lines };
  }

  /** A `{ ... }` block of units after `head` (`on pre-tool`), its `{` at offset `lcurly`. */
  private block(head: string, span: Span, lcurly: number, units: Unit[], indent: string): { lines: string[]; above: Comment[] } {
    const rcurly = span.end.offset - 1;
    const inner = this.within(lcurly + 1, rcurly);
    const above = this.within(span.start.offset, lcurly);
    if (units.length === 0 && inner.length === 0) return { lines: [`${indent}${head} {}`], above };
    const r = this.region(units, inner, this.lines.lineOf(lcurly), indent + INDENT, '');
    const first = `${indent}${head} {${r.open ? BEFORE_COMMENT + r.open.text : ''}`;
    return { lines: [first, ...r.lines, `${indent}}`], above };
  }

  // ---------------------------------------------------------------- items

  file(ast: A.PolicyFile): string {
    const units = ast.items.map((item) => this.unit(item.span, (indent) => this.item(item, indent)));
    const { lines } = this.region(units, this.comments, undefined, '', '');
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  }

  private unit(span: Span, print: Unit['print']): Unit {
    return { start: span.start.offset, end: span.end.offset, print };
  }

  private item(item: A.Item, indent: string): { lines: string[]; above: Comment[] } {
    const { start, end } = { start: item.span.start.offset, end: item.span.end.offset };
    const simple = (line: string) => ({ lines: [indent + line], above: this.above(start, end, item) });
    switch (item.kind) {
      case 'policy':
        return simple(`policy ${encodeString(item.name.value)}`);
      case 'include':
        return simple(`include ${encodeString(item.path.value)}`);
      case 'import':
        return simple(`import ${item.agent.name} ${item.what.name} ${encodeString(item.path.value)}`);
      case 'unprotect':
        return simple(`unprotect ${item.targets.map((t) => t.name).join(', ')}`);
      case 'let': {
        const out = new Lines(this, indent, true).add(`let ${item.name.name} = `).value(item.value);
        return { lines: out.lines, above: this.above(start, end, item) };
      }
      case 'on': {
        const lcurly = this.next(item.seam.span.end.offset, '{');
        const rules = item.rules.map((r) => this.unit(r.span, (ind) => ({ lines: this.rule(r, ind), above: this.above(r.span.start.offset, r.span.end.offset, r) })));
        return this.block(`on ${item.seam.name}`, item.span, lcurly, rules, indent);
      }
      case 'test': {
        const lcurly = this.next(item.name.span.end.offset, '{');
        const cases = item.cases.map((c) => this.unit(c.span, (ind) => ({ lines: this.testCase(c, ind), above: this.above(c.span.start.offset, c.span.end.offset, c) })));
        return this.block(`test ${encodeString(item.name.value)}`, item.span, lcurly, cases, indent);
      }
    }
  }

  // ---------------------------------------------------------------- rules

  private rule(r: A.RuleNode, indent: string): string[] {
    // a rule stays on one line, however long: its lists and objects break only around comments
    const out = new Lines(this, indent, false).add(r.effect.name);
    if (r.tools.length > 0) out.add(` ${r.tools.map((t) => t.name).join(', ')}`);
    if (r.limit) out.add(` ${this.raw(r.limit.span)}`);
    for (const s of r.selectors) this.selector(out, s);
    if (r.text) out.add(' ').value(r.text);
    if (r.hook) out.add(` hook ${encodeString(r.hook.command.value)}`);
    if (r.dialect) out.add(` dialect ${r.dialect.name}`);
    if (r.matcher) out.add(` matcher ${r.matcher.kind === 'string' ? encodeString(r.matcher.value) : r.matcher.name}`);
    if (r.timeout) out.add(` timeout ${r.timeout.text}`);
    if (r.with) out.add(' with ').value(r.with.options, 0, true);
    if (r.when) {
      out.add(' when ');
      this.expr(out, r.when, 'top');
    }
    if (r.because) out.add(' because ').value(r.because);
    return out.lines;
  }

  private selector(out: Lines, s: A.SelectorNode): void {
    out.add(` ${s.selector.name} `);
    s.values.forEach((v, i) => {
      if (i > 0) out.add(', ');
      out.value(v);
    });
  }

  /** A condition; parentheses only where the tree needs them (`(a or b) and c`, `not (a and b)`). */
  private expr(out: Lines, e: A.ExprNode, within: 'top' | 'or' | 'and' | 'not'): void {
    const paren = (e.kind === 'or' && within !== 'top') || (e.kind === 'and' && (within === 'and' || within === 'not'));
    if (paren) out.add('(');
    switch (e.kind) {
      case 'or':
      case 'and':
        e.args.forEach((a, i) => {
          if (i > 0) out.add(` ${e.kind} `);
          this.expr(out, a, e.kind);
        });
        break;
      case 'not':
        out.add('not ');
        this.expr(out, e.arg, 'not');
        break;
      case 'compare':
        out.add(`${e.field.path.join('.')} ${e.op} `).value(e.value, paren ? 1 : 0);
        break;
      case 'exists':
        out.add(`${e.field.path.join('.')} exists`);
        break;
      case 'ran':
        out.add(`ran ${e.tools.map((t) => t.name).join(', ')}`);
        for (const s of e.selectors) this.selector(out, s);
        break;
      case 'boolexpr':
        out.add(e.value ? 'true' : 'false');
        break;
    }
    if (paren) out.add(')');
  }

  // ---------------------------------------------------------------- tests

  private testCase(c: A.TestCaseNode, indent: string): string[] {
    const out = new Lines(this, indent, true).add(c.seam.name);
    if (c.tool) out.add(` ${c.tool.name}`);
    if (c.payload) out.add(' ').value(c.payload);
    if (c.extra) out.add(' with ').value(c.extra);
    out.add(` => ${c.expect.name}`);
    if (c.because) out.add(' because ').value(c.because);
    return out.lines;
  }

  // ---------------------------------------------------------------- values

  /**
   * A value starting at `column` of a line indented by `indent`: one line, or several, the first
   * without indent: a list or object breaks one element per line when it holds a comment, or (with
   * `wrap`) when it would end (with `tail` more characters after it) beyond the width and breaking
   * it can make it narrower (`breakable`).
   */
  value(v: A.ValueNode, indent: string, column: number, tail: number, tight: boolean, wrap: boolean): string[] {
    if (v.kind !== 'list' && v.kind !== 'object') return [this.flat(v, tight)];
    const start = v.span.start.offset;
    const end = v.span.end.offset;
    const inner = this.within(start + 1, end - 1);
    const flat = this.flat(v, tight);
    if (inner.length === 0 && (!wrap || !breakable(v) || column + flat.length + tail <= FORMAT_WIDTH)) return [flat];
    const units: Unit[] =
      v.kind === 'list'
        ? v.items.map((item) =>
            this.unit(item.span, (ind) => {
              const out = new Lines(this, ind, wrap).value(item, 1, tight);
              return { lines: out.lines, above: this.above(item.span.start.offset, item.span.end.offset, item) };
            }),
          )
        : v.entries.map((entry) =>
            this.unit(entry.span, (ind) => {
              const out = new Lines(this, ind, wrap).add(`${this.key(entry)}: `).value(entry.value, 1, tight);
              return { lines: out.lines, above: this.above(entry.span.start.offset, entry.span.end.offset, entry) };
            }),
          );
    const r = this.region(units, inner, this.lines.lineOf(start), indent + INDENT, ',');
    const [open, close] = v.kind === 'list' ? ['[', ']'] : ['{', '}'];
    return [open + (r.open ? BEFORE_COMMENT + r.open.text : ''), ...r.lines, indent + close];
  }

  /** A value on one line; `tight`: objects without spaces inside their braces. */
  private flat(v: A.ValueNode, tight: boolean): string {
    switch (v.kind) {
      case 'string':
        return encodeString(v.value);
      case 'regex':
      case 'number':
        return this.raw(v.span);
      case 'duration':
        return v.text;
      case 'bool':
        return v.value ? 'true' : 'false';
      case 'null':
        return 'null';
      case 'ref':
        return v.name;
      case 'list':
        return `[${v.items.map((x) => this.flat(x, tight)).join(', ')}]`;
      case 'object': {
        if (v.entries.length === 0) return '{}';
        const entries = v.entries.map((e) => `${this.key(e)}: ${this.flat(e.value, tight)}`).join(', ');
        return tight ? `{${entries}}` : `{ ${entries} }`;
      }
    }
  }

  /** An object key as written: a word stays a word, a quoted key stays quoted (re-encoded). */
  private key(e: A.ObjectEntry): string {
    return this.text.charAt(e.keySpan.start.offset) === '"' ? encodeString(e.key) : e.key;
  }
}

/**
 * Whether breaking a value one element per line can make it narrower: a list or object of more
 * than one element, or of one element that is itself breakable (`{args: ["a", "b"]}`, not `["x"]`).
 */
function breakable(v: A.ValueNode): boolean {
  if (v.kind !== 'list' && v.kind !== 'object') return false;
  const elements = v.kind === 'list' ? v.items : v.entries.map((e) => e.value);
  return elements.length > 1 || (elements.length === 1 && breakable(elements[0] as A.ValueNode));
}

/** The first index in `[0, n)` where `pred` holds (it must hold from some index on), or `n`. */
function lowerBound(n: number, pred: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
