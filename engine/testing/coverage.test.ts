import { describe, expect, it } from 'vitest';
import { compilePolicy, type CompiledPolicy } from '../compile.js';
import type { HookRunner } from '../evaluate.js';
import { evaluateAny } from '../evaluate-agent.js';
import { IR_VERSION, type Expr, type PolicyIR, type Rule } from '../ir.js';
import { normalizeAnyEvent } from '../normalize.js';
import { computeCoverage, coverageOfCases, type CoverageCase, type CoverageRow } from './coverage.js';
import type { CaseResult } from './run.js';

/** The rules of a policy file `p.dshpolicy`, as the language lowers them (no spans). */
function policyOf(...rules: Rule[]): CompiledPolicy {
  return compilePolicy({ version: IR_VERSION, sources: ['p.dshpolicy'], rules, tests: [] });
}

/** A rule written at column 3 of `line` of p.dshpolicy: the id the language gives it. */
const at = (line: number, rule: Omit<Rule, 'id'>): Rule => ({ id: `p.dshpolicy:${line}:3`, ...rule });
const command = (...patterns: string[]) => [{ kind: 'command' as const, patterns }];
const contains = (field: string, value: string): Expr => ({ op: 'compare', cmp: 'contains', field: { name: field }, value });

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

/** The rules of a policy with a miss of each kind; its source, line by line, is in the comments. */
const POLICY: Rule[] = [
  // on pre-tool {
  at(2, { seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: command('rm -rf *'), reason: 'no deleting' }), // deny Bash command "rm -rf *" because "no deleting"
  at(3, { seam: 'pre-tool', effect: 'ask', tools: ['Bash'], selectors: command('git push *'), reason: 'pushing needs a human' }), // ask Bash command "git push *" because "pushing needs a human"
  at(4, { seam: 'pre-tool', effect: 'allow', tools: ['Bash'], selectors: command('git *') }), // allow Bash command "git *"
  at(5, { seam: 'pre-tool', effect: 'allow', tools: ['Bash'], selectors: command('npm test') }), // allow Bash command "npm test"
  at(6, { seam: 'pre-tool', effect: 'deny', tools: ['Read', 'Edit'], selectors: [{ kind: 'path', globs: ['**/.env'] }], reason: 'secrets' }), // deny Read, Edit path "**/.env" because "secrets"
  at(7, { seam: 'pre-tool', effect: 'deny', tools: ['WebFetch'], reason: 'no fetching' }), // deny WebFetch because "no fetching"
  at(8, { seam: 'pre-tool', effect: 'deny', tools: ['Bash'], when: contains('command', '--no-verify'), reason: 'hooks must run' }), // deny Bash when command contains "--no-verify" because "hooks must run"
  at(9, { seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: command('curl *'), when: contains('command', '| sh'), reason: 'no pipes to sh' }), // deny Bash command "curl *" when command contains "| sh" because "no pipes to sh"
  // }
  // on prompt {
  at(12, { seam: 'prompt', effect: 'block', when: contains('prompt', 'secret'), reason: 'no secrets' }), // block when prompt contains "secret" because "no secrets"
  at(13, { seam: 'prompt', effect: 'context', text: 'be brief' }), // context "be brief"
  // }
  // on post-tool {
  at(16, { seam: 'post-tool', effect: 'block', tools: ['Bash'], when: contains('output', 'ERR'), reason: 'failed' }), // block Bash when output contains "ERR" because "failed"
  // }
  // on stop {
  at(19, { seam: 'stop', effect: 'continue', when: { op: 'not', arg: { op: 'ran', tools: ['Bash'], selectors: [] } }, reason: 'run something' }), // continue when not ran Bash because "run something"
  at(20, { seam: 'stop', effect: 'limit', limit: 3 }), // limit 3
  // }
];

describe('computeCoverage', () => {
  it('counts decided and outranked per rule, and explains each kind of miss', async () => {
    const policy = policyOf(...POLICY);
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
    // on pre-tool { allow Read; deny Read path "**/.env" because "secrets"; ask Read path "**/*.pem" because "keys" }
    const policy = policyOf(
      at(2, { seam: 'pre-tool', effect: 'allow', tools: ['Read'] }),
      at(3, { seam: 'pre-tool', effect: 'deny', tools: ['Read'], selectors: [{ kind: 'path', globs: ['**/.env'] }], reason: 'secrets' }),
      at(4, { seam: 'pre-tool', effect: 'ask', tools: ['Read'], selectors: [{ kind: 'path', globs: ['**/*.pem'] }], reason: 'keys' }),
    );
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
    // on stop { continue because "go on"; limit 2 }
    const policy = policyOf(at(2, { seam: 'stop', effect: 'continue', reason: 'go on' }), at(3, { seam: 'stop', effect: 'limit', limit: 2 }));
    const cases = await casesOf(policy, [
      { seam: 'stop', turn: [], continuations: 2 },
      { seam: 'stop', turn: [], continuations: 0 },
    ]);
    const rows = computeCoverage(policy, cases).rows;
    expect(row(rows, 'p.dshpolicy:3:3')).toMatchObject({ hits: 1, decided: 1 });
    expect(row(rows, 'p.dshpolicy:2:3')).toMatchObject({ hits: 2, decided: 1, outranked: 1 });
  });

  it('explains hooks that ran with no opinion, and matchers that never selected', async () => {
    // on pre-tool { run Bash hook "./check.sh"; run hook "./format.sh" dialect claude matcher "Edit|Write" }
    const policy = policyOf(
      at(2, { seam: 'pre-tool', effect: 'run', tools: ['Bash'], hook: { command: './check.sh', dialect: 'claude' } }),
      at(3, { seam: 'pre-tool', effect: 'run', hook: { command: './format.sh', dialect: 'claude', event: 'PreToolUse', matcher: 'Edit|Write' } }),
    );
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
    // on post-tool { block Bash when output contains "ERR" because "failed"; context Bash "read the log" }
    const policy = policyOf(
      at(2, { seam: 'post-tool', effect: 'block', tools: ['Bash'], when: contains('output', 'ERR'), reason: 'failed' }),
      at(3, { seam: 'post-tool', effect: 'context', tools: ['Bash'], text: 'read the log' }),
    );
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
    const report = computeCoverage(policyOf(), []);
    expect(report).toMatchObject({ rules: 0, hit: 0, share: 1, rows: [] });
  });
});

describe('coverageOfCases', () => {
  it('counts the cases that reached a decision, and explains hooks not run over the skipped ones', async () => {
    const policy = policyOf(
      at(2, { seam: 'pre-tool', effect: 'run', tools: ['Bash'], hook: { command: './check.sh', dialect: 'claude' } }),
      at(3, { seam: 'pre-tool', effect: 'deny', tools: ['WebFetch'], reason: 'no fetching' }),
    );
    const [decided] = await casesOf(policy, [{ seam: 'pre-tool', tool: 'WebFetch', input: { url: 'https://x' } }]);
    const waiting = normalizeAnyEvent(bash('ls')).event!;
    const results: CaseResult[] = [
      { kind: 'fixture', file: 'f.jsonl', name: 'line 1', at: 'f.jsonl:1', status: 'passed', event: decided!.event, decision: decided!.decision, expect: 'deny' },
      { kind: 'fixture', file: 'f.jsonl', name: 'line 2', at: 'f.jsonl:2', status: 'skipped', event: waiting, expect: 'allow', hooks: ['p.dshpolicy:2:3'] },
      { kind: 'fixture', file: 'f.jsonl', name: 'line 3', at: 'f.jsonl:3', status: 'error', message: 'not valid JSON' },
    ];
    const report = coverageOfCases(policy, results, { hooksRun: false });
    expect(row(report.rows, 'p.dshpolicy:3:3')).toMatchObject({ hits: 1, decided: 1 });
    expect(row(report.rows, 'p.dshpolicy:2:3')).toMatchObject({ hits: 0, why: 'its hook was not run on the 1 case for its tools (`Bash`)' });
    expect(report).toMatchObject({ rules: 2, hit: 1, decided: 1, share: 0.5 });
    const hinted = coverageOfCases(policy, results, { hooksRun: false, notRunHint: ' (run them with X)' });
    expect(row(hinted.rows, 'p.dshpolicy:2:3').why).toBe('its hook was not run on the 1 case for its tools (`Bash`) (run them with X)');
  });
});
