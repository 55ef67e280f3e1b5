/**
 * config.toml as Codex reads it, into the shared value tree (common/toml.ts): integers as bigints,
 * so `1` and `1.0` stay apart as they do for Codex's reader and no integer loses digits; at most
 * 128 levels of tables and arrays; every problem in Codex's words, and problems inside `[hooks]`
 * at their line.
 */
import { diagnostic, type Diagnostic, type LineIndex } from '../../engine/index.js';
import { readToml, tomlPlaces, tomlTree } from '../common/toml.js';
import type { ValueNode } from '../common/tree.js';

export interface TomlParse {
  root?: ValueNode;
  diagnostics: Diagnostic[];
}

/** Tables and arrays nested deeper than this (dotted keys and headers included) are not read. */
export const MAX_VALUE_DEPTH = 128;

/** The nesting depth of a parsed TOML value, without recursion. */
function valueDepth(root: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (d > MAX_VALUE_DEPTH) return d;
    if (Array.isArray(v)) for (const x of v) stack.push([x, d + 1]);
    else if (v !== null && typeof v === 'object' && !(v instanceof Date)) for (const x of Object.values(v)) stack.push([x, d + 1]);
  }
  return max;
}

export function parseToml(text: string, file: string, lines: LineIndex): TomlParse {
  const src = { file, lines };
  const read = readToml(text, src, { integersAsBigInt: true });
  if (read.error) {
    const short = read.error.message.replace(/\.\s*aborting$/i, '').replace(/\.+$/, '');
    return {
      diagnostics: [
        diagnostic('codex/toml-syntax', 'error', `invalid TOML: ${short}`, {
          span: read.error.span,
          pointer: '',
          help: 'codex cannot read this config.toml, so none of its hooks run',
        }),
      ],
    };
  }
  const depth = valueDepth(read.value);
  if (depth > MAX_VALUE_DEPTH) {
    const line = text.split('\n').findIndex((l) => (l.match(/\./g)?.length ?? 0) >= MAX_VALUE_DEPTH);
    const offset = line < 0 ? 0 : lines.offsetOf(line + 1, 1);
    return {
      diagnostics: [
        diagnostic('codex/too-deep', 'error', `the TOML nests more than ${MAX_VALUE_DEPTH} levels deep`, {
          span: lines.span(file, offset, offset),
          pointer: '',
          help: 'a hooks configuration is six levels deep; this file is not read',
        }),
      ],
    };
  }
  return { root: tomlTree(read.value, text, src, tomlPlaces(text)), diagnostics: [] };
}
