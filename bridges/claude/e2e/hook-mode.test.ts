/**
 * dshpolicy installed as Claude Code's hook, end to end: each case writes a policy into the
 * project's `.dshpolicy/`, runs the built `dshpolicy install claude --project .` in the project the
 * way a user would (inside a wrapper that then execs the pinned CLI, so the install sees the very
 * project, HOME and environment the agent runs with), and then runs the real Claude Code CLI in
 * print mode against the scripted stand-in model. The assertions are on real effects: files that
 * are or are not there, what the model was sent, what the hook answered. The hook's compiled-IR
 * cache goes to a per-case `DSHPOLICY_CACHE_DIR`; its stop-guard state to `$HOME/.claude/dshpolicy/stop`
 * of the run's throwaway HOME.
 *
 * Needs the bundle (`npx tsup`: dist/cli.cjs, hook.cjs, hook-main.cjs, compiler.cjs), which it runs from a copy
 * (`snapshotDist`). Part of `npm test`; skipped when DSHPOLICY_E2E=0. See cli/e2e/README.md.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiter } from './differential-support.js';
import { sh } from './hooks.js';
import { CLAUDE_VERSION, ensureClaude, REPO_ROOT } from './install.js';
import { contentBlocks, requestText, toolResults } from './model.js';
import { runClaude, type HookEvent, type RunOptions, type RunResult } from './run.js';
import { snapshotDist as snapshotDistOf } from '../../common/e2e-dist.js';

const enabled = process.env.DSHPOLICY_E2E !== '0';
const BUNDLES = ['cli.cjs', 'hook.cjs', 'hook-main.cjs', 'compiler.cjs'];
/** The built CLI, copied (see {@link snapshotDist}): `<copy>/cli.cjs`. */
let CLI = '';
const CASE = { timeout: 180_000 };
/** Two CLI runs at a time: each one is a native binary plus a node process per hook. */
const slot = limiter(2);

let scratch = '';
let claude = '';
/** A stand-in `git`: logs its arguments to `git-calls.txt` in its working directory. */
let fakeGit = '';

/** What `dshpolicy install --format json` reported. */
interface InstallReport {
  ok: boolean;
  file: string;
  changed: boolean;
  events: string[];
  command?: string;
  policies?: unknown;
  diagnostics: unknown[];
}

interface HookRun {
  run: RunResult;
  install: InstallReport;
  /** The dshpolicy hook's answers, in order (`hook_response` lines). */
  answers: HookEvent[];
  /** Files in the case's DSHPOLICY_CACHE_DIR after the run. */
  cached: string[];
}

/**
 * A `claude` for one case: puts the built CLI in the project's `node_modules/.bin` (as `npm i -D
 * dshpolicy` would), installs dshpolicy into the project (its cwd), runs `afterInstall` (shell),
 * then execs the pinned binary with the arguments runClaude gives it.
 */
function wrapper(dir: string, afterInstall: string): string {
  const report = join(dir, 'install.json');
  const errors = join(dir, 'install.err');
  const bin = join(dir, 'claude');
  writeFileSync(
    bin,
    [
      '#!/bin/sh',
      `mkdir -p node_modules/.bin && ln -s ${sh(CLI)} node_modules/.bin/dshpolicy || exit 96`,
      `${sh(process.execPath)} ${sh(CLI)} install claude --project . --format json > ${sh(report)} 2> ${sh(errors)} || {`,
      `  echo "e2e: dshpolicy install failed" >&2; cat ${sh(report)} ${sh(errors)} >&2; exit 97; }`,
      afterInstall,
      `exec ${sh(claude)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(bin, 0o755);
  return bin;
}

/** A private copy of the built bundles (common/e2e-dist.ts). */
const snapshotDist = (): Promise<string> => snapshotDistOf(REPO_ROOT, BUNDLES, 'hook-e2e-dist-');

let cases = 0;

async function withHook(policy: string, options: RunOptions, afterInstall = ''): Promise<HookRun> {
  const dir = join(scratch, `case-${++cases}`);
  const cache = join(dir, 'cache');
  mkdirSync(cache, { recursive: true });
  const bin = wrapper(dir, afterInstall);
  const run = await slot(() =>
    runClaude({
      ...options,
      claudePath: bin,
      files: { '.dshpolicy/policy.dshpolicy': policy, ...(options.files ?? {}) },
      env: { DSHPOLICY_CACHE_DIR: cache, ...(options.env ?? {}) },
    }),
  );
  expect(run.exitCode, explain(run)).toBe(0);
  expect(run.timedOut).toBe(false);
  const install = JSON.parse(readFileSync(join(dir, 'install.json'), 'utf8')) as InstallReport;
  // The install wrote the project's settings, with a command that holds no path of this machine:
  // it finds dshpolicy (here in the project's node_modules/.bin) where it runs, names no policy
  // (the hook finds the project's .dshpolicy/ itself), and each handler adds its event's name.
  expect(install).toMatchObject({ ok: true, changed: true, file: join(run.project, '.claude', 'settings.json'), policies: 'project' });
  expect(install.diagnostics).not.toContainEqual(expect.objectContaining({ code: 'install/not-found' }));
  expect(install.command).toMatch(/^\/bin\/sh -c '[^']*' dshpolicy$/);
  expect(install.command).not.toContain(dirname(CLI));
  const settings = JSON.parse(run.read('.claude/settings.json')) as { hooks: Record<string, { hooks: { command: string; statusMessage?: string }[] }[]> };
  expect(Object.keys(settings.hooks)).toEqual(install.events);
  for (const event of install.events) {
    expect(settings.hooks[event]!.flatMap((g) => g.hooks)).toEqual([expect.objectContaining({ command: `${install.command} ${event}`, statusMessage: 'dshpolicy' })]);
  }
  const answers = run.hookEvents.filter((e) => e.subtype === 'hook_response');
  const cached = existsSync(cache) ? readdirSync(cache, { recursive: true, encoding: 'utf8' }) : [];
  return { run, install, answers, cached };
}

function explain(run: RunResult): string {
  return `exit ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}; stderr: ${run.stderr.slice(0, 3000)}; project: ${run.project}`;
}

function bash(command: string): { tool: { name: string; input: Record<string, unknown> } } {
  return { tool: { name: 'Bash', input: { command } } };
}

/** How many times `needle` occurs in `haystack`. */
function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** The policy compiled once into the cache and was read from it afterwards. */
function expectCached(cached: string[]): void {
  expect(cached.filter((f) => /^ir[\\/].+\.json$/.test(f))).toHaveLength(1);
}

describe.skipIf(!enabled)(`dshpolicy installed as the hook of Claude Code ${CLAUDE_VERSION}`, () => {
  beforeAll(async () => {
    claude = await ensureClaude();
    scratch = mkdtempSync(join(tmpdir(), 'dshpolicy-hookmode-'));
    fakeGit = join(scratch, 'bin', 'git');
    mkdirSync(join(scratch, 'bin'));
    writeFileSync(fakeGit, '#!/bin/sh\necho "$*" >> git-calls.txt\necho "fake git $*"\n');
    chmodSync(fakeGit, 0o755);
    const dist = await snapshotDist();
    CLI = join(dist, 'cli.cjs');
  }, 600_000);

  afterAll(() => {
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
    if (CLI !== '') rmSync(dirname(CLI), { recursive: true, force: true });
  });

  it.concurrent('a denied `rm -rf` leaves the files in place, even with Bash allowed, and the model is told why', CASE, async () => {
    const { run, install, answers, cached } = await withHook(
      'on pre-tool {\n  deny Bash command "rm -rf *" because "nothing gets deleted wholesale"\n}\n',
      {
        files: { 'keep/a.txt': 'precious\n' },
        allowedTools: ['Bash'],
        script: [bash('rm -rf keep'), bash('touch after.txt')],
      },
    );
    expect(install.events).toEqual(['PreToolUse']);
    expect(run.read('keep/a.txt')).toBe('precious\n');
    // The next call ran: the hook decided, Bash itself works.
    expect(run.exists('after.txt')).toBe(true);
    expect(toolResults(run.requests[1]!)).toEqual([
      { toolUseId: 'toolu_e2e_0001', text: 'PreToolUse:Bash hook error: nothing gets deleted wholesale', isError: true },
    ]);
    expect(answers.map((a) => a.stdout)).toEqual([
      `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'nothing gets deleted wholesale' } })}\n`,
      '',
    ]);
    expect(run.result?.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'toolu_e2e_0001', tool_input: { command: 'rm -rf keep' } }]);
    expectCached(cached);
  });

  it.concurrent('an asked `git push` is not run in print mode, even with Bash allowed', CASE, async () => {
    const { run, answers } = await withHook('on pre-tool {\n  ask Bash command "git push *" because "pushing needs a human"\n}\n', {
      allowedTools: ['Bash'],
      // The stand-in git by absolute path: `git push *` matches a program path by its name.
      script: [bash(`${fakeGit} push origin main`), bash(`${fakeGit} status`)],
    });
    // Only the second call reached the stand-in.
    expect(run.read('git-calls.txt')).toBe('status\n');
    expect(toolResults(run.requests[1]!)).toEqual([{ toolUseId: 'toolu_e2e_0001', text: 'pushing needs a human', isError: true }]);
    expect(toolResults(run.requests[2]!)[1]).toMatchObject({ text: 'fake git status', isError: false });
    expect(JSON.parse(answers[0]!.stdout!)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'pushing needs a human' },
    });
    expect(run.result?.permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: 'toolu_e2e_0001', tool_input: { command: `${fakeGit} push origin main` } },
    ]);
  });

  it.concurrent("an allowed command runs without --allowedTools (the policy's allow pre-approves it); an unlisted one still needs approval", CASE, async () => {
    const { run } = await withHook('on pre-tool {\n  allow Bash command "touch allowed.txt"\n}\n', {
      script: [bash('touch allowed.txt'), bash('touch unlisted.txt')],
    });
    expect(run.exists('allowed.txt')).toBe(true);
    expect(run.exists('unlisted.txt')).toBe(false);
    const results = toolResults(run.requests[2]!);
    expect(results[0]).toEqual({ toolUseId: 'toolu_e2e_0001', text: '(Bash completed with no output)', isError: false });
    // Control: print mode's own refusal, for the call the policy has no opinion on.
    expect(results[1]).toMatchObject({ toolUseId: 'toolu_e2e_0002', isError: true, text: expect.stringContaining('needs approval') });
    expect(run.result?.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'toolu_e2e_0002', tool_input: { command: 'touch unlisted.txt' } }]);
  });

  it.concurrent('a prompt carrying a private key never reaches the model: zero model turns', CASE, async () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----';
    const { run, install } = await withHook(
      'on prompt {\n  block when prompt matches /-----BEGIN [A-Z ]*PRIVATE KEY-----/ because "paste a path, not a key"\n}\n',
      {
        prompt: `deploy with this key:\n${key}\nMIIEowIBAAKCAQEA7e2e\n-----END RSA PRIVATE KEY-----\n`,
        script: [bash('touch ran.txt')],
      },
    );
    expect(install.events).toEqual(['UserPromptSubmit']);
    expect(run.allRequests).toEqual([]);
    expect(run.exists('ran.txt')).toBe(false);
    expect(run.result).toMatchObject({ num_turns: 0, is_error: false });
    // The user is told why (print mode echoes the prompt back to the user, not to a model).
    expect(String(run.result?.result)).toContain('UserPromptSubmit operation blocked by hook:\npaste a path, not a key');
  });

  it.concurrent("a context rule's text is in the model's request", CASE, async () => {
    const text = 'E2E-CONTEXT-4b1d: this repository uses npm; never run yarn.';
    const { run } = await withHook(`on prompt {\n  context "${text}"\n}\n`, { script: [{ text: 'ok' }] });
    expect(run.requests).toHaveLength(1);
    expect(requestText(run.requests[0]!)).toContain(`UserPromptSubmit hook additional context: ${text}`);
  });

  it.concurrent('a stop rule forces exactly one continuation: the model gets the reason once, does the work, then stops', CASE, async () => {
    const reason = 'run the check before you finish';
    const { run, install, answers } = await withHook(
      `on stop {\n  continue when not ran Bash command "touch checked.txt" because "${reason}"\n}\n`,
      { allowedTools: ['Bash'], script: [{ text: 'all done' }, bash('touch checked.txt')] },
    );
    expect(install.events).toEqual(['Stop']);
    // 1: the prompt; 2: the continuation, which runs the check; 3: its result, then the end.
    expect(run.requests).toHaveLength(3);
    expect(requestText(run.requests[0]!)).not.toContain(reason);
    expect(contentBlocks(run.requests[1]!)).toContainEqual(expect.objectContaining({ role: 'user', type: 'text', text: `Stop hook feedback:\n${reason}` }));
    expect(occurrences(requestText(run.requests[2]!), `Stop hook feedback:\n${reason}`)).toBe(1);
    expect(run.exists('checked.txt')).toBe(true);
    // The second Stop saw the call made during the continuation (from the transcript) and let it stop.
    expect(answers.map((a) => [a.hook_event, a.stdout])).toEqual([
      ['Stop', `${JSON.stringify({ decision: 'block', reason })}\n`],
      ['Stop', ''],
    ]);
    expect(run.result).toMatchObject({ subtype: 'success', result: 'Done.' });
  });

  it.concurrent('`limit 3` ends a loop whose continue always fires, after 3 continuations counted across the hook processes', CASE, async () => {
    // Each Stop runs a new hook process, and Claude Code only says `stop_hook_active: true`: the
    // count of 3 comes from the guard's state file in $HOME/.claude/dshpolicy/stop.
    const { run, answers } = await withHook('on stop {\n  continue because "keep going"\n  limit 3\n}\n', { script: [], keep: true });
    try {
      // The guard's folder is there, and empty again: the count went back to 0 when it stopped the loop.
      expect(readdirSync(join(run.home, '.claude', 'dshpolicy', 'stop'))).toEqual([]);
    } finally {
      if (process.env.DSHPOLICY_E2E_KEEP !== '1') rmSync(dirname(run.project), { recursive: true, force: true });
    }
    expect(run.requests).toHaveLength(4);
    expect(occurrences(requestText(run.requests[3]!), 'Stop hook feedback:\nkeep going')).toBe(3);
    const block = `${JSON.stringify({ decision: 'block', reason: 'keep going' })}\n`;
    expect(answers.map((a) => a.stdout)).toEqual([block, block, block, '']);
    expect(run.result).toMatchObject({ subtype: 'success', num_turns: 4 });
  });

  it.concurrent('a policy broken after install fails closed: the tool call is denied, naming the file and line', CASE, async () => {
    const broken = join(scratch, 'broken.dshpolicy');
    writeFileSync(broken, 'on pre-tool {\n  allow Bash\n  deny Bash command "rm *" becauze "typo"\n}\n');
    const { run, answers, cached } = await withHook(
      'on pre-tool {\n  allow Bash\n}\n',
      { allowedTools: ['Bash'], script: [bash('touch ran.txt')] },
      // The user edits the policy after installing; install itself refuses a broken policy.
      `cp ${sh(broken)} .dshpolicy/policy.dshpolicy`,
    );
    expect(run.exists('ran.txt')).toBe(false);
    const [result] = toolResults(run.requests[1]!);
    expect(result!.isError).toBe(true);
    expect(result!.text).toMatch(/^PreToolUse:Bash hook error: dshpolicy: the policy does not compile: \/\S*\/\.dshpolicy\/policy\.dshpolicy:3:\d+: .*becauze/);
    expect(answers[0]!.stderr).toContain('.dshpolicy/policy.dshpolicy:3:');
    expect(cached.filter((f) => f.endsWith('.json'))).toEqual([]);
  });
});
