import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCall } from '../../engine/index.js';
import type { TranscriptItem } from '../common/transcript.js';
import { iterateCodexRollout, readCodexTurn, shlexJoin } from './rollout.js';

const FIXTURES = join(import.meta.dirname, 'testdata', 'rollouts');
const SCENARIOS = ['exec', 'two-turns', 'stop-continuation'];

/** One hook run recorded next to a fixture (see testdata/README.md). */
interface HookRecord {
  event: string;
  transcriptLines: number;
  payload: Record<string, unknown>;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dshpolicy-rollout-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
async function temp(text: string): Promise<string> {
  const file = join(dir, `r${counter++}.jsonl`);
  await writeFile(file, text);
  return file;
}

async function fixture(name: string): Promise<{ lines: string[]; hooks: HookRecord[] }> {
  const text = await readFile(join(FIXTURES, `${name}.jsonl`), 'utf8');
  const hooks = JSON.parse(await readFile(join(FIXTURES, `${name}.hooks.json`), 'utf8')) as HookRecord[];
  return { lines: text.split('\n').slice(0, -1), hooks };
}

/** What Codex's own hooks said about each Stop: the turn's calls (PreToolUse), the prompt, the message. */
function expectedStops(hooks: HookRecord[]): { at: number; prompt: string; turn: ToolCall[]; lastMessage: unknown; stopHookActive: boolean; earlierStops: number }[] {
  const out = [];
  let prompt = '';
  let turn: ToolCall[] = [];
  let earlierStops = 0;
  for (const h of hooks) {
    if (h.event === 'UserPromptSubmit') {
      prompt = h.payload['prompt'] as string;
      turn = [];
      earlierStops = 0;
    } else if (h.event === 'PreToolUse') {
      turn.push({ tool: h.payload['tool_name'] as string, input: h.payload['tool_input'] as Record<string, unknown> });
    } else if (h.event === 'Stop') {
      out.push({ at: h.transcriptLines, prompt, turn: [...turn], lastMessage: h.payload['last_assistant_message'], stopHookActive: h.payload['stop_hook_active'] === true, earlierStops });
      earlierStops++;
    }
  }
  return out;
}

async function collect(gen: AsyncIterable<TranscriptItem>): Promise<TranscriptItem[]> {
  const items: TranscriptItem[] = [];
  for await (const item of gen) items.push(item);
  return items;
}

const line = (value: unknown): string => JSON.stringify(value) + '\n';
const item = (payload: Record<string, unknown>): string => line({ timestamp: '2026-01-01T00:00:00Z', type: 'response_item', payload });
const event = (payload: Record<string, unknown>): string => line({ timestamp: '2026-01-01T00:00:00Z', type: 'event_msg', payload });
const userMsg = (text: string, provenance?: string): string =>
  item({
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text }],
    ...(provenance !== undefined ? { internal_chat_message_metadata_passthrough: { content_item_metadata: [{ provenance: { type: provenance } }] } } : {}),
  });
const assistant = (text: string): string => item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const call = (name: string, args: unknown, id: string, namespace?: string): string =>
  item({ type: 'function_call', name, ...(namespace !== undefined ? { namespace } : {}), arguments: typeof args === 'string' ? args : JSON.stringify(args), call_id: id });
const output = (id: string, out: unknown = 'ok'): string => item({ type: 'function_call_output', call_id: id, output: out });

describe('readCodexTurn on real rollouts', () => {
  for (const name of SCENARIOS) {
    it(`${name}: at every Stop, the facts equal what Codex's hooks saw`, async () => {
      const { lines, hooks } = await fixture(name);
      const stops = expectedStops(hooks);
      expect(stops.length).toBeGreaterThan(0);
      for (const stop of stops) {
        // The rollout exactly as it was when the Stop hook ran.
        const file = await temp(lines.slice(0, stop.at).map((l) => l + '\n').join(''));
        const facts = await readCodexTurn(file);
        expect(facts.diagnostics).toEqual([]);
        expect(facts.skipped).toBe(0);
        expect(facts.turn).toEqual(stop.turn);
        expect(facts.lastMessage).toBe(stop.lastMessage);
        expect(facts.prompt).toBe(stop.prompt);
        expect(facts.continuations).toBe(stop.earlierStops);
        expect(facts.continuations > 0).toBe(stop.stopHookActive);
      }
    });
  }

  it('maps exec_command, apply_patch and an MCP call to the names and inputs hooks get', async () => {
    const facts = await readCodexTurn(join(FIXTURES, 'two-turns.jsonl'));
    expect(facts.turn).toEqual([
      { tool: 'Bash', input: { command: 'echo two' } },
      { tool: 'apply_patch', input: { command: '*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n' } },
      { tool: 'mcp__notes__lookup', input: { q: 'x' } },
    ]);
    expect(facts.lastMessage).toBe('Second done.');
    expect(facts.prompt).toBe('second task');
  });

  it('keeps the calls made before a Stop continuation in the turn', async () => {
    const facts = await readCodexTurn(join(FIXTURES, 'stop-continuation.jsonl'));
    expect(facts.turn.map((c) => c.input['command'])).toEqual(['echo a', 'echo b']);
    expect(facts.continuations).toBe(1);
  });
});

describe('iterateCodexRollout on real rollouts', () => {
  for (const name of SCENARIOS) {
    it(`${name}: prompts, calls, results and stops in order, as the hooks saw them`, async () => {
      const { hooks } = await fixture(name);
      const items = await collect(iterateCodexRollout(join(FIXTURES, `${name}.jsonl`)));
      expect(items.filter((i) => i.kind === 'diagnostic')).toEqual([]);
      const kinds = items.map((i) => (i.kind === 'prompt' ? 'UserPromptSubmit' : i.kind === 'tool-call' ? 'PreToolUse' : i.kind === 'stop' ? 'Stop' : undefined)).filter((k) => k !== undefined);
      expect(kinds).toEqual(hooks.map((h) => h.event));
      const calls = items.filter((i) => i.kind === 'tool-call').map((i) => i.call);
      expect(calls).toEqual(hooks.filter((h) => h.event === 'PreToolUse').map((h) => ({ tool: h.payload['tool_name'], input: h.payload['tool_input'] })));
      const stops = items.filter((i) => i.kind === 'stop');
      expect(stops.map((s) => ({ turn: s.turn, lastMessage: s.lastMessage, active: s.continuations > 0 }))).toEqual(
        expectedStops(hooks).map((e) => ({ turn: e.turn, lastMessage: e.lastMessage, active: e.stopHookActive })),
      );
      const results = items.filter((i) => i.kind === 'tool-result');
      expect(results.length).toBe(calls.length);
      for (const r of results) expect(r.call).toBeDefined();
    });
  }

  it('reports the continuation reason and the outputs', async () => {
    const items = await collect(iterateCodexRollout(join(FIXTURES, 'stop-continuation.jsonl')));
    expect(items.find((i) => i.kind === 'continuation')).toMatchObject({ reason: 'check your work' });
    const two = await collect(iterateCodexRollout(join(FIXTURES, 'two-turns.jsonl')));
    const mcp = two.find((i) => i.kind === 'tool-result' && i.call?.tool === 'mcp__notes__lookup');
    expect(mcp).toMatchObject({ output: expect.stringContaining('note for {"q":"x"}') });
  });
});

describe('readCodexTurn on synthetic rollouts', () => {
  it('tells prompts from Codex context and hook prompts by provenance', async () => {
    const text =
      userMsg('<environment_context><cwd>/x</cwd></environment_context>', 'harness') +
      userMsg('fix it', 'user') +
      call('exec_command', { cmd: 'ls', workdir: '/x', yield_time_ms: 1000 }, 'c1') +
      output('c1') +
      assistant('first') +
      userMsg('<hook_prompt hook_run_id="stop:0:/h.json">run tests</hook_prompt>', 'harness') +
      userMsg('<environment_context>changed</environment_context>', 'harness') +
      call('exec_command', { cmd: 'npm test' }, 'c2') +
      assistant('second');
    const facts = await readCodexTurn(await temp(text));
    expect(facts.prompt).toBe('fix it');
    expect(facts.turn).toEqual([
      { tool: 'Bash', input: { command: 'ls' } },
      { tool: 'Bash', input: { command: 'npm test' } },
    ]);
    expect(facts.continuations).toBe(1);
    expect(facts.lastMessage).toBe('second');
  });

  it('tells them apart by their tags when a rollout has no provenance, and reads bare legacy lines', async () => {
    const text =
      line({ id: 'session', timestamp: '2025-05-01', instructions: null }) +
      line({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '<user_instructions>be nice</user_instructions>' }] }) +
      line({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'old prompt' }] }) +
      line({ type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', "echo 'hi there'"] }), call_id: 'c1' }) +
      line({ type: 'function_call_output', call_id: 'c1', output: { content: 'hi there', success: true } }) +
      line({ type: 'local_shell_call', call_id: 'c2', action: { type: 'exec', command: ['git', 'status'] } }) +
      line({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>x</environment_context>' }] }) +
      line({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] });
    const facts = await readCodexTurn(await temp(text));
    expect(facts.prompt).toBe('old prompt');
    expect(facts.turn).toEqual([
      { tool: 'Bash', input: { command: `bash -lc 'echo '"'"'hi there'"'"''` } },
      { tool: 'Bash', input: { command: 'git status' } },
    ]);
    expect(facts.lastMessage).toBe('done');
  });

  it('stops at an event_msg prompt marker (user_message, or an item_completed UserMessage)', async () => {
    const older =
      userMsg('p1') +
      call('exec_command', { cmd: 'a' }, 'c1') +
      event({ type: 'user_message', message: 'p2', images: [] }) +
      call('exec_command', { cmd: 'b' }, 'c2') +
      event({ type: 'user_message', message: '<environment_context>x</environment_context>', kind: 'environment_context' }) +
      event({ type: 'user_message', message: '<user_instructions>y</user_instructions>' });
    expect((await readCodexTurn(await temp(older))).turn).toEqual([{ tool: 'Bash', input: { command: 'b' } }]);
    const newer = userMsg('p1', 'user') + call('exec_command', { cmd: 'a' }, 'c1') + event({ type: 'item_completed', item: { type: 'UserMessage', content: [{ type: 'text', text: 'p2' }] } }) + call('exec_command', { cmd: 'b' }, 'c2');
    const facts = await readCodexTurn(await temp(newer));
    expect(facts.turn).toEqual([{ tool: 'Bash', input: { command: 'b' } }]);
    expect(facts.prompt).toBe('p2');
  });

  it('maps the other tool shapes', async () => {
    const text =
      userMsg('go', 'user') +
      call('shell_command', { command: 'ls -la' }, 'c1') +
      call('apply_patch', { input: '*** Begin Patch\n*** End Patch\n' }, 'c2') +
      call('lookup', { q: 1 }, 'c3', 'mcp__notes__') +
      call('mcp__old__tool', { a: true }, 'c4') +
      call('spawn_agent', { message: 'hi' }, 'c5', 'collaboration') +
      call('update_plan', 'not json', 'c6') +
      call('exec_command', { no_cmd: true }, 'c7') +
      item({ type: 'custom_tool_call', name: 'apply_patch', input: 'PATCH', call_id: 'c8' }) +
      item({ type: 'web_search_call', action: { type: 'search', query: 'q' } }) +
      item({ type: 'reasoning', summary: [] });
    const facts = await readCodexTurn(await temp(text));
    expect(facts.turn).toEqual([
      { tool: 'Bash', input: { command: 'ls -la' } },
      { tool: 'apply_patch', input: { command: '*** Begin Patch\n*** End Patch\n' } },
      { tool: 'mcp__notes__lookup', input: { q: 1 } },
      { tool: 'mcp__old__tool', input: { a: true } },
      { tool: 'spawn_agent', input: { message: 'hi' } },
      { tool: 'update_plan', input: {} },
      { tool: 'Bash', input: {} },
      { tool: 'apply_patch', input: { command: 'PATCH' } },
      { tool: 'web_search', input: { type: 'search', query: 'q' } },
    ]);
    expect(facts.lastMessage).toBeUndefined();
  });

  it('skips garbage, blank and partial lines and unknown line types', async () => {
    const text =
      userMsg('go', 'user') +
      '\n' +
      'garbage\n' +
      line({ type: 'world_state', payload: { full: true } }) +
      line({ type: 'future_kind', payload: { type: 'function_call', name: 'x' } }) +
      '"a string"\n' +
      call('exec_command', { cmd: 'ls' }, 'c1') +
      assistant('done') +
      '{"timestamp":"2026-01-01","type":"response_item","payload":{"type":"function_ca';
    const facts = await readCodexTurn(await temp(text));
    expect(facts.turn).toEqual([{ tool: 'Bash', input: { command: 'ls' } }]);
    expect(facts.skipped).toBe(2);
    expect(facts.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['codex/rollout-bad-lines', 'warning'],
      ['codex/rollout-partial-line', 'info'],
    ]);
  });

  it('reports a missing rollout as a diagnostic, never throwing', async () => {
    const facts = await readCodexTurn(join(dir, 'nope.jsonl'));
    expect(facts.turn).toEqual([]);
    expect(facts.diagnostics.map((d) => [d.code, d.severity])).toEqual([['codex/rollout-missing', 'warning']]);
    const items = await collect(iterateCodexRollout(join(dir, 'nope.jsonl')));
    expect(items).toEqual([{ kind: 'diagnostic', diagnostic: expect.objectContaining({ code: 'codex/rollout-missing' }) }]);
  });

  it('reads only the tail of a large rollout, and stops at the cap with a diagnostic', async () => {
    const file = join(dir, `big${counter++}.jsonl`);
    const handle = await open(file, 'w');
    try {
      let batch = '';
      for (let i = 0; i < 12_000; i++) {
        batch += userMsg(`old ${i}`, 'user') + call('exec_command', { cmd: `old ${i} ${'p'.repeat(800)}` }, `o${i}`) + output(`o${i}`);
        if (batch.length > 1 << 20) {
          await handle.write(batch);
          batch = '';
        }
      }
      await handle.write(batch + userMsg('latest', 'user') + call('exec_command', { cmd: 'npm test' }, 'z') + output('z') + assistant('tested'));
    } finally {
      await handle.close();
    }
    const size = (await readFile(file)).length;
    expect(size).toBeGreaterThan(12 * 1024 * 1024);
    const facts = await readCodexTurn(file);
    expect(facts.turn).toEqual([{ tool: 'Bash', input: { command: 'npm test' } }]);
    expect(facts.bytesRead).toBeLessThanOrEqual(64 * 1024);

    const capped = await readCodexTurn(await temp(userMsg('go', 'user') + call('exec_command', { cmd: 'x'.repeat(4000) }, 'c') + assistant('a'.repeat(4000))), { maxBytes: 2048 });
    expect(capped.bytesRead).toBe(2048);
    expect(capped.turn).toEqual([]);
    expect(capped.diagnostics.map((d) => d.code)).toEqual(['codex/rollout-capped']);
  });
});

describe('iterateCodexRollout on synthetic rollouts', () => {
  it('yields a stop at task_complete when the turn had no assistant message', async () => {
    const text = userMsg('go', 'user') + call('exec_command', { cmd: 'ls' }, 'c1') + output('c1') + event({ type: 'task_complete', last_agent_message: null });
    const items = await collect(iterateCodexRollout(await temp(text)));
    expect(items.map((i) => i.kind)).toEqual(['prompt', 'tool-call', 'tool-result', 'stop']);
    expect(items[3]).toEqual({ kind: 'stop', line: 4, turn: [{ tool: 'Bash', input: { command: 'ls' } }], continuations: 0 });
  });

  it('does not take an assistant message followed by a tool call for a stop', async () => {
    const text = userMsg('go', 'user') + assistant('let me look') + call('exec_command', { cmd: 'ls' }, 'c1') + output('c1') + assistant('done');
    const items = await collect(iterateCodexRollout(await temp(text)));
    expect(items.filter((i) => i.kind === 'stop')).toEqual([{ kind: 'stop', line: 5, turn: [{ tool: 'Bash', input: { command: 'ls' } }], lastMessage: 'done', continuations: 0 }]);
  });
});

describe('shlexJoin', () => {
  it('quotes only the words that need it', () => {
    expect(shlexJoin(['git', 'commit', '-m', 'a message', '', "it's", 'a/b.c=d:e@f%g+h,i-_'])).toBe(`git commit -m 'a message' '' 'it'"'"'s' a/b.c=d:e@f%g+h,i-_`);
  });
});
