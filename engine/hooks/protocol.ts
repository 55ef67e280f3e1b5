/**
 * How an agent runs its command hooks, as the engine needs to know it to run an imported hook the
 * way that agent would: the `HookProtocol` interface, and the registry of the protocols a process
 * knows (keyed by the IR's `hook.dialect`).
 *
 * The engine names no agent: each agent's protocol lives in its folder under bridges/ and is
 * registered there (bridges/protocols.ts registers the built-in ones; the package's entry points
 * import it, so every host has them). A rule whose dialect no protocol is registered for never
 * runs: it fails closed, as a hook that could not start.
 *
 * What a protocol says: its events (the ones that are seams and the ones without), the payload a
 * hook reads on stdin, how exit codes and output are read, the matcher dialect of its hook groups,
 * the shell and environment of a command hook, default timeouts, and the few ways its agent merges
 * several hooks' answers (identical handlers run once, only the first blocking reason shows).
 */
import type { AgentEvent, AnyEvent, PolicyEvent } from '../events.js';
import type { HookOutcome } from '../evaluate.js';
import type { HookSpec, RuleSeam, Seam } from '../ir.js';

/** What a hook can do to an agent event, most restrictive first. */
export const AGENT_EVENT_DECISIONS = ['halt', 'deny', 'ask', 'block', 'continue', 'allow', 'none'] as const;
export type AgentEventDecisionWord = (typeof AGENT_EVENT_DECISIONS)[number];
export type AgentEffect = Exclude<AgentEventDecisionWord, 'none'>;

/** Output channels of an agent event that need their own reading. */
export type AgentEventSpecial =
  /** `hookSpecificOutput.decision = {behavior: allow|deny, message?, updatedInput?, interrupt?}` */
  | 'permission-request'
  /** `hookSpecificOutput.retry` */
  | 'permission-denied'
  /** `hookSpecificOutput.action` (`accept|decline|cancel`) and `content` */
  | 'elicitation'
  /** the last non-empty stdout line is the worktree's path; any other exit than 0 fails the creation */
  | 'worktree-create'
  /** `hookSpecificOutput.displayContent` */
  | 'message-display'
  /** `permissionDecision` as on PreToolUse */
  | 'permission-decision';

/** What an agent does with hooks on one of its events that has no seam. */
export interface AgentEventInfo {
  name: string;
  dialect: string;
  /** The payload field the group's matcher is tested against; absent when the agent ignores matchers. */
  matchField?: string;
  /** The matcher is tested against the base name of the match field's path (Claude Code's FileChanged). */
  matchBaseName?: boolean;
  /** A narrower exact-name class for the matcher (Claude Code's FileChanged, StopFailure). */
  narrowMatcher?: boolean;
  /** What exit code 2 does; absent when it decides nothing. */
  exit2?: AgentEffect;
  /** What `decision: "block"` does; absent when the agent ignores it. */
  block?: AgentEffect;
  /** Whether `continue: false` (with `stopReason`) halts the agent here. */
  halt: boolean;
  /** Whether `hookSpecificOutput.additionalContext` is honoured. */
  context: boolean;
  /** Whether plain (non-JSON) stdout on exit 0 is context. */
  plainContext?: boolean;
  /** Whether `systemMessage` reaches the model as context. */
  systemMessageContext?: boolean;
  /** Output fields passed through as the event's answer (`watchPaths`, `retry`, ...). */
  outputs?: readonly string[];
  special?: AgentEventSpecial;
  /** Default timeout of a command hook, when it is not the agent's usual one. */
  timeoutMs?: number;
  /** One line for reports: what the event is and what a hook can do there. */
  summary: string;
}

/** What a command hook's run gave, before its agent's reading of it. */
export interface RawHookResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  spawnError?: string;
  /** Set for an `http` hook: its failures are requests that failed, not exit codes. */
  http?: true;
}

/** Longest value a hook group's matcher is tested against; longer values never match. */
export const MAX_MATCHER_INPUT = 256;

/** A hook group's matcher, compiled: tests one short value (a tool name, a source, a trigger). */
export interface AgentMatcher {
  /** How the pattern is read: every value, a list of exact names, or a regex. */
  readonly kind: 'all' | 'exact' | 'regex' | 'invalid';
  /** For `invalid`: why the agent rejects the pattern (the group never fires). */
  readonly error?: string;
  test(value: string): boolean;
}

export interface AgentMatcherOptions {
  /** The event's narrower exact-name class (see `AgentEventInfo.narrowMatcher`). */
  narrow?: boolean;
}

/** A tool call a handler's condition is tested against. */
export interface ConditionCall {
  tool: string;
  input: Record<string, unknown>;
}

/** A handler's condition (Claude Code's `if`), compiled. */
export interface HookCondition {
  test(call: ConditionCall, ctx: { cwd: string; home?: string }): boolean;
}

export interface HookProtocol {
  /** The IR's `hook.dialect` for this agent's hooks. */
  readonly dialect: string;
  /** The agent's own name, as messages write it (`Claude Code`). */
  readonly title: string;
  /** The agent's events that are seams, by event name (`PreToolUse` -> `pre-tool`). */
  readonly seamEvents: Readonly<Record<string, Seam>>;
  /** The agent's events without a seam, by name. */
  readonly agentEvents: ReadonlyMap<string, AgentEventInfo>;
  /** The timeout a handler that names none gets on a seam's event, or on the agent event named. */
  defaultTimeoutMs(seam: RuleSeam, event?: string): number;
  /** The shell a command hook runs in (`/bin/sh`, `/bin/bash`). */
  shell(hook: HookSpec): string;
  /** Sets the variables the agent gives its hooks (its project directory, a plugin's root) in `env`. */
  environment(hook: HookSpec, cwd: string, env: NodeJS.ProcessEnv): void;
  /** The `${NAME}` placeholders the agent fills in an exec-form hook's words. */
  readonly placeholders: readonly string[];
  /** Payload keys only this agent sends, which tell a raw payload that names no agent as its (Codex's `model`). */
  readonly payloadMarkers?: readonly string[];
  /** The payload as the agent sends it. */
  payload(event: AnyEvent): Record<string, unknown>;
  /** The payload's bytes on stdin. */
  payloadText(event: AnyEvent): string;
  /** Reads a seam event's hook result as the agent does. Never throws. */
  decode(raw: RawHookResult, event: PolicyEvent, ruleId: string, command: string): HookOutcome;
  /** Reads an agent event's hook result as the agent does. Never throws. */
  decodeAgentEvent(raw: RawHookResult, event: AgentEvent, info: AgentEventInfo, ruleId: string, command: string): HookOutcome;
  /** Compiles a hook group's matcher in the agent's dialect. Never throws. */
  compileMatcher(pattern: string | undefined, opts?: AgentMatcherOptions): AgentMatcher;
  /** The names a tool goes by for the agent's matchers (the tool's own name first). */
  matcherInputs(tool: string): string[];
  /** Compiles a handler's condition (`if`); `invalid` when it cannot be read (the handler never runs). */
  compileCondition?(text: string): HookCondition | 'invalid';
  /** Why a condition cannot be read, with the offset of the problem in it; null when it can. */
  checkCondition?(text: string): { message: string; offset: number } | null;
  /**
   * Why the agent's hooks cannot take a `with {...}` option of a `run` rule (`args`, `shell`, `if`,
   * `http`, `plugin_root`): the message and the fix; undefined when they take it.
   */
  unsupportedOption?(option: string): { message: string; help: string } | undefined;
  /** The events on which the agent tests a handler's condition (elsewhere a handler with one never runs). */
  readonly conditionEvents?: readonly string[];
  /** Whether only the first blocking hook's reason reaches the model (the others block silently). */
  readonly firstReasonOnly: boolean;
  /** The key under which the agent runs identical handlers of one event once; undefined: never merged. */
  dedupKey?(hook: HookSpec): string | undefined;
  /** A time budget the agent shares among an event's hooks (undefined: each hook has its own timeout). */
  sharedBudgetMs?(event: string, hooks: readonly HookSpec[]): number | undefined;
}

const PROTOCOLS = new Map<string, HookProtocol>();

/** Registers an agent's protocol (a second registration of one dialect replaces the first). */
export function registerHookProtocol(protocol: HookProtocol): void {
  PROTOCOLS.set(protocol.dialect, protocol);
}

/** The protocol of a dialect, when one is registered. */
export function hookProtocol(dialect: string): HookProtocol | undefined {
  return PROTOCOLS.get(dialect);
}

/** Every registered protocol, in registration order. */
export function hookProtocols(): HookProtocol[] {
  return [...PROTOCOLS.values()];
}

/** What `dialect`'s agent does with hooks on `event`, for an event without a seam. */
export function agentEventInfo(dialect: string, event: string): AgentEventInfo | undefined {
  return PROTOCOLS.get(dialect)?.agentEvents.get(event);
}

/** The events without a seam that `dialect`'s agent runs hooks on. */
export function agentEventNames(dialect: string): string[] {
  return [...(PROTOCOLS.get(dialect)?.agentEvents.keys() ?? [])];
}

/** The dialects whose agents have `event` as an event without a seam. */
export function dialectsOfAgentEvent(event: string): string[] {
  return hookProtocols().filter((p) => p.agentEvents.has(event)).map((p) => p.dialect);
}

/** The title of a dialect's agent, or the dialect itself when none is registered. */
export function dialectTitle(dialect: string): string {
  return PROTOCOLS.get(dialect)?.title ?? dialect;
}

/** The agents' usual timeout of a command hook that names none. */
export const DEFAULT_HOOK_TIMEOUT_MS = 600_000;

/** The timeout a hook gets when its handler names none, as its agent sets it for the event. */
export function defaultHookTimeoutMs(dialect: string, event: AnyEvent): number {
  return PROTOCOLS.get(dialect)?.defaultTimeoutMs(event.seam, event.seam === 'agent-event' ? event.event : undefined) ?? DEFAULT_HOOK_TIMEOUT_MS;
}

const ALL: AgentMatcher = { kind: 'all', test: () => true };

/**
 * A hook group's matcher in its dialect. A dialect no protocol is registered for gives a matcher
 * that matches every value, so its hook is never skipped (the IR validator rejects such rules first).
 */
export function compileAgentMatcher(dialect: string, pattern: string | undefined, opts: AgentMatcherOptions = {}): AgentMatcher {
  if (pattern === undefined) return ALL;
  return PROTOCOLS.get(dialect)?.compileMatcher(pattern, opts) ?? ALL;
}

/** The names a tool goes by for a dialect's matchers (the tool's own name first). */
export function matcherInputs(dialect: string, tool: string): string[] {
  return PROTOCOLS.get(dialect)?.matcherInputs(tool) ?? [tool];
}
