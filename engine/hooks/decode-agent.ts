/**
 * Decoding a command hook's answer on an agent event without a seam, the way its agent reads it:
 * Claude Code leniently (JSON decides whatever the exit code; exit 2 blocks where the event can
 * block), Codex strictly (unknown keys and unsupported fields make a failed hook, which never
 * decides). What each event honours is in agent-events.ts.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { AgentEvent } from '../events.js';
import type { HookOutcome } from '../evaluate.js';
import type { AgentEventInfo } from '../agent-events.js';
import { claudeSpecific, decodeFault, failureText, type RawHookResult } from './decode.js';
import { codexStart } from './decode-codex.js';

type Base = { exitCode: number | null; timedOut: boolean; diagnostics: Diagnostic[] };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/** Claude Code's reading of a command hook's answer on an agent event without a seam. */
export function decodeClaudeAgentEvent(raw: RawHookResult, event: AgentEvent, info: AgentEventInfo, ruleId: string, command: string): HookOutcome {
  const diagnostics: Diagnostic[] = [];
  const base: Base = { exitCode: raw.exitCode, timedOut: raw.timedOut, diagnostics };
  const warn = (code: string, message: string) => diagnostics.push(diagnostic(code, 'warning', `rule \`${ruleId}\`: ${message}`));
  const fault = decodeFault(raw, base, warn, command);
  if (fault) return fault;

  if (info.special === 'worktree-create') {
    // The last non-empty line of stdout is the new worktree's path; any failing exit fails it.
    if (raw.exitCode !== 0) {
      return { ...base, effect: 'block', reason: raw.stderr.trim() || `the hook exited with ${raw.exitCode}`, summary: `exit ${raw.exitCode}` };
    }
    const lines = raw.stdout.replace(ANSI, '').split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const path = lines[lines.length - 1];
    if (path === undefined) return { ...base, effect: 'block', reason: 'the hook printed no worktree path', summary: 'exit 0, no path' };
    return { ...base, output: { worktreePath: path }, summary: 'exit 0, path' };
  }

  const text = raw.stdout.trim();
  const json = text.startsWith('{') ? parseObject(text) : undefined;
  if (raw.exitCode === 2) {
    const out: HookOutcome = { ...base, summary: 'exit 2' };
    if (!info.exit2) return out;
    // A blocking reason the JSON gives wins over stderr (Elicitation ignores the JSON on exit 2).
    const fromJson = json && info.special !== 'elicitation' ? decodeClaudeJson(json, event, info, base, () => undefined) : undefined;
    out.effect = info.exit2;
    out.reason = (fromJson?.effect === info.exit2 ? fromJson.reason : undefined) ?? (raw.stderr.trim() || 'No stderr output');
    if (info.special === 'elicitation') out.output = { action: 'decline' };
    return out;
  }
  if (raw.exitCode !== 0) {
    warn('hook/failed', failureText(raw, command));
    if (json) return { ...decodeClaudeJson(json, event, info, base, warn), summary: `exit ${raw.exitCode}, JSON` };
    return { ...base, summary: `exit ${raw.exitCode}` };
  }
  if (!json) {
    const out: HookOutcome = { ...base, summary: text.startsWith('{') ? 'exit 0, output not JSON' : 'exit 0' };
    if (text && info.plainContext) out.context = [text];
    return out;
  }
  return decodeClaudeJson(json, event, info, base, warn);
}

function decodeClaudeJson(
  json: Record<string, unknown>,
  event: AgentEvent,
  info: AgentEventInfo,
  base: Base,
  warn: (code: string, message: string) => void,
): HookOutcome {
  const out: HookOutcome = { ...base, summary: 'exit 0, JSON' };
  const checked = claudeSpecific(json, event.event, base, warn);
  if ('void' in checked) return checked.void;
  const specific = checked.specific;
  if (json['continue'] === false && info.halt) {
    return { ...out, effect: 'halt', reason: nonEmpty(json['stopReason']) ?? 'stopped by a hook', summary: 'continue: false' };
  }
  if (json['decision'] === 'block' && info.block) {
    if (info.name === 'ConfigChange' && event.fields['source'] === 'policy_settings') {
      out.summary = 'decision: block (ignored for policy settings)';
    } else {
      out.effect = info.block;
      out.reason = nonEmpty(json['reason']) ?? 'Blocked by hook';
      out.summary = 'decision: block';
    }
  }
  const output: Record<string, unknown> = {};
  if (specific) {
    switch (info.special) {
      case 'permission-request': {
        const d = specific['decision'];
        if (d === undefined) break;
        if (!isObject(d) || (d['behavior'] !== 'allow' && d['behavior'] !== 'deny')) {
          warn('hook/bad-output', '`decision.behavior` must be `allow` or `deny`; Claude Code rejects the whole answer');
          return { ...base, summary: 'invalid decision' };
        }
        if (d['behavior'] === 'allow') {
          out.effect = 'allow';
          out.summary = 'decision.behavior allow';
          if (isObject(d['updatedInput'])) out.updatedInput = d['updatedInput'];
        } else {
          out.effect = d['interrupt'] === true ? 'halt' : 'deny';
          // Claude Code's own words for a deny without a message (2.1.328, seen running).
          out.reason = nonEmpty(d['message']) ?? 'Permission denied by hook';
          out.summary = d['interrupt'] === true ? 'decision.behavior deny, interrupt' : 'decision.behavior deny';
        }
        break;
      }
      case 'permission-decision': {
        const pd = specific['permissionDecision'];
        if (pd === undefined) break;
        const why = nonEmpty(specific['permissionDecisionReason']);
        if (pd === 'deny') Object.assign(out, { effect: 'deny', reason: why ?? 'Blocked by hook' });
        else if (pd === 'ask' || pd === 'defer') Object.assign(out, { effect: 'ask', reason: why ?? 'the hook asks for approval' });
        else if (pd === 'allow') out.effect = 'allow';
        else {
          warn('hook/bad-output', `unknown permissionDecision \`${String(pd)}\`; Claude Code rejects the whole answer`);
          return { ...base, summary: 'invalid permissionDecision' };
        }
        out.summary = `permissionDecision ${String(pd)}`;
        break;
      }
      case 'elicitation': {
        const action = specific['action'];
        if (action === undefined) break;
        if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
          warn('hook/bad-output', '`action` must be `accept`, `decline` or `cancel`; Claude Code rejects the whole answer');
          return { ...base, summary: 'invalid action' };
        }
        output['action'] = action;
        if (specific['content'] !== undefined) output['content'] = specific['content'];
        if (action === 'accept') out.effect = 'allow';
        else Object.assign(out, { effect: 'deny', reason: `the hook answered \`${action}\`` });
        out.summary = `action ${action}`;
        break;
      }
      case 'permission-denied':
        if (specific['retry'] === true) output['retry'] = true;
        break;
      case 'message-display':
        if (typeof specific['displayContent'] === 'string') output['displayContent'] = specific['displayContent'];
        break;
      default:
        break;
    }
    for (const key of info.outputs ?? []) if (specific[key] !== undefined) output[key] = specific[key];
    const ctx = nonEmpty(specific['additionalContext']);
    if (ctx !== undefined && info.context) {
      // On SubagentStop, context is feedback that keeps the subagent working, as on Stop.
      if (info.block === 'continue' && !out.effect) Object.assign(out, { effect: 'continue', reason: ctx, summary: 'additionalContext' });
      else out.context = [ctx];
    }
  }
  const sys = nonEmpty(json['systemMessage']);
  if (sys !== undefined && info.systemMessageContext && event.fields['source'] === 'slash_command') out.context = [...(out.context ?? []), sys];
  if (Object.keys(output).length > 0) out.output = output;
  return out;
}

const CODEX_TOP_LEVEL = ['continue', 'stopReason', 'suppressOutput', 'systemMessage', 'decision', 'reason', 'hookSpecificOutput'];

/** Codex's reading of a command hook's answer on an agent event without a seam. */
export function decodeCodexAgentEvent(raw: RawHookResult, event: AgentEvent, info: AgentEventInfo, ruleId: string, command: string): HookOutcome {
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
