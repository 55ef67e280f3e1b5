/**
 * Strict JSON (no comments, no trailing commas, no empty document) into the shared value tree
 * (tree.ts), for the agents whose readers are strict: jsonc-parser's events build the tree
 * directly, with a span on every node and key. An object keeps every member as written, so the
 * reading agent decides which of two equal keys counts and can warn about the other.
 *
 * What the agents' readers do differently stays with each agent (claude/json.ts, codex/json.ts):
 * how deep they read, what a byte-order mark means, and the words of every diagnostic. This
 * module only reports what it found: a mark, where the nesting went too deep, the parser's errors.
 */
import { visit, type ParseError } from 'jsonc-parser';
import { childPointer, TreeNode, type SpanSource, type ValueKind, type ValueNode } from './tree.js';

export interface JsonLimits {
  /** Arrays and objects nested deeper than this are refused before parsing, since the parser recurses. */
  maxDepth: number;
  /** Whether brackets inside comments count toward `maxDepth` (else a comment is skipped, to be reported as one). */
  depthInComments: boolean;
}

export interface JsonText {
  /** The text as parsed: a leading byte-order mark is read as a space, so offsets stay those of the text. */
  source: string;
  /** The text starts with a byte-order mark. */
  bom: boolean;
  /** The offset of the first `[` or `{` nested deeper than `maxDepth`; then nothing else is read. */
  tooDeep?: number;
  /** The parser's errors, in the order it met them. */
  errors: ParseError[];
  /** The document, when it parsed without an error. */
  root?: ValueNode;
}

/** Reads `text` (named `src.file`) as strict JSON. Never throws. */
export function readJson(text: string, src: SpanSource, limits: JsonLimits): JsonText {
  const bom = text.charCodeAt(0) === 0xfeff;
  const source = bom ? ' ' + text.slice(1) : text;
  const tooDeep = nestingTooDeep(source, limits.maxDepth, limits.depthInComments);
  if (tooDeep !== undefined) return { source, bom, tooDeep, errors: [] };
  const built = build(source, src);
  return { source, bom, errors: built.errors, ...(built.errors.length === 0 && built.root ? { root: built.root } : {}) };
}

/** The offset of the first `[` or `{` outside strings that nests deeper than `max`, if any. */
export function nestingTooDeep(text: string, max: number, inComments: boolean): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34 || d === 10) break;
      }
    } else if (!inComments && c === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
      while (i < text.length && text.charCodeAt(i) !== 10) i++;
    } else if (!inComments && c === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return i;
    } else if (c === 93 || c === 125) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
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
