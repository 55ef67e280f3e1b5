/**
 * `npm run bench`: the numbers dshpolicy promises, measured on this machine, with their budgets.
 * Prints a table and exits 1 when a budget is missed. Wall-clock medians of interleaved runs, so
 * a noisy shared machine slows both sides of a ratio alike.
 *
 * - hook cold start: `node dist/hook.cjs claude --policy <100 rules>` answering a pre-tool event
 *   (compiled policy cached), against `node -e 0`; budget: at most 1.5 times node's start-up.
 * - serve round trip: one POSTed pre-tool payload to `dshpolicy serve`; budget: median under 5 ms.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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
  }
}

async function main(): Promise<number> {
  if (!existsSync(join(dist, 'hook.cjs'))) {
    process.stderr.write('error: build first (`npm run build`)\n');
    return 2;
  }
  const rows = [...coldStart(31), ...(await serveRoundTrip(500))];
  const w = Math.max(...rows.map((r) => r.name.length));
  const v = Math.max(...rows.map((r) => r.value.length));
  process.stdout.write(`${'measure'.padEnd(w)}  ${'value'.padStart(v)}  budget\n`);
  for (const r of rows) process.stdout.write(`${r.name.padEnd(w)}  ${r.value.padStart(v)}  ${r.budget}${r.budget ? (r.ok ? '  ok' : '  MISSED') : ''}\n`);
  const missed = rows.filter((r) => !r.ok);
  if (missed.length > 0) process.stdout.write(`\n${missed.length} budget(s) missed\n`);
  return missed.length > 0 ? 1 : 0;
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
