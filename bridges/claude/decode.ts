/**
 * Claude Code's reading of a command hook's exit code and output on a seam's event, into a
 * `HookOutcome`: lenient (JSON decides whatever the exit code; exit 2 blocks where the event can).
 */
import { diagnostic, type Diagnostic, type HookOutcome, type PolicyEvent } from '../../engine/index.js';
import { decodeFault, failureText, hookEventName, isObject, parseObject, type RawHookResult } from '../common/hook-output.js';


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


export function decodeClaudeHookResult(raw: RawHookResult, event: PolicyEvent, ruleId: string, command: string): HookOutcome {
  const diagnostics: Diagnostic[] = [];
  const base = { exitCode: raw.exitCode, timedOut: raw.timedOut, diagnostics };
  const warn = (code: string, message: string) => diagnostics.push(diagnostic(code, 'warning', `rule \`${ruleId}\`: ${message}`));
  const fault = decodeFault(raw, base, warn, command);
  if (fault) return fault;
  const text = raw.stdout.trim();
  // Claude Code reads JSON stdout whatever the exit code (only exit 0 reads plain text).
  const json = text.startsWith('{') ? parseObject(text) : undefined;
  if (raw.exitCode === 2) {
    const effect = blockingEffect(event.seam);
    const out: HookOutcome = { ...base, summary: 'exit 2' };
    if (!effect) return out;
    // A reason the hook's JSON gives wins over stderr.
    const fromJson = json ? decodeJson(json, event, base, () => undefined) : undefined;
    const jsonReason = fromJson && fromJson.effect === effect ? fromJson.reason : undefined;
    out.effect = effect;
    out.reason = jsonReason ?? (raw.stderr.trim() || 'No stderr output');
    return out;
  }
  if (raw.exitCode !== 0) {
    warn('hook/failed', failureText(raw, command));
    if (json) return { ...decodeJson(json, event, base, warn), summary: `exit ${raw.exitCode}, JSON` };
    return { ...base, summary: `exit ${raw.exitCode}` };
  }
  if (!json) {
    const out: HookOutcome = { ...base, summary: text.startsWith('{') ? 'exit 0, output not JSON' : 'exit 0' };
    if (text && (event.seam === 'prompt' || event.seam === 'session-start')) out.context = [text];
    return out;
  }
  return decodeJson(json, event, base, warn);
}

/**
 * Claude Code validates an answer whole: a `hookSpecificOutput` without `hookEventName`, or naming
 * another event, voids every field of it. Returns the object (undefined when there is none), or
 * the void outcome.
 */
export function claudeSpecific(
  json: Record<string, unknown>,
  eventName: string,
  base: { exitCode: number | null; timedOut: boolean; diagnostics: Diagnostic[] },
  warn: (code: string, message: string) => void,
): { specific: Record<string, unknown> | undefined } | { void: HookOutcome } {
  const specific = isObject(json['hookSpecificOutput']) ? json['hookSpecificOutput'] : undefined;
  if (!specific) return { specific };
  if (typeof specific['hookEventName'] !== 'string') {
    warn('hook/bad-output', 'the hook\'s `hookSpecificOutput` has no `hookEventName`; Claude Code ignores the whole answer');
    return { void: { ...base, summary: 'no hookEventName' } };
  }
  if (specific['hookEventName'] !== eventName) {
    warn('hook/wrong-event', `the hook answered for \`${specific['hookEventName']}\` during \`${eventName}\``);
    return { void: { ...base, summary: 'wrong hookEventName' } };
  }
  return { specific };
}

const PRE_TOOL_RANK: Record<string, number> = { allow: 1, ask: 2, deny: 3 };

function decodeJson(
  json: Record<string, unknown>,
  event: PolicyEvent,
  base: { exitCode: number | null; timedOut: boolean; diagnostics: Diagnostic[] },
  warn: (code: string, message: string) => void,
): HookOutcome {
  const out: HookOutcome = { ...base, summary: 'exit 0, JSON' };
  const checked = claudeSpecific(json, hookEventName(event), base, warn);
  if ('void' in checked) return checked.void;
  const specific = checked.specific;
  const reason = typeof json['reason'] === 'string' && json['reason'] !== '' ? json['reason'] : undefined;
  // `continue: false` ends the session on Stop and SessionStart; on a tool call Claude Code 2.1.328
  // in print mode runs the call and goes on (seen running), so it decides nothing there.
  if (json['continue'] === false && (event.seam === 'stop' || event.seam === 'session-start')) {
    out.effect = 'halt';
    out.reason = typeof json['stopReason'] === 'string' ? json['stopReason'] : 'stopped by a hook';
    out.summary = 'continue: false';
    return out;
  }
  const decision = json['decision'];
  if (decision !== undefined && decision !== 'block' && decision !== 'approve') {
    // The answer fails Claude Code's schema: a non-blocking error, and none of it counts.
    warn('hook/bad-output', `\`decision\` must be \`block\` (or the legacy \`approve\`), not ${JSON.stringify(decision)}; Claude Code rejects the whole answer`);
    return { ...base, summary: 'invalid decision' };
  }
  if (json['continue'] === false && event.seam === 'prompt') {
    // `continue: false` stops Claude before the prompt is processed.
    out.effect = 'block';
    out.reason = typeof json['stopReason'] === 'string' && json['stopReason'] !== '' ? json['stopReason'] : 'stopped by a hook';
    out.summary = 'continue: false';
    return out;
  }
  if (decision === 'block') {
    const effect = blockingEffect(event.seam);
    if (effect) {
      out.effect = effect;
      out.reason = reason ?? 'Blocked by hook';
      out.summary = 'decision: block';
    }
  } else if (decision === 'approve' && event.seam === 'pre-tool') {
    out.effect = 'allow';
    out.summary = 'decision: approve';
  }
  if (specific) {
    const pd = specific['permissionDecision'];
    if (event.seam === 'pre-tool' && typeof pd === 'string') {
      const why = typeof specific['permissionDecisionReason'] === 'string' && specific['permissionDecisionReason'] !== '' ? specific['permissionDecisionReason'] : undefined;
      // `defer` leaves the call to a later decision: in print mode it is not run.
      const effect = pd === 'defer' ? 'ask' : pd;
      if (effect === 'deny' || effect === 'ask' || effect === 'allow') {
        // With a legacy `decision` beside it, the stricter of the two stands.
        if (!out.effect || (PRE_TOOL_RANK[effect] ?? 0) > (PRE_TOOL_RANK[out.effect] ?? 0)) {
          out.effect = effect;
          if (effect === 'deny') out.reason = why ?? 'Blocked by hook';
          else if (pd === 'defer') out.reason = why ?? 'the hook deferred the call';
          else if (why) out.reason = why;
          else delete out.reason;
          out.summary = `permissionDecision ${pd}`;
        }
      } else {
        warn('hook/bad-output', `unknown permissionDecision \`${pd}\`; Claude Code rejects the whole answer`);
        return { ...base, summary: 'invalid permissionDecision' };
      }
    }
    if (event.seam === 'pre-tool' && isObject(specific['updatedInput'])) out.updatedInput = specific['updatedInput'];
    const ctx = specific['additionalContext'];
    if (typeof ctx === 'string' && ctx.length > 0) {
      // On Stop, context is feedback that keeps the turn going.
      if (event.seam === 'stop' && !out.effect) {
        out.effect = 'continue';
        out.reason = ctx;
        out.summary = 'additionalContext';
      } else {
        out.context = [ctx];
      }
    }
  }
  return out;
}
