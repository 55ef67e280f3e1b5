/**
 * Codex as dshpolicy knows it: the `Agent` of bridges/agent.ts, assembled from this folder.
 */
import type { Agent } from '../agent.js';
import { loadCodexHooksText } from './index.js';
import { importCodexRules } from './rules.js';
import { codexRolloutBatches, readCodexTurn } from './rollout.js';
import { codexHeadReader } from './rollout-head.js';
import { codexSyntheticLines } from './rollout-synthetic.js';

export const codex: Agent = {
  name: 'codex',
  title: 'Codex',
  hooks: { load: (text, file) => loadCodexHooksText(text, file) },
  permissions: [{ what: 'rules', import: importCodexRules }],
  transcripts: { noun: 'rollout', batches: codexRolloutBatches, readTurn: readCodexTurn, head: codexHeadReader, synthetic: codexSyntheticLines },
};
