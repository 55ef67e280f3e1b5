/**
 * The lines of a synthetic Claude Code transcript (the `SyntheticLines` of ../common/transcript.ts),
 * for tests and measurements: per turn a prompt, one assistant `tool_use` line and one user
 * `tool_result` line per Bash call, and a final assistant text that ends the turn. Every line
 * carries the session id and working directory, as Claude Code's do; the reader turns each turn
 * into a prompt, a pre-tool and a post-tool event per call, and a stop.
 */
import type { SyntheticLines } from '../common/transcript.js';

export const claudeSyntheticLines: SyntheticLines = {
  start: () => [],
  turn({ index: t, prompt, calls, lastMessage }, { session, cwd }) {
    const lines: unknown[] = [{ type: 'user', isSidechain: false, message: { role: 'user', content: prompt }, cwd, sessionId: session, permissionMode: 'default' }];
    calls.forEach(({ id, command, output }, c) => {
      lines.push(
        { type: 'assistant', isSidechain: false, message: { id: `msg_${t}_${c}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }], stop_reason: 'tool_use' }, cwd, sessionId: session },
        { type: 'user', isSidechain: false, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: false }] }, toolUseResult: { stdout: output }, cwd, sessionId: session },
      );
    });
    lines.push({ type: 'assistant', isSidechain: false, message: { id: `msg_${t}_end`, role: 'assistant', content: [{ type: 'text', text: lastMessage }], stop_reason: 'end_turn' }, cwd, sessionId: session });
    return lines;
  },
};
