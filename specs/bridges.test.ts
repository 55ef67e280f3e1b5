/**
 * Data-driven cases for loading hooks configurations (specs/bridges/<agent>/*.yaml), one test per
 * case, named by its note. A case gives the configuration as `text` (with a `file` name) or names
 * a file of the corpus of real configurations (specs/corpus).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadHooksText, type Agent } from '../bridges/index.js';
import { expectDiagnostics, type WantedDiagnostic } from './diagnostics.js';

const here = dirname(fileURLToPath(import.meta.url));
const corpusDir = join(here, 'corpus');

interface BridgeCase {
  note: string;
  agent: Agent;
  text?: string;
  file?: string;
  corpus?: string;
  want_events?: Record<string, number>;
  want_groups?: Record<string, unknown>[];
  want_errors?: WantedDiagnostic[];
  want_warnings?: WantedDiagnostic[];
  want_disabled?: boolean;
  source: string;
}

const KEYS = new Set(['note', 'agent', 'text', 'file', 'corpus', 'want_events', 'want_groups', 'want_errors', 'want_warnings', 'want_disabled']);

function loadCases(): BridgeCase[] {
  const dir = join(here, 'bridges');
  const out: BridgeCase[] = [];
  const notes = new Set<string>();
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.yaml')).sort()) {
    const doc = parseYaml(readFileSync(join(dir, f), 'utf8')) as { cases?: unknown };
    if (!doc || !Array.isArray(doc.cases)) throw new Error(`${f}: expected \`cases:\``);
    for (const [i, raw] of doc.cases.entries()) {
      const c = raw as Record<string, unknown>;
      const where = `${f} case ${i + 1}`;
      for (const k of Object.keys(c)) if (!KEYS.has(k)) throw new Error(`${where}: unknown field \`${k}\``);
      if (typeof c['note'] !== 'string' || notes.has(c['note'])) throw new Error(`${where}: missing or duplicate note`);
      notes.add(c['note']);
      if (c['agent'] !== 'claude' && c['agent'] !== 'codex') throw new Error(`${where}: agent must be claude or codex`);
      if ((c['text'] === undefined) === (c['corpus'] === undefined)) throw new Error(`${where}: give exactly one of text and corpus`);
      if (!['want_events', 'want_groups', 'want_errors', 'want_warnings', 'want_disabled'].some((k) => c[k] !== undefined)) {
        throw new Error(`${where}: a case must expect something`);
      }
      out.push({ ...(c as unknown as BridgeCase), source: f });
    }
  }
  return out;
}

const cases = loadCases();

describe('bridges: loading hooks configurations', () => {
  for (const c of cases) {
    const corpusFile = c.corpus ? join(corpusDir, c.agent, c.corpus) : undefined;
    it(c.note, () => {
      const text = corpusFile ? readFileSync(corpusFile, 'utf8') : c.text!;
      const file = c.corpus ?? c.file ?? (c.agent === 'claude' ? '.claude/settings.json' : '.codex/hooks.json');
      const config = loadHooksText(c.agent, text, file);
      const errors = config.diagnostics.filter((d) => d.severity === 'error');
      const warnings = config.diagnostics.filter((d) => d.severity === 'warning');
      expectDiagnostics(errors, c.want_errors ?? [], 'errors');
      if (c.want_warnings !== undefined) expectDiagnostics(warnings, c.want_warnings, 'warnings');
      if (c.want_disabled !== undefined) expect(config.disabled).toBe(c.want_disabled);
      if (c.want_events) {
        const counts: Record<string, number> = {};
        for (const g of config.groups) counts[g.event] = (counts[g.event] ?? 0) + 1;
        expect(counts).toEqual(c.want_events);
      }
      if (c.want_groups) expect(config.groups).toMatchObject(c.want_groups);
    });
  }
});
