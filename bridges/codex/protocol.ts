/**
 * Codex's hook protocol, as the engine runs an imported Codex hook (engine/hooks/protocol.ts):
 * `bash -c`, `PLUGIN_ROOT` for plugin hooks, the payload as Codex sends it, its strict reading of
 * the answer (a failed hook never blocks), its matchers (a tool by its name and then its
 * aliases), and only the first blocking hook's reason shown.
 */
import { DEFAULT_HOOK_TIMEOUT_MS, HOOK_EVENT_SEAMS, type HookProtocol } from '../../engine/index.js';
import { decodeCodexHookResult } from './decode.js';
import { decodeCodexAgentEvent } from './decode-agent.js';
import { CODEX_EVENT_TABLE } from './event-table.js';
import { codexMatcher, codexMatcherInputs } from './matcher.js';
import { codexPayload, codexPayloadText } from './payload.js';

/** What Codex's hooks do not take, and what to write instead. */
const UNSUPPORTED: Readonly<Record<string, { message: string; help: string }>> = {
  args: { message: 'Codex has no exec form, so no `args`', help: 'Codex runs every hook with a shell: write the arguments into the `hook` command' },
  shell: { message: 'Codex hooks take no `shell`', help: 'Codex always runs a hook with bash' },
  if: { message: 'Codex hooks have no `if`', help: 'select the tools with `matcher` instead' },
  http: { message: 'Codex has no http hooks', help: 'run a command that calls the server instead' },
};

export const codexProtocol: HookProtocol = {
  dialect: 'codex',
  title: 'Codex',
  seamEvents: HOOK_EVENT_SEAMS,
  agentEvents: CODEX_EVENT_TABLE,
  defaultTimeoutMs: () => DEFAULT_HOOK_TIMEOUT_MS,
  shell: () => '/bin/bash',
  environment(hook, _cwd, env) {
    if (hook.pluginRoot !== undefined) env['PLUGIN_ROOT'] = hook.pluginRoot;
  },
  placeholders: [],
  payloadMarkers: ['model'],
  payload: codexPayload,
  payloadText: codexPayloadText,
  decode: decodeCodexHookResult,
  decodeAgentEvent: decodeCodexAgentEvent,
  compileMatcher: (pattern) => codexMatcher(pattern),
  matcherInputs: codexMatcherInputs,
  unsupportedOption: (option) => UNSUPPORTED[option],
  firstReasonOnly: true,
};
