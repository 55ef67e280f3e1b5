/**
 * The shape both bridges load a hooks configuration into, before compiling it to the IR: every
 * matcher group of every event, in configured order, each handler with all its fields and the
 * place it came from.
 */
import type { Diagnostic, Span } from '../engine/index.js';

/** The name of an agent whose hooks configuration dshpolicy loads (an agent of agents.ts with `hooks`). */
export type Agent = string;

/** Where a group or handler was written: the file, a JSON pointer (or TOML key path) and its span. */
export interface SourceRef {
  file: string;
  /** JSON pointer into the file (`/hooks/PreToolUse/0/hooks/1`); TOML sources use the same form. */
  pointer: string;
  span?: Span;
}

/** Which configuration layer a group comes from. */
export type Layer = 'managed' | 'user' | 'project' | 'local' | 'plugin' | 'file' | 'cli';

export interface HookHandler {
  /** `command`, `http`, `prompt`, `agent`, `mcp_tool`: as written (validated by the loader). */
  type: string;
  command?: string;
  /** Claude Code's exec form: argv without a shell. */
  args?: string[];
  /** Claude Code's `shell` (`bash` or `powershell`). */
  shell?: string;
  url?: string;
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
  /** Seconds, as configured (the agents' unit); absent means the agent's default. */
  timeoutSec?: number;
  /** Claude Code's `if`: one permission-rule string. */
  if?: string;
  async?: boolean;
  asyncRewake?: boolean;
  statusMessage?: string;
  once?: boolean;
  /** Everything as written, including fields this shape does not model. */
  raw: Record<string, unknown>;
  source: SourceRef;
}

export interface MatcherGroup {
  agent: Agent;
  /** The agent's event name as written (`PreToolUse`, `Notification`, ...). */
  event: string;
  /** The matcher as written (not trimmed); absent when the group has none. */
  matcher?: string;
  hooks: HookHandler[];
  layer: Layer;
  /** For plugin hooks: the plugin's root directory (`CLAUDE_PLUGIN_ROOT`). */
  pluginRoot?: string;
  source: SourceRef;
}

export interface HooksConfig {
  agent: Agent;
  /** Every group, in the order the agent would run them. */
  groups: MatcherGroup[];
  /** `disableAllHooks: true` in a layer that the agent honours. */
  disabled: boolean;
  /** Every file read, in order. */
  files: string[];
  diagnostics: Diagnostic[];
}
