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

import type { Importer } from '../dsl/index.js';
import { compileHooks } from './compile.js';

/**
 * Honours `import claude hooks "..."` and `import codex hooks "..."` in policy files: the file is
 * loaded as its agent loads it and its hooks compiled to `run` rules. Problems in it are the
 * policy's problems, so a broken hooks file fails the compile rather than dropping hooks.
 */
export const hooksImporter: Importer = ({ agent, what, path, text }) => {
  if (what !== 'hooks' || (agent !== 'claude' && agent !== 'codex')) return undefined;
  const config = loadHooksText(agent, text, path);
  const compiled = compileHooks(config);
  return { rules: compiled.rules, diagnostics: [...config.diagnostics, ...compiled.diagnostics] };
};
