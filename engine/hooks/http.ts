/**
 * Claude Code's `http` hooks: the event's payload POSTed as JSON to the handler's URL, and the
 * response read into the same shape as a command hook's result, so one decoder serves both:
 *
 * | response | read as |
 * |---|---|
 * | 2xx, empty body | exit 0, no output |
 * | 2xx, a JSON object | exit 0 with the object on stdout |
 * | 2xx, any other body | a non-blocking error (the text is not context) |
 * | another status, a connection error | a non-blocking error |
 * | no answer in time | a timeout: no decision |
 *
 * Never throws; the body read is capped like a command's output.
 */
import type { RawHookResult } from './protocol.js';

export interface HttpHookRequest {
  url: string;
  body: string;
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  outputCap: number;
  /** Ends the request early: it resolves at once, as a request that failed. */
  signal?: AbortSignal;
}

/** Whether `url` is an absolute `http:` or `https:` URL, the only ones an http hook may call. */
export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `$NAME` and `${NAME}` in a header value, filled only for the allowed names (others empty). */
export function fillHeader(value: string, allowed: readonly string[], env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!;
    return allowed.includes(name) ? (env[name] ?? '') : '';
  });
}

function failure(stderr: string, extra: Partial<RawHookResult> = {}): RawHookResult {
  return { exitCode: 1, signal: null, stdout: '', stderr, timedOut: false, truncated: false, http: true, ...extra };
}

async function readCapped(res: Response, cap: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length > cap) {
      text = text.slice(0, cap);
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return { text, truncated };
}

export async function runHttpHook(req: HttpHookRequest): Promise<RawHookResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k] = fillHeader(v, req.allowedEnvVars ?? [], req.env);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  const end = () => controller.abort();
  if (req.signal?.aborted) controller.abort();
  req.signal?.addEventListener('abort', end, { once: true });
  try {
    const res = await fetch(req.url, { method: 'POST', headers, body: req.body, signal: controller.signal, redirect: 'manual' });
    const { text, truncated } = await readCapped(res, req.outputCap);
    if (res.status < 200 || res.status > 299) return failure(`the server answered HTTP ${res.status}`, { truncated });
    const body = text.trim();
    if (body === '') return { exitCode: 0, signal: null, stdout: '', stderr: '', timedOut: false, truncated, http: true };
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return failure('the server answered with a body that is not a JSON object', { truncated });
    return { exitCode: 0, signal: null, stdout: body, stderr: '', timedOut: false, truncated, http: true };
  } catch (err) {
    if (timedOut) return { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: true, truncated: false, http: true };
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return failure(`the request failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', end);
  }
}
