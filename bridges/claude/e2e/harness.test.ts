/**
 * Real runs of the pinned Claude Code CLI against the stand-in model. They prove the harness and
 * pin down the facts later end-to-end tests rely on. Skipped only when DSHPOLICY_E2E=0.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  additionalContext,
  command,
  fail,
  group,
  logEnv,
  logStdin,
  preToolDecision,
  printJson,
  projectPath,
  stopBlockOnce,
} from './hooks.js';
import { CLAUDE_VERSION, ensureClaude } from './install.js';
import { contentBlocks, requestText, toolResults } from './model.js';
import { isAlive } from './proc.js';
import { runClaude, type RunResult } from './run.js';

const RUN = { timeout: 120_000 };
const touch = { tool: { name: 'Bash', input: { command: 'touch ran.txt' } } };

/** What a failing run looked like, for assertion messages. */
function explain(run: RunResult): string {
  return `exit ${String(run.exitCode)}${run.timedOut ? ' (timed out)' : ''}; stderr: ${run.stderr.slice(0, 2000)}; project: ${run.project}`;
}

describe.skipIf(process.env.DSHPOLICY_E2E === '0')(`Claude Code ${CLAUDE_VERSION} end to end`, () => {
  beforeAll(async () => {
    await ensureClaude();
  }, 600_000);

  it('runs an allowed Bash call and sends its tool_result back to the model', RUN, async () => {
    const run = await runClaude({ script: [touch], allowedTools: ['Bash'] });
    expect(run.exitCode, explain(run)).toBe(0);
    expect(run.exists('ran.txt')).toBe(true);
    // Two model calls: the prompt, then the tool result. Nothing else is requested when
    // non-essential traffic is off.
    expect(run.requests).toHaveLength(2);
    expect(run.allRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/messages', 'POST /v1/messages']);
    const [first, second] = run.requests;
    expect(contentBlocks(first!).some((b) => b.type === 'tool_result')).toBe(false);
    expect(toolResults(second!)).toEqual([
      { toolUseId: 'toolu_e2e_0001', text: '(Bash completed with no output)', isError: false },
    ]);
    // The tool call the model made is echoed back as the assistant message before it.
    expect(contentBlocks(second!)).toContainEqual(
      expect.objectContaining({ role: 'assistant', type: 'tool_use', id: 'toolu_e2e_0001', input: { command: 'touch ran.txt' } }),
    );
    expect(run.result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, num_turns: 2, result: 'Done.' });
    expect(run.transcript.length).toBeGreaterThan(0);
  });

  it('blocks the tool when a PreToolUse hook exits 2, and shows the model its stderr', RUN, async () => {
    const run = await runClaude({
      script: [touch],
      allowedTools: ['Bash'],
      hooks: { PreToolUse: [group([command(fail('no touching today'))], 'Bash')] },
    });
    expect(run.exitCode, explain(run)).toBe(0);
    expect(run.exists('ran.txt')).toBe(false);
    const results = toolResults(run.requests[1]!);
    expect(results).toHaveLength(1);
    expect(results[0]!.isError).toBe(true);
    // "PreToolUse:Bash hook error: [<command>]: <stderr>"
    expect(results[0]!.text).toMatch(/^PreToolUse:Bash hook error: \[.*\]: no touching today\n?$/s);
    expect(run.hookEvents).toContainEqual(
      expect.objectContaining({ subtype: 'hook_response', hook_event: 'PreToolUse', exit_code: 2, outcome: 'error' }),
    );
  });

  it('runs the tool with no permission prompt when a PreToolUse hook answers allow', RUN, async () => {
    // Control: without the hook (and without --allowedTools) touch needs approval and -p denies it.
    const control = await runClaude({ script: [touch] });
    expect(control.exitCode, explain(control)).toBe(0);
    expect(control.exists('ran.txt')).toBe(false);
    expect(toolResults(control.requests[1]!)[0]).toMatchObject({ isError: true, text: expect.stringContaining('needs approval') });
    expect(control.result?.permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: 'toolu_e2e_0001', tool_input: { command: 'touch ran.txt' } },
    ]);

    const run = await runClaude({
      script: [touch],
      hooks: { PreToolUse: [group([command(printJson(preToolDecision('allow', 'hook says yes')))], 'Bash')] },
    });
    expect(run.exitCode, explain(run)).toBe(0);
    expect(run.exists('ran.txt')).toBe(true);
    expect(toolResults(run.requests[1]!)).toEqual([
      { toolUseId: 'toolu_e2e_0001', text: '(Bash completed with no output)', isError: false },
    ]);
    expect(run.result?.permission_denials).toEqual([]);
  });

  it("puts a UserPromptSubmit hook's additionalContext in front of the model", RUN, async () => {
    const marker = 'ctx-7f3a-from-the-hook';
    const run = await runClaude({
      script: [{ text: 'ok' }],
      hooks: { UserPromptSubmit: [group([command(printJson(additionalContext('UserPromptSubmit', marker)))])] },
    });
    expect(run.exitCode, explain(run)).toBe(0);
    expect(run.requests).toHaveLength(1);
    expect(requestText(run.requests[0]!)).toContain(`UserPromptSubmit hook additional context: ${marker}`);
  });

  it('continues the turn once when a Stop hook blocks, feeding the reason to the model', RUN, async () => {
    const reason = 'run the tests before stopping';
    const run = await runClaude({
      script: [{ text: 'first answer' }],
      finalText: 'second answer',
      hooks: { Stop: [group([command(stopBlockOnce(reason, 'stop-payloads.jsonl'))])] },
    });
    expect(run.exitCode, explain(run)).toBe(0);
    expect(run.requests).toHaveLength(2);
    expect(requestText(run.requests[0]!)).not.toContain(reason);
    expect(contentBlocks(run.requests[1]!)).toContainEqual(
      expect.objectContaining({ role: 'user', type: 'text', text: `Stop hook feedback:\n${reason}` }),
    );
    const payloads = run.readJsonl('stop-payloads.jsonl');
    expect(payloads).toMatchObject([
      { hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'first answer' },
      { hook_event_name: 'Stop', stop_hook_active: true, last_assistant_message: 'second answer' },
    ]);
    expect(run.result).toMatchObject({ subtype: 'success', result: 'second answer' });
  });

  it('gives hooks the stdin payload fields and environment observed for this version', RUN, async () => {
    const log = command(logStdin('payloads.jsonl'));
    const run = await runClaude({
      script: [touch],
      allowedTools: ['Bash'],
      hooks: {
        SessionStart: [group([log])],
        UserPromptSubmit: [group([log])],
        PreToolUse: [group([command(`${logEnv('env.txt')}; ${logStdin('payloads.jsonl')}`)], 'Bash')],
        PostToolUse: [group([log], 'Bash')],
        Stop: [group([log])],
      },
    });
    expect(run.exitCode, explain(run)).toBe(0);
    expect(run.exists('ran.txt')).toBe(true);
    const raw = run.read('payloads.jsonl');
    expect(raw.endsWith('\n')).toBe(true); // compact JSON, one line each, newline-terminated
    const payloads = run.readJsonl('payloads.jsonl') as Record<string, unknown>[];
    const byEvent = new Map(payloads.map((p) => [p.hook_event_name as string, p]));
    expect([...byEvent.keys()].sort()).toEqual(['PostToolUse', 'PreToolUse', 'SessionStart', 'Stop', 'UserPromptSubmit']);

    const sessionId = run.result?.session_id;
    expect(typeof sessionId).toBe('string');
    const common = {
      session_id: sessionId,
      transcript_path: expect.stringMatching(/\.jsonl$/),
      cwd: run.project,
    };
    const prompt = { ...common, prompt_id: expect.any(String), permission_mode: 'default' };
    const tool = {
      ...prompt,
      effort: { level: expect.any(String) },
      tool_name: 'Bash',
      tool_input: { command: 'touch ran.txt' },
      tool_use_id: 'toolu_e2e_0001',
    };
    expect(byEvent.get('SessionStart')).toEqual({ ...common, hook_event_name: 'SessionStart', source: 'startup' });
    expect(byEvent.get('UserPromptSubmit')).toEqual({ ...prompt, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    expect(byEvent.get('PreToolUse')).toEqual({ ...tool, hook_event_name: 'PreToolUse' });
    expect(byEvent.get('PostToolUse')).toEqual({
      ...tool,
      hook_event_name: 'PostToolUse',
      tool_response: { stdout: '', stderr: '', interrupted: false, isImage: false, noOutputExpected: expect.any(Boolean) },
      duration_ms: expect.any(Number),
    });
    expect(byEvent.get('Stop')).toEqual({
      ...prompt,
      effort: { level: expect.any(String) },
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: 'Done.',
      background_tasks: [],
      session_crons: [],
    });

    const env = run.read('env.txt');
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${run.project}\n`);
    expect(env).toContain('CLAUDECODE=1\n');
    expect(env).toContain(`CLAUDE_CODE_SESSION_ID=${String(sessionId)}\n`);
  });

  it('kills the CLI and its hooks at the hard timeout', RUN, async () => {
    // A SessionStart hook that never finishes: the CLI waits for it, so only the timeout ends the run.
    const hang = command(`echo $$ > ${projectPath('hook.pid')}; exec sleep 120`);
    const run = await runClaude({ hooks: { SessionStart: [group([hang])] }, timeoutMs: 6_000 });
    expect(run.timedOut).toBe(true);
    expect(run.signal).toBe('SIGKILL');
    expect(run.durationMs).toBeLessThan(15_000);
    expect(run.requests).toHaveLength(0);
    const pid = Number(run.read('hook.pid').trim());
    expect(pid).toBeGreaterThan(1);
    // Hooks run in their own session, outside the CLI's process group: the harness kills them too.
    const deadline = Date.now() + 5_000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(pid)).toBe(false);
  });
});
