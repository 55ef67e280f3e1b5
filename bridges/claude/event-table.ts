/**
 * Claude Code's hook events without a seam (Notification, PermissionRequest, PreCompact,
 * SubagentStop, SessionEnd, ...), one row each: what the matcher is tested against, what exit code
 * 2 does, which output fields Claude Code honours, the default timeout, and the payload's common
 * fields. Hooks on them are imported as `run` rules on the `agent-event` pseudo-seam and run with
 * these semantics.
 */
import type { AgentEventInfo } from '../../engine/index.js';

export interface ClaudeEventInfo extends AgentEventInfo {
  /** Whether the payload carries `permission_mode`. */
  permissionMode?: boolean;
  /** Whether the payload carries `effort`. */
  effort?: boolean;
  /** The event fires before any prompt, so its payload has no `prompt_id`. */
  noPromptId?: boolean;
}

type Row = Omit<ClaudeEventInfo, 'name' | 'dialect'>;

/** The events where Claude Code evaluates a handler's `if` (elsewhere a handler with `if` never runs). */
export const CLAUDE_IF_EVENTS: readonly string[] = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionDenied'];

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
  FileChanged: { matchField: 'file_path', matchBaseName: true, narrowMatcher: true, halt: true, context: false, outputs: ['watchPaths'], summary: 'cannot block; `watchPaths` sets the watched files' },
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

/** Claude Code's events without a seam, by name. */
export const CLAUDE_EVENT_TABLE: ReadonlyMap<string, ClaudeEventInfo> = new Map(Object.entries(CLAUDE_ROWS).map(([name, row]) => [name, { name, dialect: 'claude', ...row }]));
