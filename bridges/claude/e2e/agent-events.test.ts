/**
 * Differential end-to-end tests for Claude Code hook events without a seam (PostToolUseFailure,
 * PostToolBatch, PermissionRequest, SubagentStart, SubagentStop, SessionEnd, StopFailure): the real
 * CLI runs a hooks configuration in print mode against the scripted model, dshpolicy loads the same
 * configuration and evaluates the same event offline (`evaluateAny` with the real hook runner), and
 * both sides are reduced, without looking at the row, to one outcome word per situation:
 *
 * - tool-fails (the model's Bash call exits 3; PostToolUseFailure): `feedback` (the next request
 *   carries "PostToolUseFailure:Bash hook blocking error ...") <=> `block`; `stopped` (no next
 *   request) <=> `halt`; `nothing` <=> anything else;
 * - tool-runs (the model's Bash call succeeds; PostToolBatch): `stopped` (no next model request,
 *   terminal_reason `hook_stopped`) <=> `block` or `halt`; `continued` <=> anything else;
 * - needs-approval (no `--allowedTools`, so the call needs approval; PermissionRequest): `ran` <=>
 *   `allow`; `rewritten` <=> `allow` with `updatedInput`; `denied-by-hook` (the tool_result is the
 *   hook's message) <=> `deny`; `aborted` (the CLI stops, exit 1) <=> `halt`; `needs-approval` (print
 *   mode's own denial) <=> anything else;
 * - subagent (the model calls Agent, synchronously; SubagentStart / SubagentStop): `continued-once`
 *   (the subagent is asked once more) <=> `continue` for `stop_hook_active: false` and not for `true`;
 *   `ran` <=> anything else (on SubagentStop `halt` ends the subagent only: the parent goes on);
 * - session (SessionEnd) and api-error (the model answers 400; StopFailure): the hooks cannot decide
 *   (`none`); what they do is judged by the files they write, on both sides.
 *
 * Besides the outcome: whether the hook ran at all, the reason text the model was shown, the hook
 * context it was shown, the files the hooks left, and for payload rows the payload itself (keys and
 * the values a fixture can know). Rows where the CLI disagrees with dshpolicy expect the CLI's
 * behaviour and pin dshpolicy's current answer under `disagreement`, so a fix shows up as a failure
 * here. Skipped when DSHPOLICY_E2E=0.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileHooks, loadHooksText } from '../../index.js';
import {
  compilePolicy,
  evaluateAny,
  IR_VERSION,
  normalizeAnyEvent,
  processHookRunner,
  type AgentEventDecision,
  type AnyDecision,
  type Diagnostic,
} from '../../../engine/index.js';
import { hookEnv, limiter } from './differential-support.js';
import { command, fail, group, printJson, projectPath, type CommandHandler, type HooksSettings } from './hooks.js';
import { CLAUDE_VERSION, ensureClaude } from './install.js';
import { requestText, toolResults, type Turn } from './model.js';
import { runClaude, type RunOptions, type RunResult } from './run.js';

// ---------------------------------------------------------------------------------------------
// Situations: what the scripted model does, and the events dshpolicy evaluates for it.

type Situation = 'tool-fails' | 'tool-runs' | 'needs-approval' | 'subagent' | 'session' | 'api-error';

const FAILING_COMMAND = 'echo out; exit 3';
const TOOL_COMMAND = 'touch ran.txt';
const REWRITTEN = 'touch rewritten.txt';
const SUBAGENT_INPUT = { description: 'look around', prompt: 'say sub-hello', subagent_type: 'general-purpose', run_in_background: false };
const FIRST_ANSWER = 'first answer';
const SUB_ANSWER = 'sub answer';
const SECOND_ANSWER = 'second answer';
/** What 2.1.328 puts in `error` / the tool_result for FAILING_COMMAND. */
const FAILURE_TEXT = 'Exit code 3\nout';
const API_ERROR = 'API Error: 400 stand-in model: more than 0 requests';

const SITUATIONS: Record<Situation, Pick<RunOptions, 'script' | 'allowedTools' | 'maxMessageRequests'>> = {
  'tool-fails': { script: [bash(FAILING_COMMAND)], allowedTools: ['Bash'] },
  'tool-runs': { script: [bash(TOOL_COMMAND)], allowedTools: ['Bash'] },
  'needs-approval': { script: [bash(TOOL_COMMAND)], allowedTools: [] },
  subagent: { script: [{ tool: { name: 'Agent', input: SUBAGENT_INPUT } }, { text: SUB_ANSWER }], allowedTools: ['Bash'] },
  session: { script: [{ text: FIRST_ANSWER }], allowedTools: ['Bash'] },
  'api-error': { script: [], allowedTools: ['Bash'], maxMessageRequests: 0 },
};

function bash(cmd: string): Turn {
  return { tool: { name: 'Bash', input: { command: cmd } } };
}

/**
 * The event(s) as fixture lines (the documented `{"event": ..., "agent": ...}` form), with the
 * payload fields 2.1.328 sent in the same situation. SubagentStop is evaluated a second time, with
 * `stop_hook_active: true`, when the first answer keeps the subagent working (as the CLI does).
 */
function fixtures(event: string, cwd: string): Record<string, unknown>[] {
  const base = { event, agent: 'claude', cwd, permission_mode: 'default' };
  const call = { tool_name: 'Bash', tool_use_id: 'toolu_e2e_0001' };
  switch (event) {
    case 'PostToolUseFailure':
      return [{ ...base, ...call, tool_input: { command: FAILING_COMMAND }, error: FAILURE_TEXT, is_interrupt: false, duration_ms: 100 }];
    case 'PostToolBatch':
      return [{ ...base, tool_calls: [{ ...call, tool_input: { command: TOOL_COMMAND }, tool_response: '(Bash completed with no output)' }] }];
    case 'PermissionRequest':
      return [{ ...base, tool_name: 'Bash', tool_input: { command: TOOL_COMMAND }, permission_suggestions: [] }];
    case 'SubagentStart':
      return [{ ...base, agent_id: 'a0000000000000001', agent_type: 'general-purpose' }];
    case 'SubagentStop': {
      const stop = { ...base, agent_id: 'a0000000000000001', agent_type: 'general-purpose', agent_transcript_path: '', background_tasks: [], session_crons: [] };
      return [
        { ...stop, stop_hook_active: false, last_assistant_message: SUB_ANSWER },
        { ...stop, stop_hook_active: true, last_assistant_message: SECOND_ANSWER },
      ];
    }
    case 'SessionEnd':
      return [{ ...base, reason: 'other' }];
    case 'StopFailure':
      return [{ ...base, error: 'unknown', last_assistant_message: API_ERROR }];
    default:
      throw new Error(`no fixture for ${event}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Rows.

interface Row {
  name: string;
  situation: Situation;
  /** The agent event the row's hooks are on. */
  event: string;
  hooks: HooksSettings;
  /** Whether the hook runs at all (its matcher, or `if`, selects the event). */
  fired: boolean;
  /** What the real CLI did, in the situation's words. */
  outcome: string;
  /** dshpolicy's decision word (SubagentStop: for `stop_hook_active: false`). */
  decision: string;
  /** Text the model was shown as the reason, and that dshpolicy gives as a reason. */
  reason?: string;
  /** Hook context the model was shown, and that dshpolicy returns. */
  context?: string;
  /** Project files the hooks write, and whether each exists after the run on both sides. */
  files?: Record<string, boolean>;
  /** The hook saves its stdin to `payload.json`: compare the two payloads (keys dshpolicy leaves out). */
  payload?: { missingOffline?: string[] };
  /** Text the CLI printed on stderr. */
  stderr?: string;
  /** The CLI and dshpolicy disagree: what dshpolicy says today (the row's other fields are the CLI's). */
  disagreement?: { outcome?: string; reasons?: string[]; why: string };
}

const json = (value: unknown): CommandHandler => command(printJson(value));
const on = (event: string, matcher: string | undefined, ...handlers: CommandHandler[]): HooksSettings => ({ [event]: [group(handlers, matcher)] });
const specific = (event: string, fields: Record<string, unknown>): unknown => ({ hookSpecificOutput: { hookEventName: event, ...fields } });
const decisionJson = (decision: Record<string, unknown>): CommandHandler => json(specific('PermissionRequest', { decision }));
/** Saves the payload (whole or not at all: written aside, then renamed), then runs `then`. */
const savePayload = (then = ''): string =>
  `cat > ${projectPath('payload.json.part')} && mv ${projectPath('payload.json.part')} ${projectPath('payload.json')}${then === '' ? '' : `; ${then}`}`;
/** Runs `then` only while `stop_hook_active` is false (so a blocking hook blocks once). */
const unlessContinuing = (then: string): string => `payload=$(cat); case "$payload" in *'"stop_hook_active":true'*) exit 0;; esac; ${then}`;
const touch = (file: string): string => `touch ${projectPath(file)}`;

const ROWS: Row[] = [
  // PostToolUseFailure: the model's Bash call exited 3.
  {
    name: 'PostToolUseFailure: the hook gets the failed call and decides nothing',
    situation: 'tool-fails', event: 'PostToolUseFailure', hooks: on('PostToolUseFailure', 'Bash', command(savePayload())),
    fired: true, outcome: 'nothing', decision: 'none', files: { 'payload.json': true }, payload: {},
  },
  {
    name: 'PostToolUseFailure: exit 2 shows the model its stderr',
    situation: 'tool-fails', event: 'PostToolUseFailure', hooks: on('PostToolUseFailure', 'Bash', command(fail('failure-exit-two'))),
    fired: true, outcome: 'feedback', decision: 'block', reason: 'failure-exit-two',
  },
  {
    name: 'PostToolUseFailure: decision block shows the model its reason',
    situation: 'tool-fails', event: 'PostToolUseFailure', hooks: on('PostToolUseFailure', 'Bash', json({ decision: 'block', reason: 'failure-block-reason' })),
    fired: true, outcome: 'feedback', decision: 'block', reason: 'failure-block-reason',
  },
  {
    name: 'PostToolUseFailure: additionalContext reaches the model',
    situation: 'tool-fails', event: 'PostToolUseFailure', hooks: on('PostToolUseFailure', 'Bash', json(specific('PostToolUseFailure', { additionalContext: 'failure-context-7' }))),
    fired: true, outcome: 'nothing', decision: 'none', context: 'failure-context-7',
  },
  {
    name: 'PostToolUseFailure: matcher Read does not fire for Bash',
    situation: 'tool-fails', event: 'PostToolUseFailure', hooks: on('PostToolUseFailure', 'Read', command(fail('failure-wrong-tool'))),
    fired: false, outcome: 'nothing', decision: 'none',
  },
  {
    name: 'PostToolUseFailure: `if` runs only the handler whose rule matches the call',
    situation: 'tool-fails', event: 'PostToolUseFailure',
    hooks: on('PostToolUseFailure', 'Bash', command(fail('failure-if-hit'), { if: 'Bash(echo *)' }), command(fail('failure-if-miss'), { if: 'Bash(git *)' })),
    fired: true, outcome: 'feedback', decision: 'block', reason: 'failure-if-hit',
  },
  {
    name: 'PostToolUseFailure: continue false does not stop the loop in print mode',
    situation: 'tool-fails', event: 'PostToolUseFailure', hooks: on('PostToolUseFailure', 'Bash', json({ continue: false, stopReason: 'failure-halt' })),
    fired: true, outcome: 'nothing', decision: 'none',
  },

  // PostToolBatch: the model's Bash call succeeded.
  {
    name: 'PostToolBatch: the hook gets the batch; exit 1 decides nothing',
    situation: 'tool-runs', event: 'PostToolBatch', hooks: on('PostToolBatch', undefined, command(savePayload(fail('batch-exit-one', 1)))),
    fired: true, outcome: 'continued', decision: 'none', files: { 'payload.json': true }, payload: {},
  },
  {
    name: 'PostToolBatch: decision block stops the loop before the next model call',
    situation: 'tool-runs', event: 'PostToolBatch', hooks: on('PostToolBatch', undefined, json({ decision: 'block', reason: 'batch-block-reason' })),
    fired: true, outcome: 'stopped', decision: 'block',
  },
  {
    name: 'PostToolBatch: continue false stops the loop before the next model call',
    situation: 'tool-runs', event: 'PostToolBatch', hooks: on('PostToolBatch', undefined, json({ continue: false, stopReason: 'batch-halt-reason' })),
    fired: true, outcome: 'stopped', decision: 'halt',
  },
  {
    name: 'PostToolBatch: exit 2 stops the loop before the next model call',
    situation: 'tool-runs', event: 'PostToolBatch', hooks: on('PostToolBatch', undefined, command(fail('batch-exit-two'))),
    fired: true, outcome: 'stopped', decision: 'block',
  },
  {
    name: 'PostToolBatch: additionalContext reaches the model',
    situation: 'tool-runs', event: 'PostToolBatch', hooks: on('PostToolBatch', undefined, json(specific('PostToolBatch', { additionalContext: 'batch-context-5' }))),
    fired: true, outcome: 'continued', decision: 'none', context: 'batch-context-5',
  },
  {
    name: 'PostToolBatch: a matcher is ignored and plain stdout is not context',
    situation: 'tool-runs', event: 'PostToolBatch', hooks: on('PostToolBatch', 'Nope', command('echo batch-plain-stdout')),
    fired: true, outcome: 'continued', decision: 'none',
  },

  // PermissionRequest: print mode would deny the call.
  {
    name: 'PermissionRequest: the hook gets the request; exit 2 is not honoured',
    situation: 'needs-approval', event: 'PermissionRequest', hooks: on('PermissionRequest', 'Bash', command(savePayload(fail('permission-exit-two')))),
    fired: true, outcome: 'needs-approval', decision: 'none', files: { 'payload.json': true }, payload: {},
  },
  {
    name: 'PermissionRequest: behavior allow runs the call',
    situation: 'needs-approval', event: 'PermissionRequest', hooks: on('PermissionRequest', 'Bash', decisionJson({ behavior: 'allow' })),
    fired: true, outcome: 'ran', decision: 'allow',
  },
  {
    name: 'PermissionRequest: behavior allow with updatedInput runs the rewritten call',
    situation: 'needs-approval', event: 'PermissionRequest', hooks: on('PermissionRequest', 'Bash', decisionJson({ behavior: 'allow', updatedInput: { command: REWRITTEN } })),
    fired: true, outcome: 'rewritten', decision: 'allow',
  },
  {
    name: 'PermissionRequest: behavior deny gives the model its message',
    situation: 'needs-approval', event: 'PermissionRequest', hooks: on('PermissionRequest', 'Bash', decisionJson({ behavior: 'deny', message: 'permission-deny-message' })),
    fired: true, outcome: 'denied-by-hook', decision: 'deny', reason: 'permission-deny-message',
  },
  {
    name: 'PermissionRequest: behavior deny without a message says "Permission denied by hook"',
    situation: 'needs-approval', event: 'PermissionRequest', hooks: on('PermissionRequest', 'Bash', decisionJson({ behavior: 'deny' })),
    fired: true, outcome: 'denied-by-hook', decision: 'deny', reason: 'Permission denied by hook',
  },
  {
    name: 'PermissionRequest: deny with interrupt aborts the session',
    situation: 'needs-approval', event: 'PermissionRequest', hooks: on('PermissionRequest', 'Bash', decisionJson({ behavior: 'deny', message: 'permission-interrupt', interrupt: true })),
    fired: true, outcome: 'aborted', decision: 'halt',
  },
  {
    name: 'PermissionRequest: matcher Read does not fire for Bash',
    situation: 'needs-approval', event: 'PermissionRequest', hooks: on('PermissionRequest', 'Read', decisionJson({ behavior: 'allow' })),
    fired: false, outcome: 'needs-approval', decision: 'none',
  },
  {
    name: 'PermissionRequest: continue false is ignored in print mode',
    situation: 'needs-approval', event: 'PermissionRequest', hooks: on('PermissionRequest', 'Bash', json({ continue: false, stopReason: 'permission-halt' })),
    fired: true, outcome: 'needs-approval', decision: 'none',
  },

  // SubagentStart / SubagentStop: the model calls Agent synchronously.
  {
    name: 'SubagentStart: the hook gets the subagent',
    situation: 'subagent', event: 'SubagentStart', hooks: on('SubagentStart', undefined, command(savePayload())),
    fired: true, outcome: 'ran', decision: 'none', files: { 'payload.json': true }, payload: {},
  },
  {
    name: 'SubagentStart: additionalContext reaches the subagent',
    situation: 'subagent', event: 'SubagentStart', hooks: on('SubagentStart', 'general-purpose', json(specific('SubagentStart', { additionalContext: 'subagent-context-3' }))),
    fired: true, outcome: 'ran', decision: 'none', context: 'subagent-context-3',
  },
  {
    name: 'SubagentStart: matcher Explore does not fire for general-purpose',
    situation: 'subagent', event: 'SubagentStart', hooks: on('SubagentStart', 'Explore', json(specific('SubagentStart', { additionalContext: 'subagent-context-miss' }))),
    fired: false, outcome: 'ran', decision: 'none',
  },
  {
    name: 'SubagentStop: the hook gets the stopping subagent',
    situation: 'subagent', event: 'SubagentStop', hooks: on('SubagentStop', undefined, command(savePayload())),
    fired: true, outcome: 'ran', decision: 'none', files: { 'payload.json': true }, payload: {},
  },
  {
    name: 'SubagentStop: decision block keeps the subagent working once',
    situation: 'subagent', event: 'SubagentStop', hooks: on('SubagentStop', undefined, command(unlessContinuing(printJson({ decision: 'block', reason: 'subagent-keep-going' })))),
    fired: true, outcome: 'continued-once', decision: 'continue', reason: 'subagent-keep-going',
  },
  {
    name: 'SubagentStop: exit 2 keeps the subagent working once',
    situation: 'subagent', event: 'SubagentStop', hooks: on('SubagentStop', undefined, command(unlessContinuing(fail('subagent-exit-two')))),
    fired: true, outcome: 'continued-once', decision: 'continue', reason: 'subagent-exit-two',
  },
  {
    name: 'SubagentStop: additionalContext keeps the subagent working once',
    situation: 'subagent', event: 'SubagentStop', hooks: on('SubagentStop', undefined, command(unlessContinuing(printJson(specific('SubagentStop', { additionalContext: 'subagent-stop-context' }))))),
    fired: true, outcome: 'continued-once', decision: 'continue', reason: 'subagent-stop-context',
  },
  {
    name: 'SubagentStop: continue false ends the subagent and the parent goes on',
    situation: 'subagent', event: 'SubagentStop', hooks: on('SubagentStop', undefined, json({ continue: false, stopReason: 'subagent-halt' })),
    fired: true, outcome: 'ran', decision: 'halt',
  },

  // SessionEnd: runs as the session ends; 1.5 s shared budget.
  {
    name: 'SessionEnd: the hook runs at exit with reason other',
    situation: 'session', event: 'SessionEnd', hooks: on('SessionEnd', 'other', command(savePayload())),
    fired: true, outcome: 'ended', decision: 'none', files: { 'payload.json': true }, payload: {},
  },
  {
    name: 'SessionEnd: matcher clear does not fire at the end of a print run',
    situation: 'session', event: 'SessionEnd', hooks: on('SessionEnd', 'clear', command(touch('end.txt'))),
    fired: false, outcome: 'ended', decision: 'none', files: { 'end.txt': false },
  },
  {
    name: 'SessionEnd: a hook past the 1.5 s budget is cancelled before its side effect',
    situation: 'session', event: 'SessionEnd', hooks: on('SessionEnd', undefined, command(`${touch('started.txt')}; sleep 3; ${touch('late.txt')}`)),
    fired: true, outcome: 'ended', decision: 'none', files: { 'started.txt': true, 'late.txt': false }, stderr: 'Hook cancelled',
  },
  {
    name: 'SessionEnd: a settings timeout of 5 s raises the budget and the side effect happens',
    situation: 'session', event: 'SessionEnd', hooks: on('SessionEnd', undefined, command(`${touch('started.txt')}; sleep 2.5; ${touch('late.txt')}`, { timeout: 5 })),
    fired: true, outcome: 'ended', decision: 'none', files: { 'started.txt': true, 'late.txt': true },
  },

  // StopFailure: the model answers 400.
  {
    name: 'StopFailure: the hook gets the API error; exit 2 and JSON are ignored',
    situation: 'api-error', event: 'StopFailure',
    hooks: on('StopFailure', 'unknown', command(savePayload(`${printJson({ decision: 'block', reason: 'stop-failure-block', continue: false })}; ${fail('stop-failure-exit-two')}`))),
    fired: true, outcome: 'failed', decision: 'none', files: { 'payload.json': true }, payload: {},
  },
  {
    name: 'StopFailure: matcher rate_limit does not fire for an unknown error',
    situation: 'api-error', event: 'StopFailure', hooks: on('StopFailure', 'rate_limit', command(touch('failure.txt'))),
    fired: false, outcome: 'failed', decision: 'none', files: { 'failure.txt': false },
  },
];

// ---------------------------------------------------------------------------------------------
// The real CLI.

interface RealSide {
  run: RunResult;
  fired: boolean;
  outcome: string;
  /** Where the CLI put a reason: the next request, the tool_result, the subagent's continuation. */
  feedback: string;
  /** `<Event>[:<name>] hook additional context: X` texts, for the row's event, over every request. */
  contexts: string[];
  payload?: Record<string, unknown>;
}

const CONTEXT_LINE = /(\w+)(?::[^\s]+)? hook additional context: ([^\n]*)/g;

async function observeReal(row: Row): Promise<RealSide> {
  const run = await runClaude({ ...SITUATIONS[row.situation], finalText: SECOND_ANSWER, hooks: row.hooks });
  if (run.timedOut) throw new Error(`the CLI run timed out; stderr: ${run.stderr.slice(0, 1500)}`);
  const texts = run.requests.map((r) => requestText(r));
  const n = run.requests.length;
  const terminal = run.result?.terminal_reason;
  let outcome = `unexpected: exit ${String(run.exitCode)}, ${n} model requests, terminal_reason ${String(terminal)}`;
  let feedback = '';
  switch (row.situation) {
    case 'tool-fails':
      feedback = texts[1] ?? '';
      if (n === 1) outcome = 'stopped';
      else if (n === 2) outcome = feedback.includes('PostToolUseFailure:Bash hook blocking error') ? 'feedback' : 'nothing';
      break;
    case 'tool-runs':
      if (n === 1 && terminal === 'hook_stopped' && run.exists('ran.txt')) outcome = 'stopped';
      else if (n === 2 && run.exists('ran.txt')) outcome = 'continued';
      break;
    case 'needs-approval': {
      const result = run.requests[1] === undefined ? undefined : toolResults(run.requests[1])[0];
      feedback = result?.text ?? '';
      if (run.exists('rewritten.txt') && !run.exists('ran.txt')) outcome = 'rewritten';
      else if (run.exists('ran.txt')) outcome = 'ran';
      else if (n === 1 && run.exitCode !== 0 && terminal === 'aborted_tools') outcome = 'aborted';
      else if (result?.isError === true) outcome = feedback.includes('needs approval') ? 'needs-approval' : 'denied-by-hook';
      break;
    }
    case 'subagent':
      // Parent call, subagent call(s), parent call with the subagent's report.
      feedback = texts[2] ?? '';
      if (n === 3 && texts[2]!.includes(SUB_ANSWER)) outcome = 'ran';
      else if (n === 4 && texts[3]!.includes(SECOND_ANSWER)) outcome = 'continued-once';
      break;
    case 'session':
      if (run.exitCode === 0 && n === 1) outcome = 'ended';
      break;
    case 'api-error':
      if (run.exitCode === 1 && terminal === 'api_error' && run.result?.result === API_ERROR) outcome = 'failed';
      break;
  }
  const contexts: string[] = [];
  if (row.event !== 'SubagentStop') {
    for (const text of texts) for (const m of text.matchAll(CONTEXT_LINE)) if (m[1] === row.event && !contexts.includes(m[2]!)) contexts.push(m[2]!);
  }
  // SessionEnd and StopFailure run after the last stream line: their files tell whether they ran,
  // and their hook may still be writing when the CLI has exited (seconds, on a loaded machine), so give it a moment
  if (row.situation === 'session' || row.situation === 'api-error') {
    const files = Object.entries(row.files ?? {}).filter(([, expected]) => expected).map(([f]) => f);
    for (const until = Date.now() + 15_000; Date.now() < until && !files.every((f) => run.exists(f)); ) await new Promise((r) => setTimeout(r, 50));
  }
  const started = run.hookEvents.some((e) => e.subtype === 'hook_started' && e.hook_event === row.event);
  const wrote = Object.keys(row.files ?? {}).some((f) => run.exists(f));
  const fired = row.situation === 'session' || row.situation === 'api-error' ? wrote : started;
  const payload = run.exists('payload.json') ? (JSON.parse(run.read('payload.json')) as Record<string, unknown>) : undefined;
  return { run, fired, outcome, feedback, contexts, ...(payload ? { payload } : {}) };
}

// ---------------------------------------------------------------------------------------------
// dshpolicy offline.

interface OfflineSide {
  decisions: AgentEventDecision[];
  decision: AgentEventDecision;
  fired: boolean;
  outcome: string;
  files: Record<string, boolean>;
  payload?: Record<string, unknown>;
  diagnostics: Diagnostic[];
}

function asAgentDecision(d: AnyDecision): AgentEventDecision {
  if (d.seam !== 'agent-event') throw new Error(`expected an agent-event decision, got ${d.seam}`);
  return d;
}

/** What the real CLI must have done for dshpolicy's decisions to be right. */
function outcomeOf(situation: Situation, decisions: AgentEventDecision[]): string {
  const d = decisions[0]!;
  switch (situation) {
    case 'tool-fails':
      return d.decision === 'block' ? 'feedback' : d.decision === 'halt' ? 'stopped' : 'nothing';
    case 'tool-runs':
      return d.decision === 'block' || d.decision === 'halt' ? 'stopped' : 'continued';
    case 'needs-approval':
      if (d.decision === 'allow') return d.updatedInput !== undefined ? 'rewritten' : 'ran';
      if (d.decision === 'deny') return 'denied-by-hook';
      if (d.decision === 'halt') return 'aborted';
      return 'needs-approval';
    case 'subagent':
      if (d.event === 'SubagentStop' && d.decision === 'continue') return decisions[1]?.decision === 'continue' ? 'continued-more-than-once' : 'continued-once';
      return 'ran';
    case 'session':
      return d.decision === 'none' ? 'ended' : `decision ${d.decision}`;
    case 'api-error':
      return d.decision === 'none' ? 'failed' : `decision ${d.decision}`;
  }
}

async function observeOffline(row: Row): Promise<OfflineSide> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dshpolicy-agent-diff-')));
  try {
    const file = path.join(dir, '.claude', 'settings.json');
    const config = loadHooksText('claude', `${JSON.stringify({ hooks: row.hooks }, null, 2)}\n`, file);
    const compiled = compileHooks(config);
    const policy = compilePolicy({ version: IR_VERSION, sources: [], rules: compiled.rules, tests: [] });
    const runner = processHookRunner({ env: hookEnv(dir) });
    const decisions: AgentEventDecision[] = [];
    for (const fixture of fixtures(row.event, dir)) {
      // A SubagentStop hook runs again only when its first answer kept the subagent working.
      if (decisions.length > 0 && decisions[0]!.decision !== 'continue') break;
      const { event, diagnostics } = normalizeAnyEvent(fixture);
      if (!event) throw new Error(`fixture rejected: ${diagnostics.map((d) => d.message).join('; ')}`);
      decisions.push(asAgentDecision(await evaluateAny(policy, event, { runner })));
    }
    const files: Record<string, boolean> = {};
    for (const name of [...Object.keys(row.files ?? {}), 'payload.json']) files[name] = await exists(path.join(dir, name));
    const payload = files['payload.json'] ? (JSON.parse(await fs.readFile(path.join(dir, 'payload.json'), 'utf8')) as Record<string, unknown>) : undefined;
    const decision = decisions[0]!;
    return {
      decisions,
      decision,
      fired: decision.trace.some((t) => t.hook !== undefined),
      outcome: outcomeOf(row.situation, decisions),
      files,
      ...(payload ? { payload } : {}),
      diagnostics: [...config.diagnostics, ...compiled.diagnostics, ...decisions.flatMap((d) => d.diagnostics)],
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** Payload keys whose values only a live session knows (ids, paths, timings). */
const VOLATILE = new Set(['session_id', 'transcript_path', 'cwd', 'prompt_id', 'agent_id', 'agent_transcript_path', 'duration_ms', 'permission_suggestions']);

function describeBoth(real: RealSide, offline: OfflineSide): string {
  return JSON.stringify(
    {
      real: {
        fired: real.fired,
        outcome: real.outcome,
        exit: real.run.exitCode,
        requests: real.run.requests.length,
        terminal: real.run.result?.terminal_reason,
        feedback: real.feedback.slice(-600),
        contexts: real.contexts,
        files: Object.keys(real.run.files).filter((f) => !f.startsWith('.claude/')),
        payload: real.payload,
        hooks: real.run.hookEvents.filter((e) => e.subtype === 'hook_response').map((e) => ({ event: e.hook_event, exit: e.exit_code, stdout: e.stdout, stderr: e.stderr?.slice(0, 300) })),
        stderr: real.run.stderr.slice(0, 600),
      },
      offline: {
        fired: offline.fired,
        outcome: offline.outcome,
        decisions: offline.decisions.map((d) => ({ decision: d.decision, reasons: d.reasons, context: d.context, updatedInput: d.updatedInput })),
        hooks: offline.decision.trace.filter((t) => t.hook !== undefined).map((t) => `${t.effect}: ${t.hook!.summary}${t.hook!.timedOut ? ' (timed out)' : ''}`),
        files: offline.files,
        payload: offline.payload,
        diagnostics: offline.diagnostics.map((d) => `${d.code}: ${d.message}`),
      },
    },
    null,
    2,
  );
}

// ---------------------------------------------------------------------------------------------

// Real runs take two to four seconds each; two at a time, as in differential.test.ts.
const slot = limiter(2);

describe.skipIf(process.env.DSHPOLICY_E2E === '0')(`agent events without a seam: Claude Code ${CLAUDE_VERSION} vs dshpolicy offline`, () => {
  beforeAll(async () => {
    await ensureClaude();
  }, 600_000);

  it('names every row once', () => {
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
  });

  for (const row of ROWS) {
    it.concurrent(row.name, { timeout: 240_000 }, async () => {
      const [first, offline] = await slot(() => Promise.all([observeReal(row), observeOffline(row)]));
      // Claude Code runs StopFailure's and SessionEnd's hooks as it exits, without waiting for them:
      // on a loaded machine a hook can be cut off before it writes its file. Such a run is repeated
      // once; a hook the CLI really does not run is missing both times.
      const exiting = row.situation === 'session' || row.situation === 'api-error';
      const real = exiting && row.fired && !first.fired ? await slot(() => observeReal(row)) : first;
      const both = describeBoth(real, offline);

      // The CLI did what the row says; dshpolicy's decision word is the row's.
      expect({ fired: real.fired, outcome: real.outcome }, both).toEqual({ fired: row.fired, outcome: row.outcome });
      expect(offline.decision.decision, both).toBe(row.decision);
      expect(offline.fired, both).toBe(row.fired);
      if (row.situation === 'subagent' && row.event === 'SubagentStop' && row.fired) {
        expect(offline.decisions[1]?.decision, both).not.toBe('continue');
      }

      // The two sides agree, or disagree exactly as pinned.
      if (row.disagreement?.outcome !== undefined) {
        expect(offline.outcome, both).toBe(row.disagreement.outcome);
        expect(offline.outcome, both).not.toBe(real.outcome);
      } else {
        expect(offline.outcome, both).toBe(real.outcome);
      }

      // Reasons: the row's reason is what the model saw; dshpolicy gives it (or its pinned wording).
      if (row.reason !== undefined) {
        expect(real.feedback, both).toContain(row.reason);
        if (row.disagreement?.reasons !== undefined) {
          expect(offline.decision.reasons, both).toEqual(row.disagreement.reasons);
          for (const r of row.disagreement.reasons) expect(real.feedback, both).not.toContain(r);
        } else {
          expect(offline.decision.reasons.length, both).toBeGreaterThan(0);
          for (const r of offline.decision.reasons) expect(real.feedback, both).toContain(r);
        }
      }

      // Context: the model saw exactly the row's context <=> dshpolicy returns exactly it.
      const context = row.context === undefined ? [] : [row.context];
      if (row.event !== 'SubagentStop') expect(real.contexts, both).toEqual(context);
      expect(offline.decision.context, both).toEqual(context);

      // Files the hooks write: the same on both sides.
      for (const [name, present] of Object.entries(row.files ?? {})) {
        expect({ file: name, real: real.run.exists(name), offline: offline.files[name] }, both).toEqual({ file: name, real: present, offline: present });
      }
      if (row.stderr !== undefined) expect(real.run.stderr, both).toContain(row.stderr);

      // Payloads: the same keys but those dshpolicy is known to leave out, and the same values a fixture can know.
      if (row.payload !== undefined) {
        expect(real.payload, both).toBeDefined();
        expect(offline.payload, both).toBeDefined();
        const realKeys = Object.keys(real.payload!).sort();
        const offlineKeys = Object.keys(offline.payload!).sort();
        const missing = row.payload.missingOffline ?? [];
        expect(offlineKeys, both).toEqual(realKeys.filter((k) => !missing.includes(k)));
        for (const k of missing) expect(realKeys, both).toContain(k);
        for (const key of realKeys.filter((k) => !VOLATILE.has(k) && !missing.includes(k))) {
          expect({ key, value: offline.payload![key] }, both).toEqual({ key, value: real.payload![key] });
        }
      }
    });
  }
});
