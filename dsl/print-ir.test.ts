import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Rule } from '../engine/index.js';
import { compileText } from './index.js';
import { printRules } from './print-ir.js';

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
