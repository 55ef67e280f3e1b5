export { processHookRunner, runCommand, runProcess, DEFAULT_HOOK_TIMEOUT_MS, defaultHookTimeoutMs, HOOK_OUTPUT_CAP, type RunnerOptions, type SignalledRunOptions, type SignalledHookRunner, type ProcessLimits } from './runner.js';
export { evaluateInTime, finalEffect, lateEffect, type InTimeOptions } from './deadline.js';
export { isHttpUrl, runHttpHook } from './http.js';
export * from './protocol.js';
