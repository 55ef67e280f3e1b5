/**
 * Planning `dshpolicy install` and `dshpolicy uninstall` for any agent with an `install` part: the
 * policy and the events it needs, the handler's timeout and the hook's deadline under it, the
 * command the agent runs, the new text of the agent's hooks file, and that of its trust file when
 * it keeps one; then applying the plan. Planning reads files and writes none; everything it finds
 * wrong is a diagnostic (a refusal when it is an error: `ok` false, nothing to apply). The words
 * and files that differ between agents all come from the agent's part.
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import { diagnostic, SEAMS, type Diagnostic, type PolicyIR } from '../../engine/index.js';
import type { AgentInstall, TrustReport } from '../agent.js';
import { findDshpolicyHandlers, type JsonObject } from '../common/hooks-json.js';
import { handlerTimeout, hookDeadlineSec, hookTimeoutLints, type HandlerTimeout } from '../handler-timeout.js';
import { agentOptionProblem, messageName, requireInstallable, type InstallAgentRef } from './agent.js';
import { readText, real, writeText } from './files.js';
import { DSHPOLICY_BIN_ENV, findDshpolicy, hookCommandLine, projectHookCommand, shellQuote } from './script.js';
import { projectPolicies, type InstallTarget } from './targets.js';

/** One file a plan edits: its text when planned, and once the plan is applied. */
export interface FileEdit {
  file: string;
  /** Undefined: the file does not exist. */
  before: string | undefined;
  after: string;
  /** `after` differs from `before`: applying the plan writes it. */
  changed: boolean;
}

/** Compiles policy files into one policy; never throws (every problem is a diagnostic, an error meaning no policy). */
export type PolicyLoader = (files: string[]) => { ir?: PolicyIR | undefined; diagnostics: Diagnostic[] };

export interface InstallRequest {
  target: InstallTarget;
  /** Policy files (relative to the target's working directory). None: the project's (see `projectPolicies`), or, for a user install, whichever project the agent runs in. */
  policies?: readonly string[] | undefined;
  /** Post the events to `dshpolicy serve` at this url, for an agent with http handlers. */
  http?: string | undefined;
  /** Write the hook trust the agent needs, for an agent that keeps it (Codex). */
  trust?: boolean | undefined;
  /** The node binary a user install's command runs (default `process.execPath`). */
  execPath?: string | undefined;
  /** The dshpolicy script a user install's command runs (default `process.argv[1]`, resolved). */
  script?: string | undefined;
  /** How the policy files are compiled: the CLI passes its loader; a host can pass the library's `compileFiles`. */
  compile: PolicyLoader;
}

/** What an uninstall would change. */
export interface UninstallPlan {
  /** False: refused; `diagnostics` say why, and applying writes nothing. */
  ok: boolean;
  target: InstallTarget;
  diagnostics: Diagnostic[];
  /** The texts of the agent's files as read, for showing diagnostics in context. */
  sources: Map<string, string>;
  /** The events our handlers are (install) or were (uninstall) on. */
  events: string[];
  /** The hooks file's edit (absent when refused before it). */
  hooks?: FileEdit & { created: boolean };
  /** The trust side, for an agent that keeps hook trust: what is trusted, and the trust file's edit when it is edited. */
  trust?: { report: TrustReport; edit?: FileEdit };
}

/** What an install would change, and what it wires. */
export interface InstallPlan extends UninstallPlan {
  /** The policy files (resolved), or `project`: the project's, read by the hook on each event. */
  policies?: string[] | 'project';
  /** The handler's timeout, and why it is what it is. */
  timeout?: HandlerTimeout;
  /** The hook's deadline under it, in seconds. */
  deadline?: number;
  /** The command our handlers run (a project install's handlers add their event's name); absent when http handlers cover every event. */
  command?: string;
  /** The url our http handlers post to, and their timeout. */
  http?: { url: string; timeoutSec: number };
}

/** `events` in the agent's order (unknown ones last, by name). */
function inEventOrder(install: AgentInstall, events: Iterable<string>): string[] {
  const order = install.events;
  const rank = (e: string) => (order.indexOf(e) < 0 ? order.length : order.indexOf(e));
  return [...events].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The agent's events a policy needs: one per seam it has rules on, and the events of its agent-event hooks that the agent has. */
export function policyEvents(agentRef: InstallAgentRef, ir: PolicyIR): { events: string[]; diagnostics: Diagnostic[] } {
  const agent = requireInstallable(agentRef);
  const wanted = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const skipped = new Set<string>();
  for (const r of ir.rules) {
    if (r.seam !== 'agent-event') {
      wanted.add(agent.install.seamEvents[r.seam]);
      continue;
    }
    const event = r.hook?.event;
    if (event === undefined) continue;
    if (agent.install.hasAgentEvent(event)) wanted.add(event);
    else if (!skipped.has(event)) {
      skipped.add(event);
      diagnostics.push(
        diagnostic('install/no-such-event', 'warning', `${messageName(agent)} has no \`${event}\` event: the hooks the policy runs on it are not wired`, {
          ...(r.span ? { span: r.span } : {}),
        }),
      );
    }
  }
  return { events: inEventOrder(agent.install, wanted), diagnostics };
}

/**
 * The policy files as a project install names them: relative to the project directory when
 * they are in it, so that they are found in every checkout; others keep their absolute path,
 * which only this machine may have (a warning says so).
 */
function projectPaths(given: readonly string[], dir: string, diagnostics: Diagnostic[]): string[] {
  return given.map((file) => {
    // `dir` has its links resolved (see installTarget), so the file's must be too.
    const rel = relative(dir, real(file));
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
    diagnostics.push(
      diagnostic('install/machine-path', 'warning', `\`${file}\` is outside the project, so the committed settings name it by this machine's path`, {
        help: 'teammates need the same file at the same path; keep the policy in the project (for example in `.dshpolicy/`) instead',
      }),
    );
    return file;
  });
}

/** Whether the hooks file `source` (imported by the policy) is the file we write, or already runs our hook. */
function importsOurHook(source: string, target: string): boolean {
  if (real(source) === real(target) || source === target) return true;
  const r = readText(source);
  if (r.text === undefined) return false;
  try {
    return findDshpolicyHandlers(JSON.parse(r.text)).length > 0;
  } catch {
    return false;
  }
}

/** `plan`, refused for `diagnostics` (and those it has). */
function refused<P extends UninstallPlan>(plan: P, diagnostics: readonly Diagnostic[]): P {
  plan.ok = false;
  plan.diagnostics.push(...diagnostics);
  return plan;
}

/**
 * The trust side of a plan whose hooks file goes from `hooksBefore` to `hooksAfter`, for an agent
 * that keeps hook trust (`write`: install with `--trust`). Refuses the plan when the agent's
 * trust file cannot be read, or cannot be edited as asked.
 */
function planTrust(plan: UninstallPlan, mode: 'install' | 'uninstall', hooksBefore: string | undefined, hooksAfter: string, write: boolean): void {
  const { target } = plan;
  const part = target.agent.install.trust;
  if (!part || target.trustFile === undefined) return;
  const read = readText(target.trustFile);
  if (read.error) {
    refused(plan, [read.error]);
    return;
  }
  if (read.text !== undefined) plan.sources.set(target.trustFile, read.text);
  const trust = part.plan({
    mode,
    scope: target.scope,
    dir: target.dir,
    aliases: [target.given],
    hooksFile: target.file,
    hooksBefore,
    hooksAfter,
    file: target.trustFile,
    text: read.text,
    write,
  });
  if (!trust.ok) {
    refused(plan, trust.diagnostics);
    return;
  }
  plan.diagnostics.push(...trust.diagnostics);
  plan.trust = { report: trust.report, ...(trust.text !== undefined ? { edit: { file: target.trustFile, before: read.text, after: trust.text, changed: trust.changed } } : {}) };
}

/** Plans installing dshpolicy's hook: reads the policy and the agent's files, writes nothing. Never throws. */
export function planInstall(req: InstallRequest): InstallPlan {
  const { target } = req;
  const { agent } = target;
  const install = agent.install;
  const name = messageName(agent);
  const user = target.scope === 'user';
  const plan: InstallPlan = { ok: true, target, diagnostics: [], sources: new Map(), events: [] };
  const refuse = (...ds: Diagnostic[]) => refused(plan, ds);
  const problem = agentOptionProblem(agent, { http: req.http, trust: req.trust });
  if (problem !== undefined) return refuse(diagnostic('install/bad-option', 'error', problem));

  // A user install runs this very dshpolicy, by its paths; a project install finds it on each machine.
  const script = req.script ?? (process.argv[1] !== undefined ? resolve(process.argv[1]) : undefined);
  if (user && script === undefined) return refuse(diagnostic('install/no-script', 'error', 'cannot tell where the dshpolicy script is (process.argv[1] is not set)'));
  if (user && /[\\/]_npx[\\/]/.test(script!)) {
    plan.diagnostics.push(
      diagnostic('install/npx', 'warning', `the hook would run dshpolicy from npx's cache (\`${script}\`), which npx may delete`, {
        help: 'install dshpolicy (`npm install -g dshpolicy`, or as a dev dependency) and run install from there',
      }),
    );
  }
  const execPath = req.execPath ?? process.execPath;

  // The policy and the events it needs.
  const given = (req.policies ?? []).map((p) => resolve(target.where.cwd, p));
  let events: string[];
  let ir: PolicyIR | undefined;
  if (given.length === 0 && user) {
    events = inEventOrder(install, SEAMS.map((s) => install.seamEvents[s]));
    plan.policies = 'project';
  } else {
    const files = given.length > 0 ? given : projectPolicies(target.dir!).files;
    if (files.length === 0) {
      return refuse(
        diagnostic('install/no-policy', 'error', `no policy: there is no \`.dshpolicy/\` directory with \`*.dshpolicy\` files at or above \`${target.dir}\``, {
          help: `write one (e.g. \`${join(target.dir!, '.dshpolicy', 'policy.dshpolicy')}\`), or name the policy with \`--policy <file>\``,
        }),
      );
    }
    plan.policies = given.length > 0 ? given : 'project';
    const loaded = req.compile(files);
    if (!loaded.ir || loaded.diagnostics.some((d) => d.severity === 'error')) {
      return refuse(
        ...loaded.diagnostics.filter((d) => d.severity !== 'info'),
        diagnostic('install/policy-errors', 'error', 'the policy does not compile, so it is not installed', { help: `\`dshpolicy check ${files.map(shellQuote).join(' ')}\` says more` }),
      );
    }
    plan.diagnostics.push(...loaded.diagnostics.filter((d) => d.severity === 'warning'), ...hookTimeoutLints(loaded.ir, [agent]));
    ir = loaded.ir;
    const found = policyEvents(agent, loaded.ir);
    events = found.events;
    plan.diagnostics.push(...found.diagnostics);
    // A policy that imports the file we write would run our hook from inside our hook, forever.
    const selfImport = loaded.ir.sources.filter((s) => !s.endsWith('.dshpolicy') && importsOurHook(resolve(target.where.cwd, s), target.file));
    if (selfImport.length > 0) {
      return refuse(
        diagnostic('install/imports-itself', 'error', `the policy imports \`${selfImport[0]}\`, which runs the dshpolicy hook: the hook would run itself without end`, {
          help: `turn those hooks into rules (\`dshpolicy import ${agent.name} ${shellQuote(selfImport[0]!)} > hooks.dshpolicy\`), take them out of the file, and stop importing it`,
        }),
      );
    }
    if (events.length === 0) {
      plan.diagnostics.push(diagnostic('install/no-events', 'warning', `the policy has no rules ${name} can run, so no event is wired (and earlier dshpolicy entries are removed)`));
    }
  }
  plan.events = events;

  // The handler's timeout covers the policy's slowest hook; the hook answers by its deadline below it.
  const timeout = handlerTimeout(ir, agent);
  plan.timeout = timeout;
  plan.deadline = hookDeadlineSec(timeout.seconds);
  const hookArgs = ['--deadline', `${plan.deadline}s`];
  const command = user ? hookCommandLine(execPath, script!, agent, given, hookArgs) : projectHookCommand(agent, projectPaths(given, target.dir!, plan.diagnostics), hookArgs);
  // Each handler of a project install names its event, for the answer when dshpolicy is missing.
  const commandFor = (event: string) => (user ? command : `${command} ${event}`);
  if (!user && events.length > 0 && findDshpolicy(target.where.env, target.dir!) === undefined) {
    plan.diagnostics.push(
      diagnostic('install/not-found', 'warning', `the installed command finds no dshpolicy on this machine (\`$${DSHPOLICY_BIN_ENV}\` is not set, and there is none in a \`node_modules/.bin\` at or above \`${target.dir}\`, or on PATH): until there is one, it blocks every tool call and prompt`, {
        help: `install it (\`npm i -D dshpolicy\` in the project, or \`npm i -g dshpolicy\`), or set \`${DSHPOLICY_BIN_ENV}\` in the agent's environment to the dshpolicy executable`,
      }),
    );
  }
  const read = readText(target.file);
  if (read.error) return refuse(read.error);
  if (read.text !== undefined) plan.sources.set(target.file, read.text);

  const url = req.http;
  const http = url !== undefined ? install.http : undefined;
  const handlerFor = (event: string): JsonObject =>
    http && url !== undefined && http.accepts(event) ? http.handler(url) : install.commandHandler(commandFor(event), timeout.seconds);
  if (http && url !== undefined) {
    plan.http = { url, timeoutSec: http.timeoutSec };
    const commandOnly = events.filter((e) => !http.accepts(e));
    if (commandOnly.length > 0) {
      plan.diagnostics.push(
        diagnostic('install/command-fallback', 'info', `${name} runs no http hooks on ${commandOnly.map((e) => `\`${e}\``).join(', ')}: the command hook is wired there instead`),
      );
      plan.command = command;
    }
  } else plan.command = command;
  const edit = install.planInstall(read.text, target.file, install.groups(events, handlerFor));
  plan.diagnostics.push(...edit.diagnostics);
  if (!edit.ok) return refuse();
  plan.hooks = { file: target.file, before: read.text, after: edit.text, changed: edit.changed, created: edit.created };

  planTrust(plan, 'install', read.text, edit.text, req.trust === true);
  return plan;
}

/** Plans removing dshpolicy's hook (and, for an agent that keeps hook trust, our trust entries): reads, writes nothing. Never throws. */
export function planUninstall(target: InstallTarget): UninstallPlan {
  const install = target.agent.install;
  const plan: UninstallPlan = { ok: true, target, diagnostics: [], sources: new Map(), events: [] };
  const refuse = (...ds: Diagnostic[]) => refused(plan, ds);
  const read = readText(target.file);
  if (read.error) return refuse(read.error);
  if (read.text !== undefined) plan.sources.set(target.file, read.text);
  const edit = install.planUninstall(read.text, target.file);
  plan.diagnostics.push(...edit.diagnostics);
  if (!edit.ok) return refuse();
  plan.events = [...new Set(edit.before.map((o) => o.event))];
  plan.hooks = { file: target.file, before: read.text, after: edit.text, changed: edit.changed, created: edit.created };

  planTrust(plan, 'uninstall', read.text, edit.text, false);
  return plan;
}

/**
 * Writes what a plan changes, the hooks file first (nothing when the plan was refused), keeping
 * each file as it was before dshpolicy first changed it (see `backupOf`). Throws what the file
 * system throws.
 */
export function applyPlan(plan: UninstallPlan): void {
  if (!plan.ok) return;
  for (const edit of [plan.hooks, plan.trust?.edit]) {
    if (edit?.changed) writeText(edit.file, edit.before !== undefined, edit.after);
  }
}
