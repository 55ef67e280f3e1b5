/**
 * Claude Code's hook protocol, as the engine runs an imported Claude Code hook
 * (engine/hooks/protocol.ts): `sh -c` (or bash with `shell: "bash"`), `CLAUDE_PROJECT_DIR` and
 * `CLAUDE_PLUGIN_ROOT` set, the payload as Claude Code sends it, its lenient reading of the answer,
 * its matchers, its `if` conditions, identical handlers of one event run once, and SessionEnd's
 * shared budget.
 */
import { DEFAULT_HOOK_TIMEOUT_MS, HOOK_EVENT_SEAMS, type HookProtocol, type RuleSeam, type HookSpec } from '../../engine/index.js';
import { decodeClaudeHookResult } from './decode.js';
import { decodeClaudeAgentEvent } from './decode-agent.js';
import { CLAUDE_EVENT_TABLE, CLAUDE_IF_EVENTS } from './event-table.js';
import { claudeMatcher } from './matcher.js';
import { claudePayload, claudePayloadText } from './payload.js';
import { claudeRuleMatches, parseClaudeRule } from './permission-rule.js';

/** Claude Code's default for command hooks on UserPromptSubmit. */
export const CLAUDE_PROMPT_TIMEOUT_MS = 30_000;

/** SessionEnd's hooks share a budget: 1.5 s, or the longest timeout a settings hook names, up to a minute. */
const SESSION_END_BUDGET_MS = 1_500;
const SESSION_END_MAX_MS = 60_000;

function defaultTimeoutMs(seam: RuleSeam, event?: string): number {
  if (seam === 'prompt') return CLAUDE_PROMPT_TIMEOUT_MS;
  if (seam === 'agent-event') return (event !== undefined ? CLAUDE_EVENT_TABLE.get(event)?.timeoutMs : undefined) ?? DEFAULT_HOOK_TIMEOUT_MS;
  return DEFAULT_HOOK_TIMEOUT_MS;
}

export const claudeProtocol: HookProtocol = {
  dialect: 'claude',
  title: 'Claude Code',
  seamEvents: HOOK_EVENT_SEAMS,
  agentEvents: CLAUDE_EVENT_TABLE,
  defaultTimeoutMs,
  shell: (hook) => (hook.shell === 'bash' ? '/bin/bash' : '/bin/sh'),
  environment(hook, cwd, env) {
    env['CLAUDE_PROJECT_DIR'] ??= cwd;
    if (hook.pluginRoot !== undefined) env['CLAUDE_PLUGIN_ROOT'] = hook.pluginRoot;
  },
  placeholders: ['CLAUDE_PROJECT_DIR', 'CLAUDE_PLUGIN_ROOT', 'CLAUDE_PLUGIN_DATA', 'PLUGIN_ROOT'],
  payload: claudePayload,
  payloadText: claudePayloadText,
  decode: decodeClaudeHookResult,
  decodeAgentEvent: decodeClaudeAgentEvent,
  compileMatcher: claudeMatcher,
  matcherInputs: (tool) => [tool],
  compileCondition(text) {
    const rule = parseClaudeRule(text).rule;
    if (!rule) return 'invalid';
    return { test: (call, ctx) => claudeRuleMatches(rule, call, { ...ctx, mode: 'if' }) };
  },
  checkCondition: (text) => parseClaudeRule(text).error ?? null,
  conditionEvents: CLAUDE_IF_EVENTS,
  firstReasonOnly: false,
  // Settings files' identical handlers of one event run once (plugins' are not merged).
  dedupKey: (h: HookSpec) => (h.event === undefined || h.pluginRoot !== undefined ? undefined : JSON.stringify([h.event, h.http ? 'http' : 'command', h.command, h.args ?? null])),
  sharedBudgetMs(event, hooks) {
    if (event !== 'SessionEnd') return undefined;
    return Math.min(SESSION_END_MAX_MS, Math.max(SESSION_END_BUDGET_MS, ...hooks.filter((h) => h.pluginRoot === undefined).map((h) => h.timeoutMs ?? 0)));
  },
};
