import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../compile.js';
import type { HookRunner } from '../evaluate.js';
import { IR_VERSION, type Rule } from '../ir.js';
import { waterfall } from './compose.js';
import { policySeams } from './policy.js';

function policy(rules: Omit<Rule, 'id'>[]) {
  return compilePolicy({ version: IR_VERSION, sources: [], rules: rules.map((r, i) => ({ ...r, id: `r${i}` })), tests: [] });
}

const p = policy([
  { seam: 'session-start', effect: 'context', text: 'read the guide' },
  { seam: 'prompt', effect: 'context', text: 'use npm' },
  { seam: 'prompt', effect: 'block', when: { op: 'compare', cmp: 'contains', field: { name: 'prompt' }, value: 'PRIVATE KEY' }, reason: 'no keys' },
  { seam: 'pre-tool', effect: 'ask', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['git push *'] }], reason: 'push' },
  { seam: 'pre-tool', effect: 'run', tools: ['Write'], hook: { command: 'rewrite', dialect: 'claude' } },
  { seam: 'post-tool', effect: 'block', tools: ['Bash'], when: { op: 'compare', cmp: 'contains', field: { name: 'output' }, value: 'npm ERR!' }, reason: 'fix the install' },
  { seam: 'post-tool', effect: 'context', tools: ['Bash'], text: 'read the output' },
  { seam: 'stop', effect: 'continue', when: { op: 'not', arg: { op: 'ran', tools: ['Bash'], selectors: [] } }, reason: 'run something' },
  { seam: 'stop', effect: 'limit', limit: 1 },
]);

const runner: HookRunner = async () => ({ effect: 'allow', updatedInput: { file_path: '/repo/b' }, exitCode: 0, timedOut: false, summary: 'permissionDecision allow' });

describe('policySeams', () => {
  const seams = policySeams(p, { runner });

  it('answer each interception point with its typed decision', async () => {
    expect(await seams.sessionStart({ seam: 'session-start', source: 'startup' })).toEqual({ kind: 'context', context: ['read the guide'], rules: ['r0'], diagnostics: [] });
    expect(await seams.promptSubmit({ seam: 'prompt', prompt: 'hi' })).toEqual({ kind: 'allow', context: ['use npm'], rules: ['r1'], diagnostics: [] });
    expect(await seams.promptSubmit({ seam: 'prompt', prompt: '-----BEGIN PRIVATE KEY-----' })).toEqual({ kind: 'block', reason: 'no keys', reasons: ['no keys'], rules: ['r2'], diagnostics: [] });
    expect(await seams.preExecute({ seam: 'pre-tool', tool: 'Bash', input: { command: 'git push' } })).toEqual({
      kind: 'ask',
      context: [],
      reason: 'push',
      reasons: ['push'],
      rules: ['r3'],
      diagnostics: [],
    });
    expect(await seams.preExecute({ seam: 'pre-tool', tool: 'Read', input: {} })).toEqual({ kind: 'none', context: [], rules: [], diagnostics: [] });
    const bash = { tool: 'Bash', input: { command: 'npm i' } };
    expect(await seams.postExecute({ seam: 'post-tool', ...bash, output: 'npm ERR! x' })).toEqual({
      kind: 'block',
      feedback: 'fix the install',
      reasons: ['fix the install'],
      context: ['read the output'],
      rules: ['r5'],
      diagnostics: [],
    });
    expect(await seams.postExecute({ seam: 'post-tool', ...bash, output: 'ok' })).toMatchObject({ kind: 'accept', context: ['read the output'] });
    expect(await seams.turnContinuation({ seam: 'stop', turn: [], stop_hook_active: false })).toMatchObject({ kind: 'continue', reason: 'run something', rules: ['r7'] });
    expect(await seams.turnContinuation({ seam: 'stop', turn: [], stop_hook_active: true, continuations: 1 })).toEqual({ kind: 'stop', context: [], limited: true, rules: ['r8'], diagnostics: [] });
  });

  it("carry a hook's rewrite of the input, while the guard, which runs no hook, denies that call", async () => {
    const write = { seam: 'pre-tool' as const, tool: 'Write', input: { file_path: '/repo/a' } };
    expect(await seams.preExecute(write)).toMatchObject({ kind: 'allow', updatedInput: { file_path: '/repo/b' }, rules: ['r4'] });
    expect(seams.guard(write)).toMatchObject({ kind: 'deny', rules: ['r4'] });
    expect(seams.guard({ seam: 'pre-tool', tool: 'Bash', input: { command: 'git push' } })).toMatchObject({ kind: 'abstain' });
  });

  it("compose with a host's own listeners, in any order", async () => {
    const host = () => ({ kind: 'allow' as const, context: ['host says fine'] });
    const event = { seam: 'pre-tool' as const, tool: 'Bash', input: { command: 'git push origin' } };
    const a = await waterfall('pre-tool', [seams.preExecute, host])(event);
    const b = await waterfall('pre-tool', [host, seams.preExecute])(event);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ kind: 'ask', reason: 'push', context: ['host says fine'] });
  });
});
