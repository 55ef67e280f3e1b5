/**
 * The one tree the agents' configuration readers build (json.ts, toml.ts), whatever the format,
 * so each agent's checks run on one shape: every value knows its JSON pointer, its kind as written
 * (an integer and a float stay apart) and where it is in the text, and an object keeps every
 * member as written, a key written twice included. Which of two equal keys counts is the reading
 * agent's: `prop` takes the first (serde, which rejects the duplicates that matter), `lastProp`
 * and `members` the last (`JSON.parse`), and `shadowed` lists the ones the last overrides.
 */
import type { LineIndex, Span } from '../../engine/index.js';

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

/** The first member with this key (serde reads a struct field once; duplicates are reported separately). */
export function prop(node: ValueNode | undefined, key: string): ValueNode | undefined {
  return node?.props?.find((p) => p.key === key)?.node;
}

/** The member with this key as `JSON.parse` reads it: the last one written. */
export function lastProp(node: ValueNode | undefined, key: string): ValueNode | undefined {
  const props = node?.props ?? [];
  for (let i = props.length - 1; i >= 0; i--) if (props[i]!.key === key) return props[i]!.node;
  return undefined;
}

/** An object's members as `JSON.parse` keeps them: the last of equal keys wins, in the order the winners are written. */
export function members(node: ValueNode): Map<string, Prop> {
  const out = new Map<string, Prop>();
  for (const p of node.props ?? []) {
    out.delete(p.key); // keep the order of the winning occurrences
    out.set(p.key, p);
  }
  return out;
}

/** The members a later one with the same key overrides (for `JSON.parse`'s reading). */
export function shadowed(node: ValueNode): Prop[] {
  const last = new Map<string, Prop>();
  for (const p of node.props ?? []) last.set(p.key, p);
  return (node.props ?? []).filter((p) => last.get(p.key) !== p);
}

/** The node at a JSON pointer below `node`; `member` picks among equal keys (by default the first). */
export function nodeAt(node: ValueNode, pointer: string, member = prop): ValueNode | undefined {
  let cur: ValueNode | undefined = node;
  for (const seg of pointerSegments(pointer)) {
    if (!cur) return undefined;
    if (cur.kind === 'array') cur = /^\d+$/.test(seg) ? cur.items?.[Number(seg)] : undefined;
    else cur = member(cur, seg);
  }
  return cur;
}

/** Where a member's key is written, with the member's pointer (its value's span when the key has none). */
export function keyOf(node: ValueNode): { span?: Span; pointer: string } {
  return { span: node.keySpan ?? node.span, pointer: node.pointer };
}

/** Sets an own property, even `__proto__` (which plain assignment would turn into a prototype). */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}
