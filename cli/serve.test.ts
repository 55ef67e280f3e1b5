import { utimesSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch } from './testkit.js';
import { startServer } from './serve.js';

const { file } = scratch('dshpolicy-serve-');
const policy = file('p.dshpolicy', 'on pre-tool {\n  deny Bash command "rm -rf *" because "not here"\n}\non stop {\n  continue because "once more"\n  limit 1\n}\n');
let url = '';
let close: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const s = await startServer({ policies: [policy], host: '127.0.0.1', port: 0, failOpen: false });
  url = s.url;
  close = s.close;
});
afterAll(() => close());

async function post(body: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: r.status, text: await r.text() };
}
const pre = (command: string) => JSON.stringify({ session_id: 's', transcript_path: '', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });

describe('dshpolicy serve', () => {
  it('answers an http hook with the decision hook mode would print, and an empty body for no opinion', async () => {
    const deny = await post(pre('rm -rf x'));
    expect(deny.status).toBe(200);
    expect(JSON.parse(deny.text)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not here' } });
    expect(await post(pre('ls'))).toEqual({ status: 200, text: '' });
  });

  it('recompiles when the policy file changes, and fails closed when it stops compiling', async () => {
    writeFileSync(policy, 'on pre-tool {\n  deny Bash command "ls *" because "no listing"\n}\n');
    utimesSync(policy, new Date(), new Date(Date.now() + 5000));
    expect(JSON.parse((await post(pre('ls'))).text).hookSpecificOutput.permissionDecisionReason).toBe('no listing');
    writeFileSync(policy, 'on pre-tool {\n  deny Bash command\n}\n');
    utimesSync(policy, new Date(), new Date(Date.now() + 10000));
    const broken = JSON.parse((await post(pre('ls'))).text);
    expect(broken.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(broken.hookSpecificOutput.permissionDecisionReason).toMatch(/the policy does not compile: .*p\.dshpolicy:3:1: /);
    writeFileSync(policy, 'on pre-tool {\n  deny Bash command "rm -rf *" because "not here"\n}\non stop {\n  continue because "once more"\n  limit 1\n}\n');
    utimesSync(policy, new Date(), new Date(Date.now() + 15000));
  });

  it('keeps the stop loop guard per session in memory', async () => {
    const stop = (active: boolean) => JSON.stringify({ session_id: 'loop', transcript_path: '', cwd: '/tmp', hook_event_name: 'Stop', stop_hook_active: active });
    expect(JSON.parse((await post(stop(false))).text)).toEqual({ decision: 'block', reason: 'once more' });
    expect((await post(stop(true))).text).toBe('');
  });

  it('fails closed on a payload it cannot read, and takes only POST', async () => {
    const bad = JSON.parse((await post('{"hook_event_name":"PreToolUse",')).text);
    expect(bad.hookSpecificOutput.permissionDecision).toBe('deny');
    expect((await fetch(url)).status).toBe(405);
  });
});
