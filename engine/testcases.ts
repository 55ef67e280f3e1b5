/**
 * Running a policy's own `test` cases: each case's event is evaluated and its decision (and, with
 * `because`, one of its reasons or context texts) compared with what the case expects.
 *
 * Linting a policy must not run the commands it names, so cases can also be judged without running
 * any command hook (`skipHooks`): a case whose outcome a hook could change is then skipped, with
 * the hooks it waits on, neither passed nor failed.
 */
import { DECISION_RANK } from './algebra.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import type { CompiledPolicy } from './compile.js';
import { evaluate, finish, match, type Decision, type EvaluateOptions } from './evaluate.js';
import { agentEventCandidates, evaluateAgentEvent, type AnyDecision } from './evaluate-agent.js';
import type { AnyEvent, PolicyEvent } from './events.js';
import type { TestCase } from './ir.js';
import { compileRegex, regexMatches } from './match/index.js';
import { normalizeEvent } from './normalize.js';

export interface TestResult {
  case: TestCase;
  ok: boolean;
  decision?: Decision;
  /** Set when the case failed: what went wrong, as a diagnostic at the case. */
  failure?: Diagnostic;
  /** Set when the case was skipped (`skipHooks`): the ids of the `run` rules its outcome waits on. */
  skipped?: { hooks: string[] };
}

export interface TestCaseOptions extends EvaluateOptions {
  /** Run no command hook: a case whose outcome a pending hook could change is skipped. */
  skipHooks?: boolean;
}

/** What a case expects: a decision word and, optionally, a regex some reason or context must match. */
export interface Expectation {
  expect: string;
  because?: { regex: string; flags: string } | undefined;
}

/** Whether the decision is what the case expects. */
export function expectationHolds(d: AnyDecision, e: Expectation): boolean {
  if (d.decision !== e.expect) return false;
  const because = e.because;
  return because === undefined || [...d.reasons, ...d.context].some((t) => regexMatches(because.regex, because.flags, t));
}

/**
 * Decides an event without running a command hook, for a case expecting `e`: the decision when no
 * hook could change whether the case holds, else the ids of the `run` rules it waits on.
 *
 * A case waits on a hook when one is pending for its event (`match(...).pending`, or the hooks
 * configured on an agent event), with one exception. Hooks only add hits, which merge
 * most-restrictive-wins, so once the decision without them is its seam's strictest (`deny`,
 * `block`, `halt`) no answer changes it, and its reasons and context can only grow: the case then
 * fails whatever the hooks say when it expects another decision, and holds whatever they say when
 * it already holds. Only a `because` no reason matches yet still waits on them.
 */
export async function decideWithoutHooks(policy: CompiledPolicy, event: PolicyEvent, e: Expectation): Promise<{ decision: Decision } | { hooks: string[] }>;
export async function decideWithoutHooks(policy: CompiledPolicy, event: AnyEvent, e: Expectation): Promise<{ decision: AnyDecision } | { hooks: string[] }>;
export async function decideWithoutHooks(policy: CompiledPolicy, event: AnyEvent, e: Expectation): Promise<{ decision: AnyDecision } | { hooks: string[] }> {
  if (event.seam === 'agent-event') {
    const hooks = agentEventCandidates(policy, event).map((c) => c.cr.rule.id);
    // Only hooks decide an agent event: with none configured on it, nothing runs.
    return hooks.length > 0 ? { hooks } : { decision: await evaluateAgentEvent(policy, event) };
  }
  const m = match(policy, event);
  const hooks = m.pending.map((cr) => cr.rule.id);
  const decision = finish(m);
  if (hooks.length === 0) return { decision };
  const strictest = DECISION_RANK[m.seam][DECISION_RANK[m.seam].length - 1];
  if (decision.decision === strictest && (decision.decision !== e.expect || expectationHolds(decision, e))) {
    decision.diagnostics.push(
      diagnostic('hook/not-run', 'info', `the hooks of ${hooks.map((h) => `\`${h}\``).join(', ')} were not run: they cannot change a \`${strictest}\``),
    );
    return { decision };
  }
  return { hooks };
}

export async function runTestCase(policy: CompiledPolicy, tc: TestCase, opts: TestCaseOptions = {}): Promise<TestResult> {
  const at = tc.span ? { span: tc.span } : {};
  const norm = normalizeEvent(tc.event);
  if (!norm.event) {
    const first = norm.diagnostics[0];
    return {
      case: tc,
      ok: false,
      failure: diagnostic('test/invalid-event', 'error', `test \`${tc.name}\`: ${first?.message ?? 'the event is invalid'}`, at),
    };
  }
  let decision: Decision;
  if (opts.skipHooks) {
    const r = await decideWithoutHooks(policy, norm.event, { expect: tc.expect, because: tc.because });
    if ('hooks' in r) return { case: tc, ok: false, skipped: { hooks: r.hooks } };
    decision = r.decision;
  } else {
    decision = await evaluate(policy, norm.event, opts);
  }
  if (decision.decision !== tc.expect) {
    const why = decision.rules.length > 0 ? `decided by ${decision.rules.map((r) => `\`${r}\``).join(', ')}` : 'no rule decided';
    const partial = decision.trace.find((t) => t.outcome === 'partial')?.note;
    return {
      case: tc,
      ok: false,
      decision,
      failure: diagnostic('test/failed', 'error', `test \`${tc.name}\` expected \`${tc.expect}\`, got \`${decision.decision}\``, {
        ...at,
        help: partial ? `${why}; ${partial}` : why,
      }),
    };
  }
  if (tc.because) {
    const re = compileRegex(tc.because.regex, tc.because.flags);
    const texts = [...decision.reasons, ...decision.context];
    if (!texts.some((t) => re.test(t))) {
      return {
        case: tc,
        ok: false,
        decision,
        failure: diagnostic('test/failed', 'error', `test \`${tc.name}\`: no reason matches \`/${tc.because.regex}/${tc.because.flags}\``, {
          ...at,
          help: texts.length > 0 ? `the reasons were ${texts.map((t) => `\`${t}\``).join(', ')}` : 'the decision carried no reason',
        }),
      };
    }
  }
  return { case: tc, ok: true, decision };
}

export async function runTestCases(policy: CompiledPolicy, opts: TestCaseOptions = {}): Promise<TestResult[]> {
  const out: TestResult[] = [];
  for (const tc of policy.ir.tests) out.push(await runTestCase(policy, tc, opts));
  return out;
}
