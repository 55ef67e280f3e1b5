/**
 * Synthetic session files, for tests and measurements of replay: any agent's format whose
 * transcripts part has `synthetic` lines, written in ~1 MiB appends so that the whole file is
 * never in memory. Every turn is a prompt, Bash calls cycling through SYNTHETIC_COMMANDS with
 * outputs of a given size, and a final message; the result says how many events a replay of the
 * file makes.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { agentsWith } from '../agents.js';
import type { SyntheticSession } from '../common/transcript.js';
import type { TranscriptAgent } from '../transcript-head.js';

export interface SyntheticOptions {
  /** The agent whose format to write (default: the first in the registry with synthetic lines). */
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
 * Writes a session file of the agent's format with `turns` turns, in ~1 MiB appends (the whole
 * file is never in memory). The Bash commands cycle through SYNTHETIC_COMMANDS (`npm test`, `git
 * status`, `cat src/index.ts`, `rm -rf build`, `git push origin main`, `ls -la`, `npm run lint --
 * --fix`). Returns the agent, the bytes written and the events a replay of it makes. Throws when
 * the agent has no synthetic lines (a test's mistake) or the file cannot be written.
 */
export function writeSyntheticTranscript(path: string, opts: SyntheticOptions): { agent: TranscriptAgent; bytes: number; events: number } {
  const writers = agentsWith('transcripts').filter((a) => a.transcripts.synthetic !== undefined);
  const agent = opts.agent === undefined ? writers[0] : writers.find((a) => a.name === opts.agent);
  const lines = agent?.transcripts.synthetic;
  if (agent === undefined || lines === undefined) throw new Error(`no synthetic session files for agent \`${opts.agent ?? ''}\``);
  const calls = opts.callsPerTurn ?? 2;
  const pad = 'x'.repeat(opts.outputBytes ?? 512);
  const session: SyntheticSession = { session: '00000000-0000-4000-8000-000000000000', cwd: '/tmp/replay-project' };
  const fd = openSync(path, 'w');
  let bytes = 0;
  let chunk: string[] = [];
  let size = 0;
  let k = 0;
  const push = (values: unknown[]) => {
    for (const value of values) {
      const text = `${JSON.stringify(value)}\n`;
      chunk.push(text);
      size += text.length;
      if (size >= 1024 * 1024) flush();
    }
  };
  const flush = () => {
    const text = chunk.join('');
    bytes += writeSync(fd, text);
    chunk = [];
    size = 0;
  };
  try {
    push(lines.start(session));
    for (let t = 0; t < opts.turns; t++) {
      const turnCalls: { id: string; command: string; output: string }[] = [];
      for (let c = 0; c < calls; c++) {
        const command = SYNTHETIC_COMMANDS[k++ % SYNTHETIC_COMMANDS.length]!;
        turnCalls.push({ id: `call_${t}_${c}`, command, output: `${command}: ${pad}` });
      }
      push(lines.turn({ index: t, prompt: `task ${t}`, calls: turnCalls, lastMessage: `Done with task ${t}.` }, session));
    }
    flush();
  } finally {
    closeSync(fd);
  }
  // prompt + (pre + post) per call + stop
  return { agent: agent.name, bytes, events: opts.turns * (2 + 2 * calls) };
}
