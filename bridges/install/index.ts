/**
 * Installing dshpolicy's hook into an agent, for any agent of the registry with an `install` part
 * (bridges/agent.ts), and taking it out again: what `dshpolicy install` and `uninstall` do, for a
 * host to call as well. The steps:
 *
 *   const where = installTarget('codex', { project: '.' });      // or { user: true }
 *   const plan = planInstall({ target: where.target, compile });  // or planUninstall(where.target)
 *   // plan.ok, plan.diagnostics, plan.hooks / plan.trust: each file's text before and after
 *   applyPlan(plan);                                               // writes, keeping backups
 *
 * Planning reads and never writes; a problem is a diagnostic, and an error refuses the plan
 * (`ok` false), which applying then leaves alone. Our handlers are marked
 * `"statusMessage": "dshpolicy"` (../common/hooks-json.ts), which is how they are found again.
 */
export {
  agentOptionProblem,
  installableAgent,
  installableAgents,
  messageName,
  messageNames,
  requireInstallable,
  type AgentOptions,
  type InstallableAgent,
  type InstallAgentRef,
} from './agent.js';
export { backupOf, BACKUP_SUFFIX } from './files.js';
export {
  applyPlan,
  planInstall,
  planUninstall,
  policyEvents,
  type FileEdit,
  type InstallPlan,
  type InstallRequest,
  type PolicyLoader,
  type UninstallPlan,
} from './plan.js';
export { DSHPOLICY_BIN_ENV, findDshpolicy, hookCommandLine, NOT_INSTALLED, projectHookCommand, projectHookScript, shellQuote } from './script.js';
export { installTarget, projectPolicies, type InstallTarget, type TargetRequest, type TargetResult } from './targets.js';
