/**
 * Tool names that real agents use, for "unknown tool" warnings and "did you mean" help.
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

/** The input fields that carry a tool's path, in the order they are looked up. */
export const PATH_INPUT_FIELDS: readonly string[] = ['file_path', 'path', 'notebook_path'];

export function isKnownTool(name: string): boolean {
  return name.startsWith('mcp__') || CLAUDE_CODE_TOOLS.includes(name) || CODEX_TOOLS.includes(name);
}
