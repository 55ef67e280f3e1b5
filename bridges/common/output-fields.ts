/**
 * Which fields of a hook's answer an agent honours on an event, as `import --report` lists them
 * (each agent's table is in its folder: claude/output-fields.ts, codex/output-fields.ts); the
 * reading of agent events without a seam is derived here from their event tables.
 */
import type { AgentEventInfo } from '../../engine/index.js';

export interface OutputFields {
  /** What the agent acts on, and dshpolicy too. */
  honoured: string[];
  /** What the agent acts on and dshpolicy does not (yet), each with why: none, ideally. */
  gaps: string[];
  /** Answers the agent itself rejects (the hook fails); dshpolicy rejects them the same way. */
  rejected: string[];
}

/** How an agent's reading of agent-event answers differs, for the report's words. */
export interface AgentEventWording {
  /** `decision: block` needs a reason. */
  blockNeedsReason: boolean;
  /** Context on an event that a block continues is feedback that continues it. */
  contextContinues: boolean;
  /** What a PermissionRequest answer can say. */
  permissionRequest: string;
  /** Answers the agent rejects on every agent event. */
  rejected: string[];
}

/** The answer fields of an agent event without a seam, from its agent's event table. */
export function agentEventFields(info: AgentEventInfo, words: AgentEventWording): OutputFields {
  const honoured: string[] = [];
  if (info.special === 'worktree-create') honoured.push('the last non-empty stdout line (the path)', 'a failing exit (fails the creation)');
  if (info.exit2) honoured.push(`exit 2 + stderr (${info.exit2})`);
  if (info.block) honoured.push(`decision: block${words.blockNeedsReason ? ' with a reason' : ''} (${info.block})`, 'reason');
  if (info.halt) honoured.push('continue: false (halts)', 'stopReason');
  if (info.context) honoured.push(info.block === 'continue' && words.contextContinues ? 'additionalContext (continues)' : 'additionalContext');
  if (info.plainContext) honoured.push('plain stdout as context');
  if (info.systemMessageContext) honoured.push('systemMessage (context, from a slash command)');
  switch (info.special) {
    case 'permission-request':
      honoured.push(words.permissionRequest);
      break;
    case 'permission-decision':
      honoured.push('permissionDecision (allow, deny, ask; defer read as ask)', 'permissionDecisionReason');
      break;
    case 'elicitation':
      honoured.push('action (accept allows; decline and cancel deny)', 'content');
      break;
    case 'permission-denied':
      honoured.push('retry');
      break;
    case 'message-display':
      honoured.push('displayContent');
      break;
    default:
      break;
  }
  for (const o of info.outputs ?? []) if (!honoured.includes(o)) honoured.push(o);
  if (honoured.length === 0) honoured.push('nothing: the agent ignores the answer; the hook still runs');
  return { honoured, gaps: [], rejected: [...words.rejected] };
}
