/**
 * hooks.json as Codex reads it: strict JSON (no comments, no trailing commas, no byte-order mark),
 * at most 127 levels deep, into the shared value tree (common/json.ts) with a span on every node;
 * a file Codex cannot read gets one diagnostic, at its first problem, in Codex's words.
 */
import { printParseErrorCode, type ParseError } from 'jsonc-parser';
import { diagnostic, type Diagnostic, type LineIndex } from '../../engine/index.js';
import { readJson } from '../common/json.js';
import type { ValueNode } from '../common/tree.js';

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
  const read = readJson(text, { file, lines }, { maxDepth: MAX_JSON_DEPTH, depthInComments: false });
  if (read.tooDeep !== undefined) {
    return {
      diagnostics: [
        diagnostic('codex/too-deep', 'error', `the JSON nests more than ${MAX_JSON_DEPTH} levels deep, which codex's JSON reader rejects`, {
          span: at(read.tooDeep),
          pointer: '',
          help: SYNTAX_HELP,
        }),
      ],
    };
  }
  const first = read.errors[0];
  if (first !== undefined || read.root === undefined) {
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
  return { root: read.root, diagnostics: [] };
}
