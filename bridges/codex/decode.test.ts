import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../engine/index.js';
import type { RawHookResult } from '../common/hook-output.js';
import { decodeCodexHookResult } from './decode.js';

const pre: PolicyEvent = { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' } };
const prompt: PolicyEvent = { seam: 'prompt', prompt: 'x' };
const stop: PolicyEvent = { seam: 'stop', turn: [], stop_hook_active: false };
const start: PolicyEvent = { seam: 'session-start', source: 'startup' };
const post: PolicyEvent = { seam: 'post-tool', tool: 'Bash', input: {} };

const raw = (exitCode: number | null, stdout = '', stderr = '', extra: Partial<RawHookResult> = {}): RawHookResult => ({
  exitCode,
  signal: null,
  stdout,
  stderr,
  timedOut: false,
  truncated: false,
  ...extra,
});
const json = (v: unknown) => raw(0, JSON.stringify(v));
const pd = (decision: string, reason?: string, extra: Record<string, unknown> = {}) =>
  json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, ...(reason !== undefined ? { permissionDecisionReason: reason } : {}), ...extra } });

const rows: [string, RawHookResult, PolicyEvent, { effect?: string; reason?: string; context?: string[]; failed?: boolean }][] = [
  ['exit 2 with a reason denies', raw(2, '', 'no\n'), pre, { effect: 'deny', reason: 'no' }],
  ['exit 2 without a reason fails open', raw(2), pre, { failed: true }],
  ['exit 1 fails open', raw(1, '', 'boom'), pre, { failed: true }],
  ['a timeout fails open', raw(null, '', '', { timedOut: true }), pre, { failed: true }],
  ['deny with a reason denies', pd('deny', 'r'), pre, { effect: 'deny', reason: 'r' }],
  ['deny without a reason fails open', pd('deny'), pre, { failed: true }],
  ['ask is unsupported and fails open', pd('ask', 'r'), pre, { failed: true }],
  ['a plain allow is unsupported and fails open', pd('allow'), pre, { failed: true }],
  ['allow with updatedInput rewrites', pd('allow', undefined, { updatedInput: { command: 'echo hi' } }), pre, { effect: 'allow' }],
  ['legacy block with a reason denies', json({ decision: 'block', reason: 'legacy' }), pre, { effect: 'deny', reason: 'legacy' }],
  ['legacy approve is unsupported', json({ decision: 'approve' }), pre, { failed: true }],
  ['an unknown key fails the hook', json({ decision: 'block', reason: 'x', extra: 1 }), pre, { failed: true }],
  ['an unknown key inside hookSpecificOutput fails the hook', pd('deny', 'r', { bogus: true }), pre, { failed: true }],
  ['a hookEventName for another event is not compared, as in Codex', json({ hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'deny', permissionDecisionReason: 'r' } }), pre, { effect: 'deny', reason: 'r' }],
  ['a hookSpecificOutput without hookEventName fails the hook', json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'r' } }), pre, { failed: true }],
  ['continue:false on PreToolUse is unsupported', json({ continue: false, stopReason: 's' }), pre, { failed: true }],
  ['invalid JSON that looks like JSON fails the hook', raw(0, '{not json'), pre, { failed: true }],
  ['plain text on PreToolUse is ignored', raw(0, 'hello'), pre, {}],
  ['plain text on UserPromptSubmit is context', raw(0, 'hello\n'), prompt, { context: ['hello'] }],
  ['prompt block with a reason blocks', json({ decision: 'block', reason: 'nope' }), prompt, { effect: 'block', reason: 'nope' }],
  ['prompt continue:false blocks with the stop reason', json({ continue: false, stopReason: 'halted' }), prompt, { effect: 'block', reason: 'halted' }],
  ['prompt additionalContext is context', json({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'ctx' } }), prompt, { context: ['ctx'] }],
  ['stop block with a reason continues', json({ decision: 'block', reason: 'more' }), stop, { effect: 'continue', reason: 'more' }],
  ['stop continue:false halts, over a block', json({ decision: 'block', reason: 'more', continue: false, stopReason: 'enough' }), stop, { effect: 'halt', reason: 'enough' }],
  ['plain text on Stop fails the hook', raw(0, 'words'), stop, { failed: true }],
  ['hookSpecificOutput on Stop fails the hook', json({ hookSpecificOutput: { hookEventName: 'Stop' } }), stop, { failed: true }],
  ['exit 2 on Stop continues', raw(2, '', 'keep going'), stop, { effect: 'continue', reason: 'keep going' }],
  ['exit 2 on SessionStart fails the hook', raw(2, '', 'x'), start, { failed: true }],
  ['session-start text is context', raw(0, 'read the docs'), start, { context: ['read the docs'] }],
  ['post-tool block is feedback', json({ decision: 'block', reason: 'fix it' }), post, { effect: 'block', reason: 'fix it' }],
  ['post-tool continue:false blocks with its default text', json({ continue: false }), post, { effect: 'block', reason: 'PostToolUse hook stopped execution' }],
];

describe('Codex output decoding', () => {
  for (const [name, r, event, want] of rows) {
    it(name, () => {
      const o = decodeCodexHookResult(r, event, 'rule', 'cmd');
      expect(o.effect).toBe(want.effect);
      if (want.reason !== undefined) expect(o.reason).toBe(want.reason);
      if (want.context !== undefined) expect(o.context).toEqual(want.context);
      expect(o.diagnostics?.some((d) => d.code === 'hook/failed') ?? false).toBe(want.failed ?? false);
    });
  }
});
