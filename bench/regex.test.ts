import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { logText, measureRegexBackends, policyRegexes, regexBenchTable, regexMix } from './regex.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('the regex engines bench', () => {
  it('finds the policy regexes of examples/ and specs/cases/, all valid for both engines', () => {
    const found = policyRegexes(root);
    expect(found.length).toBeGreaterThan(20);
    expect(found).toContainEqual({ source: '(?i)\\bdrop\\s+table\\b', flags: '' });
    expect(regexMix(root).length).toBeGreaterThan(30);
  });

  it('makes log text of the size asked', () => {
    expect(logText(64 * 1024)).toHaveLength(64 * 1024);
  });

  it('measures both engines and prints a row per measure', () => {
    const r = measureRegexBackends({ root, quick: true });
    expect(r.engines.map((e) => e.engine)).toEqual(['re2js', 're2-wasm']);
    for (const e of r.engines) expect(e.compileNs).toBeGreaterThan(0);
    const table = regexBenchTable(r);
    expect(table).toMatch(/compile \(median pattern\)/);
    expect(table).toMatch(/re2-wasm \/ re2js/);
  }, 60_000);
});
