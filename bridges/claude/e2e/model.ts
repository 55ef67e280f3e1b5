/**
 * A scripted stand-in for the Anthropic Messages API, served on 127.0.0.1.
 *
 * Every `POST /v1/messages` (not `/v1/messages/count_tokens`) takes the next turn of the script and
 * answers it, as server-sent events when the request asks to stream (the CLI always did) and as
 * one JSON message otherwise. Once the script is used up it answers a short text, which ends the
 * agent's turn. Every request to any path is recorded; other paths get a harmless answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted assistant turn: a tool call (stop_reason `tool_use`) or a text reply (`end_turn`). */
export type Turn =
  | { tool: { name: string; input: Record<string, unknown>; id?: string }; text?: string }
  | { text: string };

export interface RecordedRequest {
  /** Order of arrival, from 0, across all paths. */
  seq: number;
  method: string;
  /** Path and query as sent, e.g. `/v1/messages?beta=true`. */
  url: string;
  /** Path without the query. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body (capped at `maxBodyBytes`). */
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** For answered `POST /v1/messages`: the index of the script turn used, or -1 for the closing text. */
  turn?: number;
  receivedAt: number;
}

/** The parts of a Messages API request body these tests read. */
export interface MessagesBody {
  model?: string;
  stream?: boolean;
  system?: unknown;
  tools?: { name: string }[];
  messages: { role: string; content: string | ContentBlock[] }[];
  [key: string]: unknown;
}

export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
  [key: string]: unknown;
}

export interface ModelServerOptions {
  script?: Turn[];
  /** What the model says once the script is used up. Default `Done.` */
  finalText?: string;
  /** Bodies longer than this are recorded truncated (and not parsed). Default 4 MiB. */
  maxBodyBytes?: number;
  /** After this many `POST /v1/messages` the server answers 400, to stop a runaway loop. Default 64. */
  maxMessageRequests?: number;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`. */
  readonly url: string;
  readonly port: number;
  /** Every request, any path, in order of arrival. */
  readonly requests: RecordedRequest[];
  /** The answered `POST /v1/messages` requests (the model calls), in order. */
  messageRequests(): RecordedRequest[];
  /** How many script turns have been used. */
  turnsUsed(): number;
  close(): Promise<void>;
}

const DEFAULT_FINAL_TEXT = 'Done.';

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const script = options.script ?? [];
  const finalText = options.finalText ?? DEFAULT_FINAL_TEXT;
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxMessageRequests = options.maxMessageRequests ?? 64;
  const requests: RecordedRequest[] = [];
  let next = 0;
  let messageCount = 0;
  let toolCounter = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size < maxBodyBytes) chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks).subarray(0, maxBodyBytes).toString('utf8');
      const url = req.url ?? '/';
      const record: RecordedRequest = {
        seq: requests.length,
        method: req.method ?? 'GET',
        url,
        path: url.split('?')[0] ?? url,
        headers: req.headers,
        body: raw,
        receivedAt: Date.now(),
      };
      if (size <= maxBodyBytes && raw.length > 0) {
        try {
          record.json = JSON.parse(raw) as unknown;
        } catch {
          // not JSON: keep the raw text only
        }
      }
      requests.push(record);
      answer(record, res);
    });
    req.on('error', () => res.destroy());
  });

  function answer(record: RecordedRequest, res: http.ServerResponse): void {
    if (record.method === 'POST' && record.path === '/v1/messages/count_tokens') {
      return sendJson(res, 200, { input_tokens: estimateTokens(record.body) });
    }
    if (record.method === 'POST' && record.path === '/v1/messages') {
      messageCount += 1;
      if (messageCount > maxMessageRequests) {
        return sendJson(res, 400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: `stand-in model: more than ${maxMessageRequests} requests` },
        });
      }
      const index = next < script.length ? next : -1;
      if (index >= 0) next += 1;
      record.turn = index;
      const turn: Turn = index >= 0 ? (script[index] as Turn) : { text: finalText };
      const body = (record.json ?? {}) as Partial<MessagesBody>;
      const message = buildMessage(turn, body.model ?? 'claude-stand-in', messageCount, () => {
        toolCounter += 1;
        return `toolu_e2e_${String(toolCounter).padStart(4, '0')}`;
      });
      if (body.stream === true) return sendStream(res, message);
      return sendJson(res, 200, message);
    }
    // Anything else (the CLI's `HEAD /api/hello` reachability probe, for one): answer harmlessly.
    if (record.method === 'HEAD') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      return;
    }
    sendJson(res, 200, {});
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    messageRequests: () => requests.filter((r) => r.turn !== undefined),
    turnsUsed: () => next,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: 'tool_use' | 'end_turn';
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
}

function buildMessage(turn: Turn, model: string, n: number, newToolId: () => string): Message {
  const content: ContentBlock[] = [];
  if (turn.text !== undefined && turn.text !== '') content.push({ type: 'text', text: turn.text });
  if ('tool' in turn) {
    content.push({ type: 'tool_use', id: turn.tool.id ?? newToolId(), name: turn.tool.name, input: turn.tool.input });
  }
  if (content.length === 0) content.push({ type: 'text', text: DEFAULT_FINAL_TEXT });
  return {
    id: `msg_e2e_${String(n).padStart(4, '0')}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: 'tool' in turn ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The event sequence of a streamed message; tool input arrives as two `input_json_delta` pieces. */
function sendStream(res: http.ServerResponse, message: Message): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  send('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } });
  message.content.forEach((block, index) => {
    if (block.type === 'tool_use') {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      const json = JSON.stringify(block.input ?? {});
      const cut = Math.floor(json.length / 2);
      for (const piece of [json.slice(0, cut), json.slice(cut)]) {
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
    } else {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text ?? '' } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  send('message_stop', {});
  res.end();
}

function estimateTokens(body: string): number {
  return Math.max(1, Math.ceil(body.length / 4));
}

// ---------------------------------------------------------------------------------------------
// Reading what the model was sent.

/** The request body of a model call (throws when it was not JSON). */
export function messagesBody(request: RecordedRequest): MessagesBody {
  const body = request.json as MessagesBody | undefined;
  if (body === undefined || !Array.isArray(body.messages)) {
    throw new Error(`e2e: request ${request.seq} (${request.method} ${request.url}) has no Messages API body`);
  }
  return body;
}

/** Every content block of every message, in order (string contents become one text block). */
export function contentBlocks(request: RecordedRequest): (ContentBlock & { role: string })[] {
  const out: (ContentBlock & { role: string })[] = [];
  for (const message of messagesBody(request).messages) {
    if (typeof message.content === 'string') out.push({ role: message.role, type: 'text', text: message.content });
    else for (const block of message.content) out.push({ ...block, role: message.role });
  }
  return out;
}

/** The `tool_result` blocks a model call carried, with their content flattened to text. */
export function toolResults(request: RecordedRequest): { toolUseId: string; text: string; isError: boolean }[] {
  return contentBlocks(request)
    .filter((block) => block.type === 'tool_result')
    .map((block) => ({
      toolUseId: block.tool_use_id ?? '',
      text: blockText(block.content),
      isError: block.is_error === true,
    }));
}

/** Everything the model was shown in one call (system prompt, messages, tool results) as one string. */
export function requestText(request: RecordedRequest): string {
  const body = messagesBody(request);
  const parts: string[] = [blockText(body.system as string | ContentBlock[] | undefined)];
  for (const message of body.messages) parts.push(blockText(message.content));
  return parts.join('\n');
}

function blockText(content: string | ContentBlock[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((block) => {
      if (typeof block.text === 'string') return block.text;
      if (block.content !== undefined) return blockText(block.content);
      if (block.type === 'tool_use') return JSON.stringify({ tool_use: block.name, input: block.input });
      return '';
    })
    .join('\n');
}
