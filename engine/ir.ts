/**
 * The dshpolicy IR: the only thing the engine reads. The DSL compiler and the hooks.json bridges
 * both produce it. It is plain JSON (no functions, no undefined) and versioned; `ir-schema.ts`
 * holds its JSON Schema and `validate.ts` guards the door.
 */
import type { Span } from './diagnostics.js';

export const IR_VERSION = 1 as const;

export type Seam = 'pre-tool' | 'prompt' | 'post-tool' | 'stop' | 'session-start';
export const SEAMS: readonly Seam[] = ['pre-tool', 'prompt', 'post-tool', 'stop', 'session-start'];

/**
 * The pseudo-seam of hooks imported from an agent's configuration on an event the language has no
 * seam for (`Notification`, `PreCompact`, ...): only `run` rules with `hook.event` live there, and
 * they run with the agent's semantics for that event (see agent-events.ts).
 */
export const AGENT_EVENT_SEAM = 'agent-event' as const;
export type RuleSeam = Seam | typeof AGENT_EVENT_SEAM;

export type Effect = 'deny' | 'ask' | 'allow' | 'block' | 'context' | 'continue' | 'halt' | 'run' | 'limit';

/** Which rule forms each seam accepts (language.md, "Seams and their decisions"). */
export const SEAM_EFFECTS: Record<Seam, readonly Effect[]> = {
  'pre-tool': ['deny', 'ask', 'allow', 'run'],
  prompt: ['block', 'context', 'run'],
  'post-tool': ['block', 'context', 'run'],
  stop: ['continue', 'halt', 'limit', 'run'],
  'session-start': ['context', 'run'],
};

/** Seams whose events name a tool, so rules there may carry a tool list and selectors. */
export const TOOL_SEAMS: readonly Seam[] = ['pre-tool', 'post-tool'];

/** Decision words per seam, most restrictive first. */
export const SEAM_DECISIONS = {
  'pre-tool': ['deny', 'ask', 'allow', 'none'],
  prompt: ['block', 'allow'],
  'post-tool': ['block', 'accept'],
  stop: ['halt', 'continue', 'stop'],
  'session-start': ['halt', 'none'],
} as const satisfies Record<Seam, readonly string[]>;

export type DecisionWord<S extends Seam> = (typeof SEAM_DECISIONS)[S][number];
export type AnyDecisionWord = DecisionWord<Seam>;

export interface PolicyIR {
  /** Always IR_VERSION. */
  version: typeof IR_VERSION;
  /** The `policy "name"` of the root file, if any. */
  name?: string;
  /** Source files in the order they were loaded (root first). Rule spans point into these. */
  sources: string[];
  rules: Rule[];
  /** `test` blocks, lowered. */
  tests: TestCase[];
  /**
   * The groups of self-protection the policy opts out of (`unprotect claude`), each once, in
   * `PROTECTED_GROUPS` order. Absent: every group is protected (engine/protect.ts).
   */
  unprotected?: ProtectedGroup[];
}

/**
 * What dshpolicy protects from the agent by default: `policy` (the policy's own files and every
 * `.dshpolicy/` directory) and the hook settings of each agent (engine/protect.ts lists the paths).
 */
export type ProtectedGroup = 'policy' | 'claude' | 'codex' | 'gemini';
export const PROTECTED_GROUPS: readonly ProtectedGroup[] = ['policy', 'claude', 'codex', 'gemini'];

/**
 * A selector narrows a rule on a tool seam.
 * - `command`: shell command patterns (words; a final `*` word matches any further words).
 * - `path`: gitignore-style globs over every path the call touches, resolved against the event's
 *   cwd. `case`: `fold` compares case-insensitively, `exact` exactly; absent, an `allow` compares
 *   exactly and every other rule folds.
 * - `url`: globs over the whole URL of the call (`input.url`).
 * - `domain`: host-name globs (`*.example.com`) over the URL's host.
 */
export type Selector =
  | { kind: 'command'; patterns: string[] }
  | { kind: 'path'; globs: string[]; case?: 'fold' | 'exact' }
  | { kind: 'url'; globs: string[] }
  | { kind: 'domain'; globs: string[] };

export type SelectorKind = Selector['kind'];

/** A regular expression with RE2 syntax; `flags` is a subset of `ims`. */
export interface RegexValue {
  regex: string;
  flags: string;
}

export type Scalar = string | number | boolean | null;
export type Value = Scalar | Scalar[] | RegexValue;

/**
 * A field reference: `name` is one of the seam's fields (`tool`, `input`, `command`, `path`, `url`,
 * `domain`, `prompt`, `output`, `response`, `cwd`, `permission_mode`, `source`, `stop_hook_active`,
 * `last_message`); `path` walks into `input`/`response` (`input.sql` is name `input`, path `["sql"]`).
 */
export interface FieldRef {
  name: string;
  path?: string[];
}

export type CompareOp = '==' | '!=' | 'in' | 'matches' | 'glob' | 'startswith' | 'endswith' | 'contains';

export type Expr =
  | { op: 'and'; args: Expr[] }
  | { op: 'or'; args: Expr[] }
  | { op: 'not'; arg: Expr }
  | { op: 'compare'; cmp: CompareOp; field: FieldRef; value: Value }
  | { op: 'exists'; field: FieldRef }
  /** True when some tool call of the turn (stop seam) matches the tools and every selector. */
  | { op: 'ran'; tools: string[]; selectors: Selector[] }
  | { op: 'const'; value: boolean };

/**
 * The agent protocol a hook runs by (`claude`, `codex`): the dialect of an agent protocol
 * registered with the engine (engine/hooks/protocol.ts). An IR naming another is invalid.
 */
export type HookDialect = string;

export interface HookSpec {
  /** The shell command (or, with `args`, the program); for an `http` hook, the URL the payload is POSTed to. */
  command: string;
  /**
   * Claude Code's `http` handler: the payload is POSTed as JSON to the URL in `command`, with these
   * headers; `$NAME` and `${NAME}` in a header value are filled from the environment only for the
   * names in `allowedEnvVars` (others become empty).
   */
  http?: { headers?: Record<string, string>; allowedEnvVars?: string[] };
  /** Milliseconds; absent means the dialect's default. */
  timeoutMs?: number;
  dialect: HookDialect;
  /**
   * For hooks imported from an agent's configuration: the agent event they were configured on
   * (`PreToolUse`, `SessionStart`, ...). Absent for `run` rules written in the language.
   */
  event?: string;
  /**
   * The matcher group's pattern in the dialect's own syntax (each agent's `matcher.ts` under bridges/), tested
   * against the event's match value (the tool name on tool seams, the source on session-start).
   * Absent: every value.
   */
  matcher?: string;
  /** Claude Code's exec form: the program and its arguments, run without a shell. */
  args?: string[];
  /** Claude Code's `shell: "bash"`: the command runs with bash instead of `sh`. */
  shell?: 'bash';
  /**
   * Claude Code's `if`: one permission rule (`Bash(git push *)`, `Edit(*.ts)`) the tool call must
   * match for the hook to run; on events without a tool the hook never runs.
   */
  if?: string;
  /** The directory `CLAUDE_PLUGIN_ROOT` (or Codex's `PLUGIN_ROOT`) names for plugin hooks. */
  pluginRoot?: string;
  /**
   * What the hook's answer is when this hook has not answered by the deadline of dshpolicy's own
   * handler: `fail-closed` (absent: the default) denies a tool call and blocks a prompt; `none`
   * leaves the hook out of the decision.
   */
  onDeadline?: 'fail-closed' | 'none';
  /** Where the handler was configured: a file and a JSON pointer into it. */
  source?: { file: string; pointer: string };
}

export interface Rule {
  /** Stable id: `file:line:col` of the rule's first token for DSL rules; bridges use their own scheme. */
  id: string;
  /** A seam, or `agent-event` for an imported hook on an agent event without one (effect `run`). */
  seam: RuleSeam;
  effect: Effect;
  /** Tool globs (`Bash`, `mcp__github__*`, `*`). Absent: every tool (and the only form off tool seams). */
  tools?: string[];
  /** All selectors must match (conjunction). */
  selectors?: Selector[];
  when?: Expr;
  /** `because "..."`: the reason carried by deny/ask/block/continue/halt. */
  reason?: string;
  /** The text of a `context` rule. */
  text?: string;
  /** `limit N` on the stop seam: at most N consecutive forced continuations. */
  limit?: number;
  /** `run ... hook "..."`. */
  hook?: HookSpec;
  span?: Span;
}

/** A lowered `test` case: an event (fixture-shaped) and the decision it must get. */
export interface TestCase {
  name: string;
  /** The fixture event, in the eval contract's shape (see engine/events.ts). */
  event: Record<string, unknown>;
  expect: AnyDecisionWord;
  /** A regex (RE2) that some reason or context must match. */
  because?: RegexValue;
  span?: Span;
}

/**
 * The fields a `when` condition may read on each seam. Reading any other field is a compile error.
 * `input` and `response` take a path (`input.sql`); the others do not.
 */
export const SEAM_FIELDS: Record<Seam, readonly string[]> = {
  'pre-tool': ['tool', 'input', 'command', 'opaque', 'path', 'url', 'domain', 'cwd', 'permission_mode', 'session'],
  'post-tool': [
    'tool', 'input', 'command', 'opaque', 'path', 'url', 'domain', 'output', 'response', 'cwd', 'permission_mode', 'session',
  ],
  prompt: ['prompt', 'cwd', 'permission_mode', 'session'],
  stop: ['stop_hook_active', 'last_message', 'cwd', 'permission_mode', 'session'],
  'session-start': ['source', 'cwd', 'session'],
};

/** Fields that take a path into a JSON value. */
export const PATH_FIELDS: readonly string[] = ['input', 'response'];
