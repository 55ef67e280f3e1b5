import { describe, expect, it } from 'vitest';
import { hookPolicy, measureHookOverhead } from './hooks.js';

describe('measureHookOverhead', () => {
  it('sees every matched hook running at once with the stub runner', { timeout: 60_000 }, async () => {
    const r = await measureHookOverhead({ counts: [1, 8], delayMs: 30, runs: 3, real: false });
    expect(r.rows.map((row) => [row.hooks, row.concurrent])).toEqual([
      [1, 1],
      [8, 8],
    ]);
    // Hooks run one after the other would take 8 x 30 ms; parallel ones take about one delay.
    for (const row of r.rows) {
      expect(row.stubWallMs).toBeGreaterThanOrEqual(30);
      expect(row.overheadMs).toBeLessThan(30);
      expect(row.realWallMs).toBeUndefined();
    }
  });

  it('builds a policy of n run rules', () => {
    expect(hookPolicy(5).ir.rules.filter((r) => r.effect === 'run')).toHaveLength(5);
  });
});
