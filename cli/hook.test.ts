import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, scratch } from './testkit.js';
import { hookAgentNamed } from '../bridges/hook.js';
import { deadlineWithin, defaultDeadlineMs as deadlineOf, discoverPolicies, parseDeadline } from './hook.js';

const defaultDeadlineMs = (agent: string, event: Parameters<typeof deadlineOf>[1]) => deadlineOf(hookAgentNamed(agent)!, event);

/** The built hook (`npm test` builds dist/ first). */
const HOOK_BIN = resolve(import.meta.dirname, '..', 'dist', 'hook.cjs');

const { dir, file } = scratch('dshpolicy-hook-');
const cache = join(dir, 'cache');
const state = join(dir, 'state');

const POLICY = `
on pre-tool {
  deny Bash command "rm -rf *" because "never delete recursively"
  ask Bash command "git push *" because "pushing needs a person"
  allow Bash command "ls *", "echo *"
}
on prompt {
  block when prompt contains "BEGIN RSA PRIVATE KEY" because "no keys in prompts"
  context "This project uses pnpm."
}
on stop {
  continue when not ran Bash command "npm test *" because "run the tests before you finish"
  limit 2
}
on session-start {
  context "Read CONTRIBUTING.md first."
}
`;
const policy = file('guard.dshpolicy', POLICY);

const pre = (command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: 's1', transcript_path: '', cwd: dir, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 't', ...extra });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

let env: NodeJS.ProcessEnv;
beforeEach(() => {
  env = { ...process.env };
  process.env['DSHPOLICY_CACHE_DIR'] = cache;
  delete process.env['CLAUDE_PROJECT_DIR'];
});
afterEach(() => {
  process.env = env;
});

function hook(agent: string, payload: string, ...args: string[]) {
  return runCli(['hook', agent, '--policy', policy, '--state-dir', state, ...args], payload);
}

describe('dshpolicy hook claude', () => {
  it('denies, asks and allows in Claude Code\'s protocol, and says nothing when it has no opinion', async () => {
    const deny = await hook('claude', pre('rm -rf build'));
    expect(deny.code).toBe(0);
    expect(JSON.parse(deny.out)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'never delete recursively' } });
    expect(JSON.parse((await hook('claude', pre('git push origin main'))).out).hookSpecificOutput).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: 'pushing needs a person' });
    expect(JSON.parse((await hook('claude', pre('ls -la'))).out).hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
    const none = await hook('claude', pre('make build'));
    expect(none).toEqual({ code: 0, out: '', err: '' });
  });

  it('blocks a prompt, adds context to an allowed one, and to a session start', async () => {
    const prompt = (p: string) => JSON.stringify({ session_id: 's1', transcript_path: '', cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: p });
    expect(JSON.parse((await hook('claude', prompt('here -----BEGIN RSA PRIVATE KEY----- x'))).out)).toEqual({ decision: 'block', reason: 'no keys in prompts' });
    expect(JSON.parse((await hook('claude', prompt('hello'))).out)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'This project uses pnpm.' } });
    const start = JSON.stringify({ session_id: 's1', transcript_path: '', cwd: dir, hook_event_name: 'SessionStart', source: 'startup' });
    expect(JSON.parse((await hook('claude', start)).out)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'Read CONTRIBUTING.md first.' } });
  });

  it('forces a continuation, and the limit ends the loop across separate hook processes', async () => {
    const stop = (active: boolean, session = 'loop') => JSON.stringify({ session_id: session, transcript_path: '', cwd: dir, hook_event_name: 'Stop', stop_hook_active: active, last_assistant_message: 'done' });
    expect(JSON.parse((await hook('claude', stop(false))).out)).toEqual({ decision: 'block', reason: 'run the tests before you finish' });
    expect(JSON.parse((await hook('claude', stop(true))).out)).toEqual({ decision: 'block', reason: 'run the tests before you finish' });
    // two continuations in a row reach `limit 2`: the agent may stop
    expect(await hook('claude', stop(true))).toMatchObject({ code: 0, out: '' });
    // a new stop (not a continuation) starts the count again
    expect(JSON.parse((await hook('claude', stop(false))).out)).toMatchObject({ decision: 'block' });
    // sessions are counted apart
    expect(JSON.parse((await hook('claude', stop(true, 'other'))).out)).toMatchObject({ decision: 'block' });
  });

  it('fails closed on a policy that does not compile, naming the place, unless told to fail open', async () => {
    const broken = file('broken.dshpolicy', 'on pre-tool {\n  deny Bash command "rm *" because\n}\n');
    const r = await runCli(['hook', 'claude', '--policy', broken], pre('ls'));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/the policy does not compile: .*broken\.dshpolicy:\d+:\d+: /);
    const prompt = await runCli(['hook', 'claude', '--policy', broken], JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'hi', session_id: 's', cwd: dir }));
    expect(JSON.parse(prompt.out).decision).toBe('block');
    const open = await runCli(['hook', 'claude', '--policy', broken, '--fail-open'], pre('ls'));
    expect(open.out).toBe('');
    expect(open.err).toContain('failing open');
  });

  it('fails closed on a payload it cannot read, and never traps a stop', async () => {
    const garbage = await hook('claude', '{"hook_event_name": "PreToolUse", "tool_name": ');
    expect(JSON.parse(garbage.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(JSON.parse(garbage.out).hookSpecificOutput.permissionDecisionReason).toContain('the payload is not JSON');
    const unknown = await hook('claude', 'not json at all');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('the payload is not JSON');
    const badStop = await hook('claude', JSON.stringify({ hook_event_name: 'Stop', stop_hook_active: 'yes' }));
    expect(badStop).toMatchObject({ code: 0, out: '' });
  });

  it('finds the project\'s policies in the nearest .dshpolicy directory, and has no opinion without one', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, '.dshpolicy'), { recursive: true });
    mkdirSync(join(project, 'src', 'deep'), { recursive: true });
    writeFileSync(join(project, '.dshpolicy', 'b.dshpolicy'), 'on pre-tool {\n  deny Bash command "curl *" because "no downloads"\n}\n');
    writeFileSync(join(project, '.dshpolicy', 'a.dshpolicy'), 'on pre-tool {\n  deny Bash command "wget *" because "no wget"\n}\n');
    expect(discoverPolicies(join(project, 'src', 'deep')).files.map((f) => f.slice(project.length))).toEqual(['/.dshpolicy/a.dshpolicy', '/.dshpolicy/b.dshpolicy']);
    const payload = pre('curl https://x.example', { cwd: join(project, 'src', 'deep') });
    const r = await runCli(['hook', 'claude'], payload);
    expect(JSON.parse(r.out).hookSpecificOutput.permissionDecisionReason).toBe('no downloads');
    process.env['CLAUDE_PROJECT_DIR'] = join(dir, 'elsewhere');
    mkdirSync(join(dir, 'elsewhere'), { recursive: true });
    expect(await runCli(['hook', 'claude'], payload)).toEqual({ code: 0, out: '', err: '' });
  });

  it('keeps the compiled policy in the cache and notices when a source changes', async () => {
    const p = file('cached.dshpolicy', 'on pre-tool {\n  deny Bash command "rm *" because "first"\n}\n');
    const first = await runCli(['hook', 'claude', '--policy', p], pre('rm x'));
    expect(JSON.parse(first.out).hookSpecificOutput.permissionDecisionReason).toBe('first');
    expect(readdirSync(join(cache, 'ir')).length).toBeGreaterThan(0);
    writeFileSync(p, 'on pre-tool {\n  deny Bash command "rm *" because "second"\n}\n');
    const second = await runCli(['hook', 'claude', '--policy', p], pre('rm x'));
    expect(JSON.parse(second.out).hookSpecificOutput.permissionDecisionReason).toBe('second');
  });

  it('rejects a missing agent or a policy file that is not there', async () => {
    expect((await runCli(['hook'], '')).code).toBe(2);
    const missing = await runCli(['hook', 'claude', '--policy', join(dir, 'nope.dshpolicy')], pre('ls'));
    expect(JSON.parse(missing.out).hookSpecificOutput.permissionDecisionReason).toContain('does not exist');
  });
});

describe('dshpolicy hook codex', () => {
  const codexPre = (command: string) =>
    JSON.stringify({ session_id: 's1', turn_id: 't1', transcript_path: null, cwd: dir, hook_event_name: 'PreToolUse', model: 'gpt-5.5', permission_mode: 'default', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'c1' });

  it('denies with a reason, turns ask into a deny that says approval is required, and leaves allow to Codex', async () => {
    expect(JSON.parse((await hook('codex', codexPre('rm -rf /'))).out)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'never delete recursively' } });
    expect(JSON.parse((await hook('codex', codexPre('git push'))).out).hookSpecificOutput.permissionDecisionReason).toBe('approval required: pushing needs a person');
    expect((await hook('codex', codexPre('git push'), '--codex-ask', 'none')).out).toBe('');
    expect((await hook('codex', codexPre('ls'))).out).toBe('');
  });

  it('continues a stop with decision block and keeps Codex\'s Stop free of hookSpecificOutput', async () => {
    const stop = JSON.stringify({ session_id: 'cx', turn_id: 't', transcript_path: null, cwd: dir, hook_event_name: 'Stop', model: 'gpt-5.5', permission_mode: 'default', stop_hook_active: false, last_assistant_message: null });
    expect(JSON.parse((await hook('codex', stop)).out)).toEqual({ decision: 'block', reason: 'run the tests before you finish' });
  });

  it('rejects an unknown --codex-ask', async () => {
    expect((await hook('codex', codexPre('ls'), '--codex-ask', 'maybe')).code).toBe(2);
  });
});

describe('dshpolicy hook gemini', () => {
  const geminiPre = (tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ session_id: 'g1', transcript_path: '', cwd: dir, hook_event_name: 'BeforeTool', timestamp: '2026-01-01T00:00:00.000Z', tool_name: tool, tool_input: input, ...extra });
  const shell = (command: string) => geminiPre('run_shell_command', { command });

  beforeEach(() => {
    delete process.env['GEMINI_PROJECT_DIR'];
  });

  it('denies and asks with the reason, and prints nothing for an allow or no opinion', async () => {
    expect(await hook('gemini', shell('rm -rf build'))).toEqual({ code: 0, out: '{"decision":"deny","reason":"never delete recursively"}\n', err: '' });
    expect(await hook('gemini', shell('git push origin main'))).toEqual({ code: 0, out: '{"decision":"ask","reason":"pushing needs a person"}\n', err: '' });
    expect(await hook('gemini', shell('ls -la'))).toEqual({ code: 0, out: '', err: '' });
    expect(await hook('gemini', shell('make build'))).toEqual({ code: 0, out: '', err: '' });
  });

  it('decides Gemini CLI\'s tools and MCP tools under dshpolicy\'s names', async () => {
    const p = file('tools.dshpolicy', [
      'on pre-tool {',
      '  deny Read when input.file_path contains ".env" because "no secrets"',
      '  deny Edit because "no edits"',
      '  deny mcp__github__* because "no github"',
      '}',
      '',
    ].join('\n'));
    const run = (payload: string) => runCli(['hook', 'gemini', '--policy', p], payload);
    expect(JSON.parse((await run(geminiPre('read_file', { file_path: 'app/.env' }))).out)).toEqual({ decision: 'deny', reason: 'no secrets' });
    expect((await run(geminiPre('read_file', { file_path: 'README.md' }))).out).toBe('');
    expect(JSON.parse((await run(geminiPre('replace', { file_path: 'a.ts', old_string: 'a', new_string: 'b' }))).out).reason).toBe('no edits');
    const mcp = geminiPre('mcp_github_create_issue', { title: 't' }, { mcp_context: { server_name: 'github', tool_name: 'create_issue' } });
    expect(JSON.parse((await run(mcp)).out)).toEqual({ decision: 'deny', reason: 'no github' });
  });

  it('answers nothing to an event other than BeforeTool', async () => {
    const agent = JSON.stringify({ session_id: 'g1', transcript_path: '', cwd: dir, hook_event_name: 'BeforeAgent', timestamp: 't', prompt: 'BEGIN RSA PRIVATE KEY' });
    expect(await hook('gemini', agent)).toEqual({ code: 0, out: '', err: '' });
  });

  it('fails closed on a policy that does not compile, naming the place, unless told to fail open', async () => {
    const broken = file('broken-gemini.dshpolicy', 'on pre-tool {\n  deny Bash command "rm *" because\n}\n');
    const r = await runCli(['hook', 'gemini', '--policy', broken], shell('ls'));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.decision).toBe('deny');
    expect(out.reason).toMatch(/^dshpolicy: the policy does not compile: .*broken-gemini\.dshpolicy:\d+:\d+: /);
    expect(r.err).toContain('the policy does not compile');
    const open = await runCli(['hook', 'gemini', '--policy', broken, '--fail-open'], shell('ls'));
    expect(open.code).toBe(0);
    expect(open.out).toBe('');
    expect(open.err).toContain('failing open');
    const missing = await runCli(['hook', 'gemini', '--policy', join(dir, 'nope.dshpolicy')], shell('ls'));
    expect(JSON.parse(missing.out).reason).toContain('does not exist');
  });

  it('fails closed on a payload it cannot read', async () => {
    const noInput = await hook('gemini', JSON.stringify({ hook_event_name: 'BeforeTool', session_id: 'g1', cwd: dir, tool_name: 'read_file' }));
    expect(noInput.code).toBe(0);
    expect(JSON.parse(noInput.out)).toEqual({ decision: 'deny', reason: 'dshpolicy: the payload cannot be read: missing field `tool_input`' });
    const cut = await hook('gemini', '{"hook_event_name": "BeforeTool", "tool_name": ');
    expect(cut.code).toBe(0);
    expect(JSON.parse(cut.out).reason).toContain('the payload is not JSON');
    // no event named: exit 2, which blocks the call with stderr as the reason
    const garbage = await hook('gemini', 'not json');
    expect(garbage).toMatchObject({ code: 2, out: '' });
    expect(garbage.err).toContain('the payload is not JSON');
    const noEvent = await hook('gemini', JSON.stringify({ tool_name: 'read_file', tool_input: {} }));
    expect(noEvent).toMatchObject({ code: 2, out: '' });
    expect(noEvent.err).toContain('missing field `hook_event_name`');
    const open = await hook('gemini', 'not json', '--fail-open');
    expect(open).toMatchObject({ code: 0, out: '' });
    expect(open.err).toContain('failing open');
  });

  it('finds the policy above GEMINI_PROJECT_DIR, else above the payload\'s cwd', async () => {
    const project = join(dir, 'gproject');
    mkdirSync(join(project, '.dshpolicy'), { recursive: true });
    mkdirSync(join(project, 'src'), { recursive: true });
    mkdirSync(join(dir, 'gelsewhere'), { recursive: true });
    writeFileSync(join(project, '.dshpolicy', 'guard.dshpolicy'), 'on pre-tool {\n  deny Bash command "curl *" because "no downloads"\n}\n');
    const payload = geminiPre('run_shell_command', { command: 'curl https://x.example' }, { cwd: join(project, 'src') });
    expect(JSON.parse((await runCli(['hook', 'gemini'], payload)).out).reason).toBe('no downloads');
    process.env['GEMINI_PROJECT_DIR'] = join(dir, 'gelsewhere');
    expect(await runCli(['hook', 'gemini'], payload)).toEqual({ code: 0, out: '', err: '' });
  });

  it('rejects an unknown agent', async () => {
    const r = await runCli(['hook', 'cursor'], shell('ls'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown agent `cursor`');
  });
});

describe('deadlines', () => {
  const slow = file('slow.dshpolicy', [
    'on pre-tool {',
    '  deny Bash command "touch denied-ran" because "no marker"',
    '  run Bash hook "sleep 30"',
    '}',
    'on prompt {',
    '  run hook "sleep 30"',
    '}',
    'on stop {',
    '  run hook "sleep 30"',
    '}',
    '',
  ].join('\n'));
  const withSlow = (payload: string, ...args: string[]) => runCli(['hook', 'claude', '--policy', slow, '--state-dir', state, ...args], payload);
  const late = 'hook `sleep 30` did not answer in time';

  async function timed<T>(work: Promise<T>): Promise<T & { ms: number }> {
    const start = Date.now();
    const value = await work;
    return { ...value, ms: Date.now() - start };
  }

  it('a deny answers at once beside a hook that sleeps', async () => {
    const r = await timed(withSlow(pre('touch denied-ran')));
    expect(JSON.parse(r.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'no marker' });
    expect(r.ms).toBeLessThan(2000);
  });

  it('a hook that has not answered by --deadline denies the call and blocks the prompt, naming the hook; a stop goes ahead', async () => {
    const r = await timed(withSlow(pre('ls'), '--deadline', '1s'));
    expect(JSON.parse(r.out)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: late } });
    expect(r.ms).toBeGreaterThanOrEqual(900);
    expect(r.ms).toBeLessThan(2500);
    expect(r.err).toContain('did not answer in time');
    const prompt = JSON.stringify({ session_id: 's1', transcript_path: '', cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
    expect(JSON.parse((await withSlow(prompt, '--deadline', '500ms')).out)).toEqual({ decision: 'block', reason: late });
    const stop = JSON.stringify({ session_id: 'late', transcript_path: '', cwd: dir, hook_event_name: 'Stop', stop_hook_active: false });
    const stopped = await withSlow(stop, '--deadline', '500ms');
    expect(stopped).toMatchObject({ code: 0, out: '' });
    expect(stopped.err).toContain('left out of the decision');
  });

  it('`with {on_deadline: "none"}` and --fail-open leave a late hook out of the decision', async () => {
    const lenient = file('lenient.dshpolicy', 'on pre-tool {\n  run Bash hook "sleep 30" with {on_deadline: "none"}\n}\n');
    const r = await runCli(['hook', 'claude', '--policy', lenient, '--deadline', '300ms'], pre('ls'));
    expect(r).toMatchObject({ code: 0, out: '' });
    expect(r.err).toContain(`${late}, so it is left out of the decision`);
    expect(await withSlow(pre('ls'), '--deadline', '300ms', '--fail-open')).toMatchObject({ code: 0, out: '' });
  });

  it('`check` takes `on_deadline` as "fail-closed" or "none" only', async () => {
    const good = file('on-deadline.dshpolicy', 'on pre-tool {\n  run Bash hook "x" with {on_deadline: "fail-closed"}\n  run Read hook "y" with {on_deadline: "none"}\n}\n');
    expect((await runCli(['check', good])).code).toBe(0);
    const bad = file('on-deadline-bad.dshpolicy', 'on pre-tool {\n  run Bash hook "x" with {on_deadline: "later"}\n}\n');
    const r = await runCli(['check', bad, '--format', 'json']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('check/bad-hook-option');
    expect(r.out).toContain('`on_deadline` must be');
  });

  it('takes --deadline as a duration, and defaults to the agent\'s default timeout less the margin', async () => {
    expect(parseDeadline('590s')).toBe(590_000);
    expect(parseDeadline('1500ms')).toBe(1500);
    expect(parseDeadline('2m')).toBe(120_000);
    expect(parseDeadline('25')).toBe(25_000);
    expect(() => parseDeadline('soon')).toThrow('`--deadline` takes a duration');
    expect(() => parseDeadline('0s')).toThrow('`--deadline` takes a duration');
    expect((await withSlow(pre('ls'), '--deadline', 'soon')).code).toBe(2);
    const tool = { seam: 'pre-tool', tool: 'Bash', input: {} } as const;
    expect(defaultDeadlineMs('claude', tool)).toBe(595_000);
    expect(defaultDeadlineMs('codex', tool)).toBe(595_000);
    expect(defaultDeadlineMs('claude', { seam: 'prompt', prompt: '' })).toBe(25_000);
    expect(defaultDeadlineMs('gemini', tool)).toBe(55_000);
    // A short timeout keeps half of it for the hooks.
    expect(deadlineWithin(4000)).toBe(2000);
  });

  describe.skipIf(!existsSync(HOOK_BIN))('the hook process (dist/hook.cjs)', () => {
    function spawnHook(payload: string, args: string[]) {
      const start = Date.now();
      const r = spawnSync(process.execPath, [HOOK_BIN, 'claude', ...args], { input: payload, env: { ...process.env, DSHPOLICY_CACHE_DIR: cache }, encoding: 'utf8', timeout: 20_000 });
      return { code: r.status, out: r.stdout, err: r.stderr, ms: Date.now() - start };
    }

    it('exits as soon as it has answered, even when a hook left a daemon holding its pipes', () => {
      const pidFile = join(dir, 'daemon.pid');
      const p = file('daemon.dshpolicy', [
        'on pre-tool {',
        '  deny Bash command "touch denied-ran" because "no marker"',
        `  run Bash hook "sleep 0.3; setsid sh -c 'echo $$ > ${pidFile}; exec sleep 20' & sleep 30"`,
        '}',
        '',
      ].join('\n'));
      const denied = spawnHook(pre('touch denied-ran'), ['--policy', p]);
      expect(denied.code).toBe(0);
      expect(JSON.parse(denied.out).hookSpecificOutput.permissionDecisionReason).toBe('no marker');
      expect(denied.ms).toBeLessThan(3000);
      // The daemon is left alone when the rules are final at once; through the deadline it is started, and let go.
      const late = spawnHook(pre('ls'), ['--policy', p, '--deadline', '1s']);
      try {
        expect(late.code).toBe(0);
        expect(JSON.parse(late.out).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('did not answer in time') });
        expect(late.ms).toBeLessThan(4000);
        expect(existsSync(pidFile)).toBe(true);
      } finally {
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
        } catch {
          // gone already
        }
      }
    });
  });
});
