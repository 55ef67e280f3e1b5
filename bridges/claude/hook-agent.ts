/**
 * Claude Code's side of hook mode (the `HookAgent` of bridges/hook-agent.ts): its configuration
 * directory, `CLAUDE_PROJECT_DIR`, its handler timeouts, its payload and answers, and its transcript.
 */
import { join } from 'node:path';
import { defaultHookTimeoutMs } from '../../engine/index.js';
import { eventNameOfText, hooksJsonFailClosed } from '../common/answer.js';
import { readHooksJsonPayload } from '../common/hook-read.js';
import type { HookAgent } from '../hook-agent.js';
import { claudeAnswer } from './answer.js';
import { readClaudeTurn } from './transcript.js';

export const claudeHookAgent: HookAgent = {
  name: 'claude',
  title: 'Claude Code',
  configDir: (env, home) => env['CLAUDE_CONFIG_DIR'] || join(home, '.claude'),
  projectDirEnv: 'CLAUDE_PROJECT_DIR',
  handlerTimeoutMs: (event) => defaultHookTimeoutMs('claude', event),
  read: (value) => readHooksJsonPayload(value, 'claude'),
  answer: (decision, event) => claudeAnswer(decision, event),
  failClosed: hooksJsonFailClosed,
  eventNameOf: eventNameOfText,
  readTurn: readClaudeTurn,
};
