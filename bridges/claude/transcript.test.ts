import { mkdtemp, open, readFile, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCall } from '../../engine/index.js';
import { readLineBatchesForward, readLinesBackward, readLinesForward, type RawLine, type TranscriptItem } from '../common/transcript.js';
import { iterateClaudeTranscript, readClaudeTurn } from './transcript.js';

const FIXTURES = join(import.meta.dirname, 'testdata', 'transcripts');
const SCENARIOS = ['bash', 'two-turns', 'stop-continuation'];

/** One hook run recorded next to a fixture (see testdata/README.md). */
interface HookRecord {
  event: string;
  transcriptLines: number;
  payload: Record<string, unknown>;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dshpolicy-transcript-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
async function temp(text: string | Buffer): Promise<string> {
  const file = join(dir, `t${counter++}.jsonl`);
  await writeFile(file, text);
  return file;
}

async function fixture(name: string): Promise<{ text: string; lines: string[]; hooks: HookRecord[] }> {
  const text = await readFile(join(FIXTURES, `${name}.jsonl`), 'utf8');
  const hooks = JSON.parse(await readFile(join(FIXTURES, `${name}.hooks.json`), 'utf8')) as HookRecord[];
  return { text, lines: text.split('\n').slice(0, -1), hooks };
}

/** What Claude Code's own hooks said about each Stop: the turn's calls (PreToolUse), the prompt, the message. */
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
const prompt = (text: string, extra: Record<string, unknown> = {}): string => line({ type: 'user', message: { role: 'user', content: text }, ...extra });
const toolUse = (name: string, input: Record<string, unknown>, id = name, msg = `m-${id}`): string =>
  line({ type: 'assistant', message: { id: msg, role: 'assistant', content: [{ type: 'tool_use', id, name, input }], stop_reason: 'tool_use' } });
const toolResult = (id: string, content: unknown = 'ok'): string =>
  line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] }, toolUseResult: { stdout: 'ok' } });
const say = (text: string, msg = `m-${text}`): string => line({ type: 'assistant', message: { id: msg, role: 'assistant', content: [{ type: 'text', text }], stop_reason: 'end_turn' } });

describe('readClaudeTurn on real transcripts', () => {
  for (const name of SCENARIOS) {
    it(`${name}: at every Stop, the facts equal what Claude Code's hooks saw`, async () => {
      const { lines, hooks } = await fixture(name);
      const stops = expectedStops(hooks);
      expect(stops.length).toBeGreaterThan(0);
      for (const stop of stops) {
        // The transcript exactly as it was when the Stop hook ran.
        const file = await temp(lines.slice(0, stop.at).map((l) => l + '\n').join(''));
        const facts = await readClaudeTurn(file);
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

  it('reads the final file of a two-prompt session as its second turn only', async () => {
    const facts = await readClaudeTurn(join(FIXTURES, 'two-turns.jsonl'));
    expect(facts.turn).toEqual([
      { tool: 'Bash', input: { command: 'echo two' } },
      { tool: 'Write', input: { file_path: '/tmp/e2e/project/notes.txt', content: 'hi\n' } },
    ]);
    expect(facts.lastMessage).toBe('Second done.');
    expect(facts.prompt).toBe('second task');
    expect(facts.diagnostics).toEqual([]);
  });

  it('keeps the calls made before a Stop continuation in the turn', async () => {
    const facts = await readClaudeTurn(join(FIXTURES, 'stop-continuation.jsonl'));
    expect(facts.turn.map((c) => c.input['command'])).toEqual(['echo a', 'echo b']);
    expect(facts.continuations).toBe(1);
    expect(facts.lastMessage).toBe('Second answer.');
  });
});

describe('iterateClaudeTranscript on real transcripts', () => {
  for (const name of SCENARIOS) {
    it(`${name}: prompts, calls, results and stops in order, as the hooks saw them`, async () => {
      const { hooks } = await fixture(name);
      const items = await collect(iterateClaudeTranscript(join(FIXTURES, `${name}.jsonl`)));
      expect(items.filter((i) => i.kind === 'diagnostic')).toEqual([]);
      const kinds = items.map((i) => (i.kind === 'prompt' ? 'UserPromptSubmit' : i.kind === 'tool-call' ? 'PreToolUse' : i.kind === 'stop' ? 'Stop' : undefined)).filter((k) => k !== undefined);
      expect(kinds).toEqual(hooks.map((h) => h.event));
      const stops = items.filter((i) => i.kind === 'stop');
      const expected = expectedStops(hooks);
      expect(stops.map((s) => ({ turn: s.turn, lastMessage: s.lastMessage, active: s.continuations > 0 }))).toEqual(
        expected.map((e) => ({ turn: e.turn, lastMessage: e.lastMessage, active: e.stopHookActive })),
      );
      // Every result is paired with the call it answers.
      const results = items.filter((i) => i.kind === 'tool-result');
      expect(results.length).toBe(items.filter((i) => i.kind === 'tool-call').length);
      for (const r of results) expect(r.call).toBeDefined();
    });
  }

  it('reports the continuation with the hook reason and the Bash output', async () => {
    const items = await collect(iterateClaudeTranscript(join(FIXTURES, 'stop-continuation.jsonl')));
    expect(items.find((i) => i.kind === 'continuation')).toMatchObject({ reason: 'check your work' });
    expect(items.find((i) => i.kind === 'tool-result')).toMatchObject({ call: { tool: 'Bash', input: { command: 'echo a' } }, output: 'a', isError: false });
  });
});

describe('readClaudeTurn on synthetic transcripts', () => {
  const base = prompt('old') + toolUse('Bash', { command: 'old' }, 't0') + toolResult('t0') + say('old done') + prompt('new') + toolUse('Bash', { command: 'ls' }, 't1') + toolResult('t1') + say('all done');

  it('ignores a partial last line that is still being written', async () => {
    const file = await temp(base + '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Ba');
    const facts = await readClaudeTurn(file);
    expect(facts.turn).toEqual([{ tool: 'Bash', input: { command: 'ls' } }]);
    expect(facts.lastMessage).toBe('all done');
    expect(facts.skipped).toBe(0);
    expect(facts.diagnostics.map((d) => d.code)).toEqual(['claude/transcript-partial-line']);
  });

  it('takes a complete last line that only lacks its newline', async () => {
    const file = await temp(base + toolUse('Read', { file_path: 'a' }, 't2').trimEnd());
    expect((await readClaudeTurn(file)).turn.map((c) => c.tool)).toEqual(['Bash', 'Read']);
  });

  it('skips and counts garbage lines, blank lines and unknown line types', async () => {
    const text =
      prompt('new') +
      '\n\n   \n' +
      'not json at all\n' +
      toolUse('Bash', { command: 'ls' }, 't1') +
      '[1,2,3]\n' +
      line({ type: 'file-history-snapshot', snapshot: {} }) +
      line({ type: 'summary', summary: 'x' }) +
      line({ type: 'some-future-type', message: { content: [{ type: 'tool_use', name: 'Nope', input: {} }] } }) +
      '{"truncated": \n' +
      toolResult('t1') +
      say('done');
    const facts = await readClaudeTurn(await temp(text));
    expect(facts.turn).toEqual([{ tool: 'Bash', input: { command: 'ls' } }]);
    expect(facts.skipped).toBe(3);
    expect(facts.diagnostics).toHaveLength(1);
    expect(facts.diagnostics[0]).toMatchObject({ code: 'claude/transcript-bad-lines', severity: 'warning' });
    expect(facts.diagnostics[0]!.message).toContain('skipped 3 unreadable lines');
  });

  it('does not take tool results, meta lines, compact summaries, sidechains or interruptions for prompts', async () => {
    const text =
      prompt('the prompt') +
      toolUse('Bash', { command: 'a' }, 't1') +
      toolResult('t1') +
      prompt('[Request interrupted by user for tool use]') +
      prompt('Caveat: local commands', { isMeta: true }) +
      prompt('This session is being continued from a previous conversation', { isCompactSummary: true }) +
      prompt('sub-agent task', { isSidechain: true }) +
      line({ type: 'assistant', isSidechain: true, message: { id: 's', content: [{ type: 'tool_use', id: 's1', name: 'Grep', input: {} }] } }) +
      prompt('<local-command-stdout>ok</local-command-stdout>') +
      line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'hi' }] }] } }) +
      toolUse('Edit', { file_path: 'f' }, 't2') +
      say('done');
    const facts = await readClaudeTurn(await temp(text));
    expect(facts.prompt).toBe('the prompt');
    expect(facts.turn.map((c) => c.tool)).toEqual(['Bash', 'Edit']);
  });

  it('takes a prompt made of text blocks (and images) as a prompt', async () => {
    const text =
      line({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: {} }] } }) + toolUse('Read', { file_path: 'x' }, 't1') + say('seen');
    const facts = await readClaudeTurn(await temp(text));
    expect(facts.prompt).toBe('look');
    expect(facts.turn).toEqual([{ tool: 'Read', input: { file_path: 'x' } }]);
  });

  it('reads an old-style assistant line holding text and several tool_use blocks, in order', async () => {
    const text =
      prompt('go') +
      line({
        type: 'assistant',
        message: {
          id: 'm1',
          content: [
            { type: 'text', text: 'first' },
            { type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'one' } },
            { type: 'tool_use', id: 'b', name: 'mcp__db__query', input: { sql: 'select 1' } },
            { type: 'tool_use', id: 'c', name: 'Bash', input: 'not an object' },
          ],
        },
      }) +
      line({ type: 'assistant', message: { id: 'm2', content: [{ type: 'text', text: 'part one' }] } }) +
      line({ type: 'assistant', message: { id: 'm2', content: [{ type: 'text', text: 'part two' }] } });
    const facts = await readClaudeTurn(await temp(text));
    expect(facts.turn).toEqual([
      { tool: 'Bash', input: { command: 'one' } },
      { tool: 'mcp__db__query', input: { sql: 'select 1' } },
      { tool: 'Bash', input: {} },
    ]);
    expect(facts.lastMessage).toBe('part one\npart two');
  });

  it('counts Stop hook continuations and keeps the turn across them', async () => {
    const text =
      prompt('go') +
      toolUse('Bash', { command: 'a' }, 't1') +
      say('stop 1') +
      prompt('Stop hook feedback:\nrun the tests', { isMeta: true }) +
      say('stop 2') +
      prompt('Stop hook feedback:\nreally') + // older transcripts may lack isMeta
      toolUse('Bash', { command: 'npm test' }, 't2') +
      say('stop 3');
    const facts = await readClaudeTurn(await temp(text));
    expect(facts.continuations).toBe(2);
    expect(facts.turn.map((c) => c.input['command'])).toEqual(['a', 'npm test']);
    expect(facts.lastMessage).toBe('stop 3');
  });

  it('reads a file without any prompt as one turn, with an info diagnostic', async () => {
    const facts = await readClaudeTurn(await temp(toolUse('Bash', { command: 'a' }) + say('x')));
    expect(facts.turn).toHaveLength(1);
    expect(facts.diagnostics.map((d) => [d.code, d.severity])).toEqual([['claude/transcript-no-prompt', 'info']]);
  });

  it('reports a missing file, an empty path and a directory as diagnostics, never throwing', async () => {
    const missing = await readClaudeTurn(join(dir, 'nope.jsonl'));
    expect(missing).toMatchObject({ turn: [], skipped: 0, bytesRead: 0 });
    expect(missing.diagnostics.map((d) => [d.code, d.severity])).toEqual([['claude/transcript-missing', 'warning']]);
    expect((await readClaudeTurn('')).diagnostics[0]!.code).toBe('claude/transcript-missing');
    const directory = await readClaudeTurn(dir);
    expect(directory.turn).toEqual([]);
    expect(directory.diagnostics.map((d) => [d.code, d.severity])).toEqual([['claude/transcript-unreadable', 'error']]);
  });

  it('reads an empty file as an empty turn', async () => {
    const facts = await readClaudeTurn(await temp(''));
    expect(facts.turn).toEqual([]);
    expect(facts.diagnostics.map((d) => d.code)).toEqual(['claude/transcript-no-prompt']);
  });
});

describe('bounded reading', () => {
  /** Writes `count` old turns of filler (about 1 KiB each) in one go, then the tail. */
  async function bigTranscript(count: number, tail: string): Promise<{ file: string; size: number }> {
    const file = join(dir, `big${counter++}.jsonl`);
    const handle = await open(file, 'w');
    try {
      const filler = 'x'.repeat(900);
      let batch = '';
      for (let i = 0; i < count; i++) {
        batch += prompt(`old ${i}`) + toolUse('Bash', { command: `old ${i}`, pad: filler }, `o${i}`);
        if (batch.length > 1 << 20) {
          await handle.write(batch);
          batch = '';
        }
      }
      await handle.write(batch + tail);
    } finally {
      await handle.close();
    }
    const size = (await readFile(file)).length;
    return { file, size };
  }

  it('reads only the tail of a large transcript: bytes read stay proportional to the turn', async () => {
    const tail = prompt('latest') + toolUse('Bash', { command: 'npm test' }, 'z1') + toolResult('z1') + say('tested');
    const { file, size } = await bigTranscript(20_000, tail);
    expect(size).toBeGreaterThan(20 * 1024 * 1024);
    const facts = await readClaudeTurn(file);
    expect(facts.turn).toEqual([{ tool: 'Bash', input: { command: 'npm test' } }]);
    expect(facts.prompt).toBe('latest');
    expect(facts.diagnostics).toEqual([]);
    expect(facts.bytesRead).toBeLessThanOrEqual(64 * 1024);
  });

  it('stops at the read cap with a diagnostic and keeps the calls it saw', async () => {
    // One long turn: a prompt, then ~3 MiB of calls.
    let turn = '';
    for (let i = 0; i < 3000; i++) turn += toolUse('Bash', { command: `c${i}`, pad: 'y'.repeat(1000) }, `c${i}`);
    const file = await temp(prompt('long') + turn + say('end'));
    const facts = await readClaudeTurn(file, { maxBytes: 1024 * 1024 });
    expect(facts.bytesRead).toBe(1024 * 1024);
    expect(facts.prompt).toBeUndefined();
    expect(facts.turn.length).toBeGreaterThan(500);
    expect(facts.turn.length).toBeLessThan(3000);
    expect(facts.turn.at(-1)).toEqual({ tool: 'Bash', input: { command: 'c2999', pad: 'y'.repeat(1000) } });
    expect(facts.diagnostics.map((d) => [d.code, d.severity])).toEqual([['claude/transcript-capped', 'warning']]);
    // With room enough the whole turn is found.
    const full = await readClaudeTurn(file, { maxBytes: 8 * 1024 * 1024 });
    expect(full.turn).toHaveLength(3000);
    expect(full.diagnostics).toEqual([]);
  });

  it('reads a line much longer than a chunk (a big tool result) correctly', async () => {
    const big = 'é'.repeat(3 * 1024 * 1024); // multi-byte characters across chunk edges
    const text = prompt('go') + toolUse('Write', { file_path: 'f', content: big }, 'w1') + toolResult('w1', big) + say('written');
    const facts = await readClaudeTurn(await temp(text));
    expect(facts.turn).toEqual([{ tool: 'Write', input: { file_path: 'f', content: big } }]);
    expect(facts.lastMessage).toBe('written');
  });
});

describe('line readers', () => {
  it('the backward reader yields exactly the lines of the file, last first, whatever the line lengths', async () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const sizes = [0, 1, 2, 100, 65535, 65536, 65537, 131072, 200_000, 1_100_000];
    for (let round = 0; round < 4; round++) {
      const lines: string[] = [];
      for (let i = 0; i < 30; i++) lines.push('ä€'.repeat(Math.floor(sizes[random(sizes.length)]! / 3)) + 'k'.repeat(random(3)));
      const endsWithNewline = round % 2 === 0;
      const text = lines.join('\n') + (endsWithNewline ? '\n' : '');
      const file = await temp(text);
      const handle = await open(file, 'r');
      try {
        const size = (await handle.stat()).size;
        const got: string[] = [];
        const budget = { maxBytes: Number.MAX_SAFE_INTEGER, bytesRead: 0, capped: false, shrunk: false };
        for await (const l of readLinesBackward(handle, size, budget)) got.push(l.text);
        expect(got.reverse()).toEqual(text.split('\n'));
        expect(budget.bytesRead).toBe(size);
        const forward: string[] = [];
        for await (const l of readLinesForward(handle, Number.MAX_SAFE_INTEGER)) forward.push(l.text);
        expect(forward).toEqual(endsWithNewline ? text.split('\n').slice(0, -1) : text.split('\n'));
      } finally {
        await handle.close();
      }
    }
  });

  it('the forward iterator skips lines over its line limit and counts them', async () => {
    const text = prompt('go') + toolUse('Bash', { command: 'x'.repeat(5000) }, 'b1') + toolUse('Bash', { command: 'short' }, 'b2') + say('done');
    const items = await collect(iterateClaudeTranscript(await temp(text), { maxLineBytes: 1000 }));
    expect(items.filter((i) => i.kind === 'tool-call').map((i) => (i as { call: ToolCall }).call.input['command'])).toEqual(['short']);
    const diags = items.filter((i) => i.kind === 'diagnostic');
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({ diagnostic: { code: 'claude/transcript-bad-lines' } });
  });

  it('the forward iterator reports a missing file as a diagnostic item', async () => {
    const items = await collect(iterateClaudeTranscript(join(dir, 'missing.jsonl')));
    expect(items).toEqual([{ kind: 'diagnostic', diagnostic: expect.objectContaining({ code: 'claude/transcript-missing' }) }]);
  });

  it('the forward iterator ignores a partial last line and yields the stop before it', async () => {
    const file = await temp(prompt('go') + say('done'));
    await appendFile(file, '{"type":"user","mess');
    const items = await collect(iterateClaudeTranscript(file));
    expect(items.map((i) => i.kind)).toEqual(['prompt', 'stop', 'diagnostic']);
    expect(items[2]).toMatchObject({ diagnostic: { code: 'claude/transcript-partial-line', severity: 'info' } });
  });
});

describe('forward line batches', () => {
  // The forward reader reads 256 KiB chunks; these lengths put newlines on and around chunk ends.
  const CHUNK = 256 * 1024;

  it('yields every line once, with its byte offset, whatever the chunk boundaries', async () => {
    const lengths = [CHUNK - 1, 0, CHUNK - 2, 1, CHUNK, 5, 3 * CHUNK + 7, 2, CHUNK - 1, 40];
    const lines = lengths.map((n, i) => (i % 3 === 0 ? 'é'.repeat(Math.floor(n / 2)) : 'x'.repeat(n)));
    for (const endsWithNewline of [true, false]) {
      const text = lines.join('\n') + (endsWithNewline ? '\n' : '');
      const file = await temp(text);
      const handle = await open(file, 'r');
      try {
        const got: RawLine[] = [];
        let batches = 0;
        for await (const batch of readLineBatchesForward(handle, Number.MAX_SAFE_INTEGER)) {
          expect(batch.length).toBeGreaterThan(0);
          batches++;
          got.push(...batch);
        }
        expect(got.map((l) => l.text)).toEqual(lines);
        expect(batches).toBeGreaterThan(1);
        let offset = 0;
        lines.forEach((line, i) => {
          expect(got[i]!.offset).toBe(offset);
          expect(got[i]!.unterminated).toBe(!endsWithNewline && i === lines.length - 1);
          offset += Buffer.byteLength(line) + 1;
        });
      } finally {
        await handle.close();
      }
    }
  });

  it('flags lines over the limit as oversized, also across chunks, and reads the others', async () => {
    const lines = ['a'.repeat(10), 'b'.repeat(CHUNK + 100), 'c'.repeat(3), 'd'.repeat(2000), 'e'];
    const file = await temp(`${lines.join('\n')}\n${'f'.repeat(5000)}`);
    const handle = await open(file, 'r');
    try {
      const got: RawLine[] = [];
      for await (const line of readLinesForward(handle, 1000)) got.push(line);
      expect(got.map((l) => (l.oversized === true ? `oversized@${l.offset}` : l.text))).toEqual([
        lines[0],
        'oversized@11',
        lines[2],
        `oversized@${11 + CHUNK + 101 + 4}`,
        'e',
        `oversized@${11 + CHUNK + 101 + 4 + 2001 + 2}`,
      ]);
      expect(got.at(-1)!.unterminated).toBe(true);
    } finally {
      await handle.close();
    }
  });

  it('a caller may stop early and close the file while the next chunk is being read', async () => {
    const file = await temp('{"type":"x"}\n'.repeat(100_000));
    for (let round = 0; round < 5; round++) {
      const handle = await open(file, 'r');
      for await (const line of readLinesForward(handle, 1000)) {
        expect(line.text).toBe('{"type":"x"}');
        break;
      }
      await handle.close();
    }
    // The iterator too: stopping after the first item leaves nothing running.
    const items: TranscriptItem[] = [];
    for await (const item of iterateClaudeTranscript(await temp(prompt('go') + '{"type":"atis-latch"}\n'.repeat(50_000) + say('done')))) {
      items.push(item);
      break;
    }
    expect(items.map((i) => i.kind)).toEqual(['prompt']);
  });
});
