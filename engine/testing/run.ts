/**
 * Running a compiled policy's tests as data: every `test` case the policy carries, and every line
 * of its fixture files that says which decision it `expect`s (and, with `expect_reason`, a regex
 * some reason or context of the decision must match). What `dshpolicy test` reports, and what a
 * host can run and present its own way.
 *
 * Promises: nothing here throws on what a policy, a case or a fixture line says. Each case comes
 * back as one CaseResult, in order (the test cases first, then each fixture file's lines): passed,
 * failed (with the decision and why it is not the expected one), error (with diagnostics: a line
 * that is not JSON or not an event, an `expect` that is not a decision of the event's seam, an
 * unreadable fixture file) or skipped. With no hook runner no command hook runs, and a case whose
 * outcome a hook could still change is skipped with the ids of the `run` rules it waits on
 * (decideWithoutHooks says which); with one, every case is decided with its hooks.
 */
import type { CompiledPolicy } from '../compile.js';
import { diagnostic, type Diagnostic, type Span } from '../diagnostics.js';
import type { HookRunner } from '../evaluate.js';
import { AGENT_EVENT_DECISIONS } from '../hooks/protocol.js';
import { evaluateAny, type AnyDecision } from '../evaluate-agent.js';
import type { AnyEvent } from '../events.js';
import { SEAM_DECISIONS, type TestCase } from '../ir.js';
import { checkRegex, regexMatches } from '../match/index.js';
import { normalizeEvent } from '../normalize.js';
import { decideWithoutHooks, runTestCase } from '../testcases.js';
import { fixtureEvent, FixtureReadError, fixtureLineSpan, readFixtures, type FixtureInput } from './fixtures.js';

export type CaseStatus = 'passed' | 'failed' | 'error' | 'skipped';

/** One test case or fixture line, run. */
export interface CaseResult {
  kind: 'test' | 'fixture';
  /** The file the case is in (a policy source, or a fixture file as it was named). */
  file: string;
  /** The test's name; for a fixture line `line <n>`, with its `name` or `id` after a colon. */
  name: string;
  /** `file:line:col` of a test case, `file:line` of a fixture line, `file` of an unreadable file. */
  at: string;
  status: CaseStatus;
  event?: AnyEvent;
  expect?: string;
  /** The regex some reason or context must match, as `/source/flags`. */
  expectReason?: string;
  decision?: AnyDecision;
  /** Why the case failed or could not run (not set on passed or skipped cases). */
  message?: string;
  /** For a skipped case: the ids of the `run` rules whose hooks its outcome waits on. */
  hooks?: string[];
  /** Why the case could not run. */
  errors?: Diagnostic[];
}

/** How many cases ended each way, and how many fixture lines were no case at all. */
export interface CaseCounts {
  passed: number;
  failed: number;
  errors: number;
  /** Cases skipped because they wait on hooks that were not run. */
  skippedCases: number;
  /** Fixture lines without `expect`: evaluated by `eval`, no case of a test run. */
  skipped: number;
}

export interface PolicyTestOptions extends FixtureInput {
  /** Runs the `run` rules' command hooks. Without one no hook runs, and cases that wait on one are skipped. */
  runner?: HookRunner;
  /** Fixture files (JSONL; `-` reads `stdin` once) whose lines with `expect` are cases too. */
  fixtures?: readonly string[];
  /** The file named for a test case that has no span (default: the policy's first source, else `policy`). */
  file?: string;
}

/** A whole run: every case in order, and the counts. */
export interface PolicyTestRun {
  results: CaseResult[];
  counts: CaseCounts;
}

const regexText = (regex: string, flags: string) => `/${regex}/${flags}`;

/** `expect_reason`: a regex source, or `/source/flags` with flags among `ims`. */
export function parseExpectReason(text: string): { regex: string; flags: string } {
  const m = /^\/(.+)\/([ims]*)$/s.exec(text);
  return m ? { regex: m[1]!, flags: m[2]! } : { regex: text, flags: '' };
}

function decisionWords(event: AnyEvent): readonly string[] {
  return event.seam === 'agent-event' ? AGENT_EVENT_DECISIONS : SEAM_DECISIONS[event.seam];
}

/** Compares a decision with what the case expects; the failure message, or undefined when it holds. */
function judge(decision: AnyDecision, expect: string, reason: { regex: string; flags: string } | undefined): string | undefined {
  if (decision.decision !== expect) return `expected \`${expect}\`, got \`${decision.decision}\``;
  if (reason) {
    const texts = [...decision.reasons, ...decision.context];
    if (!texts.some((t) => regexMatches(reason.regex, reason.flags, t))) {
      return `got \`${decision.decision}\` as expected, but no reason or context matches \`${regexText(reason.regex, reason.flags)}\``;
    }
  }
  return undefined;
}

/**
 * Runs one of the policy's `test` cases; `file` names the case when it has no span. The verdict
 * is runTestCase's (so `test` and `check` agree); the message says it the way fixture lines do.
 */
export async function runPolicyTestCase(policy: CompiledPolicy, tc: TestCase, opts: { runner?: HookRunner; file?: string } = {}): Promise<CaseResult> {
  const file = tc.span?.file ?? opts.file ?? defaultFile(policy);
  const at = tc.span ? `${tc.span.file}:${tc.span.start.line}:${tc.span.start.column}` : file;
  const base: CaseResult = { kind: 'test', file, name: tc.name, at, status: 'passed', expect: tc.expect };
  if (tc.because) base.expectReason = regexText(tc.because.regex, tc.because.flags);
  const norm = normalizeEvent(tc.event);
  if (norm.event) base.event = norm.event;
  const r = await runTestCase(policy, tc, opts.runner ? { runner: opts.runner } : { skipHooks: true });
  if (r.skipped) return { ...base, status: 'skipped', hooks: r.skipped.hooks };
  if (!r.decision) {
    return { ...base, status: 'error', errors: r.failure ? [r.failure] : [], message: r.failure?.message ?? 'the case could not run' };
  }
  base.decision = r.decision;
  if (r.ok) return base;
  const message = judge(r.decision, tc.expect, tc.because) ?? r.failure?.message ?? 'the case failed';
  return { ...base, status: 'failed', message };
}

/**
 * Runs the lines of one fixture file that carry `expect`; a line without one is no case and only
 * counts in `skipped`. An unreadable file is one erring case named `the fixture file`.
 */
export async function runFixtureFile(
  policy: CompiledPolicy,
  file: string,
  opts: { runner?: HookRunner } & FixtureInput = {},
): Promise<{ results: CaseResult[]; skipped: number }> {
  const { runner } = opts;
  const results: CaseResult[] = [];
  let skipped = 0;
  const lineError = (line: number, errors: Diagnostic[], event?: AnyEvent): CaseResult => {
    const r: CaseResult = { kind: 'fixture', file, name: `line ${line}`, at: `${file}:${line}`, status: 'error', errors, message: errors[0]?.message ?? 'the line cannot be read' };
    if (event) r.event = event;
    return r;
  };
  const badExpect = (span: Span, pointer: string, message: string, help: string) => [diagnostic('fixture/bad-expect', 'error', message, { span, pointer, help })];
  try {
    for await (const item of readFixtures(file, { stdin: opts.stdin })) {
      const read = fixtureEvent(file, item);
      if (read.errors) {
        results.push(lineError(item.line, read.errors));
        continue;
      }
      const event = read.event;
      const span = fixtureLineSpan(file, item.line, item.offset);
      const obj = item.value as Record<string, unknown>;
      const expect = obj['expect'];
      const expectReason = obj['expect_reason'];
      if (expect === undefined) {
        if (expectReason !== undefined) {
          results.push(lineError(item.line, badExpect(span, '/expect_reason', '`expect_reason` without `expect`', 'add the decision the line should get: `"expect": "deny"`'), event));
        } else skipped++;
        continue;
      }
      const words = decisionWords(event);
      if (typeof expect !== 'string' || !words.includes(expect)) {
        const found = typeof expect === 'string' ? `\`${expect}\`` : JSON.stringify(expect);
        const seam = event.seam === 'agent-event' ? `\`${event.event}\` event` : `\`${event.seam}\` seam`;
        results.push(lineError(item.line, badExpect(span, '/expect', `\`expect\` must be a decision of the ${seam}, found ${found}`, `the decisions are ${words.map((w) => `\`${w}\``).join(', ')}`), event));
        continue;
      }
      let reason: { regex: string; flags: string } | undefined;
      if (expectReason !== undefined) {
        const bad = typeof expectReason !== 'string' ? 'must be a string (a regex)' : undefined;
        reason = typeof expectReason === 'string' ? parseExpectReason(expectReason) : undefined;
        const err = reason ? checkRegex(reason.regex, reason.flags) : null;
        if (bad || err) {
          results.push(lineError(item.line, badExpect(span, '/expect_reason', `\`expect_reason\` ${bad ?? `is not a valid regex: ${err!.message}`}`, 'write an RE2 regex, like "push(es)? needs" or "/secret/i"'), event));
          continue;
        }
      }
      const id = obj['id'];
      const name = typeof obj['name'] === 'string' ? obj['name'] : typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
      const r: CaseResult = {
        kind: 'fixture',
        file,
        name: name !== undefined ? `line ${item.line}: ${name}` : `line ${item.line}`,
        at: `${file}:${item.line}`,
        status: 'passed',
        event,
        expect,
      };
      if (reason) r.expectReason = regexText(reason.regex, reason.flags);
      let decision: AnyDecision;
      if (runner) decision = await evaluateAny(policy, event, { runner });
      else {
        const settled = await decideWithoutHooks(policy, event, { expect, because: reason });
        if ('hooks' in settled) {
          results.push({ ...r, status: 'skipped', hooks: settled.hooks });
          continue;
        }
        decision = settled.decision;
      }
      r.decision = decision;
      const message = judge(decision, expect, reason);
      if (message !== undefined) {
        r.status = 'failed';
        r.message = message;
      }
      results.push(r);
    }
  } catch (err) {
    if (!(err instanceof FixtureReadError)) throw err;
    results.push({ kind: 'fixture', file, name: 'the fixture file', at: file, status: 'error', message: err.message, errors: [diagnostic('fixture/unreadable', 'error', err.message)] });
  }
  return { results, skipped };
}

function defaultFile(policy: CompiledPolicy): string {
  return policy.ir.sources[0] ?? 'policy';
}

/** The counts of a list of cases; `skipped` is the number of fixture lines that were no case. */
export function countCases(results: readonly CaseResult[], skipped = 0): CaseCounts {
  const count = (s: CaseStatus) => results.filter((r) => r.status === s).length;
  return { passed: count('passed'), failed: count('failed'), errors: count('error'), skippedCases: count('skipped'), skipped };
}

/** Runs the policy's `test` cases, then the fixture files' lines with `expect`, in order. */
export async function runPolicyTests(policy: CompiledPolicy, opts: PolicyTestOptions = {}): Promise<PolicyTestRun> {
  const { runner, stdin } = opts;
  const file = opts.file ?? defaultFile(policy);
  const results: CaseResult[] = [];
  for (const tc of policy.ir.tests) results.push(await runPolicyTestCase(policy, tc, { runner, file }));
  let skipped = 0;
  for (const f of opts.fixtures ?? []) {
    const r = await runFixtureFile(policy, f, { runner, stdin });
    results.push(...r.results);
    skipped += r.skipped;
  }
  return { results, counts: countCases(results, skipped) };
}
