/**
 * Tool names that real agents use, for "unknown tool" warnings and "did you mean" help, and the
 * input fields through which each tool names the paths it touches.
 */
export const CLAUDE_CODE_TOOLS: readonly string[] = [
  'Agent', 'AskUserQuestion', 'Bash', 'BashOutput', 'CronCreate', 'CronDelete', 'CronList', 'Edit',
  'EnterPlanMode', 'EnterWorktree', 'ExitPlanMode', 'ExitWorktree', 'Glob', 'Grep', 'KillShell', 'LS',
  'ListMcpResourcesTool', 'LSP', 'Monitor', 'MultiEdit', 'NotebookEdit', 'NotebookRead', 'PowerShell',
  'Read', 'ReadMcpResourceTool', 'SendMessage', 'Skill', 'SlashCommand', 'Task', 'TaskCreate', 'TaskGet',
  'TaskList', 'TaskOutput', 'TaskStop', 'TaskUpdate', 'TodoWrite', 'ToolSearch', 'WebFetch', 'WebSearch',
  'Workflow', 'Write',
];

export const CODEX_TOOLS: readonly string[] = [
  'shell', 'local_shell', 'exec_command', 'write_stdin', 'unified_exec', 'apply_patch', 'update_plan',
  'view_image', 'web_search', 'spawn_agent',
];

/** Tools whose input carries a shell command in `input.command`. */
export const SHELL_TOOLS: readonly string[] = ['Bash', 'PowerShell', 'shell', 'local_shell', 'exec_command', 'unified_exec'];

/**
 * The input fields read as a file path on every tool, unless the tool's entry in `TOOL_PATHS`
 * gives the field another part: every such field present is judged.
 */
export const PATH_INPUT_FIELDS: readonly string[] = ['file_path', 'path', 'notebook_path', 'absolute_path', 'filePath'];

/** The input field read as a list of file paths on every tool, unless its entry says otherwise (MCP's `read_multiple_files`). */
export const PATH_LIST_FIELD = 'paths';

/** How a tool's input names the paths the call touches (engine/match/path-facts.ts reads it). */
export interface ToolPaths {
  /** Fields holding a file the call reads or writes. */
  readonly files?: readonly string[];
  /** A search of a directory and what lies below it. */
  readonly search?: {
    /** Fields holding the directory; each one present is searched, and the working directory when none is (but for `list`). */
    readonly dir: readonly string[];
    /** Fields holding globs that select files below the directory (Grep's `glob`, Gemini CLI's `include`). */
    readonly filter?: readonly string[];
    /** Fields holding a glob that selects files and may name directories of its own (Glob's `pattern`). */
    readonly pattern?: readonly string[];
    /** Lists the directory's own entries only (LS), and needs the directory named. */
    readonly list?: boolean;
  };
  /** Fields holding paths or globs, a string or a list, under the working directory (Gemini CLI's `read_many_files`). */
  readonly globs?: readonly string[];
  /** Fields holding a patch whose `*** Add File:`, `*** Update File:`, `*** Delete File:` and `*** Move to:` lines name files (Codex's `apply_patch`). */
  readonly patch?: readonly string[];
}

const READ: ToolPaths = { files: ['file_path', 'absolute_path', 'path'] };
const WRITE: ToolPaths = { files: ['file_path', 'path'] };
const GREP: ToolPaths = { search: { dir: ['path', 'dir_path'], filter: ['glob', 'include'] } };
const GLOB: ToolPaths = { search: { dir: ['path', 'dir_path'], pattern: ['pattern'] } };
const LIST: ToolPaths = { search: { dir: ['path', 'dir_path'], list: true } };
const NOTEBOOK: ToolPaths = { files: ['notebook_path'] };

/**
 * The path fields of the tools of Claude Code, Codex and Gemini CLI (by its own names, and by the
 * Claude Code names its hook gives them, with Gemini CLI's arguments: `dir_path`, `include`).
 */
export const TOOL_PATHS: Readonly<Record<string, ToolPaths>> = {
  Read: READ,
  Write: WRITE,
  Edit: WRITE,
  MultiEdit: WRITE,
  NotebookEdit: NOTEBOOK,
  NotebookRead: NOTEBOOK,
  Grep: GREP,
  Glob: GLOB,
  LS: LIST,
  apply_patch: { patch: ['command', 'input', 'patch'] },
  read_file: READ,
  write_file: WRITE,
  replace: WRITE,
  glob: GLOB,
  grep_search: GREP,
  search_file_content: GREP,
  list_directory: LIST,
  read_many_files: { globs: ['paths', 'include'] },
};

/**
 * The language's tools that an agent's own file tool also is, for the tool lists of rules: a rule
 * naming `Write` or `Edit` applies to Codex's `apply_patch` (the files its patch adds, updates,
 * deletes or moves, see `TOOL_PATHS`), a rule naming `Read` to Gemini CLI's `read_file`, and so on,
 * so one policy holds in every agent. Claude Code's own tools keep their names (its permission
 * rules, imported, read `Edit` as `Edit` alone, not `MultiEdit`). Gemini CLI's hook already names its tools this way; the table
 * serves the events that keep the agents' own names (Codex's hooks, fixtures, transcripts).
 *
 * Only the file tools are here, whose paths `TOOL_PATHS` reads. An aliased tool meets only the
 * rules that restrict (`deny`, `ask`, `block`, `context`): an `allow` names the tools it vouches
 * for, and another agent's tool is not one of them (its input may lack the fields a `when` reads,
 * and an agent's own permission rules, imported, keep that agent's reading of its tool names);
 * `run` rules keep to the names they list too. The aliases only ever make a decision stricter.
 */
export const TOOL_ALIASES: Readonly<Record<string, readonly string[]>> = {
  apply_patch: ['Edit', 'Write'],
  read_file: ['Read'],
  write_file: ['Write'],
  replace: ['Edit'],
};

export function isKnownTool(name: string): boolean {
  return name.startsWith('mcp__') || CLAUDE_CODE_TOOLS.includes(name) || CODEX_TOOLS.includes(name);
}
