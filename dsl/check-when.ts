/**
 * Checks of `when` conditions: fields per seam, operators and the kind of value each takes, regex
 * and glob syntax, and `ran` (stop seam only).
 */
import { PATH_FIELDS, SEAM_FIELDS, type CompareOp, type GlobKind, type Seam } from '../engine/index.js';
import type { CompareExpr, ExprNode, FieldNode, ValueNode } from './ast.js';
import { error, resolve, validateGlob, validateRegex, type CheckContext } from './check-context.js';
import { checkSelectors, checkTools } from './check-selectors.js';
import { describeUse, describeValue } from './scope.js';
import { codeList, didYouMean } from './suggest.js';

export const COMPARE_OPS: readonly CompareOp[] = ['==', '!=', 'in', 'matches', 'glob', 'startswith', 'endswith', 'contains'];

/** Fields whose `glob` comparisons use the glob dialect of the matching selector. */
const GLOB_KIND_OF_FIELD: Readonly<Record<string, GlobKind>> = { tool: 'tool', path: 'path', url: 'url', domain: 'domain' };

/** `tool`, `input.<path>`, ...: the fields of a seam as they are written. */
export function fieldsOf(seam: Seam): string[] {
  return SEAM_FIELDS[seam].map((f) => (PATH_FIELDS.includes(f) ? `${f}.<path>` : f));
}

export function checkExpr(ctx: CheckContext, seam: Seam, e: ExprNode): void {
  switch (e.kind) {
    case 'and':
    case 'or':
      for (const arg of e.args) checkExpr(ctx, seam, arg);
      return;
    case 'not':
      checkExpr(ctx, seam, e.arg);
      return;
    case 'boolexpr':
      return;
    case 'exists':
      checkField(ctx, seam, e.field);
      return;
    case 'compare':
      checkField(ctx, seam, e.field);
      checkCompare(ctx, e);
      return;
    case 'ran':
      if (seam !== 'stop') {
        error(ctx, 'check/ran-not-allowed', `\`ran\` is not known on the \`${seam}\` seam`, e.span, '`ran` reads the tool calls of a turn, on the `stop` seam');
        return;
      }
      checkTools(ctx, e.tools);
      checkSelectors(ctx, e.selectors, e.tools);
      return;
  }
}

function checkField(ctx: CheckContext, seam: Seam, field: FieldNode): void {
  const name = field.path[0] ?? '';
  const fields = SEAM_FIELDS[seam];
  if (!fields.includes(name)) {
    const list = `the \`${seam}\` seam has ${codeList(fieldsOf(seam))}`;
    const guess = didYouMean(name, fields);
    error(ctx, 'check/unknown-field', `\`${name}\` is not a field of the \`${seam}\` seam`, field.span, guess ? `${guess} ${list}` : list);
    return;
  }
  if (field.path.length > 1 && !PATH_FIELDS.includes(name)) {
    error(
      ctx,
      'check/field-path-not-allowed',
      `\`${name}\` has no fields, so \`${field.path.join('.')}\` cannot be read`,
      field.span,
      `only ${codeList(PATH_FIELDS.map((f) => `${f}.<path>`))} reach into a value`,
    );
  }
}

function checkOperator(ctx: CheckContext, e: CompareExpr): boolean {
  if ((COMPARE_OPS as readonly string[]).includes(e.op)) return true;
  error(ctx, 'check/unknown-operator', `\`${e.op}\` is not a comparison`, e.opSpan, `comparisons are ${codeList(COMPARE_OPS)}`);
  return false;
}

function checkCompare(ctx: CheckContext, e: CompareExpr): void {
  if (!checkOperator(ctx, e)) return;
  const op = e.op as CompareOp;
  const written = e.value;
  const value = resolve(ctx, written);
  if (value === null) return;
  const bad = (needs: string, node: ValueNode, help?: string): void => {
    const what = describeUse(written, node);
    error(ctx, 'check/bad-operand', `\`${op}\` needs ${needs}, but ${what}`, written.kind === 'ref' ? written.span : node.span, help);
  };
  switch (op) {
    case 'matches':
      if (value.kind === 'regex') validateRegex(ctx, value);
      else bad('a regex', value, value.kind === 'string' ? 'write a regex literal such as `/npm ERR!/`, or use `contains`' : undefined);
      return;
    case 'in': {
      if (value.kind !== 'list') {
        bad('a list', value, isScalar(value) ? 'write a list such as `["a", "b"]`, or use `==`' : undefined);
        return;
      }
      const walk = (node: ValueNode): void => {
        if (node.kind === 'list') node.items.forEach(walk);
        else if (!isScalar(node)) {
          error(
            ctx,
            'check/bad-operand',
            `\`in\` needs a list of strings, numbers, booleans or \`null\`, but ${written.kind === 'ref' ? `\`${written.name}\`` : 'this list'} holds ${describeValue(node)}`,
            written.kind === 'ref' ? written.span : node.span,
          );
        }
      };
      value.items.forEach(walk);
      return;
    }
    case 'glob':
    case 'startswith':
    case 'endswith':
    case 'contains': {
      if (value.kind !== 'string') {
        bad('a string', value, value.kind === 'regex' ? 'use `matches` with a regex' : undefined);
        return;
      }
      const kind = op === 'glob' ? GLOB_KIND_OF_FIELD[e.field.path[0] ?? ''] : undefined;
      if (kind && e.field.path.length === 1) validateGlob(ctx, value, kind);
      return;
    }
    case '==':
    case '!=':
      if (!isScalar(value)) {
        bad('a string, number, boolean or `null`', value, value.kind === 'regex' ? 'use `matches` with a regex' : value.kind === 'list' ? 'use `in` with a list' : undefined);
      }
      return;
  }
}

function isScalar(node: ValueNode): boolean {
  return node.kind === 'string' || node.kind === 'number' || node.kind === 'bool' || node.kind === 'null';
}
