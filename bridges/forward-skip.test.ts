/**
 * The forward transcript readers leave unparsed the whole-looking lines that cannot give an item
 * (their `relevant` pattern). These tests hold the items to what parsing every line gives, on the recorded
 * fixtures and on random lines that try to hide an item-giving line from the pattern: `\u`
 * escapes in keys and values, spaces around colons, a second `type` key, tokens inside strings
 * and in nested `type` keys.
 */
import fc from 'fast-check';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeTranscriptBatches } from './claude/transcript.js';
import type { IterateOptions, TranscriptItem } from './common/transcript.js';
import { codexRolloutBatches } from './codex/rollout.js';

const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-forward-skip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Batches = (path: string, opts?: IterateOptions) => AsyncGenerator<TranscriptItem[], void, undefined>;

async function items(read: Batches, path: string, opts?: IterateOptions): Promise<TranscriptItem[]> {
  const out: TranscriptItem[] = [];
  for await (const batch of read(path, opts)) out.push(...batch);
  return out;
}

const nonDiagnostic = (xs: TranscriptItem[]) => xs.filter((x) => x.kind !== 'diagnostic');

const AGENTS: { name: string; read: Batches; fixtures: string }[] = [
  { name: 'claude', read: claudeTranscriptBatches, fixtures: join(import.meta.dirname, 'claude', 'testdata', 'transcripts') },
  { name: 'codex', read: codexRolloutBatches, fixtures: join(import.meta.dirname, 'codex', 'testdata', 'rollouts') },
];

describe('forward readers skip only lines that give no item', () => {
  for (const { name, read, fixtures } of AGENTS) {
    for (const file of readdirSync(fixtures).filter((f) => f.endsWith('.jsonl'))) {
      it(`${name} ${file}: the same items as parsing every line`, async () => {
        const path = join(fixtures, file);
        const all = await items(read, path, { readEveryLine: true });
        expect(all.filter((x) => x.kind === 'tool-call').length).toBeGreaterThan(0);
        expect(await items(read, path)).toEqual(all);
      });
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Random lines

/** JSON text of `value` where some letters of strings (keys and values) are written as `\u` escapes. */
function escapedJson(value: unknown, escape: (i: number) => boolean): string {
  let n = 0;
  const str = (s: string) => {
    let out = '"';
    for (const ch of s) {
      const code = ch.charCodeAt(0);
      if (/[a-z_]/.test(ch) && escape(n++)) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else out += JSON.stringify(ch).slice(1, -1);
    }
    return `${out}"`;
  };
  const walk = (v: unknown): string => {
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return `[${v.map(walk).join(',')}]`;
    if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${str(k)}:${walk(x)}`).join(',')}}`;
    return JSON.stringify(v);
  };
  return walk(value);
}

const word = fc.constantFrom('user', 'assistant', 'system', 'message', 'response_item', 'task_complete', 'function_call', 'ls', 'npm test', 'Stop hook feedback:\nagain', 'done', 'say "hi"', 'C:\\dir\\', ',"toolUseResult":{', '}}', '"type":"user"');
const text = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
const id = fc.constantFrom('a', 'b', 'c');

const claudeLine = fc.oneof(
  fc.record({ type: fc.constant('user'), message: fc.record({ role: fc.constant('user'), content: text }) }),
  fc.record({
    type: fc.constant('user'),
    message: fc.record({ role: fc.constant('user'), content: fc.tuple(fc.record({ type: fc.constant('tool_result'), tool_use_id: id, content: text, is_error: fc.boolean() })) }),
    toolUseResult: fc.record({ stdout: text }),
  }),
  // As Claude Code writes them: the tool's own result, then more members; a nested lookalike.
  fc.record({
    type: fc.constant('user'),
    // A text content with a tool result is not a prompt.
    message: fc.record({ role: fc.constant('user'), content: fc.oneof(fc.tuple(fc.record({ type: fc.constant('tool_result'), tool_use_id: id, content: text })), text) }),
    toolUseResult: fc.oneof(fc.record({ stdout: text, stderr: text, interrupted: fc.boolean() }), fc.record({ toolUseResult: text, file: fc.record({ content: text, numLines: fc.nat() }) }), text, fc.constant(null)),
    sourceToolAssistantUUID: id,
    cwd: text,
  }),
  fc.record({
    type: fc.constant('user'),
    message: fc.record({ role: fc.constant('user'), content: fc.oneof(text, fc.tuple(fc.record({ type: fc.constant('text'), text }))) }),
    uuid: fc.record({ toolUseResult: text }),
  }),
  fc.record({
    type: fc.constant('assistant'),
    message: fc.record({ id: id, content: fc.tuple(fc.oneof(fc.record({ type: fc.constant('tool_use'), id, name: fc.constantFrom('Bash', 'Read'), input: fc.record({ command: text }) }), fc.record({ type: fc.constant('text'), text }))) }),
  }),
  fc.record({ type: fc.constant('system'), subtype: fc.constantFrom('stop_hook_summary', 'turn_duration', 'other') }),
  fc.record({ type: fc.constantFrom('api-request', 'last-prompt', 'queue-operation', 'cost-state'), lastPrompt: text }),
  fc.record({ type: fc.constant('attachment'), renderedRole: fc.constantFrom('user', 'assistant'), attachment: fc.record({ type: fc.constantFrom('user', 'system'), content: text }) }),
  fc.record({ isSidechain: fc.constant(true), type: fc.constant('assistant'), message: fc.record({ content: text }) }),
);

const codexLine = fc.oneof(
  fc.record({ type: fc.constant('response_item'), payload: fc.record({ type: fc.constant('message'), role: fc.constantFrom('user', 'assistant'), content: fc.tuple(fc.record({ type: fc.constantFrom('input_text', 'output_text'), text })) }) }),
  fc.record({ type: fc.constant('response_item'), payload: fc.record({ type: fc.constant('function_call'), name: fc.constant('exec_command'), call_id: id, arguments: text.map((t) => JSON.stringify({ cmd: t })) }) }),
  fc.record({ type: fc.constant('response_item'), payload: fc.record({ type: fc.constant('function_call_output'), call_id: id, output: text }) }),
  fc.record({ type: fc.constant('function_call'), name: fc.constant('shell'), call_id: id, arguments: text.map((t) => JSON.stringify({ command: ['bash', '-lc', t] })) }),
  fc.record({ type: fc.constant('event_msg'), payload: fc.record({ type: fc.constantFrom('task_complete', 'token_count', 'task_started'), last_agent_message: text }) }),
  fc.record({ type: fc.constantFrom('token_usage_record', 'turn_context'), payload: fc.record({ note: text }) }),
);

/** A line as text: plain, spaced (`"type" : "user"`), with `\u` escapes, with a second `type` key, or broken. */
const lineText = (line: fc.Arbitrary<Record<string, unknown>>) =>
  fc.tuple(line, fc.nat(), fc.constantFrom('plain', 'spaced', 'escaped', 'second-type', 'broken'), fc.constantFrom('user', 'assistant', 'response_item', 'api-request')).map(([value, seed, how, second]) => {
    if (how === 'plain') return JSON.stringify(value);
    if (how === 'spaced') return JSON.stringify(value, null, '\t').replace(/\n/g, ' ').replace(/":/g, (seed & 1) === 1 ? '" :' : '":\t');
    if (how === 'escaped') return escapedJson(value, (i) => ((seed >> i % 30) & 1) === 1);
    if (how === 'second-type') return `${JSON.stringify(value).slice(0, -1)},"type":"${second}"}`;
    return JSON.stringify(value).slice(0, -3);
  });

describe('forward readers on random lines', () => {
  let file = 0;
  for (const [name, read, line] of [
    ['claude', claudeTranscriptBatches, claudeLine],
    ['codex', codexRolloutBatches, codexLine],
  ] as const) {
    it(`${name}: skipping unparsed changes no item, only which broken lines are counted`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(lineText(line as fc.Arbitrary<Record<string, unknown>>), { minLength: 1, maxLength: 12 }), async (lines) => {
          const path = join(dir, `${name}-${file++}.jsonl`);
          writeFileSync(path, `${lines.join('\n')}\n`);
          const all = await items(read, path, { readEveryLine: true });
          const skipping = await items(read, path);
          expect(nonDiagnostic(skipping)).toEqual(nonDiagnostic(all));
          const broken = (xs: TranscriptItem[]) => xs.filter((x) => x.kind === 'diagnostic').map((x) => Number(/^skipped (\d+)/.exec(x.diagnostic.message)?.[1] ?? 0)).reduce((a, b) => a + b, 0);
          expect(broken(skipping)).toBeLessThanOrEqual(broken(all));
          rmSync(path);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('a bookkeeping line broken inside is not counted; a cut line, garbage or a broken line that could give an item is', async () => {
    const path = join(dir, 'broken.jsonl');
    const lines = ['{"type":"api-request","x":}', '{"type":"api-request","x":', 'not json', '[1]', '{"type":"user","message":{"content":"hi"}', '{"type":"user","message":{"content":"hello"}}', ''];
    writeFileSync(path, lines.join('\n'));
    const got = await items(claudeTranscriptBatches, path);
    expect(got.map((x) => x.kind)).toEqual(['prompt', 'diagnostic']);
    expect(got[1]!.kind === 'diagnostic' && got[1]!.diagnostic.message).toMatch(/^skipped 4 unreadable lines .*line 2\)$/);
    const every = await items(claudeTranscriptBatches, path, { readEveryLine: true });
    expect(every[1]!.kind === 'diagnostic' && every[1]!.diagnostic.message).toMatch(/^skipped 5 unreadable lines .*line 1\)$/);
  });
});
