import { describe, expect, it } from 'vitest';
import { compileText } from '../dsl/index.js';
import {
  compilePolicy,
  computeCoverage,
  evaluateAny,
  normalizeAnyEvent,
  type CompiledPolicy,
} from '../engine/index.js';
import { renderCoverage } from './coverage.js';
import { PLAIN } from './render.js';

function policyOf(text: string): CompiledPolicy {
  const r = compileText(text, 'p.dshpolicy');
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (!r.ir || errors.length > 0) throw new Error(errors.map((d) => d.message).join('\n'));
  return compilePolicy(r.ir);
}

const bash = (command: string) => ({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd: '/repo' });

describe('renderCoverage', () => {
  it('prints a table, one row per rule, and the share of rules hit', async () => {
    const policy = policyOf('on pre-tool {\n  deny Bash command "rm *" because "no"\n  deny WebFetch because "no"\n}\n');
    const event = normalizeAnyEvent(bash('rm x')).event!;
    const report = computeCoverage(policy, [{ event, decision: await evaluateAny(policy, event) }]);
    const text = renderCoverage(report, PLAIN);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^rule +seam +effect +hits +decided +outranked +why not decided$/);
    expect(lines[2]).toMatch(/^p\.dshpolicy:2:3 +pre-tool +deny +1 +1 +0$/);
    expect(lines[3]).toMatch(/^p\.dshpolicy:3:3 +pre-tool +deny +0 +0 +0 +no case has an event for its tools \(`WebFetch`\)$/);
    expect(text).toContain('coverage: 1 of 2 rules hit (50%), 1 decided at least once');
  });
});
