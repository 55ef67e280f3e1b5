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
import type { AgentEventInfo, Diagnostic, HookProtocol, Rule, Seam } from '../engine/index.js';
import type { OutputFields } from './common/output-fields.js';
import type { HooksJsonEdit, JsonObject, WantedGroup } from './common/hooks-json.js';
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
  /** How `dshpolicy install` wires dshpolicy's hook into its configuration, and `uninstall` takes it out. */
  readonly install?: AgentInstall;
}

export interface AgentHooks {
  /** Loads one hooks configuration file from its text. Never throws: every problem is a diagnostic. */
  load(text: string, file: string): HooksConfig;
  /**
   * The hooks a session started in `projectDir` runs, from every configuration layer the agent reads
   * there, in its order (managed, user, project, local, plugins; trust where the agent applies it),
   * with the agent's directories taken from `env` as the agent takes them. Never throws.
   */
  discover(where: { projectDir: string; home: string; env: NodeJS.ProcessEnv }): HooksConfig;
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

/**
 * Where an install is: the environment, working directory and home it takes the agent's user
 * files from (`$CLAUDE_CONFIG_DIR`, `$CODEX_HOME`, `$HOME`).
 */
export interface InstallEnvironment {
  readonly env: NodeJS.ProcessEnv;
  /** What relative paths in the environment are resolved against. */
  readonly cwd: string;
  /** The user's home directory (`$HOME`, else the system's), resolved. */
  readonly home: string;
}

/**
 * What installing dshpolicy's hook into an agent needs from that agent: which file holds its
 * hooks, which events it has, how our handlers and their groups are written, how the file is
 * edited, what besides the file must change (Codex's hook trust), and what to tell the user. The
 * planning itself (policy, events, command, timeout, files) is bridges/install/, for every agent
 * alike. Nothing here writes a file or throws on what a file holds.
 */
export interface AgentInstall {
  /** The hooks file of a user install (`~/.claude/settings.json`, `$CODEX_HOME/hooks.json`). */
  userFile(where: InstallEnvironment): string;
  /** The hooks file of a project install in `dir` (the project directory, links resolved). */
  projectFile(dir: string): string;
  /** The agent's event for each seam: where rules on that seam are wired. */
  readonly seamEvents: Readonly<Record<Seam, string>>;
  /** The agent's events in the order it lists them; the events wired are written in this order. */
  readonly events: readonly string[];
  /** Whether the agent has `event` as an event without a seam, so that a policy's hooks on it can be wired. */
  hasAgentEvent(event: string): boolean;
  /**
   * The first statement of a project install's hook script: it sets `r` to the project directory
   * from what the agent gives its hook commands, naming no path of this machine. `up` is a
   * statement that sets `d` to its parent directory (empty past the root), for a search upwards.
   * Like the rest of the script, it holds no `'` and no two backslashes in a row.
   */
  projectRoot(up: string): string;
  /** The longest handler timeout the agent takes for a command hook, in seconds. */
  readonly maxHandlerTimeoutSec: number;
  /** Our command handler running `command`, with its timeout in seconds. */
  commandHandler(command: string, timeoutSec: number): JsonObject;
  /** Our groups as the agent's file writes them: one per event, holding `handlerFor(event)`. */
  groups(events: readonly string[], handlerFor: (event: string) => JsonObject): WantedGroup[];
  /** Plans editing the hooks file (`text` undefined: there is none) so that our handlers are exactly `wanted`. */
  planInstall(text: string | undefined, file: string, wanted: readonly WantedGroup[]): HooksJsonEdit;
  /** Plans removing our handlers from the hooks file. */
  planUninstall(text: string | undefined, file: string): HooksJsonEdit;
  /** Handlers that post the events to `dshpolicy serve` (`--http <url>`), when the agent runs http hooks. */
  readonly http?: AgentInstallHttp;
  /** Hook trust kept in a file of the agent's (`--trust`), when the agent runs hooks only once they are trusted. */
  readonly trust?: AgentInstallTrust;
  /** What to tell the user after the file changed. */
  readonly notes: AgentInstallNotes;
  /** Why the agent takes no `--http` or no `--trust`, for the message refusing it (absent: a plain one). */
  readonly declines?: { readonly http?: string; readonly trust?: string };
}

export interface AgentInstallHttp {
  /** Whether the agent runs an http hook on `event`; where it does not, the command handler is wired. */
  accepts(event: string): boolean;
  /** Our http handler posting to `url`, with the timeout below. */
  handler(url: string): JsonObject;
  /** The http handler's timeout in seconds (`dshpolicy serve` answers by its own deadline under it). */
  readonly timeoutSec: number;
}

export interface AgentInstallTrust {
  /** The file the trust is kept in (Codex's `$CODEX_HOME/config.toml`). */
  file(where: InstallEnvironment): string;
  /** Plans that file's side of an install or an uninstall from the hooks file's edit. Never throws. */
  plan(input: TrustInput): TrustPlan;
  /** What to tell the user to add, when some of our hooks (or the project) are not trusted and the file is not written. */
  steps(report: TrustReport): TrustSteps;
}

export interface TrustInput {
  readonly mode: 'install' | 'uninstall';
  readonly scope: 'project' | 'user';
  /** The project directory (links resolved), for a project install. */
  readonly dir?: string;
  /** Other spellings of the project directory that count as trusted already (as given, before links are resolved). */
  readonly aliases: readonly string[];
  /** The hooks file, with its text before the edit (undefined: there was none) and after. */
  readonly hooksFile: string;
  readonly hooksBefore: string | undefined;
  readonly hooksAfter: string;
  /** The trust file, with its text (undefined: there is none). */
  readonly file: string;
  readonly text: string | undefined;
  /** Install with `--trust`: trust our hooks (and, for a project install, the project) in the file. */
  readonly write: boolean;
}

export interface TrustPlan {
  /** False: the file cannot be edited as asked; `diagnostics` say why, and nothing is written. */
  ok: boolean;
  diagnostics: Diagnostic[];
  report: TrustReport;
  /** The file's new text, when it is edited. */
  text?: string;
  changed: boolean;
}

/** The trust side of an install or an uninstall, as `--format json` reports it under `trust`. */
export interface TrustReport {
  config: string;
  /** The file is edited (`--trust`, or an uninstall of an existing file). */
  written: boolean;
  changed: boolean;
  /** Our hooks' entries, and whether each is trusted once the plan is applied. */
  entries: { key: string; trusted_hash: string; trusted: boolean }[];
  /** Keys of the entries removed. */
  removed: string[];
  /** Entries of other hooks renamed because their hooks moved in the hooks file. */
  renamed: [string, string][];
  /** The project of a project install, and whether it is trusted once the plan is applied. */
  project?: { dir: string; trusted: boolean };
}

/** What to add to the trust file by hand: why (said first), how, each block of text to add, and a closing remark. */
export interface TrustSteps {
  why: string;
  how: string;
  blocks: string[];
  footnote: string;
}

export interface AgentInstallNotes {
  /** After an install that wrote the hooks file (not on a dry run). */
  readonly installed?: string;
  /** After an uninstall that removes our hooks, on a dry run too: what it leaves behind. */
  readonly uninstalled?: string;
}
