/**
 * Agent events without a seam: the hook events of Claude Code and Codex that the language has no
 * seam for (Notification, PermissionRequest, PreCompact, SubagentStop, SessionEnd, ...). Their
 * hooks are imported as `run` rules on the `agent-event` pseudo-seam and run with the agent's own
 * semantics, described per event by the tables here: what the matcher is tested against, what exit
 * code 2 does, which output fields the agent honours, the default timeout and the payload's common
 * fields.
 */
import type { HookDialect, Seam } from './ir.js';

/** What a hook can do to an agent event, most restrictive first. */
export const AGENT_EVENT_DECISIONS = ['halt', 'deny', 'ask', 'block', 'continue', 'allow', 'none'] as const;
export type AgentEventDecisionWord = (typeof AGENT_EVENT_DECISIONS)[number];
export type AgentEffect = Exclude<AgentEventDecisionWord, 'none'>;

/** Output channels that need their own reading. */
export type AgentEventSpecial =
  /** `hookSpecificOutput.decision = {behavior: allow|deny, message?, updatedInput?, interrupt?}` */
  | 'permission-request'
  /** `hookSpecificOutput.retry` */
  | 'permission-denied'
  /** `hookSpecificOutput.action` (`accept|decline|cancel`) and `content` */
  | 'elicitation'
  /** the last non-empty stdout line is the worktree's path; any other exit than 0 fails the creation */
  | 'worktree-create'
  /** `hookSpecificOutput.displayContent` */
  | 'message-display'
  /** `permissionDecision` as on PreToolUse */
  | 'permission-decision';

export interface AgentEventInfo {
  name: string;
  dialect: HookDialect;
  /** The payload field the group's matcher is tested against; absent when the agent ignores matchers. */
  matchField?: string;
  /** Claude Code's narrower exact-name class for the matcher (FileChanged, StopFailure). */
  narrowMatcher?: boolean;
  /** What exit code 2 does; absent when it decides nothing. */
  exit2?: AgentEffect;
  /** What `decision: "block"` does; absent when the agent ignores it. */
  block?: AgentEffect;
  /** Whether `continue: false` (with `stopReason`) halts the agent here. */
  halt: boolean;
  /** Whether `hookSpecificOutput.additionalContext` is honoured (on SubagentStop it continues). */
  context: boolean;
  /** Whether plain (non-JSON) stdout on exit 0 is context. */
  plainContext?: boolean;
  /** Whether `systemMessage` reaches the model as context. */
  systemMessageContext?: boolean;
  /** Output fields passed through as the event's answer (`watchPaths`, `retry`, ...). */
  outputs?: readonly string[];
  special?: AgentEventSpecial;
  /** Default timeout of a command hook, when it is not the agent's usual 600 s. */
  timeoutMs?: number;
  /** Whether the payload carries `permission_mode`. */
  permissionMode?: boolean;
  /** Claude Code: whether the payload carries `effort`. */
  effort?: boolean;
  /** Claude Code: the event fires before any prompt, so its payload has no `prompt_id`. */
  noPromptId?: boolean;
  /** Codex: whether the payload carries `turn_id`. */
  turnId?: boolean;
  /** Codex: the payload has no `model`. */
  noModel?: boolean;
  /** Codex: the `hookSpecificOutput` fields the event accepts (null: none). */
  codexSpecific?: readonly string[] | null;
  /** One line for reports: what the event is and what a hook can do there. */
  summary: string;
}

/** The agent events that are seams, per dialect: hooks on these become seam rules. */
export const SEAM_OF_AGENT_EVENT: Readonly<Record<string, Seam>> = {
  PreToolUse: 'pre-tool',
  PostToolUse: 'post-tool',
  UserPromptSubmit: 'prompt',
  Stop: 'stop',
  SessionStart: 'session-start',
};

/** The events where Claude Code evaluates a handler's `if` (elsewhere a handler with `if` never runs). */
export const CLAUDE_IF_EVENTS: readonly string[] = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionDenied'];

type Row = Omit<AgentEventInfo, 'name' | 'dialect'>;

const CLAUDE_ROWS: Record<string, Row> = {
  Setup: { matchField: 'trigger', halt: true, context: true, noPromptId: true, summary: 'cannot block; context at the start of the conversation' },
  InstructionsLoaded: { matchField: 'load_reason', halt: false, context: false, noPromptId: true, summary: 'runs in the background; output and exit code are ignored' },
  UserPromptExpansion: {
    matchField: 'command_name', exit2: 'block', block: 'block', halt: true, context: true, plainContext: true, permissionMode: true,
    summary: 'exit 2 or `decision: block` blocks the expansion; context beside the prompt',
  },
  MessageDisplay: { halt: false, context: false, special: 'message-display', timeoutMs: 10_000, summary: '`displayContent` replaces what is shown; nothing else' },
  PermissionRequest: {
    // 2.1.328 ignores `continue: false` here (seen running).
    matchField: 'tool_name', halt: false, context: false, special: 'permission-request', permissionMode: true, effort: true,
    summary: '`decision.behavior` allows or denies the permission prompt; exit 2 is not honoured',
  },
  PermissionDenied: {
    matchField: 'tool_name', halt: true, context: false, special: 'permission-denied', outputs: ['retry'], permissionMode: true, effort: true,
    summary: '`retry: true` lets the model retry; exit code ignored',
  },
  PostToolUseFailure: {
    // 2.1.328 in print mode asks the model again after `continue: false` here (seen running).
    matchField: 'tool_name', exit2: 'block', block: 'block', halt: false, context: true, permissionMode: true, effort: true,
    summary: 'exit 2 or `decision: block` gives the model feedback; context beside the error',
  },
  PostToolBatch: {
    exit2: 'block', block: 'block', halt: true, context: true, permissionMode: true, effort: true,
    summary: 'exit 2 or `decision: block` stops the loop before the next model call; context beside the results',
  },
  Notification: { matchField: 'notification_type', halt: false, context: false, summary: 'cannot decide; output and exit code are ignored' },
  SubagentStart: { matchField: 'agent_type', halt: true, context: true, summary: 'cannot block; context for the subagent' },
  SubagentStop: {
    matchField: 'agent_type', exit2: 'continue', block: 'continue', halt: true, context: true, permissionMode: true, effort: true,
    summary: 'exit 2 or `decision: block` keeps the subagent working with the reason; `continue: false` ends the subagent (the parent goes on)',
  },
  TaskCreated: { exit2: 'block', block: 'block', halt: false, context: false, permissionMode: true, summary: 'exit 2 or `decision: block` rolls the task back' },
  TaskCompleted: { exit2: 'block', halt: true, context: false, permissionMode: true, summary: 'exit 2 prevents completion; `continue: false` stops the teammate' },
  StopFailure: { matchField: 'error', narrowMatcher: true, halt: false, context: false, effort: true, summary: 'output and exit code are ignored' },
  TeammateIdle: { exit2: 'continue', halt: true, context: false, permissionMode: true, summary: 'exit 2 keeps the teammate working; `continue: false` stops it' },
  ConfigChange: { matchField: 'source', exit2: 'block', block: 'block', halt: false, context: false, summary: 'exit 2 or `decision: block` blocks the change (not `policy_settings`)' },
  CwdChanged: { halt: true, context: false, outputs: ['watchPaths'], summary: 'cannot block; `watchPaths` sets the watched files' },
  DirectoryAdded: { matchField: 'source', halt: true, context: false, systemMessageContext: true, summary: 'cannot block; `systemMessage` reaches the model' },
  FileChanged: { matchField: 'file_path', narrowMatcher: true, halt: true, context: false, outputs: ['watchPaths'], summary: 'cannot block; `watchPaths` sets the watched files' },
  WorktreeCreate: { halt: false, context: false, special: 'worktree-create', summary: 'the last stdout line is the path; any failing exit fails the creation' },
  WorktreeRemove: { halt: false, context: false, summary: 'output is discarded' },
  PreCompact: { matchField: 'trigger', exit2: 'block', block: 'block', halt: false, context: false, summary: 'exit 2 or `decision: block` blocks the compaction' },
  PostCompact: { matchField: 'trigger', halt: true, context: false, summary: 'cannot block' },
  Elicitation: { matchField: 'mcp_server_name', exit2: 'deny', halt: false, context: false, special: 'elicitation', summary: '`action` accepts, declines or cancels; exit 2 declines' },
  ElicitationResult: { matchField: 'mcp_server_name', exit2: 'deny', halt: true, context: false, special: 'elicitation', summary: '`action` and `content` replace the answer; exit 2 declines' },
  SessionEnd: { matchField: 'reason', halt: false, context: false, timeoutMs: 1_500, summary: 'cannot decide; a 1.5 s budget shared by its hooks' },
  PreModelSwitch: {
    matchField: 'to_model', exit2: 'deny', halt: true, context: false, special: 'permission-decision',
    summary: '`permissionDecision` allows, asks or denies the switch',
  },
  PostModelSwitch: { matchField: 'to_model', halt: true, context: true, summary: 'cannot block; context' },
  PreSkillShellCommand: {
    matchField: 'tool_name', exit2: 'deny', halt: true, context: false, special: 'permission-decision',
    summary: '`permissionDecision` deny, ask or defer keeps the command from running',
  },
};

const CODEX_ROWS: Record<string, Row> = {
  PermissionRequest: {
    matchField: 'tool_name', exit2: 'deny', halt: false, context: false, special: 'permission-request', turnId: true, permissionMode: true,
    codexSpecific: ['decision'], summary: '`decision.behavior` allows or denies the approval; exit 2 denies',
  },
  PreCompact: { matchField: 'trigger', halt: true, context: false, turnId: true, codexSpecific: null, summary: '`continue: false` stops the compaction' },
  PostCompact: { matchField: 'trigger', halt: true, context: false, turnId: true, codexSpecific: null, summary: '`continue: false` stops the turn' },
  SubagentStart: {
    matchField: 'agent_type', halt: false, context: true, plainContext: true, turnId: true, permissionMode: true,
    codexSpecific: ['additionalContext'], summary: 'context for the subagent (JSON or plain text)',
  },
  SubagentStop: {
    matchField: 'agent_type', exit2: 'continue', block: 'continue', halt: true, context: false, turnId: true, permissionMode: true,
    codexSpecific: null, summary: 'exit 2 or `decision: block` with a reason keeps the subagent working',
  },
  SessionEnd: { matchField: 'reason', halt: false, context: false, noModel: true, codexSpecific: null, summary: 'cannot decide' },
  StopFailure: { matchField: 'error', halt: false, context: false, turnId: true, permissionMode: true, codexSpecific: null, summary: 'cannot decide' },
  Interrupt: { matchField: 'reason', halt: false, context: false, turnId: true, permissionMode: true, codexSpecific: null, summary: 'cannot decide' },
};

function table(dialect: HookDialect, rows: Record<string, Row>): Map<string, AgentEventInfo> {
  return new Map(Object.entries(rows).map(([name, row]) => [name, { name, dialect, ...row }]));
}

const TABLES: Record<HookDialect, Map<string, AgentEventInfo>> = {
  claude: table('claude', CLAUDE_ROWS),
  codex: table('codex', CODEX_ROWS),
};

/** What `dialect`'s agent does with hooks on `event`, for an event without a seam. */
export function agentEventInfo(dialect: HookDialect, event: string): AgentEventInfo | undefined {
  return TABLES[dialect].get(event);
}

/** The events without a seam that `dialect`'s agent runs hooks on. */
export function agentEventNames(dialect: HookDialect): string[] {
  return [...TABLES[dialect].keys()];
}

/** The dialects whose agents have `event` as an event without a seam. */
export function dialectsOfAgentEvent(event: string): HookDialect[] {
  return (['claude', 'codex'] as const).filter((d) => TABLES[d].has(event));
}
