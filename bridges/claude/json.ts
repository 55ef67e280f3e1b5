/**
 * Strict JSON with positions: the parse tree of jsonc-parser, read the way Claude Code reads its
 * files (`JSON.parse`: no comments, no trailing commas, the last of two equal keys wins), with a
 * line index for spans and JSON pointers for every node. Deep nesting is refused before parsing,
 * since the parser recurses.
 */
import { getNodePath, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { diagnostic, type Diagnostic, type Position, type Span } from '../../engine/index.js';

/** Deeper than any settings file needs, far below where the parser would run out of stack. */
export const MAX_DEPTH = 128;
/** Syntax errors reported per file; a binary file would otherwise produce one per byte. */
export const MAX_SYNTAX_ERRORS = 50;

const SYNTAX_HELP = 'claude code reads this file as strict json and ignores all of it when it does not parse';

export interface JsonDoc {
  file: string;
  text: string;
  /** Offsets where each line starts (`\n` ends a line). */
  lineStarts: number[];
  root?: Node;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

export function positionIn(doc: JsonDoc, offset: number): Position {
  const off = Math.max(0, Math.min(offset, doc.text.length));
  let lo = 0;
  let hi = doc.lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (doc.lineStarts[mid]! <= off) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: off - doc.lineStarts[lo]! + 1, offset: off };
}

export function spanAt(doc: JsonDoc, offset: number, length: number): Span {
  return { file: doc.file, start: positionIn(doc, offset), end: positionIn(doc, offset + Math.max(0, length)) };
}

export function nodeSpan(doc: JsonDoc, node: Node): Span {
  return spanAt(doc, node.offset, node.length);
}

function escapeSegment(s: string | number): string {
  return String(s).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function toPointer(path: readonly (string | number)[]): string {
  return path.map((s) => '/' + escapeSegment(s)).join('');
}

/** The JSON pointer of a value node (of the value, when given a property or its key). */
export function pointerOf(node: Node): string {
  let n = node;
  if (n.type === 'property' && n.children?.[1]) n = n.children[1];
  else if (n.parent?.type === 'property' && n.parent.children?.[0] === n && n.parent.children[1]) n = n.parent.children[1];
  return toPointer(getNodePath(n));
}

/** The deepest nesting of `[` and `{` outside strings, and where it first went past `max`. */
export function nestingTooDeep(text: string, max: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34 || c === 10) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return i;
    } else if (c === 93 || c === 125) depth = Math.max(0, depth - 1);
  }
  return undefined;
}

function shown(s: string): string {
  const t = s.length > 20 ? s.slice(0, 20) + '…' : s;
  return t.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffd`]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function previousSignificant(text: string, offset: number): string {
  for (let i = offset - 1; i >= 0; i--) {
    const ch = text[i]!;
    if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\r') return ch;
  }
  return '';
}

function syntaxMessage(text: string, e: ParseError): { message: string; help?: string } {
  const at = text.slice(e.offset, e.offset + Math.max(1, e.length));
  const closer = text[e.offset];
  const trailingComma = (closer === '}' || closer === ']') && previousSignificant(text, e.offset) === ',';
  switch (printParseErrorCode(e.error)) {
    case 'InvalidCommentToken':
      return { message: 'comments are not allowed', help: 'claude code reads this file as strict json and ignores all of it when it has a comment; remove the comment' };
    case 'UnexpectedEndOfComment':
      return { message: 'unterminated comment', help: 'comments are not allowed in strict json' };
    case 'PropertyNameExpected':
      if (trailingComma) return { message: `trailing comma before \`${closer}\``, help: 'strict json allows no comma after the last item; remove it' };
      return { message: `expected a property name in double quotes, found \`${shown(at)}\`` };
    case 'ValueExpected':
      if (trailingComma) return { message: `trailing comma before \`${closer}\``, help: 'strict json allows no comma after the last item; remove it' };
      return { message: e.offset >= text.length ? 'expected a value, found the end of the file' : `expected a value, found \`${shown(at)}\`` };
    case 'InvalidSymbol':
      return { message: `unexpected \`${shown(at)}\`` };
    case 'InvalidNumberFormat':
    case 'UnexpectedEndOfNumber':
      return { message: `invalid number \`${shown(at)}\`` };
    case 'ColonExpected':
      return { message: 'expected `:` after the property name' };
    case 'CommaExpected':
      return { message: `expected \`,\` before \`${shown(at)}\`` };
    case 'CloseBraceExpected':
      return { message: 'expected `}` to close the object' };
    case 'CloseBracketExpected':
      return { message: 'expected `]` to close the array' };
    case 'EndOfFileExpected':
      return { message: `unexpected \`${shown(at)}\` after the end of the document` };
    case 'UnexpectedEndOfString':
      return { message: 'unterminated string' };
    case 'InvalidUnicode':
      return { message: 'invalid unicode escape in a string' };
    case 'InvalidEscapeCharacter':
      return { message: 'invalid escape sequence in a string' };
    case 'InvalidCharacter':
      return { message: 'control character in a string', help: 'write it as an escape such as `\\t` or `\\n`' };
    default:
      return { message: 'invalid json' };
  }
}

export interface ParsedJson {
  doc: JsonDoc;
  diagnostics: Diagnostic[];
  /** False when the file does not parse: Claude Code then ignores the whole file. */
  ok: boolean;
}

/** Parses `text` as strict JSON. Never throws. */
export function parseJson(text: string, file: string): ParsedJson {
  const diagnostics: Diagnostic[] = [];
  let source = text;
  const doc: JsonDoc = { file, text, lineStarts: lineStartsOf(text) };
  if (source.charCodeAt(0) === 0xfeff) {
    // Claude Code's CLI reads past a byte order mark; other readers of the same file do not.
    diagnostics.push(diagnostic('claude/byte-order-mark', 'info', 'the file starts with a byte order mark', {
      span: spanAt(doc, 0, 1),
      pointer: '',
      help: 'claude code reads it, but other tools that read settings files reject it; save the file as utf-8 without a bom',
    }));
    source = ' ' + source.slice(1);
  }
  const tooDeep = nestingTooDeep(source, MAX_DEPTH);
  if (tooDeep !== undefined) {
    diagnostics.push(diagnostic('claude/too-deep', 'error', `nesting deeper than ${MAX_DEPTH} levels`, {
      span: spanAt(doc, tooDeep, 1),
      help: 'no hooks configuration nests this deep; the file is not read',
    }));
    return { doc, diagnostics, ok: false };
  }
  const errors: ParseError[] = [];
  const root = parseTree(source, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  // One mistake often yields two errors at the same place (a trailing comma: no name, no value).
  // After an unexpected symbol the parser also misses the value it stood for: one mistake, one error.
  const seen = new Set<number>();
  let reported = 0;
  let symbolEnd = -1;
  for (const e of errors) {
    if (seen.has(e.offset)) continue;
    seen.add(e.offset);
    const code = printParseErrorCode(e.error);
    const follows = symbolEnd >= 0 && source.slice(symbolEnd, e.offset).trim() === '';
    symbolEnd = code === 'InvalidSymbol' ? e.offset + e.length : -1;
    if (follows && (code === 'ValueExpected' || code === 'PropertyNameExpected')) continue;
    if (reported === MAX_SYNTAX_ERRORS) {
      diagnostics.push(diagnostic('claude/json-syntax', 'error', `more syntax errors after the first ${MAX_SYNTAX_ERRORS}`, { span: spanAt(doc, e.offset, e.length) }));
      reported++;
      break;
    }
    reported++;
    const { message, help } = syntaxMessage(source, e);
    diagnostics.push(diagnostic('claude/json-syntax', 'error', message, { span: spanAt(doc, e.offset, e.length), help: help ?? SYNTAX_HELP }));
  }
  if (errors.length > 0 || !root) {
    if (errors.length === 0) diagnostics.push(diagnostic('claude/json-syntax', 'error', 'the file is empty', { span: spanAt(doc, 0, 0), help: SYNTAX_HELP }));
    return { doc, diagnostics, ok: false };
  }
  doc.root = root;
  return { doc, diagnostics, ok: true };
}

/** An object's properties as `JSON.parse` keeps them: the last of equal keys wins. */
export interface Prop {
  key: string;
  keyNode: Node;
  value: Node;
}

export function propsOf(node: Node): Map<string, Prop> {
  const out = new Map<string, Prop>();
  for (const p of node.children ?? []) {
    const [k, v] = p.children ?? [];
    if (!k || !v || typeof k.value !== 'string') continue;
    out.delete(k.value); // keep insertion order of the winning occurrence
    out.set(k.value, { key: k.value, keyNode: k, value: v });
  }
  return out;
}

/** Properties overridden by a later key of the same name in the same object (shadowed ones). */
export function shadowedKeys(node: Node): Prop[] {
  const last = new Map<string, Node>();
  const all: Prop[] = [];
  for (const p of node.children ?? []) {
    const [k, v] = p.children ?? [];
    if (!k || !v || typeof k.value !== 'string') continue;
    all.push({ key: k.value, keyNode: k, value: v });
    last.set(k.value, k);
  }
  return all.filter((p) => last.get(p.key) !== p.keyNode);
}

/** Sets an own property, even `__proto__` (which plain assignment would turn into a prototype). */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** The plain value of a node, as `JSON.parse` would give it. Depth is bounded by `MAX_DEPTH`. */
export function valueOf(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const p of propsOf(node).values()) setOwn(o, p.key, valueOf(p.value));
      return o;
    }
    case 'array':
      return (node.children ?? []).map(valueOf);
    default:
      return node.value as unknown;
  }
}

/** The node at a path below `node` (object keys, array indexes), where the last equal key wins. */
export function nodeAt(node: Node, path: readonly (string | number)[]): Node | undefined {
  let cur: Node | undefined = node;
  for (const seg of path) {
    if (!cur) return undefined;
    if (cur.type === 'object') cur = propsOf(cur).get(String(seg))?.value;
    else if (cur.type === 'array') cur = cur.children?.[Number(seg)];
    else return undefined;
  }
  return cur;
}

/** A short name for a node's JSON type, for messages. */
export function jsonType(node: Node): string {
  if (node.type === 'number') return 'a number';
  if (node.type === 'array') return 'an array';
  if (node.type === 'object') return 'an object';
  if (node.type === 'null') return '`null`';
  if (node.type === 'boolean') return 'a boolean';
  return 'a string';
}

/** `target.push(...items)` without the argument limit a spread hits on very large arrays. */
export function append<T>(target: T[], items: readonly T[]): T[] {
  for (const x of items) target.push(x);
  return target;
}
