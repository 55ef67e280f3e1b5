/**
 * Claude Code as dshpolicy knows it: the `Agent` of bridges/agent.ts, assembled from this folder.
 */
import type { Agent } from '../agent.js';
import { loadClaudeHooksText } from './index.js';
import { claudeInstall } from './install.js';
import { importClaudePermissions } from './permissions.js';

export const claude: Agent = {
  name: 'claude',
  title: 'Claude Code',
  hooks: { load: (text, file) => loadClaudeHooksText(text, file) },
  permissions: [{ what: 'permissions', import: importClaudePermissions }],
  install: claudeInstall,
};
