/**
 * Claude Code as dshpolicy knows it: the `Agent` of bridges/agent.ts, assembled from this folder.
 */
import type { Agent } from '../agent.js';
import { claudeHookAgent } from './hook-agent.js';
import { claudeProtocol } from './protocol.js';
import { claudeOutputFields } from './output-fields.js';
import { loadClaudeHooksText, loadClaudeProject } from './index.js';
import { claudeInstall } from './install.js';
import { importClaudePermissions } from './permissions.js';
import { claudeTranscriptBatches, readClaudeTurn } from './transcript.js';
import { claudeHeadReader } from './transcript-head.js';
import { claudeSyntheticLines } from './transcript-synthetic.js';

export const claude: Agent = {
  name: 'claude',
  title: 'Claude Code',
  protocol: claudeProtocol,
  hookMode: claudeHookAgent,
  hooks: {
    load: (text, file) => loadClaudeHooksText(text, file),
    discover: ({ projectDir, home, env }) => loadClaudeProject({ projectDir, home, ...(env['CLAUDE_CONFIG_DIR'] ? { configDir: env['CLAUDE_CONFIG_DIR'] } : {}) }),
    outputFields: claudeOutputFields,
  },
  permissions: [{ what: 'permissions', import: importClaudePermissions }],
  transcripts: {
    noun: 'transcript',
    batches: claudeTranscriptBatches,
    readTurn: readClaudeTurn,
    head: claudeHeadReader,
    failedResultEvent: 'PostToolUseFailure',
    synthetic: claudeSyntheticLines,
  },
  install: claudeInstall,
};
