import { describe, expect, it } from 'vitest';
import { bestOfRounds, type Timing } from './eval.js';

describe('bestOfRounds', () => {
  it('keeps the quietest round\'s p50 and rate, the median p99 and the highest p50', () => {
    const t = (p50: number, p99: number, perSecond: number): Timing => ({ p50, p99, perSecond, calls: 10 });
    const r = bestOfRounds([t(1500, 9000, 600_000), t(1100, 20_000, 800_000), t(2400, 7000, 400_000)]);
    expect(r).toEqual({ p50: 1100, perSecond: 800_000, p99: 9000, calls: 30, p50Highest: 2400 });
  });

  it('is the round itself when there is one', () => {
    expect(bestOfRounds([{ p50: 5, p99: 7, perSecond: 9, calls: 1 }])).toEqual({ p50: 5, p99: 7, perSecond: 9, calls: 1, p50Highest: 5 });
  });
});
