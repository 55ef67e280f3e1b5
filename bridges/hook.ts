/**
 * The bridges' second public entry, for hook mode: answering an agent in its protocol and reading
 * the turn's facts from its transcript, without the configuration loaders (and their parsers) that
 * index.ts also brings. A hook process starts once per agent event, so it loads only this.
 */
export { claudeAnswer } from './claude/answer.js';
export type { HookAnswer } from './common/answer.js';
export { codexAnswer, type CodexAnswerOptions } from './codex/answer.js';
export { readClaudeTurn } from './claude/transcript.js';
export type { TurnFacts } from './common/transcript.js';
export { readCodexTurn } from './codex/rollout.js';
export { decodeGeminiPayload, geminiAnswer, geminiDeny, geminiToolName, GEMINI_TOOL_EVENT, type GeminiDecoded } from './gemini/hook.js';
export { DEADLINE_MARGIN_SEC } from './deadline.js';
