/**
 * Canonical events, one per seam. Fixture lines and raw agent payloads are normalised into these
 * (see `normalize.ts`); the evaluator reads nothing else.
 */
import type { HookDialect, Seam } from './ir.js';

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

interface EventBase {
  /** Working directory of the session; relative path globs resolve against it. */
  cwd?: string;
  session?: string;
  permission_mode?: string;
  /** Home directory for `~/` globs; defaults to the process's home directory. */
  home?: string;
  /** Path of the agent's transcript, when the event came from a real agent. */
  transcript_path?: string;
}

export interface PreToolEvent extends EventBase {
  seam: 'pre-tool';
  tool: string;
  input: Record<string, unknown>;
}

export interface PostToolEvent extends EventBase {
  seam: 'post-tool';
  tool: string;
  input: Record<string, unknown>;
  /** The tool's output as text (Bash stdout+stderr, a file's content, ...). */
  output?: string;
  /** The tool's structured response, when there is one (`response.<path>` in `when`). */
  response?: unknown;
}

export interface PromptEvent extends EventBase {
  seam: 'prompt';
  prompt: string;
}

export interface StopEvent extends EventBase {
  seam: 'stop';
  /** The tool calls of the turn that is ending, in order: the facts `ran` reads. */
  turn: ToolCall[];
  /** True when the agent is already continuing because a stop hook blocked. */
  stop_hook_active: boolean;
  last_message?: string;
  /** Forced continuations in a row so far, when the host tracks them (the `limit` guard reads it). */
  continuations?: number;
}

export interface SessionStartEvent extends EventBase {
  seam: 'session-start';
  source: string;
}

export type PolicyEvent = PreToolEvent | PostToolEvent | PromptEvent | StopEvent | SessionStartEvent;

export type EventOf<S extends Seam> = Extract<PolicyEvent, { seam: S }>;

/**
 * An agent event without a seam (`Notification`, `PreCompact`, `SubagentStop`, ...): no rule of the
 * language decides it, but hooks imported from an agent's configuration run on it with that agent's
 * semantics (see agent-events.ts).
 */
export interface AgentEvent extends EventBase {
  seam: 'agent-event';
  /** The agent's event name. */
  event: string;
  /** The agent that sent it; absent: the hooks of every agent that has the event run. */
  agent?: HookDialect;
  /** The event's own payload fields (`message`, `trigger`, `tool_name`, `tool_input`, ...). */
  fields: Record<string, unknown>;
}

/** Any event dshpolicy evaluates: a seam's, or an agent event without a seam. */
export type AnyEvent = PolicyEvent | AgentEvent;
