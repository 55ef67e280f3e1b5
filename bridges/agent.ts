/**
 * What dshpolicy knows about one coding agent, in one place: the `Agent` interface, implemented once
 * per agent in `bridges/<agent>/agent.ts` and listed in the registry (agents.ts). Code outside an
 * agent's folder asks the registry and never branches on an agent's name.
 *
 * Every part but the name is optional: an agent has the parts dshpolicy supports for it (Gemini CLI
 * has a permission language and a hook protocol but no hooks configuration dshpolicy imports, and
 * no transcripts it replays). A command that needs a part lists the agents that have it, so its
 * usage message and its errors name exactly those.
 *
 * The hook protocol as the engine runs imported hooks (payloads, output decoding, matcher dialect,
 * event table) is the engine's `HookProtocol` (engine/hooks/protocol.ts): an agent's `protocol`
 * points at the object its folder registers with the engine (protocols.ts).
 */
import type { HookProtocol } from '../engine/index.js';
import type { HooksConfig } from './config.js';
import type { ImportedPolicy, PermissionImportOptions } from './permissions.js';

export interface Agent {
  /** The name in commands and policy files (`dshpolicy hook claude`, `import codex hooks "..."`). */
  readonly name: string;
  /** The agent's own name, as messages write it (`Claude Code`, `Codex`, `Gemini CLI`). */
  readonly title: string;
  /** How its imported hooks run: the engine-side protocol, registered with the engine. */
  readonly protocol?: HookProtocol;
  /** Its hooks configuration files, loaded as the agent loads them (`import <agent> hooks "..."`). */
  readonly hooks?: AgentHooks;
  /** Its permission languages (`import <agent> <what> "..."`). */
  readonly permissions?: readonly AgentPermissions[];
}

export interface AgentHooks {
  /** Loads one hooks configuration file from its text. Never throws: every problem is a diagnostic. */
  load(text: string, file: string): HooksConfig;
}

export interface AgentPermissions {
  /** The word after the agent's name in `import <agent> <what>` (`permissions`, `rules`, `policy`). */
  readonly what: string;
  /** Reads one file of the language into rules and test cases. Never throws. */
  import(text: string, file: string, opts: PermissionImportOptions): ImportedPolicy;
}
