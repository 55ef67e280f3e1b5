/**
 * IR rules and test cases printed as `.dshpolicy` text, for the importers of other agents'
 * permission languages: one `on <seam> { ... }` block per seam, each rule under its comments, then
 * one `test` block. Compiling the text gives back the same rules (seam, effect, tools, selectors,
 * `when`, reason, text, limit; not ids or spans) and the same test events and decisions.
 * `run` rules are not printed here (their printer is the hooks importer's). Conditions, values and
 * selectors go through the engine's one condition printer (engine/expr-text.ts), strictly, with the
 * grammar's string literals.
 */
import { exprText, NotExpressible, PLAIN_NAME, SEAMS, selectorText, valueText, type Expr, type ExprSpelling, type Rule, type TestCase } from '../engine/index.js';
import { encodeString } from '../grammar/index.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function str(value: string): string {
  if (LONE_SURROGATE.test(value)) throw new NotExpressible('a string holds a lone surrogate, which no string literal can hold');
  return encodeString(value);
}

/** Strings as the grammar writes them; whatever would not compile back the same is not printed. */
const DSL: ExprSpelling = { string: str, strict: true };

/** An IR condition in the language's syntax. */
export function printExpr(e: Expr): string {
  return exprText(e, DSL);
}

/** One rule as a line of its seam's block (without indentation). */
export function printRule(rule: Rule): string {
  if (rule.effect === 'run') throw new NotExpressible('a `run` rule is printed by the hooks printer');
  const parts: string[] = [rule.effect];
  if (rule.tools && rule.tools.length > 0) parts.push(rule.tools.join(', '));
  for (const s of rule.selectors ?? []) parts.push(selectorText(s, DSL));
  if (rule.effect === 'context') parts.push(str(rule.text ?? ''));
  if (rule.effect === 'limit') parts.push(String(rule.limit ?? 0));
  if (rule.when) parts.push('when', printExpr(rule.when));
  if (rule.reason !== undefined) parts.push('because', str(rule.reason));
  return parts.join(' ');
}

/** A JSON value in the policy syntax (objects with string keys). */
function jsonText(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(jsonText).join(', ')}]`;
  switch (typeof v) {
    case 'string':
      return str(v);
    case 'number':
      if (!Number.isFinite(v)) throw new NotExpressible('a number is not finite');
      return String(v);
    case 'boolean':
      return String(v);
    case 'object': {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      return `{ ${entries.map(([k, x]) => `${PLAIN_NAME.test(k) ? k : str(k)}: ${jsonText(x)}`).join(', ')} }`;
    }
    default:
      throw new NotExpressible(`a test value of type ${typeof v}`);
  }
}

/** One test case as a line of a `test` block. */
export function printTestCase(t: TestCase): string {
  const { seam, tool, input, prompt, ...rest } = t.event as Record<string, unknown>;
  const head: string[] = [String(seam)];
  const withFields: Record<string, unknown> = { ...rest };
  if (seam === 'pre-tool' || seam === 'post-tool') {
    if (typeof tool !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(tool)) throw new NotExpressible(`the test's tool \`${String(tool)}\` is not a tool name`);
    head.push(tool, jsonText(input ?? {}));
  } else if (seam === 'prompt') {
    head.push(str(String(prompt ?? '')));
  } else {
    if (tool !== undefined) withFields['tool'] = tool;
    if (input !== undefined) withFields['input'] = input;
    head.push(jsonText(withFields));
    for (const k of Object.keys(withFields)) delete withFields[k];
  }
  if (Object.keys(withFields).length > 0) head.push('with', jsonText(withFields));
  head.push('=>', t.expect);
  if (t.because) head.push('because', valueText(t.because, DSL));
  return head.join(' ');
}

/** A comment's text on one line: line breaks and other controls are shown as spaces. */
export function commentLine(s: string): string {
  return `# ${s.replace(/[\p{Cc}\u2028\u2029]/gu, ' ')}`;
}

export interface PrintOptions {
  /** Comment lines on top. */
  header?: readonly string[];
  /** Comment lines above a rule (its origin, what changed in translation). */
  comments?: ReadonlyMap<Rule, readonly string[]>;
  /** The name of the `test` block for `tests` (default `imported`). */
  testName?: string;
}

export interface PrintedRules {
  text: string;
  /** Rules that could not be printed (as comments instead), and why. */
  unprinted: { rule: Rule; why: string }[];
  /** Test cases that could not be printed, and why. */
  untested: { test: TestCase; why: string }[];
}

/** Prints rules (by seam, in the order given) and test cases as `.dshpolicy` text. */
export function printRules(rules: readonly Rule[], tests: readonly TestCase[] = [], opts: PrintOptions = {}): PrintedRules {
  const lines = (opts.header ?? []).map(commentLine);
  const unprinted: PrintedRules['unprinted'] = [];
  const untested: PrintedRules['untested'] = [];
  for (const seam of SEAMS) {
    const ofSeam = rules.filter((r) => r.seam === seam);
    if (ofSeam.length === 0) continue;
    if (lines.length > 0) lines.push('');
    lines.push(`on ${seam} {`);
    for (const rule of ofSeam) {
      for (const c of opts.comments?.get(rule) ?? []) lines.push(`  ${commentLine(c)}`);
      try {
        lines.push(`  ${printRule(rule)}`);
      } catch (err) {
        if (!(err instanceof NotExpressible)) throw err;
        unprinted.push({ rule, why: err.message });
        lines.push(`  ${commentLine(`not expressible: ${err.message}`)}`);
      }
    }
    lines.push('}');
  }
  for (const rule of rules) {
    if (!(SEAMS as readonly string[]).includes(rule.seam)) unprinted.push({ rule, why: `its seam \`${rule.seam}\` has no block here` });
  }
  const cases: string[] = [];
  for (const t of tests) {
    try {
      cases.push(`  ${printTestCase(t)}`);
    } catch (err) {
      if (!(err instanceof NotExpressible)) throw err;
      untested.push({ test: t, why: err.message });
      cases.push(`  ${commentLine(`not expressible: ${err.message}`)}`);
    }
  }
  if (cases.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(`test ${str(opts.testName ?? 'imported')} {`, ...cases, '}');
  }
  return { text: `${lines.join('\n')}\n`, unprinted, untested };
}
