import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_LINES, measureReplay, parseFloorMs, writeBenchSession } from './replay.js';

const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-bench-replay-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// `npm test` builds dist/ before running the tests; without a build the CLI run is skipped.
const CLI = resolve(import.meta.dirname, '..', 'dist', 'cli.cjs');

describe('generated sessions', () => {
  for (const agent of ['claude', 'codex'] as const) {
    it(`a ${agent} session has the events it says, in lines of the agent's shape`, () => {
      const path = join(dir, `${agent}.jsonl`);
      const stats = writeBenchSession(path, { agent, events: 500, rules: 100 });
      expect(stats.events).toBeGreaterThanOrEqual(500);
      expect(stats.events).toBe(stats.seams['pre-tool'] + stats.seams['post-tool'] + stats.seams.prompt + stats.seams.stop);
      expect(stats.seams.prompt).toBe(stats.turns);
      expect(stats.seams.stop).toBe(stats.turns + stats.continuations);
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(stats.lines);
      const types = new Set(lines.map((l) => (JSON.parse(l) as { type: string }).type));
      if (agent === 'claude') expect([...types]).toEqual(expect.arrayContaining(['user', 'assistant', 'system', 'api-request', 'last-prompt']));
      else expect([...types]).toEqual(expect.arrayContaining(['session_meta', 'response_item', 'event_msg', 'turn_context', 'token_usage_record']));
      expect(parseFloorMs(path, 1)).toBeGreaterThan(0);
      // The floor parses the lines that give events, and only those.
      const gives = (v: { type: string; subtype?: string; payload?: { type?: string } }) =>
        agent === 'claude' ? v.type === 'user' || v.type === 'assistant' || v.subtype === 'stop_hook_summary' : v.type === 'response_item' || v.payload?.type === 'task_complete';
      for (const l of lines) expect(EVENT_LINES[agent].test(l), l.slice(0, 120)).toBe(gives(JSON.parse(l) as Parameters<typeof gives>[0]));
    });
  }

  it('is the same for the same seed, and leaner without the bookkeeping lines', () => {
    const a = writeBenchSession(join(dir, 'a.jsonl'), { agent: 'claude', events: 300, seed: 5 });
    const b = writeBenchSession(join(dir, 'b.jsonl'), { agent: 'claude', events: 300, seed: 5 });
    expect(readFileSync(join(dir, 'a.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'b.jsonl'), 'utf8'));
    const lean = writeBenchSession(join(dir, 'c.jsonl'), { agent: 'claude', events: 300, seed: 5, noise: false });
    expect(lean.events).toBeGreaterThanOrEqual(300);
    expect(lean.bytes / lean.events).toBeLessThan(b.bytes / b.events);
  });
});

describe.skipIf(!existsSync(CLI))('measureReplay', () => {
  it('replays both formats through the built CLI and finds every event the generator wrote', { timeout: 120_000 }, async () => {
    const r = await measureReplay({ cli: CLI, rules: 50, events: 400, runs: 1 });
    expect(r.agents.map((a) => a.agent)).toEqual(['claude', 'codex']);
    for (const a of r.agents) {
      expect(a.events).toBeGreaterThanOrEqual(400);
      expect(a.eventsPerSecond).toBeGreaterThan(0);
      expect(a.netEventsPerSecond).toBeGreaterThan(0);
      expect(a.againEventsPerCpuSecond).toBeGreaterThan(0);
      expect(a.split?.readUs).toBeGreaterThan(0);
    }
    expect(r.fixedMs).toBeGreaterThan(0);
    expect(r.budget).toBe(100_000);
  });
});
