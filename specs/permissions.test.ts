/**
 * Data-driven cases for importing other agents' permission languages
 * (specs/permissions/<agent>/*.yaml), one test per case, named by its note.
 *
 * A case gives the file as `text` (named `file`) or names a file of the shared corpus
 * (`corpus: <name>` under specs/corpus/<agent>/). Then:
 * - `want_errors` / `want_warnings`: the diagnostics of those severities, exactly (by the fields named);
 * - `events`: each `event` (a fixture event) evaluated against the imported rules must get `want`;
 * - always: the file's own examples (imported test cases) all pass, and the printed `.dshpolicy`
 *   text compiles back to the same rules and tests;
 * - `want_rules`: optionally, the number of rules; `want_tests`: the number of test cases;
 * - `want_text`: optionally, substrings the printed text must contain.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { compilePolicy, evaluateSync, normalizeEvent, runTestCases, IR_VERSION, type Rule } from '../engine/index.js';
import { compileText, printRules } from '../dsl/index.js';
import { importPermissions, type PermissionImportOptions } from '../bridges/index.js';
import { expectDiagnostics, type WantedDiagnostic } from './diagnostics.js';

const here = dirname(fileURLToPath(import.meta.url));
const corpusDir = join(here, 'corpus');

interface PermissionCase {
  note: string;
  agent: string;
  what: string;
  file: string;
  text: string;
  options?: PermissionImportOptions;
  events?: { event: Record<string, unknown>; want: string }[];
  want_errors?: WantedDiagnostic[];
  want_warnings?: WantedDiagnostic[];
  want_rules?: number;
  want_tests?: number;
  want_text?: string[];
  source: string;
}

const KEYS = new Set(['note', 'agent', 'what', 'file', 'text', 'corpus', 'options', 'events', 'want_errors', 'want_warnings', 'want_rules', 'want_tests', 'want_text']);
const WHAT: Record<string, string> = { claude: 'permissions', codex: 'rules', gemini: 'policy' };

function loadCases(): PermissionCase[] {
  const dir = join(here, 'permissions');
  const out: PermissionCase[] = [];
  const notes = new Set<string>();
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.yaml')).sort()) {
    const agent = f.split(/[\\/]/)[0]!;
    const doc = parseYaml(readFileSync(join(dir, f), 'utf8')) as { cases?: unknown };
    if (!doc || !Array.isArray(doc.cases)) throw new Error(`${f}: expected \`cases:\``);
    for (const [i, raw] of doc.cases.entries()) {
      const c = raw as Record<string, unknown>;
      const where = `${f} case ${i + 1}`;
      for (const k of Object.keys(c)) if (!KEYS.has(k)) throw new Error(`${where}: unknown key \`${k}\``);
      if (typeof c['note'] !== 'string' || c['note'] === '') throw new Error(`${where}: a case needs a \`note\``);
      if (notes.has(c['note'])) throw new Error(`${where}: duplicate note \`${c['note']}\``);
      notes.add(c['note']);
      let text = c['text'];
      let file = typeof c['file'] === 'string' ? c['file'] : `case-${i + 1}`;
      if (typeof c['corpus'] === 'string') {
        const path = join(corpusDir, agent, c['corpus']);
        if (!existsSync(path)) throw new Error(`${where}: no corpus file \`${c['corpus']}\` in specs/corpus`);
        text = readFileSync(path, 'utf8');
        file = c['corpus'];
      }
      if (typeof text !== 'string') throw new Error(`${where}: a case needs \`text\` or \`corpus\``);
      out.push({ ...(c as object), agent, what: WHAT[agent] ?? '', file, text, source: where } as PermissionCase);
    }
  }
  return out;
}

/** A rule without what printing does not keep (ids, spans). */
function shape(r: Rule): unknown {
  const { id: _id, span: _span, ...rest } = r;
  return rest;
}

const cases = loadCases();

describe('permission imports', () => {
  it.each(cases.map((c) => [c.note, c] as const))('%s', async (_note, c) => {
    const imported = importPermissions(c.agent, c.what, c.text, c.file, c.options ?? {});
    expect(imported, `${c.source}: no importer for ${c.agent} ${c.what}`).toBeDefined();
    const got = imported!;
    expectDiagnostics(got.diagnostics.filter((d) => d.severity === 'error'), c.want_errors ?? [], `${c.source} errors`);
    expectDiagnostics(got.diagnostics.filter((d) => d.severity === 'warning'), c.want_warnings ?? [], `${c.source} warnings`);
    if (c.want_rules !== undefined) expect(got.rules.length, `${c.source}: rules`).toBe(c.want_rules);
    if (c.want_tests !== undefined) expect(got.tests.length, `${c.source}: tests`).toBe(c.want_tests);

    const policy = compilePolicy({ version: IR_VERSION, sources: [c.file], rules: got.rules, tests: got.tests });
    for (const [k, e] of (c.events ?? []).entries()) {
      const event = normalizeEvent(e.event);
      if (!event.event) throw new Error(`${c.source} event ${k + 1}: ${event.diagnostics.map((d) => d.message).join('; ')}`);
      const d = evaluateSync(policy, event.event);
      expect(d.decision, `${c.source} event ${k + 1}: ${JSON.stringify(e.event)}`).toBe(e.want);
    }
    for (const r of await runTestCases(policy)) {
      expect(r.ok, `${c.source}: the file's example \`${r.case.name}\`: ${r.failure?.message ?? ''}`).toBe(true);
    }

    const printed = printRules(got.rules, got.tests, { comments: got.comments });
    expect(printed.unprinted, `${c.source}: rules the printer could not say`).toEqual([]);
    for (const want of c.want_text ?? []) expect(printed.text).toContain(want);
    const again = compileText(printed.text, 'imported.dshpolicy');
    expect(again.diagnostics.filter((d) => d.severity === 'error'), `${c.source}: the printed text\n${printed.text}`).toEqual([]);
    expect(again.ir!.rules.map(shape)).toEqual(got.rules.map(shape));
    expect(again.ir!.tests.map((t) => [t.event, t.expect])).toEqual(got.tests.map((t) => [t.event, t.expect]));
  });
});
