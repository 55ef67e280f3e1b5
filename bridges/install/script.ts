/**
 * The commands `dshpolicy install` has an agent run on each event. A user install's holds this
 * machine's paths (this node, this dshpolicy); a project install's holds none, so that the
 * project's committed settings work on every teammate's machine: a `/bin/sh` script that finds
 * the project directory (as the agent's `projectRoot` says), then dshpolicy, and answers for it,
 * fail-closed, when there is none. Also: finding, as that script would, the dshpolicy it would run
 * here, for the warning when there is none. Pure strings, but for that look-up.
 */
import { accessSync, constants as fsConstants, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { requireInstallable, type InstallAgentRef } from './agent.js';

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
export function hookCommandLine(execPath: string, script: string, agent: InstallAgentRef, policies: readonly string[], hookArgs: readonly string[] = []): string {
  const name = typeof agent === 'string' ? agent : agent.name;
  const hookBin = join(dirname(script), 'hook.cjs');
  const run = script !== hookBin && existsSync(hookBin) ? [shellQuote(hookBin), name] : [shellQuote(script), 'hook', name];
  // The hook's own arguments are words of ours (`--deadline 25s`), quoted only if they need it.
  const word = (w: string) => (/^[\w./:=@%+-]+$/.test(w) ? w : shellQuote(w));
  return [shellQuote(execPath), ...run, ...hookArgs.map(word), ...policies.flatMap((p) => ['--policy', shellQuote(p)])].join(' ');
}

/** The variable naming the dshpolicy executable, for a machine where it is neither in the project nor on PATH. */
export const DSHPOLICY_BIN_ENV = 'DSHPOLICY_BIN';

/** What the project command says when no dshpolicy can be found on the machine. */
export const NOT_INSTALLED = `dshpolicy is not installed: npm i -g dshpolicy (or npm i -D dshpolicy in the project, or set ${DSHPOLICY_BIN_ENV} to its path)`;

/** The statement that takes `d` one directory up (to empty past the root). */
const UP = 'case $d in */*) d=${d%/*};; *) d=;; esac';

/**
 * The script of a project install (run by `/bin/sh -c`, whatever shell the agent runs its hook
 * commands with). It holds no path of this machine: it finds the project directory (the agent's
 * `projectRoot`), then dshpolicy: `$DSHPOLICY_BIN`, else the nearest `node_modules/.bin/dshpolicy`
 * at or above the project, else `dshpolicy` on PATH. When there is none, or it cannot start (exit
 * 126 or 127: a missing node behind its `#!/usr/bin/env node`), it must not read as "no opinion",
 * which is what the agents make of any exit but 0 and 2: it says why on stderr and blocks with
 * exit 2; on a stop it ends the turn instead (an exit 2 there would make the agent go on, and
 * Codex has no cap on that). The event's name is the script's last argument; the policies
 * (relative to the project directory, or absolute) come before it.
 *
 * The script holds no `'` and no two backslashes in a row (inside single quotes fish reads `\'`
 * and `\\`), so the single-quoted word holding it means the same to sh, bash, zsh and fish.
 * `agent` is an installable agent or its name (another name is a TypeError).
 */
export function projectHookScript(agent: InstallAgentRef, hookArgs: readonly string[], withPolicies: boolean): string {
  const { name, install } = requireInstallable(agent);
  const find = [
    `b=\${${DSHPOLICY_BIN_ENV}:-}; d=$r`,
    `while [ -z "$b" ] && [ -n "$d" ]; do x=$d/node_modules/.bin/dshpolicy; if [ -f "$x" ] && [ -x "$x" ]; then b=$x; fi; ${UP}; done`,
    '[ -n "$b" ] || b=$(command -v dshpolicy) || b=',
  ];
  const args = withPolicies
    ? [
        // The event is the last argument; each policy before it becomes `--policy <path>`.
        'for e do :; done; n=$(($# - 1))',
        'while [ "$n" -gt 0 ]; do case $1 in /*) p=$1;; *) p=$r/$1;; esac; set -- "$@" --policy "$p"; shift; n=$((n - 1)); done; shift',
      ]
    : ['e=$1'];
  const hook = ['"$b"', 'hook', name, ...hookArgs, ...(withPolicies ? ['"$@"'] : [])].join(' ');
  const notStarted = `dshpolicy could not start (exit $s): is node on PATH? (npm i -g dshpolicy, or set ${DSHPOLICY_BIN_ENV} to its path)`;
  const answer = [
    `if [ -n "$b" ]; then ${hook}; s=$?; if [ "$s" -ne 126 ] && [ "$s" -ne 127 ]; then exit "$s"; fi; m="${notStarted}"; else m="${NOT_INSTALLED}"; fi`,
    'echo "$m" >&2',
    'case $e in Stop|SubagentStop) printf "{\\"continue\\":false,\\"stopReason\\":\\"%s\\"}\\n" "$m"; exit 0;; esac',
    'exit 2',
  ];
  return [install.projectRoot(UP), ...find, ...args, ...answer].join('; ');
}

/**
 * The command a project install writes, to which each handler adds its event's name as the last
 * word: `/bin/sh -c '<script>' dshpolicy [<policy>...]`.
 */
export function projectHookCommand(agent: InstallAgentRef, policies: readonly string[], hookArgs: readonly string[] = []): string {
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
