import { describe, expect, it } from 'vitest';
import { normalizeEvent, responseText } from './normalize.js';

describe('normalizeEvent', () => {
  it('reads the native pre-tool shape', () => {
    expect(normalizeEvent({ seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' }, cwd: '/repo' })).toEqual({
      event: { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' }, cwd: '/repo' },
      diagnostics: [],
    });
  });

  it('defaults a missing input to an empty object and stop fields to their defaults', () => {
    expect(normalizeEvent({ seam: 'pre-tool', tool: 'Read' }).event).toEqual({ seam: 'pre-tool', tool: 'Read', input: {} });
    expect(normalizeEvent({ seam: 'stop' }).event).toEqual({ seam: 'stop', turn: [], stop_hook_active: false });
    expect(normalizeEvent({ seam: 'session-start' }).event).toEqual({ seam: 'session-start', source: 'startup' });
  });

  it('maps raw Claude Code payloads onto their seams', () => {
    const pre = normalizeEvent({
      session_id: 's1',
      transcript_path: '/t.jsonl',
      cwd: '/repo',
      hook_event_name: 'PreToolUse',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'x',
      effort: { level: 'high' },
    });
    expect(pre.event).toEqual({
      seam: 'pre-tool',
      tool: 'Bash',
      input: { command: 'ls' },
      cwd: '/repo',
      session: 's1',
      permission_mode: 'default',
      transcript_path: '/t.jsonl',
    });
    const post = normalizeEvent({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {}, tool_response: { stdout: 'out', stderr: 'err' } });
    expect(post.event).toMatchObject({ seam: 'post-tool', output: 'out\nerr', response: { stdout: 'out', stderr: 'err' } });
    expect(normalizeEvent({ hook_event_name: 'UserPromptSubmit', prompt: 'hi' }).event).toMatchObject({ seam: 'prompt', prompt: 'hi' });
    expect(normalizeEvent({ hook_event_name: 'Stop', stop_hook_active: true, last_assistant_message: 'done' }).event).toMatchObject({
      seam: 'stop',
      stop_hook_active: true,
      last_message: 'done',
    });
    expect(normalizeEvent({ hook_event_name: 'SessionStart', source: 'resume' }).event).toMatchObject({ seam: 'session-start', source: 'resume' });
  });

  it('rejects what it cannot read, with JSON pointers', () => {
    expect(normalizeEvent([1]).diagnostics[0]).toMatchObject({ code: 'event/invalid', pointer: '' });
    expect(normalizeEvent({ seam: 'pretool' }).diagnostics[0]).toMatchObject({ pointer: '/seam', message: 'unknown seam `pretool`' });
    expect(normalizeEvent({ seam: 'pre-tool' }).diagnostics[0]).toMatchObject({ message: 'missing field `tool`' });
    expect(normalizeEvent({ seam: 'pre-tool', tool: 'Bash', input: 'ls' }).diagnostics[0]).toMatchObject({ pointer: '/input' });
    expect(normalizeEvent({ seam: 'pre-tool', tool: 'Bash', tool_input: {} }).diagnostics[0]).toMatchObject({
      pointer: '/tool_input',
      message: 'unknown field `tool_input` for a `pre-tool` event',
    });
    expect(normalizeEvent({ seam: 'stop', turn: [{ tool: 'Bash', input: 3 }] }).diagnostics[0]).toMatchObject({ pointer: '/turn/0/input' });
    expect(normalizeEvent({ hook_event_name: 'Notification' }).diagnostics[0]).toMatchObject({ pointer: '/hook_event_name' });
    expect(normalizeEvent({ nothing: 1 }).diagnostics[0]?.message).toContain('`seam`');
  });

  it('allows fixture annotations beside the event', () => {
    expect(normalizeEvent({ seam: 'prompt', prompt: 'x', expect: 'block', note: 'n' }).diagnostics).toEqual([]);
  });

  it('turns a tool response into text', () => {
    expect(responseText('plain')).toBe('plain');
    expect(responseText({ stdout: '', stderr: 'e' })).toBe('e');
    expect(responseText({ a: 1 })).toBe('{"a":1}');
    expect(responseText(undefined)).toBeUndefined();
  });
});
