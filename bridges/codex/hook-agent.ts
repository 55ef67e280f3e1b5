/**
 * Codex's side of hook mode (the `HookAgent` of bridges/hook-agent.ts): `$CODEX_HOME`, its handler
 * timeouts, its payload and answers (an `ask` becomes a deny or no opinion), and its rollout.
 */
import { join } from 'node:path';
import { defaultHookTimeoutMs } from '../../engine/index.js';
import { eventNameOfText, hooksJsonFailClosed } from '../common/answer.js';
import { readHooksJsonPayload } from '../common/hook-read.js';
import type { HookAgent } from '../hook-agent.js';
import { codexAnswer } from './answer.js';
import { readCodexTurn } from './rollout.js';

export const codexHookAgent: HookAgent = {
  name: 'codex',
  title: 'Codex',
  configDir: (env, home) => env['CODEX_HOME'] || join(home, '.codex'),
  handlerTimeoutMs: (event) => defaultHookTimeoutMs('codex', event),
  read: (value) => readHooksJsonPayload(value, 'codex'),
  answer: (decision, event, opts) => codexAnswer(decision, event, { ask: opts.ask }),
  failClosed: hooksJsonFailClosed,
  eventNameOf: eventNameOfText,
  readTurn: readCodexTurn,
};
