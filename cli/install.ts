/**
 * `dshpolicy install claude|codex` and `dshpolicy uninstall claude|codex`: wire `dshpolicy hook`
 * into an agent's hooks configuration (Claude Code's settings.json, Codex's hooks.json), for every
 * event the policy uses, and take it out again. Our handlers carry `"statusMessage": "dshpolicy"`,
 * which is how they are found again; nothing else in the file changes. For Codex, the hooks must
 * also be trusted in `$CODEX_HOME/config.toml`: printed as a step, or written with `--trust`.
 */
import { accessSync, constants as fsConstants, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { agentEventInfo, diagnostic, isHttpUrl, SEAMS, type Diagnostic, type PolicyIR, type Seam } from '../engine/index.js';
import {
  CLAUDE_EVENTS,
  CODEX_EVENTS,
  allowedHandlerTypes,
  claudeCommandHandler,
  claudeHttpHandler,
  claudeWantedGroups,
  codexCommandHandler,
  codexHookStates,
  codexHooksDisabled,
  codexKeyMoves,
  codexProjectTrusted,
  codexTrustEntries,
  codexWantedGroups,
  findDshpolicyHandlers,
  handlerTimeout,
  hookDeadlineSec,
  hookTimeoutLints,
  planClaudeInstall,
  planClaudeUninstall,
  planCodexConfig,
  planCodexInstall,
  planCodexUninstall,
  projectTrustText,
  trustEntryText,
  type CodexConfigEdit,
  type CodexTrustEntry,
  type HandlerTimeout,
  type HooksJsonEdit,
  type JsonObject,
} from '../bridges/index.js';
import { MAX_HANDLER_TIMEOUT_SEC } from '../bridges/hook.js';
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

type Agent = 'claude' | 'codex';
const AGENTS: readonly Agent[] = ['claude', 'codex'];
const AGENT_NAME: Record<Agent, string> = { claude: 'claude code', codex: 'codex' };

/** What the commands take from their surroundings; tests pass their own. */
export interface InstallContext {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The node binary the hook command runs (default `process.execPath`). */
  execPath?: string;
  /** The dshpolicy script the hook command runs (default `process.argv[1]`, resolved). */
  script?: string;
}

/** The seam -> agent event map: every event a policy written in the language can need. */
export const SEAM_EVENTS: Record<Seam, string> = {
  'pre-tool': 'PreToolUse',
  'post-tool': 'PostToolUse',
  prompt: 'UserPromptSubmit',
  stop: 'Stop',
  'session-start': 'SessionStart',
};

export const BACKUP_SUFFIX = '.dshpolicy-backup';

/** One shell word: single quotes, each embedded `'` written as `'\''`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command a user install has the agent run: this node, then the bundled hook executable
 * beside this dshpolicy script (`hook.cjs <agent>`, which starts faster than the whole CLI) or
 * else the script with `hook <agent>`, then the hook's arguments and the policies. It holds this
 * machine's paths, which is what a user's own settings may do.
 */
export function hookCommandLine(execPath: string, script: string, agent: Agent, policies: readonly string[], hookArgs: readonly string[] = []): string {
  const hookBin = join(dirname(script), 'hook.cjs');
  const run = script !== hookBin && existsSync(hookBin) ? [shellQuote(hookBin), agent] : [shellQuote(script), 'hook', agent];
  // The hook's own arguments are words of ours (`--deadline 25s`), quoted only if they need it.
  const word = (w: string) => (/^[\w./:=@%+-]+$/.test(w) ? w : shellQuote(w));
  return [shellQuote(execPath), ...run, ...hookArgs.map(word), ...policies.flatMap((p) => ['--policy', shellQuote(p)])].join(' ');
}

/** The variable naming the dshpolicy executable, for a machine where it is neither in the project nor on PATH. */
export const DSHPOLICY_BIN_ENV = 'DSHPOLICY_BIN';

/** What the project command says when no dshpolicy can be found on the machine. */
export const NOT_INSTALLED = `dshpolicy is not installed: npm i -g dshpolicy (or npm i -D dshpolicy in the project, or set ${DSHPOLICY_BIN_ENV} to its path)`;

/**
 * The script of a project install (run by `/bin/sh -c`, whatever shell the agent runs its hook
 * commands with). It holds no path of this machine, so that the project's committed settings work
 * on every teammate's: it finds the project directory (Claude Code's `$CLAUDE_PROJECT_DIR`; for
 * Codex the nearest directory at or above the session's that has `.codex/hooks.json`), then
 * dshpolicy: `$DSHPOLICY_BIN`, else the nearest `node_modules/.bin/dshpolicy` at or above the
 * project, else `dshpolicy` on PATH. When there is none, or it cannot start (exit 126 or 127: a
 * missing node behind its `#!/usr/bin/env node`), it must not read as "no opinion", which is what
 * the agents make of any exit but 0 and 2: it says why on stderr and blocks with exit 2; on a stop
 * it ends the turn instead (an exit 2 there would make the agent go on, and Codex has no cap on
 * that). The event's name is the script's last argument; the policies (relative to the project
 * directory, or absolute) come before it.
 *
 * The script holds no `'` and no two backslashes in a row (inside single quotes fish reads `\'`
 * and `\\`), so the single-quoted word holding it means the same to sh, bash, zsh and fish.
 */
export function projectHookScript(agent: Agent, hookArgs: readonly string[], withPolicies: boolean): string {
  const up = 'case $d in */*) d=${d%/*};; *) d=;; esac';
  const root =
    agent === 'claude'
      ? 'r=${CLAUDE_PROJECT_DIR:-$PWD}'
      : `r=$PWD; d=$PWD; while [ -n "$d" ]; do if [ -f "$d/.codex/hooks.json" ]; then r=$d; break; fi; ${up}; done`;
  const find = [
    `b=\${${DSHPOLICY_BIN_ENV}:-}; d=$r`,
    `while [ -z "$b" ] && [ -n "$d" ]; do x=$d/node_modules/.bin/dshpolicy; if [ -f "$x" ] && [ -x "$x" ]; then b=$x; fi; ${up}; done`,
    '[ -n "$b" ] || b=$(command -v dshpolicy) || b=',
  ];
  const args = withPolicies
    ? [
        // The event is the last argument; each policy before it becomes `--policy <path>`.
        'for e do :; done; n=$(($# - 1))',
        'while [ "$n" -gt 0 ]; do case $1 in /*) p=$1;; *) p=$r/$1;; esac; set -- "$@" --policy "$p"; shift; n=$((n - 1)); done; shift',
      ]
    : ['e=$1'];
  const hook = ['"$b"', 'hook', agent, ...hookArgs, ...(withPolicies ? ['"$@"'] : [])].join(' ');
  const notStarted = `dshpolicy could not start (exit $s): is node on PATH? (npm i -g dshpolicy, or set ${DSHPOLICY_BIN_ENV} to its path)`;
  const answer = [
    `if [ -n "$b" ]; then ${hook}; s=$?; if [ "$s" -ne 126 ] && [ "$s" -ne 127 ]; then exit "$s"; fi; m="${notStarted}"; else m="${NOT_INSTALLED}"; fi`,
    'echo "$m" >&2',
    'case $e in Stop|SubagentStop) printf "{\\"continue\\":false,\\"stopReason\\":\\"%s\\"}\\n" "$m"; exit 0;; esac',
    'exit 2',
  ];
  return [root, ...find, ...args, ...answer].join('; ');
}

/**
 * The command a project install writes, to which each handler adds its event's name as the last
 * word: `/bin/sh -c '<script>' dshpolicy [<policy>...]`.
 */
export function projectHookCommand(agent: Agent, policies: readonly string[], hookArgs: readonly string[] = []): string {
  return ['/bin/sh', '-c', shellQuote(projectHookScript(agent, hookArgs, policies.length > 0)), 'dshpolicy', ...policies.map(shellQuote)].join(' ');
}

/**
 * The dshpolicy the project command would run on this machine, from `start` (the project
 * directory), or undefined when it would find none: as the script looks, without running it.
 */
export function findDshpolicy(env: NodeJS.ProcessEnv, start: string): string | undefined {
  const given = env[DSHPOLICY_BIN_ENV];
  if (given) return given;
  const runnable = (p: string) => {
    try {
      accessSync(p, fsConstants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const local = join(dir, 'node_modules', '.bin', 'dshpolicy');
    if (runnable(local)) return local;
    if (dirname(dir) === dir) break;
  }
  for (const entry of (env['PATH'] ?? '').split(':')) {
    const onPath = join(entry === '' ? '.' : entry, 'dshpolicy');
    if (runnable(onPath)) return onPath;
  }
  return undefined;
}

function eventOrder(agent: Agent): readonly string[] {
  return agent === 'claude' ? CLAUDE_EVENTS : CODEX_EVENTS.map((e) => e.name);
}

/** The agent's events a policy needs: one per seam it has rules on, and the events of its agent-event hooks. */
export function policyEvents(agent: Agent, ir: PolicyIR): { events: string[]; diagnostics: Diagnostic[] } {
  const wanted = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const skipped = new Set<string>();
  for (const r of ir.rules) {
    if (r.seam !== 'agent-event') {
      wanted.add(SEAM_EVENTS[r.seam]);
      continue;
    }
    const event = r.hook?.event;
    if (event === undefined) continue;
    if (agentEventInfo(agent, event)) wanted.add(event);
    else if (!skipped.has(event)) {
      skipped.add(event);
      diagnostics.push(
        diagnostic('install/no-such-event', 'warning', `${AGENT_NAME[agent]} has no \`${event}\` event: the hooks the policy runs on it are not wired`, {
          ...(r.span ? { span: r.span } : {}),
        }),
      );
    }
  }
  const order = eventOrder(agent);
  const rank = (e: string) => (order.indexOf(e) < 0 ? order.length : order.indexOf(e));
  return { events: [...wanted].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)), diagnostics };
}

/** The project's policy: every `*.dshpolicy` in the nearest `.dshpolicy/` at or above `start`, sorted (as `dshpolicy hook` finds it). */
export function projectPolicies(start: string): { dir?: string; files: string[] } {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const candidate = join(dir, '.dshpolicy');
    try {
      if (statSync(candidate).isDirectory()) {
        return { dir: candidate, files: readdirSync(candidate).filter((f) => f.endsWith('.dshpolicy')).sort().map((f) => join(candidate, f)) };
      }
    } catch {
      // not here
    }
    if (dirname(dir) === dir) return { files: [] };
  }
}

// ---------------------------------------------------------------------------------------------
// Files

type Read = { text: string | undefined; error?: Diagnostic };

function readConfig(file: string): Read {
  try {
    if (statSync(file).isDirectory()) return { text: undefined, error: diagnostic('install/unreadable', 'error', `\`${file}\` is a directory`) };
    return { text: readFileSync(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { text: undefined };
    return { text: undefined, error: diagnostic('install/unreadable', 'error', `cannot read \`${file}\` (${code ?? 'error'})`, { help: 'check its permissions' }) };
  }
}

/** Writes `text` over `file` (following a symlink, keeping its mode), first keeping the file as it was in the backup if there is none yet. */
function writeConfig(file: string, existed: boolean, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const backup = file + BACKUP_SUFFIX;
  if (existed && !existsSync(backup)) copyFileSync(file, backup);
  writeFileSync(file, text);
}

function backupOf(file: string): string | undefined {
  return existsSync(file + BACKUP_SUFFIX) ? file + BACKUP_SUFFIX : undefined;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

// ---------------------------------------------------------------------------------------------
// Where

interface Target {
  agent: Agent;
  scope: 'project' | 'user';
  /** The project directory (resolved, links followed), for --project. */
  dir?: string;
  /** The settings.json / hooks.json to edit. */
  file: string;
  /** Codex: the user config holding hook and project trust. */
  config?: string;
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env['HOME'] || homedir();
}

function targetOf(agent: Agent, values: { project?: string; user?: boolean }, ctx: Required<Pick<InstallContext, 'env' | 'cwd'>>): Target {
  if (values.user && values.project !== undefined) throw new UsageError('`--project` and `--user` name different files; give one');
  const env = ctx.env;
  const codexHome = env['CODEX_HOME'] ? real(resolve(ctx.cwd, env['CODEX_HOME'])) : join(resolve(homeOf(env)), '.codex');
  const config = agent === 'codex' ? join(codexHome, 'config.toml') : undefined;
  if (values.user) {
    const file =
      agent === 'claude' ? join(env['CLAUDE_CONFIG_DIR'] ? resolve(ctx.cwd, env['CLAUDE_CONFIG_DIR']) : join(resolve(homeOf(env)), '.claude'), 'settings.json') : join(codexHome, 'hooks.json');
    return { agent, scope: 'user', file, ...(config ? { config } : {}) };
  }
  const given = resolve(ctx.cwd, values.project ?? '.');
  let isDir = false;
  try {
    isDir = statSync(given).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`\`${values.project ?? given}\` is not a directory`);
  // Codex keys trust by the path it sees, and it sees the working directory with links resolved.
  const dir = real(given);
  const file = join(dir, agent === 'claude' ? '.claude' : '.codex', agent === 'claude' ? 'settings.json' : 'hooks.json');
  return { agent, scope: 'project', dir, file, ...(config ? { config } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Output

interface Report {
  ok: boolean;
  agent: Agent;
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
  trust?: TrustReport;
  diagnostics: Diagnostic[];
}

interface TrustReport {
  config: string;
  /** `--trust` (install) or uninstall: the config is edited. */
  written: boolean;
  changed: boolean;
  backup?: string;
  entries: { key: string; trusted_hash: string; trusted: boolean }[];
  removed: string[];
  renamed: [string, string][];
  project?: { dir: string; trusted: boolean };
  diff?: string;
}

function emit(io: Io, fmt: string, report: Report, human: (style: Style) => string[], sources: SourceCache): number {
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

// ---------------------------------------------------------------------------------------------
// install

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

function agentOf(positionals: string[], verb: string): Agent {
  const [word, ...extra] = positionals;
  if (word === undefined) throw new UsageError(`name the agent to ${verb}: \`claude\` or \`codex\``);
  if (!(AGENTS as readonly string[]).includes(word)) throw new UsageError(`unknown agent \`${word}\`; use \`claude\` or \`codex\``);
  if (extra.length > 0) throw new UsageError(`unexpected \`${extra[0]}\`; name policy files with \`--policy\``);
  return word as Agent;
}

/** What install and uninstall both start with: the target file, the report, and how to refuse. */
function startRun(agent: Agent, values: Parameters<typeof targetOf>[1] & { 'dry-run'?: boolean }, context: InstallContext, io: Io, fmt: Format) {
  const ctx = { env: context.env ?? process.env, cwd: context.cwd ?? process.cwd() };
  const target = targetOf(agent, values, ctx);
  const sources = new SourceCache();
  const dryRun = values['dry-run'] === true;
  const report: Report = { ok: true, agent, scope: target.scope, file: target.file, changed: false, events: [], diagnostics: [] };
  if (dryRun) report.dryRun = true;
  const refuse = (...ds: Diagnostic[]) => {
    report.ok = false;
    report.diagnostics.push(...ds);
    return emit(io, fmt, report, () => [], sources);
  };
  return { ctx, target, sources, dryRun, report, refuse };
}

export function installCommand(argv: string[], io: Io, context: InstallContext = {}): number {
  const { values, positionals } = guard(() => parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }));
  if (values.help) {
    io.stdout.write(`${INSTALL_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const agent = agentOf(positionals, 'install');
  if (values.http !== undefined && agent !== 'claude') throw new UsageError('`--http` is for claude code only; codex runs command hooks only');
  if (values.trust && agent !== 'codex') throw new UsageError('`--trust` is for codex; claude code asks to trust a project itself');
  if (values.http !== undefined && !isHttpUrl(values.http)) throw new UsageError(`\`${values.http}\` is not an http(s) url`);
  const { ctx, target, sources, dryRun, report, refuse } = startRun(agent, values, context, io, fmt);

  // A user install runs this very dshpolicy, by its paths; a project install finds it on each machine.
  const script = context.script ?? (process.argv[1] !== undefined ? resolve(process.argv[1]) : undefined);
  if (target.scope === 'user' && script === undefined) return refuse(diagnostic('install/no-script', 'error', 'cannot tell where the dshpolicy script is (process.argv[1] is not set)'));
  if (target.scope === 'user' && /[\\/]_npx[\\/]/.test(script!)) {
    report.diagnostics.push(
      diagnostic('install/npx', 'warning', `the hook would run dshpolicy from npx's cache (\`${script}\`), which npx may delete`, {
        help: 'install dshpolicy (`npm install -g dshpolicy`, or as a dev dependency) and run install from there',
      }),
    );
  }
  const execPath = context.execPath ?? process.execPath;

  // The policy and the events it needs.
  const given = (values.policy ?? []).map((p) => resolve(ctx.cwd, p));
  let events: string[];
  let ir: PolicyIR | undefined;
  if (given.length === 0 && target.scope === 'user') {
    events = SEAMS.map((s) => SEAM_EVENTS[s]);
    const order = eventOrder(agent);
    events.sort((a, b) => order.indexOf(a) - order.indexOf(b));
    report.policies = 'project';
  } else {
    const files = given.length > 0 ? given : projectPolicies(target.dir!).files;
    if (files.length === 0) {
      return refuse(
        diagnostic('install/no-policy', 'error', `no policy: there is no \`.dshpolicy/\` directory with \`*.dshpolicy\` files at or above \`${target.dir}\``, {
          help: `write one (e.g. \`${join(target.dir!, '.dshpolicy', 'policy.dshpolicy')}\`), or name the policy with \`--policy <file>\``,
        }),
      );
    }
    report.policies = given.length > 0 ? given : 'project';
    const loaded = loadPolicies(files);
    if (!loaded.ir || loaded.diagnostics.some((d) => d.severity === 'error')) {
      return refuse(
        ...loaded.diagnostics.filter((d) => d.severity !== 'info'),
        diagnostic('install/policy-errors', 'error', 'the policy does not compile, so it is not installed', { help: `\`dshpolicy check ${files.map(shellQuote).join(' ')}\` says more` }),
      );
    }
    report.diagnostics.push(...loaded.diagnostics.filter((d) => d.severity === 'warning'), ...hookTimeoutLints(loaded.ir, [agent]));
    ir = loaded.ir;
    const found = policyEvents(agent, loaded.ir);
    events = found.events;
    report.diagnostics.push(...found.diagnostics);
    // A policy that imports the file we write would run our hook from inside our hook, forever.
    const selfImport = loaded.ir.sources.filter((s) => !s.endsWith('.dshpolicy') && importsOurHook(resolve(ctx.cwd, s), target.file));
    if (selfImport.length > 0) {
      return refuse(
        diagnostic('install/imports-itself', 'error', `the policy imports \`${selfImport[0]}\`, which runs the dshpolicy hook: the hook would run itself without end`, {
          help: `turn those hooks into rules (\`dshpolicy import ${agent} ${shellQuote(selfImport[0]!)} > hooks.dshpolicy\`), take them out of the file, and stop importing it`,
        }),
      );
    }
    if (events.length === 0) {
      report.diagnostics.push(diagnostic('install/no-events', 'warning', `the policy has no rules ${AGENT_NAME[agent]} can run, so no event is wired (and earlier dshpolicy entries are removed)`));
    }
  }
  report.events = events;

  // The handler's timeout covers the policy's slowest hook; the hook answers by its deadline below it.
  const timeout = handlerTimeout(ir, agent);
  report.timeout = timeout.seconds;
  report.deadline = hookDeadlineSec(timeout.seconds);
  const hookArgs = ['--deadline', `${report.deadline}s`];
  const command = target.scope === 'user' ? hookCommandLine(execPath, script!, agent, given, hookArgs) : projectHookCommand(agent, projectPaths(given, target.dir!, report), hookArgs);
  // Each handler of a project install names its event, for the answer when dshpolicy is missing.
  const commandFor = (event: string) => (target.scope === 'user' ? command : `${command} ${event}`);
  if (target.scope === 'project' && events.length > 0 && findDshpolicy(ctx.env, target.dir!) === undefined) {
    report.diagnostics.push(
      diagnostic('install/not-found', 'warning', `the installed command finds no dshpolicy on this machine (\`$${DSHPOLICY_BIN_ENV}\` is not set, and there is none in a \`node_modules/.bin\` at or above \`${target.dir}\`, or on PATH): until there is one, it blocks every tool call and prompt`, {
        help: `install it (\`npm i -D dshpolicy\` in the project, or \`npm i -g dshpolicy\`), or set \`${DSHPOLICY_BIN_ENV}\` in the agent's environment to the dshpolicy executable`,
      }),
    );
  }
  const read = readConfig(target.file);
  if (read.error) return refuse(read.error);
  if (read.text !== undefined) sources.set(target.file, read.text);

  let plan: HooksJsonEdit;
  if (agent === 'claude') {
    const http = values.http;
    // `dshpolicy serve` decides with its own policy, by its own deadline (the agent's default less
    // the margin): its handlers get the agent's longest timeout, which that deadline fits.
    const handlerFor = (event: string): JsonObject =>
      http !== undefined && allowedHandlerTypes(event).includes('http') ? claudeHttpHandler(http, MAX_HANDLER_TIMEOUT_SEC.claude) : claudeCommandHandler(commandFor(event), timeout.seconds);
    if (http !== undefined) {
      report.http = http;
      const commandOnly = events.filter((e) => !allowedHandlerTypes(e).includes('http'));
      if (commandOnly.length > 0) {
        report.diagnostics.push(
          diagnostic('install/command-fallback', 'info', `claude code runs no http hooks on ${commandOnly.map((e) => `\`${e}\``).join(', ')}: the command hook is wired there instead`),
        );
      }
      if (commandOnly.length > 0) report.command = command;
    } else report.command = command;
    plan = planClaudeInstall(read.text, target.file, claudeWantedGroups(events, handlerFor));
  } else {
    report.command = command;
    plan = planCodexInstall(read.text, target.file, codexWantedGroups(events, (event) => codexCommandHandler(commandFor(event), timeout.seconds)));
  }
  report.diagnostics.push(...plan.diagnostics);
  if (!plan.ok) return refuse();
  report.changed = plan.changed;
  if (plan.created) report.created = true;
  if (dryRun && plan.changed) report.diff = unifiedDiff(read.text ?? '', plan.text, read.text === undefined ? '/dev/null' : target.file, target.file);

  let trust: TrustReport | undefined;
  let trustPlan: CodexConfigEdit | undefined;
  let configRead: Read | undefined;
  if (agent === 'codex') {
    configRead = readConfig(target.config!);
    if (configRead.error) return refuse(configRead.error);
    if (configRead.text !== undefined) sources.set(target.config!, configRead.text);
    const disabled = codexHooksDisabled(configRead.text, target.config!);
    if (disabled) report.diagnostics.push(disabled);
    const built = codexTrust(target, read.text, plan.text, configRead.text, { write: values.trust === true, trustProject: values.trust === true && target.scope === 'project', aliases: [resolve(ctx.cwd, values.project ?? '.')] });
    trust = built.report;
    // a dry run writes nothing, trust entries included
    if (dryRun) trust.written = false;
    trustPlan = built.plan;
    if (trustPlan && !trustPlan.ok) return refuse(...trustPlan.diagnostics);
    report.diagnostics.push(...built.diagnostics);
    if (dryRun && trustPlan?.changed) trust.diff = unifiedDiff(configRead.text ?? '', trustPlan.text, configRead.text === undefined ? '/dev/null' : target.config!, target.config!);
    report.trust = trust;
  }

  if (!dryRun) {
    if (plan.changed) writeConfig(target.file, read.text !== undefined, plan.text);
    if (trust && trustPlan?.changed) {
      writeConfig(target.config!, configRead!.text !== undefined, trustPlan.text);
      trust.changed = true;
    }
  }
  const backup = backupOf(target.file);
  if (backup && (dryRun ? read.text !== undefined : true)) report.backup = backup;
  if (trust) {
    const b = backupOf(trust.config);
    if (b) trust.backup = b;
  }

  return emit(io, fmt, report, (style) => installText(report, plan, timeoutText(timeout, agent), style), sources);
}

/**
 * The `--policy` files as a project install names them: relative to the project directory when
 * they are in it, so that they are found in every checkout; others keep their absolute path,
 * which only this machine may have (a warning says so).
 */
function projectPaths(given: readonly string[], dir: string, report: Report): string[] {
  return given.map((file) => {
    // `dir` has its links resolved (see targetOf), so the file's must be too.
    const rel = relative(dir, real(file));
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
    report.diagnostics.push(
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
  const r = readConfig(source);
  if (r.text === undefined) return false;
  try {
    return findDshpolicyHandlers(JSON.parse(r.text)).length > 0;
  } catch {
    return false;
  }
}

function codexTrust(
  target: Target,
  before: string | undefined,
  after: string,
  configText: string | undefined,
  opts: { write: boolean; trustProject: boolean; aliases: string[]; uninstall?: boolean },
): { report: TrustReport; plan?: CodexConfigEdit; diagnostics: Diagnostic[] } {
  const keySource = target.file;
  const was = codexTrustEntries(before, keySource);
  const now = opts.uninstall ? [] : codexTrustEntries(after, keySource);
  const moves = codexKeyMoves(before, after, keySource);
  const ourKeys = new Set([...was, ...now].map((e) => e.key));
  const ourHashes = new Set([...was, ...now].map((e) => e.hash));
  const isOurs = (key: string, hash: unknown) => key.startsWith(`${keySource}:`) && (ourKeys.has(key) || (typeof hash === 'string' && ourHashes.has(hash)));
  const states = codexHookStates(configText);
  const diagnostics: Diagnostic[] = [];
  const report: TrustReport = { config: target.config!, written: opts.write, changed: false, entries: [], removed: [], renamed: [] };
  let plan: CodexConfigEdit | undefined;
  if (opts.write) {
    plan = planCodexConfig(configText, target.config!, {
      add: now,
      isOurs,
      renames: moves,
      ...(opts.trustProject && target.dir ? { trustProject: target.dir, projectAliases: opts.aliases } : {}),
    });
    if (plan.ok) {
      report.changed = plan.changed;
      report.removed = plan.removed;
      report.renamed = plan.renamed;
    }
  }
  const trustedNow = (e: CodexTrustEntry) => {
    if (plan?.ok) return true;
    const s = states.get(e.key);
    return s?.trustedHash === e.hash && s.enabled !== false;
  };
  report.entries = now.map((e) => ({ key: e.key, trusted_hash: e.hash, trusted: trustedNow(e) }));
  if (target.scope === 'project' && target.dir && !opts.uninstall) {
    const trusted = plan?.ok && plan.projectTrusted !== undefined ? true : codexProjectTrusted(configText, [target.dir, ...opts.aliases]);
    report.project = { dir: target.dir, trusted };
  }
  if (!opts.write) {
    // Other hooks that moved keep their trust only if their entries move with them.
    const stranded = [...moves].filter(([from]) => states.has(from));
    if (stranded.length > 0) {
      diagnostics.push(
        diagnostic('install/trust-moved', 'warning', `other hooks in \`${keySource}\` moved, so codex no longer finds their trust entries`, {
          help: `in \`${target.config}\`, rename ${stranded.map(([a, b]) => `\`${a}\` to \`${b}\``).join(', ')} (or rerun with \`--trust\`, which does it)`,
        }),
      );
    }
  }
  return { report, ...(plan ? { plan } : {}), diagnostics };
}

/**
 * A --dry-run diff for the terminal: the configuration may be the repository's, so what it holds
 * is escaped (untrusted.ts), its lines kept.
 */
function diffText(diff: string): string {
  return terminalSafe(diff.trimEnd(), 'block');
}

function installText(report: Report, plan: HooksJsonEdit, timeoutNote: string, style: Style): string[] {
  const out: string[] = [];
  const name = AGENT_NAME[report.agent];
  if (report.diff) out.push(diffText(report.diff));
  if (report.trust?.diff) out.push(diffText(report.trust.diff));
  const verb = report.dryRun ? 'would install' : 'installed';
  if (!report.changed) {
    out.push(`${style.green('ok')}: the dshpolicy hook is already installed in ${report.file}; nothing to change`);
  } else if (report.events.length === 0) {
    out.push(`${style.green('ok')}: ${report.dryRun ? 'would remove' : 'removed'} the dshpolicy hook from ${report.file} (the policy uses no event)`);
  } else {
    out.push(`${style.green('ok')}: ${verb} the dshpolicy hook for ${name} in ${report.file}${plan.created ? ' (a new file)' : ''}`);
  }
  if (report.events.length > 0) out.push(`  events:  ${report.events.join(', ')}`);
  if (report.http) out.push(`  url:     ${report.http} (timeout ${MAX_HANDLER_TIMEOUT_SEC.claude} s: \`dshpolicy serve\` answers by its own deadline)`);
  if (report.command) out.push(`  command: ${report.command}${report.scope === 'project' ? ' <event>' : ''}`);
  if (report.command && report.scope === 'project') {
    out.push(`           runs $${DSHPOLICY_BIN_ENV}, else the nearest node_modules/.bin/dshpolicy at or above the project, else dshpolicy on PATH; blocks when there is none`);
  }
  if (report.timeout !== undefined && report.command !== undefined && report.events.length > 0) out.push(`  timeout: ${report.timeout} s (${timeoutNote}; the hook answers by ${report.deadline} s)`);
  if (report.policies === 'project') out.push('  policy:  every *.dshpolicy in the nearest .dshpolicy/ at or above the project the agent runs in, read on each event');
  else if (report.policies) out.push(`  policy:  ${report.policies.join(', ')}`);
  if (report.backup) out.push(`  backup:  ${report.backup} (the file before dshpolicy first changed it)`);
  if (report.agent === 'claude' && report.changed && !report.dryRun) out.push(`  ${style.dim('claude code reads the file at start: restart running sessions (or review the hooks with /hooks)')}`);
  if (report.trust) out.push(...trustText(report.trust, !!report.dryRun, style));
  if (report.dryRun) out.push(style.dim('dry run: nothing was written'));
  return out;
}

/** Why the handler has the timeout it has. */
function timeoutText(t: HandlerTimeout, agent: Agent): string {
  if (t.longest === undefined) return t.capped ? `${AGENT_NAME[agent]}'s longest: each project's policy may run hooks` : 'the policy runs no command hook';
  const slowest = `its slowest hook may run ${Math.ceil(t.longest.ms / 1000)} s`;
  return t.capped ? `${AGENT_NAME[agent]}'s longest; ${slowest}` : slowest;
}

function trustText(t: TrustReport, dryRun: boolean, style: Style): string[] {
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
  out.push('');
  out.push(`${style.yellow('codex runs hooks only once they are trusted.')} Review them with /hooks in codex, rerun with --trust, or add to ${t.config}:`);
  out.push('');
  if (projectMissing) {
    out.push(`# the project: codex reads ${t.project!.dir}/.codex/ only in a trusted project`);
    out.push(projectTrustText(t.project!.dir).trimEnd());
    out.push('');
  }
  for (const e of untrusted) {
    out.push(trustEntryText({ key: e.key, hash: e.trusted_hash }).trimEnd());
    out.push('');
  }
  out.push(style.dim('(the hash changes with the command, so install again after changing --policy; codex then needs the new entries)'));
  return out;
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
  const { target, sources, dryRun, report, refuse } = startRun(agent, values, context, io, fmt);
  const read = readConfig(target.file);
  if (read.error) return refuse(read.error);
  if (read.text !== undefined) sources.set(target.file, read.text);
  const plan = agent === 'claude' ? planClaudeUninstall(read.text, target.file) : planCodexUninstall(read.text, target.file);
  report.diagnostics.push(...plan.diagnostics);
  if (!plan.ok) return refuse();
  report.changed = plan.changed;
  report.events = [...new Set(plan.before.map((o) => o.event))];
  if (dryRun && plan.changed) report.diff = unifiedDiff(read.text ?? '', plan.text, target.file, target.file);

  let trustPlan: CodexConfigEdit | undefined;
  let configRead: Read | undefined;
  if (agent === 'codex') {
    configRead = readConfig(target.config!);
    if (configRead.error) return refuse(configRead.error);
    if (configRead.text !== undefined) sources.set(target.config!, configRead.text);
    const built = codexTrust(target, read.text, plan.text, configRead.text, { write: configRead.text !== undefined, trustProject: false, aliases: [], uninstall: true });
    trustPlan = built.plan;
    if (trustPlan && !trustPlan.ok) {
      // The hook still goes; its trust entries stay behind, unused, and the user is told.
      report.diagnostics.push(
        ...trustPlan.diagnostics.map((d) => ({ ...d, severity: 'warning' as const })),
        diagnostic('install/trust-left', 'warning', `the dshpolicy trust entries in \`${target.config}\` were left there (codex ignores entries that match no hook)`),
      );
      trustPlan = undefined;
      built.report.written = false;
    }
    report.trust = built.report;
    if (dryRun && trustPlan?.changed) report.trust.diff = unifiedDiff(configRead.text ?? '', trustPlan.text, target.config!, target.config!);
  }
  const hadBackup = backupOf(target.file) !== undefined;
  if (!dryRun) {
    if (plan.changed) writeConfig(target.file, true, plan.text);
    if (trustPlan?.changed) writeConfig(target.config!, true, trustPlan.text);
    if (report.trust && trustPlan?.changed) report.trust.changed = true;
  }
  const backup = backupOf(target.file);
  if (backup) report.backup = backup;
  if (backup && !hadBackup) report.backupCreated = true;
  if (report.trust) {
    const b = backupOf(report.trust.config);
    if (b) report.trust.backup = b;
  }
  return emit(io, fmt, report, (style) => uninstallText(report, style), sources);
}

function uninstallText(report: Report, style: Style): string[] {
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
  if (report.agent === 'codex' && report.changed) out.push(style.dim('  a project trusted for codex stays trusted; remove its [projects."<dir>"] entry yourself if dshpolicy was the reason'));
  if (report.dryRun) out.push(style.dim('dry run: nothing was written'));
  return out;
}
