/**
 * Decoding a command hook's exit code and output into a `HookOutcome`, the way the dialect's
 * agent reads them.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { PolicyEvent } from '../events.js';
import type { HookOutcome } from '../evaluate.js';
import { hookEventName } from './payload.js';

export interface RawHookResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  spawnError?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function firstLine(s: string, max = 200): string {
  const line = s.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** What an exit-2 block means on each seam. */
function blockingEffect(seam: PolicyEvent['seam']): HookOutcome['effect'] {
  switch (seam) {
    case 'pre-tool':
      return 'deny';
    case 'prompt':
    case 'post-tool':
      return 'block';
    case 'stop':
      return 'continue';
    case 'session-start':
      return undefined;
  }
}

export function decodeHookResult(raw: RawHookResult, event: PolicyEvent, ruleId: string, command: string): HookOutcome {
  const diagnostics: Diagnostic[] = [];
  const base = { exitCode: raw.exitCode, timedOut: raw.timedOut, diagnostics };
  const warn = (code: string, message: string) => diagnostics.push(diagnostic(code, 'warning', `rule \`${ruleId}\`: ${message}`));
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
  if (raw.exitCode === 2) {
    const effect = blockingEffect(event.seam);
    const reason = raw.stderr.trim() || `blocked by the hook \`${command}\``;
    const out: HookOutcome = { ...base, summary: 'exit 2' };
    if (effect) {
      out.effect = effect;
      out.reason = reason;
    }
    return out;
  }
  if (raw.exitCode !== 0) {
    warn('hook/failed', `the hook \`${command}\` exited with ${raw.exitCode}: ${firstLine(raw.stderr) || 'no message'}`);
    return { ...base, summary: `exit ${raw.exitCode}` };
  }
  const text = raw.stdout.trim();
  if (!text.startsWith('{')) {
    const out: HookOutcome = { ...base, summary: 'exit 0' };
    if (text && (event.seam === 'prompt' || event.seam === 'session-start')) out.context = [text];
    return out;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const out: HookOutcome = { ...base, summary: 'exit 0, output not JSON' };
    if (event.seam === 'prompt' || event.seam === 'session-start') out.context = [text];
    return out;
  }
  if (!isObject(json)) return { ...base, summary: 'exit 0' };
  return decodeJson(json, event, base, warn);
}

function decodeJson(
  json: Record<string, unknown>,
  event: PolicyEvent,
  base: { exitCode: number | null; timedOut: boolean; diagnostics: Diagnostic[] },
  warn: (code: string, message: string) => void,
): HookOutcome {
  const out: HookOutcome = { ...base, summary: 'exit 0, JSON' };
  const specific = isObject(json['hookSpecificOutput']) ? json['hookSpecificOutput'] : undefined;
  if (specific && typeof specific['hookEventName'] === 'string' && specific['hookEventName'] !== hookEventName(event)) {
    warn('hook/wrong-event', `the hook answered for \`${specific['hookEventName']}\` during \`${hookEventName(event)}\``);
    return { ...base, summary: 'wrong hookEventName' };
  }
  const reason = typeof json['reason'] === 'string' ? json['reason'] : undefined;
  if (json['continue'] === false && event.seam === 'stop') {
    out.effect = 'halt';
    out.reason = typeof json['stopReason'] === 'string' ? json['stopReason'] : 'stopped by a hook';
    out.summary = 'continue: false';
  }
  const decision = json['decision'];
  if (decision === 'block' && !out.effect) {
    const effect = blockingEffect(event.seam);
    if (effect) {
      out.effect = effect;
      out.reason = reason ?? 'blocked by a hook';
      out.summary = 'decision: block';
    }
  } else if (decision === 'approve' && event.seam === 'pre-tool' && !out.effect) {
    out.effect = 'allow';
    out.summary = 'decision: approve';
  }
  if (specific) {
    const pd = specific['permissionDecision'];
    if (event.seam === 'pre-tool' && typeof pd === 'string') {
      const why = typeof specific['permissionDecisionReason'] === 'string' ? specific['permissionDecisionReason'] : undefined;
      if (pd === 'deny' || pd === 'ask' || pd === 'allow') {
        out.effect = pd;
        if (pd === 'deny') out.reason = why || 'Blocked by hook';
        else if (why) out.reason = why;
        else delete out.reason;
        out.summary = `permissionDecision ${pd}`;
      } else if (pd !== 'defer') {
        warn('hook/bad-output', `unknown permissionDecision \`${pd}\``);
      }
      if (isObject(specific['updatedInput'])) out.updatedInput = specific['updatedInput'];
    }
    const ctx = specific['additionalContext'];
    if (typeof ctx === 'string' && ctx.length > 0) out.context = [ctx];
  }
  return out;
}
