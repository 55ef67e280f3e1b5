/**
 * Data-driven conformance cases for RUNNING imported hooks (specs/bridges-run/<agent>/*.yaml), one
 * test per case, named by its note. A case gives a hooks configuration as its agent writes it
 * (Claude Code settings.json `hooks`, Codex hooks.json or config.toml `[hooks]`), optionally a
 * `.dshpolicy` policy beside it, one event, and the decision the real agent reaches once the
 * configured command hooks have really run. The glue mirrors `dshpolicy eval --claude-hooks/--codex-hooks`
 * (cli/policy.ts `loadPolicies`): the policy's rules first, then the hooks file's `run` rules.
 *
 * The event may be an agent event without a seam (`{"event": "PreCompact", ...}`): its hooks run
 * with the agent's semantics for it. `want` compares `decision`, `reasons` and `context` exactly;
 * `updatedInput` and an agent event's `output` exactly too (absent means the decision carries none); `rules` when given. `want.diagnostics` lists every diagnostic
 * of loading, compiling and evaluating (any severity, matched as in specs/diagnostics.ts); without
 * it there must be no error or warning at all. `skip: "<why>"` keeps a case that states what the
 * real agent does but that this code does not do yet (DSHPOLICY_RUN_SKIPPED=1 runs them anyway).
 * Cases run concurrently, so a hook that leaves anything in /tmp must name it after its own case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { compileHooks, hooksImporter, loadHooksText, type Agent } from '../bridges/index.js';
import { compileText } from '../dsl/index.js';
import {
  compilePolicy,
  evaluateAny,
  IR_VERSION,
  normalizeAnyEvent,
  processHookRunner,
  validateIR,
  type Diagnostic,
  type PolicyIR,
} from '../engine/index.js';
import { expectDiagnostics, type WantedDiagnostic } from './diagnostics.js';

const here = dirname(fileURLToPath(import.meta.url));
const POLICY_FILE = 'policy.dshpolicy';
const DEFAULT_FILE: Readonly<Record<string, string>> = { claude: '.claude/settings.json', codex: '.codex/hooks.json' };
/** Per-test limit: generous, since the slowest cases wait out a 1 s hook timeout. */
const TEST_TIMEOUT_MS = 15_000;

interface WantRun {
  decision: string;
  reasons: string[];
  context: string[];
  rules?: string[];
  updatedInput?: Record<string, unknown>;
  /** An agent event's own answer (worktreePath, action, retry, ...); absent means none. */
  output?: Record<string, unknown>;
  diagnostics?: WantedDiagnostic[];
}

interface RunCase {
  note: string;
  agent: Agent;
  hooks: string;
  file?: string;
  policy?: string;
  event: unknown;
  want: WantRun;
  skip?: string;
  source: string;
}

const CASE_KEYS = new Set(['note', 'agent', 'hooks', 'file', 'policy', 'event', 'want', 'skip']);
const WANT_KEYS = new Set(['decision', 'reasons', 'context', 'rules', 'updatedInput', 'output', 'diagnostics']);
const DIAG_KEYS = new Set(['code', 'at', 'file', 'pointer', 'message']);

function fail(where: string, msg: string): never {
  throw new Error(`${where}: ${msg}`);
}

function mapping(v: unknown, allowed: Set<string>, where: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(where, 'expected a mapping');
  for (const k of Object.keys(v)) if (!allowed.has(k)) fail(where, `unknown field \`${k}\``);
  return v as Record<string, unknown>;
}

function stringList(v: unknown, where: string): void {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) fail(where, 'expected a list of strings');
}

function loadCases(): RunCase[] {
  const dir = join(here, 'bridges-run');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml')).sort();
  const notes = new Map<string, string>();
  const out: RunCase[] = [];
  for (const f of files) {
    const doc = mapping(parseYaml(readFileSync(join(dir, f), 'utf8')), new Set(['cases']), f);
    if (!Array.isArray(doc['cases'])) fail(f, '`cases` must be a list');
    const agentDir = f.split(/[\\/]/)[0];
    (doc['cases'] as unknown[]).forEach((raw, i) => {
      const where = `${f} case ${i + 1}`;
      const c = mapping(raw, CASE_KEYS, where);
      const note = c['note'];
      if (typeof note !== 'string' || note === '') fail(where, '`note` is required');
      if (notes.has(note)) fail(where, `duplicate note \`${note}\` (also in ${notes.get(note)})`);
      notes.set(note, f);
      if (c['agent'] !== 'claude' && c['agent'] !== 'codex') fail(where, '`agent` must be claude or codex');
      if (c['agent'] !== agentDir) fail(where, `a ${String(c['agent'])} case in the ${agentDir}/ folder`);
      if (typeof c['hooks'] !== 'string') fail(where, '`hooks` (the configuration text) is required');
      for (const k of ['file', 'policy', 'skip']) if (c[k] !== undefined && typeof c[k] !== 'string') fail(where, `\`${k}\` must be a string`);
      if (c['event'] === undefined) fail(where, '`event` is required');
      const w = mapping(c['want'], WANT_KEYS, `${where} want`);
      if (typeof w['decision'] !== 'string') fail(where, '`want.decision` is required');
      if (w['reasons'] === undefined || w['context'] === undefined) fail(where, '`want.reasons` and `want.context` are required');
      stringList(w['reasons'], `${where} want.reasons`);
      stringList(w['context'], `${where} want.context`);
      if (w['rules'] !== undefined) stringList(w['rules'], `${where} want.rules`);
      const ui = w['updatedInput'];
      if (ui !== undefined && (typeof ui !== 'object' || ui === null || Array.isArray(ui))) fail(where, '`want.updatedInput` must be a mapping');
      if (w['diagnostics'] !== undefined) {
        if (!Array.isArray(w['diagnostics'])) fail(where, '`want.diagnostics` must be a list');
        (w['diagnostics'] as unknown[]).forEach((d, j) => {
          const o = mapping(d, DIAG_KEYS, `${where} want.diagnostics[${j}]`);
          if (typeof o['code'] !== 'string') fail(`${where} want.diagnostics[${j}]`, '`code` is required');
        });
      }
      out.push({ ...(c as unknown as RunCase), source: f });
    });
  }
  return out;
}

const cases = loadCases();
const runner = processHookRunner();

async function run(c: RunCase): Promise<void> {
  const file = c.file ?? DEFAULT_FILE[c.agent]!;
  const config = loadHooksText(c.agent, c.hooks, file);
  const compiled = compileHooks(config);
  const diagnostics: Diagnostic[] = [...config.diagnostics, ...compiled.diagnostics];
  const parts: PolicyIR[] = [];
  if (c.policy !== undefined) {
    const r = compileText(c.policy, POLICY_FILE, {}, { importer: hooksImporter });
    diagnostics.push(...r.diagnostics);
    expect(r.ir, `the policy compiles: ${JSON.stringify(r.diagnostics)}`).toBeDefined();
    parts.push(r.ir!);
  }
  parts.push({ version: IR_VERSION, sources: [file], rules: compiled.rules, tests: [] });
  const ir: PolicyIR = {
    version: IR_VERSION,
    sources: parts.flatMap((p) => p.sources),
    rules: parts.flatMap((p) => p.rules),
    tests: parts.flatMap((p) => p.tests),
  };
  // What the bridge emits validates like any IR, after a trip through JSON.
  expect(validateIR(JSON.parse(JSON.stringify(ir))).diagnostics, 'the merged IR validates').toEqual([]);

  const norm = normalizeAnyEvent(c.event);
  expect(norm.diagnostics, 'the event is valid').toEqual([]);
  const decision = await evaluateAny(compilePolicy(ir), norm.event!, { runner });
  diagnostics.push(...decision.diagnostics);

  const want = c.want;
  const got: Record<string, unknown> = { decision: decision.decision, reasons: decision.reasons, context: decision.context };
  const wanted: Record<string, unknown> = { decision: want.decision, reasons: want.reasons, context: want.context };
  if (want.rules !== undefined) {
    got['rules'] = decision.rules;
    wanted['rules'] = want.rules;
  }
  got['updatedInput'] = decision.updatedInput;
  wanted['updatedInput'] = want.updatedInput;
  got['output'] = decision.seam === 'agent-event' ? decision.output : undefined;
  wanted['output'] = want.output;
  expect(got, JSON.stringify({ trace: decision.trace, diagnostics }, null, 1)).toEqual(wanted);

  if (want.diagnostics !== undefined) expectDiagnostics(diagnostics, want.diagnostics, 'diagnostics');
  else expectDiagnostics(diagnostics.filter((d) => d.severity !== 'info'), [], 'errors and warnings');
}

/** DSHPOLICY_RUN_SKIPPED=1 runs the skipped cases too, to see whether a fix made them pass. */
const runSkipped = process.env['DSHPOLICY_RUN_SKIPPED'] === '1';

describe.concurrent('bridges: running imported hooks', () => {
  for (const c of cases) {
    const test = c.skip !== undefined && !runSkipped ? it.skip : it;
    test(c.note, { timeout: TEST_TIMEOUT_MS }, () => run(c));
  }
});
