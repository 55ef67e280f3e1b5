/**
 * The hook's deadline through the real Claude Code CLI: Claude Code cancels a handler that overruns
 * its `timeout` and then runs the call as if the hook had no opinion, so dshpolicy must answer
 * before that: at once when a deny is final, and fail-closed at its `--deadline` when a hook of the
 * policy has not answered. Handler timeouts here are a few seconds; the hooks sleep 30.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiter } from './differential-support.js';
import { command, group, sh, type HooksSettings } from './hooks.js';
import { CLAUDE_VERSION, ensureClaude, REPO_ROOT } from './install.js';
import { toolResults } from './model.js';
import { runClaude, type HookEvent, type RunResult } from './run.js';
import { snapshotDist as snapshotDistOf } from '../../common/e2e-dist.js';

const enabled = process.env.DSHPOLICY_E2E !== '0';
const BUNDLES = ['hook.cjs', 'hook-main.cjs', 'compiler.cjs'];
const CASE = { timeout: 120_000 };
const slot = limiter(2);
/** Claude Code's handler timeout for dshpolicy in these runs, in seconds, and the hook's deadline below it. */
const HANDLER_TIMEOUT_SEC = 4;
const DEADLINE = '2s';
const LATE = 'hook `sleep 30` did not answer in time';

let claude = '';
let dist = '';

/** A private copy of the built bundles (common/e2e-dist.ts). */
const snapshotDist = (): Promise<string> => snapshotDistOf(REPO_ROOT, BUNDLES, 'deadline-e2e-dist-');

/** dshpolicy as the PreToolUse handler, with the short timeout and `--deadline` below it. */
function dshpolicyHooks(args: string[]): HooksSettings {
  const cmd = [sh(process.execPath), sh(join(dist, 'hook.cjs')), 'claude', ...args].join(' ');
  return { PreToolUse: [group([command(cmd, { timeout: HANDLER_TIMEOUT_SEC, statusMessage: 'dshpolicy' })], '*')] };
}

function bash(cmd: string): { tool: { name: string; input: Record<string, unknown> } } {
  return { tool: { name: 'Bash', input: { command: cmd } } };
}

async function withPolicy(policy: string, hooks: HooksSettings, marker: string): Promise<{ run: RunResult; answers: HookEvent[] }> {
  const run = await slot(() =>
    runClaude({
      hooks,
      allowedTools: ['Bash'],
      files: { '.dshpolicy/policy.dshpolicy': policy },
      env: { DSHPOLICY_CACHE_DIR: join(dist, 'cache') },
      script: [bash(`touch ${marker}`)],
    }),
  );
  expect(run.exitCode, `stderr: ${run.stderr.slice(0, 2000)}`).toBe(0);
  expect(run.timedOut).toBe(false);
  return { run, answers: run.hookEvents.filter((e) => e.subtype === 'hook_response') };
}

describe.skipIf(!enabled)(`the hook's deadline under Claude Code ${CLAUDE_VERSION}`, () => {
  beforeAll(async () => {
    claude = await ensureClaude();
    dist = await snapshotDist();
  }, 600_000);

  afterAll(() => {
    if (dist !== '') rmSync(dist, { recursive: true, force: true });
  });

  it.concurrent('control: a handler that overruns its timeout is cancelled, and Claude Code runs the call', CASE, async () => {
    const hooks = { PreToolUse: [group([command('sleep 30', { timeout: HANDLER_TIMEOUT_SEC })], '*')] };
    const { run } = await withPolicy('', hooks, 'ran-anyway');
    expect(claude).not.toBe('');
    expect(run.exists('ran-anyway')).toBe(true);
  });

  it.concurrent('a deny beside a hook that sleeps past the handler timeout answers at once: the call does not run', CASE, async () => {
    const policy = 'on pre-tool {\n  deny Bash command "touch denied-ran" because "the marker stays unmade"\n  run Bash hook "sleep 30"\n}\n';
    const { run, answers } = await withPolicy(policy, dshpolicyHooks(['--deadline', '30s']), 'denied-ran');
    expect(run.exists('denied-ran')).toBe(false);
    expect(toolResults(run.requests[1]!)).toEqual([{ toolUseId: 'toolu_e2e_0001', text: 'PreToolUse:Bash hook error: the marker stays unmade', isError: true }]);
    expect(answers[0]).toMatchObject({ hook_event: 'PreToolUse', exit_code: 0, outcome: 'success' });
  });

  it.concurrent('a hook of the policy that has not answered by --deadline denies the call, naming the hook', CASE, async () => {
    const { run, answers } = await withPolicy('on pre-tool {\n  run Bash hook "sleep 30"\n}\n', dshpolicyHooks(['--deadline', DEADLINE]), 'late-ran');
    expect(run.exists('late-ran')).toBe(false);
    expect(toolResults(run.requests[1]!)).toEqual([{ toolUseId: 'toolu_e2e_0001', text: `PreToolUse:Bash hook error: ${LATE}`, isError: true }]);
    expect(answers[0]).toMatchObject({ hook_event: 'PreToolUse', exit_code: 0, outcome: 'success' });
  });

  it.concurrent('`with {on_deadline: "none"}` answers "no opinion" in time instead, and the call runs', CASE, async () => {
    const policy = 'on pre-tool {\n  run Bash hook "sleep 30" with {on_deadline: "none"}\n}\n';
    const { run, answers } = await withPolicy(policy, dshpolicyHooks(['--deadline', DEADLINE]), 'lenient-ran');
    expect(run.exists('lenient-ran')).toBe(true);
    // Answered (not cancelled), with nothing on stdout, and the late hook named on stderr.
    expect(answers[0]).toMatchObject({ hook_event: 'PreToolUse', exit_code: 0, outcome: 'success', stdout: '' });
    expect(answers[0]!.stderr).toContain(LATE);
  });
});
