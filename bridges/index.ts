/**
 * The bridges' public entry: the agents (agents.ts, one folder each), loading and compiling their
 * hooks configurations, their permission languages, install, transcripts and replay. Importing it
 * registers the agents' hook protocols with the engine.
 */
import './protocols.js';
export * from './config.js';
export type { OutputFields } from './common/output-fields.js';
export type {
  Agent as AgentSpec,
  AgentHooks,
  AgentInstall,
  AgentInstallHttp,
  AgentInstallNotes,
  AgentInstallTrust,
  AgentPermissions,
  AgentTranscripts,
  AgentExport,
  InstallEnvironment,
  TrustInput,
  TrustPlan,
  TrustReport,
  TrustSteps,
} from './agent.js';
export { AGENTS, agentNamed, agentsWith, agentNameList } from './agents.js';
export {
  loadClaudeHooksText,
  loadClaudeProject,
  claudeDedupKey,
  dedupeClaudeHandlers,
  type ClaudeLoadOptions,
  type ClaudeProjectOptions,
} from './claude/index.js';
export { loadCodexHooksText, loadCodexProject, type CodexLoadOptions, type CodexProjectOptions } from './codex/index.js';
import type { Agent, HooksConfig } from './config.js';
import { agentNamed } from './agents.js';

/** Loads one hooks configuration file of an agent that has one from its text. Never throws. */
export function loadHooksText(agent: Agent, text: string, file: string): HooksConfig {
  return agentNamed(agent)!.hooks!.load(text, file);
}
export { compileHooks, EVENT_SEAMS, type CompiledHooks } from './compile.js';

import type { Importer } from '../dsl/index.js';
import { compileHooks } from './compile.js';
import { importPermissions } from './permissions.js';

/**
 * Honours `import claude hooks "..."` and `import codex hooks "..."` in policy files: the file is
 * loaded as its agent loads it and its hooks compiled to `run` rules. Problems in it are the
 * policy's problems, so a broken hooks file fails the compile rather than dropping hooks.
 */
export const hooksImporter: Importer = ({ agent, what, path, text }) => {
  const hooks = what === 'hooks' ? agentNamed(agent)?.hooks : undefined;
  if (!hooks) return undefined;
  const config = hooks.load(text, path);
  const compiled = compileHooks(config);
  return { rules: compiled.rules, diagnostics: [...config.diagnostics, ...compiled.diagnostics] };
};

/**
 * Honours every `import` the bridges know: hooks (above) and other agents' permission languages
 * (`import claude permissions`, `import codex rules`, `import gemini policy`), whose examples
 * become the policy's test cases.
 */
export const agentImporter: Importer = (req) => {
  const hooks = hooksImporter(req);
  if (hooks) return hooks;
  const imported = importPermissions(req.agent, req.what, req.text, req.path);
  return imported && { rules: imported.rules, diagnostics: imported.diagnostics, tests: imported.tests };
};
export { claudeAnswer } from './claude/answer.js';
export type { HookAnswer } from './common/answer.js';
export { codexAnswer, type CodexAnswerOptions } from './codex/answer.js';

// `dshpolicy install` / `uninstall`: our entries in the agents' hooks files (and Codex's trust).
export {
  DSHPOLICY_MARK,
  INSTALL_TIMEOUT_SEC,
  editHooksJson,
  findDshpolicyHandlers,
  isDshpolicyHandler,
  type HookGroup,
  type HooksJsonEdit,
  type JsonObject,
  type OurHandler,
  type WantedGroup,
} from './common/hooks-json.js';
export * from './install/index.js';
export { handlerTimeout, hookDeadlineSec, hookTimeoutLints, runHookTimeoutMs, MIN_HANDLER_TIMEOUT_SEC, type HandlerTimeout } from './handler-timeout.js';
export { readClaudeTurn, iterateClaudeTranscript, claudeTranscriptBatches } from './claude/transcript.js';
export type { TurnFacts, ReadTurnOptions, TranscriptItem, IterateOptions } from './common/transcript.js';
export { readCodexTurn, iterateCodexRollout, codexRolloutBatches } from './codex/rollout.js';
export { readTranscriptHead, type TranscriptHead, type TranscriptAgent } from './transcript-head.js';
export {
  countTotal,
  replay,
  replayFiles,
  replayInputs,
  transcriptFiles,
  writeSyntheticTranscript,
  REPLAY_MAX_LINE_BYTES,
  REPLAY_SEAMS,
  SYNTHETIC_COMMANDS,
  type FileSummary,
  type ReplayOptions,
  type ReplayProgress,
  type ReplayRecord,
  type ReplaySeam,
  type ReplaySummary,
  type RuleCount,
  type SyntheticOptions,
} from './replay/index.js';
export { exportGeminiPolicy, EXPORT_PRIORITY } from './gemini/export.js';
export { importPermissions, PERMISSION_IMPORTS, type ImportedPolicy, type PermissionImport, type PermissionImportOptions } from './permissions.js';
export { buildReport, type EventReport, type HandlerReport, type ImportReport } from './import-report.js';
