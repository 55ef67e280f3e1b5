import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from './args.js';
import { loadPolicies } from './policy.js';
import { clip, replayCommand, recordJson } from './replay.js';
import { measureReplayThroughput, THROUGHPUT_POLICY } from './replay-synthetic.js';
import { scratch } from './testkit.js';
import { readTranscriptHead, replayFiles, writeSyntheticTranscript, type ReplaySummary } from '../bridges/index.js';

const ROOT = join(import.meta.dirname, '..');
const CLAUDE = join(ROOT, 'bridges', 'claude', 'testdata', 'transcripts');
const CODEX = join(ROOT, 'bridges', 'codex', 'testdata', 'rollouts');
const { dir, file } = scratch('dshpolicy-replay-');
// The large transcript alone is ~54 MB: nothing is left behind.
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  out: string;
  err: string;
}

/** Runs `dshpolicy replay <argv>` in-process; `tty` makes stderr claim to be a terminal. */
async function replay(argv: string[], { tty = false } = {}): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), tty ? { isTTY: true } : {});
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await replayCommand(argv, { stdout, stderr, stdin: Readable.from(['']) });
  return { code, out, err };
}

function jsonLines(out: string): Record<string, unknown>[] {
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function summaryOf(out: string): ReplaySummary {
  const last = jsonLines(out).at(-1)!;
  expect(Object.keys(last)).toEqual(['summary']);
  return last['summary'] as ReplaySummary;
}

// A small policy over what the recorded sessions did (see the testdata READMEs).
const policy = file(
  'replay.dshpolicy',
  `on pre-tool {
  deny Bash command "echo hello" because "no greetings"
  ask Bash command "echo b" because "b needs a human"
  allow Bash command "echo *"
  deny apply_patch when input.command contains "notes.txt" because "notes are read-only"
  ask mcp__notes__* because "notes go through a human"
}
on post-tool {
  block Bash when output contains "two" because "two is bad"
}
on prompt {
  block when prompt contains "second" because "no second tasks"
}
on stop {
  continue when not ran Bash command "echo b" because "say b"
  limit 1
}
`,
);
const rule = (line: number) => `${policy}:${line}:3`;

describe('dshpolicy replay on real Claude Code transcripts', () => {
  it('decides every prompt, call, result and stop of a session', async () => {
    const bash = join(CLAUDE, 'bash.jsonl');
    const r = await replay(['--policy', policy, '--format', 'json', bash]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.out);
    expect(lines.slice(0, -1)).toEqual([
      { file: bash, line: 3, seam: 'prompt', event: '"say hello"', decision: 'allow', reasons: [], rules: [] },
      { file: bash, line: 19, seam: 'pre-tool', tool: 'Bash', event: 'Bash echo hello', decision: 'deny', reasons: ['no greetings'], rules: [rule(2)] },
      { file: bash, line: 22, seam: 'post-tool', tool: 'Bash', event: 'Bash echo hello', decision: 'accept', reasons: [], rules: [] },
      { file: bash, line: 25, seam: 'stop', event: 'after Bash(echo hello)', stop_hook_active: false, decision: 'continue', reasons: ['say b'], rules: [rule(15)] },
    ]);
    const s = summaryOf(r.out);
    expect(s.files).toEqual([
      { file: bash, agent: 'claude', session: '85ae01c2-d213-4c1c-8c8c-b797aa298210', cwd: '/tmp/e2e/project', bytes: statSync(bash).size, events: 4, skippedLines: 0, seconds: expect.any(Number), cpuSeconds: expect.any(Number) },
    ]);
    expect(s.files[0]!.cpuSeconds).toBeGreaterThan(0);
    expect(s.seams['pre-tool']).toEqual({ deny: 1, ask: 0, allow: 0, none: 0 });
    expect(s.tools).toEqual({ Bash: { 'pre-tool': { deny: 1, ask: 0, allow: 0, none: 0 }, 'post-tool': { block: 0, accept: 1 } } });
    expect(s.rules.find((x) => x.id === rule(2))).toEqual({ id: rule(2), seam: 'pre-tool', effect: 'deny', decided: 1, decisions: { deny: 1 }, pending: 0 });
    expect(r.err).toBe('');
  });

  it('counts a stop after a forced continuation as stop_hook_active, and the recorded continuations', async () => {
    const r = await replay(['--policy', policy, '--format', 'json', join(CLAUDE, 'stop-continuation.jsonl')]);
    const stops = jsonLines(r.out).filter((l) => l['seam'] === 'stop');
    // The first stop: `echo b` has not run, the policy continues; after it ran (line 34) it lets the agent stop.
    expect(stops.map((s) => [s['line'], s['stop_hook_active'], s['decision']])).toEqual([
      [25, false, 'continue'],
      [36, true, 'stop'],
    ]);
    const s = summaryOf(r.out);
    expect(s.stops).toEqual({ total: 2, continued: 1, halted: 0, stopped: 1, recordedContinuations: 1 });
    expect(jsonLines(r.out).find((l) => l['line'] === 33)).toMatchObject({ seam: 'pre-tool', decision: 'ask', reasons: ['b needs a human'] });
  });

  it('prints a summary table of a directory of transcripts', async () => {
    const r = await replay(['--policy', policy, CLAUDE]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^replayed 3 files \(3 claude\), [\d.]+ KB, 21 events in /);
    expect(r.out).toMatch(/^pre-tool +6 +1 deny, 1 ask, 3 allow, 1 none$/m);
    expect(r.out).toMatch(/^post-tool +6 +1 block, 5 accept$/m);
    expect(r.out).toMatch(/^prompt +4 +1 block, 3 allow$/m);
    expect(r.out).toMatch(/^stop +5 +4 continue, 1 stop$/m);
    expect(r.out).toMatch(/^tool +calls +deny +ask +allow +none +results +blocked$/m);
    expect(r.out).toMatch(/^Bash +5 +1 +1 +3 +0 +5 +1$/m);
    expect(r.out).toMatch(/^Write +1 +0 +0 +0 +1 +1 +0$/m);
    expect(r.out).toContain('prompts: 4, blocked 1');
    expect(r.out).toContain('stops: 5, continued 4, halted 0, let stop 1; the recording had 1 forced continuation');
    expect(r.out).toMatch(new RegExp(`^${rule(15).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} +stop +continue +4$`, 'm'));
    expect(r.out).toContain(`rules never decided: ${rule(5)}, ${rule(6)}, ${rule(16)}`);
  });
});

describe('dshpolicy replay on real Codex rollouts', () => {
  it('names calls as Codex hooks do and decides them', async () => {
    const r = await replay(['--policy', policy, '--format', 'json', CODEX]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.out).slice(0, -1);
    const two = join(CODEX, 'two-turns.jsonl');
    expect(lines.filter((l) => l['file'] === two).map((l) => [l['line'], l['seam'], l['tool'] ?? null, l['decision']])).toEqual([
      [8, 'prompt', null, 'allow'],
      [10, 'pre-tool', 'Bash', 'allow'],
      [13, 'post-tool', 'Bash', 'accept'],
      [16, 'stop', null, 'continue'],
      [23, 'prompt', null, 'block'],
      [25, 'pre-tool', 'Bash', 'allow'],
      [28, 'post-tool', 'Bash', 'block'],
      [30, 'pre-tool', 'apply_patch', 'deny'],
      [33, 'post-tool', 'apply_patch', 'accept'],
      [35, 'pre-tool', 'mcp__notes__lookup', 'ask'],
      [38, 'post-tool', 'mcp__notes__lookup', 'accept'],
      [41, 'stop', null, 'continue'],
    ]);
    const s = summaryOf(r.out);
    expect(s.files.map((f) => [f.agent, f.cwd, f.events])).toEqual([
      ['codex', '/tmp/e2e/project', 4],
      ['codex', '/tmp/e2e/project', 7],
      ['codex', '/tmp/e2e/project', 12],
    ]);
    expect(s.files[0]!.session).toBe('01a22cc6-b27a-7b52-a93d-1260b9d5b033');
    expect(s.stops).toEqual({ total: 5, continued: 4, halted: 0, stopped: 1, recordedContinuations: 1 });
    expect(s.tools['mcp__notes__lookup']).toEqual({ 'pre-tool': { deny: 0, ask: 1, allow: 0, none: 0 }, 'post-tool': { block: 0, accept: 1 } });
  });

  it('replays both agents in one run, each file in its own format', async () => {
    const r = await replay(['--policy', policy, join(CLAUDE, 'bash.jsonl'), join(CODEX, 'exec.jsonl')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^replayed 2 files \(1 claude, 1 codex\)/);
    expect(r.out).toMatch(/^Bash +2 +2 +0 +0 +0 +2 +0$/m);
  });

  it('--agent forces the format', async () => {
    const head = await readTranscriptHead(join(CODEX, 'exec.jsonl'));
    expect(head).toMatchObject({ agent: 'codex', cwd: '/tmp/e2e/project', sidechain: false });
    const r = await replay(['--policy', policy, '--agent', 'claude', '--format', 'json', join(CODEX, 'exec.jsonl')]);
    expect(r.code).toBe(0);
    expect(summaryOf(r.out).events).toBe(0);
    await expect(replay(['--policy', policy, '--agent', 'gemini', join(CODEX, 'exec.jsonl')])).rejects.toThrow(UsageError);
  });
});

describe('dshpolicy replay: the per-event listing', () => {
  it('--only lists the events with those decisions, before the summary', async () => {
    const r = await replay(['--policy', policy, '--only', 'deny,block', CLAUDE]);
    expect(r.code).toBe(0);
    const listing = r.out.slice(0, r.out.indexOf('\n\nreplayed')).split('\n');
    expect(listing).toEqual([
      `deny     pre-tool  ${join(CLAUDE, 'bash.jsonl')}:19  Bash echo hello  — no greetings`,
      `block    prompt    ${join(CLAUDE, 'two-turns.jsonl')}:34  "second task"  — no second tasks`,
      `block    post-tool ${join(CLAUDE, 'two-turns.jsonl')}:38  Bash echo two  — two is bad`,
    ]);
    const json = await replay(['--policy', policy, '--only', 'ask', '--format', 'json', CLAUDE, CODEX]);
    const events = jsonLines(json.out).slice(0, -1);
    expect(events.map((e) => e['decision'])).toEqual(['ask', 'ask', 'ask']);
    expect(summaryOf(json.out).events).toBe(21 + 23);
    await expect(replay(['--policy', policy, '--only', 'nope', CLAUDE])).rejects.toThrow(/unknown decision `nope`/);
  });

  it('--seams decides only those seams', async () => {
    const r = await replay(['--policy', policy, '--seams', 'pre-tool', '--format', 'json', CLAUDE]);
    const s = summaryOf(r.out);
    expect(s.events).toBe(6);
    expect(new Set(jsonLines(r.out).slice(0, -1).map((l) => l['seam']))).toEqual(new Set(['pre-tool']));
  });

  it('recordJson clips long event texts', () => {
    const event = { seam: 'pre-tool' as const, tool: 'Write', input: { file_path: `/x/${'a'.repeat(1000)}` } };
    const line = recordJson({ file: 'f', agent: 'claude', event, decision: { seam: 'pre-tool', decision: 'none', reasons: [], context: [], rules: [], trace: [], diagnostics: [] }, pending: [] });
    expect((line['event'] as string).length).toBe(300);
  });
});

describe('dshpolicy replay: command hooks', () => {
  const hooked = file('hooked.dshpolicy', 'on pre-tool {\n  run Bash hook "echo hook says no >&2; exit 2"\n}\n');

  it('does not run them without --run-hooks: the rules are pending', async () => {
    const r = await replay(['--policy', hooked, '--format', 'json', join(CLAUDE, 'bash.jsonl')]);
    expect(r.code).toBe(0);
    const call = jsonLines(r.out).find((l) => l['seam'] === 'pre-tool')!;
    expect(call).toMatchObject({ decision: 'none', pending: [`${hooked}:2:3`] });
    const s = summaryOf(r.out);
    expect(s.eventsWithPendingHooks).toBe(1);
    expect(s.rules).toEqual([{ id: `${hooked}:2:3`, seam: 'pre-tool', effect: 'run', decided: 0, decisions: {}, pending: 1 }]);
    const table = await replay(['--policy', hooked, '--only', 'pending', join(CLAUDE, 'bash.jsonl')]);
    expect(table.out).toContain('[1 hook not run: ');
    expect(table.out).toContain('1 event matched command hooks that were not run (pass --run-hooks to run them)');
  });

  it('runs them with --run-hooks', async () => {
    const r = await replay(['--policy', hooked, '--run-hooks', '--format', 'json', join(CLAUDE, 'bash.jsonl')]);
    const call = jsonLines(r.out).find((l) => l['seam'] === 'pre-tool')!;
    expect(call).toMatchObject({ decision: 'deny', reasons: ['hook says no'], rules: [`${hooked}:2:3`] });
    expect(call['pending']).toBeUndefined();
  });
});

describe('dshpolicy replay: what it cannot read', () => {
  it('skips and counts unreadable lines, deciding the rest as before', async () => {
    const lines = readFileSync(join(CLAUDE, 'two-turns.jsonl'), 'utf8').split('\n');
    // Garbage after the first prompt, a JSON array, a cut line in the middle, a partial last line.
    lines.splice(4, 0, 'not json at all', '[1,2,3]', '{"type":"assistant","message":{"content":[{"type":"tool_u');
    const garbled = file('garbled.jsonl', `${lines.join('\n')}{"type":"user","mess`);
    const clean = await replay(['--policy', policy, '--format', 'json', join(CLAUDE, 'two-turns.jsonl')]);
    const r = await replay(['--policy', policy, '--format', 'json', garbled]);
    expect(r.code).toBe(0);
    const decisions = (out: string) => jsonLines(out).slice(0, -1).filter((l) => !('diagnostic' in l)).map((l) => [l['seam'], l['tool'], l['decision']]);
    expect(decisions(r.out)).toEqual(decisions(clean.out));
    const s = summaryOf(r.out);
    expect(s.skippedLines).toBe(3);
    expect(s.files[0]!.skippedLines).toBe(3);
    expect(s.diagnostics.map((d) => d.code)).toEqual(['claude/transcript-bad-lines', 'claude/transcript-partial-line']);
    const table = await replay(['--policy', policy, garbled]);
    expect(table.out).toContain('3 unreadable lines skipped');
    expect(table.err).toContain('warning: skipped 3 unreadable lines');
  });

  it('reports a missing file with exit 1 and still replays the others', async () => {
    const missing = join(dir, 'no-such-session.jsonl');
    const r = await replay(['--policy', policy, '--format', 'json', missing, join(CLAUDE, 'bash.jsonl')]);
    expect(r.code).toBe(1);
    const lines = jsonLines(r.out);
    expect(lines[0]).toEqual({ file: missing, diagnostic: { code: 'replay/unreadable', severity: 'error', message: `\`${missing}\` does not exist` } });
    const s = summaryOf(r.out);
    expect(s.failedFiles).toBe(1);
    expect(s.events).toBe(4);
    expect(s.files[0]).toMatchObject({ file: missing, error: `\`${missing}\` does not exist` });
    const table = await replay(['--policy', policy, missing, join(CLAUDE, 'bash.jsonl')]);
    expect(table.code).toBe(1);
    expect(table.err).toContain(`error: \`${missing}\` does not exist`);
    expect(table.out).toContain(`1 file could not be read: ${missing}`);
    expect(table.out).toMatch(/^replayed 1 file \(1 claude\)/);
  });

  it('says when a file is no transcript, and takes an empty one as no events', async () => {
    const other = file('other.jsonl', '{"seam":"pre-tool","tool":"Bash","input":{"command":"ls"}}\n');
    const garbage = file('garbage.jsonl', 'hello\nworld\n');
    const empty = file('empty.jsonl', '');
    const r = await replay(['--policy', policy, '--format', 'json', other, garbage, empty]);
    expect(r.code).toBe(1);
    const s = summaryOf(r.out);
    expect(s.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['replay/unknown-format', 'error'],
      ['replay/not-a-transcript', 'error'],
      ['replay/empty', 'info'],
    ]);
    expect(s.failedFiles).toBe(2);
    const ok = await replay(['--policy', policy, empty]);
    expect(ok.code).toBe(0);
  });

  it('warns that a Claude Code subagent transcript gives no events', async () => {
    const lines = readFileSync(join(CLAUDE, 'bash.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.stringify({ ...(JSON.parse(l) as object), isSidechain: true, agentId: 'a1' }));
    const side = file('agent-a1.jsonl', `${lines.join('\n')}\n`);
    const r = await replay(['--policy', policy, '--format', 'json', side]);
    expect(r.code).toBe(0);
    const s = summaryOf(r.out);
    expect(s.events).toBe(0);
    expect(s.sidechainFiles).toBe(1);
    expect(s.diagnostics[0]).toMatchObject({ code: 'replay/sidechain', severity: 'warning' });
  });

  it('exits 1 with diagnostics when the policy does not compile', async () => {
    const bad = file('bad.dshpolicy', 'on pre-tool {\n  deny Bash when output matches /x/\n}\n');
    const r = await replay(['--policy', bad, join(CLAUDE, 'bash.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('the policy does not compile');
    const json = await replay(['--policy', bad, '--format', 'json', join(CLAUDE, 'bash.jsonl')]);
    expect(JSON.parse(json.out)).toMatchObject({ ok: false });
  });

  it('needs a policy and a transcript', async () => {
    await expect(replay([join(CLAUDE, 'bash.jsonl')])).rejects.toThrow(/--policy/);
    await expect(replay(['--policy', policy])).rejects.toThrow(/transcript/);
  });
});

describe('dshpolicy replay: progress', () => {
  it('shows progress on a terminal only', async () => {
    const tty = await replay(['--policy', policy, CLAUDE], { tty: true });
    expect(tty.err).toMatch(/replay: file 1\/3 .* events/);
    expect(tty.err.endsWith('\r\u001b[2K')).toBe(true);
    const quiet = await replay(['--policy', policy, '--no-progress', CLAUDE], { tty: true });
    expect(quiet.err).toBe('');
    const piped = await replay(['--policy', policy, CLAUDE]);
    expect(piped.err).toBe('');
  });
});

describe('dshpolicy replay: a large transcript', () => {
  it('streams a ~54 MB transcript with bounded memory', { timeout: 60_000 }, async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const big = join(dir, 'big', 'session.jsonl');
    mkdirSync(join(dir, 'big'));
    // 3,000 turns of 2 calls with 4 KB outputs: ~54 MB, 18,000 events.
    const written = writeSyntheticTranscript(big, { agent: 'claude', turns: 3000, callsPerTurn: 2, outputBytes: 4096 });
    expect(written.bytes).toBeGreaterThan(50_000_000);
    const loaded = loadPolicies([file('throughput.dshpolicy', THROUGHPUT_POLICY)]);
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    let samples = 0;
    let emitted = 0;
    const summary = await replayFiles(loaded.policy!, [big], {
      // What --format json does with each event, so the per-event output is part of the measure.
      onEvent: (r) => {
        emitted += JSON.stringify(recordJson(r)).length;
      },
      onProgress: () => {
        gc();
        samples++;
        peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      },
    });
    expect(summary.events).toBe(written.events);
    // 6,000 calls cycling through 7 commands: rm -rf (deny), git push (ask), npm test, git status,
    // ls (allow), cat and npm run lint (no rule).
    expect(summary.seams['pre-tool']).toEqual({ deny: 857, ask: 857, allow: 2572, none: 1714 });
    expect(summary.stops.continued).toBeGreaterThan(0);
    expect(summary.skippedLines).toBe(0);
    expect(samples).toBeGreaterThan(15);
    expect(emitted).toBeGreaterThan(0);
    // The live heap never grows by more than a few MB while 54 MB go through it (keeping the
    // records instead grows it by ~40 MB).
    expect(peak).toBeLessThan(16 * 1024 * 1024);
  });

  it('measures throughput for the benchmark', async () => {
    const r = await measureReplayThroughput({ agent: 'codex', turns: 200 });
    expect(r).toMatchObject({ agent: 'codex', events: 1200 });
    expect(r.eventsPerSecond).toBeGreaterThan(0);
    expect(r.bytes).toBeGreaterThan(0);
  });

});

describe('clip', () => {
  // What clip did before its shortcuts: flatten the whole text, trim, cut.
  const reference = (s: string, width: number): string => {
    const flat = s.replace(/\s+/g, ' ').trim();
    return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
  };

  it('gives what flattening the whole text gives, for short and long texts of any whitespace', () => {
    let seed = 11;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = ['a', 'bc', ' ', '  ', '\n', '\t', '\r\n', '\u00a0', 'é', '😀', ' '.repeat(400), 'x'.repeat(500)];
    for (const width of [1, 2, 10, 60, 300]) {
      for (let round = 0; round < 400; round++) {
        let s = '';
        const target = random(4 * width + 200);
        while (s.length < target) s += pieces[random(pieces.length)];
        expect(clip(s, width)).toBe(reference(s, width));
      }
    }
    for (const s of ['', ' ', 'a', ' a ', 'a  b', 'a\tb', `${'x'.repeat(1264)} y`, `${' '.repeat(2000)}z`, `${'x '.repeat(700)}`]) {
      expect(clip(s, 300)).toBe(reference(s, 300));
    }
  });
});
