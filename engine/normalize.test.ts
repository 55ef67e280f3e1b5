import { describe, expect, it } from 'vitest';
import { normalizeAnyEvent, normalizeEvent, responseText } from './normalize.js';

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

describe('normalizeAnyEvent: agent events without a seam', () => {
  it('reads a native line: the common keys, the agent, and every other key as the event\'s fields', () => {
    const r = normalizeAnyEvent({ event: 'Notification', agent: 'claude', cwd: '/w', session: 's1', message: 'hi', notification_type: 'idle_prompt', expect: 'none' });
    expect(r.diagnostics).toEqual([]);
    expect(r.event).toEqual({ seam: 'agent-event', event: 'Notification', agent: 'claude', cwd: '/w', session: 's1', fields: { message: 'hi', notification_type: 'idle_prompt' } });
  });

  it('reads a raw payload, taking a payload with `model` for Codex\'s and null paths as absent', () => {
    const r = normalizeAnyEvent({ hook_event_name: 'PreCompact', session_id: 's', turn_id: 't', transcript_path: null, cwd: '/w', model: 'gpt-5.5', trigger: 'auto' });
    expect(r.diagnostics).toEqual([]);
    expect(r.event).toEqual({ seam: 'agent-event', event: 'PreCompact', agent: 'codex', cwd: '/w', session: 's', fields: { trigger: 'auto' } });
  });

  it('leaves seam events to normalizeEvent', () => {
    expect(normalizeAnyEvent({ seam: 'prompt', prompt: 'x' }).event).toEqual({ seam: 'prompt', prompt: 'x' });
  });

  it('names what is wrong: an unknown event, a seam event, an agent without the event, a bad agent', () => {
    expect(normalizeAnyEvent({ event: 'Nope' }).diagnostics[0]).toMatchObject({ pointer: '/event', message: '`Nope` is not an agent event without a seam' });
    expect(normalizeAnyEvent({ event: 'PreToolUse' }).diagnostics[0]).toMatchObject({ message: '`PreToolUse` is the `pre-tool` seam' });
    expect(normalizeAnyEvent({ event: 'Interrupt', agent: 'claude' }).diagnostics[0]).toMatchObject({ message: 'Claude Code has no `Interrupt` event' });
    expect(normalizeAnyEvent({ event: 'Notification', agent: 'gemini' }).diagnostics[0]).toMatchObject({ pointer: '/agent' });
  });

  it('tells normalizeEvent callers that an agent event has no seam', () => {
    expect(normalizeEvent({ event: 'Notification' }).diagnostics[0]!.message).toBe('the agent event `Notification` has no seam, so no rule decides it');
    expect(normalizeEvent({ hook_event_name: 'Notification' }).diagnostics[0]!.message).toContain('has no seam');
  });
});
