/**
 * The time limits around dshpolicy's own handler: how long each agent lets a command hook run at
 * most, and how much of its handler timeout the hook keeps for itself, so that it always answers
 * (fail-closed when its hooks are late) before the agent cancels it and goes on without an answer.
 */

/** The longest handler timeout each agent takes for a command hook, in seconds. */
export const MAX_HANDLER_TIMEOUT_SEC: Readonly<Record<'claude' | 'codex', number>> = { claude: 600, codex: 600 };

/**
 * Seconds the hook keeps below its handler timeout: its deadline is the handler timeout less this
 * (`--deadline`), so node's start-up, the compile and the answer itself fit before the agent gives up.
 */
export const DEADLINE_MARGIN_SEC = 5;
