/**
 * Gemini CLI's side of hook mode (the `HookAgent` of bridges/hook-agent.ts): `~/.gemini`,
 * `GEMINI_PROJECT_DIR`, its 60 s default timeout, and its `BeforeTool` payload and answers
 * (hook.ts). Gemini CLI lets a call through when its hook fails, so an unexpected error while
 * deciding is answered as a deny.
 */
import { join } from 'node:path';
import { BLOCKING_EXIT, ANSWERED_EXIT, eventNameOfText, type HookAnswer } from '../common/answer.js';
import type { HookAgent, ReadPayload } from '../hook-agent.js';
import { decodeGeminiPayload, geminiAnswer, geminiDeny, GEMINI_TOOL_EVENT } from './hook.js';

/** Gemini CLI's timeout of a command hook that names none. */
export const GEMINI_DEFAULT_TIMEOUT_MS = 60_000;

function read(value: unknown): ReadPayload {
  const decoded = decodeGeminiPayload(value);
  if (decoded.kind === 'other') return { kind: 'other' };
  if (decoded.kind === 'error') return decoded.event !== undefined ? { kind: 'error', message: `the payload cannot be read: ${decoded.message}`, name: decoded.event } : { kind: 'error', message: `the payload cannot be read: ${decoded.message}` };
  return { kind: 'event', event: decoded.event, name: GEMINI_TOOL_EVENT };
}

/**
 * Gemini CLI goes ahead on an exit code other than 0 and 2: a tool call is denied in JSON, and a
 * payload naming no event exits 2, which blocks the call with stderr as the reason.
 */
function failClosed(eventName: string | undefined, message: string): HookAnswer {
  if (eventName === GEMINI_TOOL_EVENT) return { ...geminiDeny(message), stderr: `${message}\n` };
  return { stdout: '', stderr: `${message}\n`, exitCode: eventName === undefined ? BLOCKING_EXIT : ANSWERED_EXIT };
}

export const geminiHookAgent: HookAgent = {
  name: 'gemini',
  title: 'Gemini CLI',
  configDir: (_env, home) => join(home, '.gemini'),
  projectDirEnv: 'GEMINI_PROJECT_DIR',
  handlerTimeoutMs: () => GEMINI_DEFAULT_TIMEOUT_MS,
  read,
  answer: (decision) => geminiAnswer(decision),
  failClosed,
  eventNameOf: eventNameOfText,
  answersErrors: true,
};
