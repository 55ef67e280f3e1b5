/**
 * Selectors, conditions and values to their IR form. These run on checked input: a value that
 * cannot be lowered (it was reported by the checks) gives undefined.
 */
import type { CompareOp, Expr, Scalar, Selector, SelectorKind, Value } from '../engine/index.js';
import type { ExprNode, SelectorNode, ToolPattern, ValueNode } from './ast.js';
import { deref, type FileScope } from './scope.js';

/** Regex flags in a canonical order, each once. */
export function normalizeFlags(flags: string): string {
  return [...new Set(flags)].sort().join('');
}

export function lowerTools(tools: readonly ToolPattern[]): string[] {
  return tools.map((t) => t.name);
}

/** The strings a selector value comes to (lists flattened); undefined for anything else. */
export function selectorValues(values: readonly ValueNode[], scope: FileScope): string[] | undefined {
  const out: string[] = [];
  for (const written of values) {
    // A string as written needs no lookup (the common case).
    if (written.kind === 'string') {
      out.push(written.value);
      continue;
    }
    const value = deref(written, scope);
    if (value === null || !collectStrings(value, out)) return undefined;
  }
  return out;
}

/** Adds the strings of `node` (lists flattened) to `out`; false when it holds anything else. */
function collectStrings(node: ValueNode, out: string[]): boolean {
  if (node.kind === 'string') {
    out.push(node.value);
    return true;
  }
  if (node.kind === 'list') {
    for (const item of node.items) if (!collectStrings(item, out)) return false;
    return true;
  }
  return false;
}

export function lowerSelector(s: SelectorNode, scope: FileScope): Selector | undefined {
  const values = selectorValues(s.values, scope);
  if (!values) return undefined;
  const kind = s.selector.name as SelectorKind;
  switch (kind) {
    case 'command':
      return { kind, patterns: values };
    case 'path':
    case 'url':
    case 'domain':
      return { kind, globs: values };
    default:
      return undefined;
  }
}

export function lowerSelectors(selectors: readonly SelectorNode[], scope: FileScope): Selector[] | undefined {
  const out: Selector[] = [];
  for (const s of selectors) {
    const lowered = lowerSelector(s, scope);
    if (!lowered) return undefined;
    out.push(lowered);
  }
  return out;
}

function lowerScalar(node: ValueNode): Scalar | undefined {
  switch (node.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return node.value;
    case 'null':
      return null;
    default:
      return undefined;
  }
}

/** A comparison's value: a scalar, a flat list of scalars, or a regex. */
export function lowerValue(written: ValueNode, scope: FileScope): Value | undefined {
  const node = deref(written, scope);
  if (node === null) return undefined;
  if (node.kind === 'regex') return { regex: node.source, flags: normalizeFlags(node.flags) };
  if (node.kind === 'list') {
    const out: Scalar[] = [];
    const walk = (item: ValueNode): boolean => {
      if (item.kind === 'list') return item.items.every(walk);
      const scalar = lowerScalar(item);
      if (scalar === undefined) return false;
      out.push(scalar);
      return true;
    };
    return node.items.every(walk) ? out : undefined;
  }
  return lowerScalar(node);
}

export function lowerExpr(e: ExprNode, scope: FileScope): Expr | undefined {
  switch (e.kind) {
    case 'and':
    case 'or': {
      const args: Expr[] = [];
      for (const arg of e.args) {
        const lowered = lowerExpr(arg, scope);
        if (!lowered) return undefined;
        // `a and (b and c)` is `a and b and c`.
        if (lowered.op === e.kind) args.push(...lowered.args);
        else args.push(lowered);
      }
      return { op: e.kind, args };
    }
    case 'not': {
      const arg = lowerExpr(e.arg, scope);
      return arg && { op: 'not', arg };
    }
    case 'boolexpr':
      return { op: 'const', value: e.value };
    case 'exists':
      return { op: 'exists', field: lowerField(e.field.path) };
    case 'compare': {
      const value = lowerValue(e.value, scope);
      if (value === undefined) return undefined;
      return { op: 'compare', cmp: e.op as CompareOp, field: lowerField(e.field.path), value };
    }
    case 'ran': {
      const selectors = lowerSelectors(e.selectors, scope);
      return selectors && { op: 'ran', tools: lowerTools(e.tools), selectors };
    }
  }
}

function lowerField(path: readonly string[]): { name: string; path?: string[] } {
  const [name = '', ...rest] = path;
  return rest.length > 0 ? { name, path: rest } : { name };
}
