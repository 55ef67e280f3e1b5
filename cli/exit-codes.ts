/**
 * The exit statuses of the command line, each named once (docs/cli.md "Exit codes" lists them).
 * Hook mode answers in the agents' own protocol instead (Claude Code, Codex and Gemini CLI read a
 * status as a decision), so its statuses are named apart: the values coincide, the meanings do not.
 */

/** The command did what it was asked; warnings do not change this unless `--strict` or `--max-warnings`. */
export const OK = 0;
/** The policy or an input has errors, or a test failed (docs/cli.md says which, per command). */
export const FAILED = 1;
/** The command line is wrong: no or an unknown command, an unknown option, a missing argument. */
export const USAGE = 2;
/** A bug in dshpolicy, or an output that cannot be written: EX_SOFTWARE, never used by hook mode. */
export const INTERNAL = 70;

/** Hook mode: the answer is on stdout, or the hook has no opinion. */
export const HOOK_ANSWERED = 0;
/** Hook mode: block where the event can block, with stderr as the reason. */
export const HOOK_BLOCK = 2;
