/**
 * The stdin payload a Codex command hook receives, built from a canonical event in the exact shape
 * Codex (0.171.0) sends it: `turn_id` and `model`, `permission_mode` only `default` or
 * `bypassPermissions`, nullable paths and messages. Identifiers a fixture cannot know get fixed
 * stand-ins (common/hook-output.ts).
 */
import type { AgentEvent, AnyEvent, PolicyEvent } from '../../engine/index.js';
import { hookEventName, OFFLINE } from '../common/hook-output.js';
import { CODEX_EVENT_TABLE } from './event-table.js';

/** An agent event's payload: Codex's common fields for the event, then the event's own fields. */
function agentEventPayload(event: AgentEvent): Record<string, unknown> {
  const info = CODEX_EVENT_TABLE.get(event.event);
  const p: Record<string, unknown> = { session_id: event.session ?? OFFLINE.session };
  if (info?.turnId) p['turn_id'] = OFFLINE.turnId;
  p['transcript_path'] = event.transcript_path ?? null;
  p['cwd'] = event.cwd ?? process.cwd();
  p['hook_event_name'] = event.event;
  if (!info?.noModel) p['model'] = OFFLINE.codexModel;
  if (info?.permissionMode) p['permission_mode'] = event.permission_mode === 'bypassPermissions' ? 'bypassPermissions' : 'default';
  for (const [k, v] of Object.entries(event.fields)) if (!(k in p)) p[k] = v;
  return p;
}

function seamPayload(event: PolicyEvent): Record<string, unknown> {
  const p: Record<string, unknown> = { session_id: event.session ?? OFFLINE.session };
  if (event.seam !== 'session-start') p['turn_id'] = OFFLINE.turnId;
  p['transcript_path'] = event.transcript_path ?? null;
  p['cwd'] = event.cwd ?? process.cwd();
  p['hook_event_name'] = hookEventName(event);
  p['model'] = OFFLINE.codexModel;
  // Codex reports only these two modes: `never` approval is bypassPermissions, all else default.
  p['permission_mode'] = event.permission_mode === 'bypassPermissions' ? 'bypassPermissions' : 'default';
  switch (event.seam) {
    case 'session-start':
      p['source'] = event.source;
      break;
    case 'prompt':
      p['prompt'] = event.prompt;
      break;
    case 'pre-tool':
      p['tool_name'] = event.tool;
      p['tool_input'] = event.input;
      p['tool_use_id'] = OFFLINE.toolUseId;
      break;
    case 'post-tool':
      p['tool_name'] = event.tool;
      p['tool_input'] = event.input;
      p['tool_response'] = event.response ?? event.output ?? null;
      p['tool_use_id'] = OFFLINE.toolUseId;
      break;
    case 'stop':
      p['stop_hook_active'] = event.stop_hook_active;
      p['last_assistant_message'] = event.last_message ?? null;
      break;
  }
  return p;
}

export function codexPayload(event: AnyEvent): Record<string, unknown> {
  return event.seam === 'agent-event' ? agentEventPayload(event) : seamPayload(event);
}

/** The exact bytes written to the hook's stdin: compact JSON, no newline. */
export function codexPayloadText(event: AnyEvent): string {
  return JSON.stringify(codexPayload(event));
}
