/**
 * hooks.json as Codex reads it: strict JSON (no comments, no trailing commas, no byte-order mark),
 * at most 127 levels deep, into the shared value tree with a span on every node.
 */
import { printParseErrorCode, visit, type ParseError } from 'jsonc-parser';
import { diagnostic, type Diagnostic } from '../../engine/index.js';
import { childPointer, TreeNode, type LineIndex, type SpanSource, type ValueKind, type ValueNode } from './tree.js';

/** Codex's JSON reader gives up beyond this many nested arrays and objects. */
export const MAX_JSON_DEPTH = 127;

export interface JsonParse {
  root?: ValueNode;
  diagnostics: Diagnostic[];
}

const SYNTAX_HELP = 'codex cannot read the file, so none of its hooks run';

function describeParseError(e: ParseError, text: string): string {
  const code = printParseErrorCode(e.error);
  const at = text.slice(e.offset, e.offset + Math.max(1, e.length));
  switch (code) {
    case 'InvalidCommentToken':
      return 'comments are not allowed in hooks.json (codex reads strict JSON)';
    case 'InvalidSymbol':
      return at === '' ? 'unexpected character' : `unexpected character \`${visible(at)}\``;
    case 'InvalidNumberFormat':
    case 'UnexpectedEndOfNumber':
      return 'invalid number';
    case 'UnexpectedEndOfString':
      return 'unterminated string';
    case 'UnexpectedEndOfComment':
      return 'unterminated comment';
    case 'InvalidUnicode':
      return 'invalid `\\u` escape';
    case 'InvalidEscapeCharacter':
      return 'invalid escape sequence in a string';
    case 'InvalidCharacter':
      return 'control characters must be escaped inside strings';
    case 'PropertyNameExpected':
      return text.slice(e.offset, e.offset + 1) === '}' ? 'trailing comma before `}` (codex reads strict JSON)' : 'expected a property name in double quotes';
    case 'ValueExpected':
      if (text.slice(e.offset, e.offset + 1) === ']') return 'trailing comma before `]` (codex reads strict JSON)';
      return e.offset >= text.length ? 'unexpected end of file: expected a value' : 'expected a value';
    case 'ColonExpected':
      return 'expected `:` after the property name';
    case 'CommaExpected':
      return 'expected `,` between members';
    case 'CloseBraceExpected':
      return 'expected `}`';
    case 'CloseBracketExpected':
      return 'expected `]`';
    case 'EndOfFileExpected':
      return 'unexpected text after the end of the JSON value';
    default:
      return 'invalid JSON';
  }
}

function visible(s: string): string {
  const cp = s.codePointAt(0) ?? 0;
  if (cp < 0x20 || cp === 0x7f || cp === 0xfffd) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return s.length > 16 ? s.slice(0, 16) + '…' : s;
}

/** The offset of the first bracket that nests deeper than `MAX_JSON_DEPTH`, or -1. Strings and comments are skipped. */
export function tooDeepAt(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34 || d === 10) break;
      }
    } else if (c === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
      while (i < text.length && text.charCodeAt(i) !== 10) i++;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
      if (depth > limit) return i;
    } else if (c === 93 || c === 125) {
      depth = Math.max(0, depth - 1);
    }
  }
  return -1;
}

export function parseJson(text: string, file: string, lines: LineIndex): JsonParse {
  const at = (start: number, end = start + 1) => lines.span(file, start, Math.min(end, text.length));
  if (text.charCodeAt(0) === 0xfeff) {
    return {
      diagnostics: [
        diagnostic('codex/json-syntax', 'error', 'the file starts with a byte-order mark, which codex\'s JSON reader rejects', {
          span: at(0),
          pointer: '',
          help: 'save the file as UTF-8 without a BOM; until then ' + SYNTAX_HELP,
        }),
      ],
    };
  }
  if (text.trim() === '') {
    return {
      diagnostics: [diagnostic('codex/json-syntax', 'error', 'the file is empty', { span: at(0, 0), pointer: '', help: 'write `{"hooks": {}}` or delete the file' })],
    };
  }
  const deep = tooDeepAt(text);
  if (deep >= 0) {
    return {
      diagnostics: [
        diagnostic('codex/too-deep', 'error', `the JSON nests more than ${MAX_JSON_DEPTH} levels deep, which codex's JSON reader rejects`, {
          span: at(deep),
          pointer: '',
          help: SYNTAX_HELP,
        }),
      ],
    };
  }
  const built = build(text, { file, lines });
  const first = built.errors[0];
  if (first !== undefined || built.root === undefined) {
    const e = first ?? { error: 4, offset: 0, length: 0 };
    return {
      diagnostics: [
        diagnostic('codex/json-syntax', 'error', describeParseError(e, text), {
          span: at(e.offset, e.offset + Math.max(1, e.length)),
          pointer: '',
          help: SYNTAX_HELP,
        }),
      ],
    };
  }
  return { root: built.root, diagnostics: [] };
}

/** Builds the value tree straight from the parser's events (no intermediate tree). */
function build(text: string, src: SpanSource): { root?: ValueNode; errors: ParseError[] } {
  const errors: ParseError[] = [];
  const stack: TreeNode[] = [];
  let root: TreeNode | undefined;
  let key: { name: string; start: number; end: number } | undefined;
  const place = (kind: ValueKind, value: ValueNode['value'], start: number, end: number): TreeNode => {
    const parent = stack[stack.length - 1];
    let pointer = '';
    if (parent?.kind === 'array') pointer = childPointer(parent.pointer, parent.items!.length);
    else if (parent) pointer = childPointer(parent.pointer, key?.name ?? '');
    const node = new TreeNode(src, kind, value, pointer, start, end);
    if (!parent) root ??= node;
    else if (parent.kind === 'array') parent.items!.push(node);
    else {
      if (key) {
        node.keyStart = key.start;
        node.keyEnd = key.end;
      }
      parent.props!.push({ key: key?.name ?? '', node });
      key = undefined;
    }
    return node;
  };
  visit(
    text,
    {
      onObjectBegin: (offset) => {
        const n = place('object', undefined, offset, offset + 1);
        n.props = [];
        stack.push(n);
      },
      onObjectEnd: (offset, length) => {
        const n = stack.pop();
        if (n) n.end = offset + length;
      },
      onArrayBegin: (offset) => {
        const n = place('array', undefined, offset, offset + 1);
        n.items = [];
        stack.push(n);
      },
      onArrayEnd: (offset, length) => {
        const n = stack.pop();
        if (n) n.end = offset + length;
      },
      onObjectProperty: (name, offset, length) => {
        key = { name, start: offset, end: offset + length };
      },
      onLiteralValue: (value: unknown, offset, length) => {
        const raw = text.slice(offset, offset + length);
        let n: TreeNode;
        if (typeof value === 'string') n = place('string', value, offset, offset + length);
        else if (typeof value === 'number') n = /^-?\d+$/.test(raw) ? place('integer', BigInt(raw), offset, offset + length) : place('float', value, offset, offset + length);
        else if (typeof value === 'boolean') n = place('boolean', value, offset, offset + length);
        else n = place('null', null, offset, offset + length);
        if (n.kind !== 'boolean' && n.kind !== 'null') n.raw = raw;
      },
      onError: (error, offset, length) => {
        errors.push({ error, offset, length });
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
  return { root, errors };
}
