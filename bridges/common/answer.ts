/**
 * What the agents' hook answers are made of (claude/answer.ts, codex/answer.ts, gemini/hook.ts):
 * the answer itself (stdout, stderr, exit code), the silent answer, a JSON answer, a decision's
 * reason, the hook event of each seam, and the Stop and SessionStart answers, which Claude Code and
 * Codex take in the same form. Which output each event accepts stays with each agent.
 */
import type { AnyDecision } from '../../engine/index.js';

export interface HookAnswer {
  /** What goes to stdout: the protocol and nothing else. */
  stdout: string;
  /** Shown by the agent where it shows a hook's stderr; empty when there is nothing to say. */
  stderr: string;
  exitCode: number;
}

/** No opinion: nothing printed, exit 0, so the agent's own flow goes on. */
export const SILENT: HookAnswer = { stdout: '', stderr: '', exitCode: 0 };

/** `value` as the one JSON line on stdout, exit 0 (an agent that reads stdout whole trims the line feed). */
export function answerJson(value: Record<string, unknown>): HookAnswer {
  return { stdout: `${JSON.stringify(value)}\n`, stderr: '', exitCode: 0 };
}

/** The decision's reason: its own, else its rules' reasons one paragraph each. */
export function reasonOf(d: AnyDecision): string {
  return d.reason ?? d.reasons.join('\n\n');
}

/** The hook event (`hookEventName`) that Claude Code and Codex answer for each seam. */
export const SEAM_EVENT: Record<string, string> = {
  'pre-tool': 'PreToolUse',
  'post-tool': 'PostToolUse',
  prompt: 'UserPromptSubmit',
  stop: 'Stop',
  'session-start': 'SessionStart',
};

/**
 * Stop and SessionStart say the same in both agents: `continue: false` halts, `decision: block`
 * continues a stop with the reason the model reads next (both agents require one), context rides
 * in `hookSpecificOutput` (Codex's Stop takes none, and a stop decision carries no context).
 */
export function stopOrStartAnswer(decision: AnyDecision, specific: Record<string, unknown> | undefined): HookAnswer {
  if (decision.decision === 'halt') return answerJson({ continue: false, stopReason: reasonOf(decision) || 'stopped by policy' });
  if (decision.seam === 'stop') {
    return decision.decision === 'continue' ? answerJson({ decision: 'block', reason: reasonOf(decision) || 'continue, as the policy requires' }) : SILENT;
  }
  return specific === undefined ? SILENT : answerJson({ hookSpecificOutput: specific });
}
