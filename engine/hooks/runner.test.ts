import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CompiledRule } from '../compile.js';
import type { PolicyEvent } from '../events.js';
import type { Rule } from '../ir.js';
import { processHookRunner, runCommand } from './runner.js';
import { hookProtocol } from './protocol.js';

const payloadText = (event: PolicyEvent, dialect: string) => hookProtocol(dialect)!.payloadText(event);

const cwd = mkdtempSync(join(tmpdir(), 'dshpolicy-hook-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const preTool: PolicyEvent = { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' }, cwd };

function rule(command: string, timeoutMs?: number, seam: Rule['seam'] = 'pre-tool'): CompiledRule {
  const r: Rule = { id: 'p:1:1', seam, effect: 'run', hook: { command, dialect: 'claude' } };
  if (timeoutMs) r.hook!.timeoutMs = timeoutMs;
  return { rule: r, index: 0, order: 'p', tools: null, selectors: [], when: null, matcher: null, ifRule: null };
}

const run = processHookRunner();

describe('the command-hook runner', () => {
  it('exit 2 denies with stderr as the reason', async () => {
    const o = await run(rule('echo nope >&2; exit 2'), preTool);
    expect(o).toMatchObject({ effect: 'deny', reason: 'nope', exitCode: 2 });
  });

  it('a JSON permissionDecision deny denies with its reason', async () => {
    const json = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'r' } });
    const o = await run(rule(`cat >/dev/null; echo '${json}'`), preTool);
    expect(o).toMatchObject({ effect: 'deny', reason: 'r' });
  });

  it('the payload arrives on stdin as compact JSON with a newline (Claude Code)', async () => {
    const o = await run(rule(`cat > payload.json; exit 0`), preTool);
    expect(o.effect).toBeUndefined();
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(cwd, 'payload.json'), 'utf8')).toBe(payloadText(preTool, 'claude'));
    expect(payloadText(preTool, 'claude').endsWith('}\n')).toBe(true);
    expect(payloadText(preTool, 'codex').endsWith('}')).toBe(true);
  });

  it('other exit codes are non-blocking errors with a diagnostic', async () => {
    const o = await run(rule('echo broken >&2; exit 1'), preTool);
    expect(o.effect).toBeUndefined();
    expect(o.diagnostics?.[0]).toMatchObject({ code: 'hook/failed', severity: 'warning' });
  });

  it('a missing program is a non-blocking error', async () => {
    const o = await run(rule('/nonexistent/hook-binary'), preTool);
    expect(o.effect).toBeUndefined();
    expect(o.exitCode).toBe(127);
  });

  it('a hang is killed at the timeout, with its whole process group', async () => {
    const marker = join(cwd, 'survived');
    const started = Date.now();
    const o = await run(rule(`(sleep 2; touch ${marker}) & sleep 30`, 300), preTool);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(o).toMatchObject({ timedOut: true });
    expect(o.effect).toBeUndefined();
    await new Promise((r) => setTimeout(r, 2500));
    expect(existsSync(marker)).toBe(false);
  });

  it('a signal ends the hook at once, with its process group, and an aborted signal starts nothing', async () => {
    const marker = join(cwd, 'signalled');
    const ender = new AbortController();
    const started = Date.now();
    const pending = run(rule(`(sleep 1; touch ${marker}) & sleep 30`), preTool, { signal: ender.signal });
    setTimeout(() => ender.abort(), 200);
    const o = await pending;
    expect(Date.now() - started).toBeLessThan(1500);
    expect(o.effect).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1200));
    expect(existsSync(marker)).toBe(false);
    const never = join(cwd, 'never');
    const raw = await runCommand(`touch ${never}`, '/bin/sh', '', { cwd, timeoutMs: 10_000, env: process.env, outputCap: 1000, signal: AbortSignal.abort() });
    expect(raw).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(never)).toBe(false);
  });

  it('a timeout does not wait for a daemon that left the group holding the hook\'s pipes', async () => {
    const pid = join(cwd, 'daemon.pid');
    const started = Date.now();
    const o = await run(rule(`setsid sh -c 'echo $$ > ${pid}; exec sleep 20' & sleep 30`, 300), preTool);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(o).toMatchObject({ timedOut: true });
    const { readFileSync } = await import('node:fs');
    try {
      process.kill(Number(readFileSync(pid, 'utf8')), 'SIGKILL');
    } catch {
      // gone already
    }
  });

  it('a crash by signal is a non-blocking error', async () => {
    const o = await run(rule('kill -9 $$'), preTool);
    expect(o.exitCode).toBeNull();
    expect(o.diagnostics?.[0]?.code).toBe('hook/killed');
  });

  it('a flood of output is capped', async () => {
    const raw = await runCommand('head -c 5000000 /dev/zero | tr "\\0" a', '/bin/sh', '', { cwd, timeoutMs: 10_000, env: process.env, outputCap: 1000 });
    expect(raw.stdout.length).toBe(1000);
    expect(raw.truncated).toBe(true);
  });

  it('a hook that never reads stdin is fine', async () => {
    const o = await run(rule('exit 0'), { ...preTool, input: { command: 'x'.repeat(1_000_000) } });
    expect(o.exitCode).toBe(0);
  });

  it('runs Claude Code\'s exec form without a shell, placeholders filled', async () => {
    const r = rule('/bin/echo');
    r.rule.hook!.args = ['${CLAUDE_PLUGIN_ROOT}/x', '$HOME'];
    r.rule.hook!.pluginRoot = '/plugins/p';
    const o = await run({ ...r, rule: { ...r.rule, seam: 'prompt' } }, { seam: 'prompt', prompt: 'x', cwd });
    expect(o.context).toEqual(['/plugins/p/x $HOME']);
  });

  it('plain stdout is context on prompt and session-start only', async () => {
    const p = await run(rule('echo hello', undefined, 'prompt'), { seam: 'prompt', prompt: 'x', cwd });
    expect(p.context).toEqual(['hello']);
    const t = await run(rule('echo hello'), preTool);
    expect(t.context).toBeUndefined();
  });

  it('a hookEventName for another event is ignored with a diagnostic', async () => {
    const json = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'deny' } });
    const o = await run(rule(`echo '${json}'`), preTool);
    expect(o.effect).toBeUndefined();
    expect(o.diagnostics?.[0]?.code).toBe('hook/wrong-event');
  });

  it('a stop hook blocking continues; continue:false halts', async () => {
    const stop: PolicyEvent = { seam: 'stop', turn: [], stop_hook_active: false, cwd };
    expect(await run(rule(`echo '{"decision":"block","reason":"more"}'`, undefined, 'stop'), stop)).toMatchObject({ effect: 'continue', reason: 'more' });
    expect(await run(rule(`echo '{"continue":false,"stopReason":"done"}'`, undefined, 'stop'), stop)).toMatchObject({ effect: 'halt', reason: 'done' });
  });
});
