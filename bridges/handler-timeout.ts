/**
 * The timeout `dshpolicy install` writes on its handler, from the policy: long enough for the
 * slowest `run` hook (imported ones included) and the margin the hook keeps below it for itself
 * (bridges/deadline.ts), never past the longest each agent takes (its `install` part says how long).
 * A hook whose own timeout cannot fit under that is reported, by `check` and `install`, at its rule.
 * An agent is an installable agent or its name (another name is a TypeError).
 */
import { DEFAULT_HOOK_TIMEOUT_MS, diagnostic, hookProtocol, type Diagnostic, type PolicyIR, type Rule } from '../engine/index.js';
import { DEADLINE_MARGIN_SEC } from './deadline.js';
import { installableAgents, messageName, requireInstallable, type InstallableAgent, type InstallAgentRef } from './install/agent.js';

/**
 * The handler timeout, in seconds, of a policy that runs no hook (or only quick ones): the hook's
 * own start-up, a compile on a cold cache and the answer fit well inside it.
 */
export const MIN_HANDLER_TIMEOUT_SEC = 30;

/** How long a `run` rule's hook may run: its `timeout`, else the default its dialect's agent gives it on the rule's event. */
export function runHookTimeoutMs(rule: Rule): number {
  const hook = rule.hook!;
  if (hook.timeoutMs !== undefined) return hook.timeoutMs;
  return hookProtocol(hook.dialect)?.defaultTimeoutMs(rule.seam, hook.event) ?? DEFAULT_HOOK_TIMEOUT_MS;
}

/** The `run` rules the agent's hook can run: every seam's, and those on agent events the agent has. */
function runRules(ir: PolicyIR, agent: InstallableAgent): Rule[] {
  return ir.rules.filter((r) => r.hook !== undefined && (r.seam !== 'agent-event' || (r.hook.event !== undefined && agent.install.hasAgentEvent(r.hook.event))));
}

/** The hook's deadline under a handler timeout: the margin below it (as `dshpolicy hook --deadline` is given it). */
export function hookDeadlineSec(handlerSec: number): number {
  return handlerSec - DEADLINE_MARGIN_SEC;
}

/** The longest a `run` hook may take and still answer in time under the agent's longest handler timeout. */
export function longestFittingMs(agent: InstallAgentRef): number {
  return hookDeadlineSec(requireInstallable(agent).install.maxHandlerTimeoutSec) * 1000;
}

export interface HandlerTimeout {
  /** Seconds, as the handler's `timeout` is written. */
  seconds: number;
  /** The rule whose hook takes longest, and how long it may take (ms); absent when the policy runs none. */
  longest?: { rule: Rule; ms: number };
  /** The agent's longest handler timeout was the bound. */
  capped: boolean;
}

/**
 * The handler timeout for `ir` in `agent`: the longest `run` hook plus the margin, at least
 * MIN_HANDLER_TIMEOUT_SEC, at most the agent's longest. `ir` undefined (a user install that reads
 * each project's policy): the agent's longest, since any policy may run there.
 */
export function handlerTimeout(ir: PolicyIR | undefined, agentRef: InstallAgentRef): HandlerTimeout {
  const agent = requireInstallable(agentRef);
  const max = agent.install.maxHandlerTimeoutSec;
  if (ir === undefined) return { seconds: max, capped: true };
  let longest: { rule: Rule; ms: number } | undefined;
  for (const rule of runRules(ir, agent)) {
    const ms = runHookTimeoutMs(rule);
    if (longest === undefined || ms > longest.ms) longest = { rule, ms };
  }
  if (longest === undefined) return { seconds: MIN_HANDLER_TIMEOUT_SEC, capped: false };
  const wanted = Math.max(MIN_HANDLER_TIMEOUT_SEC, Math.ceil(longest.ms / 1000) + DEADLINE_MARGIN_SEC);
  return { seconds: Math.min(wanted, max), longest, capped: wanted > max };
}

function durationText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/**
 * `check/hook-timeout-exceeds`: a `run` rule whose own `timeout` is longer than its hook can have
 * under the agents' longest handler timeout (`agents`: the ones the policy may be installed in;
 * default every agent dshpolicy installs into). Rules without a `timeout` are not reported: they get the agents' default, and
 * the hook's deadline, a few seconds short of it, bounds them as the agent itself would.
 */
export function hookTimeoutLints(ir: PolicyIR, agentRefs: readonly InstallAgentRef[] = installableAgents()): Diagnostic[] {
  const out: Diagnostic[] = [];
  const agents = agentRefs.map(requireInstallable);
  if (agents.length === 0) return out;
  const limits = agents.map((a) => ({ agent: a, fit: longestFittingMs(a) }));
  const tightest = limits.reduce((a, b) => (b.fit < a.fit ? b : a));
  const names = (fit: number) => limits.filter((l) => l.fit === fit).map((l) => messageName(l.agent)).join(' and ');
  const who = names(tightest.fit);
  const maxSec = tightest.agent.install.maxHandlerTimeoutSec;
  const rules = new Set(agents.flatMap((a) => runRules(ir, a)));
  for (const rule of ir.rules) {
    const ms = rule.hook?.timeoutMs;
    if (ms === undefined || ms <= tightest.fit || !rules.has(rule)) continue;
    // An imported hook's timeout is written in its agent's file, in seconds.
    const imported = rule.hook!.event !== undefined;
    const written = imported ? `\`${ms / 1000}\` s` : `\`${durationText(ms)}\``;
    const fix = imported ? `set its \`timeout\` to ${tightest.fit / 1000} or less` : `give it a \`timeout\` of ${durationText(tightest.fit)} or less`;
    out.push(
      diagnostic(
        'check/hook-timeout-exceeds',
        'warning',
        `the timeout of this hook (${written}) cannot fit: ${who} ${who.includes(' and ') ? 'wait' : 'waits'} at most ${maxSec} s for dshpolicy's hook, which answers ${DEADLINE_MARGIN_SEC} s before that`,
        {
          span: rule.span,
          help: `past ${durationText(tightest.fit)} the hook is ended and counts as not answering in time (a tool call is denied, a prompt blocked); ${fix}`,
        },
      ),
    );
  }
  return out;
}
