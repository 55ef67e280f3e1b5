/**
 * One tree shape for both of Codex's hooks formats (hooks.json and config.toml), so the checks
 * run once: every value knows its JSON pointer, its kind as written (an integer and a float stay
 * apart, as they do for Codex's readers) and where it is in the text.
 */
import type { Position, Span } from '../../engine/index.js';

export type ValueKind = 'object' | 'array' | 'string' | 'integer' | 'float' | 'boolean' | 'null' | 'datetime';

export interface Prop {
  key: string;
  node: ValueNode;
}

export interface ValueNode {
  kind: ValueKind;
  /** A string, boolean, float number, integer bigint, datetime text, or null; undefined for containers. */
  value: string | number | boolean | bigint | null | undefined;
  /** Object members in written order; a key written twice appears twice. */
  props?: Prop[];
  items?: ValueNode[];
  pointer: string;
  /** Where the value is written (for TOML tables and array elements: their header). */
  span?: Span;
  /** Where the member's key is written, when the value is an object member. */
  keySpan?: Span;
  /** The exact source text of a scalar, when known (used to place errors inside a string). */
  raw?: string;
}

export interface SpanSource {
  file: string;
  lines: LineIndex;
}

/** A node whose spans are computed from offsets when asked for (files can hold many thousands of nodes). */
export class TreeNode implements ValueNode {
  props?: Prop[];
  items?: ValueNode[];
  raw?: string;
  keyStart = -1;
  keyEnd = -1;

  constructor(
    private readonly src: SpanSource,
    public kind: ValueKind,
    public value: string | number | boolean | bigint | null | undefined,
    public pointer: string,
    public start: number,
    public end: number,
  ) {}

  get span(): Span {
    return this.src.lines.span(this.src.file, this.start, this.end);
  }

  get keySpan(): Span | undefined {
    return this.keyStart < 0 ? undefined : this.src.lines.span(this.src.file, this.keyStart, this.keyEnd);
  }
}

/** Maps UTF-16 offsets to 1-based line/column in O(log n). */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  position(offset: number): Position {
    const at = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: at - this.starts[lo]! + 1, offset: at };
  }

  /** The offset of a 1-based line and column, clamped to the text. */
  offsetOf(line: number, column: number): number {
    const l = Math.max(1, Math.min(line, this.starts.length));
    const start = this.starts[l - 1]!;
    return Math.max(0, Math.min(start + Math.max(0, column - 1), this.text.length));
  }

  span(file: string, start: number, end: number): Span {
    return { file, start: this.position(start), end: this.position(Math.max(start, end)) };
  }
}

export function escapePointerSegment(segment: string | number): string {
  const s = String(segment);
  if (s.indexOf('~') < 0 && s.indexOf('/') < 0) return s;
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function childPointer(parent: string, segment: string | number): string {
  return `${parent}/${escapePointerSegment(segment)}`;
}

export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `/hooks/PreToolUse/0/hooks/1/timeout` → `hooks.PreToolUse[0].hooks[1].timeout` (for messages). */
export function pointerPath(pointer: string): string {
  let out = '';
  for (const seg of pointerSegments(pointer)) {
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += (out === '' ? '' : '.') + JSON.stringify(seg);
  }
  return out === '' ? '(the document)' : out;
}

/** First member with this key (serde reads a struct field once; duplicates are reported separately). */
export function prop(node: ValueNode | undefined, key: string): ValueNode | undefined {
  return node?.props?.find((p) => p.key === key)?.node;
}

/** Builds a plain value (for the schema validator and `raw`): integers become numbers, TOML dates `{$datetime}`. */
export function plain(node: ValueNode): unknown {
  switch (node.kind) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const p of node.props ?? []) {
        if (p.key === '__proto__') Object.defineProperty(out, p.key, { value: plain(p.node), enumerable: true, writable: true, configurable: true });
        else out[p.key] = plain(p.node);
      }
      return out;
    }
    case 'array':
      return (node.items ?? []).map(plain);
    case 'integer':
      return Number(node.value as bigint);
    case 'datetime':
      // Not a string to the schema (Codex's reader does not take a TOML date for a string).
      return { $datetime: node.value };
    default:
      return node.value;
  }
}

/** The value at a JSON pointer in a plain document; undefined when absent or not an object there. */
export function plainAt(doc: unknown, pointer: string): Record<string, unknown> | undefined {
  let v: unknown = doc;
  for (const seg of pointerSegments(pointer)) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, seg)) return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The node at a JSON pointer (the first member when a key is written twice). */
export function nodeAt(root: ValueNode, pointer: string): ValueNode | undefined {
  let node: ValueNode | undefined = root;
  for (const seg of pointerSegments(pointer)) {
    if (!node) return undefined;
    if (node.kind === 'array') node = /^\d+$/.test(seg) ? node.items?.[Number(seg)] : undefined;
    else node = prop(node, seg);
  }
  return node;
}

export function kindWords(kind: ValueKind): string {
  switch (kind) {
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    case 'string':
      return 'a string';
    case 'integer':
      return 'an integer';
    case 'float':
      return 'a fractional number';
    case 'boolean':
      return 'a boolean';
    case 'null':
      return '`null`';
    case 'datetime':
      return 'a date';
  }
}
