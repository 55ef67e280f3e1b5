/**
 * Codex's reading of the shared value tree (common/tree.ts): pointers and kinds in the words of
 * its messages, and the plain value its schema checks see (integers as numbers, TOML dates apart
 * from strings).
 */
import { pointerSegments, setOwn, type ValueKind, type ValueNode } from '../common/tree.js';

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

/** Builds a plain value (for the schema validator and `raw`): integers become numbers, TOML dates `{$datetime}`. */
export function plain(node: ValueNode): unknown {
  switch (node.kind) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const p of node.props ?? []) setOwn(out, p.key, plain(p.node));
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
