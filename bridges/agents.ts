/**
 * The registry of agents: every agent dshpolicy knows, in the order messages list them. Adding an
 * agent is one folder under bridges/ (its `agent.ts` implementing `Agent`) and one line here; see
 * docs/adding-an-agent.md.
 */
import { alternatives } from '../engine/index.js';
import type { Agent } from './agent.js';
import { claude } from './claude/agent.js';
import { codex } from './codex/agent.js';
import { gemini } from './gemini/agent.js';

export const AGENTS: readonly Agent[] = [claude, codex, gemini];

/** The agent of that name, if dshpolicy knows one. */
export function agentNamed(name: string): Agent | undefined {
  return AGENTS.find((a) => a.name === name);
}

/** The agents that have a part (`hooks`, `install`, ...), in registry order. */
export function agentsWith<K extends keyof Agent>(part: K): (Agent & Required<Pick<Agent, K>>)[] {
  return AGENTS.filter((a): a is Agent & Required<Pick<Agent, K>> => a[part] !== undefined);
}

/** `` `claude`, `codex` or `gemini` ``: the names of some agents, for a message. */
export function agentNameList(agents: readonly Agent[], conjunction = 'or'): string {
  return alternatives(agents.map((a) => `\`${a.name}\``), conjunction);
}
