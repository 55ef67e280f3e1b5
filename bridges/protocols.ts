/**
 * Registers the built-in agents' hook protocols with the engine, once, on import. Every entry point
 * that evaluates imported hooks imports this (bridges/index.ts, bridges/hook.ts and the package's
 * face), so the engine, which names no agent, runs them as their agents do. Light on purpose: hook
 * mode imports it, and loads no configuration parser with it.
 */
import { registerHookProtocol } from '../engine/index.js';
import { claudeProtocol } from './claude/protocol.js';
import { codexProtocol } from './codex/protocol.js';

export const BUILT_IN_PROTOCOLS = [claudeProtocol, codexProtocol] as const;

for (const p of BUILT_IN_PROTOCOLS) registerHookProtocol(p);
