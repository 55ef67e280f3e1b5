/**
 * Other agents' permission languages imported into the IR: Claude Code's `permissions` rules,
 * Codex's rules files and Gemini CLI's policy files. Each importer reads its file as its agent
 * does and gives `pre-tool` rules (and, for Codex, the file's examples as test cases); where the
 * IR cannot say what the agent does, it says so in a diagnostic at the rule.
 */
import type { Diagnostic, Rule, TestCase } from '../engine/index.js';
import { AGENTS, agentNamed } from './agents.js';

export interface ImportedPolicy {
  /** The rules, ids and spans pointing at the entries of the imported file they came from. */
  rules: Rule[];
  /** Examples the file carries (Codex's `match` / `not_match`), as test cases. */
  tests: TestCase[];
  /** Problems reading the file, and each rule whose meaning the IR changes (and how). */
  diagnostics: Diagnostic[];
  /** Comment lines to print above a rule: where it came from, what changed. */
  comments: Map<Rule, string[]>;
}

export interface PermissionImportOptions {
  /**
   * The directory the agent resolves the file's relative paths against (Claude Code: the project
   * root for project settings). Default: the directory above the file's `.claude/`, or its own.
   */
  baseDir?: string;
  /** The home directory for `~` (default: the current user's). */
  home?: string;
}

/** What can be imported, as `import <agent> <what> "..."` says it. */
export const PERMISSION_IMPORTS: readonly PermissionImport[] = AGENTS.flatMap((a) => (a.permissions ?? []).map((p) => ({ agent: a.name, what: p.what })));

export interface PermissionImport {
  agent: string;
  what: string;
}

/** Imports one file of an agent's permission language. Never throws. */
export function importPermissions(agent: string, what: string, text: string, file: string, opts: PermissionImportOptions = {}): ImportedPolicy | undefined {
  return agentNamed(agent)?.permissions?.find((p) => p.what === what)?.import(text, file, opts);
}
