/**
 * Where an install goes: the agent's hooks file for the user or for a project directory, and the
 * file its hook trust is kept in, when it has one, each as the agent's `install` part places it
 * from the environment. Also where a project's own policy is: the nearest `.dshpolicy/` at or
 * above the project, as `dshpolicy hook` finds it.
 */
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { readdirSync, statSync } from 'node:fs';
import type { InstallEnvironment } from '../agent.js';
import { installableAgent, type InstallableAgent, type InstallAgentRef } from './agent.js';
import { real } from './files.js';

export interface InstallTarget {
  agent: InstallableAgent;
  scope: 'project' | 'user';
  /** The project directory (resolved, links followed), for a project install. */
  dir?: string;
  /**
   * The project directory as given, resolved against the working directory but with its links:
   * another spelling of it an agent may already trust (for a user install: the working directory).
   */
  given: string;
  /** The hooks file to edit (settings.json, hooks.json). */
  file: string;
  /** The agent's file its hook trust is kept in (Codex's config.toml), when it has one. */
  trustFile?: string;
  /** The environment the paths came from. */
  where: InstallEnvironment;
}

export interface TargetRequest {
  /** The user's own configuration rather than a project's. */
  user?: boolean | undefined;
  /** The project directory (relative to `cwd`; default `cwd`), for a project install. */
  project?: string | undefined;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Default `process.cwd()`. */
  cwd?: string | undefined;
}

/** The target, or why there is none (a usage problem: the request names no file to edit). */
export type TargetResult = { ok: true; target: InstallTarget } | { ok: false; problem: string };

/** Where installing into (or uninstalling from) `agent` goes. Never throws. */
export function installTarget(agentRef: InstallAgentRef, req: TargetRequest = {}): TargetResult {
  const agent = installableAgent(agentRef);
  if (!agent) return { ok: false, problem: `dshpolicy installs into no agent named \`${typeof agentRef === 'string' ? agentRef : agentRef.name}\`` };
  if (req.user && req.project !== undefined) return { ok: false, problem: 'a user install names no project directory; give one of them' };
  const env = req.env ?? process.env;
  const cwd = req.cwd ?? process.cwd();
  const where: InstallEnvironment = { env, cwd, home: resolve(env['HOME'] || homedir()) };
  const trust = agent.install.trust ? { trustFile: agent.install.trust.file(where) } : {};
  const given = resolve(cwd, req.project ?? '.');
  if (req.user) return { ok: true, target: { agent, scope: 'user', given, file: agent.install.userFile(where), ...trust, where } };
  let isDir = false;
  try {
    isDir = statSync(given).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) return { ok: false, problem: `\`${req.project ?? given}\` is not a directory` };
  // Codex keys trust by the path it sees, and it sees the working directory with links resolved.
  const dir = real(given);
  return { ok: true, target: { agent, scope: 'project', dir, given, file: agent.install.projectFile(dir), ...trust, where } };
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
