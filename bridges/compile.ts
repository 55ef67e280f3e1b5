/**
 * Hooks configurations -> IR: each handler of a matcher group becomes a `run` rule that keeps its
 * agent's dialect (matcher syntax, shell, payload, output decoding): on the event's seam when it
 * has one, else on the `agent-event` pseudo-seam, where it runs with the agent's semantics for
 * that event. Whatever the IR cannot run offline is reported, never silently dropped.
 */
import {
  AGENT_EVENT_SEAM,
  HOOK_EVENT_SEAMS,
  agentEventInfo,
  hookProtocol,
  diagnostic,
  type Diagnostic,
  type HookSpec,
  type Rule,
  type RuleSeam,
  type Seam,
} from '../engine/index.js';
import type { HookHandler, HooksConfig, MatcherGroup } from './config.js';

/** Agent events that map onto a seam (both agents use these names). */
export const EVENT_SEAMS = HOOK_EVENT_SEAMS;

/** Events whose matcher the agents ignore. */
const MATCHERLESS = new Set(['UserPromptSubmit', 'Stop']);


/** Whether the group's agent tests its matcher on its event. */
function usesMatcher(group: MatcherGroup): boolean {
  if (MATCHERLESS.has(group.event)) return false;
  if (EVENT_SEAMS[group.event]) return true;
  return agentEventInfo(group.agent, group.event)?.matchField !== undefined;
}

export interface CompiledHooks {
  rules: Rule[];
  diagnostics: Diagnostic[];
}

function at(h: HookHandler | MatcherGroup): { span?: NonNullable<HookHandler['source']['span']>; pointer: string } {
  const out: { span?: NonNullable<HookHandler['source']['span']>; pointer: string } = { pointer: h.source.pointer };
  if (h.source.span) out.span = h.source.span;
  return out;
}

/** Whether the group's agent honours a handler option (`http`, `shell`, `if`). */
function takes(group: MatcherGroup, option: string): boolean {
  const p = hookProtocol(group.agent);
  return p !== undefined && p.unsupportedOption?.(option) === undefined;
}

/** Whether the group's agent tests a handler's condition on the group's event. */
function conditionRuns(group: MatcherGroup): boolean {
  return (hookProtocol(group.agent)?.conditionEvents ?? []).includes(group.event);
}

function compileHandler(group: MatcherGroup, h: HookHandler, seam: RuleSeam, out: CompiledHooks): void {
  const where = at(h);
  const label = `\`${group.event}\` hook \`${h.command ?? h.url ?? h.type}\``;
  if (h.type === 'http' && takes(group, 'http') && h.url !== undefined && h.url.trim() !== '') {
    compileHttpHandler(group, h, seam, out);
    return;
  }
  if (h.type !== 'command') {
    out.diagnostics.push(
      diagnostic('import/not-run', 'warning', `the ${label} is a \`${h.type}\` hook, which offline evaluation does not run`, {
        ...where,
        help: h.type === 'mcp_tool' ? 'an `mcp_tool` hook needs its MCP server; its decisions are missing from `eval`' : `a \`${h.type}\` hook needs a model to answer; its decisions are missing from \`eval\``,
      }),
    );
    return;
  }
  if (h.command === undefined || h.command.trim() === '') return;
  if (h.async === true || h.asyncRewake === true) {
    out.diagnostics.push(
      diagnostic('import/async', 'info', `the ${label} runs in the background, so it cannot decide; it is not run offline`, where),
    );
    return;
  }
  if (h.shell === 'powershell' && h.args === undefined) {
    out.diagnostics.push(
      diagnostic('import/not-run', 'warning', `the ${label} runs with PowerShell, which offline evaluation does not run`, {
        ...where,
        help: 'only `sh` and `bash` command hooks run offline; its decisions are missing from `eval`',
      }),
    );
    return;
  }
  const hook: HookSpec = { command: h.command, dialect: group.agent, event: group.event, source: { file: h.source.file, pointer: h.source.pointer } };
  if (group.matcher !== undefined && usesMatcher(group)) hook.matcher = group.matcher;
  if (h.shell === 'bash' && h.args === undefined && takes(group, 'shell')) hook.shell = 'bash';
  if (h.timeoutSec !== undefined) hook.timeoutMs = Math.max(1, Math.round(h.timeoutSec * 1000));
  if (h.args !== undefined) hook.args = h.args;
  if (group.pluginRoot !== undefined) hook.pluginRoot = group.pluginRoot;
  if (h.if !== undefined && takes(group, 'if')) {
    // Claude Code evaluates `if` on tool events only; elsewhere the handler never runs (the loader warns).
    if (!conditionRuns(group)) return;
    hook.if = h.if;
  }
  const rule: Rule = { id: `${h.source.file}#${h.source.pointer}`, seam, effect: 'run', hook };
  if (h.source.span) rule.span = h.source.span;
  out.rules.push(rule);
}

/** Claude Code's `http` handler: a `run` rule whose hook POSTs the payload to the URL. */
function compileHttpHandler(group: MatcherGroup, h: HookHandler, seam: RuleSeam, out: CompiledHooks): void {
  const hook: HookSpec = { command: h.url!, dialect: group.agent, event: group.event, http: {}, source: { file: h.source.file, pointer: h.source.pointer } };
  if (h.headers !== undefined) hook.http!.headers = h.headers;
  if (h.allowedEnvVars !== undefined) hook.http!.allowedEnvVars = h.allowedEnvVars;
  if (group.matcher !== undefined && usesMatcher(group)) hook.matcher = group.matcher;
  if (h.timeoutSec !== undefined) hook.timeoutMs = Math.max(1, Math.round(h.timeoutSec * 1000));
  if (group.pluginRoot !== undefined) hook.pluginRoot = group.pluginRoot;
  if (h.if !== undefined) {
    if (!conditionRuns(group)) return;
    hook.if = h.if;
  }
  const rule: Rule = { id: `${h.source.file}#${h.source.pointer}`, seam, effect: 'run', hook };
  if (h.source.span) rule.span = h.source.span;
  out.rules.push(rule);
}

/** Compiles a loaded hooks configuration into `run` rules. Never throws. */
export function compileHooks(config: HooksConfig): CompiledHooks {
  const out: CompiledHooks = { rules: [], diagnostics: [] };
  if (config.disabled) return out;
  const unevaluated = new Map<string, MatcherGroup>();
  for (const group of config.groups) {
    const seam: RuleSeam | undefined = EVENT_SEAMS[group.event] ?? (agentEventInfo(group.agent, group.event) ? AGENT_EVENT_SEAM : undefined);
    if (!seam) {
      if (!unevaluated.has(group.event)) unevaluated.set(group.event, group);
      continue;
    }
    for (const h of group.hooks) compileHandler(group, h, seam, out);
  }
  for (const [event, group] of unevaluated) {
    out.diagnostics.push(
      diagnostic('import/event-not-evaluated', 'warning', `hooks on \`${event}\` are loaded, but this agent does not run hooks on \`${event}\`, so they never run`, {
        ...at(group),
        help: 'check the event name against the agent\'s list of hook events',
      }),
    );
  }
  return out;
}
