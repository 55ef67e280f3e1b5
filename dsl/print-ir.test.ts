import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompareOp, Expr, FieldRef, RegexValue, Rule, Scalar } from '../engine/index.js';
import { compileText } from './index.js';
import { printExpr, printRules } from './print-ir.js';

/** A rule without what printing does not keep (ids, spans). */
function shape(r: Rule): unknown {
  const { id: _id, span: _span, ...rest } = r;
  return rest;
}

const POLICIES = [
  readFileSync(new URL('../examples/guardrails.dshpolicy', import.meta.url), 'utf8'),
  `on pre-tool {
  deny Bash command "rm -rf *", "sudo *" because "no \\"root\\"\\n"
  ask Read, Grep path "/etc/**", "**/*.pem" when cwd startswith "/srv" and not (input.x == 1 or input.y in [1, "a", null])
  allow WebFetch domain "*.example.com"
  deny mcp__github__* when input.repo matches /^acme\\/.*$/i because "acme"
  allow Bash command "git status"
}
on prompt {
  block when prompt matches /secret/ because "no"
  context "remember" when prompt contains "deploy"
}
on stop {
  continue when ran Bash command "deploy *" and not ran Bash command "verify *" because "verify"
  limit 3
}
test "t" {
  pre-tool Bash { command: "rm -rf /" } with { cwd: "/repo" } => deny
  prompt "a secret" => block
  stop { turn: [{ tool: "Bash", input: { command: "deploy x" } }] } => continue
}
`,
];

describe('printRules', () => {
  it.each(POLICIES.map((p, i) => [i, p] as const))('policy %i compiles back to the same rules and tests', (_i, text) => {
    const first = compileText(text, 'a.dshpolicy');
    expect(first.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const rules = first.ir!.rules.filter((r) => r.effect !== 'run');
    const printed = printRules(rules, first.ir!.tests);
    expect(printed.unprinted).toEqual([]);
    const second = compileText(printed.text, 'b.dshpolicy');
    expect(second.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(second.ir!.rules.map(shape)).toEqual(rules.map(shape));
    expect(second.ir!.tests.map((t) => [t.event, t.expect, t.because])).toEqual(first.ir!.tests.map((t) => [t.event, t.expect, t.because]));
  });

  it('prints what it cannot say as a comment and reports it', () => {
    const rule: Rule = { id: 'x', seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['a\ud800'] }] };
    const printed = printRules([rule]);
    expect(printed.unprinted).toHaveLength(1);
    expect(printed.text).toContain('# not expressible');
  });
});

// ---------------------------------------------------------------- generated conditions

/** Any text a string literal can hold: escapes, controls, astral characters (whole code points). */
const text = fc.oneof(
  fc.constantFrom('', 'rm -rf /', 'quote " and \\ back', 'line\nbreak\r\ttab', 'é — 😀', '\u0000\u007f\u0085\u2028\ufeff', '/a/'),
  fc.string({ maxLength: 10 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
/** Numbers as the language writes them: digits, and a fraction. */
const number = fc.oneof(fc.nat(), fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 100));
const scalar: fc.Arbitrary<Scalar> = fc.oneof(text, number, fc.boolean(), fc.constant(null));
/** Valid RE2, with slashes and backslashes in every position a literal can hold; flags in the IR's order. */
const regex: fc.Arbitrary<RegexValue> = fc.record({
  regex: fc.constantFrom('a+', 'x/y', '/', '^/(foo|bar)$', '\\bdrop\\s+table\\b', '\\\\/', '[/]', '# not a comment', 'é\\d'),
  flags: fc.subarray(['i', 'm', 's']).map((f) => f.join('')),
});
const step = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}$/);

/** The fields the generated conditions read on each seam: plain ones, and those that take a path. */
const FIELDS = {
  'pre-tool': { plain: ['tool', 'command', 'cwd', 'permission_mode', 'session'], paths: ['input'] },
  stop: { plain: ['cwd', 'last_message', 'stop_hook_active', 'permission_mode'], paths: [] },
} as const;
type TestSeam = keyof typeof FIELDS;

/** For `glob`, not `tool`: its globs are checked as tool globs, and the generated strings are not. */
function field(seam: TestSeam, glob: boolean): fc.Arbitrary<FieldRef> {
  const plain = FIELDS[seam].plain.filter((f) => !glob || f !== 'tool').map((name): FieldRef => ({ name }));
  const paths: string[] = [...FIELDS[seam].paths];
  return paths.length === 0
    ? fc.constantFrom(...plain)
    : fc.oneof(fc.constantFrom(...plain), fc.tuple(fc.constantFrom(...paths), fc.array(step, { minLength: 1, maxLength: 3 })).map(([name, path]) => ({ name, path })));
}

function compare(seam: TestSeam): fc.Arbitrary<Expr> {
  const of = (cmps: CompareOp[], value: fc.Arbitrary<Scalar | Scalar[] | RegexValue>, glob = false) =>
    fc.record({ cmp: fc.constantFrom(...cmps), field: field(seam, glob), value }).map(({ cmp, field, value }): Expr => ({ op: 'compare', cmp, field, value }));
  return fc.oneof(
    of(['==', '!='], scalar),
    of(['in'], fc.array(scalar, { maxLength: 4 })),
    of(['matches'], regex),
    of(['startswith', 'endswith', 'contains'], text),
    of(['glob'], text, true),
  );
}

/** `ran` with the tools and selectors the stop seam checks clean. */
const ran: fc.Arbitrary<Expr> = fc.constantFrom<Expr>(
  { op: 'ran', tools: ['Bash'], selectors: [] },
  { op: 'ran', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['npm test *', 'say "hi"'] }] },
  { op: 'ran', tools: ['Edit', 'Write'], selectors: [{ kind: 'path', globs: ['src/**'] }] },
  { op: 'ran', tools: ['mcp__db__*'], selectors: [] },
);

/**
 * Conditions in the form the DSL lowers to: `and` and `or` hold at least two operands, none of the
 * same operator (the DSL flattens `a and (b and c)`).
 */
function expr(seam: TestSeam): fc.Arbitrary<Expr> {
  const leaf = fc.oneof(
    compare(seam),
    field(seam, false).map((f): Expr => ({ op: 'exists', field: f })),
    fc.boolean().map((value): Expr => ({ op: 'const', value })),
    ...(seam === 'stop' ? [ran] : []),
  );
  const { e } = fc.letrec<{ e: Expr }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      tie('e').map((arg): Expr => ({ op: 'not', arg })),
      ...(['and', 'or'] as const).map((op) =>
        fc.array(tie('e').filter((x) => x.op !== op), { minLength: 2, maxLength: 3 }).map((args): Expr => ({ op, args })),
      ),
    ),
  }));
  return e;
}

describe('printExpr', () => {
  it.each(['pre-tool', 'stop'] as const)('prints %s conditions that compile back to the same IR', (seam) => {
    fc.assert(
      fc.property(expr(seam), (e) => {
        const head = seam === 'stop' ? 'continue' : 'deny Bash';
        const r = compileText(`on ${seam} {\n  ${head} when ${printExpr(e)} because "r"\n}\n`, 'p.dshpolicy');
        expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(r.ir!.rules.find((x) => x.seam === seam)!.when).toEqual(e);
      }),
      { numRuns: 300 },
    );
  });
});
