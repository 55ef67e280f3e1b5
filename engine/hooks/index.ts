export { processHookRunner, runCommand, runProcess, DEFAULT_HOOK_TIMEOUT_MS, CLAUDE_PROMPT_TIMEOUT_MS, defaultHookTimeoutMs, HOOK_OUTPUT_CAP, type RunnerOptions, type SignalledRunOptions, type SignalledHookRunner, type ProcessLimits } from './runner.js';
export { evaluateInTime, finalEffect, lateEffect, type InTimeOptions } from './deadline.js';
export { buildPayload, payloadText, hookEventName } from './payload.js';
export { decodeHookResult, type RawHookResult } from './decode.js';
export { decodeCodexHookResult } from './decode-codex.js';
export { decodeClaudeAgentEvent, decodeCodexAgentEvent } from './decode-agent.js';
export { isHttpUrl, runHttpHook } from './http.js';
export { registerHookProtocol, hookProtocol, hookProtocols, dialectTitle, type HookProtocol, type HookCondition, type ConditionCall } from './protocol.js';
