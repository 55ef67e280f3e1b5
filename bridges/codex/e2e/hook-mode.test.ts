/**
 * dshpolicy installed as Codex's hook, end to end: each case writes a policy into the project's
 * `.dshpolicy/`, runs the built `dshpolicy install codex --project . --trust` in the project the
 * way a user would (inside a wrapper that then execs the pinned CLI, so the install sees the very
 * project, CODEX_HOME and environment the agent runs with: it writes `.codex/hooks.json` and the
 * hook and project trust into `$CODEX_HOME/config.toml`), and then runs the real `codex exec`
 * against the scripted stand-in model **without** `--dangerously-bypass-hook-trust`, so the hooks
 * run only because install trusted them. Approval `never` and sandbox `danger-full-access`: without
 * the hook every command would run. The assertions are on real effects: files, what the model was
 * sent, Codex's `hook: <Event> <Status>` lines. The hook's compiled-IR cache goes to a per-case
 * `DSHPOLICY_CACHE_DIR`; its stop-guard state to `$CODEX_HOME/dshpolicy/stop`.
 *
 * Needs the bundle (`npx tsup`: dist/cli.cjs, hook.cjs, hook-main.cjs, compiler.cjs), which it runs from a copy
 * (`snapshotDist`). Part of `npm test`; skipped when DSHPOLICY_E2E=0. See cli/e2e/README.md.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiter } from './differential-lib.js';
import { CODEX_VERSION, ensureCodex } from './install.js';
import { messagesByRole, toolOutputs, type RecordedRequest, type Turn } from './model.js';
import { runCodex, type RunCodexOptions, type RunCodexResult } from './run.js';
import { snapshotDist as snapshotDistOf } from '../../common/e2e-dist.js';

const enabled = process.env['DSHPOLICY_E2E'] !== '0';
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BUNDLES = ['cli.cjs', 'hook.cjs', 'hook-main.cjs', 'compiler.cjs'];
/** The built CLI, copied (see {@link snapshotDist}): `<copy>/cli.cjs`. */
let CLI = '';
const CASE = { timeout: 180_000 };
const slot = limiter(2);

let scratch = '';
let codex = '';
/** A stand-in `git`: logs its arguments to `git-calls.txt` in its working directory. */
let fakeGit = '';

/** POSIX sh single-quoting. */
function sh(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** What `dshpolicy install --format json` reported. */
interface InstallReport {
  ok: boolean;
  file: string;
  changed: boolean;
  events: string[];
  command?: string;
  policies?: unknown;
  trust?: { config: string; written: boolean; entries: { key: string; trusted: boolean }[]; project?: { dir: string; trusted: boolean } };
  diagnostics: unknown[];
}

interface HookRun {
  run: RunCodexResult;
  install: InstallReport;
  /** The model calls (`POST /v1/responses`), in order. */
  requests: RecordedRequest[];
  /** `$CODEX_HOME/config.toml` right after install. */
  config: string;
  /** Files in the case's DSHPOLICY_CACHE_DIR after the run. */
  cached: string[];
}

/**
 * A `codex` for one case: installs dshpolicy into the project (its cwd) with --trust, keeps copies
 * of what install wrote, runs `afterInstall` (shell), then execs the pinned launcher.
 */
function wrapper(dir: string, afterInstall: string): string {
  const report = join(dir, 'install.json');
  const errors = join(dir, 'install.err');
  const bin = join(dir, 'codex');
  writeFileSync(
    bin,
    [
      '#!/bin/sh',
      `${sh(process.execPath)} ${sh(CLI)} install codex --project . --trust --format json > ${sh(report)} 2> ${sh(errors)} || {`,
      `  echo "e2e: dshpolicy install failed" >&2; cat ${sh(report)} ${sh(errors)} >&2; exit 97; }`,
      `cp .codex/hooks.json ${sh(join(dir, 'hooks.json'))} && cp "$CODEX_HOME/config.toml" ${sh(join(dir, 'config.toml'))} || exit 98`,
      afterInstall,
      `exec ${sh(codex)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(bin, 0o755);
  return bin;
}

/** A private copy of the built bundles (common/e2e-dist.ts). */
const snapshotDist = (): Promise<string> => snapshotDistOf(REPO_ROOT, BUNDLES, 'hook-e2e-dist-');

let cases = 0;

async function withHook(policy: string, options: Omit<RunCodexOptions, 'script'> & { script: Turn[] }, afterInstall = ''): Promise<HookRun> {
  const dir = join(scratch, `case-${++cases}`);
  const cache = join(dir, 'cache');
  mkdirSync(cache, { recursive: true });
  const bin = wrapper(dir, afterInstall);
  const run = await slot(() =>
    runCodex({
      // A runaway continuation loop ends at the stand-in's 429s, not at the test timeout.
      maxRequests: 20,
      ...options,
      bypassHookTrust: false,
      codexBin: bin,
      files: { '.dshpolicy/policy.dshpolicy': policy, ...(options.files ?? {}) },
      // The variable a teammate sets when dshpolicy is neither in the project nor on PATH.
      env: { DSHPOLICY_CACHE_DIR: cache, DSHPOLICY_BIN: CLI, ...(options.env ?? {}) },
    }),
  );
  expect(run.timedOut, why(run)).toBe(false);
  expect(run.exitCode, why(run)).toBe(0);
  const install = JSON.parse(readFileSync(join(dir, 'install.json'), 'utf8')) as InstallReport;
  const hooksFile = join(run.project, '.codex', 'hooks.json');
  expect(install).toMatchObject({ ok: true, changed: true, file: hooksFile, policies: 'project' });
  expect(install.diagnostics).not.toContainEqual(expect.objectContaining({ code: 'install/not-found' }));
  // No path of this machine in the project's hooks.json: the command runs $DSHPOLICY_BIN, and each
  // handler adds its event's name.
  expect(install.command).toMatch(/^\/bin\/sh -c '[^']*' dshpolicy$/);
  expect(install.command).not.toContain(dirname(CLI));
  // Trusted by install, not by a bypass flag: every handler and the project.
  expect(install.trust).toMatchObject({ config: join(run.codexHome, 'config.toml'), written: true, project: { dir: run.project, trusted: true } });
  expect(install.trust!.entries.map((e) => e.trusted)).toEqual(install.events.map(() => true));
  const config = readFileSync(join(dir, 'config.toml'), 'utf8');
  for (const entry of install.trust!.entries) expect(config).toContain(`[hooks.state."${entry.key}"]`);
  const hooks = JSON.parse(readFileSync(join(dir, 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  expect(Object.keys(hooks.hooks)).toEqual(install.events);
  for (const event of install.events) expect(hooks.hooks[event]!.flatMap((g) => g.hooks.map((h) => h.command))).toEqual([`${install.command} ${event}`]);
  const cached = existsSync(cache) ? readdirSync(cache, { recursive: true, encoding: 'utf8' }) : [];
  return { run, install, requests: run.requests.filter((q) => q.responses), config, cached };
}

function why(r: RunCodexResult): string {
  return `exit ${String(r.exitCode)}${r.timedOut ? ' (timed out)' : ''} after ${r.durationMs} ms\n--- stderr\n${r.stderr.slice(0, 4000)}\n--- stdout\n${r.stdout.slice(0, 2000)}`;
}

function exec(cmd: string): Turn {
  return { call: { name: 'exec_command', args: { cmd } } };
}

/** The `<hook_prompt>` user messages a request carries (Codex's Stop-hook continuations). */
function hookPrompts(req: RecordedRequest): string[] {
  return messagesByRole(req, 'user').filter((t) => t.startsWith('<hook_prompt'));
}

/** The policy compiled once into the cache and was read from it afterwards. */
function expectCached(cached: string[]): void {
  expect(cached.filter((f) => /^ir[\\/].+\.json$/.test(f))).toHaveLength(1);
}

describe.skipIf(!enabled)(`dshpolicy installed as the hook of Codex CLI ${CODEX_VERSION}`, () => {
  beforeAll(async () => {
    codex = await ensureCodex();
    scratch = mkdtempSync(join(tmpdir(), 'dshpolicy-hookmode-'));
    fakeGit = join(scratch, 'bin', 'git');
    mkdirSync(join(scratch, 'bin'));
    writeFileSync(fakeGit, '#!/bin/sh\necho "$*" >> git-calls.txt\necho "fake git $*"\n');
    chmodSync(fakeGit, 0o755);
    const dist = await snapshotDist();
    CLI = join(dist, 'cli.cjs');
  }, 11 * 60_000);

  afterAll(() => {
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
    if (CLI !== '') rmSync(dirname(CLI), { recursive: true, force: true });
  });

  it.concurrent('a denied `rm -rf` leaves the files in place and the model is told why', CASE, async () => {
    const { run, install, requests, cached } = await withHook(
      'on pre-tool {\n  deny Bash command "rm -rf *" because "nothing gets deleted wholesale"\n}\n',
      { files: { 'keep/a.txt': 'precious\n' }, script: [exec('rm -rf keep'), exec('touch after.txt')] },
    );
    expect(install.events).toEqual(['PreToolUse']);
    expect(run.projectFiles['keep/a.txt']).toBe('precious\n');
    // The next call ran: the hook decided, the shell itself works.
    expect(run.projectFiles).toHaveProperty(['after.txt']);
    expect(toolOutputs(requests[1]!)).toEqual([
      { callId: 'call_1', output: 'Command blocked by PreToolUse hook: nothing gets deleted wholesale. Command: rm -rf keep' },
    ]);
    expect(run.hookStatuses).toEqual([
      { event: 'PreToolUse', status: 'Blocked' },
      { event: 'PreToolUse', status: 'Completed' },
    ]);
    expectCached(cached);
  });

  it.concurrent('an asked `git push` is not run: Codex has no ask, so it is denied as needing approval', CASE, async () => {
    const { run, requests } = await withHook('on pre-tool {\n  ask Bash command "git push *" because "pushing needs a human"\n}\n', {
      // The stand-in git by absolute path (Codex runs commands in a login shell, which resets PATH);
      // `git push *` matches a program path by its name.
      script: [exec(`${fakeGit} push origin main`), exec(`${fakeGit} status`)],
    });
    // Only the second call reached the stand-in.
    expect(run.projectFiles['git-calls.txt']).toBe('status\n');
    expect(toolOutputs(requests[1]!)).toEqual([
      { callId: 'call_1', output: `Command blocked by PreToolUse hook: approval required: pushing needs a human. Command: ${fakeGit} push origin main` },
    ]);
    expect(toolOutputs(requests[2]!)[1]!.output).toContain('fake git status');
    expect(run.hookStatuses.map((s) => s.status)).toEqual(['Blocked', 'Completed']);
  });

  it.concurrent('an allowed command runs', CASE, async () => {
    const { run, requests } = await withHook('on pre-tool {\n  allow Bash command "touch allowed.txt"\n}\n', { script: [exec('touch allowed.txt')] });
    expect(run.projectFiles).toHaveProperty(['allowed.txt']);
    expect(toolOutputs(requests[1]!)[0]!.output).toContain('Process exited with code 0');
    // dshpolicy says nothing for a plain allow (Codex takes `allow` only with a rewritten input).
    expect(run.hookStatuses).toEqual([{ event: 'PreToolUse', status: 'Completed' }]);
  });

  it.concurrent('a prompt carrying a private key never reaches the model: no request at all', CASE, async () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----';
    const { run, install } = await withHook(
      'on prompt {\n  block when prompt matches /-----BEGIN [A-Z ]*PRIVATE KEY-----/ because "paste a path, not a key"\n}\n',
      { prompt: `deploy with this key:\n${key}\nMIIEowIBAAKCAQEA7e2e\n-----END RSA PRIVATE KEY-----\n`, script: [exec('touch ran.txt')] },
    );
    expect(install.events).toEqual(['UserPromptSubmit']);
    expect(run.requests).toEqual([]);
    expect(run.projectFiles).not.toHaveProperty(['ran.txt']);
    expect(run.hookStatuses).toEqual([{ event: 'UserPromptSubmit', status: 'Blocked' }]);
  });

  it.concurrent("a context rule's text is in the model's request", CASE, async () => {
    const text = 'E2E-CONTEXT-4b1d: this repository uses npm; never run yarn.';
    const { requests } = await withHook(`on prompt {\n  context "${text}"\n}\n`, { prompt: 'say ok', script: [{ text: 'ok' }] });
    expect(requests).toHaveLength(1);
    // A developer message right after the user's prompt.
    expect(messagesByRole(requests[0]!, 'developer')).toContain(text);
    const users = messagesByRole(requests[0]!, 'user');
    expect(users[users.length - 1]).toBe('say ok');
  });

  it.concurrent('a stop rule forces exactly one continuation: the model gets the reason once, does the work, then stops', CASE, async () => {
    const reason = 'run the check before you finish';
    const { run, install, requests } = await withHook(
      `on stop {\n  continue when not ran Bash command "touch checked.txt" because "${reason}"\n}\n`,
      { script: [{ text: 'all done' }, exec('touch checked.txt')] },
    );
    expect(install.events).toEqual(['Stop']);
    // 1: the prompt; 2: the continuation, which runs the check; 3: its result, then the end.
    expect(requests).toHaveLength(3);
    expect(hookPrompts(requests[0]!)).toEqual([]);
    const prompts = hookPrompts(requests[2]!);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatch(new RegExp(`^<hook_prompt hook_run_id="stop:0:[^"]*/\\.codex/hooks\\.json">${reason}</hook_prompt>$`));
    expect(run.projectFiles).toHaveProperty(['checked.txt']);
    // The second Stop saw the call made during the continuation (from the rollout) and let it stop.
    expect(run.hookStatuses).toEqual([
      { event: 'Stop', status: 'Blocked' },
      { event: 'Stop', status: 'Completed' },
    ]);
  });

  it.concurrent('`limit 3` ends a loop whose continue always fires (Codex has no cap of its own), counting across the hook processes', CASE, async () => {
    // Each Stop runs a new hook process, and Codex only says `stop_hook_active: true`: the count of
    // 3 comes from the guard's state file in $CODEX_HOME/dshpolicy/stop. Without it the loop would
    // run into the stand-in's request limit.
    const { run, requests } = await withHook('on stop {\n  continue because "keep going"\n  limit 3\n}\n', { script: [], keep: true });
    try {
      // The guard's folder is there, and empty again: the count went back to 0 when it stopped the loop.
      expect(readdirSync(join(run.codexHome, 'dshpolicy', 'stop'))).toEqual([]);
    } finally {
      if (process.env['DSHPOLICY_E2E_KEEP'] !== '1') await run.cleanup();
    }
    expect(requests).toHaveLength(4);
    expect(hookPrompts(requests[3]!).map((p) => p.replace(/^<hook_prompt [^>]*>|<\/hook_prompt>$/g, ''))).toEqual(['keep going', 'keep going', 'keep going']);
    expect(run.hookStatuses.map((s) => `${s.event} ${s.status}`)).toEqual(['Stop Blocked', 'Stop Blocked', 'Stop Blocked', 'Stop Completed']);
  });

  it.concurrent('a policy broken after install fails closed: the tool call is denied, naming the file and line', CASE, async () => {
    const broken = join(scratch, 'broken.dshpolicy');
    writeFileSync(broken, 'on pre-tool {\n  allow Bash\n  deny Bash command "rm *" becauze "typo"\n}\n');
    const { run, requests, cached } = await withHook(
      'on pre-tool {\n  allow Bash\n}\n',
      { script: [exec('touch ran.txt')] },
      // The user edits the policy after installing; install itself refuses a broken policy.
      `cp ${sh(broken)} .dshpolicy/policy.dshpolicy`,
    );
    expect(run.projectFiles).not.toHaveProperty(['ran.txt']);
    const [output] = toolOutputs(requests[1]!);
    expect(output!.output).toMatch(
      /^Command blocked by PreToolUse hook: dshpolicy: the policy does not compile: \/\S*\/\.dshpolicy\/policy\.dshpolicy:3:\d+: .*becauze.*\. Command: touch ran\.txt$/,
    );
    expect(run.hookStatuses).toEqual([{ event: 'PreToolUse', status: 'Blocked' }]);
    expect(cached.filter((f) => f.endsWith('.json'))).toEqual([]);
  });
});
