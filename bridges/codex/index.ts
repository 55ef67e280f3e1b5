/**
 * Loading Codex hooks configurations: `hooks.json` files and the `[hooks]` table of `config.toml`,
 * with what Codex would run, in the order it would run it, and a diagnostic for everything it
 * would skip, ignore or reject. Nothing here throws.
 */
import { diagnostic } from '../../engine/index.js';
import type { HooksConfig, Layer } from '../config.js';
import { loadCodexFile } from './load.js';
import { applyCodexTrust, type CodexTrustOptions } from './project.js';

export interface CodexLoadOptions {
  layer?: Layer;
  pluginRoot?: string;
  /**
   * Apply Codex's per-hook trust to this one file (`[hooks.state]` of the user config). Without
   * it, every hook the file defines is kept, as if it were trusted.
   */
  trust?: CodexTrustOptions;
}

/** Loads one configuration file from its text. Never throws: every problem is a diagnostic. */
export function loadCodexHooksText(text: string, file: string, opts: CodexLoadOptions = {}): HooksConfig {
  try {
    const loaded = loadCodexFile(typeof text === 'string' ? text : String(text), file, { layer: opts.layer, pluginRoot: opts.pluginRoot });
    const config = loaded.config;
    if (opts.trust) config.groups = applyCodexTrust(config.groups, opts.trust, config.diagnostics).groups;
    return config;
  } catch (err) {
    return {
      agent: 'codex',
      groups: [],
      disabled: false,
      files: [file],
      diagnostics: [
        diagnostic('codex/internal', 'error', `loading \`${file}\` failed: ${(err instanceof Error ? err.message : String(err)).replace(/\.$/, '')}`, {
          pointer: '',
          span: { file, start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } },
        }),
      ],
    };
  }
}

export { loadCodexProject, applyCodexTrust, type CodexProjectOptions, type CodexTrustOptions, type TrustOutcome } from './project.js';
export { loadCodexFile, detectFormat, type CodexFile, type CodexFormat } from './load.js';
export { CODEX_EVENTS, codexEvent, codexMatcherKind, codexUsesMatcher, type CodexEventInfo, type MatcherKind } from './events.js';
export { CODEX_HOOKS_SCHEMA } from './schema.js';
export { codexHookHash, codexHookKey, readHookStates, type CodexHookState, type CodexHookStates, type CodexTrustStatus, type HashInput } from './trust.js';
