import { describe, expect, it } from 'vitest';
import { hookProtocol, type AnyEvent, type PolicyEvent } from '../engine/index.js';
import './protocols.js';

const buildPayload = (event: AnyEvent, dialect: string) => hookProtocol(dialect)!.payload(event);
const payloadText = (event: AnyEvent, dialect: string) => hookProtocol(dialect)!.payloadText(event);

const pre: PolicyEvent = { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' }, cwd: '/repo' };

describe('hook payloads', () => {
  it('Claude Code: the fields 2.1.328 sends for each event', () => {
    expect(Object.keys(buildPayload(pre, 'claude'))).toEqual(['session_id', 'transcript_path', 'cwd', 'prompt_id', 'permission_mode', 'effort', 'hook_event_name', 'tool_name', 'tool_input', 'tool_use_id']);
    expect(Object.keys(buildPayload({ seam: 'session-start', source: 'startup' }, 'claude'))).toEqual(['session_id', 'transcript_path', 'cwd', 'hook_event_name', 'source']);
    expect(buildPayload({ seam: 'stop', turn: [], stop_hook_active: true, last_message: 'done' }, 'claude')).toMatchObject({
      hook_event_name: 'Stop',
      stop_hook_active: true,
      last_assistant_message: 'done',
      background_tasks: [],
      session_crons: [],
    });
    expect(buildPayload({ seam: 'post-tool', tool: 'Bash', input: {}, output: 'hi' }, 'claude')).toMatchObject({
      tool_response: { stdout: 'hi', stderr: '', interrupted: false, isImage: false },
      duration_ms: 0,
    });
  });

  it('Codex: its fields in its order, its two permission modes, nullable paths', () => {
    expect(Object.keys(buildPayload(pre, 'codex'))).toEqual(['session_id', 'turn_id', 'transcript_path', 'cwd', 'hook_event_name', 'model', 'permission_mode', 'tool_name', 'tool_input', 'tool_use_id']);
    expect(Object.keys(buildPayload({ seam: 'post-tool', tool: 'Bash', input: {} }, 'codex')).slice(-3)).toEqual(['tool_input', 'tool_response', 'tool_use_id']);
    expect(buildPayload({ ...pre, permission_mode: 'acceptEdits' }, 'codex')['permission_mode']).toBe('default');
    expect(buildPayload({ seam: 'session-start', source: 'startup' }, 'codex')).not.toHaveProperty('turn_id');
    expect(buildPayload(pre, 'codex')['transcript_path']).toBeNull();
  });

  it('ends Claude Code payloads with a newline and Codex ones without', () => {
    expect(payloadText(pre, 'claude').endsWith('}\n')).toBe(true);
    expect(payloadText(pre, 'codex').endsWith('}')).toBe(true);
  });
});
