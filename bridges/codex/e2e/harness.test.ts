/**
 * The harness against the real Codex CLI: each case runs `codex exec` once against the scripted stand-in
 * model and checks what really happened (files, hook statuses, what the model was sent next). These are
 * also the recorded facts later bridge tests compare dshpolicy's offline decisions with.
 *
 * Runs as part of `npm test` (installing the pinned Codex into the cache on first use); set
 * DSHPOLICY_E2E=0 to skip.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CODEX_VERSION, ensureCodex } from './install.js';
import { messagesByRole, toolOutputs, type RecordedRequest } from './model.js';
import { DEFAULT_MODEL, runCodex, type HookEvents, type RunCodexResult } from './run.js';

const enabled = process.env['DSHPOLICY_E2E'] !== '0';
/** One run takes about a second; the harness's own hard timeout is 60 s. */
const CASE_TIMEOUT_MS = 90_000;
const INSTALL_TIMEOUT_MS = 11 * 60_000;

/** A hook script: saves its stdin as `$DSHPOLICY_E2E_OUT/<name>-<n>.json` (n = 0, 1, ...), then runs `then`. */
function captureHook(name: string, then = ''): string {
  return [
    '#!/bin/sh',
    'n=0',
    `while [ -e "$DSHPOLICY_E2E_OUT/${name}-$n.json" ]; do n=$((n+1)); done`,
    `cat > "$DSHPOLICY_E2E_OUT/${name}-$n.json"`,
    then,
    '',
  ].join('\n');
}

/** `{ <event>: [{ matcher, hooks: [command "$DSHPOLICY_E2E_BIN/<script>"] }] }` */
function hookOn(event: string, script: string, matcher?: string): HookEvents {
  return { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command: `"$DSHPOLICY_E2E_BIN/${script}"`, timeout: 30 }] }] };
}

const touch = { call: { name: 'exec_command', args: { cmd: 'touch ran.txt' } } } as const;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function responses(r: RunCodexResult): RecordedRequest[] {
  return r.requests.filter((q) => q.responses);
}

/** The run's details, for assertion messages. */
function why(r: RunCodexResult): string {
  return `exit ${String(r.exitCode)}${r.timedOut ? ' (timed out)' : ''} after ${r.durationMs} ms\n--- stderr\n${r.stderr}\n--- stdout\n${r.stdout}`;
}

function expectRanCleanly(r: RunCodexResult): void {
  expect(r.timedOut, why(r)).toBe(false);
  expect(r.exitCode, why(r)).toBe(0);
  expect(r.requests.filter((q) => !q.responses), 'the stand-in only ever sees POST /v1/responses').toEqual([]);
}

describe.skipIf(!enabled)(`Codex CLI ${CODEX_VERSION} end to end`, () => {
  beforeAll(async () => {
    await ensureCodex();
  }, INSTALL_TIMEOUT_MS);

  it('(a) runs the scripted exec_command for real and sends its output back to the model', { timeout: CASE_TIMEOUT_MS }, async () => {
    const r = await runCodex({ script: [touch, { text: 'all done' }] });
    expectRanCleanly(r);
    expect(r.projectFiles, why(r)).toHaveProperty(['ran.txt'], '');
    const reqs = responses(r);
    expect(reqs).toHaveLength(2);
    expect(toolOutputs(reqs[0]!)).toEqual([]);
    const outputs = toolOutputs(reqs[1]!);
    expect(outputs).toHaveLength(1);
    expect(outputs[0]!.callId).toBe('call_1');
    expect(outputs[0]!.output).toContain('Process exited with code 0');
    expect(r.stdout.trim()).toBe('all done');
    expect(r.hookStatuses).toEqual([]);
    expect(r.durationMs).toBeLessThan(60_000);
  });

  it('(b) a PreToolUse hook exiting 2 blocks the command and the model is told why', { timeout: CASE_TIMEOUT_MS }, async () => {
    const r = await runCodex({
      script: [touch],
      scripts: { pre: captureHook('pre', 'echo "blocked by the e2e hook" >&2\nexit 2') },
      hooks: hookOn('PreToolUse', 'pre', 'Bash'),
    });
    expectRanCleanly(r);
    expect(Object.keys(r.captures), 'the hook ran').toEqual(['pre-0.json']);
    expect(r.projectFiles, why(r)).not.toHaveProperty(['ran.txt']);
    expect(r.hookStatuses).toEqual([{ event: 'PreToolUse', status: 'Blocked' }]);
    expect(toolOutputs(responses(r)[1]!)).toEqual([
      { callId: 'call_1', output: 'Command blocked by PreToolUse hook: blocked by the e2e hook. Command: touch ran.txt' },
    ]);
  });

  it('(c) a PreToolUse hook answering permissionDecision "deny" blocks the command', { timeout: CASE_TIMEOUT_MS }, async () => {
    const deny = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'r' } };
    const r = await runCodex({
      script: [touch],
      scripts: { pre: captureHook('pre', `printf '%s\\n' '${JSON.stringify(deny)}'`) },
      hooks: hookOn('PreToolUse', 'pre', 'Bash'),
    });
    expectRanCleanly(r);
    expect(Object.keys(r.captures), 'the hook ran').toEqual(['pre-0.json']);
    expect(r.projectFiles, why(r)).not.toHaveProperty(['ran.txt']);
    expect(r.hookStatuses).toEqual([{ event: 'PreToolUse', status: 'Blocked' }]);
    expect(toolOutputs(responses(r)[1]!)).toEqual([{ callId: 'call_1', output: 'Command blocked by PreToolUse hook: r. Command: touch ran.txt' }]);
  });

  it('(d) a PreToolUse hook answering permissionDecision "ask" fails open: the hook counts as failed and the command runs', { timeout: CASE_TIMEOUT_MS }, async () => {
    const ask = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'r' } };
    const r = await runCodex({
      script: [touch],
      scripts: { pre: captureHook('pre', `printf '%s\\n' '${JSON.stringify(ask)}'`) },
      hooks: hookOn('PreToolUse', 'pre', 'Bash'),
    });
    expectRanCleanly(r);
    expect(Object.keys(r.captures), 'the hook ran').toEqual(['pre-0.json']);
    expect(r.hookStatuses).toEqual([{ event: 'PreToolUse', status: 'Failed' }]);
    expect(r.projectFiles, why(r)).toHaveProperty(['ran.txt'], '');
    const outputs = toolOutputs(responses(r)[1]!);
    expect(outputs).toHaveLength(1);
    expect(outputs[0]!.output).toContain('Process exited with code 0');
    expect(outputs[0]!.output).not.toContain('blocked');
  });

  it('(e) a UserPromptSubmit hook’s additionalContext reaches the model as a developer message after the prompt', { timeout: CASE_TIMEOUT_MS }, async () => {
    const context = 'E2E-CONTEXT-7f3a: the user prefers tabs';
    const out = { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: context } };
    const r = await runCodex({
      prompt: 'say hi',
      script: [{ text: 'hi' }],
      scripts: { ups: captureHook('ups', `printf '%s' '${JSON.stringify(out)}'`) },
      hooks: hookOn('UserPromptSubmit', 'ups'),
    });
    expectRanCleanly(r);
    expect(r.hookStatuses).toEqual([{ event: 'UserPromptSubmit', status: 'Completed' }]);
    const reqs = responses(r);
    expect(reqs).toHaveLength(1);
    expect(messagesByRole(reqs[0]!, 'developer')).toContain(context);
    // Placement: the developer message directly follows the user's prompt.
    const items = (reqs[0]!.body as { input: { type: string; role?: string; content?: { text?: string }[] }[] }).input;
    const texts = items.map((it) => `${it.role ?? it.type}:${(it.content ?? []).map((c) => c.text ?? '').join('')}`);
    const at = texts.indexOf(`developer:${context}`);
    expect(texts[at - 1]).toBe('user:say hi');
    const payload = JSON.parse(r.captures['ups-0.json']!) as Record<string, unknown>;
    expect(payload['prompt']).toBe('say hi');
  });

  it('(f) a Stop hook that blocks once makes Codex ask the model again with the reason', { timeout: CASE_TIMEOUT_MS }, async () => {
    // Blocks only when this is not already a continuation (stop_hook_active false) and only once.
    const body = [
      'if grep -q \'"stop_hook_active":false\' "$DSHPOLICY_E2E_OUT/stop-$n.json" && [ "$n" = 0 ]; then',
      `  printf '%s' '${JSON.stringify({ decision: 'block', reason: 'E2E: run the tests first' })}'`,
      'fi',
    ].join('\n');
    const r = await runCodex({
      script: [{ text: 'first answer' }, { text: 'second answer' }],
      scripts: { stop: captureHook('stop', body) },
      hooks: hookOn('Stop', 'stop'),
    });
    expectRanCleanly(r);
    expect(r.hookStatuses).toEqual([
      { event: 'Stop', status: 'Blocked' },
      { event: 'Stop', status: 'Completed' },
    ]);
    const reqs = responses(r);
    expect(reqs).toHaveLength(2);
    const users = messagesByRole(reqs[1]!, 'user');
    expect(users.at(-1)).toMatch(/^<hook_prompt hook_run_id="stop:0:[^"]*\/hooks\.json">E2E: run the tests first<\/hook_prompt>$/);
    expect(messagesByRole(reqs[1]!, 'assistant')).toContain('first answer');
    expect(r.stdout.trim()).toBe('second answer');
    const first = JSON.parse(r.captures['stop-0.json']!) as Record<string, unknown>;
    const second = JSON.parse(r.captures['stop-1.json']!) as Record<string, unknown>;
    expect(first).toMatchObject({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'first answer' });
    expect(second).toMatchObject({ hook_event_name: 'Stop', stop_hook_active: true, last_assistant_message: 'second answer' });
  });

  it('(g) hands a hook its payload on stdin as one compact JSON object without a trailing newline', { timeout: CASE_TIMEOUT_MS }, async () => {
    const r = await runCodex({
      script: [{ call: { name: 'exec_command', args: { cmd: 'echo payload-check > ran.txt' } } }],
      scripts: { pre: captureHook('pre') },
      hooks: hookOn('PreToolUse', 'pre', 'Bash'),
    });
    expectRanCleanly(r);
    expect(r.hookStatuses).toEqual([{ event: 'PreToolUse', status: 'Completed' }]);
    const raw = r.captures['pre-0.json'];
    expect(raw, why(r)).toBeDefined();
    expect(raw!.endsWith('}')).toBe(true);
    expect(raw).not.toContain('\n');
    const payload = JSON.parse(raw!) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual([
      'session_id',
      'turn_id',
      'transcript_path',
      'cwd',
      'hook_event_name',
      'model',
      'permission_mode',
      'tool_name',
      'tool_input',
      'tool_use_id',
    ]);
    expect(payload).toMatchObject({
      cwd: r.project,
      hook_event_name: 'PreToolUse',
      model: DEFAULT_MODEL,
      permission_mode: 'bypassPermissions',
      tool_name: 'Bash',
      tool_input: { command: 'echo payload-check > ran.txt' },
      tool_use_id: 'call_1',
    });
    const sessionId = r.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload['session_id']).toBe(sessionId);
    expect(responses(r)[0]!.headers['session-id'], 'the model request carries the same session id').toBe(sessionId);
    expect(String(payload['transcript_path'])).toMatch(new RegExp(`^${escapeRegExp(r.codexHome)}/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-[^/]*${escapeRegExp(String(sessionId))}\\.jsonl$`));
    expect(payload['turn_id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.projectFiles['ran.txt']).toBe('payload-check\n');
  });

  it('loads hooks from every layer: $CODEX_HOME/hooks.json, [hooks] in config.toml and a trusted project’s .codex/hooks.json', { timeout: CASE_TIMEOUT_MS }, async () => {
    const r = await runCodex({
      script: [touch],
      scripts: { json: captureHook('json'), toml: captureHook('toml'), project: captureHook('project') },
      hooks: hookOn('PreToolUse', 'json', 'Bash'),
      tomlHooks: hookOn('PreToolUse', 'toml', '^Bash$'),
      projectHooks: hookOn('PreToolUse', 'project', '*'),
    });
    expectRanCleanly(r);
    expect(Object.keys(r.captures).sort(), why(r)).toEqual(['json-0.json', 'project-0.json', 'toml-0.json']);
    expect(r.hookStatuses).toEqual([
      { event: 'PreToolUse', status: 'Completed' },
      { event: 'PreToolUse', status: 'Completed' },
      { event: 'PreToolUse', status: 'Completed' },
    ]);
    expect(r.projectFiles).toHaveProperty(['ran.txt']);
  });

  it('without --dangerously-bypass-hook-trust an untrusted hook is skipped silently', { timeout: CASE_TIMEOUT_MS }, async () => {
    const r = await runCodex({
      script: [touch],
      bypassHookTrust: false,
      scripts: { pre: captureHook('pre', 'echo no >&2\nexit 2') },
      hooks: hookOn('PreToolUse', 'pre', 'Bash'),
    });
    expectRanCleanly(r);
    expect(r.captures).toEqual({});
    expect(r.hookStatuses).toEqual([]);
    expect(r.projectFiles).toHaveProperty(['ran.txt']);
  });

  it('kills a run that outlives its timeout (a Stop hook that always blocks loops forever)', { timeout: CASE_TIMEOUT_MS }, async () => {
    const r = await runCodex({
      timeoutMs: 4000,
      script: [{ text: 'again' }],
      scripts: { stop: `#!/bin/sh\ncat >/dev/null\nprintf '%s' '${JSON.stringify({ decision: 'block', reason: 'never done' })}'\n` },
      hooks: hookOn('Stop', 'stop'),
    });
    expect(r.timedOut, why(r)).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe('SIGKILL');
    expect(r.durationMs).toBeGreaterThanOrEqual(4000);
    expect(r.durationMs).toBeLessThan(15_000);
    // At least one continuation happened before the kill (idle, it manages dozens in 4 s).
    expect(responses(r).length).toBeGreaterThanOrEqual(2);
  });
});
