/**
 * The package's public face: what `import ... from 'dshpolicy'` gives a TypeScript or JavaScript
 * host (built into dist/index.js, dist/index.cjs and their .d.ts). It names the few things a host
 * needs to compile a policy, evaluate events at each seam, wire the policy into its own interception
 * points with typed decisions, explain a decision and run `run` rules' hooks, and nothing else: every
 * other export of the folders' index.ts is internal and may change.
 * It sits in bridges/ because compiling honours the agents' `import` declarations, as the CLI does.
 */
import { compileFiles as compileFilesWith, compileText as compileTextWith, type CompileResult } from '../dsl/index.js';
import { agentImporter } from './index.js';

// Compiling: policy text to the IR, with every problem as a diagnostic.

/** Compiles policy files from disk (and what they include and import) as the CLI does; never throws. */
export function compileFiles(paths: string[]): CompileResult {
  return compileFilesWith(paths, { importer: agentImporter });
}

/** Compiles a policy given as text, named `file`; `extra` holds the files it includes or imports, by path, so nothing is read from disk. */
export function compileText(text: string, file?: string, extra?: Record<string, string>): CompileResult {
  return compileTextWith(text, file, extra, { importer: agentImporter });
}

export type {
  /** What compiling gives: the IR (undefined exactly when some diagnostic is an error) and the diagnostics. */
  CompileResult,
} from '../dsl/index.js';

export {
  /** Whether any diagnostic is an error (then there is no policy). */
  hasErrors,
} from '../engine/index.js';

export type {
  /** One problem: a `phase/name` code, a severity, a lowercase message, and where (a span or a JSON pointer). */
  Diagnostic,
  /** `error`, `warning` or `info`. */
  Severity,
  /** A half-open range of one source file. */
  Span,
  /** A 1-based line and column, and a 0-based offset, in a source text. */
  Position,
} from '../engine/index.js';

// The policy: the versioned IR (plain JSON) and its compiled, indexed form.

export {
  /** Compiles a valid IR into the form the evaluator reads, with the built-in self-protection rules. */
  compilePolicy,
  /** Checks untrusted JSON (a stored IR) against the IR's version, schema and rules; never throws. */
  validateIR,
  /** The JSON Schema of the IR. */
  IR_SCHEMA,
  /** The IR version this package reads and writes. */
  IR_VERSION,
  /** The five seams, in their canonical order. */
  SEAMS,
} from '../engine/index.js';

export type {
  /** A policy ready to evaluate (from `compilePolicy`). */
  CompiledPolicy,
  /** What `validateIR` gives: the IR when it is valid, and the diagnostics. */
  ValidateResult,
  /** The versioned IR: rules, test cases and the sources they came from. */
  PolicyIR,
  /** One rule of the IR. */
  Rule,
  /** A lowered `test` case: an event and the decision it must get. */
  TestCase,
  /** `pre-tool`, `prompt`, `post-tool`, `stop` or `session-start`. */
  Seam,
  /** What a rule does: `deny`, `ask`, `allow`, `block`, `context`, `continue`, `halt`, `run` or `limit`. */
  Effect,
  /** A rule's `when` condition. */
  Expr,
  /** A rule's command, path, URL or domain selector. */
  Selector,
  /** The command hook of a `run` rule. */
  HookSpec,
  /** The decision words of a seam, most restrictive first (`deny | ask | allow | none` on pre-tool). */
  DecisionWord,
} from '../engine/index.js';

// Evaluating: one function per seam, the generic evaluator, and composing with a host.

export {
  /** Evaluates an event of any seam, running matched `run` rules' hooks with the options' runner (without one they fail closed); never throws. */
  evaluate,
  /** Evaluates without running hooks: the `run` rules that matched are listed in `pendingHooks`. */
  evaluateSync,
  /** Evaluates a `session-start` event. */
  sessionStart,
  /** Evaluates a `prompt` event. */
  prompt,
  /** Evaluates a `pre-tool` event. */
  preTool,
  /** Evaluates a `post-tool` event. */
  postTool,
  /** Evaluates a `stop` event. */
  stop,
  /** The policy as an `(event, next)` listener whose answer merges with the rest of a host's chain. */
  listener,
  /** Merges two decisions of one seam by the seam's law: the more restrictive wins. */
  mergeDecisions,
  /** Settles an `ask`: `allow` when the approver approves, `deny` otherwise; other decisions pass through. */
  settleAsk,
} from '../engine/index.js';

export type {
  /** A seam's decision: the word, the reasons, context, the deciding rules and a trace. */
  Decision,
  /** One rule that fired, and how it counted. */
  TraceEntry,
  /** Options of `evaluate` and the seam functions: the hook runner. */
  EvaluateOptions,
  /** The type of `listener(policy)`. */
  Listener,
  /** Answers an `ask`: true approves the call once. */
  Approver,
} from '../engine/index.js';

// The typed seam API: what a host's interception points speak, one discriminated union per seam.

export {
  /** A policy at each interception point (`sessionStart`, `promptSubmit`, `preExecute`, `postExecute`, `turnContinuation`), answering with typed decisions, and its deny-only `guard`. */
  policySeams,
  /** Maps an engine `Decision` to its seam's typed decision, keeping reasons, rule ids, context, diagnostics and input rewrites. */
  seamDecision,
  /** Folds several typed decisions of one seam: the most restrictive kind wins, and the order of the answers never matters. */
  combineDecisions,
  /** Composes a host's listeners of one seam into one `(event, next)` listener; the neutral kind (`none` on pre-tool) delegates to `next`. */
  waterfall,
  /** Runs deny-only guards on a pre-execute outcome: it can only become `deny`, never `allow`. */
  applyGuards,
  /** Settles an `ask` through an approval service: only `allowed-once` allows; `rejected`, `cancelled` and `unavailable` deny. */
  resolveAsk,
} from '../engine/index.js';

export type {
  /** The typed decision of a seam: `PreToolDecision` for `pre-tool`, and so on. */
  SeamDecision,
  /** prompt-submit: `allow` with context, or `block` with a reason. */
  PromptDecision,
  /** tools/pre-execute: `allow`, `ask`, `deny` or `none` (delegate), with context and a hook's input rewrite. */
  PreToolDecision,
  /** A pre-tool decision with its `ask` settled: what `resolveAsk` gives. */
  SettledPreToolDecision,
  /** A guard's answer: `deny` or `abstain`. */
  GuardDecision,
  /** A synchronous, deny-only check of a tool call, run after the waterfall. */
  Guard,
  /** tools/post-execute: `accept` with context (and a content replacement), or `block` with feedback. */
  PostToolDecision,
  /** turn-continuation: `stop`, `continue` with a model-facing reason, or `halt`. */
  ContinuationDecision,
  /** session-start: context (`halt` only from a command hook). */
  SessionStartDecision,
  /** How an approval ended: `allowed-once`, `rejected`, `cancelled` or `unavailable`. */
  ApprovalOutcome,
  /** A host's approval service for `ask`. */
  Approval,
  /** What an approval service is asked: the call and the `ask`. */
  ApprovalRequest,
  /** A host's listener of one seam, answering with the seam's typed decision. */
  SeamListener,
  /** What `waterfall` gives: an `(event, next)` listener. */
  Waterfall,
  /** What `policySeams` gives. */
  PolicySeams,
} from '../engine/index.js';

// Events: the canonical shape of each seam's event, and reading one from JSON.

export {
  /** Reads a fixture line or a raw Claude Code hook payload into a canonical event, with diagnostics; never throws. */
  normalizeEvent,
} from '../engine/index.js';

export type {
  /** What `normalizeEvent` gives: the event, or diagnostics saying why there is none. */
  NormalizeResult,
  /** An event of one of the five seams. */
  PolicyEvent,
  /** The event of seam `S`. */
  EventOf,
  /** A tool call about to run. */
  PreToolEvent,
  /** A tool call that ran, with its output. */
  PostToolEvent,
  /** A prompt the user submitted. */
  PromptEvent,
  /** The agent about to stop, with the tool calls of its turn. */
  StopEvent,
  /** A session starting. */
  SessionStartEvent,
  /** One tool call of a turn. */
  ToolCall,
  /** An agent event without a seam, on which only imported hooks run. */
  AgentEvent,
  /** Any event: a seam's or an agent event. */
  AnyEvent,
} from '../engine/index.js';

// Explaining: which rules fired, which did not and why, and the parts of a shell command.

export {
  /** Evaluates an event (running hooks only with a runner) and explains the decision; never throws. */
  explain,
  /** Explains a decision already made for an event. */
  explainEvent,
} from '../engine/index.js';

export type {
  /** An explanation: the decision, the rules that fired, the rules skipped and why, the command's parts. */
  Explanation,
  /** Options of `explain`: the hook runner. */
  ExplainOptions,
  /** A decision `explainEvent` explains (from `evaluate` or `evaluateSync`). */
  ExplainableDecision,
  /** A rule that fired, as explained. */
  ExplainedRule,
  /** A rule of the seam that did not fire, and the first test it failed. */
  SkippedRule,
  /** One part of a shell command, with the rules that matched it. */
  ExplainedPart,
} from '../engine/index.js';

// Hooks: running `run` rules' command hooks.

export {
  /** The runner that runs `run` rules' hooks as real processes (or HTTP requests), in their agent's protocol. */
  processHookRunner,
} from '../engine/index.js';

export type {
  /** Runs one `run` rule's hook for an event; a host may supply its own. */
  HookRunner,
  /** What a hook answered, decoded by its dialect. */
  HookOutcome,
  /** Options of one hook run: a timeout that overrides the hook's own. */
  HookRunOptions,
  /** Options of `processHookRunner`: the hooks' environment and output cap. */
  RunnerOptions,
  /** A hook runner that also takes an abort signal (what `processHookRunner` returns). */
  SignalledHookRunner,
} from '../engine/index.js';
