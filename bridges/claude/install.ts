/**
 * Installing dshpolicy's hook into a Claude Code settings file: our handlers (a command, or an
 * http one for `dshpolicy serve`), one group per event, and the edit of the file as
 * ../common/hooks-json.ts makes it, checked by Claude Code's own reader, with warnings about what
 * in the file would keep Claude Code from running our hooks; and `claudeInstall`, the `install`
 * part of Claude Code's `Agent` (its files, events, project root, http handlers, notes). Pure
 * text in, text out.
 */
import { join, resolve } from 'node:path';
import { SEAM_EVENTS } from '../../dsl/index.js';
import { agentEventInfo, type Diagnostic } from '../../engine/index.js';
import type { AgentInstall } from '../agent.js';
import {
  DSHPOLICY_MARK,
  editHooksJson,
  INSTALL_TIMEOUT_SEC,
  type HooksJsonEdit,
  type JsonObject,
  type OurHandler,
  type WantedGroup,
} from '../common/hooks-json.js';
import { allowedHandlerTypes, CLAUDE_EVENTS, TOOL_EVENTS } from './events.js';
import { parseJson } from './json.js';
import { loadClaudeHooksText } from './index.js';

/** Our command handler; `timeout` in seconds. */
export function claudeCommandHandler(command: string, timeout = INSTALL_TIMEOUT_SEC): JsonObject {
  return { type: 'command', command, timeout, statusMessage: DSHPOLICY_MARK };
}

/** Our http handler (for `dshpolicy serve`); `timeout` in seconds. */
export function claudeHttpHandler(url: string, timeout = INSTALL_TIMEOUT_SEC): JsonObject {
  return { type: 'http', url, timeout, statusMessage: DSHPOLICY_MARK };
}

/**
 * One group per event: without a matcher, which Claude Code reads as "every value", except on tool
 * events, where it is `"*"` (every tool, the form its documentation uses).
 */
export function claudeWantedGroups(events: readonly string[], handlerFor: (event: string) => JsonObject): WantedGroup[] {
  return events.map((event) => ({ event, group: TOOL_EVENTS.has(event) ? { matcher: '*', hooks: [handlerFor(event)] } : { hooks: [handlerFor(event)] } }));
}

const claudeCheck = (text: string, file: string): Diagnostic[] => parseJson(text, file).diagnostics;

/**
 * Plans installing `wanted` into a Claude Code settings file (text undefined: it does not exist).
 * Besides the edit, warns about what in the file would keep Claude Code from running our hooks
 * (`disableAllHooks`, an `allowedHttpHookUrls` that does not admit our URL).
 */
export function planClaudeInstall(text: string | undefined, file: string, wanted: readonly WantedGroup[]): HooksJsonEdit {
  const edit = editHooksJson(text, file, wanted, { check: claudeCheck, agentName: 'claude code' });
  if (edit.ok && edit.after.length > 0) edit.diagnostics.push(...claudeNotes(edit.text, file, edit.after));
  return edit;
}

/** Plans removing our handlers from a Claude Code settings file. */
export function planClaudeUninstall(text: string | undefined, file: string): HooksJsonEdit {
  return editHooksJson(text, file, [], { check: claudeCheck, agentName: 'claude code' });
}

/** What Claude Code's loader says about our groups in the edited file (anything but notes). */
function claudeNotes(text: string, file: string, ours: readonly OurHandler[]): Diagnostic[] {
  const loaded = loadClaudeHooksText(text, file);
  const prefixes = [...new Set(ours.map((o) => `/hooks/${o.event}/${o.groupIndex}`))];
  const out: Diagnostic[] = [];
  for (const d of loaded.diagnostics) {
    if (d.code === 'claude/hooks-disabled') {
      out.push({ ...d, severity: 'warning', help: 'remove `disableAllHooks` (or set it to `false`) for the policy to run' });
    } else if (d.severity !== 'info' && d.pointer !== undefined && prefixes.some((p) => d.pointer === p || d.pointer!.startsWith(`${p}/`))) {
      out.push(d);
    }
  }
  return out;
}

/** The longest timeout Claude Code takes for a hook, in seconds. */
const CLAUDE_MAX_HANDLER_TIMEOUT_SEC = 600;

export const claudeInstall: AgentInstall = {
  // `$CLAUDE_CONFIG_DIR` (relative to the working directory) replaces `~/.claude`.
  userFile: ({ env, cwd, home }) => join(env['CLAUDE_CONFIG_DIR'] ? resolve(cwd, env['CLAUDE_CONFIG_DIR']) : join(home, '.claude'), 'settings.json'),
  projectFile: (dir) => join(dir, '.claude', 'settings.json'),
  seamEvents: SEAM_EVENTS,
  events: CLAUDE_EVENTS,
  hasAgentEvent: (event) => agentEventInfo('claude', event) !== undefined,
  // Claude Code tells its hooks the project directory.
  projectRoot: () => 'r=${CLAUDE_PROJECT_DIR:-$PWD}',
  maxHandlerTimeoutSec: CLAUDE_MAX_HANDLER_TIMEOUT_SEC,
  commandHandler: claudeCommandHandler,
  groups: claudeWantedGroups,
  planInstall: planClaudeInstall,
  planUninstall: planClaudeUninstall,
  // `dshpolicy serve` decides with its own policy by its own deadline (the agent's default less the
  // margin): its handlers get the longest timeout, which that deadline fits.
  http: {
    accepts: (event) => allowedHandlerTypes(event).includes('http'),
    handler: (url) => claudeHttpHandler(url, CLAUDE_MAX_HANDLER_TIMEOUT_SEC),
    timeoutSec: CLAUDE_MAX_HANDLER_TIMEOUT_SEC,
  },
  notes: {
    installed: 'claude code reads the file at start: restart running sessions (or review the hooks with /hooks)',
  },
  declines: { trust: 'claude code asks to trust a project itself' },
};
