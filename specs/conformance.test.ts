/**
 * Runs every conformance case in specs/cases/ as its own test, named by its note. A case with a
 * `gap` (what the engine gets wrong today) runs as an expected failure: it turns red when the
 * engine is fixed, and then its `gap` must be removed.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileText } from '../dsl/index.js';
import { compilePolicy, evaluate, normalizeEvent, processHookRunner, validateIR } from '../engine/index.js';
import { expectDiagnostics } from './diagnostics.js';
import { loadCases, type SpecCase } from './load.js';

const here = dirname(fileURLToPath(import.meta.url));
const cases = loadCases(join(here, 'cases'));
const ENTRY = 'policy.dshpolicy';

function compileCase(c: SpecCase) {
  if (c.policy !== undefined) return compileText(c.policy, ENTRY);
  const files = c.files ?? {};
  const entries = c.entry ?? [ENTRY];
  const [first, ...rest] = entries;
  const others = Object.fromEntries(Object.entries(files).filter(([k]) => k !== first));
  const text = files[first!];
  if (text === undefined) throw new Error(`entry \`${first}\` is not among the case's files`);
  if (rest.length > 0) throw new Error('several entries are not supported by this runner');
  return compileText(text, first, others);
}

const runner = processHookRunner();

describe('conformance', () => {
  for (const c of cases) {
    const test = c.gap === undefined ? it : it.fails;
    const name = c.gap === undefined ? c.note : `${c.note} (known gap: once this passes, remove its \`gap\` in ${c.source})`;
    test(name, async () => {
      const result = compileCase(c);
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      const warnings = result.diagnostics.filter((d) => d.severity === 'warning');
      expectDiagnostics(errors, c.want_errors ?? [], 'errors');
      if (c.want_warnings !== undefined) expectDiagnostics(warnings, c.want_warnings, 'warnings');
      if (c.want_errors && c.want_errors.length > 0) return;
      expect(result.ir, 'the policy compiles').toBeDefined();
      const ir = result.ir!;
      // What the compiler emits always validates, after a trip through JSON.
      expect(validateIR(JSON.parse(JSON.stringify(ir))).diagnostics, 'the compiled IR validates').toEqual([]);
      if (c.want_rules) expect(ir.rules).toMatchObject(c.want_rules);
      if (c.event === undefined) return;
      const norm = normalizeEvent(c.event);
      if (c.want_event_errors) {
        expect(norm.event).toBeUndefined();
        expect(norm.diagnostics.map((d) => ({ pointer: d.pointer, message: d.message }))).toMatchObject(c.want_event_errors);
        return;
      }
      expect(norm.diagnostics, 'the event is valid').toEqual([]);
      const decision = await evaluate(compilePolicy(ir), norm.event!, { runner });
      const want = c.want!;
      const got: Record<string, unknown> = { decision: decision.decision };
      if (want.reasons) got['reasons'] = decision.reasons;
      if (want.context) got['context'] = decision.context;
      if (want.rules) got['rules'] = decision.rules;
      if (want.updatedInput) got['updatedInput'] = decision.updatedInput;
      expect(got, JSON.stringify(decision.trace)).toEqual(want);
    });
  }
});
