/**
 * Identical handlers: Claude Code runs a handler once per firing when the same handler is
 * configured more than once in settings files (managed, user, project, local, `--settings`), even
 * across files and across groups of one file; a plugin's copy is never merged with anything.
 * Command handlers are identical when command string and `args` are; HTTP handlers when their URL is.
 *
 * Where this happens: among the handlers an event actually selected (after matchers and `if`), so
 * two groups with different matchers that both match the same tool still run the command once.
 * The loader therefore keeps every copy (each with its own source) and only reports, as an info,
 * copies that are certain to collapse (same event, matcher and `if`); a runner collapses the
 * selected handlers with `claudeDedupKey` / `dedupeClaudeHandlers`.
 */
import type { HookHandler, MatcherGroup } from '../config.js';

/** The identity Claude Code merges a handler by; `undefined` when it is never merged. */
export function claudeDedupKey(group: Pick<MatcherGroup, 'layer'>, handler: HookHandler): string | undefined {
  if (group.layer === 'plugin') return undefined;
  if (handler.type === 'command' && handler.command !== undefined) return JSON.stringify(['command', handler.command, handler.args ?? null]);
  if (handler.type === 'http' && handler.url !== undefined) return JSON.stringify(['http', handler.url]);
  return undefined;
}

/** Keeps the first of each set of identical selected handlers, in order. */
export function dedupeClaudeHandlers<T extends { group: Pick<MatcherGroup, 'layer'>; handler: HookHandler }>(selected: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const s of selected) {
    const key = claudeDedupKey(s.group, s.handler);
    if (key !== undefined) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(s);
  }
  return out;
}
