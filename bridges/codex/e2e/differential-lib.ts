/**
 * Support for the differential tests: one hooks configuration is given both to the real Codex CLI
 * (through `runCodex`) and to dshpolicy's offline evaluation, for the same scripted situation, and
 * each side's result is reduced to the few facts the two can be compared on.
 *
 * Hooks call small shell scripts as `"$DSHPOLICY_E2E_BIN/<name>"`. Each side gets its own copy of the
 * scripts and its own output folder (`$DSHPOLICY_E2E_OUT`), where every script leaves the payload it
 * was handed, so a test can also tell which hooks ran.
 */
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileHooks, loadHooksText } from '../../index.js';
import { compilePolicy, evaluate, IR_VERSION, processHookRunner, type Decision, type Diagnostic, type PolicyEvent } from '../../../engine/index.js';
import { messagesByRole, toolOutputs, type RecordedRequest, type Turn } from './model.js';
import { BIN_ENV, OUT_ENV, runCodex, type HookEvents, type HookStatus } from './run.js';

/** Every context text a row's hooks may send carries this, so hook contexts can be told from Codex's own. */
export const CONTEXT_MARK = 'E2E-CTX';

/** The command the shell situations ask for, and the file it leaves behind when it really runs. */
export const SHELL_COMMAND = 'touch ran.txt';
export const SHELL_FILE = 'ran.txt';
/** The patch of the apply_patch situation, and the file it adds. */
export const PATCH_FILE = 'patched.txt';
export const PATCH_TEXT = `*** Begin Patch\n*** Add File: ${PATCH_FILE}\n+patched by the model\n*** End Patch\n`;
/** The command of the post-tool situation and what it prints. */
export const POST_COMMAND = 'echo tool-said-hello';
export const POST_OUTPUT = 'tool-said-hello';
export const PROMPT = 'say hi';
export const FIRST_ANSWER = 'first answer';
export const SECOND_ANSWER = 'second answer';

/**
 * What the agent does in a run:
 * - `shell`: the model calls exec_command `touch ran.txt` (hooks see `Bash`);
 * - `patch`: the model calls apply_patch adding `patched.txt` (hooks see `apply_patch`);
 * - `post`: the model calls exec_command `echo tool-said-hello` and the PostToolUse hooks judge the output;
 * - `prompt`: the user's prompt is submitted and the model answers;
 * - `stop`: the model answers twice if asked twice; Stop hooks decide whether the turn ends;
 * - `session`: a session starts and the model answers.
 */
export type Situation = 'shell' | 'patch' | 'post' | 'prompt' | 'stop' | 'session';

/** Seconds a hook may take unless a row says otherwise. */
const HOOK_TIMEOUT_S = 30;

/**
 * The text of a hook script named `name`: it first saves its stdin to a fresh file in
 * `$DSHPOLICY_E2E_OUT` (path in `$payload`), then runs `body`.
 */
export function hookScript(name: string, body: string): string {
  return ['#!/bin/sh', `payload=$(mktemp "$${OUT_ENV}/${name}.XXXXXX")`, 'cat >"$payload"', body, ''].join('\n');
}

/** Shell lines printing `value` as compact JSON on stdout (a quoted here-document, so any text is safe). */
export function printJson(value: unknown): string {
  return `cat <<'JSON_END'\n${JSON.stringify(value)}\nJSON_END`;
}

/** Shell lines printing `text` verbatim on stdout or stderr. */
export function printText(text: string, to: 'stdout' | 'stderr' = 'stdout'): string {
  return `cat <<'TEXT_END'${to === 'stderr' ? ' >&2' : ''}\n${text}\nTEXT_END`;
}

/** A handler calling the script `name`. */
export function handler(name: string, timeout = HOOK_TIMEOUT_S): HookEvents[string][number]['hooks'][number] {
  return { type: 'command', command: `"$${BIN_ENV}/${name}"`, timeout };
}

/** The canonical events of a situation, as dshpolicy sees the call Codex makes (two for `stop`: first and continued). */
export function offlineEvents(situation: Situation, cwd: string): PolicyEvent[] {
  const common = { cwd, permission_mode: 'bypassPermissions' };
  switch (situation) {
    case 'shell':
      return [{ seam: 'pre-tool', tool: 'Bash', input: { command: SHELL_COMMAND }, ...common }];
    case 'patch':
      return [{ seam: 'pre-tool', tool: 'apply_patch', input: { command: PATCH_TEXT }, ...common }];
    case 'post':
      return [{ seam: 'post-tool', tool: 'Bash', input: { command: POST_COMMAND }, output: `${POST_OUTPUT}\n`, response: `${POST_OUTPUT}\n`, ...common }];
    case 'prompt':
      return [{ seam: 'prompt', prompt: PROMPT, ...common }];
    case 'stop':
      return [
        { seam: 'stop', turn: [], stop_hook_active: false, last_message: FIRST_ANSWER, ...common },
        { seam: 'stop', turn: [], stop_hook_active: true, last_message: SECOND_ANSWER, ...common },
      ];
    case 'session':
      return [{ seam: 'session-start', source: 'startup', cwd }];
  }
}

function scriptOf(situation: Situation): { prompt: string; script: Turn[] } {
  switch (situation) {
    case 'shell':
      return { prompt: 'run the command', script: [{ call: { name: 'exec_command', args: { cmd: SHELL_COMMAND } } }, { text: 'done' }] };
    case 'patch':
      return { prompt: 'apply the patch', script: [{ custom: { name: 'apply_patch', input: PATCH_TEXT } }, { text: 'done' }] };
    case 'post':
      return { prompt: 'run the command', script: [{ call: { name: 'exec_command', args: { cmd: POST_COMMAND } } }, { text: 'done' }] };
    case 'prompt':
      return { prompt: PROMPT, script: [{ text: 'hi' }] };
    case 'stop':
      return { prompt: 'answer', script: [{ text: FIRST_ANSWER }, { text: SECOND_ANSWER }] };
    case 'session':
      return { prompt: PROMPT, script: [{ text: 'hi' }] };
  }
}

/** Names of the scripts whose payload files are in `files` (one entry per run of a script). */
function hooksRun(files: string[]): string[] {
  return files.map((f) => f.replace(/\.[^.]*$/, '')).sort();
}

/** What the real Codex did, reduced to what can be compared. */
export interface RealOutcome {
  /** Whether the tool call's effect happened (its file exists); undefined where there is no tool call. */
  ran?: boolean;
  /** The files in the project after the run. */
  files: string[];
  /** What the model got back for the tool call (function_call_output / custom_tool_call_output). */
  toolOutput?: string;
  /** How many times the model was asked. */
  requests: number;
  /** Hook texts the model was shown as developer messages (those carrying {@link CONTEXT_MARK}), in order, first appearance. */
  contexts: string[];
  /** For `stop`: the `<hook_prompt>` texts of each continuation request, in order. */
  continuations: string[][];
  /** Codex's `hook: <Event> <Status>` lines. */
  statuses: HookStatus[];
  /** Scripts that ran, once per run, sorted. */
  hooksRun: string[];
  /** The final answer printed on stdout. */
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

/** What dshpolicy decided offline, one decision per event of the situation. */
export interface OfflineOutcome {
  decisions: Decision[];
  /** Load and compile diagnostics. */
  diagnostics: Diagnostic[];
  /** Scripts that ran, once per run, sorted (over all events). */
  hooksRun: string[];
  durationMs: number;
}

export interface Trial {
  situation: Situation;
  hooks: HookEvents;
  scripts: Record<string, string>;
}

const HOOK_PROMPT = /<hook_prompt hook_run_id="[^"]*">([\s\S]*?)<\/hook_prompt>/g;

function hookPrompts(req: RecordedRequest): string[] {
  const last = messagesByRole(req, 'user').at(-1) ?? '';
  return [...last.matchAll(HOOK_PROMPT)].map((m) => m[1]!);
}

/** Runs the real Codex CLI for a trial. */
export async function runReal(trial: Trial): Promise<RealOutcome> {
  const { prompt, script } = scriptOf(trial.situation);
  const r = await runCodex({ prompt, script, hooks: trial.hooks, scripts: trial.scripts, timeoutMs: 45_000 });
  const reqs = r.requests.filter((q) => q.responses);
  const contexts: string[] = [];
  for (const q of reqs) {
    for (const text of messagesByRole(q, 'developer')) if (text.includes(CONTEXT_MARK) && !contexts.includes(text)) contexts.push(text);
  }
  const out: RealOutcome = {
    requests: reqs.length,
    files: Object.keys(r.projectFiles).sort(),
    contexts,
    continuations: trial.situation === 'stop' ? reqs.slice(1).map(hookPrompts) : [],
    statuses: r.hookStatuses,
    hooksRun: hooksRun(Object.keys(r.captures)),
    stdout: r.stdout.trim(),
    stderr: r.stderr,
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    durationMs: r.durationMs,
  };
  if (trial.situation === 'shell' || trial.situation === 'patch' || trial.situation === 'post') {
    const file = trial.situation === 'patch' ? PATCH_FILE : SHELL_FILE;
    if (trial.situation !== 'post') out.ran = Object.hasOwn(r.projectFiles, file);
    const answer = reqs[1] ? toolOutputs(reqs[1]).find((o) => o.callId === 'call_1') : undefined;
    if (answer) out.toolOutput = answer.output;
  }
  return out;
}

/** Loads the same hooks.json into dshpolicy and evaluates the situation's events with the real hook runner. */
export async function runOffline(trial: Trial): Promise<OfflineOutcome> {
  const root = await mkdtemp(join(tmpdir(), 'dshpolicy-codex-diff-'));
  const started = Date.now();
  try {
    const project = join(root, 'project');
    const bin = join(root, 'bin');
    const out = join(root, 'out');
    for (const dir of [project, bin, out]) await mkdir(dir, { recursive: true });
    for (const [name, content] of Object.entries(trial.scripts)) {
      await writeFile(join(bin, name), content);
      await chmod(join(bin, name), 0o755);
    }
    const file = join(root, 'hooks.json');
    const text = `${JSON.stringify({ hooks: trial.hooks }, null, 2)}\n`;
    await writeFile(file, text);
    const config = loadHooksText('codex', text, file);
    const compiled = compileHooks(config);
    const policy = compilePolicy({ version: IR_VERSION, sources: [], rules: compiled.rules, tests: [] });
    const runner = processHookRunner({ env: { ...process.env, [BIN_ENV]: bin, [OUT_ENV]: out } });
    const decisions: Decision[] = [];
    for (const event of offlineEvents(trial.situation, project)) decisions.push(await evaluate(policy, event, { runner }));
    return {
      decisions,
      diagnostics: [...config.diagnostics, ...compiled.diagnostics],
      hooksRun: hooksRun(await readdir(out)),
      durationMs: Date.now() - started,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Runs both sides of a trial at once. */
export async function runBoth(trial: Trial): Promise<{ real: RealOutcome; offline: OfflineOutcome }> {
  const [real, offline] = await Promise.all([runReal(trial), runOffline(trial)]);
  return { real, offline };
}

/** The shell situations' block message, as Codex words it for the model. */
export function codexBlockMessage(reason: string, command: string): string {
  return `Command blocked by PreToolUse hook: ${reason}. Command: ${command}`;
}

/** Both sides in a few lines, for assertion messages and reports. */
export function describeBoth(real: RealOutcome, offline: OfflineOutcome): string {
  const decisions = offline.decisions.map((d) => ({ decision: d.decision, reasons: d.reasons, context: d.context }));
  const brief = { ...real, stderr: undefined };
  return [
    `real: ${JSON.stringify(brief)}`,
    `offline: ${JSON.stringify(decisions)} hooksRun=${JSON.stringify(offline.hooksRun)}`,
    `offline diagnostics: ${offline.diagnostics.map((d) => `${d.code} ${d.severity}: ${d.message}`).join(' | ') || 'none'}`,
    `--- codex stderr\n${real.stderr}`,
  ].join('\n');
}

/** Runs at most `n` tasks at a time; the others wait their turn in order. */
export function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A finishing task hands its slot straight to the next waiting one, so `active` never exceeds n.
    if (active < n) active++;
    else await new Promise<void>((go) => waiting.push(go));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
