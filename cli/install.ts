/**
 * `dshpolicy install <agent>` and `dshpolicy uninstall <agent>`: the arguments, the report of what
 * bridges/install/ planned and did (text, or `--format json`), and the exit code. Planning and
 * writing are the bridges': they wire `dshpolicy hook` into the agent's hooks configuration
 * (Claude Code's settings.json, Codex's hooks.json) for every event the policy uses, and take it
 * out again, through the agent's `install` part; our handlers carry `"statusMessage":
 * "dshpolicy"`, which is how they are found again. An agent that runs hooks only once they are
 * trusted (Codex) has its trust printed as a step, or written with `--trust`.
 */
import { parseArgs } from 'node:util';
import {
  agentNameList,
  agentOptionProblem,
  applyPlan,
  backupOf,
  DSHPOLICY_BIN_ENV,
  installableAgent,
  installableAgents,
  installTarget,
  messageName,
  planInstall,
  planUninstall,
  type FileEdit,
  type HandlerTimeout,
  type InstallableAgent,
  type InstallPlan,
  type InstallTarget,
  type TrustReport,
  type UninstallPlan,
} from '../bridges/index.js';
import type { Diagnostic } from '../engine/index.js';
import { format, guard, UsageError, type Format, type Io } from './args.js';
import { unifiedDiff } from './diff.js';
import { FAILED, OK } from './exit-codes.js';
import { loadPolicies } from './policy.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize, type Style } from './render.js';
import { terminalSafe } from './untrusted.js';

export const INSTALL_HELP = `usage: dshpolicy install claude [--project <dir> | --user] [--policy <file>...] [--http <url>]
                         [--dry-run] [--format human|json]
       dshpolicy install codex  [--project <dir> | --user] [--policy <file>...] [--trust]
                         [--dry-run] [--format human|json]

Wires \`dshpolicy hook\` into the agent's configuration, on every event the policy uses:
  claude  <dir>/.claude/settings.json (--project, the default, <dir> defaulting to the current
          directory) or ~/.claude/settings.json (--user; $CLAUDE_CONFIG_DIR replaces ~/.claude)
  codex   <dir>/.codex/hooks.json or ~/.codex/hooks.json ($CODEX_HOME replaces ~/.codex)
The policy is the --policy files (compiled now), or else the project's: every *.dshpolicy in the
nearest .dshpolicy/ directory at or above <dir>, which the hook reads each time it runs (with
--user and no --policy, every event a policy can use is wired). A policy that does not compile is
refused. A project install's command holds no path of this machine, so the committed settings work
for every teammate: it runs $DSHPOLICY_BIN, else the nearest node_modules/.bin/dshpolicy at or above
the project, else dshpolicy on PATH, and blocks (exit 2, saying how to install it) when there is
none. A user install runs this dshpolicy by its paths. The handler timeout covers the policy's
slowest \`run\` hook plus 5 s (30 s at least, 600 s at most); the hook answers 5 s before it.
Installing again replaces only dshpolicy's own entries (marked "statusMessage": "dshpolicy"); the
rest of the file and its formatting are kept, and the file as it was before dshpolicy first
changed it is kept as <file>.dshpolicy-backup.
  --http <url>  (claude) post the events to \`dshpolicy serve\` at <url> instead of running a command
  --trust       (codex) also trust the hooks (and, with --project, the project) in
                $CODEX_HOME/config.toml; without it, the entries to add are printed
  --dry-run     print the changes as a diff and write nothing
Exits 0 when installed (or already installed), 1 when refused.`;

export const UNINSTALL_HELP = `usage: dshpolicy uninstall claude|codex [--project <dir> | --user] [--dry-run] [--format human|json]

Removes dshpolicy's own hook entries (those with "statusMessage": "dshpolicy") from the file
\`dshpolicy install\` writes, and the groups, events and \`hooks\` object left empty by that; for
Codex also their trust entries in $CODEX_HOME/config.toml. Nothing else changes; the backup stays.
Exits 0 when removed (or there was nothing to remove), 1 when refused.`;

/** What the commands take from their surroundings; tests pass their own. */
export interface InstallContext {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The node binary the hook command runs (default `process.execPath`). */
  execPath?: string;
  /** The dshpolicy script the hook command runs (default `process.argv[1]`, resolved). */
  script?: string;
}

const OPTIONS = {
  project: { type: 'string' },
  user: { type: 'boolean' },
  policy: { type: 'string', multiple: true },
  http: { type: 'string' },
  trust: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function agentOf(positionals: string[], verb: string): InstallableAgent {
  const [word, ...extra] = positionals;
  const names = agentNameList(installableAgents());
  if (word === undefined) throw new UsageError(`name the agent to ${verb}: ${names}`);
  const agent = installableAgent(word);
  if (!agent) throw new UsageError(`unknown agent \`${word}\`; use ${names}`);
  if (extra.length > 0) throw new UsageError(`unexpected \`${extra[0]}\`; name policy files with \`--policy\``);
  return agent;
}

function targetOf(agent: InstallableAgent, values: { project?: string | undefined; user?: boolean | undefined }, context: InstallContext): InstallTarget {
  if (values.user && values.project !== undefined) throw new UsageError('`--project` and `--user` name different files; give one');
  const found = installTarget(agent, { user: values.user === true, project: values.project, env: context.env, cwd: context.cwd });
  if (!found.ok) throw new UsageError(found.problem);
  return found.target;
}

// ---------------------------------------------------------------------------------------------
// Output

interface Report {
  ok: boolean;
  agent: string;
  scope?: 'project' | 'user';
  file: string;
  changed: boolean;
  created?: boolean;
  backup?: string;
  /** The backup was made by this run. */
  backupCreated?: boolean;
  events: string[];
  command?: string;
  /** The handler's timeout written (seconds), and the hook's deadline below it. */
  timeout?: number;
  deadline?: number;
  http?: string;
  policies?: string[] | 'project';
  dryRun?: boolean;
  diff?: string;
  trust?: TrustJson;
  diagnostics: Diagnostic[];
}

interface TrustJson extends TrustReport {
  backup?: string;
  diff?: string;
}

/** The diff `--dry-run` shows for an edit: from `/dev/null` for a new file. */
function diffOf(edit: FileEdit): string {
  return unifiedDiff(edit.before ?? '', edit.after, edit.before === undefined ? '/dev/null' : edit.file, edit.file);
}

/** What both reports start with. */
function reportOf(plan: UninstallPlan, dryRun: boolean): Report {
  const { target } = plan;
  const report: Report = { ok: plan.ok, agent: target.agent.name, scope: target.scope, file: target.file, changed: false, events: plan.events, diagnostics: plan.diagnostics };
  if (dryRun) report.dryRun = true;
  return report;
}

/** The report of an install: the plan, and (after it was applied) the backups there are. */
function installReport(plan: InstallPlan, dryRun: boolean): Report {
  const report = reportOf(plan, dryRun);
  if (plan.policies !== undefined) report.policies = plan.policies;
  if (plan.timeout !== undefined) {
    report.timeout = plan.timeout.seconds;
    if (plan.deadline !== undefined) report.deadline = plan.deadline;
  }
  if (plan.http) report.http = plan.http.url;
  if (plan.command !== undefined) report.command = plan.command;
  if (plan.hooks) {
    report.changed = plan.hooks.changed;
    if (plan.hooks.created) report.created = true;
    if (dryRun && plan.hooks.changed) report.diff = diffOf(plan.hooks);
  }
  if (plan.trust) {
    // a dry run writes nothing, trust entries included
    const trust: TrustJson = { ...plan.trust.report, written: dryRun ? false : plan.trust.report.written };
    if (dryRun && plan.trust.edit?.changed) trust.diff = diffOf(plan.trust.edit);
    report.trust = trust;
  }
  if (!plan.ok) return report;
  const backup = backupOf(plan.target.file);
  if (backup && (dryRun ? plan.hooks?.before !== undefined : true)) report.backup = backup;
  if (report.trust) {
    const b = backupOf(report.trust.config);
    if (b) report.trust.backup = b;
  }
  return report;
}

/** The report of an uninstall; `hadBackup`: the hooks file had a backup before the plan was applied. */
function uninstallReport(plan: UninstallPlan, dryRun: boolean, hadBackup: boolean): Report {
  const report = reportOf(plan, dryRun);
  if (plan.hooks) {
    report.changed = plan.hooks.changed;
    if (dryRun && plan.hooks.changed) report.diff = diffOf(plan.hooks);
  }
  if (plan.trust) {
    const trust: TrustJson = { ...plan.trust.report };
    if (dryRun && plan.trust.edit?.changed) trust.diff = diffOf(plan.trust.edit);
    report.trust = trust;
  }
  if (!plan.ok) return report;
  const backup = backupOf(plan.target.file);
  if (backup) report.backup = backup;
  if (backup && !hadBackup) report.backupCreated = true;
  if (report.trust) {
    const b = backupOf(report.trust.config);
    if (b) report.trust.backup = b;
  }
  return report;
}

/** The texts the plan read, for diagnostics shown in context. */
function sourcesOf(plan: UninstallPlan): SourceCache {
  const sources = new SourceCache();
  for (const [file, text] of plan.sources) sources.set(file, text);
  return sources;
}

function emit(io: Io, fmt: Format, report: Report, human: (style: Style) => string[], sources: SourceCache): number {
  if (fmt === 'json') {
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return report.ok ? OK : FAILED;
  }
  const errStyle = io.stderr === process.stderr ? styleFor(process.stderr) : PLAIN;
  const outStyle = io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
  for (const d of report.diagnostics) io.stderr.write(`${renderDiagnostic(d, sources, errStyle)}\n\n`);
  if (!report.ok) {
    io.stderr.write(`${errStyle.red('refused')}: ${summarize(report.diagnostics) || 'nothing written'}; nothing was written\n`);
    return FAILED;
  }
  const text = human(outStyle);
  if (text.length > 0) io.stdout.write(`${text.join('\n')}\n`);
  return OK;
}

/**
 * A --dry-run diff for the terminal: the configuration may be the repository's, so what it holds
 * is escaped (untrusted.ts), its lines kept.
 */
function diffText(diff: string): string {
  return terminalSafe(diff.trimEnd(), 'block');
}

function installText(report: Report, plan: InstallPlan, style: Style): string[] {
  const out: string[] = [];
  const agent = plan.target.agent;
  const name = messageName(agent);
  if (report.diff) out.push(diffText(report.diff));
  if (report.trust?.diff) out.push(diffText(report.trust.diff));
  const verb = report.dryRun ? 'would install' : 'installed';
  if (!report.changed) {
    out.push(`${style.green('ok')}: the dshpolicy hook is already installed in ${report.file}; nothing to change`);
  } else if (report.events.length === 0) {
    out.push(`${style.green('ok')}: ${report.dryRun ? 'would remove' : 'removed'} the dshpolicy hook from ${report.file} (the policy uses no event)`);
  } else {
    out.push(`${style.green('ok')}: ${verb} the dshpolicy hook for ${name} in ${report.file}${report.created ? ' (a new file)' : ''}`);
  }
  if (report.events.length > 0) out.push(`  events:  ${report.events.join(', ')}`);
  if (report.http && plan.http) out.push(`  url:     ${report.http} (timeout ${plan.http.timeoutSec} s: \`dshpolicy serve\` answers by its own deadline)`);
  if (report.command) out.push(`  command: ${report.command}${report.scope === 'project' ? ' <event>' : ''}`);
  if (report.command && report.scope === 'project') {
    out.push(`           runs $${DSHPOLICY_BIN_ENV}, else the nearest node_modules/.bin/dshpolicy at or above the project, else dshpolicy on PATH; blocks when there is none`);
  }
  if (report.timeout !== undefined && plan.timeout && report.command !== undefined && report.events.length > 0) {
    out.push(`  timeout: ${report.timeout} s (${timeoutText(plan.timeout, name)}; the hook answers by ${report.deadline} s)`);
  }
  if (report.policies === 'project') out.push('  policy:  every *.dshpolicy in the nearest .dshpolicy/ at or above the project the agent runs in, read on each event');
  else if (report.policies) out.push(`  policy:  ${report.policies.join(', ')}`);
  if (report.backup) out.push(`  backup:  ${report.backup} (the file before dshpolicy first changed it)`);
  const note = agent.install.notes.installed;
  if (note !== undefined && report.changed && !report.dryRun) out.push(`  ${style.dim(note)}`);
  if (report.trust) out.push(...trustText(report.trust, agent, !!report.dryRun, style));
  if (report.dryRun) out.push(style.dim('dry run: nothing was written'));
  return out;
}

/** Why the handler has the timeout it has (`name`: the agent's, in messages). */
function timeoutText(t: HandlerTimeout, name: string): string {
  if (t.longest === undefined) return t.capped ? `${name}'s longest: each project's policy may run hooks` : 'the policy runs no command hook';
  const slowest = `its slowest hook may run ${Math.ceil(t.longest.ms / 1000)} s`;
  return t.capped ? `${name}'s longest; ${slowest}` : slowest;
}

function trustText(t: TrustJson, agent: InstallableAgent, dryRun: boolean, style: Style): string[] {
  const out: string[] = [];
  const untrusted = t.entries.filter((e) => !e.trusted);
  const projectMissing = t.project && !t.project.trusted;
  if (t.written) {
    if (t.changed || (dryRun && t.diff)) {
      out.push(`  trust:   ${dryRun ? 'would write' : 'wrote'} ${t.entries.length} hook trust entr${t.entries.length === 1 ? 'y' : 'ies'}${t.project ? ' and the project trust' : ''} in ${t.config}`);
    } else out.push(`  trust:   already trusted in ${t.config}`);
    if (t.removed.length > 0) out.push(`           removed ${t.removed.length} old dshpolicy entr${t.removed.length === 1 ? 'y' : 'ies'}`);
    if (t.renamed.length > 0) out.push(`           moved ${t.renamed.length} entr${t.renamed.length === 1 ? 'y' : 'ies'} of other hooks that moved in the file`);
    if (t.backup) out.push(`  backup:  ${t.backup}`);
    return out;
  }
  if (untrusted.length === 0 && !projectMissing) {
    if (t.entries.length > 0) out.push(`  trust:   every dshpolicy hook is trusted in ${t.config}`);
    return out;
  }
  const steps = agent.install.trust?.steps(t);
  if (!steps) return out;
  out.push('');
  out.push(`${style.yellow(steps.why)} ${steps.how}`);
  out.push('');
  for (const block of steps.blocks) out.push(block, '');
  out.push(style.dim(steps.footnote));
  return out;
}

// ---------------------------------------------------------------------------------------------
// install

export function installCommand(argv: string[], io: Io, context: InstallContext = {}): number {
  const { values, positionals } = guard(() => parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }));
  if (values.help) {
    io.stdout.write(`${INSTALL_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const agent = agentOf(positionals, 'install');
  const problem = agentOptionProblem(agent, { http: values.http, trust: values.trust });
  if (problem !== undefined) throw new UsageError(problem);
  const target = targetOf(agent, values, context);
  const dryRun = values['dry-run'] === true;
  const plan = planInstall({
    target,
    policies: values.policy,
    http: values.http,
    trust: values.trust,
    execPath: context.execPath,
    script: context.script,
    compile: (files) => loadPolicies(files),
  });
  if (!dryRun) applyPlan(plan);
  const report = installReport(plan, dryRun);
  return emit(io, fmt, report, (style) => installText(report, plan, style), sourcesOf(plan));
}

// ---------------------------------------------------------------------------------------------
// uninstall

export function uninstallCommand(argv: string[], io: Io, context: InstallContext = {}): number {
  const { values, positionals } = guard(() => parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }));
  if (values.help) {
    io.stdout.write(`${UNINSTALL_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const agent = agentOf(positionals, 'uninstall');
  for (const opt of ['policy', 'http', 'trust'] as const) {
    if (values[opt] !== undefined) throw new UsageError(`\`--${opt}\` is for install; uninstall removes every dshpolicy entry`);
  }
  const target = targetOf(agent, values, context);
  const dryRun = values['dry-run'] === true;
  const plan = planUninstall(target);
  const hadBackup = backupOf(target.file) !== undefined;
  if (!dryRun) applyPlan(plan);
  const report = uninstallReport(plan, dryRun, hadBackup);
  return emit(io, fmt, report, (style) => uninstallText(report, plan, style), sourcesOf(plan));
}

function uninstallText(report: Report, plan: UninstallPlan, style: Style): string[] {
  const out: string[] = [];
  if (report.diff) out.push(diffText(report.diff));
  if (report.trust?.diff) out.push(diffText(report.trust.diff));
  const t = report.trust;
  const trustChanged = t !== undefined && (t.changed || (report.dryRun === true && t.diff !== undefined));
  if (!report.changed && !trustChanged) {
    out.push(`${style.green('ok')}: no dshpolicy hook in ${report.file}; nothing to remove`);
  } else {
    const verb = report.dryRun ? 'would remove' : 'removed';
    if (report.changed) out.push(`${style.green('ok')}: ${verb} the dshpolicy hook from ${report.file} (${report.events.join(', ')})`);
    if (t && trustChanged) {
      const n = t.removed.length;
      out.push(`${report.changed ? '  ' : `${style.green('ok')}: `}${verb} ${n} dshpolicy trust entr${n === 1 ? 'y' : 'ies'} from ${t.config}`);
      if (t.renamed.length > 0) out.push(`  moved ${t.renamed.length} trust entr${t.renamed.length === 1 ? 'y' : 'ies'} of other hooks that moved in the file`);
    }
  }
  if (report.backup) out.push(`  backup:  ${report.backup}${report.backupCreated ? ' (the file before this change)' : ' (kept)'}`);
  const note = plan.target.agent.install.notes.uninstalled;
  if (note !== undefined && report.changed) out.push(style.dim(`  ${note}`));
  if (report.dryRun) out.push(style.dim('dry run: nothing was written'));
  return out;
}
