/**
 * Codex's reading of a command hook's answer on an agent event without a seam: strictly (unknown
 * keys and unsupported fields make a failed hook, which never decides). What each event honours
 * is in its event table (event-table.ts).
 */
import type { AgentEvent, HookOutcome } from '../../engine/index.js';
import { isObject, nonEmpty, parseObject, type RawHookResult } from '../common/hook-output.js';
import { codexStart } from './decode.js';
import type { CodexEventInfo } from './event-table.js';

const CODEX_TOP_LEVEL = ['continue', 'stopReason', 'suppressOutput', 'systemMessage', 'decision', 'reason', 'hookSpecificOutput'];

/** Codex's reading of a command hook's answer on an agent event without a seam. */
export function decodeCodexAgentEvent(raw: RawHookResult, event: AgentEvent, info: CodexEventInfo, ruleId: string, command: string): HookOutcome {
  const { base, failed, fault } = codexStart(raw, ruleId, command);
  if (fault) return fault;
  if (raw.exitCode === 2) {
    const reason = raw.stderr.trim();
    if (!reason) return failed('exit 2, no reason', 'exited with 2 but wrote no reason to stderr');
    if (!info.exit2) return failed('exit 2', `exited with 2, which means nothing on ${event.event}`);
    return { ...base, effect: info.exit2, reason, summary: 'exit 2' };
  }
  if (raw.exitCode !== 0) return failed(`exit ${raw.exitCode}`, `exited with ${raw.exitCode}`);
  const text = raw.stdout.trim();
  if (text === '') return { ...base, summary: 'exit 0' };
  const json = parseObject(text);
  if (!json) {
    if (text.startsWith('{') || text.startsWith('[')) return failed('invalid JSON', 'printed output that looks like JSON but is not a JSON object Codex reads');
    if (info.plainContext) return { ...base, context: [text], summary: 'exit 0, text' };
    if (info.block === 'continue') return failed('text', `printed text that is not JSON, which a ${event.event} hook may not`);
    return { ...base, summary: 'exit 0, text ignored' };
  }
  const unknown = Object.keys(json).filter((k) => !CODEX_TOP_LEVEL.includes(k));
  if (unknown.length > 0) return failed('unknown keys', `answered with unknown key \`${unknown[0]}\``);
  let specific: Record<string, unknown> | undefined;
  if (json['hookSpecificOutput'] !== undefined) {
    const allowed = info.codexSpecific;
    if (!allowed || !isObject(json['hookSpecificOutput'])) return failed('bad hookSpecificOutput', 'answered with a `hookSpecificOutput` this event does not take');
    specific = json['hookSpecificOutput'];
    if (typeof specific['hookEventName'] !== 'string') return failed('no hookEventName', `answered with a \`hookSpecificOutput\` without \`hookEventName\` during \`${event.event}\``);
    const extra = Object.keys(specific).filter((k) => k !== 'hookEventName' && !allowed.includes(k));
    if (extra.length > 0) return failed('unknown keys', `answered with unknown key \`hookSpecificOutput.${extra[0]}\``);
  }
  const out: HookOutcome = { ...base, summary: 'exit 0, JSON' };
  const context = nonEmpty(specific?.['additionalContext']);
  if (context !== undefined && info.context) out.context = [context];
  const stop = json['continue'] === false;
  const decision = json['decision'];
  const reason = nonEmpty(json['reason']);
  if (info.special === 'permission-request') {
    if (stop || json['stopReason'] !== undefined || json['suppressOutput'] === true) {
      return failed('unsupported', 'answered with `continue`, `stopReason` or `suppressOutput`, which PermissionRequest does not support');
    }
    const d = specific?.['decision'];
    if (d === undefined) return out;
    if (!isObject(d) || (d['behavior'] !== 'allow' && d['behavior'] !== 'deny')) return failed('invalid decision', 'answered with a `decision` whose `behavior` is not `allow` or `deny`');
    if (d['updatedInput'] !== undefined || d['updatedPermissions'] !== undefined || d['interrupt'] === true) {
      return failed('unsupported', 'answered with `updatedInput`, `updatedPermissions` or `interrupt`, which Codex does not support');
    }
    if (d['behavior'] === 'allow') return { ...out, effect: 'allow', summary: 'decision.behavior allow' };
    return { ...out, effect: 'deny', reason: nonEmpty(d['message']) ?? 'PermissionRequest hook denied approval', summary: 'decision.behavior deny' };
  }
  if (stop && info.halt) return { ...out, effect: 'halt', reason: nonEmpty(json['stopReason']) ?? 'stopped by a hook', summary: 'continue: false' };
  if (decision !== undefined || json['reason'] !== undefined) {
    if (decision === 'block' && reason && info.block) return { ...out, effect: info.block, reason, summary: 'decision: block' };
    return failed('unsupported decision', `answered with a \`decision\` or \`reason\` Codex does not accept on ${event.event}`);
  }
  return out;
}
