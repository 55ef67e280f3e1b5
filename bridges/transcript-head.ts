/**
 * Which agent wrote a session file, and what its first lines say about the session: read from
 * the head of the file only (at most 4 MiB).
 */
import { open } from 'node:fs/promises';
import { isObject, parseLine, readLinesForward } from './common/transcript.js';

export type TranscriptAgent = 'claude' | 'codex';

const SNIFF_BYTES = 4 * 1024 * 1024;
const SNIFF_LINES = 2000;

export interface TranscriptHead {
  /** The format the head says, when it says one. */
  agent?: TranscriptAgent;
  session?: string;
  cwd?: string;
  permissionMode?: string;
  /** Claude Code: every user/assistant line seen is a sidechain (a subagent's transcript). */
  sidechain: boolean;
  /** No readable JSON object in the head. */
  empty: boolean;
}

const CODEX_LINE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** Items older rollouts wrote bare, without the `response_item` wrapper. */
const CODEX_BARE_ITEMS = new Set(['message', 'function_call', 'custom_tool_call', 'local_shell_call', 'function_call_output', 'custom_tool_call_output', 'reasoning']);

/**
 * Reads the head of a file (at most 4 MiB) for its format, session id, working directory and
 * permission mode. Claude Code lines are `type: user|assistant` with a `message` (other lines carry
 * `sessionId`); Codex lines are `{type: session_meta|response_item|event_msg|..., payload}` (older
 * rollouts: bare items, and a first line with `id` and `instructions`). Throws when the file
 * cannot be opened.
 */
export async function readTranscriptHead(path: string): Promise<TranscriptHead> {
  const head: TranscriptHead = { sidechain: false, empty: true };
  let weak: TranscriptAgent | undefined;
  let sawMain = false;
  let sawSidechain = false;
  const handle = await open(path, 'r');
  try {
    let lines = 0;
    for await (const raw of readLinesForward(handle, SNIFF_BYTES)) {
      if (++lines > SNIFF_LINES || raw.offset > SNIFF_BYTES) break;
      const value = raw.oversized === true ? null : parseLine(raw.text);
      if (value === undefined || value === null) continue;
      head.empty = false;
      const type = value['type'];
      const payload = value['payload'];
      if (typeof type === 'string' && CODEX_LINE_TYPES.has(type) && isObject(payload)) {
        head.agent ??= 'codex';
        if (type === 'session_meta' || type === 'turn_context') {
          const id = payload['id'] ?? payload['session_id'];
          if (head.session === undefined && typeof id === 'string' && type === 'session_meta') head.session = id;
          if (head.cwd === undefined && typeof payload['cwd'] === 'string') head.cwd = payload['cwd'];
        }
      } else if ((type === 'user' || type === 'assistant') && isObject(value['message'])) {
        head.agent ??= 'claude';
        if (value['isSidechain'] === true) sawSidechain = true;
        else sawMain = true;
        if (head.permissionMode === undefined && typeof value['permissionMode'] === 'string') head.permissionMode = value['permissionMode'];
      } else if (typeof type === 'string' && CODEX_BARE_ITEMS.has(type) && payload === undefined && value['message'] === undefined) {
        weak ??= 'codex';
      } else if (type === undefined && typeof value['id'] === 'string' && 'instructions' in value) {
        weak ??= 'codex';
        if (head.session === undefined) head.session = value['id'];
      } else if (typeof value['sessionId'] === 'string') {
        weak ??= 'claude';
      }
      if (head.agent !== 'codex') {
        if (head.session === undefined && typeof value['sessionId'] === 'string') head.session = value['sessionId'];
        if (head.cwd === undefined && typeof value['cwd'] === 'string' && value['cwd'] !== '') head.cwd = value['cwd'];
      }
      if (head.agent !== undefined && head.session !== undefined && head.cwd !== undefined && (head.agent === 'codex' || sawMain)) break;
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  head.agent ??= weak;
  head.sidechain = head.agent === 'claude' && sawSidechain && !sawMain;
  return head;
}
