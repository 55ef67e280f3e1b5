/** The stand-in Messages API on its own (no CLI): wire format, recording and the script. */
import { afterEach, describe, expect, it } from 'vitest';
import { requestText, startModelServer, toolResults, type ModelServer } from './model.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Parses an SSE body into `[event, data]` pairs. */
function parseSse(text: string): [string, Record<string, unknown>][] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null') as Record<string, unknown>;
      return [event, data];
    });
}

describe('stand-in model server', () => {
  it('streams a scripted tool call as the Messages API event sequence', async () => {
    server = await startModelServer({ script: [{ tool: { name: 'Bash', input: { command: 'touch x' } } }] });
    const res = await post('/v1/messages?beta=true', { model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = parseSse(await res.text());
    expect(events.map(([name]) => name)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const [name, data] of events) expect(data.type).toBe(name);
    expect(events[1]![1]).toMatchObject({ index: 0, content_block: { type: 'tool_use', id: 'toolu_e2e_0001', name: 'Bash', input: {} } });
    const json = events
      .filter(([name]) => name === 'content_block_delta')
      .map(([, data]) => (data.delta as { partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ command: 'touch x' });
    expect(events[5]![1]).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('answers non-streaming requests, then the closing text once the script is used up', async () => {
    server = await startModelServer({ script: [{ text: 'one' }], finalText: 'bye' });
    const first = (await (await post('/v1/messages', { messages: [] })).json()) as Record<string, unknown>;
    expect(first).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'one' }], stop_reason: 'end_turn' });
    const second = (await (await post('/v1/messages', { messages: [] })).json()) as Record<string, unknown>;
    expect(second).toMatchObject({ content: [{ type: 'text', text: 'bye' }] });
    expect(server.messageRequests().map((r) => r.turn)).toEqual([0, -1]);
    expect(server.turnsUsed()).toBe(1);
  });

  it('records every request and answers other endpoints harmlessly', async () => {
    server = await startModelServer();
    expect((await fetch(`${server.url}/api/hello`, { method: 'HEAD' })).status).toBe(200);
    const count = await post('/v1/messages/count_tokens', { messages: [{ role: 'user', content: 'hello there' }] });
    expect(((await count.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect((await post('/v1/something', {})).status).toBe(200);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'HEAD /api/hello',
      'POST /v1/messages/count_tokens',
      'POST /v1/something',
    ]);
    expect(server.messageRequests()).toEqual([]);
  });

  it('reads tool results and text out of a recorded request', async () => {
    server = await startModelServer();
    await post('/v1/messages', {
      system: [{ type: 'text', text: 'sys' }],
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'out' }], is_error: true }] },
      ],
    });
    const [request] = server.messageRequests();
    expect(toolResults(request!)).toEqual([{ toolUseId: 't1', text: 'out', isError: true }]);
    expect(requestText(request!)).toContain('sys');
    expect(requestText(request!)).toContain('out');
  });

  it('refuses a runaway loop', async () => {
    server = await startModelServer({ maxMessageRequests: 1 });
    expect((await post('/v1/messages', { messages: [] })).status).toBe(200);
    expect((await post('/v1/messages', { messages: [] })).status).toBe(400);
  });
});
