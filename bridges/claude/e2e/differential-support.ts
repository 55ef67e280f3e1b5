/**
 * Support for the differential suite: one hooks configuration, evaluated twice. The real Claude Code
 * CLI runs it against the scripted model (what the agent did), and dshpolicy loads, compiles and
 * evaluates it offline (what dshpolicy says the agent does). Both sides are reduced to the same
 * small summary so a test can compare them field by field.
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
  type Decision,
  type Diagnostic,
  type PolicyEvent,
  type PolicyIR,
} from '../../../engine/index.js';
import type { HooksSettings } from './hooks.js';
import { requestText, toolResults } from './model.js';
import { runClaude, type RunResult } from './run.js';

/** The Bash command every tool row asks for; it leaves `ran.txt` behind when it runs. */
export const TOOL_COMMAND = 'touch ran.txt';
export const TOOL_MARKER = 'ran.txt';

/** What a row expects of both sides. */
export type Expectation =
  | { seam: 'pre-tool'; fired: boolean; outcome: 'ran' }
  | { seam: 'pre-tool'; fired: true; outcome: 'blocked'; reason: string }
  | { seam: 'pre-tool'; fired: true; outcome: 'rewritten'; command: string; creates: string }
  | { seam: 'prompt'; fired: true; outcome: 'blocked'; reason: string }
  | { seam: 'prompt'; fired: boolean; outcome: 'passed'; context?: string }
  | { seam: 'post-tool'; fired: true; outcome: 'blocked'; reason: string }
  | { seam: 'post-tool'; fired: true; outcome: 'accepted'; context?: string }
  | { seam: 'stop'; fired: true; outcome: 'continued-once'; reason: string }
  | { seam: 'stop'; fired: true; outcome: 'stopped' }
  | { seam: 'session-start'; fired: boolean; context?: string };

/** One behaviour: a hooks configuration, the call that exercises it and what both sides must show. */
export interface Row {
  name: string;
  hooks: HooksSettings;
  expect: Expectation;
  /** Text that must never reach the model (a hook's output the agent is expected to drop). */
  unseen?: string;
}

/** The summary both sides are reduced to. Reasons and context are checked separately (formats differ). */
export interface Summary {
  fired: boolean;
  outcome: string;
}

const HOOK_EVENT: Record<Expectation['seam'], string> = {
  'pre-tool': 'PreToolUse',
  'post-tool': 'PostToolUse',
  prompt: 'UserPromptSubmit',
  stop: 'Stop',
  'session-start': 'SessionStart',
};

// ---------------------------------------------------------------------------------------------
// The real CLI.

export interface RealObservation extends Summary {
  run: RunResult;
  /** Everything the model was sent over the whole run, one string. */
  modelText: string;
  /** pre-tool: the tool_result the model got for the call. */
  toolResult?: { text: string; isError: boolean };
  /** prompt: the final result text (where a blocked prompt's message lands). */
  resultText: string;
  /** stop: how many model requests the run made. */
  requests: number;
}

export async function runReal(row: Row): Promise<RealObservation> {
  const seam = row.expect.seam;
  const toolCall = { tool: { name: 'Bash', input: { command: TOOL_COMMAND } } };
  const script =
    seam === 'pre-tool' || seam === 'post-tool' ? [toolCall] : seam === 'stop' ? [{ text: 'first answer' }] : [{ text: 'ok' }];
  const run = await runClaude({
    script,
    finalText: seam === 'stop' ? 'second answer' : 'Done.',
    hooks: row.hooks,
    allowedTools: ['Bash'],
  });
  if (run.exitCode !== 0 || run.timedOut) {
    throw new Error(`the CLI run failed: exit ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}; stderr: ${run.stderr.slice(0, 1500)}`);
  }
  const event = HOOK_EVENT[seam];
  const fired = run.hookEvents.some((e) => e.subtype === 'hook_started' && e.hook_event === event);
  const modelText = run.requests.map((r) => requestText(r)).join('\n');
  const resultText = typeof run.result?.result === 'string' ? run.result.result : '';
  const obs: RealObservation = { run, modelText, resultText, requests: run.requests.length, fired, outcome: '' };

  switch (seam) {
    case 'pre-tool': {
      const second = run.requests[1];
      const result = second === undefined ? undefined : toolResults(second)[0];
      if (result !== undefined) obs.toolResult = { text: result.text, isError: result.isError };
      const expect = row.expect as Extract<Expectation, { seam: 'pre-tool' }>;
      if (expect.outcome === 'rewritten' && run.exists(expect.creates) && !run.exists(TOOL_MARKER)) obs.outcome = 'rewritten';
      else if (run.exists(TOOL_MARKER)) obs.outcome = 'ran';
      else if (result?.isError === true) obs.outcome = 'blocked';
      else obs.outcome = 'unexplained: the tool did not run and no error came back';
      break;
    }
    case 'prompt':
      obs.outcome = run.requests.length === 0 ? 'blocked' : 'passed';
      break;
    case 'post-tool': {
      const expect = row.expect as Extract<Expectation, { seam: 'post-tool' }>;
      const after = run.requests[1] === undefined ? '' : requestText(run.requests[1]);
      if (!run.exists(TOOL_MARKER)) obs.outcome = 'unexplained: the tool did not run';
      else if (expect.outcome === 'blocked' && after.includes(expect.reason)) obs.outcome = 'blocked';
      else obs.outcome = 'accepted';
      break;
    }
    case 'stop':
      obs.outcome = run.requests.length === 2 ? 'continued-once' : run.requests.length === 1 ? 'stopped' : `${run.requests.length} requests`;
      break;
    case 'session-start':
      obs.outcome = 'started';
      break;
  }
  return obs;
}

// ---------------------------------------------------------------------------------------------
// dshpolicy offline.

export interface OfflineObservation extends Summary {
  decisions: Decision[];
  /** The decision the summary was made from (for stop: the first, `stop_hook_active: false`). */
  decision: Decision;
  loadDiagnostics: Diagnostic[];
}

/** The environment a hook sees offline: the parent's basics, the project dir, nothing of an enclosing agent. */
function hookEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'SHELL', 'USER', 'LOGNAME', 'HOME']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.CLAUDE_PROJECT_DIR = dir;
  return env;
}

function eventsFor(seam: Expectation['seam'], cwd: string): PolicyEvent[] {
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

export async function runOffline(row: Row): Promise<OfflineObservation> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dshpolicy-diff-')));
  try {
    const file = path.join(dir, '.claude', 'settings.json');
    const config = loadHooksText('claude', JSON.stringify({ hooks: row.hooks }, null, 2), file);
    const compiled = compileHooks(config);
    const ir: PolicyIR = { version: IR_VERSION, sources: [], rules: compiled.rules, tests: [] };
    const policy = compilePolicy(ir);
    const runner = processHookRunner({ env: hookEnv(dir) });
    const decisions: Decision[] = [];
    for (const event of eventsFor(row.expect.seam, dir)) decisions.push(await evaluate(policy, event, { runner }));
    const decision = decisions[0]!;
    const fired = decision.trace.some((t) => t.hook !== undefined);
    const obs: OfflineObservation = {
      decisions,
      decision,
      loadDiagnostics: [...config.diagnostics, ...compiled.diagnostics],
      fired,
      outcome: '',
    };
    const word = decision.decision as string;
    switch (row.expect.seam) {
      case 'pre-tool':
        if (word === 'deny' || word === 'ask') obs.outcome = 'blocked';
        else if (word === 'allow' && decision.updatedInput !== undefined) obs.outcome = 'rewritten';
        else if (word === 'allow' || word === 'none') obs.outcome = 'ran';
        else obs.outcome = `unexpected decision ${word}`;
        break;
      case 'prompt':
        obs.outcome = word === 'block' ? 'blocked' : word === 'allow' ? 'passed' : `unexpected decision ${word}`;
        break;
      case 'post-tool':
        obs.outcome = word === 'block' ? 'blocked' : word === 'accept' ? 'accepted' : `unexpected decision ${word}`;
        break;
      case 'stop': {
        const again = decisions[1]!.decision as string;
        obs.outcome = word === 'continue' && again === 'stop' ? 'continued-once' : word === 'stop' && again === 'stop' ? 'stopped' : `${word} then ${again}`;
        break;
      }
      case 'session-start':
        obs.outcome = word === 'none' ? 'started' : `unexpected decision ${word}`;
        break;
    }
    return obs;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** A short account of both sides, for assertion messages and disagreement reports. */
export function describeBoth(real: RealObservation, offline: OfflineObservation): string {
  const d = offline.decision;
  return JSON.stringify(
    {
      real: {
        fired: real.fired,
        outcome: real.outcome,
        requests: real.requests,
        toolResult: real.toolResult,
        resultText: real.resultText.slice(0, 300),
        hookResponses: real.run.hookEvents
          .filter((e) => e.subtype === 'hook_response')
          .map((e) => ({ event: e.hook_event, exit: e.exit_code, outcome: e.outcome, stdout: e.stdout, stderr: e.stderr })),
      },
      offline: {
        fired: offline.fired,
        outcome: offline.outcome,
        decisions: offline.decisions.map((x) => ({ decision: x.decision, reasons: x.reasons, context: x.context, updatedInput: x.updatedInput })),
        trace: d.trace.map((t) => ({ effect: t.effect, outcome: t.outcome, hook: t.hook?.summary })),
        diagnostics: [...offline.loadDiagnostics, ...d.diagnostics].map((x) => `${x.code}: ${x.message}`),
      },
    },
    null,
    2,
  );
}

/** Runs a few async jobs at a time, in order of submission. */
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
