/**
 * Codex as dshpolicy knows it: the `Agent` of bridges/agent.ts, assembled from this folder.
 */
import type { Agent } from '../agent.js';
import { codexHookAgent } from './hook-agent.js';
import { codexProtocol } from './protocol.js';
import { codexOutputFields } from './output-fields.js';
import { loadCodexHooksText, loadCodexProject } from './index.js';
import { codexInstall } from './install.js';
import { importCodexRules } from './rules.js';
import { codexRolloutBatches, readCodexTurn } from './rollout.js';
import { codexHeadReader } from './rollout-head.js';
import { codexSyntheticLines } from './rollout-synthetic.js';

export const codex: Agent = {
  name: 'codex',
  title: 'Codex',
  protocol: codexProtocol,
  hookMode: codexHookAgent,
  hooks: {
    load: (text, file) => loadCodexHooksText(text, file),
    discover: ({ projectDir, home, env }) => loadCodexProject({ projectDir, home, ...(env['CODEX_HOME'] ? { codexHome: env['CODEX_HOME'] } : {}) }),
    outputFields: codexOutputFields,
  },
  permissions: [{ what: 'rules', import: importCodexRules }],
  transcripts: { noun: 'rollout', batches: codexRolloutBatches, readTurn: readCodexTurn, head: codexHeadReader, synthetic: codexSyntheticLines },
  install: codexInstall,
};
