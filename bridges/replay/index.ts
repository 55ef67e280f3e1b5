/**
 * Replay: what a policy would have decided over recorded sessions. A host names session files or
 * directories of them (every agent's with a `transcripts` part: Claude Code transcripts, Codex
 * rollouts), and gets each decided event as it is made, then the summary: counts per seam, per
 * tool and per rule, and what could not be read. `dshpolicy replay` is argument parsing and
 * rendering around `replay` (cli/replay.ts).
 *
 *   const summary = await replay(policy, ['sessions/'], { onEvent: (record) => show(record) });
 *
 * Promises: files are read one after the other, forward, with memory bounded by the longest line
 * and turn; events come in file order; no command hook runs unless a `runner` is given; nothing
 * throws for a file's sake (run.ts). The parts: files.ts (which files), run.ts (the loop),
 * summary.ts (records and counts), synthetic.ts (generated sessions for tests and measurements).
 */
import type { CompiledPolicy } from '../../engine/index.js';
import { replayInputs } from './files.js';
import { replayFiles, type ReplayOptions } from './run.js';
import type { ReplaySummary } from './summary.js';

export { replayInputs, transcriptFiles } from './files.js';
export { replayFiles, REPLAY_MAX_LINE_BYTES, type ReplayOptions, type ReplayProgress } from './run.js';
export { countTotal, REPLAY_SEAMS, type FileSummary, type ReplayRecord, type ReplaySeam, type ReplaySummary, type RuleCount } from './summary.js';
export { SYNTHETIC_COMMANDS, writeSyntheticTranscript, type SyntheticOptions } from './synthetic.js';

/**
 * Replays the session files at `paths` (files, or directories searched recursively for `.jsonl`
 * files) against a compiled policy. Each decided event goes to `opts.onEvent` as it is decided
 * (awaited when it returns a promise, so a slow consumer holds the replay back rather than
 * filling memory), each problem to `opts.onDiagnostic`; the summary is the result. A path that
 * cannot be read is reported (a diagnostic, `FileSummary.error`, `failedFiles`) and the others
 * still run. Never throws for a file's sake.
 */
export function replay(policy: CompiledPolicy, paths: readonly string[], opts: ReplayOptions = {}): Promise<ReplaySummary> {
  return replayFiles(policy, replayInputs(paths), opts);
}
