/**
 * Which fields of a hook's answer Codex honours on each event, as `import --report` lists them
 * (they follow docs/hooks.md): the seams' events here, agent events from the event table.
 */
import type { AgentEventInfo } from '../../engine/index.js';
import { agentEventFields, type AgentEventWording, type OutputFields } from '../common/output-fields.js';

const SEAM_EVENTS: Readonly<Record<string, OutputFields>> = {
  PreToolUse: {
    honoured: ['exit 2 + stderr', 'permissionDecision: deny with a reason', 'permissionDecision: allow with updatedInput', 'decision: block with a reason', 'additionalContext'],
    gaps: [],
    rejected: ['permissionDecision: ask, a plain allow, a deny without a reason, continue/stopReason/suppressOutput, unknown keys: the hook fails, and a failed hook never blocks'],
  },
  PostToolUse: {
    honoured: ['exit 2 + stderr', 'decision: block with a reason', 'continue: false (blocks)', 'additionalContext'],
    gaps: [],
    rejected: ['a decision without a reason, unknown keys: the hook fails'],
  },
  UserPromptSubmit: {
    honoured: ['exit 2 + stderr', 'decision: block with a reason', 'continue: false (blocks)', 'additionalContext'],
    gaps: [],
    rejected: ['a decision without a reason, unknown keys: the hook fails'],
  },
  Stop: {
    honoured: ['exit 2 + stderr (continues)', 'decision: block with a reason (continues)', 'continue: false (halts)'],
    gaps: [],
    rejected: ['text on stdout, a block without a reason, unknown keys: the hook fails'],
  },
  SessionStart: {
    honoured: ['additionalContext', 'plain stdout as context', 'continue: false (halts)'],
    gaps: [],
    rejected: ['exit 2 (means nothing here: the hook fails)', 'unknown keys: the hook fails'],
  },
};

const WORDS: AgentEventWording = {
  blockNeedsReason: true,
  contextContinues: false,
  permissionRequest: 'decision.behavior allow or deny (with message)',
  rejected: ['unknown keys, a hookSpecificOutput the event does not take, exit 2 without a reason, or (where it means nothing) exit 2: the hook fails, and a failed hook never decides'],
};

/** The answer fields Codex honours on an event (a seam's, or one without a seam given its table row). */
export function codexOutputFields(event: string, info?: AgentEventInfo): OutputFields | undefined {
  return SEAM_EVENTS[event] ?? (info ? agentEventFields(info, WORDS) : undefined);
}
