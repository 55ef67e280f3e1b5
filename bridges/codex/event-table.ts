/**
 * Codex's hook events without a seam (PermissionRequest, PreCompact, SubagentStop, SessionEnd,
 * ...), one row each: what the matcher is tested against, what exit code 2 does, which output
 * fields Codex accepts (it rejects others), and the payload's common fields.
 */
import type { AgentEventInfo } from '../../engine/index.js';

export interface CodexEventInfo extends AgentEventInfo {
  /** Whether the payload carries `permission_mode`. */
  permissionMode?: boolean;
  /** Whether the payload carries `turn_id`. */
  turnId?: boolean;
  /** The payload has no `model`. */
  noModel?: boolean;
  /** The `hookSpecificOutput` fields the event accepts (null: none). */
  codexSpecific?: readonly string[] | null;
}

type Row = Omit<CodexEventInfo, 'name' | 'dialect'>;

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

/** Codex's events without a seam, by name. */
export const CODEX_EVENT_TABLE: ReadonlyMap<string, CodexEventInfo> = new Map(Object.entries(CODEX_ROWS).map(([name, row]) => [name, { name, dialect: 'codex', ...row }]));
