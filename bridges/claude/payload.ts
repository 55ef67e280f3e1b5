/**
 * The stdin payload a Claude Code command hook receives, built from a canonical event in the exact
 * shape Claude Code (2.1.328) sends it. Identifiers a fixture cannot know (prompt and tool-use ids)
 * get fixed stand-ins (common/hook-output.ts).
 */
import type { AgentEvent, AnyEvent, PolicyEvent } from '../../engine/index.js';
import { hookEventName, OFFLINE } from '../common/hook-output.js';
import { CLAUDE_EVENT_TABLE } from './event-table.js';

/** An agent event's payload: Claude Code's common fields for the event, then the event's own fields. */
function agentEventPayload(event: AgentEvent): Record<string, unknown> {
  const info = CLAUDE_EVENT_TABLE.get(event.event);
  const p: Record<string, unknown> = { session_id: event.session ?? OFFLINE.session };
  p['transcript_path'] = event.transcript_path ?? '';
  p['cwd'] = event.cwd ?? process.cwd();
  if (!info?.noPromptId) p['prompt_id'] = OFFLINE.promptId;
  if (info?.permissionMode) p['permission_mode'] = event.permission_mode ?? 'default';
  if (info?.effort) p['effort'] = { level: OFFLINE.effort };
  p['hook_event_name'] = event.event;
  for (const [k, v] of Object.entries(event.fields)) if (!(k in p)) p[k] = v;
  return p;
}

function claudeToolResponse(event: Extract<PolicyEvent, { seam: 'post-tool' }>): unknown {
  if (event.response !== undefined) return event.response;
  return { stdout: event.output ?? '', stderr: '', interrupted: false, isImage: false, noOutputExpected: false };
}

function seamPayload(event: PolicyEvent): Record<string, unknown> {
  const p: Record<string, unknown> = {
    session_id: event.session ?? OFFLINE.session,
    transcript_path: event.transcript_path ?? '',
    cwd: event.cwd ?? process.cwd(),
  };
  if (event.seam === 'session-start') {
    p['hook_event_name'] = 'SessionStart';
    p['source'] = event.source;
    return p;
  }
  p['prompt_id'] = OFFLINE.promptId;
  p['permission_mode'] = event.permission_mode ?? 'default';
  if (event.seam !== 'prompt') p['effort'] = { level: OFFLINE.effort };
  p['hook_event_name'] = hookEventName(event);
  switch (event.seam) {
    case 'prompt':
      p['prompt'] = event.prompt;
      break;
    case 'pre-tool':
    case 'post-tool':
      p['tool_name'] = event.tool;
      p['tool_input'] = event.input;
      p['tool_use_id'] = OFFLINE.toolUseId;
      if (event.seam === 'post-tool') {
        p['tool_response'] = claudeToolResponse(event);
        p['duration_ms'] = 0;
      }
      break;
    case 'stop':
      p['stop_hook_active'] = event.stop_hook_active;
      p['last_assistant_message'] = event.last_message ?? '';
      p['background_tasks'] = [];
      p['session_crons'] = [];
      break;
  }
  return p;
}

export function claudePayload(event: AnyEvent): Record<string, unknown> {
  return event.seam === 'agent-event' ? agentEventPayload(event) : seamPayload(event);
}

/** The exact bytes written to the hook's stdin: compact JSON ended with a newline. */
export function claudePayloadText(event: AnyEvent): string {
  return `${JSON.stringify(claudePayload(event))}\n`;
}
