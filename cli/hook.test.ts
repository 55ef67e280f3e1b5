import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, scratch } from './testkit.js';
import { discoverPolicies } from './hook.js';

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
