/**
 * The part of Starlark that Codex rules files are written in, read as Codex's `execpolicy` crate
 * reads them (the `starlark` crate, extended dialect with f-strings): comments, strings (single,
 * double, triple-quoted, `r` raw and `f` strings, with Starlark's escapes), integers, lists,
 * tuples, `True`/`False`/`None`, variables (`x = [...]`, `x += [...]`), `+`, and calls with
 * positional and keyword arguments. Other Starlark (`def`, `for`, `if`, comprehensions, other
 * operators, indexing, methods) is valid for Codex but not evaluated here: it is reported as
 * `import/unsupported`. Syntax errors are `import/syntax`, with the position of the culprit.
 */

export interface Loc {
  /** 0-based UTF-16 offsets, `end` exclusive. */
  start: number;
  end: number;
}

export class StarlarkError extends Error {
  constructor(
    readonly code: 'import/syntax' | 'import/unsupported' | 'import/invalid-rule',
    message: string,
    readonly loc: Loc,
    readonly help?: string,
  ) {
    super(message);
  }
}

const UNSUPPORTED_HELP = 'this importer evaluates only assignments, lists, strings, `+` and calls; rewrite this part with those';

function syntax(message: string, start: number, end = start + 1): StarlarkError {
  return new StarlarkError('import/syntax', message, { start, end });
}

function unsupported(what: string, start: number, end: number): StarlarkError {
  return new StarlarkError('import/unsupported', `${what} is not supported by this importer (codex evaluates it as Starlark)`, { start, end }, UNSUPPORTED_HELP);
}

// ---------------------------------------------------------------------------------------------
// Tokens

export type Tok =
  | { t: 'name'; v: string; s: number; e: number }
  | { t: 'kw'; v: string; s: number; e: number }
  | { t: 'num'; v: number; float: boolean; s: number; e: number }
  | { t: 'str'; v: string; s: number; e: number }
  | { t: 'fstr'; parts: (string | { name: string; s: number; e: number })[]; s: number; e: number }
  | { t: 'op'; v: string; s: number; e: number }
  | { t: 'nl'; s: number; e: number }
  | { t: 'eof'; s: number; e: number }
  /** A lexical error: the tokens end here, and the parser reports it when it reaches it. */
  | { t: 'err'; error: StarlarkError; s: number; e: number };

const KEYWORDS = new Set(['and', 'break', 'continue', 'def', 'elif', 'else', 'for', 'if', 'in', 'lambda', 'load', 'not', 'or', 'pass', 'return']);
const RESERVED = new Set([
  'as', 'assert', 'async', 'await', 'class', 'del', 'except', 'finally', 'from', 'global', 'import', 'is', 'nonlocal',
  'raise', 'try', 'while', 'with', 'yield',
]);
const OPERATORS = [
  '//=', '<<=', '>>=', '...', '**', '//', '<<', '>>', '->', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '==', '!=', '<=', '>=',
  ',', ';', ':', '=', '<', '>', '-', '+', '*', '%', '/', '.', '&', '|', '^', '~', '(', ')', '[', ']', '{', '}',
];

const isIdStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_]/.test(c);
const isIdChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** Splits the file into tokens; the first lexical error becomes the last token. */
export function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  try {
    lex(src, out);
  } catch (e) {
    if (!(e instanceof StarlarkError)) throw e;
    out.push({ t: 'err', error: e, s: e.loc.start, e: e.loc.end });
    return out;
  }
  out.push({ t: 'nl', s: src.length, e: src.length }, { t: 'eof', s: src.length, e: src.length });
  return out;
}

function lex(src: string, out: Tok[]): void {
  let i = 0;
  let depth = 0;
  let lineStart = true;
  while (i < src.length) {
    if (lineStart && depth === 0) {
      // indentation of a logical line; blank and comment-only lines do not count
      let j = i;
      while (src[j] === ' ' || src[j] === '\r' || src[j] === '\t') j++;
      lineStart = false;
      if (j > i && src[j] !== '\n' && src[j] !== '#' && j < src.length) {
        const tab = src.slice(i, j).indexOf('\t');
        if (tab >= 0) throw syntax('tabs are not allowed', i + tab);
        throw syntax('unexpected indentation: a top-level statement starts in column 1', i, j);
      }
      i = j;
      continue;
    }
    const c = src[i]!;
    if (c === ' ' || (c === '\r' && src[i + 1] === '\n')) {
      i++;
      continue;
    }
    if (c === '\t') throw syntax('tabs are not allowed', i);
    if (c === '\n') {
      if (depth === 0) out.push({ t: 'nl', s: i, e: i + 1 });
      i++;
      lineStart = true;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '\\') {
      if (src[i + 1] === '\n') {
        i += 2;
        continue;
      }
      if (src[i + 1] === '\r' && src[i + 2] === '\n') {
        i += 3;
        continue;
      }
      throw syntax('unexpected `\\` outside a string', i);
    }
    // string literals, with an optional `r`, `f` or `fr` prefix
    const prefix = /^(fr|f|r)?(['"])/.exec(src.slice(i, i + 3));
    if (prefix && (prefix[1] !== undefined || c === '"' || c === "'")) {
      const tok = readString(src, i, prefix[1] ?? '');
      out.push(tok);
      i = tok.e;
      continue;
    }
    if (isIdStart(c)) {
      let j = i + 1;
      while (isIdChar(src[j])) j++;
      const word = src.slice(i, j);
      if (RESERVED.has(word)) throw syntax(`\`${word}\` is a reserved keyword`, i, j);
      out.push(KEYWORDS.has(word) ? { t: 'kw', v: word, s: i, e: j } : { t: 'name', v: word, s: i, e: j });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const tok = readNumber(src, i);
      out.push(tok);
      i = tok.e;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op === undefined) throw syntax(`unexpected character \`${String.fromCodePoint(src.codePointAt(i)!)}\``, i);
    if (op === '(' || op === '[' || op === '{') depth++;
    if ((op === ')' || op === ']' || op === '}') && depth > 0) depth--;
    out.push({ t: 'op', v: op, s: i, e: i + op.length });
    i += op.length;
  }
}

function readNumber(src: string, at: number): Tok {
  const rest = src.slice(at);
  const float = /^(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|\.[0-9]+(?:[eE][-+]?[0-9]+)?)/.exec(rest);
  if (float) return { t: 'num', v: Number(float[0]), float: true, s: at, e: at + float[0].length };
  const radix = /^0([xX][0-9A-Fa-f]+|[oO][0-7]+|[bB][01]+)/.exec(rest);
  if (radix) {
    const base = { x: 16, o: 8, b: 2 }[radix[1]![0]!.toLowerCase() as 'x' | 'o' | 'b'];
    return { t: 'num', v: parseInt(radix[1]!.slice(1), base), float: false, s: at, e: at + radix[0].length };
  }
  const dec = /^[0-9]+/.exec(rest)![0];
  if (dec.length > 1 && dec[0] === '0') throw syntax(`an integer cannot start with 0: \`${dec}\``, at, at + dec.length);
  return { t: 'num', v: Number(dec), float: false, s: at, e: at + dec.length };
}

/** Reads `\` escapes as Starlark does; `i` is just after the backslash. Returns the text and the next index. */
function readEscape(src: string, i: number, start: number): { text: string; next: number } {
  const c = src[i];
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', f: '\f', v: '\v', '"': '"', "'": "'", '\\': '\\' };
  if (c === undefined) throw syntax('unterminated string', start, i);
  if (simple[c] !== undefined) return { text: simple[c]!, next: i + 1 };
  if (c === '\n') return { text: '', next: i + 1 };
  if (c === '\r') {
    if (src[i + 1] !== '\n') throw syntax('invalid escape sequence `\\r`', i - 1, i + 1);
    return { text: '', next: i + 2 };
  }
  const digits = (radix: number, min: number, max: number, from: number): { text: string; next: number } => {
    const digit = radix === 16 ? /[0-9A-Fa-f]/ : /[0-7]/;
    let j = from;
    let value = 0;
    while (j - from < max && j < src.length && digit.test(src[j]!)) {
      value = value * radix + parseInt(src[j]!, radix);
      j++;
    }
    if (j - from < min || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) {
      const end = Math.min(src.length, j - from < min ? j + 1 : j);
      throw syntax(`invalid escape sequence \`\\${src.slice(i, end)}\``, i - 1, end);
    }
    return { text: String.fromCodePoint(value), next: j };
  };
  if (c === 'x') return digits(16, 2, 2, i + 1);
  if (c === 'u') return digits(16, 4, 4, i + 1);
  if (c === 'U') return digits(16, 8, 8, i + 1);
  if (c >= '0' && c <= '7') return digits(8, 1, 3, i);
  return { text: `\\${c}`, next: i + 1 };
}

function readString(src: string, at: number, prefix: string): Tok {
  const raw = prefix.includes('r');
  const fmt = prefix.includes('f');
  let i = at + prefix.length;
  const q = src[i]!;
  const triple = src.startsWith(q.repeat(3), i);
  i += triple ? 3 : 1;
  let text = '';
  const parts: (string | { name: string; s: number; e: number })[] = [];
  for (;;) {
    if (i >= src.length) throw syntax('unterminated string', at, src.length);
    const c = src[i]!;
    if (triple ? src.startsWith(q.repeat(3), i) : c === q) {
      i += triple ? 3 : 1;
      break;
    }
    if (c === '\n' && !triple) throw syntax('unterminated string: a line break ends it (use a triple-quoted string or `\\n`)', at, i);
    if (c === '\r') {
      i++;
      continue;
    }
    if (c === '\\') {
      if (raw) {
        const d = src[i + 1];
        if (d === undefined) throw syntax('unterminated string', at, src.length);
        text += d === "'" || d === '"' ? d : `\\${d}`;
        i += 2;
        continue;
      }
      const esc = readEscape(src, i + 1, at);
      text += esc.text;
      i = esc.next;
      continue;
    }
    if (fmt && (c === '{' || c === '}')) {
      if (src[i + 1] === c) {
        text += c;
        i += 2;
        continue;
      }
      if (c === '}') throw syntax('a single `}` in an f-string; write `}}` for a literal brace', i);
      const close = src.indexOf('}', i);
      const inner = close < 0 ? '' : src.slice(i + 1, close);
      if (close < 0 || inner.includes('\n')) throw syntax('unterminated `{` in an f-string', i);
      if (!/^\s*[A-Za-z_][A-Za-z0-9_]*\s*$/.test(inner)) throw unsupported('an f-string expression other than a variable name', i, close + 1);
      parts.push(text, { name: inner.trim(), s: i + 1, e: close });
      text = '';
      i = close + 1;
      continue;
    }
    text += c;
    i++;
  }
  if (fmt) return { t: 'fstr', parts: [...parts, text], s: at, e: i };
  return { t: 'str', v: text, s: at, e: i };
}

// ---------------------------------------------------------------------------------------------
// Syntax tree

export type Expr =
  | { k: 'str'; v: string; s: number; e: number }
  | { k: 'fstr'; parts: (string | { name: string; s: number; e: number })[]; s: number; e: number }
  | { k: 'num'; v: number; float: boolean; s: number; e: number }
  | { k: 'name'; v: string; s: number; e: number }
  | { k: 'list' | 'tuple'; items: Expr[]; s: number; e: number }
  | { k: 'call'; fn: Expr; args: Arg[]; s: number; e: number }
  | { k: 'add'; l: Expr; r: Expr; s: number; e: number };

export interface Arg {
  /** The keyword, for `name = value`. */
  name?: { v: string; s: number; e: number };
  value: Expr;
}

export type Stmt = { k: 'expr'; e: Expr } | { k: 'assign'; name: string; op: '=' | '+='; target: Loc; e: Expr; s: number };

function describe(t: Tok): string {
  switch (t.t) {
    case 'eof':
      return 'the end of the file';
    case 'nl':
      return 'the end of the line';
    case 'str':
    case 'fstr':
      return 'a string';
    case 'num':
      return `\`${t.v}\``;
    case 'err':
      return t.error.message;
    default:
      return `\`${t.v}\``;
  }
}

const UNSUPPORTED_KEYWORDS: Record<string, string> = {
  def: 'a `def` statement',
  if: 'an `if` statement',
  for: 'a `for` loop',
  load: 'a `load` statement',
  lambda: 'a `lambda`',
};

/** How deeply values may nest (lists in lists, calls in calls), and how many terms a `+` may chain. */
export const MAX_DEPTH = 100;
const MAX_TERMS = 10_000;

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Tok[]) {}

  private cur(): Tok {
    const t = this.toks[this.i]!;
    if (t.t === 'err') throw t.error;
    return t;
  }

  private isOp(v: string): boolean {
    const t = this.cur();
    return t.t === 'op' && t.v === v;
  }

  private expectOp(v: string, what: string): Tok {
    const t = this.cur();
    if (!this.isOp(v)) throw syntax(`expected \`${v}\` ${what}, found ${describe(t)}`, t.s, Math.max(t.e, t.s + 1));
    this.i++;
    return t;
  }

  parseFile(): Stmt[] {
    const out: Stmt[] = [];
    while (this.cur().t !== 'eof') {
      if (this.cur().t === 'nl') {
        this.i++;
        continue;
      }
      for (;;) {
        const st = this.statement();
        if (st) out.push(st);
        if (this.isOp(';')) {
          this.i++;
          if (this.cur().t === 'nl') break;
          continue;
        }
        break;
      }
      const t = this.cur();
      if (t.t !== 'nl') throw syntax(`unexpected ${describe(t)}: a statement ends at the end of its line or at \`;\``, t.s, Math.max(t.e, t.s + 1));
      this.i++;
    }
    return out;
  }

  private statement(): Stmt | null {
    const t = this.cur();
    if (t.t === 'kw') {
      if (t.v === 'pass') {
        this.i++;
        return null;
      }
      if (UNSUPPORTED_KEYWORDS[t.v]) throw unsupported(UNSUPPORTED_KEYWORDS[t.v]!, t.s, t.e);
      if (t.v === 'return') throw syntax('`return` outside a function', t.s, t.e);
      if (t.v === 'break' || t.v === 'continue') throw syntax(`\`${t.v}\` outside a loop`, t.s, t.e);
    }
    const e = this.expr();
    const op = this.cur();
    if (op.t === 'op' && (op.v === '=' || op.v === '+=')) {
      if (e.k !== 'name') {
        if (e.k === 'list' || e.k === 'tuple') throw unsupported('assigning to several variables at once', e.s, e.e);
        throw syntax('only a variable can be assigned to', e.s, e.e);
      }
      this.i++;
      const value = this.expr();
      return { k: 'assign', name: e.v, op: op.v, target: { start: e.s, end: e.e }, e: value, s: e.s };
    }
    if (op.t === 'op' && /^(-=|\*=|\/=|\/\/=|%=|&=|\|=|\^=|<<=|>>=)$/.test(op.v)) throw unsupported(`the operator \`${op.v}\``, op.s, op.e);
    return { k: 'expr', e };
  }

  expr(): Expr {
    if (++this.depth > MAX_DEPTH) {
      const t = this.cur();
      throw unsupported(`nesting values more than ${MAX_DEPTH} levels deep`, t.s, Math.max(t.e, t.s + 1));
    }
    try {
      return this.sum();
    } finally {
      this.depth--;
    }
  }

  private sum(): Expr {
    const t = this.cur();
    if (t.t === 'kw' && (t.v === 'lambda' || t.v === 'not')) throw unsupported(t.v === 'not' ? 'the operator `not`' : 'a `lambda`', t.s, t.e);
    let left = this.postfix();
    for (let terms = 1; ; terms++) {
      const op = this.cur();
      if (op.t === 'op' && op.v === '+') {
        if (terms >= MAX_TERMS) throw unsupported(`adding more than ${MAX_TERMS} values in one expression`, op.s, op.e);
        this.i++;
        const right = this.postfix();
        left = { k: 'add', l: left, r: right, s: left.s, e: right.e };
        continue;
      }
      if (op.t === 'op' && /^(-|\*|\*\*|\/|\/\/|%|&|\||\^|<<|>>|==|!=|<|>|<=|>=)$/.test(op.v)) throw unsupported(`the operator \`${op.v}\``, op.s, op.e);
      if (op.t === 'kw' && /^(and|or|in|not|if)$/.test(op.v)) {
        throw unsupported(op.v === 'if' ? 'a conditional expression' : `the operator \`${op.v}\``, op.s, op.e);
      }
      return left;
    }
  }

  private postfix(): Expr {
    let e = this.atom();
    for (;;) {
      const t = this.cur();
      if (t.t === 'op' && t.v === '(') {
        this.i++;
        const args = this.args();
        const close = this.expectOp(')', 'to close the call');
        e = { k: 'call', fn: e, args, s: e.s, e: close.e };
        continue;
      }
      if (t.t === 'op' && t.v === '[') throw unsupported('indexing', t.s, t.e);
      if (t.t === 'op' && t.v === '.') throw unsupported('an attribute or method', t.s, t.e);
      return e;
    }
  }

  private args(): Arg[] {
    const out: Arg[] = [];
    const names = new Set<string>();
    while (!this.isOp(')')) {
      const t = this.cur();
      if (t.t === 'op' && (t.v === '*' || t.v === '**')) throw unsupported(`\`${t.v}\` arguments`, t.s, t.e);
      const next = this.toks[this.i + 1]!;
      if (t.t === 'name' && next.t === 'op' && next.v === '=') {
        if (names.has(t.v)) throw syntax(`the argument \`${t.v}\` is given twice`, t.s, t.e);
        names.add(t.v);
        this.i += 2;
        out.push({ name: { v: t.v, s: t.s, e: t.e }, value: this.expr() });
      } else {
        const value = this.expr();
        if (names.size > 0) throw syntax('a positional argument after a keyword argument', value.s, value.e);
        out.push({ value });
      }
      if (this.isOp(',')) {
        this.i++;
        continue;
      }
      if (!this.isOp(')')) {
        const u = this.cur();
        throw syntax(`expected \`,\` or \`)\` in the call, found ${describe(u)}`, u.s, Math.max(u.e, u.s + 1));
      }
    }
    return out;
  }

  private items(close: string, open: Tok): { items: Expr[]; trailingComma: boolean; end: number } {
    const items: Expr[] = [];
    let trailingComma = false;
    while (!this.isOp(close)) {
      const e = this.expr();
      items.push(e);
      const t = this.cur();
      if (t.t === 'kw' && t.v === 'for') throw unsupported('a comprehension', open.s, t.e);
      trailingComma = false;
      if (this.isOp(',')) {
        this.i++;
        trailingComma = true;
        continue;
      }
      if (!this.isOp(close)) throw syntax(`expected \`,\` or \`${close}\`, found ${describe(t)}`, t.s, Math.max(t.e, t.s + 1));
    }
    const end = this.cur().e;
    this.i++;
    return { items, trailingComma, end };
  }

  private atom(): Expr {
    const t = this.cur();
    switch (t.t) {
      case 'str':
        this.i++;
        return { k: 'str', v: t.v, s: t.s, e: t.e };
      case 'fstr':
        this.i++;
        return { k: 'fstr', parts: t.parts, s: t.s, e: t.e };
      case 'num':
        this.i++;
        return { k: 'num', v: t.v, float: t.float, s: t.s, e: t.e };
      case 'name':
        this.i++;
        return { k: 'name', v: t.v, s: t.s, e: t.e };
      case 'op':
        if (t.v === '[') {
          this.i++;
          const { items, end } = this.items(']', t);
          return { k: 'list', items, s: t.s, e: end };
        }
        if (t.v === '(') {
          this.i++;
          const { items, trailingComma, end } = this.items(')', t);
          if (items.length === 1 && !trailingComma) return items[0]!;
          return { k: 'tuple', items, s: t.s, e: end };
        }
        if (t.v === '{') throw unsupported('a dict', t.s, t.e);
        if (t.v === '-' || t.v === '+' || t.v === '~') throw unsupported(`the operator \`${t.v}\``, t.s, t.e);
        break;
    }
    throw syntax(`expected a value, found ${describe(t)}`, t.s, Math.max(t.e, t.s + 1));
  }
}

/** Parses a rules file into statements; throws StarlarkError at the first problem. */
export function parseStarlark(src: string): Stmt[] {
  return new Parser(tokenize(src)).parseFile();
}

// ---------------------------------------------------------------------------------------------
// Values

export type Val =
  | { k: 'str'; v: string; loc: Loc }
  | { k: 'int' | 'float'; v: number; loc: Loc }
  | { k: 'bool'; v: boolean; loc: Loc }
  | { k: 'none'; loc: Loc }
  | { k: 'list' | 'tuple'; items: Val[]; loc: Loc }
  | { k: 'builtin'; name: string; loc: Loc };

/** Starlark's name for a value's type, as its error messages say it. */
export function typeName(v: Val): string {
  return { str: 'string', int: 'int', float: 'float', bool: 'bool', none: 'NoneType', list: 'list', tuple: 'tuple', builtin: 'function' }[v.k];
}

/** What `str(v)` gives, for f-strings. */
export function strOf(v: Val): string {
  if (v.k === 'str') return v.v;
  return repr(v);
}

function repr(v: Val): string {
  switch (v.k) {
    case 'str':
      return JSON.stringify(v.v);
    case 'int':
    case 'float':
      return String(v.v);
    case 'bool':
      return v.v ? 'True' : 'False';
    case 'none':
      return 'None';
    case 'list':
      return `[${v.items.map(repr).join(', ')}]`;
    case 'tuple':
      return v.items.length === 1 ? `(${repr(v.items[0]!)},)` : `(${v.items.map(repr).join(', ')})`;
    case 'builtin':
      return `<built-in function ${v.name}>`;
  }
}

/** Starlark's standard functions: valid for codex, not evaluated here. */
export const STANDARD_FUNCTIONS = new Set([
  'abs', 'all', 'any', 'bool', 'chr', 'dict', 'dir', 'enumerate', 'fail', 'float', 'getattr', 'hasattr', 'hash', 'int', 'isinstance',
  'json', 'len', 'list', 'max', 'min', 'ord', 'print', 'range', 'repr', 'reversed', 'sorted', 'str', 'struct', 'tuple', 'type', 'zip',
]);

/** Evaluates an expression; `call` handles calls of builtins. */
export function evalExpr(e: Expr, env: ReadonlyMap<string, Val>, call: (fn: string, args: EvaluatedArg[], at: Expr) => Val): Val {
  const loc = { start: e.s, end: e.e };
  switch (e.k) {
    case 'str':
      return { k: 'str', v: e.v, loc };
    case 'num':
      return { k: e.float ? 'float' : 'int', v: e.v, loc };
    case 'fstr': {
      let text = '';
      for (const p of e.parts) {
        if (typeof p === 'string') text += p;
        else text += strOf(lookup(p.name, { start: p.s, end: p.e }, env));
      }
      return { k: 'str', v: text, loc };
    }
    case 'name':
      return { ...lookup(e.v, loc, env) };
    case 'list':
    case 'tuple':
      return { k: e.k, items: e.items.map((x) => evalExpr(x, env, call)), loc };
    case 'add':
      return addValues(evalExpr(e.l, env, call), evalExpr(e.r, env, call), loc);
    case 'call': {
      const fn = evalExpr(e.fn, env, call);
      if (fn.k !== 'builtin') throw new StarlarkError('import/invalid-rule', `a \`${typeName(fn)}\` cannot be called`, { start: e.fn.s, end: e.fn.e });
      const args = e.args.map((a) => ({ name: a.name, value: evalExpr(a.value, env, call), loc: { start: a.name?.s ?? a.value.s, end: a.value.e } }));
      return call(fn.name, args, e);
    }
  }
}

/** `l + r`: strings, numbers, lists and tuples. */
export function addValues(l: Val, r: Val, loc: Loc): Val {
  if (l.k === 'str' && r.k === 'str') return { k: 'str', v: l.v + r.v, loc };
  if ((l.k === 'int' || l.k === 'float') && (r.k === 'int' || r.k === 'float')) return { k: l.k === 'float' || r.k === 'float' ? 'float' : 'int', v: l.v + r.v, loc };
  if ((l.k === 'list' && r.k === 'list') || (l.k === 'tuple' && r.k === 'tuple')) return { k: l.k, items: [...l.items, ...r.items], loc };
  throw new StarlarkError('import/invalid-rule', `\`+\` cannot add a \`${typeName(r)}\` to a \`${typeName(l)}\``, loc);
}

export interface EvaluatedArg {
  name?: { v: string; s: number; e: number } | undefined;
  value: Val;
  loc: Loc;
}

function lookup(name: string, loc: Loc, env: ReadonlyMap<string, Val>): Val {
  const v = env.get(name);
  if (v !== undefined) return v;
  if (STANDARD_FUNCTIONS.has(name)) throw unsupported(`the function \`${name}\``, loc.start, loc.end);
  throw new StarlarkError('import/invalid-rule', `\`${name}\` is not defined`, loc, 'codex rules files know `prefix_rule`, `host_executable` and `network_rule`');
}
