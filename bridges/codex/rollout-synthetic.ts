/**
 * The lines of a synthetic Codex rollout (the `SyntheticLines` of ../common/transcript.ts), for
 * tests and measurements: a `session_meta` line, then per turn `task_started`, the user's message
 * (with user provenance), an `exec_command` function call and its output per Bash call, the final
 * assistant message and `task_complete`. The reader turns each turn into a prompt, a pre-tool and
 * a post-tool event per call, and a stop.
 */
import type { SyntheticLines } from '../common/transcript.js';

export const codexSyntheticLines: SyntheticLines = {
  start: ({ session, cwd }) => [{ timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: session, cwd, cli_version: 'synthetic' } }],
  turn({ index: t, prompt, calls, lastMessage }) {
    const lines: unknown[] = [
      { type: 'event_msg', payload: { type: 'task_started', turn_id: `t${t}` } },
      {
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }], internal_chat_message_metadata_passthrough: { content_item_metadata: [{ provenance: { type: 'user' } }] } },
      },
    ];
    for (const { id, command, output } of calls) {
      lines.push(
        { type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command }), call_id: id } },
        { type: 'response_item', payload: { type: 'function_call_output', call_id: id, output } },
      );
    }
    lines.push(
      { type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: lastMessage }] } },
      { type: 'event_msg', payload: { type: 'task_complete', turn_id: `t${t}`, last_agent_message: lastMessage } },
    );
    return lines;
  },
};
