/**
 * The bridges' second public entry, for hook mode: deciding one payload as any agent's hook and
 * answering in its protocol (hook-mode.ts, over each agent's `HookAgent`), without the
 * configuration loaders (and their parsers) that index.ts also brings. A hook process starts once
 * per agent event, so it loads only this. Importing it registers the agents' hook protocols.
 */
export { HOOK_AGENTS, hookAgentNamed, type AnswerOptions, type HookAgent, type ReadPayload } from './hook-agent.js';
export { decidePayload, deadlineWithin, defaultDeadlineMs, discoverPolicies, failClosed, fileCounts, MAX_PAYLOAD, stateDir, type DecideContext } from './hook-mode.js';
export { ANSWERED_EXIT, BLOCKING_EXIT, problemLine, type HookAnswer } from './common/answer.js';
export { claudeAnswer } from './claude/answer.js';
export { codexAnswer, type CodexAnswerOptions } from './codex/answer.js';
export { readClaudeTurn } from './claude/transcript.js';
export type { TurnFacts } from './common/transcript.js';
export { readCodexTurn } from './codex/rollout.js';
export { decodeGeminiPayload, geminiAnswer, geminiDeny, geminiToolName, GEMINI_TOOL_EVENT, type GeminiDecoded } from './gemini/hook.js';
export { GEMINI_DEFAULT_TIMEOUT_MS } from './gemini/hook-agent.js';
export { DEADLINE_MARGIN_SEC } from './deadline.js';
