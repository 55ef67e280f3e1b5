import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCases } from './load.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dirWith(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-specs-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'x.yaml'), yaml);
  return dir;
}

describe('the conformance-case loader', () => {
  it('rejects unknown fields, so a typo cannot silently check nothing', () => {
    expect(() => loadCases(dirWith('cases:\n  - note: a\n    policy: ""\n    wnat: {decision: deny}\n'))).toThrow(/unknown field `wnat`/);
  });
  it('rejects duplicate notes', () => {
    const y = 'cases:\n  - note: a\n    policy: ""\n    want_rules: []\n  - note: a\n    policy: ""\n    want_rules: []\n';
    expect(() => loadCases(dirWith(y))).toThrow(/duplicate note `a`/);
  });
  it('rejects a case that expects nothing', () => {
    expect(() => loadCases(dirWith('cases:\n  - note: a\n    policy: ""\n'))).toThrow(/must expect something/);
  });
  it('rejects a want without an event', () => {
    expect(() => loadCases(dirWith('cases:\n  - note: a\n    policy: ""\n    want: {decision: deny}\n'))).toThrow(/needs an `event`/);
  });
  it('rejects an empty gap and keeps a given one', () => {
    expect(() => loadCases(dirWith('cases:\n  - note: a\n    policy: ""\n    want_rules: []\n    gap: ""\n'))).toThrow(/`gap` must be a non-empty string/);
    expect(loadCases(dirWith('cases:\n  - note: a\n    policy: ""\n    want_rules: []\n    gap: "not yet"\n'))[0]).toMatchObject({ gap: 'not yet' });
  });

  it('loads a well-formed case', () => {
    const cases = loadCases(dirWith('cases:\n  - note: a\n    policy: "on pre-tool { deny Bash }"\n    event: {seam: pre-tool, tool: Bash}\n    want: {decision: deny}\n'));
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({ note: 'a', source: 'x.yaml', want: { decision: 'deny' } });
  });
});
