/**
 * Small builders for hook configuration and shell-form hook commands used in end-to-end runs.
 * Commands run under `sh -c` with the project as cwd and `CLAUDE_PROJECT_DIR` set.
 */

/** One handler of a matcher group, as written in settings.json. */
export interface CommandHandler {
  type: 'command';
  command: string;
  timeout?: number;
  [key: string]: unknown;
}

export interface HookGroup {
  matcher?: string;
  hooks: (CommandHandler | Record<string, unknown>)[];
}

/** The `hooks` object of settings.json: event name to matcher groups. */
export type HooksSettings = Record<string, HookGroup[]>;

/** Quotes a string for POSIX sh. */
export function sh(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A path inside the project, for use in a hook command (`"$CLAUDE_PROJECT_DIR"/rel`). */
export function projectPath(relative: string): string {
  return `"$CLAUDE_PROJECT_DIR"/${sh(relative)}`;
}

/** A `command` handler. */
export function command(cmd: string, extra: Omit<CommandHandler, 'type' | 'command'> = {}): CommandHandler {
  return { type: 'command', command: cmd, ...extra };
}

/** One matcher group (no matcher when `matcher` is undefined). */
export function group(handlers: (CommandHandler | Record<string, unknown>)[], matcher?: string): HookGroup {
  return matcher === undefined ? { hooks: handlers } : { matcher, hooks: handlers };
}

/** Appends the hook's stdin payload (one JSON line) to a project file. Consumes stdin. */
export function logStdin(file: string): string {
  return `cat >> ${projectPath(file)}`;
}

/** Appends the hook's environment (`NAME=value` lines, then a `--` line) to a project file. */
export function logEnv(file: string): string {
  return `{ env; echo --; } >> ${projectPath(file)}`;
}

/** Prints a JSON value on stdout (exit 0 unless more follows). */
export function printJson(value: unknown): string {
  return `printf '%s\\n' ${sh(JSON.stringify(value))}`;
}

/** Writes a message to stderr and exits with `code` (2 blocks on events that can block). */
export function fail(message: string, code = 2): string {
  return `printf '%s\\n' ${sh(message)} >&2; exit ${code}`;
}

/** PreToolUse JSON output with a permission decision. */
export function preToolDecision(decision: 'allow' | 'deny' | 'ask' | 'defer', reason?: string): unknown {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision,
      ...(reason === undefined ? {} : { permissionDecisionReason: reason }),
    },
  };
}

/** `hookSpecificOutput.additionalContext` for an event. */
export function additionalContext(event: string, text: string): unknown {
  return { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
}

/**
 * A Stop hook command that blocks with `reason` unless the payload says `stop_hook_active: true`
 * (so it blocks exactly once per turn). Optionally logs every payload to `logFile`.
 */
export function stopBlockOnce(reason: string, logFile?: string): string {
  const log = logFile === undefined ? '' : `printf '%s\\n' "$payload" >> ${projectPath(logFile)}; `;
  return (
    `payload=$(cat); ${log}` +
    `case "$payload" in *'"stop_hook_active":true'*) exit 0;; esac; ` +
    printJson({ decision: 'block', reason })
  );
}
