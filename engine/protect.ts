/**
 * Self-protection: what an agent may not change by default, so that it cannot switch its own guard
 * off. The policy's own files and every `.dshpolicy/` directory (`policy`), and the hook settings
 * of Claude Code, Codex and Gemini CLI (`claude`, `codex`, `gemini`), are written by no file tool
 * and by no shell write the engine sees: writes.ts judges a shell command's writes (redirections,
 * `tee`, `cp`, `sed -i`, and the files `rm`, `mv`, `chmod` remove or change) as `Write`s, so one
 * deny rule on the file tools covers both. The rules are built in: every compiled policy (and the
 * reference scan) holds them beside its own, but for the groups the policy opts out of
 * (`unprotect claude`, the IR's `unprotected`). They are not part of the IR.
 */
import type { PolicyIR, ProtectedGroup, Rule } from './ir.js';
import { PROTECTED_GROUPS } from './ir.js';

/** The id of the built-in rules in decisions and traces. */
export const SELF_PROTECTION_ID = '(self-protection)';

export const SELF_PROTECTION_REASON = "dshpolicy protects its own policy and the agents' hook settings";

/** The tools that write the files their path fields name: Claude Code's, Codex's `apply_patch`, Gemini CLI's own names. */
export const FILE_WRITE_TOOLS: readonly string[] = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'apply_patch', 'write_file', 'replace'];

/**
 * The paths of each agent's group, as path globs. A glob led by `**` is the file in any directory:
 * the project's, the git root's and the home directory's (`~/.claude/settings.json`). The agent's
 * directory itself is protected as a whole only from being removed, moved or written as a file
 * (`rm -rf .claude`, `mv .claude x`, `cp settings.json .claude`).
 */
const AGENT_PATHS: Readonly<Record<Exclude<ProtectedGroup, 'policy'>, readonly string[]>> = {
  claude: [
    '**/.claude/settings.json',
    '**/.claude/settings.local.json',
    '**/.claude',
    // managed settings: `managed-settings.json` and `managed-settings.d/` in these directories
    '/etc/claude-code/',
    '/Library/Application Support/ClaudeCode/',
    'C:/Program Files/ClaudeCode/',
  ],
  codex: [
    '**/.codex/hooks.json',
    '**/.codex/config.toml',
    '**/.codex',
  ],
  gemini: [
    '**/.gemini/settings.json',
    '**/.gemini',
    // system settings and admin policies
    '/etc/gemini-cli/',
    '/Library/Application Support/GeminiCli/',
    'C:/ProgramData/gemini-cli/',
  ],
};

/** Every `.dshpolicy/` directory and what is in it, wherever it is (the hook looks at and above the project). */
const POLICY_PATHS: readonly string[] = ['.dshpolicy/'];

/** What each group protects, in words, for `check` and explanations. */
export const PROTECTED_DESCRIPTIONS: Readonly<Record<ProtectedGroup, string>> = {
  policy: "the policy's own files and every `.dshpolicy/` directory",
  claude: "claude code's `.claude/settings.json`, `.claude/settings.local.json`, `~/.claude/settings.json` and managed settings",
  codex: "codex's `.codex/hooks.json`, `.codex/config.toml`, `~/.codex/hooks.json` and `~/.codex/config.toml`",
  gemini: "gemini cli's `.gemini/settings.json`, `~/.gemini/settings.json` and system settings",
};

interface Host {
  cwd?: string;
  platform?: string;
  env?: Record<string, string | undefined>;
}

/** The process the engine runs in, when there is one: its working directory and the agents' directory variables. */
function host(): Host {
  const p = (globalThis as { process?: { cwd?: () => string; platform?: string; env?: Record<string, string | undefined> } }).process;
  if (p === undefined) return {};
  const h: Host = {};
  try {
    if (typeof p.cwd === 'function') h.cwd = p.cwd();
  } catch {
    // a working directory that no longer exists
  }
  if (p.platform !== undefined) h.platform = p.platform;
  if (p.env !== undefined) h.env = p.env;
  return h;
}

/** A path as a glob that matches it alone. */
function literalGlob(path: string, h: Host): string {
  const p = h.platform === 'win32' ? path.replace(/\\/g, '/') : path;
  return p.replace(/[\\*?[\]]/g, '\\$&');
}

function isAbsolute(path: string, h: Host): boolean {
  return path.startsWith('/') || (h.platform === 'win32' && /^(?:[A-Za-z]:)?[\\/]/.test(path));
}

/**
 * The globs of a file: itself, made absolute against the working directory of the process that
 * compiled it (the IR names its sources as the compiler reached them; the hook and `eval` compile
 * and decide in one process).
 */
function fileGlobs(path: string, h: Host): string[] {
  if (isAbsolute(path, h)) return [literalGlob(path, h)];
  return h.cwd !== undefined && isAbsolute(h.cwd, h) ? [`${literalGlob(h.cwd, h)}/${literalGlob(path, h)}`] : [];
}

/** A directory an agent's variable names (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`), with the files of it that hold hooks. */
function variableGlobs(name: string, files: readonly string[], h: Host): string[] {
  const dir = h.env?.[name];
  if (dir === undefined || dir === '') return [];
  const base = isAbsolute(dir, h) ? literalGlob(dir.replace(/[\\/]+$/, '') || '/', h) : h.cwd !== undefined ? `${literalGlob(h.cwd, h)}/${literalGlob(dir, h)}` : null;
  if (base === null) return [];
  return [base, ...files.map((f) => `${base}/${f}`)];
}

/**
 * The path globs a group protects for this policy. The agents' own files are named here, in the
 * engine, rather than by the agents' registered protocols: self-protection must hold for every
 * host, including one that embeds the engine without registering any agent, so it may not depend
 * on a registration.
 */
export function protectedGlobs(group: ProtectedGroup, ir: Pick<PolicyIR, 'sources'>, h: Host = host()): string[] {
  switch (group) {
    case 'policy':
      // (an IR built by hand may lack its sources)
      return [...POLICY_PATHS, ...(ir.sources ?? []).flatMap((s) => fileGlobs(s, h))];
    case 'claude':
      return [...AGENT_PATHS.claude, ...variableGlobs('CLAUDE_CONFIG_DIR', ['settings.json'], h)];
    case 'codex':
      return [...AGENT_PATHS.codex, ...variableGlobs('CODEX_HOME', ['hooks.json', 'config.toml'], h)];
    case 'gemini':
      return [...AGENT_PATHS.gemini];
  }
}

/** The groups a policy keeps protected. */
export function protectedGroups(ir: Pick<PolicyIR, 'unprotected'>): ProtectedGroup[] {
  const off = ir.unprotected ?? [];
  return PROTECTED_GROUPS.filter((g) => !off.includes(g));
}

/**
 * The built-in rule of a policy: a deny of every file-writing tool on the protected paths, which
 * shell writes meet too, as `Write`s. None when the policy opts out of every group.
 */
export function protectionRules(ir: Pick<PolicyIR, 'sources' | 'unprotected'>): Rule[] {
  const groups = protectedGroups(ir);
  if (groups.length === 0) return [];
  const h = host();
  const globs = [...new Set(groups.flatMap((g) => protectedGlobs(g, ir, h)))];
  return [
    {
      id: SELF_PROTECTION_ID,
      seam: 'pre-tool',
      effect: 'deny',
      tools: [...FILE_WRITE_TOOLS],
      selectors: [{ kind: 'path', globs }],
      reason: SELF_PROTECTION_REASON,
    },
  ];
}

/** The rules the engine enforces for an IR: its own, then the built-in ones. */
export function enforcedRules(ir: PolicyIR): Rule[] {
  const builtIn = protectionRules(ir);
  return builtIn.length === 0 ? ir.rules : [...ir.rules, ...builtIn];
}

/** The groups several IRs merged into one opt out of: the union, in `PROTECTED_GROUPS` order. */
export function mergedUnprotected(parts: readonly Pick<PolicyIR, 'unprotected'>[]): ProtectedGroup[] | undefined {
  const off = new Set(parts.flatMap((p) => p.unprotected ?? []));
  return off.size === 0 ? undefined : PROTECTED_GROUPS.filter((g) => off.has(g));
}
