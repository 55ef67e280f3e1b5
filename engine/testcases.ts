/**
 * Running a policy's own `test` cases: each case's event is evaluated and its decision (and, with
 * `because`, one of its reasons or context texts) compared with what the case expects.
 */
import { diagnostic, type Diagnostic } from './diagnostics.js';
import type { CompiledPolicy } from './compile.js';
import { evaluate, type Decision, type EvaluateOptions } from './evaluate.js';
import type { TestCase } from './ir.js';
import { compileRegex } from './match/index.js';
import { normalizeEvent } from './normalize.js';

export interface TestResult {
  case: TestCase;
  ok: boolean;
  decision?: Decision;
  /** Set when the case failed: what went wrong, as a diagnostic at the case. */
  failure?: Diagnostic;
}

export async function runTestCase(policy: CompiledPolicy, tc: TestCase, opts: EvaluateOptions = {}): Promise<TestResult> {
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
  const decision = await evaluate(policy, norm.event, opts);
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

export async function runTestCases(policy: CompiledPolicy, opts: EvaluateOptions = {}): Promise<TestResult[]> {
  const out: TestResult[] = [];
  for (const tc of policy.ir.tests) out.push(await runTestCase(policy, tc, opts));
  return out;
}
