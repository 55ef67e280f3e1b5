/**
 * Strict JSON as Claude Code reads its files (`JSON.parse`: no comments, no trailing commas, the
 * last of two equal keys wins), into the shared value tree (common/json.ts), and the messages for
 * what it rejects: every syntax error (up to a bound), in Claude Code's terms. A byte-order mark is
 * read past, as Claude Code's CLI does, with a note; deep nesting is refused before parsing.
 */
import { printParseErrorCode, type ParseError } from 'jsonc-parser';
import { diagnostic, LineIndex, type Diagnostic } from '../../engine/index.js';
import { readJson } from '../common/json.js';
import { members, setOwn, type ValueNode } from '../common/tree.js';

/** Deeper than any settings file needs, far below where the parser would run out of stack. */
export const MAX_DEPTH = 128;
/** Syntax errors reported per file; a binary file would otherwise produce one per byte. */
export const MAX_SYNTAX_ERRORS = 50;

const SYNTAX_HELP = 'claude code reads this file as strict json and ignores all of it when it does not parse';

export interface JsonDoc {
  file: string;
  text: string;
  lines: LineIndex;
  root?: ValueNode;
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
  const doc: JsonDoc = { file, text, lines: new LineIndex(text) };
  const span = (offset: number, length: number) => doc.lines.span(file, offset, offset + Math.max(0, length));
  const read = readJson(text, { file, lines: doc.lines }, { maxDepth: MAX_DEPTH, depthInComments: true });
  if (read.bom) {
    // Claude Code's CLI reads past a byte order mark; other readers of the same file do not.
    diagnostics.push(diagnostic('claude/byte-order-mark', 'info', 'the file starts with a byte order mark', {
      span: span(0, 1),
      pointer: '',
      help: 'claude code reads it, but other tools that read settings files reject it; save the file as utf-8 without a bom',
    }));
  }
  if (read.tooDeep !== undefined) {
    diagnostics.push(diagnostic('claude/too-deep', 'error', `nesting deeper than ${MAX_DEPTH} levels`, {
      span: span(read.tooDeep, 1),
      help: 'no hooks configuration nests this deep; the file is not read',
    }));
    return { doc, diagnostics, ok: false };
  }
  const { source, errors } = read;
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
      diagnostics.push(diagnostic('claude/json-syntax', 'error', `more syntax errors after the first ${MAX_SYNTAX_ERRORS}`, { span: span(e.offset, e.length) }));
      reported++;
      break;
    }
    reported++;
    const { message, help } = syntaxMessage(source, e);
    diagnostics.push(diagnostic('claude/json-syntax', 'error', message, { span: span(e.offset, e.length), help: help ?? SYNTAX_HELP }));
  }
  if (errors.length > 0 || !read.root) {
    if (errors.length === 0) diagnostics.push(diagnostic('claude/json-syntax', 'error', 'the file is empty', { span: span(0, 0), help: SYNTAX_HELP }));
    return { doc, diagnostics, ok: false };
  }
  doc.root = read.root;
  return { doc, diagnostics, ok: true };
}

/** The plain value of a node, as `JSON.parse` would give it. Depth is bounded by `MAX_DEPTH`. */
export function valueOf(node: ValueNode): unknown {
  switch (node.kind) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const p of members(node).values()) setOwn(o, p.key, valueOf(p.node));
      return o;
    }
    case 'array':
      return (node.items ?? []).map(valueOf);
    case 'integer':
      // As `JSON.parse` reads the digits (`-0` included).
      return Number(node.raw ?? node.value);
    default:
      return node.value;
  }
}

/** A short name for a node's JSON type, for messages. */
export function jsonType(node: ValueNode): string {
  if (node.kind === 'integer' || node.kind === 'float') return 'a number';
  if (node.kind === 'array') return 'an array';
  if (node.kind === 'object') return 'an object';
  if (node.kind === 'null') return '`null`';
  if (node.kind === 'boolean') return 'a boolean';
  return 'a string';
}

/** `target.push(...items)` without the argument limit a spread hits on very large arrays. */
export function append<T>(target: T[], items: readonly T[]): T[] {
  for (const x of items) target.push(x);
  return target;
}
