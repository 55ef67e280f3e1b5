/**
 * What the agents' hook answers are made of (claude/answer.ts, codex/answer.ts, gemini/hook.ts):
 * the answer itself (stdout, stderr, exit code), the silent answer, a JSON answer, a decision's
 * reason, the hook event of each seam, and the Stop and SessionStart answers, which Claude Code and
 * Codex take in the same form. Which output each event accepts stays with each agent.
 */
import { resolve } from 'node:path';
import { SEAM_HOOK_EVENTS, type AnyDecision, type Diagnostic } from '../../engine/index.js';

export interface HookAnswer {
  /** What goes to stdout: the protocol and nothing else. */
  stdout: string;
  /** Shown by the agent where it shows a hook's stderr; empty when there is nothing to say. */
  stderr: string;
  exitCode: number;
}

/** The hook's exit status when its answer is on stdout, or when it has no opinion. */
export const ANSWERED_EXIT = 0;
/** The hook's exit status that blocks where the event can block, with stderr as the reason. */
export const BLOCKING_EXIT = 2;

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
export const SEAM_EVENT: Readonly<Record<string, string>> = SEAM_HOOK_EVENTS;

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

/**
 * The answer of a Claude Code or Codex hook that cannot decide (a broken policy, an unreadable
 * payload): a tool call denied and a prompt blocked, with the reason; a stop never trapped (failing
 * closed there would keep the agent from ever stopping); an unknown event blocked by exit 2 where
 * it can be; elsewhere a notice.
 */
export function hooksJsonFailClosed(eventName: string | undefined, message: string): HookAnswer {
  const withJson = (v: unknown): HookAnswer => ({ stdout: `${JSON.stringify(v)}\n`, stderr: `${message}\n`, exitCode: ANSWERED_EXIT });
  switch (eventName) {
    case 'PreToolUse':
      return withJson({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: message } });
    case 'UserPromptSubmit':
    case 'PostToolUse':
      return withJson({ decision: 'block', reason: message });
    case 'PermissionRequest':
      return withJson({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message } } });
    case 'Stop':
    case 'SubagentStop':
      return { stdout: '', stderr: `${message}\n`, exitCode: ANSWERED_EXIT };
    case undefined:
      return { stdout: '', stderr: `${message}\n`, exitCode: BLOCKING_EXIT };
    default:
      return { stdout: '', stderr: `${message}\n`, exitCode: ANSWERED_EXIT };
  }
}

/** The hook event a payload that is not valid JSON names, read as best it can be. */
export function eventNameOfText(raw: string): string | undefined {
  return /"hook_event_name"\s*:\s*"([A-Za-z]+)"/.exec(raw)?.[1];
}

/** One line naming where a problem is, for a hook's stderr: `file:line:col: message` (the file absolute), or the message alone. */
export function problemLine(d: Diagnostic): string {
  // Absolute: the agent's working directory is not necessarily where the policy is.
  const at = d.span ? `${resolve(d.span.file)}:${d.span.start.line}:${d.span.start.column}: ` : d.pointer ? `${d.pointer}: ` : '';
  return `${at}${d.message}`;
}
