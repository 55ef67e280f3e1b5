/**
 * Claude Code's reading of a command hook's answer on an agent event without a seam: leniently
 * (JSON decides whatever the exit code; exit 2 blocks where the event can block). What each event
 * honours is in its event table (event-table.ts).
 */
import { diagnostic, type AgentEvent, type AgentEventInfo, type Diagnostic, type HookOutcome } from '../../engine/index.js';
import { decodeFault, failureText, isObject, nonEmpty, parseObject, type RawHookResult } from '../common/hook-output.js';
import { claudeSpecific } from './decode.js';

type Base = { exitCode: number | null; timedOut: boolean; diagnostics: Diagnostic[] };

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
