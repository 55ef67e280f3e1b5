/**
 * The stdin payload a command hook receives, built from a canonical event in the exact shape its
 * agent sends: Claude Code's fields (as 2.1.328 sends them) or Codex's (0.171.0: `turn_id` and
 * `model`, `permission_mode` only `default` or `bypassPermissions`, nullable paths and messages).
 * Identifiers a fixture cannot know (prompt, turn and tool-use ids) get fixed stand-ins.
 */
import type { AgentEvent, AnyEvent, PolicyEvent } from '../events.js';
import type { HookDialect } from '../ir.js';
import { agentEventInfo } from '../agent-events.js';

const EVENT_NAME: Record<PolicyEvent['seam'], string> = {
  'pre-tool': 'PreToolUse',
  'post-tool': 'PostToolUse',
  prompt: 'UserPromptSubmit',
  stop: 'Stop',
  'session-start': 'SessionStart',
};

/** Stand-ins for values only a live session has. */
export const OFFLINE = {
  session: '00000000-0000-4000-8000-000000000000',
  promptId: '00000000-0000-4000-8000-000000000001',
  turnId: '00000000-0000-4000-8000-000000000002',
  toolUseId: 'toolu_offline_0001',
  effort: 'medium',
  codexModel: 'gpt-5.5',
} as const;

export function hookEventName(event: AnyEvent): string {
  return event.seam === 'agent-event' ? event.event : EVENT_NAME[event.seam];
}

/** An agent event's payload: the agent's common fields for the event, then the event's own fields. */
function agentEventPayload(event: AgentEvent, dialect: HookDialect): Record<string, unknown> {
  const info = agentEventInfo(dialect, event.event);
  const p: Record<string, unknown> = { session_id: event.session ?? OFFLINE.session };
  if (dialect === 'claude') {
    p['transcript_path'] = event.transcript_path ?? '';
    p['cwd'] = event.cwd ?? process.cwd();
    if (!info?.noPromptId) p['prompt_id'] = OFFLINE.promptId;
    if (info?.permissionMode) p['permission_mode'] = event.permission_mode ?? 'default';
    if (info?.effort) p['effort'] = { level: OFFLINE.effort };
    p['hook_event_name'] = event.event;
  } else {
    if (info?.turnId) p['turn_id'] = OFFLINE.turnId;
    p['transcript_path'] = event.transcript_path ?? null;
    p['cwd'] = event.cwd ?? process.cwd();
    p['hook_event_name'] = event.event;
    if (!info?.noModel) p['model'] = OFFLINE.codexModel;
    if (info?.permissionMode) p['permission_mode'] = event.permission_mode === 'bypassPermissions' ? 'bypassPermissions' : 'default';
  }
  for (const [k, v] of Object.entries(event.fields)) if (!(k in p)) p[k] = v;
  return p;
}

function claudeToolResponse(event: Extract<PolicyEvent, { seam: 'post-tool' }>): unknown {
  if (event.response !== undefined) return event.response;
  return { stdout: event.output ?? '', stderr: '', interrupted: false, isImage: false, noOutputExpected: false };
}

function claudePayload(event: PolicyEvent): Record<string, unknown> {
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

function codexPayload(event: PolicyEvent): Record<string, unknown> {
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

export function buildPayload(event: AnyEvent, dialect: HookDialect): Record<string, unknown> {
  if (event.seam === 'agent-event') return agentEventPayload(event, dialect);
  return dialect === 'claude' ? claudePayload(event) : codexPayload(event);
}

/** The exact bytes written to the hook's stdin: compact JSON; Claude Code ends it with a newline. */
export function payloadText(event: AnyEvent, dialect: HookDialect): string {
  const json = JSON.stringify(buildPayload(event, dialect));
  return dialect === 'claude' ? `${json}\n` : json;
}
