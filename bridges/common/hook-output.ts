/**
 * What every agent's reading of a command hook's result shares: the stand-ins for values only a
 * live session has, the seams' event names, how a failed run reads in a message, and the reading
 * of a run that did not finish normally (could not start, timed out, was killed).
 */
import { diagnostic, SEAM_HOOK_EVENTS, type AnyEvent, type Diagnostic, type HookOutcome, type RawHookResult } from '../../engine/index.js';

export type { RawHookResult };

/** Stand-ins for values only a live session has. */
export const OFFLINE = {
  session: '00000000-0000-4000-8000-000000000000',
  promptId: '00000000-0000-4000-8000-000000000001',
  turnId: '00000000-0000-4000-8000-000000000002',
  toolUseId: 'toolu_offline_0001',
  effort: 'medium',
  codexModel: 'gpt-5.5',
} as const;

/** The agent's name of an event's hook event. */
export function hookEventName(event: AnyEvent): string {
  return event.seam === 'agent-event' ? event.event : SEAM_HOOK_EVENTS[event.seam];
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The JSON object a text holds, or undefined. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** How a failed run reads in a message: an exit code, or for an http hook what went wrong. */
export function failureText(raw: RawHookResult, command: string): string {
  const first = raw.stderr.trim().split('\n')[0]?.slice(0, 200) ?? '';
  if (raw.http) return `the http hook \`${command}\` failed: ${first || 'no answer'}`;
  return `the hook \`${command}\` exited with ${raw.exitCode}: ${first || 'no message'}`;
}

/**
 * The reading of a hook that did not finish normally (could not start, timed out, was
 * killed): no decision, and a warning. Also warns when the output was capped. Undefined when the
 * hook exited.
 */
export function decodeFault(
  raw: RawHookResult,
  base: { exitCode: number | null; timedOut: boolean; diagnostics: Diagnostic[] },
  warn: (code: string, message: string) => void,
  command: string,
): HookOutcome | undefined {
  if (raw.truncated) warn('hook/output-capped', 'the hook printed more than the output cap; the rest was dropped');
  if (raw.spawnError !== undefined) {
    warn('hook/spawn-failed', `the hook \`${command}\` could not start: ${raw.spawnError}`);
    return { ...base, summary: 'could not start' };
  }
  if (raw.timedOut) {
    warn('hook/timeout', `the hook \`${command}\` timed out and was killed`);
    return { ...base, summary: 'timed out' };
  }
  if (raw.exitCode === null) {
    warn('hook/killed', `the hook \`${command}\` was killed by \`${raw.signal ?? 'a signal'}\``);
    return { ...base, summary: `killed by ${raw.signal ?? 'a signal'}` };
  }
  return undefined;
}
