/**
 * The stdin payload a command hook receives, built from a canonical event in the shape the
 * dialect's agent sends.
 */
import type { PolicyEvent } from '../events.js';
import type { HookDialect } from '../ir.js';

const CLAUDE_EVENT: Record<PolicyEvent['seam'], string> = {
  'pre-tool': 'PreToolUse',
  'post-tool': 'PostToolUse',
  prompt: 'UserPromptSubmit',
  stop: 'Stop',
  'session-start': 'SessionStart',
};

export function hookEventName(event: PolicyEvent): string {
  return CLAUDE_EVENT[event.seam];
}

export function buildPayload(event: PolicyEvent, dialect: HookDialect): Record<string, unknown> {
  const p: Record<string, unknown> = {
    session_id: event.session ?? '00000000-0000-0000-0000-000000000000',
    transcript_path: event.transcript_path ?? '',
    cwd: event.cwd ?? process.cwd(),
    hook_event_name: hookEventName(event),
  };
  if (event.permission_mode !== undefined) p['permission_mode'] = event.permission_mode;
  else if (event.seam !== 'session-start') p['permission_mode'] = 'default';
  switch (event.seam) {
    case 'pre-tool':
      p['tool_name'] = event.tool;
      p['tool_input'] = event.input;
      break;
    case 'post-tool':
      p['tool_name'] = event.tool;
      p['tool_input'] = event.input;
      p['tool_response'] = event.response ?? (event.output !== undefined ? { stdout: event.output, stderr: '' } : {});
      break;
    case 'prompt':
      p['prompt'] = event.prompt;
      break;
    case 'stop':
      p['stop_hook_active'] = event.stop_hook_active;
      if (event.last_message !== undefined) p[dialect === 'claude' ? 'last_assistant_message' : 'last_assistant_message'] = event.last_message;
      break;
    case 'session-start':
      p['source'] = event.source;
      break;
  }
  return p;
}

/** The exact bytes written to the hook's stdin: compact JSON; Claude Code ends it with a newline. */
export function payloadText(event: PolicyEvent, dialect: HookDialect): string {
  const json = JSON.stringify(buildPayload(event, dialect));
  return dialect === 'claude' ? `${json}\n` : json;
}
