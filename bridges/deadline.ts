/**
 * The time the hook keeps for itself below dshpolicy's handler timeout, so that it always answers
 * (fail-closed when its hooks are late) before the agent cancels it and goes on without an answer.
 * How long each agent lets a command hook run at most is the agent's own (`install` part,
 * bridges/agent.ts); the handler timeout install writes is bridges/handler-timeout.ts's.
 */

/**
 * Seconds the hook keeps below its handler timeout: its deadline is the handler timeout less this
 * (`--deadline`), so node's start-up, the compile and the answer itself fit before the agent gives up.
 */
export const DEADLINE_MARGIN_SEC = 5;
