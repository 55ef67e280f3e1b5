/**
 * The conformance-case loader: YAML files of `cases:`, each with a unique `note`. Unknown fields
 * are errors, so a typo in a case cannot turn it into a test that checks nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface WantDiagnostic {
  code: string;
  /** `line:col` of the diagnostic's span start in the case's policy file. */
  at?: string;
  /** A substring the message must contain. */
  message?: string;
  /** The file the span is in, for multi-file cases; defaults to the entry file. */
  file?: string;
}

export interface WantDecision {
  decision: string;
  reasons?: string[];
  context?: string[];
  rules?: string[];
  updatedInput?: Record<string, unknown>;
}

export interface SpecCase {
  note: string;
  /** The policy text, saved as `policy.dshpolicy`. */
  policy?: string;
  /** Several files by name; the entries are `entry` (default: `policy.dshpolicy`). */
  files?: Record<string, string>;
  entry?: string[];
  /** An event in the fixture shape (or a raw Claude Code payload). */
  event?: unknown;
  want?: WantDecision;
  /** Exactly these errors (order-free). Absent: the policy must compile without errors. */
  want_errors?: WantDiagnostic[];
  /** When present, exactly these warnings. */
  want_warnings?: WantDiagnostic[];
  /** Partial IR rules the compiled policy must have, in order (toMatchObject). */
  want_rules?: Record<string, unknown>[];
  /** The event itself must be rejected with these diagnostics (fixture validation). */
  want_event_errors?: { message?: string; pointer?: string }[];
  /**
   * Why the engine gets this case wrong today. The case then runs as an expected failure: it
   * passes while the engine still fails it, and fails once the engine is fixed, to say the
   * `gap` must go.
   */
  gap?: string;
  /** Where it came from: `file.yaml`. */
  source: string;
}

const CASE_KEYS = new Set([
  'note', 'policy', 'files', 'entry', 'event', 'want', 'want_errors', 'want_warnings', 'want_rules', 'want_event_errors', 'gap',
]);
const WANT_KEYS = new Set(['decision', 'reasons', 'context', 'rules', 'updatedInput']);
const DIAG_KEYS = new Set(['code', 'at', 'message', 'file']);

function fail(where: string, msg: string): never {
  throw new Error(`${where}: ${msg}`);
}

function checkKeys(obj: unknown, allowed: Set<string>, where: string): Record<string, unknown> {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail(where, 'expected a mapping');
  for (const k of Object.keys(obj)) if (!allowed.has(k)) fail(where, `unknown field \`${k}\``);
  return obj as Record<string, unknown>;
}

function checkDiags(list: unknown, where: string): void {
  if (!Array.isArray(list)) fail(where, 'expected a list');
  list.forEach((d, i) => {
    const o = checkKeys(d, DIAG_KEYS, `${where}[${i}]`);
    if (typeof o['code'] !== 'string') fail(`${where}[${i}]`, '`code` is required');
    if (o['at'] !== undefined && !/^\d+:\d+$/.test(String(o['at']))) fail(`${where}[${i}]`, '`at` must be `line:col`');
  });
}

export function loadCases(dir: string): SpecCase[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort();
  const notes = new Map<string, string>();
  const cases: SpecCase[] = [];
  for (const f of files) {
    const path = join(dir, f);
    const source = relative(dir, path);
    const doc = checkKeys(parseYaml(readFileSync(path, 'utf8')), new Set(['cases']), source);
    if (!Array.isArray(doc['cases'])) fail(source, '`cases` must be a list');
    (doc['cases'] as unknown[]).forEach((raw, i) => {
      const where = `${source} case ${i + 1}`;
      const c = checkKeys(raw, CASE_KEYS, where);
      if (typeof c['note'] !== 'string' || c['note'].length === 0) fail(where, '`note` is required');
      const note = c['note'];
      if (notes.has(note)) fail(where, `duplicate note \`${note}\` (also in ${notes.get(note)})`);
      notes.set(note, source);
      if ((c['policy'] === undefined) === (c['files'] === undefined)) fail(where, 'give exactly one of `policy` and `files`');
      if (c['want'] !== undefined) {
        const w = checkKeys(c['want'], WANT_KEYS, `${where} want`);
        if (typeof w['decision'] !== 'string') fail(where, '`want.decision` is required');
        if (c['event'] === undefined) fail(where, '`want` needs an `event`');
      }
      if (c['event'] !== undefined && c['want'] === undefined && c['want_event_errors'] === undefined) {
        fail(where, 'an `event` needs `want` or `want_event_errors`');
      }
      if (c['gap'] !== undefined && (typeof c['gap'] !== 'string' || c['gap'].length === 0)) fail(where, '`gap` must be a non-empty string');
      if (c['want_errors'] !== undefined) checkDiags(c['want_errors'], `${where} want_errors`);
      if (c['want_warnings'] !== undefined) checkDiags(c['want_warnings'], `${where} want_warnings`);
      const hasExpectation = ['want', 'want_errors', 'want_warnings', 'want_rules', 'want_event_errors'].some((k) => c[k] !== undefined);
      if (!hasExpectation) fail(where, 'a case must expect something (`want`, `want_errors`, `want_warnings` or `want_rules`)');
      cases.push({ ...(c as unknown as SpecCase), source });
    });
  }
  return cases;
}
