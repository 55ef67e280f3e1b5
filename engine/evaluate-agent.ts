/**
 * Evaluating an agent event without a seam: the imported hooks configured on the event run (in
 * parallel, Claude Code's identical commands once), each answer is read with its agent's semantics
 * for the event, and the answers merge most-restrictive-wins over
 * `halt > deny > ask > block > continue > allow > none`.
 */
import type { Diagnostic } from './diagnostics.js';
import type { AgentEvent, AnyEvent } from './events.js';
import { AGENT_EVENT_DECISIONS, dialectTitle, hookProtocol, matcherInputs, type AgentEventDecisionWord, type AgentEventInfo } from './hooks/protocol.js';
import { ifSelects, type CompiledPolicy, type CompiledRule } from './compile.js';
import { hookDedupKey, evaluate, type Decision, type EvaluateOptions, type HookOutcome, type TraceEntry } from './evaluate.js';

/** An agent event's decision: the shape of a seam's, with the event's own words and answer. */
export interface AgentEventDecision extends Omit<Decision, 'seam' | 'decision'> {
  seam: 'agent-event';
  /** The agent's event name. */
  event: string;
  agent?: string;
  decision: AgentEventDecisionWord;
  /** The event's own answer: `worktreePath`, `action`/`content`, `retry`, `watchPaths`, `displayContent`. */
  output?: Record<string, unknown>;
}

export type AnyDecision = Decision | AgentEventDecision;


/** The value an agent event's hook matcher is tested against; undefined when the event has none. */
export function agentEventMatchValue(info: AgentEventInfo, event: AgentEvent): string | undefined {
  if (!info.matchField) return undefined;
  const v = event.fields[info.matchField];
  if (typeof v !== 'string') return '';
  return info.matchBaseName ? (v.split('/').pop() ?? v) : v;
}

/** Whether an imported hook's matcher selects the agent event (Codex: a tool by any of its names). */
export function agentMatcherSelectsEvent(cr: CompiledRule, info: AgentEventInfo, event: AgentEvent): boolean {
  const m = cr.matcher;
  const value = agentEventMatchValue(info, event);
  if (!m || value === undefined) return true;
  if (info.matchField === 'tool_name') return matcherInputs(info.dialect, value).some((v) => m.test(v));
  return m.test(value);
}

/**
 * The tool call of a tool event (PermissionRequest, PostToolUseFailure, ...), for a handler's
 * condition; undefined on events where the dialect's agent tests no condition.
 */
export function agentEventToolCall(event: AgentEvent, dialect: string): { tool: string; input: Record<string, unknown> } | undefined {
  const tool = event.fields['tool_name'];
  const input = event.fields['tool_input'];
  if (typeof tool !== 'string' || !(hookProtocol(dialect)?.conditionEvents ?? []).includes(event.event)) return undefined;
  return { tool, input: typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {} };
}


/** The hook rules that run on an agent event, in IR order. */
export function agentEventCandidates(policy: CompiledPolicy, event: AgentEvent): { cr: CompiledRule; info: AgentEventInfo }[] {
  const out: { cr: CompiledRule; info: AgentEventInfo }[] = [];
  for (const cr of policy.agentEvents.get(event.event) ?? []) {
    const hook = cr.rule.hook;
    if (!hook) continue;
    if (event.agent !== undefined && hook.dialect !== event.agent) continue;
    const info = hookProtocol(hook.dialect)?.agentEvents.get(event.event);
    if (!info) continue;
    if (agentMatcherSelectsEvent(cr, info, event) && ifSelects(cr, agentEventToolCall(event, hook.dialect), event)) out.push({ cr, info });
  }
  return out;
}

const RANK = new Map<string, number>(AGENT_EVENT_DECISIONS.map((w, i) => [w, i]));

/** Evaluates an agent event without a seam by running its imported hooks. Never throws. */
export async function evaluateAgentEvent(policy: CompiledPolicy, event: AgentEvent, opts: EvaluateOptions = {}): Promise<AgentEventDecision> {
  const pending = agentEventCandidates(policy, event);
  const diagnostics: Diagnostic[] = [];
  const firstOf = new Map<string, number>();
  const sharedWith = pending.map(({ cr }, i) => {
    const key = hookDedupKey(cr);
    if (key === undefined) return i;
    const first = firstOf.get(key);
    if (first === undefined) firstOf.set(key, i);
    return first ?? i;
  });
  // An agent may share one time budget among an event's hooks (Claude Code's SessionEnd).
  const budgets = new Map<string, number | undefined>();
  for (const { cr } of pending) {
    const d = cr.rule.hook!.dialect;
    if (!budgets.has(d)) budgets.set(d, hookProtocol(d)?.sharedBudgetMs?.(event.event, pending.filter((p) => p.cr.rule.hook!.dialect === d).map((p) => p.cr.rule.hook!)));
  }
  const outcomes = await Promise.all(
    pending.map(async ({ cr, info }, i): Promise<HookOutcome | undefined> => {
      if (sharedWith[i] !== i) return undefined;
      if (!opts.runner) return { exitCode: null, timedOut: false, summary: 'not run', diagnostics: [] };
      const budget = budgets.get(info.dialect);
      const runOpts = budget !== undefined ? { timeoutMs: budget } : {};
      try {
        return await opts.runner(cr, event, runOpts);
      } catch (err) {
        return { exitCode: null, timedOut: false, summary: 'runner error', reason: String(err) };
      }
    }),
  );
  if (!opts.runner && pending.length > 0) {
    diagnostics.push({ code: 'hook/not-run', severity: 'warning', message: `${pending.length} hook(s) on \`${event.event}\` could not run: no hook runner` });
  }

  const trace: TraceEntry[] = [];
  const hits: { id: string; effect: string; reason?: string; index: number }[] = [];
  const context: string[] = [];
  let updatedInput: Record<string, unknown> | undefined;
  let output: Record<string, unknown> | undefined;
  // Some agents (Codex) deny with the first denying hook's message only.
  const deniedIn = new Set<string>();
  pending.forEach(({ cr, info }, i) => {
    const shared = sharedWith[i] !== i;
    const o = outcomes[sharedWith[i]!]!;
    if (o.diagnostics && !shared) diagnostics.push(...o.diagnostics);
    const entry: TraceEntry = {
      rule: cr.rule.id,
      effect: o.effect ?? 'run',
      outcome: o.effect ? 'outranked' : 'abstained',
      hook: { exitCode: o.exitCode, timedOut: o.timedOut, summary: o.summary },
    };
    if (o.effect) {
      const firstOnly = hookProtocol(info.dialect)?.firstReasonOnly === true && o.effect === 'deny';
      const silent = firstOnly && deniedIn.has(info.dialect);
      if (firstOnly) deniedIn.add(info.dialect);
      const hit: { id: string; effect: string; reason?: string; index: number } = { id: cr.rule.id, effect: o.effect, index: i };
      if (o.reason !== undefined && !silent) {
        hit.reason = o.reason;
        entry.reason = o.reason;
      }
      if (o.reason !== undefined && silent) entry.note = `${dialectTitle(info.dialect)} shows only the first denying hook's message`;
      hits.push(hit);
    }
    context.push(...(o.context ?? []));
    if (o.updatedInput && o.effect === 'allow') updatedInput = o.updatedInput;
    if (o.output) output = { ...output, ...o.output };
    if (shared) entry.note = `the same command as \`${pending[sharedWith[i]!]!.cr.rule.id}\`, which ${dialectTitle(info.dialect)} runs once`;
    trace.push(entry);
  });

  let decision: AgentEventDecisionWord = 'none';
  for (const h of hits) if ((RANK.get(h.effect) ?? 99) < (RANK.get(decision) ?? 99)) decision = h.effect as AgentEventDecisionWord;
  const winners = hits.filter((h) => h.effect === decision);
  const reasons = [...new Set(winners.flatMap((h) => (h.reason !== undefined ? [h.reason] : [])))];
  const rules = winners.map((h) => h.id);
  for (const entry of trace) if (entry.outcome === 'outranked' && rules.includes(entry.rule)) entry.outcome = 'decided';
  const out: AgentEventDecision = { seam: 'agent-event', event: event.event, decision, reasons, context, rules, trace, diagnostics };
  if (event.agent !== undefined) out.agent = event.agent;
  if (reasons.length > 0) out.reason = reasons.join('\n\n');
  if (updatedInput && decision === 'allow') out.updatedInput = updatedInput;
  if (output) out.output = output;
  return out;
}

/** Evaluates any event: a seam's by the policy's rules and hooks, an agent event by its hooks. Never throws. */
export function evaluateAny(policy: CompiledPolicy, event: AnyEvent, opts: EvaluateOptions = {}): Promise<AnyDecision> {
  return event.seam === 'agent-event' ? evaluateAgentEvent(policy, event, opts) : evaluate(policy, event, opts);
}
