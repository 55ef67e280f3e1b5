/**
 * IR conditions in the policy language's syntax: the one printer of explanations (`explain`, which
 * shows people a condition as its author would write it) and of the DSL's IR printer
 * (dsl/print-ir.ts, whose text compiles back to the same condition). It owns precedence and
 * parentheses, field paths, values and regexes, and the selectors of `ran`.
 *
 * String literals are spelled by the caller, since their escapes are the grammar's, which this layer
 * may not import. Printed strictly, a part that would not read back as the same IR throws
 * `NotExpressible`; printed for people, it is shown as well as it can be.
 */
import type { Expr, FieldRef, Selector, Value } from './ir.js';

/** The IR holds something that policy text cannot say. */
export class NotExpressible extends Error {}

export interface ExprSpelling {
  /** A string literal holding `value`. */
  string(value: string): string;
  /** Throw `NotExpressible` rather than print what would not read back as the same IR. */
  strict: boolean;
}

/**
 * For people: strings as JSON, which reads like the language's string literals except for control
 * characters, and parts no literal can hold as they are.
 */
export const FOR_PEOPLE: ExprSpelling = { string: (s) => JSON.stringify(s), strict: false };

/** A word that every position taking a name reads as that name (a field path's step, an object key). */
export const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function fieldText(f: FieldRef, spelling: ExprSpelling = FOR_PEOPLE): string {
  const words = [f.name, ...(f.path ?? [])];
  if (spelling.strict && !(f.path ?? []).every((p) => PLAIN_NAME.test(p))) {
    throw new NotExpressible(`the field path \`${words.join('.')}\` has a step that is not a name`);
  }
  return words.join('.');
}

/** A scalar, a list or a regex; a `/` in a regex is escaped unless it already is. */
export function valueText(v: Value, spelling: ExprSpelling = FOR_PEOPLE): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map((x) => valueText(x, spelling)).join(', ')}]`;
  if (typeof v === 'object') {
    // a regex literal ends at its line
    if (spelling.strict && /[\r\n]/.test(v.regex)) throw new NotExpressible('a regex holds a line break');
    return `/${v.regex.replace(/(^|[^\\])((?:\\\\)*)\//g, '$1$2\\/')}/${v.flags}`;
  }
  if (typeof v === 'string') return spelling.string(v);
  const t = String(v);
  // a number literal is digits and a fraction: no sign, no exponent
  if (spelling.strict && typeof v === 'number' && !/^\d+(?:\.\d+)?$/.test(t)) throw new NotExpressible(`the number \`${t}\` has no literal`);
  return t;
}

export function selectorText(s: Selector, spelling: ExprSpelling = FOR_PEOPLE): string {
  const values = s.kind === 'command' ? s.patterns : s.globs;
  return `${s.kind} ${values.map((x) => spelling.string(x)).join(', ')}`;
}

/**
 * An IR condition as text. `or` under `and` or `not`, and `and` under `not`, take parentheses;
 * `not not x` needs none. An `and` in an `and` (an `or` in an `or`) is printed without them: the
 * same condition, which the DSL lowers to one list.
 */
export function exprText(e: Expr, spelling: ExprSpelling = FOR_PEOPLE): string {
  const inner = (x: Expr, parent: 'and' | 'or' | 'not'): string => {
    const t = exprText(x, spelling);
    const needs = (x.op === 'or' && parent !== 'or') || (x.op === 'and' && parent === 'not');
    return needs ? `(${t})` : t;
  };
  switch (e.op) {
    case 'and':
      return e.args.map((a) => inner(a, 'and')).join(' and ');
    case 'or':
      return e.args.map((a) => inner(a, 'or')).join(' or ');
    case 'not':
      return `not ${inner(e.arg, 'not')}`;
    case 'compare':
      return `${fieldText(e.field, spelling)} ${e.cmp} ${valueText(e.value, spelling)}`;
    case 'exists':
      return `${fieldText(e.field, spelling)} exists`;
    case 'const':
      return String(e.value);
    case 'ran':
      if (spelling.strict && e.tools.length === 0) throw new NotExpressible('a `ran` names no tool, and its tool list is required');
      return ['ran', e.tools.join(', '), ...e.selectors.map((s) => selectorText(s, spelling))].filter((x) => x !== '').join(' ');
  }
}
