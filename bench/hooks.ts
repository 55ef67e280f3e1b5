/**
 * Command-hook overhead: what `evaluate()` adds around the `run` rules an event matches. The issue
 * says matched hooks start in parallel and the engine's own overhead around them stays under a
 * few milliseconds whatever their number.
 *
 * For N = 1, 10 and 50 `run Bash hook "..."` rules (distinct commands, so none is merged with
 * another) that all match one pre-tool event:
 *
 * - stub runner: a HookRunner that answers after a fixed delay (setTimeout, default 20 ms) with
 *   no opinion. The wall time of `evaluate()` minus the delay is the engine's overhead: matching,
 *   starting every hook, merging the answers. Hooks run one after the other would show as N times
 *   the delay. Budget: the median overhead under 3 ms for every N. The timer's own lateness (a bare
 *   `await` of the same setTimeout, median) is reported beside it, and is part of the overhead.
 * - real runner (informational): `processHookRunner()` with `true` as every hook's command, so the
 *   wall time is spawning N shells in parallel and reading their exit.
 *
 * Each measure is the median of `runs` calls after a few warm-up calls.
 */
import { compileText } from '../dsl/index.js';
import { compilePolicy, evaluate, processHookRunner, type CompiledPolicy, type HookOutcome, type HookRunner, type PolicyEvent } from '../engine/index.js';

export interface HookOverheadRow {
  /** `run` rules matching the event. */
  hooks: number;
  /** Median wall time of `evaluate()` with the stub runner, ms. */
  stubWallMs: number;
  /** stubWallMs minus the stub's delay: the engine's overhead, ms (median of the per-call values). */
  overheadMs: number;
  /** The largest per-call overhead seen, ms. */
  maxOverheadMs: number;
  /** How many hooks the stub saw running at the same time, at most (N when they start in parallel). */
  concurrent: number;
  /** Median wall time of `evaluate()` with the real runner and `true` hooks, ms (when measured). */
  realWallMs?: number;
}

export interface HookOverheadResult {
  delayMs: number;
  runs: number;
  /** Median lateness of a bare `setTimeout(delayMs)` await, ms: timer noise inside every overhead. */
  timerLatenessMs: number;
  /** Median wall time of `evaluate()` of the same event with no `run` rule matching (sync part only), ms. */
  baselineMs: number;
  rows: HookOverheadRow[];
  budgetMs: number;
  ok: boolean;
}

export interface HookOverheadOptions {
  counts?: number[];
  /** The stub runner's delay, ms (default 20). */
  delayMs?: number;
  /** Measured calls per N (default 15). */
  runs?: number;
  /** Also time the real process runner (default true). */
  real?: boolean;
  /** The command of every hook with the real runner (default `true`); a `#<i>` comment keeps them distinct. */
  realCommand?: string;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/** A policy of `n` `run` rules on Bash `npm *` calls, plus a few ordinary rules, compiled. */
export function hookPolicy(n: number, command = 'true'): CompiledPolicy {
  const lines = ['policy "hooks"', '', 'on pre-tool {', '  deny Bash command "rm -rf *" because "no"', '  allow Bash command "npm test"'];
  for (let i = 0; i < n; i++) lines.push(`  run Bash command "npm *" hook "${command} #${i}" timeout 30s`);
  lines.push('}', '');
  const res = compileText(lines.join('\n'), 'hooks.dshpolicy');
  const errors = res.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0 || !res.ir) throw new Error(`the hook policy does not compile: ${errors.map((e) => e.message).join('; ')}`);
  const policy = compilePolicy(res.ir);
  if (res.ir.rules.filter((r) => r.effect === 'run').length !== n) throw new Error(`the hook policy has the wrong number of run rules`);
  return policy;
}

const EVENT: PolicyEvent = { seam: 'pre-tool', tool: 'Bash', input: { command: 'npm test' }, cwd: process.cwd(), session: 'bench' };
const NO_HOOK: PolicyEvent = { seam: 'pre-tool', tool: 'Bash', input: { command: 'git status' }, cwd: process.cwd(), session: 'bench' };

async function timeCall(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/**
 * Measures `evaluate()` around N matching command hooks (see the top of this file). Throws when a
 * decision is not what the policy says (every hook abstains, so `allow` from `npm test`).
 */
export async function measureHookOverhead(opts: HookOverheadOptions = {}): Promise<HookOverheadResult> {
  const counts = opts.counts ?? [1, 10, 50];
  const delayMs = opts.delayMs ?? 20;
  const runs = Math.max(1, opts.runs ?? 15);
  const warmup = 3;

  let running = 0;
  let peak = 0;
  const stub: HookRunner = async (): Promise<HookOutcome> => {
    running++;
    peak = Math.max(peak, running);
    await sleep(delayMs);
    running--;
    return { exitCode: 0, timedOut: false, summary: 'exit 0' };
  };

  const lateness: number[] = [];
  for (let i = 0; i < runs; i++) lateness.push((await timeCall(() => sleep(delayMs))) - delayMs);

  const rows: HookOverheadRow[] = [];
  let baselineMs = NaN;
  for (const n of counts) {
    const policy = hookPolicy(n, opts.realCommand ?? 'true');
    if (Number.isNaN(baselineMs)) {
      const base: number[] = [];
      for (let i = 0; i < warmup + runs; i++) {
        const ms = await timeCall(() => evaluate(policy, NO_HOOK, { runner: stub }));
        if (i >= warmup) base.push(ms);
      }
      baselineMs = median(base);
    }
    const overheads: number[] = [];
    const walls: number[] = [];
    peak = 0;
    for (let i = 0; i < warmup + runs; i++) {
      let decision = '';
      const ms = await timeCall(async () => {
        decision = (await evaluate(policy, EVENT, { runner: stub })).decision;
      });
      if (decision !== 'allow') throw new Error(`with ${n} stub hooks the decision is ${decision}, not allow`);
      if (i >= warmup) {
        walls.push(ms);
        overheads.push(ms - delayMs);
      }
    }
    const row: HookOverheadRow = { hooks: n, stubWallMs: median(walls), overheadMs: median(overheads), maxOverheadMs: Math.max(...overheads), concurrent: peak };
    if (opts.real !== false) {
      const runner = processHookRunner();
      const real: number[] = [];
      const realRuns = Math.max(3, Math.ceil(runs / 3));
      for (let i = 0; i < 1 + realRuns; i++) {
        let decision = '';
        const ms = await timeCall(async () => {
          decision = (await evaluate(policy, EVENT, { runner })).decision;
        });
        if (decision !== 'allow') throw new Error(`with ${n} real hooks the decision is ${decision}, not allow`);
        if (i >= 1) real.push(ms);
      }
      row.realWallMs = median(real);
    }
    rows.push(row);
  }
  const budgetMs = 3;
  return {
    delayMs,
    runs,
    timerLatenessMs: median(lateness),
    baselineMs,
    rows,
    budgetMs,
    ok: rows.every((r) => r.overheadMs < budgetMs && r.concurrent === r.hooks),
  };
}
