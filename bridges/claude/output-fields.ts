/**
 * Which fields of a hook's answer Claude Code honours on each event, as `import --report` lists them
 * (they follow docs/hooks.md): the seams' events here, agent events from the event table.
 */
import type { AgentEventInfo } from '../../engine/index.js';
import { agentEventFields, type AgentEventWording, type OutputFields } from '../common/output-fields.js';

const SEAM_EVENTS: Readonly<Record<string, OutputFields>> = {
  PreToolUse: {
    honoured: ['exit 2 + stderr', 'permissionDecision (allow, deny, ask; defer read as ask)', 'permissionDecisionReason', 'decision (legacy; the stricter stands)', 'reason', 'updatedInput (the last to finish wins)', 'additionalContext', 'continue: false (no effect: Claude Code 2.1.328 runs the call and goes on)'],
    gaps: [],
    rejected: ['an unknown permissionDecision, or a hookSpecificOutput without (or with another) hookEventName: the whole answer is void'],
  },
  PostToolUse: { honoured: ['exit 2 + stderr', 'decision: block', 'reason', 'additionalContext'], gaps: [], rejected: [] },
  UserPromptSubmit: { honoured: ['exit 2 + stderr', 'decision: block', 'reason', 'plain stdout as context', 'additionalContext', 'continue: false (blocks, with stopReason)'], gaps: [], rejected: ['a top-level decision other than block: the whole answer is void'] },
  Stop: { honoured: ['exit 2 + stderr', 'decision: block (continues)', 'reason', 'additionalContext (continues)', 'continue: false (halts)'], gaps: [], rejected: [] },
  SessionStart: { honoured: ['plain stdout as context', 'additionalContext', 'continue: false (halts)'], gaps: [], rejected: [] },
};

const WORDS: AgentEventWording = {
  blockNeedsReason: false,
  contextContinues: true,
  permissionRequest: 'decision.behavior allow (with updatedInput) or deny (with message, interrupt halts)',
  rejected: ['a hookSpecificOutput without (or with another) hookEventName: the whole answer is void'],
};

/** The answer fields Claude Code honours on an event (a seam's, or one without a seam given its table row). */
export function claudeOutputFields(event: string, info?: AgentEventInfo): OutputFields | undefined {
  return SEAM_EVENTS[event] ?? (info ? agentEventFields(info, WORDS) : undefined);
}
