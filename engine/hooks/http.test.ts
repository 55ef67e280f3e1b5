import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../compile.js';
import { evaluate } from '../evaluate.js';
import { IR_VERSION, type Rule } from '../ir.js';
import { fillHeader, runHttpHook } from './http.js';
import { processHookRunner } from './runner.js';

let base = '';
const seen: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString('utf8')));
  req.on('end', () => {
    seen.push({ path: req.url ?? '', headers: req.headers, body });
    const route: Record<string, () => void> = {
      '/deny': () => res.end(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'the server says no' } })),
      '/empty': () => res.end(''),
      '/text': () => res.end('remember the style guide'),
      '/error': () => {
        res.statusCode = 500;
        res.end(JSON.stringify({ decision: 'block', reason: 'ignored: not a 2xx' }));
      },
      '/slow': () => setTimeout(() => res.end('{}'), 2000),
    };
    (route[req.url ?? ''] ?? (() => res.end('{}')))();
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function policy(path: string, extra: Partial<Rule['hook']> = {}) {
  const rule: Rule = { id: 'h', seam: 'pre-tool', effect: 'run', hook: { command: `${base}${path}`, dialect: 'claude', http: {}, ...extra } };
  return compilePolicy({ version: IR_VERSION, sources: [], rules: [rule], tests: [] });
}

const event = { seam: 'pre-tool' as const, tool: 'Bash', input: { command: 'rm -rf build' }, cwd: '/tmp' };
const runner = processHookRunner();

describe('http hooks', () => {
  it('POSTs the payload as JSON and decodes a JSON answer like a command hook\'s stdout', async () => {
    const d = await evaluate(policy('/deny'), event, { runner });
    expect(d).toMatchObject({ decision: 'deny', reasons: ['the server says no'] });
    const req = seen.find((s) => s.path === '/deny')!;
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });
  });

  it('reads an empty 2xx body as no opinion', async () => {
    expect(await evaluate(policy('/empty'), event, { runner })).toMatchObject({ decision: 'none', diagnostics: [] });
  });

  it('reads a body that is not a JSON object, another status or a refused connection as a non-blocking error', async () => {
    for (const path of ['/text', '/error']) {
      const d = await evaluate(policy(path), event, { runner });
      expect(d.decision).toBe('none');
      expect(d.diagnostics[0]).toMatchObject({ code: 'hook/failed' });
      expect(d.diagnostics[0]!.message).toContain('the http hook');
    }
    const refused = compilePolicy({ version: IR_VERSION, sources: [], rules: [{ id: 'h', seam: 'prompt', effect: 'run', hook: { command: 'http://127.0.0.1:9/x', dialect: 'claude', http: {} } }], tests: [] });
    const d = await evaluate(refused, { seam: 'prompt', prompt: 'hi' }, { runner });
    expect(d).toMatchObject({ decision: 'allow', context: [] });
    expect(d.diagnostics[0]!.message).toContain('the request failed');
  });

  it('gives up at the timeout with no decision', async () => {
    const d = await evaluate(policy('/slow', { timeoutMs: 200 }), event, { runner });
    expect(d.decision).toBe('none');
    expect(d.diagnostics[0]).toMatchObject({ code: 'hook/timeout' });
  });

  it('sends headers, filling only the allowed variables', async () => {
    await evaluate(policy('/headers', { http: { headers: { Authorization: 'Bearer $TOKEN', 'X-Other': '${SECRET}x' }, allowedEnvVars: ['TOKEN'] } }), event, {
      runner: processHookRunner({ env: { ...process.env, TOKEN: 't0k', SECRET: 's3' } }),
    });
    const req = seen.find((s) => s.path === '/headers')!;
    expect(req.headers['authorization']).toBe('Bearer t0k');
    expect(req.headers['x-other']).toBe('x');
  });

  it('fills header variables by name, braces or not', () => {
    expect(fillHeader('a $A ${B} $C', ['A', 'B'], { A: '1', B: '2', C: '3' })).toBe('a 1 2 ');
  });

  it('never throws on a URL fetch rejects', async () => {
    const r = await runHttpHook({ url: 'not a url', body: '{}', env: {}, timeoutMs: 1000, outputCap: 100 });
    expect(r).toMatchObject({ exitCode: 1, http: true });
  });
});
