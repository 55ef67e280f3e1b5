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
import type { AgentEventInfo, Diagnostic, HookProtocol, Rule } from '../engine/index.js';
import type { OutputFields } from './common/output-fields.js';
import type { HooksConfig } from './config.js';
import type { HookAgent } from './hook-agent.js';
import type { ImportedPolicy, PermissionImportOptions } from './permissions.js';
import type { HeadReader, IterateOptions, ReadTurnOptions, SyntheticLines, TranscriptItem, TurnFacts } from './common/transcript.js';

export interface Agent {
  /** The name in commands and policy files (`dshpolicy hook claude`, `import codex hooks "..."`). */
  readonly name: string;
  /** The agent's own name, as messages write it (`Claude Code`, `Codex`, `Gemini CLI`). */
  readonly title: string;
  /** How its imported hooks run: the engine-side protocol, registered with the engine (protocols.ts). */
  readonly protocol?: HookProtocol;
  /** dshpolicy as its hook (`dshpolicy hook <agent>`): the object the light registry of hook-agent.ts lists. */
  readonly hookMode?: HookAgent;
  /** Its hooks configuration files, loaded as the agent loads them (`import <agent> hooks "..."`). */
  readonly hooks?: AgentHooks;
  /** Its permission languages (`import <agent> <what> "..."`). */
  readonly permissions?: readonly AgentPermissions[];
  /** Writing a policy in the agent's own permission language (`dshpolicy export <agent>`). */
  readonly export?: AgentExport;
  /** Its session files (transcripts, rollouts): read by `dshpolicy replay` and, for the stop seam, by hook mode. */
  readonly transcripts?: AgentTranscripts;
}

export interface AgentHooks {
  /** Loads one hooks configuration file from its text. Never throws: every problem is a diagnostic. */
  load(text: string, file: string): HooksConfig;
  /** Which fields of a hook's answer the agent honours on an event (with its event-table row for one without a seam). */
  outputFields(event: string, info?: AgentEventInfo): OutputFields | undefined;
}

export interface AgentPermissions {
  /** The word after the agent's name in `import <agent> <what>` (`permissions`, `rules`, `policy`). */
  readonly what: string;
  /** Reads one file of the language into rules and test cases. Never throws. */
  import(text: string, file: string, opts: PermissionImportOptions): ImportedPolicy;
}

/**
 * An agent's session files: the JSON Lines it appends to as a session runs. Replay reads them
 * forward into items and tells whose a file is from its first lines; hook mode reads the turn that
 * is ending backward from the end. No reader throws: problems are diagnostics.
 */
export interface AgentTranscripts {
  /** What messages call one of its files (`transcript`, `rollout`), after the agent's title. */
  readonly noun: string;
  /** Every event-worthy item of a file, first to last, in batches (one per chunk read); constant memory. */
  batches(file: string, opts?: IterateOptions): AsyncGenerator<TranscriptItem[], void, undefined>;
  /** The facts of the turn that is ending (the stop seam's), read backward from the end of the file. */
  readTurn(path: string, opts?: ReadTurnOptions): Promise<TurnFacts>;
  /** A fresh reader of one file's first lines: whether they are this agent's, and the session facts. */
  head(): HeadReader;
  /**
   * The hook event a failed tool call goes to instead of the post-tool seam, when the agent has one
   * (Claude Code's `PostToolUseFailure`); without it a failed call's result is a post-tool event.
   */
  readonly failedResultEvent?: string;
  /** The lines of a synthetic session of this agent's format, for tests and measurements. */
  readonly synthetic?: SyntheticLines;
}

export interface AgentExport {
  /**
   * Writes the rules in the agent's language, never less restrictive than dshpolicy: a rule that
   * would widen is an error, unless `lossy` makes it a warning. Never throws.
   */
  policy(rules: readonly Rule[], opts: { lossy: boolean }): { text: string; diagnostics: Diagnostic[] };
}
