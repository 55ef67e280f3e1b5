/**
 * What hook mode needs of an agent (`dshpolicy hook <agent>`, `dshpolicy serve`): the `HookAgent`
 * interface, implemented in each agent's folder (`hook-agent.ts`), and the light registry of them.
 * It is apart from the `Agent` of agent.ts, which points at the same object as its `hookMode`,
 * because a hook process starts once per agent event and must not load the configuration
 * parsers the full agents bring. Importing it registers the engine's hook protocols (protocols.ts).
 */
import './protocols.js';
import type { AnyDecision, AnyEvent } from '../engine/index.js';
import type { HookAnswer } from './common/answer.js';
import type { TurnFacts } from './common/transcript.js';
import { claudeHookAgent } from './claude/hook-agent.js';
import { codexHookAgent } from './codex/hook-agent.js';
import { geminiHookAgent } from './gemini/hook-agent.js';

/** A payload read for deciding: the event, none to decide (no opinion), or why it cannot be read. */
export type ReadPayload =
  | { kind: 'event'; event: AnyEvent; name?: string }
  | { kind: 'other' }
  | { kind: 'error'; message: string; name?: string };

export interface AnswerOptions {
  /** What an `ask` becomes for an agent that cannot ask (Codex): a deny, or no opinion. */
  ask: 'deny' | 'none';
}

export interface HookAgent {
  /** The agent's name, as `dshpolicy hook <name>` takes it. */
  readonly name: string;
  /** The agent's own name, as messages write it. */
  readonly title: string;
  /** The directory of the agent's own configuration (the stop loop guard keeps its counts under it). */
  configDir(env: NodeJS.ProcessEnv, home: string): string;
  /** The variable in which the agent names the project directory to its hooks, if it names one. */
  readonly projectDirEnv?: string;
  /** The timeout the agent gives dshpolicy's own handler on the event when the handler names none. */
  handlerTimeoutMs(event: AnyEvent): number;
  /** Reads one parsed payload. Never throws. */
  read(value: unknown): ReadPayload;
  /** Says a decision in the agent's protocol. */
  answer(decision: AnyDecision, event: AnyEvent, opts: AnswerOptions): HookAnswer;
  /** The answer when the hook cannot decide: blocks what can be blocked, never traps a stop. */
  failClosed(eventName: string | undefined, message: string): HookAnswer;
  /** The hook event a payload that is not JSON names, read as best it can be. */
  eventNameOf(raw: string): string | undefined;
  /** The turn's facts for the stop seam, from the session's transcript. */
  readTurn?(path: string): Promise<TurnFacts>;
  /**
   * Whether an unexpected error while deciding is answered as a failed decision (fail closed) rather
   * than left to the process's crash handling: for agents that let a call through when the hook fails.
   */
  readonly answersErrors?: boolean;
}

export const HOOK_AGENTS: readonly HookAgent[] = [claudeHookAgent, codexHookAgent, geminiHookAgent];

/** The hook agent of that name, if there is one. */
export function hookAgentNamed(name: string): HookAgent | undefined {
  return HOOK_AGENTS.find((a) => a.name === name);
}
