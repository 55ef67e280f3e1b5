/**
 * A scripted stand-in for the OpenAI Responses API, enough for the Codex CLI to run a session offline.
 *
 * Every `POST /v1/responses` takes the next turn of the script and streams it back as server-sent events
 * (`response.created`, `response.output_item.added`, text deltas, `response.output_item.done`,
 * `response.completed`); once the script is used up each further request gets a short closing text. Every
 * request is recorded with its parsed JSON body, so a test can look at exactly what the model was shown:
 * tool outputs, hook block messages, additional context, continuation prompts. Anything else that reaches
 * the server is recorded too and answered with a JSON 404.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/** One model reply: a function tool call, a freeform (custom) tool call, or an assistant message. */
export type Turn =
  | { call: { name: string; args: Record<string, unknown>; namespace?: string } }
  | { custom: { name: string; input: string } }
  | { text: string };

export interface RecordedRequest {
  /** 0-based arrival order among all requests. */
  index: number;
  method: string;
  /** The path and query as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON, or the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  /** Which script turn answered this request (undefined: the closing text, or not a responses request). */
  turn: number | undefined;
  /** True for `POST /v1/responses`. */
  responses: boolean;
}

export interface MockModelOptions {
  /** The replies, one per `POST /v1/responses`, in order. */
  script: Turn[];
  /** The text sent once the script is used up (default "done (script exhausted)"). */
  finalText?: string;
  /** Called for every request after it is recorded (for example to log). */
  onRequest?: (req: RecordedRequest) => void;
  /** Requests beyond this many are refused with HTTP 429 (default 200), to bound runaway sessions. */
  maxRequests?: number;
  /**
   * Consulted for every responses request before the script: a turn it returns answers the request
   * without using up a script turn (`turn` stays undefined). Lets a test answer one party of a
   * multi-agent session (a subagent, a compaction) by what the request contains, whatever the order
   * the parties' requests arrive in.
   */
  route?: (req: RecordedRequest) => Turn | undefined;
}

export interface MockModel {
  /** `http://127.0.0.1:<port>/v1`, the `base_url` for a Codex model provider. */
  baseUrl: string;
  port: number;
  /** Every request so far, in arrival order (the live array). */
  requests: RecordedRequest[];
  /** Only the `POST /v1/responses` requests. */
  responseRequests(): RecordedRequest[];
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const DEFAULT_FINAL_TEXT = 'done (script exhausted)';

/** Starts the stand-in on 127.0.0.1 on a free port. */
export async function startMockModel(opts: MockModelOptions): Promise<MockModel> {
  const requests: RecordedRequest[] = [];
  const maxRequests = opts.maxRequests ?? 200;
  let nextTurn = 0;
  let seq = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const isResponses = req.method === 'POST' && /\/responses\/?$/.test(path);
    const record: RecordedRequest = {
      index: requests.length,
      method: req.method ?? '',
      url: req.url ?? '',
      headers: { ...req.headers },
      body: parseBody(raw, req.headers['content-encoding']),
      turn: undefined,
      responses: isResponses,
    };
    requests.push(record);

    if (!isResponses) {
      opts.onRequest?.(record);
      sendJson(res, 404, { error: { message: `the stand-in model does not serve ${record.method} ${path}`, type: 'not_found' } });
      return;
    }
    if (requests.filter((r) => r.responses).length > maxRequests) {
      opts.onRequest?.(record);
      sendJson(res, 429, { error: { message: `the stand-in model refuses more than ${maxRequests} requests`, type: 'rate_limit' } });
      return;
    }
    let turn: Turn;
    const routed = opts.route?.(record);
    if (routed !== undefined) {
      turn = routed;
    } else if (nextTurn < opts.script.length) {
      record.turn = nextTurn;
      turn = opts.script[nextTurn++]!;
    } else {
      turn = { text: opts.finalText ?? DEFAULT_FINAL_TEXT };
    }
    opts.onRequest?.(record);
    streamTurn(res, turn, ++seq);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: 'server_error' } });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    responseRequests: () => requests.filter((r) => r.responses),
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        rejectBody(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks)));
    req.on('error', rejectBody);
  });
}

function parseBody(raw: Buffer, encoding: string | string[] | undefined): unknown {
  if (raw.length === 0) return undefined;
  let bytes = raw;
  const enc = (Array.isArray(encoding) ? encoding.join(',') : encoding ?? '').trim().toLowerCase();
  try {
    if (enc === 'gzip') bytes = gunzipSync(raw);
    else if (enc === 'deflate') bytes = inflateSync(raw);
    else if (enc === 'br') bytes = brotliDecompressSync(raw);
  } catch {
    bytes = raw;
  }
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return enc === '' || enc === 'identity' || bytes !== raw ? text : `<${enc}-encoded body, ${raw.length} bytes>`;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The output item of a turn, as the Responses API reports it once complete. */
function outputItem(turn: Turn, n: number): Record<string, unknown> {
  if ('call' in turn) {
    return {
      type: 'function_call',
      id: `fc_${n}`,
      call_id: `call_${n}`,
      name: turn.call.name,
      ...(turn.call.namespace !== undefined ? { namespace: turn.call.namespace } : {}),
      arguments: JSON.stringify(turn.call.args),
      status: 'completed',
    };
  }
  if ('custom' in turn) {
    return { type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: turn.custom.name, input: turn.custom.input, status: 'completed' };
  }
  return {
    type: 'message',
    id: `msg_${n}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: turn.text, annotations: [] }],
  };
}

function streamTurn(res: ServerResponse, turn: Turn, n: number): void {
  const responseId = `resp_${n}`;
  const item = outputItem(turn, n);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  send('response.created', { response: { id: responseId, object: 'response', status: 'in_progress', output: [] } });
  const started: Record<string, unknown> = { ...item, status: 'in_progress' };
  if ('text' in turn) started['content'] = [];
  send('response.output_item.added', { output_index: 0, item: started });
  if ('text' in turn) send('response.output_text.delta', { item_id: item['id'], output_index: 0, content_index: 0, delta: turn.text });
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', {
    response: {
      id: responseId,
      object: 'response',
      status: 'completed',
      output: [item],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      },
    },
  });
  res.end();
}

/** The `input` items of a recorded `/v1/responses` request (empty for anything else). */
export function inputItems(req: RecordedRequest): Record<string, unknown>[] {
  const body = req.body as { input?: unknown } | undefined;
  return Array.isArray(body?.input) ? (body.input as Record<string, unknown>[]) : [];
}

/** The text of a message item's content parts (input_text/output_text), joined. */
export function messageText(item: Record<string, unknown>): string {
  const content = item['content'];
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
    .join('');
}

/** The `output` of every function_call_output / custom_tool_call_output item the request carries, in order. */
export function toolOutputs(req: RecordedRequest): { callId: string; output: string }[] {
  return inputItems(req)
    .filter((it) => it['type'] === 'function_call_output' || it['type'] === 'custom_tool_call_output')
    .map((it) => ({ callId: String(it['call_id']), output: outputText(it['output']) }));
}

/** The text of every message item with this role in the request, in order. */
export function messagesByRole(req: RecordedRequest, role: 'user' | 'developer' | 'assistant' | 'system'): string[] {
  return inputItems(req)
    .filter((it) => it['type'] === 'message' && it['role'] === role)
    .map(messageText);
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((p: unknown) => (typeof p === 'object' && p !== null ? String((p as { text?: unknown }).text ?? '') : String(p))).join('');
  if (typeof output === 'object' && output !== null && typeof (output as { content?: unknown }).content === 'string') return (output as { content: string }).content;
  return JSON.stringify(output);
}
