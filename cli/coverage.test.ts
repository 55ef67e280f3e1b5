import { describe, expect, it } from 'vitest';
import { compileText } from '../dsl/index.js';
import {
  compilePolicy,
  computeCoverage,
  evaluateAny,
  normalizeAnyEvent,
  type CompiledPolicy,
  type CoverageCase,
  type HookRunner,
} from '../engine/index.js';
import { renderCoverage } from './coverage.js';
import { PLAIN } from './render.js';

function policyOf(text: string): CompiledPolicy {
  const r = compileText(text, 'p.dshpolicy');
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (!r.ir || errors.length > 0) throw new Error(errors.map((d) => d.message).join('\n'));
  return compilePolicy(r.ir);
}

/** A hook runner that answers nothing (exit 0, no output): the hook ran, with no opinion. */
const silent: HookRunner = async () => ({ exitCode: 0, timedOut: false, summary: 'exit 0' });

async function casesOf(policy: CompiledPolicy, events: unknown[], runner: HookRunner = silent): Promise<CoverageCase[]> {
  const out: CoverageCase[] = [];
  for (const e of events) {
    const n = normalizeAnyEvent(e);
    if (!n.event) throw new Error(JSON.stringify(n.diagnostics));
    out.push({ event: n.event, decision: await evaluateAny(policy, n.event, { runner }) });
  }
  return out;
}

const bash = (command: string) => ({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd: '/repo' });

describe('renderCoverage', () => {
  it('prints a table, one row per rule, and the share of rules hit', async () => {
    const policy = policyOf('on pre-tool {\n  deny Bash command "rm *" because "no"\n  deny WebFetch because "no"\n}\n');
    const report = computeCoverage(policy, await casesOf(policy, [bash('rm x')]));
    const text = renderCoverage(report, PLAIN);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^rule +seam +effect +hits +decided +outranked +why not decided$/);
    expect(lines[2]).toMatch(/^p\.dshpolicy:2:3 +pre-tool +deny +1 +1 +0$/);
    expect(lines[3]).toMatch(/^p\.dshpolicy:3:3 +pre-tool +deny +0 +0 +0 +no case has an event for its tools \(`WebFetch`\)$/);
    expect(text).toContain('coverage: 1 of 2 rules hit (50%), 1 decided at least once');
  });
});
