/**
 * Codex's reading of a command hook's exit code and output. Codex is strict where Claude Code is
 * lenient: output JSON with an unknown key, an unsupported value (`ask`, a plain `allow`,
 * `approve`) or a missing reason is a failed hook, and a failed hook never blocks: the call goes
 * ahead (fail-open), exactly as Codex runs it.
 */
import { diagnostic, type Diagnostic, type HookOutcome, type PolicyEvent } from '../../engine/index.js';
import { hookEventName, isObject, nonEmpty, type RawHookResult } from '../common/hook-output.js';

const UNIVERSAL = ['continue', 'stopReason', 'suppressOutput', 'systemMessage'];
const TOP_LEVEL = [...UNIVERSAL, 'decision', 'reason', 'hookSpecificOutput'];
/** Fields of `hookSpecificOutput` per event (besides `hookEventName`). */
const SPECIFIC: Record<PolicyEvent['seam'], string[] | null> = {
  'pre-tool': ['permissionDecision', 'permissionDecisionReason', 'updatedInput', 'additionalContext'],
  'post-tool': ['additionalContext', 'updatedMCPToolOutput'],
  prompt: ['additionalContext'],
  'session-start': ['additionalContext'],
  stop: null,
};

/**
 * The start of every Codex decoding: the outcome's base, the `failed` outcome maker, and the
 * failed outcome of a hook that did not finish normally (undefined when it exited).
 */
export function codexStart(raw: RawHookResult, ruleId: string, command: string) {
  const diagnostics: Diagnostic[] = [];
  const base = { exitCode: raw.exitCode, timedOut: raw.timedOut, diagnostics };
  const failed = (summary: string, why: string): HookOutcome => {
    diagnostics.push(diagnostic('hook/failed', 'warning', `rule \`${ruleId}\`: the hook \`${command}\` ${why}; Codex counts it as failed and goes on`));
    return { ...base, summary };
  };
  return { base, failed, fault: codexFault(raw, diagnostics, ruleId, failed) };
}

/** Codex's reading of a hook that did not finish normally: a failed hook. Undefined when it exited. */
export function codexFault(
  raw: RawHookResult,
  diagnostics: Diagnostic[],
  ruleId: string,
  failed: (summary: string, why: string) => HookOutcome,
): HookOutcome | undefined {
  if (raw.truncated) diagnostics.push(diagnostic('hook/output-capped', 'warning', `rule \`${ruleId}\`: the hook printed more than the output cap; the rest was dropped`));
  if (raw.spawnError !== undefined) return failed('could not start', `could not start: ${raw.spawnError}`);
  if (raw.timedOut) return failed('timed out', 'timed out');
  if (raw.exitCode === null) return failed(`killed by ${raw.signal ?? 'a signal'}`, `was killed by \`${raw.signal ?? 'a signal'}\``);
  return undefined;
}

export function decodeCodexHookResult(raw: RawHookResult, event: PolicyEvent, ruleId: string, command: string): HookOutcome {
  const { base, failed, fault } = codexStart(raw, ruleId, command);
  if (fault) return fault;

  if (raw.exitCode === 2) {
    const reason = raw.stderr.trim();
    if (!reason) return failed('exit 2, no reason', 'exited with 2 but wrote no reason to stderr');
    switch (event.seam) {
      case 'pre-tool':
        return { ...base, effect: 'deny', reason, summary: 'exit 2' };
      case 'prompt':
      case 'post-tool':
        return { ...base, effect: 'block', reason, summary: 'exit 2' };
      case 'stop':
        return { ...base, effect: 'continue', reason, summary: 'exit 2' };
      case 'session-start':
        return failed('exit 2', 'exited with 2, which means nothing on SessionStart');
    }
  }
  if (raw.exitCode !== 0) return failed(`exit ${raw.exitCode}`, `exited with ${raw.exitCode}`);

  const text = raw.stdout.trim();
  if (text === '') return { ...base, summary: 'exit 0' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!isObject(json)) {
    if (text.startsWith('{') || text.startsWith('[')) return failed('invalid JSON', 'printed output that looks like JSON but is not a JSON object Codex reads');
    if (event.seam === 'prompt' || event.seam === 'session-start') return { ...base, context: [text], summary: 'exit 0, text' };
    if (event.seam === 'stop') return failed('text on stop', 'printed text that is not JSON, which a Stop hook may not');
    return { ...base, summary: 'exit 0, text ignored' };
  }
  return decodeJson(json, event, base, failed);
}

function decodeJson(
  json: Record<string, unknown>,
  event: PolicyEvent,
  base: { exitCode: number | null; timedOut: boolean; diagnostics: Diagnostic[] },
  failed: (summary: string, why: string) => HookOutcome,
): HookOutcome {
  const unknown = Object.keys(json).filter((k) => !TOP_LEVEL.includes(k));
  if (unknown.length > 0) return failed('unknown keys', `answered with unknown key \`${unknown[0]}\``);
  const allowed = SPECIFIC[event.seam];
  let specific: Record<string, unknown> | undefined;
  if (json['hookSpecificOutput'] !== undefined) {
    if (!allowed || !isObject(json['hookSpecificOutput'])) return failed('bad hookSpecificOutput', 'answered with a `hookSpecificOutput` this event does not take');
    specific = json['hookSpecificOutput'];
    // Codex requires the field but does not compare it with the event (0.171.0, seen running).
    if (typeof specific['hookEventName'] !== 'string') {
      return failed('no hookEventName', `answered with a \`hookSpecificOutput\` without \`hookEventName\` during \`${hookEventName(event)}\``);
    }
    const extra = Object.keys(specific).filter((k) => k !== 'hookEventName' && !allowed.includes(k));
    if (extra.length > 0) return failed('unknown keys', `answered with unknown key \`hookSpecificOutput.${extra[0]}\``);
  }
  const out: HookOutcome = { ...base, summary: 'exit 0, JSON' };
  const context = nonEmpty(specific?.['additionalContext']);
  if (context !== undefined) out.context = [context];
  const stop = json['continue'] === false;
  const stopReason = nonEmpty(json['stopReason']);
  const decision = json['decision'];
  const reason = nonEmpty(json['reason']);

  switch (event.seam) {
    case 'pre-tool': {
      if (stop || json['stopReason'] !== undefined || json['suppressOutput'] === true) {
        return { ...failed('unsupported', 'answered with `continue`, `stopReason` or `suppressOutput`, which PreToolUse does not support'), ...(out.context ? { context: out.context } : {}) };
      }
      const pd = specific?.['permissionDecision'];
      const pdr = specific?.['permissionDecisionReason'];
      const updated = specific?.['updatedInput'];
      if (pd !== undefined || pdr !== undefined || updated !== undefined) {
        if (pd === 'deny' && nonEmpty(pdr)) return { ...out, effect: 'deny', reason: String(pdr), summary: 'permissionDecision deny' };
        if (pd === 'allow' && isObject(updated)) return { ...out, effect: 'allow', updatedInput: updated, summary: 'permissionDecision allow with updatedInput' };
        const why =
          pd === 'ask' || (pd === 'allow' && updated === undefined)
            ? `answered \`permissionDecision: ${String(pd)}\`, which Codex does not support`
            : pd === 'deny'
              ? 'denied without a reason'
              : 'answered with an incomplete permission decision';
        return { ...failed('unsupported decision', why), ...(out.context ? { context: out.context } : {}) };
      }
      if (decision === 'block' && reason) return { ...out, effect: 'deny', reason, summary: 'decision: block' };
      if (decision !== undefined || json['reason'] !== undefined) {
        return { ...failed('unsupported decision', `answered \`decision: ${String(decision)}\`${reason ? '' : ' without a reason'}, which Codex does not support`), ...(out.context ? { context: out.context } : {}) };
      }
      return out;
    }
    case 'post-tool': {
      if (stop) return { ...out, effect: 'block', reason: reason ?? stopReason ?? 'PostToolUse hook stopped execution', summary: 'continue: false' };
      if (decision === 'block' && reason) return { ...out, effect: 'block', reason, summary: 'decision: block' };
      if (decision !== undefined || json['reason'] !== undefined) return failed('unsupported decision', 'answered with a `decision` or `reason` Codex does not accept here');
      return out;
    }
    case 'prompt': {
      if (stop) return { ...out, effect: 'block', reason: stopReason ?? reason ?? 'stopped by a hook', summary: 'continue: false' };
      if (decision === 'block' && reason) return { ...out, effect: 'block', reason, summary: 'decision: block' };
      if (decision !== undefined || json['reason'] !== undefined) return failed('unsupported decision', 'answered with a `decision` or `reason` Codex does not accept here');
      return out;
    }
    case 'stop': {
      if (stop) return { ...out, effect: 'halt', reason: stopReason ?? 'stopped by a hook', summary: 'continue: false' };
      if (decision === 'block' && reason) return { ...out, effect: 'continue', reason, summary: 'decision: block' };
      if (decision !== undefined || json['reason'] !== undefined) return failed('unsupported decision', 'answered `decision: block` without a reason');
      return out;
    }
    case 'session-start':
      // `continue: false` ends the session before its first request.
      if (stop) return { ...out, effect: 'halt', reason: stopReason ?? 'stopped by a hook', summary: 'continue: false' };
      return out;
  }
}
