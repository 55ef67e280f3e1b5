/**
 * Installing dshpolicy's hook into Codex: our handlers in a `hooks.json` (one group per event, the
 * edit as ../common/hooks-json.ts makes it, checked by Codex's own reader), and `codexInstall`,
 * the `install` part of Codex's `Agent`: where its files are (`$CODEX_HOME`, else `~/.codex`),
 * its events, the project-root search of the project install's script, and the hook trust Codex
 * needs in its user `config.toml` (install-trust.ts, edited by install-config.ts). Apart from
 * finding `$CODEX_HOME` (its links resolved, as Codex sees it), pure text in, text out.
 */
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SEAM_EVENTS } from '../../dsl/index.js';
import { agentEventInfo, LineIndex, type Diagnostic } from '../../engine/index.js';
import type { AgentInstall, InstallEnvironment } from '../agent.js';
import { editHooksJson, INSTALL_TIMEOUT_SEC, DSHPOLICY_MARK, type HooksJsonEdit, type JsonObject, type WantedGroup } from '../common/hooks-json.js';
import { CODEX_EVENTS, codexEvent } from './events.js';
import { codexTrustSteps, planCodexTrust } from './install-trust.js';
import { parseJson } from './json.js';

export {
  codexHookStates,
  codexHooksDisabled,
  codexProjectTrusted,
  planCodexConfig,
  projectTrustText,
  tomlString,
  trustEntryText,
  type CodexConfigEdit,
  type CodexConfigEditOptions,
  type CodexTrustEntry,
} from './install-config.js';
export { codexKeyMoves, codexTrustEntries, codexTrustSteps, planCodexTrust } from './install-trust.js';

/** Our command handler; `timeout` in seconds. */
export function codexCommandHandler(command: string, timeout = INSTALL_TIMEOUT_SEC): JsonObject {
  return { type: 'command', command, timeout, statusMessage: DSHPOLICY_MARK };
}

/** One group per event: `"*"` on tool events (every tool), no matcher elsewhere. */
export function codexWantedGroups(events: readonly string[], handlerFor: (event: string) => JsonObject): WantedGroup[] {
  return events.map((event) => ({
    event,
    group: codexEvent(event)?.matcherInput === 'the tool name' ? { matcher: '*', hooks: [handlerFor(event)] } : { hooks: [handlerFor(event)] },
  }));
}

const codexCheck = (text: string, file: string): Diagnostic[] => parseJson(text, file, new LineIndex(text)).diagnostics;

/** Plans installing `wanted` into a Codex hooks.json (text undefined: it does not exist). */
export function planCodexInstall(text: string | undefined, file: string, wanted: readonly WantedGroup[]): HooksJsonEdit {
  return editHooksJson(text, file, wanted, { check: codexCheck, agentName: 'codex' });
}

/** Plans removing our handlers from a Codex hooks.json. */
export function planCodexUninstall(text: string | undefined, file: string): HooksJsonEdit {
  return editHooksJson(text, file, [], { check: codexCheck, agentName: 'codex' });
}

/** Codex's own directory: `$CODEX_HOME` (relative to the working directory, links resolved: Codex keys trust by the path it sees), else `~/.codex`. */
function codexHome(where: InstallEnvironment): string {
  const given = where.env['CODEX_HOME'];
  if (!given) return join(where.home, '.codex');
  const dir = resolve(where.cwd, given);
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** The Codex ceiling on a command hook's timeout, in seconds. */
const CODEX_MAX_HANDLER_TIMEOUT_SEC = 600;

export const codexInstall: AgentInstall = {
  userFile: (where) => join(codexHome(where), 'hooks.json'),
  projectFile: (dir) => join(dir, '.codex', 'hooks.json'),
  seamEvents: SEAM_EVENTS,
  events: CODEX_EVENTS.map((e) => e.name),
  hasAgentEvent: (event) => agentEventInfo('codex', event) !== undefined,
  // Codex gives its hooks no project variable: the project is the nearest directory at or above the session's with `.codex/hooks.json`.
  projectRoot: (up) => `r=$PWD; d=$PWD; while [ -n "$d" ]; do if [ -f "$d/.codex/hooks.json" ]; then r=$d; break; fi; ${up}; done`,
  maxHandlerTimeoutSec: CODEX_MAX_HANDLER_TIMEOUT_SEC,
  commandHandler: codexCommandHandler,
  groups: codexWantedGroups,
  planInstall: planCodexInstall,
  planUninstall: planCodexUninstall,
  trust: {
    file: (where) => join(codexHome(where), 'config.toml'),
    plan: planCodexTrust,
    steps: codexTrustSteps,
  },
  notes: {
    uninstalled: 'a project trusted for codex stays trusted; remove its [projects."<dir>"] entry yourself if dshpolicy was the reason',
  },
  declines: { http: 'codex runs command hooks only' },
};
