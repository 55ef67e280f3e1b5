/**
 * Codex's reading of a file's first lines (the `HeadReader` of ../common/transcript.ts): a
 * `{type: session_meta|response_item|event_msg|turn_context|compacted, payload: {...}}` line is
 * Codex's for sure; a bare item (what older rollouts wrote without the wrapper) or an older
 * rollout's first line (`id` and `instructions`, no `type`) may be. The session id comes from
 * `session_meta` (or that first line), the working directory from `session_meta` or
 * `turn_context`. Complete once both are found. Rollouts have no sidechains.
 */
import { isObject, type HeadReader, type HeadVerdict, type SessionFacts } from '../common/transcript.js';

const LINE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** Items older rollouts wrote bare, without the `response_item` wrapper. */
const BARE_ITEMS = new Set(['message', 'function_call', 'custom_tool_call', 'local_shell_call', 'function_call_output', 'custom_tool_call_output', 'reasoning']);

export function codexHeadReader(): HeadReader {
  let session: string | undefined;
  let cwd: string | undefined;
  return {
    line(value: Record<string, unknown>): HeadVerdict {
      const type = value['type'];
      const payload = value['payload'];
      if (typeof type === 'string' && LINE_TYPES.has(type) && isObject(payload)) {
        if (type === 'session_meta' || type === 'turn_context') {
          const id = payload['id'] ?? payload['session_id'];
          if (session === undefined && typeof id === 'string' && type === 'session_meta') session = id;
          if (cwd === undefined && typeof payload['cwd'] === 'string') cwd = payload['cwd'];
        }
        return 'sure';
      }
      if (typeof type === 'string' && BARE_ITEMS.has(type) && payload === undefined && value['message'] === undefined) return 'maybe';
      if (type === undefined && typeof value['id'] === 'string' && 'instructions' in value) {
        session ??= value['id'];
        return 'maybe';
      }
      return undefined;
    },
    facts(): SessionFacts {
      const facts: SessionFacts = { sidechain: false };
      if (session !== undefined) facts.session = session;
      if (cwd !== undefined) facts.cwd = cwd;
      return facts;
    },
    complete: () => session !== undefined && cwd !== undefined,
  };
}
