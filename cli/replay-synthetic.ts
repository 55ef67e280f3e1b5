/**
 * An in-process throughput measure of the bridges' `replayFiles` on a synthetic session file
 * (`writeSyntheticTranscript`, bridges/replay/synthetic.ts), for tests. (The benchmark,
 * bench/replay.ts, runs the built CLI on its own generated sessions instead.)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles, writeSyntheticTranscript, type SyntheticOptions, type TranscriptAgent } from '../bridges/index.js';
import { loadPolicies } from './policy.js';
import { summarize } from './render.js';

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
 * Replay throughput on a synthetic session file: writes one (default: the first agent's format,
 * 20,000 turns of 2 calls, ~50 MB) to a temp directory, replays it against THROUGHPUT_POLICY (or
 * `policy`, a .dshpolicy source text), and removes it.
 */
export async function measureReplayThroughput(opts: Partial<SyntheticOptions> & { policy?: string } = {}): Promise<ThroughputResult> {
  const dir = await mkdtemp(join(tmpdir(), 'dshpolicy-replay-bench-'));
  try {
    const file = join(dir, 'session.jsonl');
    const synthetic: SyntheticOptions = { turns: opts.turns ?? 20_000 };
    if (opts.agent !== undefined) synthetic.agent = opts.agent;
    if (opts.callsPerTurn !== undefined) synthetic.callsPerTurn = opts.callsPerTurn;
    if (opts.outputBytes !== undefined) synthetic.outputBytes = opts.outputBytes;
    const written = writeSyntheticTranscript(file, synthetic);
    const policyFile = join(dir, 'bench.dshpolicy');
    await writeFile(policyFile, opts.policy ?? THROUGHPUT_POLICY);
    const loaded = loadPolicies([policyFile]);
    if (!loaded.policy) throw new Error(`the throughput policy does not compile: ${summarize(loaded.diagnostics)}`);
    const summary = await replayFiles(loaded.policy, [file]);
    return {
      agent: written.agent,
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
