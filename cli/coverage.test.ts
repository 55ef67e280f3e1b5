import { describe, expect, it } from 'vitest';
import { compileText } from '../dsl/index.js';
import {
  compilePolicy,
  evaluateAny,
  IR_VERSION,
  normalizeAnyEvent,
  type CompiledPolicy,
  type HookRunner,
  type PolicyIR,
} from '../engine/index.js';
import { computeCoverage, renderCoverage, type CoverageCase, type CoverageRow } from './coverage.js';
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

function row(rows: CoverageRow[], rule: string): CoverageRow {
  const r = rows.find((x) => x.rule === rule);
  if (!r) throw new Error(`no row for ${rule}: ${rows.map((x) => x.rule).join(', ')}`);
  return r;
}

const POLICY = `on pre-tool {
  deny Bash command "rm -rf *" because "no deleting"
  ask Bash command "git push *" because "pushing needs a human"
  allow Bash command "git *"
  allow Bash command "npm test"
  deny Read, Edit path "**/.env" because "secrets"
  deny WebFetch because "no fetching"
  deny Bash when command contains "--no-verify" because "hooks must run"
  deny Bash command "curl *" when command contains "| sh" because "no pipes to sh"
}
on prompt {
  block when prompt contains "secret" because "no secrets"
  context "be brief"
}
on post-tool {
  block Bash when output contains "ERR" because "failed"
}
on stop {
  continue when not ran Bash because "run something"
  limit 3
}
`;

describe('computeCoverage', () => {
  it('counts decided and outranked per rule, and explains each kind of miss', async () => {
    const policy = policyOf(POLICY);
    const cases = await casesOf(policy, [
      bash('git push origin main'), // ask decides, allow git * outranked
      bash('git status'), // allow git * decides
      bash('npm test | tee log'), // allow npm test partial only
      bash('ls'), // nothing
      { seam: 'pre-tool', tool: 'Read', input: { file_path: 'src/a.ts' }, cwd: '/repo' },
      { seam: 'prompt', prompt: 'hello' },
      { seam: 'stop', turn: [] },
    ]);
    const report = computeCoverage(policy, cases);
    const rows = report.rows;
    expect(rows.map((r) => r.rule)).toEqual(policy.ir.rules.map((r) => r.id));

    expect(row(rows, 'p.dshpolicy:3:3')).toMatchObject({ seam: 'pre-tool', effect: 'ask', hits: 1, decided: 1, outranked: 0 });
    expect(row(rows, 'p.dshpolicy:3:3').why).toBeUndefined();
    // allow `git *`: decided once (git status), outranked once (by the ask on git push).
    expect(row(rows, 'p.dshpolicy:4:3')).toMatchObject({ hits: 2, decided: 1, outranked: 1 });

    expect(row(rows, 'p.dshpolicy:2:3').why).toBe('its `command` selector never matched on the 4 cases for its tools (`Bash`)');
    expect(row(rows, 'p.dshpolicy:5:3')).toMatchObject({ hits: 1, decided: 0, partial: 1 });
    expect(row(rows, 'p.dshpolicy:5:3').why).toMatch(/^it only ever allowed part of a command \(not every part is allowed: `tee log`\)$/);
    expect(row(rows, 'p.dshpolicy:6:3').why).toBe('its `path` selector never matched on the 1 case for its tools (`Read`, `Edit`)');
    expect(row(rows, 'p.dshpolicy:7:3').why).toBe('no case has an event for its tools (`WebFetch`)');
    expect(row(rows, 'p.dshpolicy:8:3').why).toBe('its condition never matched on the 4 cases for its tools (`Bash`)');
    expect(row(rows, 'p.dshpolicy:9:3').why).toBe('its `command` selector never matched on the 4 cases for its tools (`Bash`)');

    expect(row(rows, 'p.dshpolicy:12:3').why).toBe('its condition never matched on the 1 prompt case');
    expect(row(rows, 'p.dshpolicy:13:3')).toMatchObject({ hits: 1, decided: 1 });
    expect(row(rows, 'p.dshpolicy:16:3').why).toBe('no case has an event on its seam');
    expect(row(rows, 'p.dshpolicy:19:3')).toMatchObject({ hits: 1, decided: 1 });
    expect(row(rows, 'p.dshpolicy:20:3')).toMatchObject({ hits: 0, why: 'its limit (3) was never reached on the 1 stop case' });

    const hit = rows.filter((r) => r.hits > 0).length;
    expect(report).toMatchObject({ rules: rows.length, hit, decided: rows.filter((r) => r.decided > 0).length });
    expect(report.share).toBeCloseTo(hit / rows.length);
  });

  it('says which stricter rules outranked a rule that never decided', async () => {
    const policy = policyOf(`on pre-tool {
  allow Read
  deny Read path "**/.env" because "secrets"
  ask Read path "**/*.pem" because "keys"
}
`);
    const cases = await casesOf(policy, [
      { seam: 'pre-tool', tool: 'Read', input: { file_path: '.env' }, cwd: '/repo' },
      { seam: 'pre-tool', tool: 'Read', input: { file_path: 'k.pem' }, cwd: '/repo' },
      { seam: 'pre-tool', tool: 'Read', input: { file_path: 'b/.env' }, cwd: '/repo' },
    ]);
    const r = row(computeCoverage(policy, cases).rows, 'p.dshpolicy:2:3');
    expect(r).toMatchObject({ hits: 3, decided: 0, outranked: 3 });
    // The most frequent first.
    expect(r.why).toBe('always outranked by a stricter rule (`p.dshpolicy:3:3`, `p.dshpolicy:4:3`)');
  });

  it('counts a limit that ended a continuation as deciding, and one not reached as no hit', async () => {
    const policy = policyOf('on stop {\n  continue because "go on"\n  limit 2\n}\n');
    const cases = await casesOf(policy, [
      { seam: 'stop', turn: [], continuations: 2 },
      { seam: 'stop', turn: [], continuations: 0 },
    ]);
    const rows = computeCoverage(policy, cases).rows;
    expect(row(rows, 'p.dshpolicy:3:3')).toMatchObject({ hits: 1, decided: 1 });
    expect(row(rows, 'p.dshpolicy:2:3')).toMatchObject({ hits: 2, decided: 1, outranked: 1 });
  });

  it('explains hooks that ran with no opinion, and matchers that never selected', async () => {
    const policy = policyOf(`on pre-tool {
  run Bash hook "./check.sh"
  run hook "./format.sh" dialect claude matcher "Edit|Write"
}
`);
    const cases = await casesOf(policy, [bash('ls'), bash('pwd')]);
    const rows = computeCoverage(policy, cases).rows;
    expect(row(rows, 'p.dshpolicy:2:3')).toMatchObject({ hits: 2, decided: 0, why: 'its hook ran on 2 cases but never answered with a decision' });
    expect(row(rows, 'p.dshpolicy:3:3')).toMatchObject({ hits: 0, why: "its hook's matcher or `if` never selected the 2 pre-tool cases" });
    // A hook that denies decides.
    const deny: HookRunner = async () => ({ effect: 'deny', reason: 'no', exitCode: 2, timedOut: false, summary: 'exit 2' });
    const denied = computeCoverage(policy, await casesOf(policy, [bash('ls')], deny)).rows;
    expect(row(denied, 'p.dshpolicy:2:3')).toMatchObject({ hits: 1, decided: 1 });
  });

  it('counts a context rule whose text reached the model as deciding', async () => {
    const policy = policyOf(`on post-tool {
  block Bash when output contains "ERR" because "failed"
  context Bash "read the log"
}
`);
    const cases = await casesOf(policy, [{ seam: 'post-tool', tool: 'Bash', input: { command: 'x' }, output: 'ERR' }]);
    const rows = computeCoverage(policy, cases).rows;
    expect(cases[0]!.decision.decision).toBe('block');
    expect(row(rows, 'p.dshpolicy:3:3')).toMatchObject({ hits: 1, decided: 1, outranked: 0 });
  });

  it('explains imported hooks on agent events without a seam', async () => {
    const ir: PolicyIR = {
      version: IR_VERSION,
      sources: ['hooks.json'],
      rules: [
        { id: 'hooks.json#/hooks/Notification/0/hooks/0', seam: 'agent-event', effect: 'run', hook: { command: 'true', dialect: 'claude', event: 'Notification' } },
        { id: 'hooks.json#/hooks/PreCompact/0/hooks/0', seam: 'agent-event', effect: 'run', hook: { command: 'true', dialect: 'claude', event: 'PreCompact', matcher: 'manual' } },
      ],
      tests: [],
    };
    const policy = compilePolicy(ir);
    const cases = await casesOf(policy, [{ event: 'PreCompact', agent: 'claude', trigger: 'auto' }]);
    const rows = computeCoverage(policy, cases).rows;
    expect(rows[0]).toMatchObject({ hits: 0, why: 'no case has the agent event `Notification`' });
    expect(rows[1]).toMatchObject({ hits: 0, why: "its hook's agent, matcher or `if` never selected the 1 `PreCompact` case" });
  });

  it('treats a policy without rules as fully covered', () => {
    const report = computeCoverage(policyOf('on pre-tool {\n}\n'), []);
    expect(report).toMatchObject({ rules: 0, hit: 0, share: 1, rows: [] });
  });
});

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
