import { describe, expect, it } from 'vitest';
import type { AnyDecision } from '../../engine/index.js';
import { decodeGeminiPayload, geminiAnswer, geminiDeny, geminiToolName } from './hook.js';
import { GEMINI_TO_DSH } from './tools.js';

const base = { session_id: 'g1', transcript_path: '/tmp/chat.json', cwd: '/repo', hook_event_name: 'BeforeTool', timestamp: '2026-01-01T00:00:00.000Z' };
const payload = (extra: Record<string, unknown>) => ({ ...base, ...extra });

function preTool(decision: string, extra: Record<string, unknown> = {}): AnyDecision {
  return { seam: 'pre-tool', decision, reasons: [], context: [], diagnostics: [], ...extra } as unknown as AnyDecision;
}

describe('decodeGeminiPayload', () => {
  it('reads a BeforeTool payload into a pre-tool event', () => {
    const r = decodeGeminiPayload(payload({ tool_name: 'run_shell_command', tool_input: { command: 'ls -la', dir_path: 'src' } }));
    expect(r).toEqual({
      kind: 'event',
      event: { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls -la', dir_path: 'src' }, cwd: '/repo', session: 'g1', transcript_path: '/tmp/chat.json' },
    });
  });

  it.each(Object.entries(GEMINI_TO_DSH))('names `%s` as `%s`', (gemini, dsh) => {
    const r = decodeGeminiPayload(payload({ tool_name: gemini, tool_input: {} }));
    expect(r.kind === 'event' && r.event.tool).toBe(dsh);
  });

  it('keeps a tool it has no name for as it is', () => {
    for (const name of ['read_many_files', 'save_memory', 'codebase_investigator']) {
      const r = decodeGeminiPayload(payload({ tool_name: name, tool_input: { x: 1 } }));
      expect(r.kind === 'event' && r.event.tool).toBe(name);
    }
  });

  it('names an MCP tool by its mcp_context, else by the form of its name', () => {
    const withCtx = decodeGeminiPayload(payload({ tool_name: 'mcp_my_srv_create_issue', tool_input: { title: 't' }, mcp_context: { server_name: 'my_srv', tool_name: 'create_issue', command: 'node', args: ['srv.js'] } }));
    expect(withCtx.kind === 'event' && withCtx.event.tool).toBe('mcp__my_srv__create_issue');
    // without the server's own tool name, the prefix of the server is taken off the name
    const noOwn = decodeGeminiPayload(payload({ tool_name: 'mcp_my_srv_create_issue', tool_input: {}, mcp_context: { server_name: 'my_srv' } }));
    expect(noOwn.kind === 'event' && noOwn.event.tool).toBe('mcp__my_srv__create_issue');
    expect(geminiToolName('create_issue', { server: 'github' })).toBe('mcp__github__create_issue');
    expect(geminiToolName('mcp__github__create_issue', { server: 'github' })).toBe('mcp__github__create_issue');
    expect(geminiToolName('github__create_issue', { server: 'github' })).toBe('mcp__github__create_issue');
    expect(geminiToolName('mcp_github_create_issue')).toBe('mcp__github__create_issue');
    expect(geminiToolName('mcp__github__create_issue')).toBe('mcp__github__create_issue');
    expect(geminiToolName('github__create_issue')).toBe('mcp__github__create_issue');
  });

  it('leaves every event but BeforeTool alone', () => {
    expect(decodeGeminiPayload({ ...base, hook_event_name: 'BeforeAgent', prompt: 'hi' })).toEqual({ kind: 'other', name: 'BeforeAgent' });
    expect(decodeGeminiPayload({ ...base, hook_event_name: 'AfterTool', tool_name: 'x' })).toEqual({ kind: 'other', name: 'AfterTool' });
  });

  it('names the problem of a payload it cannot read', () => {
    const cases: [unknown, string, string | undefined][] = [
      [[1, 2], 'the payload must be a JSON object, found an array', undefined],
      [null, 'the payload must be a JSON object, found null', undefined],
      [{ tool_name: 'x', tool_input: {} }, 'missing field `hook_event_name`', undefined],
      [{ hook_event_name: 7 }, '`hook_event_name` must be a string, found a number', undefined],
      [payload({ tool_input: {} }), 'missing field `tool_name`', 'BeforeTool'],
      [payload({ tool_name: 3, tool_input: {} }), '`tool_name` must be a string, found a number', 'BeforeTool'],
      [payload({ tool_name: '', tool_input: {} }), '`tool_name` is empty', 'BeforeTool'],
      [payload({ tool_name: 'read_file' }), 'missing field `tool_input`', 'BeforeTool'],
      [payload({ tool_name: 'read_file', tool_input: 'a.txt' }), '`tool_input` must be an object, found a string', 'BeforeTool'],
      [payload({ tool_name: 'read_file', tool_input: [] }), '`tool_input` must be an object, found an array', 'BeforeTool'],
      [payload({ tool_name: 'mcp_s_t', tool_input: {}, mcp_context: 'srv' }), '`mcp_context` must be an object, found a string', 'BeforeTool'],
      [payload({ tool_name: 'mcp_s_t', tool_input: {}, mcp_context: {} }), 'missing field `mcp_context.server_name`', 'BeforeTool'],
      [payload({ tool_name: 'mcp_s_t', tool_input: {}, mcp_context: { server_name: '' } }), '`mcp_context.server_name` must be a non-empty string, found a string', 'BeforeTool'],
      [payload({ tool_name: 'mcp_s_t', tool_input: {}, mcp_context: { server_name: 's', tool_name: 1 } }), '`mcp_context.tool_name` must be a string, found a number', 'BeforeTool'],
      [payload({ tool_name: 'read_file', tool_input: {}, cwd: 5 }), '`cwd` must be a string, found a number', 'BeforeTool'],
      [payload({ tool_name: 'read_file', tool_input: {}, session_id: {} }), '`session_id` must be a string, found an object', 'BeforeTool'],
    ];
    for (const [value, message, event] of cases) {
      const want: Record<string, unknown> = { kind: 'error', message };
      if (event !== undefined) want['event'] = event;
      expect(decodeGeminiPayload(value)).toEqual(want);
    }
  });

  it('takes a missing or empty cwd, session and transcript as absent', () => {
    const r = decodeGeminiPayload({ hook_event_name: 'BeforeTool', tool_name: 'glob', tool_input: { pattern: '*.ts' }, cwd: '', transcript_path: null });
    expect(r).toEqual({ kind: 'event', event: { seam: 'pre-tool', tool: 'Glob', input: { pattern: '*.ts' } } });
  });
});

describe('geminiAnswer', () => {
  it('denies with the reason', () => {
    expect(geminiAnswer(preTool('deny', { reasons: ['never delete'] }))).toEqual({ stdout: '{"decision":"deny","reason":"never delete"}\n', stderr: '', exitCode: 0 });
    expect(JSON.parse(geminiAnswer(preTool('deny', { reasons: ['a', 'b'] })).stdout)).toEqual({ decision: 'deny', reason: 'a\n\nb' });
    expect(JSON.parse(geminiAnswer(preTool('deny', { reason: 'one', reasons: ['a'] })).stdout)).toEqual({ decision: 'deny', reason: 'one' });
    expect(JSON.parse(geminiAnswer(preTool('deny')).stdout)).toEqual({ decision: 'deny', reason: 'denied by policy' });
  });

  it('asks with the reason', () => {
    expect(JSON.parse(geminiAnswer(preTool('ask', { reasons: ['pushing needs a person'] })).stdout)).toEqual({ decision: 'ask', reason: 'pushing needs a person' });
    expect(JSON.parse(geminiAnswer(preTool('ask')).stdout)).toEqual({ decision: 'ask', reason: 'approval required by policy' });
  });

  it('says nothing for allow, none or context alone', () => {
    const silent = { stdout: '', stderr: '', exitCode: 0 };
    expect(geminiAnswer(preTool('allow', { reasons: ['fine'] }))).toEqual(silent);
    expect(geminiAnswer(preTool('none'))).toEqual(silent);
    expect(geminiAnswer(preTool('none', { context: ['some context'] }))).toEqual(silent);
  });

  it('gives a rewritten input as hookSpecificOutput.tool_input', () => {
    const out = geminiAnswer(preTool('allow', { updatedInput: { command: 'ls' } }));
    expect(JSON.parse(out.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { command: 'ls' } } });
  });

  it('says nothing for a decision of another seam', () => {
    const d = { seam: 'prompt', decision: 'block', reasons: ['no'], context: [], diagnostics: [] } as unknown as AnyDecision;
    expect(geminiAnswer(d).stdout).toBe('');
  });

  it('denies when it cannot decide', () => {
    expect(geminiDeny('dshpolicy: broken')).toEqual({ stdout: '{"decision":"deny","reason":"dshpolicy: broken"}\n', stderr: '', exitCode: 0 });
  });
});
