/**
 * `npm run bench`: the numbers dshpolicy promises, measured on this machine, with their budgets.
 * Prints a table and exits 1 when a budget is missed. Wall-clock medians of interleaved runs, so
 * a noisy shared machine slows both sides of a ratio alike.
 *
 * - hook cold start: `node dist/hook.cjs claude --policy <100 rules>` answering a pre-tool event
 *   (compiled policy cached), against `node -e 0`; budget: at most 1.5 times node's start-up.
 * - serve round trip: one POSTed pre-tool payload to `dshpolicy serve`; budget: median under 5 ms.
 * - evaluator (bench/eval.ts): generated policies of 100, 1,000 and 10,000 rules, generated events
 *   per seam; the indexed evaluator against the reference scan (engine/reference.ts): decisions/s,
 *   p50 and p99 per seam, compile time, heap.
 * - replay (bench/replay.ts): `dshpolicy replay` over generated Claude Code and Codex sessions at
 *   1,000 rules, events per CPU-second of the process net of its fixed start-up.
 * - command hooks (bench/hooks.ts): the engine's overhead around 1, 10 and 50 matched hooks
 *   (a runner that answers after a fixed delay), and that they run at the same time.
 * - regex engines (bench/regex.ts): re2js against re2-wasm, compile and test times over a mix of
 *   policy regexes and texts up to 1 MiB; printed, no budget.
 *
 * Every budget counts towards the exit code. Flags: `--eval-only` (skip the process benchmarks:
 * cold start, serve, replay), `--regex-only` (only the regex engines), `--sizes 100,1000` (evaluator sizes), `--phase-ms N` (time per
 * measured phase, default 250), `--rounds N` (rounds per evaluator phase, default 3; the lowest
 * p50 counts), `--report-only` (print, exit 0 whatever the budgets).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
// The agents' hook protocols, registered as every entry point of the package has them.
import '../bridges/hook.js';
import { benchSize, BATCH, BENCH_SEAMS, fmtNs, fmtRate, ROUNDS, type SizeResult } from './eval.js';
import { measureHookOverhead } from './hooks.js';
import { measureReplay } from './replay.js';
import { measureRegexBackends, regexBenchTable } from './regex.js';

const root = resolve(__dirname, '..');
const dist = join(root, 'dist');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!;
}

/** A policy of `n` rules over several tools, command patterns, paths, domains and conditions. */
export function generatePolicy(n: number): string {
  const lines: string[] = ['policy "bench"', '', 'on pre-tool {'];
  const verbs = ['deny', 'ask', 'allow'];
  for (let i = 0; i < n; i++) {
    const verb = verbs[i % 3]!;
    const reason = verb === 'allow' ? '' : ` because "rule ${i}"`;
    switch (i % 5) {
      case 0:
        lines.push(`  ${verb} Bash command "tool${i} *"${reason}`);
        break;
      case 1:
        lines.push(`  ${verb} Read, Edit path "secrets${i}/**"${reason}`);
        break;
      case 2:
        lines.push(`  ${verb} WebFetch domain "*.site${i}.example"${reason}`);
        break;
      case 3:
        lines.push(`  ${verb} Bash command "git sub${i} *" when cwd startswith "/srv/${i}"${reason}`);
        break;
      default:
        lines.push(`  ${verb} mcp__server${i}__* when input.mode == "m${i}"${reason}`);
    }
  }
  lines.push('}', '');
  return lines.join('\n');
}

interface Row {
  name: string;
  value: string;
  budget: string;
  ok: boolean;
}

function timeRun(cmd: string, args: string[], input: string, env: NodeJS.ProcessEnv): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { input, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`\`${[cmd, ...args].join(' ')}\` exited with ${r.status}: ${r.stderr.toString()}`);
  return ms;
}

function coldStart(runs: number): Row[] {
  const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-bench-'));
  try {
    return coldStartIn(dir, runs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function coldStartIn(dir: string, runs: number): Row[] {
  const policy = join(dir, 'bench.dshpolicy');
  writeFileSync(policy, generatePolicy(100));
  const env = { ...process.env, DSHPOLICY_CACHE_DIR: join(dir, 'cache') };
  const payload = JSON.stringify({
    session_id: 'bench', transcript_path: '', cwd: '/srv/app', permission_mode: 'default', hook_event_name: 'PreToolUse',
    tool_name: 'Bash', tool_input: { command: 'git sub3 --force && tool0 run' }, tool_use_id: 't',
  });
  const hook = [join(dist, 'hook.cjs'), 'claude', '--policy', policy];
  const first = spawnSync(process.execPath, hook, { input: payload, env });
  if (!first.stdout.toString().includes('permissionDecision')) throw new Error(`the hook gave no decision: ${first.stdout}${first.stderr}`);
  const node: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < 3; i++) {
    timeRun(process.execPath, ['-e', '0'], '', env);
    timeRun(process.execPath, hook, payload, env);
  }
  for (let i = 0; i < runs; i++) {
    node.push(timeRun(process.execPath, ['-e', '0'], '', env));
    ours.push(timeRun(process.execPath, hook, payload, env));
  }
  const ratio = median(ours) / median(node);
  return [
    { name: 'node -e 0 (median)', value: `${median(node).toFixed(1)} ms`, budget: '', ok: true },
    { name: 'hook claude, pre-tool, 100 rules, cached (median)', value: `${median(ours).toFixed(1)} ms`, budget: '', ok: true },
    { name: 'hook cold start / node start-up', value: `${ratio.toFixed(2)}x`, budget: '<= 1.50x', ok: ratio <= 1.5 },
  ];
}

async function serveRoundTrip(requests: number): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-bench-'));
  const policy = join(dir, 'bench.dshpolicy');
  writeFileSync(policy, generatePolicy(100));
  const child = spawn(process.execPath, [join(dist, 'cli.cjs'), 'serve', '--policy', policy, '--port', '0', '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((ok, fail) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) ok((JSON.parse(line) as { url: string }).url);
      });
      child.on('exit', (code) => fail(new Error(`serve exited with ${code}`)));
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify({ session_id: 'b', transcript_path: '', cwd: '/srv/app', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'tool0 run' } });
    const once = () =>
      new Promise<number>((ok, fail) => {
        const t0 = process.hrtime.bigint();
        const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => ok(Number(process.hrtime.bigint() - t0) / 1e6));
        });
        req.on('error', fail);
        req.end(body);
      });
    for (let i = 0; i < 20; i++) await once();
    const times: number[] = [];
    for (let i = 0; i < requests; i++) times.push(await once());
    agent.destroy();
    const m = median(times);
    return [
      { name: 'serve round trip, pre-tool, 100 rules (median)', value: `${m.toFixed(2)} ms`, budget: '< 5 ms', ok: m < 5 },
      { name: 'serve round trip (p99)', value: `${p99(times).toFixed(2)} ms`, budget: '', ok: true },
    ];
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function printTable(header: string[], rows: string[][], rightFrom: number): void {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c >= rightFrom ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd();
  process.stdout.write(`${line(header)}\n`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);
}

function evaluatorRows(results: SizeResult[]): Row[] {
  const rows: Row[] = [];
  const at = (n: number) => results.find((r) => r.rules === n);
  const us = (ns: number) => ns / 1000;
  const r1k = at(1000);
  const r10k = at(10_000);
  if (r1k) {
    const pre = r1k.seams['pre-tool'];
    rows.push({ name: 'pre-tool warm p50, 1,000 rules', value: fmtNs(pre.indexed.p50), budget: '<= 2 µs', ok: us(pre.indexed.p50) <= 2});
    rows.push({ name: 'pre-tool p99, 1,000 rules', value: fmtNs(pre.indexed.p99), budget: '<= 20 µs', ok: us(pre.indexed.p99) <= 20});
    const ratio = pre.reference.p50 / pre.indexed.p50;
    rows.push({ name: 'pre-tool speed-up over the reference scan, 1,000 rules (p50)', value: `${ratio.toFixed(1)}x`, budget: '>= 20x', ok: ratio >= 20});
    for (const seam of BENCH_SEAMS.filter((s) => s !== 'pre-tool')) {
      const t = r1k.seams[seam];
      rows.push({ name: `${seam} speed-up over the reference scan, 1,000 rules (p50)`, value: `${(t.reference.p50 / t.indexed.p50).toFixed(1)}x`, budget: '', ok: true });
    }
    rows.push({ name: 'mixed-seam stream, evaluator only, 1,000 rules', value: fmtRate(r1k.streamPerSecond), budget: '', ok: true });
  }
  if (r10k) {
    const pre = r10k.seams['pre-tool'];
    rows.push({ name: 'pre-tool warm p50, 10,000 rules', value: fmtNs(pre.indexed.p50), budget: '<= 5 µs', ok: us(pre.indexed.p50) <= 5});
    rows.push({ name: 'pre-tool p99, 10,000 rules', value: fmtNs(pre.indexed.p99), budget: '<= 20 µs', ok: us(pre.indexed.p99) <= 20});
    const compileMs = r10k.compileTextMs + r10k.compilePolicyMs;
    rows.push({ name: 'compile 10,000 rules (compileText + compilePolicy)', value: `${compileMs.toFixed(0)} ms`, budget: '< 1000 ms', ok: compileMs < 1000});
    rows.push({ name: 'heap used after compiling 10,000 rules (whole process)', value: `${r10k.heapMB.toFixed(1)} MB`, budget: '< 100 MB', ok: r10k.heapMB < 100});
  }
  return rows;
}

async function hookRows(): Promise<Row[]> {
  const r = await measureHookOverhead({ real: true });
  const rows: Row[] = [];
  for (const row of r.rows) {
    rows.push({
      name: `engine overhead around ${row.hooks} matched hook${row.hooks === 1 ? '' : 's'} (median; ${row.concurrent} ran at once)`,
      value: `${row.overheadMs.toFixed(2)} ms`,
      budget: '< 3 ms',
      ok: row.overheadMs < r.budgetMs && row.concurrent === row.hooks,
    });
  }
  for (const row of r.rows) {
    if (row.realWallMs !== undefined) rows.push({ name: `${row.hooks} real \`true\` hook${row.hooks === 1 ? '' : 's'}, wall time (median)`, value: `${row.realWallMs.toFixed(1)} ms`, budget: '', ok: true });
  }
  return rows;
}

async function replayRows(): Promise<Row[]> {
  const r = await measureReplay({ cli: join(dist, 'cli.cjs') });
  const rows: Row[] = [];
  for (const a of r.agents) {
    const mb = (a.bytes / 2 ** 20).toFixed(0);
    rows.push({ name: `replay ${a.agent}: ${a.events.toLocaleString('en-US')} events (${mb} MB) after as many, per CPU-second`, value: fmtRate(a.eventsPerCpuSecond), budget: '', ok: true });
    rows.push({ name: `replay ${a.agent}: the same session replayed again, per CPU-second`, value: fmtRate(a.againEventsPerCpuSecond), budget: '', ok: true });
    rows.push({ name: `replay ${a.agent}: the whole command (three sessions), events per wall second`, value: fmtRate(a.eventsPerSecond), budget: '', ok: true });
    if (a.split) rows.push({ name: `replay ${a.agent}: CPU µs per event: read / evaluate / output`, value: `${a.split.readUs.toFixed(1)} / ${a.split.evaluateUs.toFixed(1)} / ${a.split.outputUs.toFixed(1)}`, budget: '', ok: true });
    rows.push({ name: `replay ${a.agent}: JSON.parse of the lines that give events alone, CPU µs per event`, value: a.parseFloorUs.toFixed(1), budget: '', ok: true });
  }
  rows.push({ name: `replay start-up (one-turn session, 1,000 rules), CPU`, value: `${r.fixedCpuMs.toFixed(0)} ms`, budget: '', ok: true });
  rows.push({ name: 'replay, 1,000 rules, events per CPU-second (slowest agent)', value: fmtRate(r.eventsPerSecond), budget: '>= 100 k/s', ok: r.ok });
  return rows;
}

async function main(): Promise<number> {
  const reportOnly = process.argv.includes('--report-only');
  const evalOnly = process.argv.includes('--eval-only');
  const sizes = (flag('--sizes') ?? '100,1000,10000').split(',').map(Number);
  const phaseMs = Number(flag('--phase-ms') ?? 250);
  const rounds = Number(flag('--rounds') ?? ROUNDS);
  if (process.argv.includes('--regex-only')) {
    process.stdout.write(regexBenchTable(measureRegexBackends({ root })));
    return 0;
  }
  if (!evalOnly && !existsSync(join(dist, 'hook.cjs'))) {
    process.stderr.write('error: build first (`npm run build`)\n');
    return 2;
  }
  const rows = evalOnly ? [] : [...coldStart(31), ...(await serveRoundTrip(500))];

  const results: SizeResult[] = [];
  for (const n of sizes) results.push(benchSize(n, phaseMs, rounds));
  process.stdout.write(
    `evaluator: p50 = median of batches of ${BATCH} calls / ${BATCH}, the lowest of ${rounds} rounds (highest in brackets); p99 = individually timed calls, median of the rounds; ${phaseMs} ms per phase after warm-up\n\n`,
  );
  printTable(
    ['rules', 'compileText', 'compilePolicy', 'reference prep', 'heap used', 'heap growth', 'mixed stream'],
    results.map((r) => [
      r.rules.toLocaleString('en-US'),
      `${r.compileTextMs.toFixed(1)} ms`,
      `${r.compilePolicyMs.toFixed(1)} ms`,
      `${r.referencePrepareMs.toFixed(1)} ms`,
      `${r.heapMB.toFixed(1)} MB`,
      `${r.heapGrowthMB.toFixed(1)} MB`,
      fmtRate(r.streamPerSecond),
    ]),
    1,
  );
  process.stdout.write('\n');
  const seamRows: string[][] = [];
  for (const r of results) {
    for (const seam of BENCH_SEAMS) {
      const t = r.seams[seam];
      seamRows.push([
        r.rules.toLocaleString('en-US'),
        seam,
        fmtRate(t.indexed.perSecond),
        `${fmtNs(t.indexed.p50)}${t.indexed.p50Highest !== undefined && rounds > 1 ? ` (${fmtNs(t.indexed.p50Highest)})` : ''}`,
        fmtNs(t.indexed.p99),
        fmtRate(t.reference.perSecond),
        fmtNs(t.reference.p50),
        fmtNs(t.reference.p99),
        `${(t.reference.p50 / t.indexed.p50).toFixed(1)}x`,
      ]);
    }
  }
  printTable(['rules', 'seam', 'indexed/s', 'p50', 'p99', 'reference/s', 'p50', 'p99', 'speed-up'], seamRows, 2);
  process.stdout.write('\n');
  process.stdout.write(regexBenchTable(measureRegexBackends({ root })));
  process.stdout.write('\n');

  rows.push(...evaluatorRows(results));
  rows.push(...(await hookRows()));
  if (!evalOnly) rows.push(...(await replayRows()));
  const w = Math.max(...rows.map((r) => r.name.length));
  const v = Math.max(...rows.map((r) => r.value.length));
  process.stdout.write(`${'measure'.padEnd(w)}  ${'value'.padStart(v)}  budget\n`);
  for (const r of rows) {
    const mark = r.budget ? (r.ok ? '  ok' : '  MISSED') : '';
    process.stdout.write(`${r.name.padEnd(w)}  ${r.value.padStart(v)}  ${r.budget}${mark}\n`);
  }
  const missed = rows.filter((r) => !r.ok);
  if (missed.length > 0) process.stdout.write(`\n${missed.length} budget(s) missed\n`);
  return missed.length > 0 && !reportOnly ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
