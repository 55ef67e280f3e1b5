/**
 * The hook events Codex knows, across its releases, and how each one treats a matcher.
 */

export type CodexEra = 'five' | 'eight' | 'ten' | 'later';

export interface CodexEventInfo {
  name: string;
  /** The label in trust keys and hashes (`pre_tool_use`). */
  label: string;
  /** The first family of releases that reads the event. */
  era: CodexEra;
  /** What the matcher is tested against; undefined when Codex ignores the matcher. */
  matcherInput?: string;
  /** The values the matcher input can take, when that set is closed. */
  matcherValues?: readonly string[];
}

const TOOL = 'the tool name';

export const CODEX_EVENTS: readonly CodexEventInfo[] = [
  { name: 'SessionStart', label: 'session_start', era: 'five', matcherInput: 'the session source', matcherValues: ['startup', 'resume', 'clear', 'compact'] },
  { name: 'UserPromptSubmit', label: 'user_prompt_submit', era: 'five' },
  { name: 'PreToolUse', label: 'pre_tool_use', era: 'five', matcherInput: TOOL },
  { name: 'PostToolUse', label: 'post_tool_use', era: 'five', matcherInput: TOOL },
  { name: 'Stop', label: 'stop', era: 'five' },
  { name: 'PermissionRequest', label: 'permission_request', era: 'eight', matcherInput: TOOL },
  { name: 'PreCompact', label: 'pre_compact', era: 'eight', matcherInput: 'the compaction trigger', matcherValues: ['manual', 'auto'] },
  { name: 'PostCompact', label: 'post_compact', era: 'eight', matcherInput: 'the compaction trigger', matcherValues: ['manual', 'auto'] },
  { name: 'SubagentStart', label: 'subagent_start', era: 'ten', matcherInput: 'the agent type' },
  { name: 'SubagentStop', label: 'subagent_stop', era: 'ten', matcherInput: 'the agent type' },
  { name: 'SessionEnd', label: 'session_end', era: 'later', matcherInput: 'the end reason' },
  { name: 'StopFailure', label: 'stop_failure', era: 'later', matcherInput: 'the error' },
  { name: 'Interrupt', label: 'interrupt', era: 'later', matcherInput: 'the interrupt' },
];

const BY_NAME = new Map(CODEX_EVENTS.map((e) => [e.name, e]));

export function codexEvent(name: string): CodexEventInfo | undefined {
  return BY_NAME.get(name);
}

/** Claude Code events Codex has no hook for (Codex's own names are excluded). */
export const CLAUDE_ONLY_EVENTS: ReadonlySet<string> = new Set([
  'Setup',
  'UserPromptExpansion',
  'PermissionDenied',
  'PostToolUseFailure',
  'PostToolBatch',
  'Notification',
  'MessageDisplay',
  'TaskCreated',
  'TaskCompleted',
  'TeammateIdle',
  'InstructionsLoaded',
  'ConfigChange',
  'CwdChanged',
  'DirectoryAdded',
  'FileChanged',
  'WorktreeCreate',
  'WorktreeRemove',
  'Elicitation',
  'ElicitationResult',
  'PreModelSwitch',
  'PostModelSwitch',
  'PreSkillShellCommand',
]);

/** Tool names Claude Code uses that Codex never reports to a hook. */
export const CLAUDE_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'Read',
  'Grep',
  'Glob',
  'LS',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'WebFetch',
  'WebSearch',
  'Task',
  'TodoWrite',
  'BashOutput',
  'KillShell',
  'KillBash',
  'ExitPlanMode',
  'SlashCommand',
  'Skill',
  'PowerShell',
  'AskUserQuestion',
]);

export type MatcherKind = 'all' | 'exact' | 'regex';

/**
 * How Codex reads a matcher: absent, `""` and `*` match everything; a matcher of only ASCII
 * letters, digits, `_` and `|` is a list of exact names; anything else is an unanchored regex.
 */
export function codexMatcherKind(matcher: string | undefined): MatcherKind {
  if (matcher === undefined || matcher === '' || matcher === '*') return 'all';
  return /^[A-Za-z0-9_|]+$/.test(matcher) ? 'exact' : 'regex';
}

/** Whether Codex tests the matcher of this event's groups at all. */
export function codexUsesMatcher(event: string): boolean {
  return codexEvent(event)?.matcherInput !== undefined;
}

/** A known event name close to `name` (case, separators, small typos), if any. */
export function suggestEvent(name: string): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const n = norm(name);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const e of CODEX_EVENTS) {
    const m = norm(e.name);
    if (m === n) return e.name;
    const d = distance(n, m);
    if (d < bestDistance) {
      bestDistance = d;
      best = e.name;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(n.length / 4)) ? best : undefined;
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8 || a.length > 64 || b.length > 64) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
