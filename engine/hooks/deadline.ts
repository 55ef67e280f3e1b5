/**
 * Hook mode's evaluation: the answer goes out as soon as it is final, and by a deadline at the
 * latest, because the agent cancels a handler that overruns its timeout and then goes on as if
 * the hook had no opinion.
 *
 * - **Final at once.** When the rules, or a hook that has answered, give the seam's strictest
 *   decision (a pre-tool `deny`, a `block`, a stop's `halt`: no other answer can move a decision
 *   past it, engine/algebra.ts), the hooks still running cannot change it: they are ended (their
 *   process groups killed) and counted as having no opinion. When the rules alone are final, no
 *   hook is started.
 * - **The deadline.** A hook still running then is ended and counts as failing closed: a tool
 *   call is denied and a prompt or a tool's output blocked, with the reason "hook `X` did not
 *   answer in time"; a stop, a session start and the other agent events go ahead without it (a
 *   stop held for a hook that never answers could keep the agent from ever stopping), and so does
 *   a hook whose rule says `on_deadline: "none"`, or every hook with `onDeadline: 'none'`.
 *
 * Whatever a hook prints after it was counted is dropped: its outcome is settled once.
 */
import { DECISION_RANK } from '../algebra.js';
import { AGENT_EVENT_DECISIONS } from './protocol.js';
import type { CompiledPolicy, CompiledRule } from '../compile.js';
import { diagnostic } from '../diagnostics.js';
import { match, type HookOutcome, type HookRunner } from '../evaluate.js';
import { evaluateAny, type AnyDecision } from '../evaluate-agent.js';
import type { AnyEvent } from '../events.js';
import { processHookRunner, type SignalledRunOptions } from './runner.js';

export interface InTimeOptions {
  /** Runs a hook; its options carry a signal that is aborted once its answer no longer counts. Default: processHookRunner(). */
  runner?: HookRunner;
  /** Milliseconds from now until hooks still running count as late; absent: no deadline. */
  deadlineMs?: number;
  /** What a late hook counts as when its rule does not say: `fail-closed` (the default) or `none`. */
  onDeadline?: 'fail-closed' | 'none';
}

/** The longest delay a timer takes; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The seam's strictest effect: once a hit has it, no other hit changes the decision. */
export function finalEffect(event: AnyEvent): string {
  return event.seam === 'agent-event' ? AGENT_EVENT_DECISIONS[0] : DECISION_RANK[event.seam][DECISION_RANK[event.seam].length - 1]!;
}

/**
 * What a hook that did not answer in time counts as, failing closed: a tool call denied, a prompt
 * or a tool's output blocked, a permission request denied; nothing elsewhere.
 */
export function lateEffect(event: AnyEvent): HookOutcome['effect'] {
  switch (event.seam) {
    case 'pre-tool':
      return 'deny';
    case 'prompt':
    case 'post-tool':
      return 'block';
    case 'agent-event':
      return event.event === 'PermissionRequest' ? 'deny' : undefined;
    default:
      return undefined;
  }
}

function hookName(cr: CompiledRule): string {
  const command = cr.rule.hook?.command ?? cr.rule.id;
  const line = command.split('\n')[0]!;
  return line.length > 120 || line !== command ? `${line.slice(0, 120)}…` : line;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}s`;
}

interface Waiting {
  cr: CompiledRule;
  settle(outcome: HookOutcome): void;
}

/**
 * Evaluates an event as `evaluateAny` does, answering as soon as the decision is final and, at
 * `deadlineMs`, counting the hooks still running as late. Every hook it started has been ended
 * or has finished when it resolves. Never throws.
 */
export async function evaluateInTime(policy: CompiledPolicy, event: AnyEvent, opts: InTimeOptions = {}): Promise<AnyDecision> {
  const inner = opts.runner ?? processHookRunner();
  const deadlineAt = opts.deadlineMs !== undefined ? Date.now() + opts.deadlineMs : undefined;
  const final = finalEffect(event);
  const ender = new AbortController();
  const waiting = new Set<Waiting>();
  // Whether the rules alone are final: known at the first hook, as most events run none.
  let staticFinal: boolean | undefined;
  // Once set, how a hook counts that has not answered: ended (the decision is final) or late.
  let cut: ((cr: CompiledRule) => HookOutcome) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const endAll = (outcomeOf: (cr: CompiledRule) => HookOutcome): void => {
    cut = outcomeOf;
    if (timer !== undefined) clearTimeout(timer);
    const late = [...waiting];
    waiting.clear();
    for (const w of late) w.settle(outcomeOf(w.cr));
    ender.abort();
  };
  const ended = (): HookOutcome => ({ exitCode: null, timedOut: false, summary: 'ended: the decision was already final' });
  const late = (cr: CompiledRule): HookOutcome => {
    const failsClosed = (cr.rule.hook?.onDeadline ?? opts.onDeadline ?? 'fail-closed') === 'fail-closed';
    const effect = failsClosed ? lateEffect(event) : undefined;
    const why = `hook \`${hookName(cr)}\` did not answer in time`;
    const outcome: HookOutcome = {
      exitCode: null,
      timedOut: true,
      summary: `no answer by the deadline (${seconds(opts.deadlineMs ?? 0)})`,
      diagnostics: [
        diagnostic('hook/deadline', 'warning', `rule \`${cr.rule.id}\`: ${why}${effect ? `: ${effect}` : ', so it is left out of the decision'}`, {
          help: effect ? 'give the hook a shorter `timeout`, or write `with {on_deadline: "none"}` to go on without it' : 'the hook was ended',
        }),
      ],
    };
    if (effect) {
      outcome.effect = effect;
      outcome.reason = why;
    }
    return outcome;
  };

  const runner: HookRunner = (cr, ev, runOpts = {}) => {
    staticFinal ??= event.seam !== 'agent-event' && match(policy, event).hits.some((h) => h.effect === final);
    if (staticFinal) return Promise.resolve({ exitCode: null, timedOut: false, summary: 'not run: the decision was already final' });
    if (cut !== undefined) return Promise.resolve(cut(cr));
    if (timer === undefined && deadlineAt !== undefined && opts.deadlineMs! < MAX_TIMER_MS) {
      timer = setTimeout(() => endAll(late), Math.max(0, deadlineAt - Date.now()));
    }
    return new Promise<HookOutcome>((resolve, reject) => {
      const w: Waiting = { cr, settle: resolve };
      waiting.add(w);
      const signalled: SignalledRunOptions = { ...runOpts, signal: ender.signal };
      inner(cr, ev, signalled).then(
        (outcome) => {
          if (!waiting.delete(w)) return; // counted already: what it says now is dropped
          resolve(outcome);
          if (outcome.effect === final) endAll(ended);
        },
        (err: unknown) => {
          if (waiting.delete(w)) reject(err);
        },
      );
    });
  };

  try {
    return await evaluateAny(policy, event, { runner });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    ender.abort();
  }
}
