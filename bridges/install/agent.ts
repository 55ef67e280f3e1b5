/**
 * The agents dshpolicy installs into: those of the registry (../agents.ts) with an `install`
 * part, found by name or given as the object, and what the install commands say about them
 * (their names in messages, the options each takes). Nothing here names an agent: every answer
 * comes from the agents' parts.
 */
import { isHttpUrl } from '../../engine/index.js';
import type { Agent, AgentInstall } from '../agent.js';
import { agentNamed, agentsWith } from '../agents.js';

/** An agent dshpolicy can install its hook into. */
export type InstallableAgent = Agent & { readonly install: AgentInstall };

/** An installable agent, or its name in the registry. */
export type InstallAgentRef = InstallableAgent | string;

/** Every agent dshpolicy installs into, in registry order. */
export function installableAgents(): InstallableAgent[] {
  return agentsWith('install');
}

/** The agent `ref` names (or is), when dshpolicy installs into it. */
export function installableAgent(ref: InstallAgentRef): InstallableAgent | undefined {
  const agent = typeof ref === 'string' ? agentNamed(ref) : ref;
  return agent !== undefined && installs(agent) ? agent : undefined;
}

function installs(agent: Agent): agent is InstallableAgent {
  return agent.install !== undefined;
}

/**
 * The agent `ref` names, for functions whose agent is the calling code's choice rather than a
 * user's (a host checks a user's word with `installableAgent` first). A name of no agent
 * dshpolicy installs into is a mistake in that code: a TypeError.
 */
export function requireInstallable(ref: InstallAgentRef): InstallableAgent {
  const agent = installableAgent(ref);
  if (!agent) throw new TypeError(`dshpolicy installs into no agent named \`${String(ref)}\``);
  return agent;
}

/** The agent's name as messages write it: its title in lower case (`claude code`, `codex`). */
export function messageName(agent: Agent): string {
  return agent.title.toLowerCase();
}

/** Several agents' names for a message: `claude code and codex`. */
export function messageNames(agents: readonly Agent[], conjunction = 'and'): string {
  const names = agents.map(messageName);
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}

/** The options of an install that only some agents take. */
export interface AgentOptions {
  /** `--http <url>`: post the events to `dshpolicy serve` at the url. */
  http?: string | undefined;
  /** `--trust`: write the hook trust the agent needs. */
  trust?: boolean | undefined;
}

/**
 * What is wrong with installing into `agent` with these options, as a usage message (undefined:
 * nothing): an option the agent does not take (the agent says why), or an url that is not http(s).
 */
export function agentOptionProblem(agent: InstallableAgent, opts: AgentOptions): string | undefined {
  const name = messageName(agent);
  if (opts.http !== undefined && !agent.install.http) {
    const takers = messageNames(installableAgents().filter((a) => a.install.http));
    return `\`--http\` is for ${takers} only; ${agent.install.declines?.http ?? `${name} runs command hooks only`}`;
  }
  if (opts.trust && !agent.install.trust) {
    const takers = messageNames(installableAgents().filter((a) => a.install.trust));
    return `\`--trust\` is for ${takers}; ${agent.install.declines?.trust ?? `${name} needs no hook trust written for it`}`;
  }
  if (opts.http !== undefined && !isHttpUrl(opts.http)) return `\`${opts.http}\` is not an http(s) url`;
  return undefined;
}
