/**
 * Gemini CLI's tool names and the names dshpolicy's events use for the same tools (Claude Code's,
 * which the fixtures and `engine/tools.ts` know). The tool's input is Gemini CLI's arguments as
 * they are (`dir_path`, `file_path`, `is_background`, ...): `argsPattern` is matched against them.
 *
 * | Gemini CLI | dshpolicy |
 * |---|---|
 * | `run_shell_command` | `Bash` |
 * | `read_file` | `Read` |
 * | `write_file` | `Write` |
 * | `replace` | `Edit` |
 * | `glob` | `Glob` |
 * | `grep_search` (formerly `search_file_content`) | `Grep` |
 * | `list_directory` | `LS` |
 * | `web_fetch` | `WebFetch` |
 * | `google_web_search` | `WebSearch` |
 * | `write_todos` | `TodoWrite` |
 * | `ask_user` | `AskUserQuestion` |
 * | `enter_plan_mode`, `exit_plan_mode` | `EnterPlanMode`, `ExitPlanMode` |
 * | `activate_skill` | `Skill` |
 * | MCP tool `<tool>` of server `<server>` (`mcp_<server>_<tool>`; formerly `<server>__<tool>`) | `mcp__<server>__<tool>` |
 * | any other name (`read_many_files`, `save_memory`, a subagent, a discovered tool) | the same name |
 */

export const GEMINI_TO_DSH: Readonly<Record<string, string>> = {
  run_shell_command: 'Bash',
  read_file: 'Read',
  write_file: 'Write',
  replace: 'Edit',
  glob: 'Glob',
  grep_search: 'Grep',
  search_file_content: 'Grep',
  list_directory: 'LS',
  web_fetch: 'WebFetch',
  google_web_search: 'WebSearch',
  write_todos: 'TodoWrite',
  ask_user: 'AskUserQuestion',
  enter_plan_mode: 'EnterPlanMode',
  exit_plan_mode: 'ExitPlanMode',
  activate_skill: 'Skill',
};

/** The reverse of `GEMINI_TO_DSH`, with the current name where Gemini CLI has two. */
export const DSH_TO_GEMINI: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(GEMINI_TO_DSH).filter(([g]) => g !== 'search_file_content').map(([g, d]) => [d, g]),
);

/** Gemini CLI's built-in tool names (tools/tool-names.ts), for "did you mean" warnings. */
export const GEMINI_BUILTIN_TOOLS: readonly string[] = [
  'glob', 'write_todos', 'write_file', 'google_web_search', 'web_fetch', 'replace', 'run_shell_command', 'grep_search',
  'read_many_files', 'read_file', 'list_directory', 'save_memory', 'activate_skill', 'ask_user', 'get_internal_docs',
  'enter_plan_mode', 'exit_plan_mode', 'tracker_create_task', 'tracker_update_task', 'tracker_get_task',
  'tracker_list_tasks', 'tracker_add_dependency', 'tracker_visualize', 'update_topic',
];

/** The shell tool, whose `command` argument the `commandPrefix` and `commandRegex` fields read. */
export const GEMINI_SHELL_TOOL = 'run_shell_command';

/**
 * A Gemini CLI tool name (or the `*` patterns its engine knows) as a dshpolicy tool pattern, with
 * what the reader should be told. `mcpName` is the rule's `mcpName`.
 */
export interface MappedTool {
  /** The dshpolicy tool glob; undefined when the name matches no tool at all. */
  glob?: string;
  /** Which form of Gemini CLI's naming the name used. */
  form: 'builtin' | 'other' | 'all' | 'mcp' | 'legacy-mcp' | 'mcp-any-server' | 'literal-star' | 'foreign';
}

const MCP_PREFIX = 'mcp_';

/** `mcp_<server>_<tool>`: the server ends at the first `_` after the prefix (as Gemini CLI splits it). */
function splitFqn(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const i = rest.indexOf('_');
  if (i <= 0 || i === rest.length - 1) return undefined;
  return { server: rest.slice(0, i), tool: rest.slice(i + 1) };
}

export function mapToolName(name: string, mcpName: string | undefined): MappedTool {
  if (mcpName !== undefined) {
    const server = mcpName === '*' ? '*' : mcpName;
    if (name === '*') return { glob: server === '*' ? 'mcp__*' : `mcp__${server}__*`, form: 'mcp' };
    // A full name with mcpName: Gemini CLI compares it as written.
    const fqn = splitFqn(name);
    if (fqn) return { glob: `mcp__${fqn.server}__${fqn.tool}`, form: 'mcp' };
    return { glob: `mcp__${server}__${name}`, form: 'mcp' };
  }
  if (name === '*') return { form: 'all', glob: '*' };
  if (name === 'mcp_*') return { glob: 'mcp__*', form: 'mcp' };
  const legacy = /^([^_]+(?:_[^_]+)*?)__(.+)$/.exec(name);
  if (legacy && !name.startsWith(MCP_PREFIX)) return { glob: `mcp__${legacy[1]}__${legacy[2]}`, form: 'legacy-mcp' };
  const fqn = splitFqn(name);
  if (fqn) {
    if (fqn.server === '*') return { glob: `mcp__*__${fqn.tool}`, form: 'mcp-any-server' };
    if (fqn.tool.includes('*') && fqn.tool !== '*') return { form: 'literal-star' };
    return { glob: `mcp__${fqn.server}__${fqn.tool}`, form: 'mcp' };
  }
  if (name.includes('*')) return { form: 'literal-star' };
  const mapped = GEMINI_TO_DSH[name];
  if (mapped !== undefined) return { glob: mapped, form: 'builtin' };
  // A dshpolicy name of a gemini tool (`Bash`) names no gemini tool: it must not become that tool.
  if (DSH_TO_GEMINI[name] !== undefined) return { form: 'foreign' };
  return { glob: name, form: GEMINI_BUILTIN_TOOLS.includes(name) ? 'builtin' : 'other' };
}

/** A Gemini CLI call's tool as dshpolicy names it (`server` for an MCP tool's server). */
export function dshToolOfCall(name: string, server?: string): string {
  if (server !== undefined) {
    const prefix = `${MCP_PREFIX}${server}_`;
    const tool = name.startsWith(prefix) ? name.slice(prefix.length) : name;
    return `mcp__${server}__${tool}`;
  }
  return GEMINI_TO_DSH[name] ?? name;
}

/** Levenshtein distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
