/**
 * Codex as dshpolicy knows it: the `Agent` of bridges/agent.ts, assembled from this folder.
 */
import type { Agent } from '../agent.js';
import { loadCodexHooksText } from './index.js';
import { codexInstall } from './install.js';
import { importCodexRules } from './rules.js';

export const codex: Agent = {
  name: 'codex',
  title: 'Codex',
  hooks: { load: (text, file) => loadCodexHooksText(text, file) },
  permissions: [{ what: 'rules', import: importCodexRules }],
  install: codexInstall,
};
