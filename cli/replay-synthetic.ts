/**
 * Synthetic transcripts and an in-process throughput measure of `replayFiles`, for tests. (The
 * benchmark, bench/replay.ts, runs the built CLI on its own generated sessions instead.)
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicies } from './policy.js';
import { summarize } from './render.js';
import { replayFiles, type TranscriptAgent } from './replay.js';

export interface SyntheticOptions {
  agent?: TranscriptAgent;
  /** Prompts, each followed by its calls, their results and a final message. */
  turns: number;
  /** Tool calls per turn (default 2). */
  callsPerTurn?: number;
  /** Bytes of output per tool result (default 512). */
  outputBytes?: number;
}

export const SYNTHETIC_COMMANDS = ['npm test', 'git status', 'cat src/index.ts', 'rm -rf build', 'git push origin main', 'ls -la', 'npm run lint -- --fix'];

/**
 * Writes a transcript of the agent's format with `turns` turns, in ~1 MiB appends (the whole file is
 * never in memory). The Bash commands cycle through SYNTHETIC_COMMANDS (`npm test`, `git status`,
 * `cat src/index.ts`, `rm -rf build`, `git push origin main`, `ls -la`, `npm run lint -- --fix`).
 * Returns the bytes written and the events a replay of it makes.
 */
export function writeSyntheticTranscript(path: string, opts: SyntheticOptions): { bytes: number; events: number } {
  const agent = opts.agent ?? 'claude';
  const calls = opts.callsPerTurn ?? 2;
  const pad = 'x'.repeat(opts.outputBytes ?? 512);
  const session = '00000000-0000-4000-8000-000000000000';
  const cwd = '/tmp/replay-project';
  const fd = openSync(path, 'w');
  let bytes = 0;
  let chunk: string[] = [];
  let size = 0;
  let k = 0;
  const push = (value: unknown) => {
    const text = `${JSON.stringify(value)}\n`;
    chunk.push(text);
    size += text.length;
    if (size >= 1024 * 1024) flush();
  };
  const flush = () => {
    const text = chunk.join('');
    bytes += writeSync(fd, text);
    chunk = [];
    size = 0;
  };
  try {
    if (agent === 'codex') push({ timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: session, cwd, cli_version: 'synthetic' } });
    for (let t = 0; t < opts.turns; t++) {
      const prompt = `task ${t}`;
      if (agent === 'claude') {
        push({ type: 'user', isSidechain: false, message: { role: 'user', content: prompt }, cwd, sessionId: session, permissionMode: 'default' });
      } else {
        push({ type: 'event_msg', payload: { type: 'task_started', turn_id: `t${t}` } });
        push({
          type: 'response_item',
          payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }], internal_chat_message_metadata_passthrough: { content_item_metadata: [{ provenance: { type: 'user' } }] } },
        });
      }
      for (let c = 0; c < calls; c++) {
        const command = SYNTHETIC_COMMANDS[k++ % SYNTHETIC_COMMANDS.length]!;
        const id = `call_${t}_${c}`;
        const output = `${command}: ${pad}`;
        if (agent === 'claude') {
          push({ type: 'assistant', isSidechain: false, message: { id: `msg_${t}_${c}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }], stop_reason: 'tool_use' }, cwd, sessionId: session });
          push({ type: 'user', isSidechain: false, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: false }] }, toolUseResult: { stdout: output }, cwd, sessionId: session });
        } else {
          push({ type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command }), call_id: id } });
          push({ type: 'response_item', payload: { type: 'function_call_output', call_id: id, output } });
        }
      }
      const last = `Done with task ${t}.`;
      if (agent === 'claude') {
        push({ type: 'assistant', isSidechain: false, message: { id: `msg_${t}_end`, role: 'assistant', content: [{ type: 'text', text: last }], stop_reason: 'end_turn' }, cwd, sessionId: session });
      } else {
        push({ type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: last }] } });
        push({ type: 'event_msg', payload: { type: 'task_complete', turn_id: `t${t}`, last_agent_message: last } });
      }
    }
    flush();
  } finally {
    closeSync(fd);
  }
  // prompt + (pre + post) per call + stop
  return { bytes, events: opts.turns * (2 + 2 * calls) };
}

/** A small policy with rules on every seam, for throughput measurements. */
export const THROUGHPUT_POLICY = `on pre-tool {
  deny Bash command "rm -rf *" because "no recursive deletes"
  ask Bash command "git push *" because "pushing needs a human"
  allow Bash command "npm test", "git status", "ls *"
  deny Read, Write path "**/.env" because "secrets stay out"
}
on post-tool {
  block Bash when output matches /npm ERR!/ because "the install failed"
}
on prompt {
  block when prompt contains "BEGIN PRIVATE KEY" because "no keys"
}
on stop {
  continue when not ran Bash command "npm test *" because "run the tests"
  limit 3
}
`;

export interface ThroughputResult {
  agent: TranscriptAgent;
  events: number;
  bytes: number;
  seconds: number;
  eventsPerSecond: number;
  bytesPerSecond: number;
}

/**
 * Replay throughput on a synthetic transcript: writes one (default 20,000 turns of 2 calls, ~50
 * MB for Claude Code) to a temp directory, replays it against THROUGHPUT_POLICY (or `policy`, a
 * .dshpolicy source text), and removes it. For `bench/`.
 */
export async function measureReplayThroughput(opts: Partial<SyntheticOptions> & { policy?: string } = {}): Promise<ThroughputResult> {
  const dir = await mkdtemp(join(tmpdir(), 'dshpolicy-replay-bench-'));
  try {
    const agent = opts.agent ?? 'claude';
    const file = join(dir, `${agent}.jsonl`);
    const synthetic: SyntheticOptions = { agent, turns: opts.turns ?? 20_000 };
    if (opts.callsPerTurn !== undefined) synthetic.callsPerTurn = opts.callsPerTurn;
    if (opts.outputBytes !== undefined) synthetic.outputBytes = opts.outputBytes;
    const written = writeSyntheticTranscript(file, synthetic);
    const policyFile = join(dir, 'bench.dshpolicy');
    await writeFile(policyFile, opts.policy ?? THROUGHPUT_POLICY);
    const loaded = loadPolicies([policyFile]);
    if (!loaded.policy) throw new Error(`the throughput policy does not compile: ${summarize(loaded.diagnostics)}`);
    const summary = await replayFiles(loaded.policy, [file]);
    return {
      agent,
      events: summary.events,
      bytes: written.bytes,
      seconds: summary.seconds,
      eventsPerSecond: summary.eventsPerSecond,
      bytesPerSecond: summary.seconds > 0 ? Math.round(written.bytes / summary.seconds) : 0,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
