import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './index.js';

/** `[command, JSON.stringify(analyzeCommand(command))]` pairs written by testdata/record-golden.ts. */
function golden(): [string, string][] {
  const text = gunzipSync(readFileSync(new URL('./testdata/golden.jsonl.gz', import.meta.url))).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as [string, string]);
}

describe('golden analyses', () => {
  it('reproduces every recorded analysis exactly', () => {
    const cases = golden();
    expect(cases.length).toBeGreaterThan(6000);
    const mismatches: { command: string; expected: string; actual: string }[] = [];
    for (const [command, expected] of cases) {
      const actual = JSON.stringify(analyzeCommand(command));
      if (actual !== expected) mismatches.push({ command, expected, actual });
    }
    const shown = mismatches.slice(0, 5).map((m) => ({
      command: m.command.slice(0, 300),
      expected: m.expected.slice(0, 600),
      actual: m.actual.slice(0, 600),
    }));
    expect({ count: mismatches.length, first: shown }).toEqual({ count: 0, first: [] });
  }, 60_000);
});
