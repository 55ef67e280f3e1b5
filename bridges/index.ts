export * from './config.js';
export {
  loadClaudeHooksText,
  loadClaudeProject,
  claudeDedupKey,
  dedupeClaudeHandlers,
  type ClaudeLoadOptions,
  type ClaudeProjectOptions,
} from './claude/index.js';
export { loadCodexHooksText, loadCodexProject, type CodexLoadOptions, type CodexProjectOptions } from './codex/index.js';
import type { Agent, HooksConfig } from './config.js';
import { loadClaudeHooksText } from './claude/index.js';
import { loadCodexHooksText } from './codex/index.js';

/** Loads one hooks configuration file of either agent from its text. Never throws. */
export function loadHooksText(agent: Agent, text: string, file: string): HooksConfig {
  return agent === 'claude' ? loadClaudeHooksText(text, file) : loadCodexHooksText(text, file);
}
export { compileHooks, EVENT_SEAMS, type CompiledHooks } from './compile.js';
