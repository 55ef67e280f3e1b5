/**
 * Support for the differential suite. One hooks configuration is evaluated twice: the real Claude
 * Code CLI runs it against the scripted model (what the agent does), and dshpolicy loads, compiles
 * and evaluates it offline (what dshpolicy says the agent does). Each side is reduced, without
 * looking at what a row expects, to the same small vocabulary so a test can compare them.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileHooks, loadHooksText } from '../../index.js';
import {
  compilePolicy,
  evaluate,
  IR_VERSION,
  processHookRunner,
  SEAM_HOOK_EVENTS,
  type Decision,
  type Diagnostic,
  type PolicyEvent,
  type PolicyIR,
} from '../../../engine/index.js';
import type { HooksSettings } from './hooks.js';
import { requestText, toolResults } from './model.js';
import { runClaude, type RunResult } from './run.js';

/** The Bash command the scripted model calls on tool seams; it leaves `ran.txt` behind when it runs. */
export const TOOL_COMMAND = 'touch ran.txt';
const TOOL_MARKER = 'ran.txt';

export type DiffSeam = 'pre-tool' | 'prompt' | 'post-tool' | 'stop' | 'session-start';

/**
 * What happened, in terms both sides can be mapped to:
 * - pre-tool: `ran` (the call ran as sent), `blocked` (not run, an error tool_result came back),
 *   `rewritten` (something ran, but not the call as sent);
 * - prompt: `passed` (the model got a turn) or `blocked` (no model turn at all);
 * - post-tool: `accepted` or `blocked` (the model was shown a blocking error after the result);
 * - stop: `stopped` (one model request) or `continued-once` (exactly one more);
 * - session-start: `started`.
 */
export type Outcome = 'ran' | 'blocked' | 'rewritten' | 'passed' | 'accepted' | 'stopped' | 'continued-once' | 'started';

/** One behaviour: a hooks configuration, and what both sides must show for the seam's scripted call. */
export interface Row {
  name: string;
  seam: DiffSeam;
  hooks: HooksSettings;
  /** Whether the hook runs at all (its matcher selects the call). */
  fired: boolean;
  /** What the real CLI does. */
  outcome: Outcome;
  /** dshpolicy's decision word (stop: for `stop_hook_active: false`; the second pass must be `stop`). */
  decision: string;
  /** Text both sides give as the reason of a block (or of a stop continuation). */
  reason?: string;
  /** Text that reaches the model as hook context, and that dshpolicy returns as context. */
  context?: string;
  /** Hook output that must not reach the model, nor dshpolicy's context. */
  unseen?: string;
  /** For `rewritten`: the input dshpolicy returns as `updatedInput`, and the file its command creates. */
  rewrite?: { input: Record<string, unknown>; creates: string };
}

const HOOK_EVENT: Readonly<Record<DiffSeam, string>> = SEAM_HOOK_EVENTS;

export interface Observation {
  fired: boolean;
  outcome: Outcome | string;
}

// ---------------------------------------------------------------------------------------------
// The real CLI.

export interface RealObservation extends Observation {
  run: RunResult;
  /** Everything the model was sent, over every request of the run. */
  modelText: string;
  /** Where the CLI put the reason of a block or continuation (tool_result, result text, next request). */
  reasonText: string;
}

export async function observeReal(seam: DiffSeam, hooks: HooksSettings): Promise<RealObservation> {
  const toolCall = { tool: { name: 'Bash', input: { command: TOOL_COMMAND } } };
  const onTool = seam === 'pre-tool' || seam === 'post-tool';
  const run = await runClaude({
    script: onTool ? [toolCall] : [{ text: 'first answer' }],
    finalText: 'second answer',
    hooks,
    allowedTools: ['Bash'],
  });
  if (run.exitCode !== 0 || run.timedOut) {
    throw new Error(`the CLI run failed: exit ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}; stderr: ${run.stderr.slice(0, 1500)}`);
  }
  const fired = run.hookEvents.some((e) => e.subtype === 'hook_started' && e.hook_event === HOOK_EVENT[seam]);
  const modelText = run.requests.map((r) => requestText(r)).join('\n');
  const second = run.requests[1] === undefined ? '' : requestText(run.requests[1]);
  let outcome: string;
  let reasonText = '';
  switch (seam) {
    case 'pre-tool': {
      const result = run.requests[1] === undefined ? undefined : toolResults(run.requests[1])[0];
      reasonText = result?.text ?? '';
      if (run.exists(TOOL_MARKER)) outcome = 'ran';
      else if (result === undefined) outcome = `no tool_result (result: ${JSON.stringify(run.result?.terminal_reason ?? run.result?.stop_reason)})`;
      else outcome = result.isError ? 'blocked' : 'rewritten';
      break;
    }
    case 'prompt':
      reasonText = typeof run.result?.result === 'string' ? run.result.result : '';
      outcome = run.requests.length === 0 ? 'blocked' : 'passed';
      break;
    case 'post-tool': {
      reasonText = second;
      if (!run.exists(TOOL_MARKER)) outcome = 'the tool did not run';
      else outcome = second.includes('PostToolUse:Bash hook blocking error') ? 'blocked' : 'accepted';
      break;
    }
    case 'stop':
      reasonText = second;
      outcome = run.requests.length === 1 ? 'stopped' : run.requests.length === 2 ? 'continued-once' : `${run.requests.length} model requests`;
      break;
    case 'session-start':
      outcome = run.requests.length === 1 ? 'started' : `${run.requests.length} model requests`;
      break;
  }
  return { run, modelText, reasonText, fired, outcome };
}

// ---------------------------------------------------------------------------------------------
// dshpolicy offline.

export interface OfflineObservation extends Observation {
  /** One decision per evaluated event (stop: `stop_hook_active` false, then true). */
  decisions: Decision[];
  /** The first decision, the one a row's `decision` names. */
  decision: Decision;
  loadDiagnostics: Diagnostic[];
}

/** The environment a hook gets offline: the parent's basics and the project dir, nothing of an enclosing agent. */
export function hookEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'SHELL', 'USER', 'LOGNAME', 'HOME']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.CLAUDE_PROJECT_DIR = dir;
  return env;
}

/** The canonical events matching what the scripted run sends its hooks. */
function eventsFor(seam: DiffSeam, cwd: string): PolicyEvent[] {
  const input = { command: TOOL_COMMAND };
  switch (seam) {
    case 'pre-tool':
      return [{ seam: 'pre-tool', tool: 'Bash', input, cwd }];
    case 'post-tool':
      return [{ seam: 'post-tool', tool: 'Bash', input, cwd, output: '', response: { stdout: '', stderr: '', interrupted: false, isImage: false } }];
    case 'prompt':
      return [{ seam: 'prompt', prompt: 'go', cwd }];
    case 'stop':
      return [
        { seam: 'stop', turn: [], stop_hook_active: false, last_message: 'first answer', cwd },
        { seam: 'stop', turn: [], stop_hook_active: true, last_message: 'second answer', cwd },
      ];
    case 'session-start':
      return [{ seam: 'session-start', source: 'startup', cwd }];
  }
}

/** What the real CLI must have done for dshpolicy's decision to be right. */
function outcomeOf(seam: DiffSeam, decisions: Decision[]): string {
  const first = decisions[0]!;
  const word = first.decision as string;
  switch (seam) {
    case 'pre-tool':
      if (word === 'deny' || word === 'ask') return 'blocked';
      if ((word === 'allow' || word === 'none') && first.updatedInput !== undefined) return 'rewritten';
      if (word === 'allow' || word === 'none') return 'ran';
      break;
    case 'prompt':
      if (word === 'block') return 'blocked';
      if (word === 'allow') return 'passed';
      break;
    case 'post-tool':
      if (word === 'block') return 'blocked';
      if (word === 'accept') return 'accepted';
      break;
    case 'stop': {
      const again = decisions[1]!.decision as string;
      if (word === 'continue' && again === 'stop') return 'continued-once';
      if (word === 'stop' && again === 'stop') return 'stopped';
      return `${word}, then ${again}`;
    }
    case 'session-start':
      if (word === 'none') return 'started';
      break;
  }
  return `decision ${word}`;
}

export async function observeOffline(seam: DiffSeam, hooks: HooksSettings): Promise<OfflineObservation> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dshpolicy-diff-')));
  try {
    const file = path.join(dir, '.claude', 'settings.json');
    const config = loadHooksText('claude', `${JSON.stringify({ hooks }, null, 2)}\n`, file);
    const compiled = compileHooks(config);
    const ir: PolicyIR = { version: IR_VERSION, sources: [], rules: compiled.rules, tests: [] };
    const policy = compilePolicy(ir);
    const runner = processHookRunner({ env: hookEnv(dir) });
    const decisions: Decision[] = [];
    for (const event of eventsFor(seam, dir)) decisions.push(await evaluate(policy, event, { runner }));
    const decision = decisions[0]!;
    return {
      decisions,
      decision,
      loadDiagnostics: [...config.diagnostics, ...compiled.diagnostics],
      fired: decision.trace.some((t) => t.hook !== undefined),
      outcome: outcomeOf(seam, decisions),
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Both sides in short, for assertion messages: what the CLI did and what dshpolicy decided. */
export function describeBoth(real: RealObservation, offline: OfflineObservation): string {
  return JSON.stringify(
    {
      real: {
        fired: real.fired,
        outcome: real.outcome,
        requests: real.run.requests.length,
        reasonText: real.reasonText.slice(0, 400),
        hooks: real.run.hookEvents
          .filter((e) => e.subtype === 'hook_response')
          .map((e) => ({ event: e.hook_event, exit: e.exit_code, outcome: e.outcome, stdout: e.stdout, stderr: e.stderr?.slice(0, 300) })),
      },
      offline: {
        fired: offline.fired,
        outcome: offline.outcome,
        decisions: offline.decisions.map((d) => ({ decision: d.decision, reasons: d.reasons, context: d.context, updatedInput: d.updatedInput })),
        hooks: offline.decision.trace.filter((t) => t.hook !== undefined).map((t) => `${t.effect}: ${t.hook!.summary}`),
        diagnostics: [...offline.loadDiagnostics, ...offline.decision.diagnostics].map((d) => `${d.code}: ${d.message}`),
      },
    },
    null,
    2,
  );
}

/** Runs at most `slots` jobs at a time, in order of submission. */
export function limiter(slots: number): <T>(job: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    // A finishing job hands its slot straight to the next waiting one.
    if (active >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

/** A regex source matching `text` literally. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
