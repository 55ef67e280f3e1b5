/**
 * What Claude Code knows about each hook event, as far as loading a configuration needs it: which
 * names exist, which events look at a group's `matcher`, where a handler's `if` is evaluated and
 * which handler types an event runs.
 */

/** The events of Claude Code's hooks reference, in its lifecycle order. */
export const CLAUDE_EVENTS: readonly string[] = [
  'SessionStart', 'Setup', 'UserPromptSubmit', 'UserPromptExpansion', 'PreToolUse', 'PermissionRequest',
  'PermissionDenied', 'PostToolUse', 'PostToolUseFailure', 'PostToolBatch', 'Notification', 'MessageDisplay',
  'SubagentStart', 'SubagentStop', 'TaskCreated', 'TaskCompleted', 'Stop', 'StopFailure', 'TeammateIdle',
  'InstructionsLoaded', 'ConfigChange', 'CwdChanged', 'DirectoryAdded', 'FileChanged', 'WorktreeCreate',
  'WorktreeRemove', 'PreCompact', 'PostCompact', 'Elicitation', 'ElicitationResult', 'SessionEnd',
];

/** Events that only the newer Agent SDK types list; accepted, but little is known about them. */
export const CLAUDE_SDK_ONLY_EVENTS: readonly string[] = ['PreModelSwitch', 'PostModelSwitch', 'PreSkillShellCommand'];

const KNOWN = new Set([...CLAUDE_EVENTS, ...CLAUDE_SDK_ONLY_EVENTS]);

export function isClaudeEvent(name: string): boolean {
  return KNOWN.has(name);
}

/** Events that have no matcher field: a `matcher` there is ignored and the group always fires. */
export const NO_MATCHER_EVENTS: ReadonlySet<string> = new Set([
  'UserPromptSubmit', 'PostToolBatch', 'Stop', 'TeammateIdle', 'TaskCreated', 'TaskCompleted',
  'WorktreeCreate', 'WorktreeRemove', 'MessageDisplay', 'CwdChanged',
]);

/** Events whose matcher is tested against a tool name, and the only events where `if` is evaluated. */
export const TOOL_EVENTS: ReadonlySet<string> = new Set([
  'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionDenied',
]);

export const HANDLER_TYPES: readonly string[] = ['command', 'http', 'prompt', 'agent', 'mcp_tool'];

/** Events that run all five handler types; SessionStart and Setup run command and mcp_tool only. */
const ALL_TYPES_EVENTS = new Set([
  'PermissionDenied', 'PermissionRequest', 'PostToolBatch', 'PostToolUse', 'PostToolUseFailure', 'PreToolUse',
  'Stop', 'SubagentStop', 'TaskCompleted', 'TaskCreated', 'TeammateIdle', 'UserPromptExpansion', 'UserPromptSubmit',
]);
const COMMAND_AND_MCP_EVENTS = new Set(['SessionStart', 'Setup']);

/** The handler types Claude Code runs on `event` (every type for the SDK-only events: not documented). */
export function allowedHandlerTypes(event: string): readonly string[] {
  if (ALL_TYPES_EVENTS.has(event) || CLAUDE_SDK_ONLY_EVENTS.includes(event)) return HANDLER_TYPES;
  if (COMMAND_AND_MCP_EVENTS.has(event)) return ['command', 'mcp_tool'];
  return ['command', 'http', 'mcp_tool'];
}

/** Edit distance, for "did you mean" help on misspelt event names. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The known name closest to `name` (same letters in another case, or a small typo), if any. */
export function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase) return sameCase;
  let best: string | undefined;
  let bestD = Math.max(1, Math.min(3, Math.floor(name.length / 4)));
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d <= bestD) {
      best = k;
      bestD = d - 1;
    }
  }
  return best;
}
