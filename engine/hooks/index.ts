export { processHookRunner, runCommand, runProcess, DEFAULT_HOOK_TIMEOUT_MS, CLAUDE_PROMPT_TIMEOUT_MS, defaultHookTimeoutMs, HOOK_OUTPUT_CAP, type RunnerOptions } from './runner.js';
export { buildPayload, payloadText, hookEventName } from './payload.js';
export { decodeHookResult, type RawHookResult } from './decode.js';
export { decodeCodexHookResult } from './decode-codex.js';
export { decodeClaudeAgentEvent, decodeCodexAgentEvent } from './decode-agent.js';
export { isHttpUrl, runHttpHook } from './http.js';
