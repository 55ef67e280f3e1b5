/**
 * Loading Claude Code hooks configurations: one file from its text (settings, a plugin's
 * `hooks/hooks.json`, a plugin's `plugin.json`), or every layer of a project merged as Claude Code
 * merges them. Nothing here throws on user input; every problem is a diagnostic with a span and a
 * JSON pointer.
 */
import type { HooksConfig } from '../config.js';
import { diagnostic } from '../../engine/index.js';
import { append } from './json.js';
import { applyHttpAllowlist, loadFile, noteDuplicateHandlers, type ClaudeLoadOptions } from './load.js';

export type { ClaudeFileKind, ClaudeLoadOptions } from './load.js';
export { detectKind, inferPluginRoot } from './load.js';
export { loadClaudeProject, localSettingsRoot, type ClaudePluginRef, type ClaudeProjectOptions } from './project.js';
export { claudeDedupKey, dedupeClaudeHandlers } from './dedup.js';
export { CLAUDE_HOOKS_SCHEMA, validateHooksDocument } from './schema.js';
export {
  allowedHandlerTypes, CLAUDE_EVENTS, CLAUDE_SDK_ONLY_EVENTS, HANDLER_TYPES, isClaudeEvent, NO_MATCHER_EVENTS, TOOL_EVENTS,
} from './events.js';

/**
 * Loads one configuration file from its text. Never throws: every problem is a diagnostic.
 *
 * A settings file with `disableAllHooks: true` comes back `disabled` and without groups: Claude
 * Code runs none of them (its hooks are still checked and reported). HTTP handlers that the file's
 * own `allowedHttpHookUrls` does not admit are dropped with a warning. Identical handlers are all
 * kept (see `claudeDedupKey`).
 */
export function loadClaudeHooksText(text: string, file: string, opts: ClaudeLoadOptions = {}): HooksConfig {
  const { config, settings } = loadFile(text, file, opts);
  const off = settings.disableAllHooks;
  if (off?.value === true) {
    config.disabled = true;
    config.diagnostics.push(
      diagnostic('claude/hooks-disabled', 'info', `\`disableAllHooks\` is \`true\`: claude code runs none of the ${config.groups.length} hook groups`, {
        span: off.source.span,
        pointer: off.source.pointer,
      }),
    );
    config.groups = [];
  }
  applyHttpAllowlist(config.groups, settings.allowedHttpHookUrls?.patterns, config.diagnostics);
  append(config.diagnostics, noteDuplicateHandlers(config.groups));
  return config;
}
