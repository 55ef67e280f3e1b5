/**
 * Rule coverage of a set of evaluated cases, as data: per rule of the policy, how often its hits
 * decided, were outranked by a stricter level, or allowed only part of a command (read off the
 * decisions' traces), and for every rule that never decided, the best explanation that can be
 * computed of why not (no event on its seam, none for its tools, its selectors or condition never
 * matched, always outranked, its hook not run, ...). What `dshpolicy test --coverage` shows.
 *
 * Promises: one row per distinct rule id, in the policy's order; the counts come from the cases'
 * traces alone, and the explanations from evaluating copies of the rule, never a command hook.
 */
import { compilePolicy, type CompiledPolicy } from '../compile.js';
import { match } from '../evaluate.js';
import type { AnyDecision } from '../evaluate-agent.js';
import type { AnyEvent, PolicyEvent } from '../events.js';
import { IR_VERSION, TOOL_SEAMS, type Rule, type Seam } from '../ir.js';
import type { CaseResult } from './run.js';

/** One evaluated case: the event and what the policy decided for it. */
export interface CoverageCase {
  event: AnyEvent;
  decision: AnyDecision;
}

export interface CoverageRow {
  /** The rule id (`file:line:col` for rules written in the language). */
  rule: string;
  seam: string;
  effect: string;
  /** Cases in which the rule fired (any of the counts below, or a hook that ran with no opinion). */
  hits: number;
  /** Cases in which it was among the rules that decided (a `limit` that ended a continuation included). */
  decided: number;
  /** Cases in which it fired but a stricter level decided. */
  outranked: number;
  /** Cases in which it was an `allow` that covered only some parts of the command. */
  partial: number;
  /** For a rule that never decided: why not, as best we can tell. */
  why?: string;
}

export interface CoverageReport {
  rows: CoverageRow[];
  /** Number of rules. */
  rules: number;
  /** Rules with at least one hit. */
  hit: number;
  /** Rules that decided at least once. */
  decided: number;
  /** `hit / rules` (1 when there are no rules). */
  share: number;
}

interface Tally {
  rule: Rule;
  hits: number;
  decided: number;
  outranked: number;
  partial: number;
  /** Hooks that ran but answered nothing. */
  ran: number;
  /** Rules that decided where this one was outranked, with how often. */
  outrankedBy: Map<string, number>;
  partialNote?: string;
}

const code = (s: string) => `\`${s}\``;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export interface CoverageOptions {
  /** Whether the cases ran their command hooks (`test --run-hooks`); by default they did. */
  hooksRun?: boolean;
  /** The events of the cases skipped because they waited on hooks that were not run. */
  skipped?: readonly AnyEvent[];
  /** Said after why a rule whose hook was not run never decided: how the host runs hooks (the CLI: ` (pass --run-hooks)`). */
  notRunHint?: string;
}

/** Counts, per rule of the policy, how the cases' decisions used it, and explains each rule that never decided. */
export function computeCoverage(policy: CompiledPolicy, cases: readonly CoverageCase[], opts: CoverageOptions = {}): CoverageReport {
  const tallies = new Map<string, Tally>();
  for (const rule of policy.ir.rules) {
    if (!tallies.has(rule.id)) tallies.set(rule.id, { rule, hits: 0, decided: 0, outranked: 0, partial: 0, ran: 0, outrankedBy: new Map() });
  }
  for (const { decision: d } of cases) {
    const seen = new Set<string>();
    for (const entry of d.trace) {
      const t = tallies.get(entry.rule);
      if (!t || seen.has(entry.rule)) continue;
      seen.add(entry.rule);
      const rule = t.rule;
      switch (entry.outcome) {
        case 'decided':
        case 'limited':
          t.decided++;
          break;
        case 'outranked':
          // A context rule whose text reached the model did its job, even if the level it
          // belongs to did not decide (post-tool `block` keeps the context).
          if (rule.effect === 'context' && rule.text !== undefined && d.context.includes(rule.text)) t.decided++;
          else {
            t.outranked++;
            for (const by of d.rules) if (by !== rule.id) t.outrankedBy.set(by, (t.outrankedBy.get(by) ?? 0) + 1);
          }
          break;
        case 'partial':
          t.partial++;
          t.partialNote ??= entry.note;
          break;
        case 'abstained':
          // A `limit` that was not reached did nothing; a hook that ran did run.
          if (rule.effect !== 'run') continue;
          t.ran++;
          break;
      }
      t.hits++;
    }
  }
  const rows: CoverageRow[] = [];
  for (const t of tallies.values()) {
    const row: CoverageRow = {
      rule: t.rule.id,
      seam: t.rule.seam,
      effect: t.rule.effect,
      hits: t.hits,
      decided: t.decided,
      outranked: t.outranked,
      partial: t.partial,
    };
    if (t.decided === 0) {
      // A `run` rule whose hooks did not run is explained over the skipped cases too: they waited on it.
      const notRun = opts.hooksRun === false && t.rule.effect === 'run';
      row.why = notRun ? whyNot(t, [...cases, ...(opts.skipped ?? []).map((event) => ({ event }))], true, opts.notRunHint ?? '') : whyNot(t, cases, false, '');
    }
    rows.push(row);
  }
  const hit = rows.filter((r) => r.hits > 0).length;
  return {
    rows,
    rules: rows.length,
    hit,
    decided: rows.filter((r) => r.decided > 0).length,
    share: rows.length === 0 ? 1 : hit / rows.length,
  };
}

/** The events the rule's seam sees among the cases. */
function seamEvents(seam: Seam, cases: readonly { event: AnyEvent }[]): PolicyEvent[] {
  return cases.flatMap((c) => (c.event.seam === seam ? [c.event] : []));
}

/**
 * How many of the events a copy of the rule reaches (its trace or its pending hooks), the copy
 * keeping only some of its parts. The copy is a `deny` with no hook unless `asRun` is set, so only
 * its tools, selectors and condition decide whether it fires.
 */
function reached(rule: Rule, events: readonly PolicyEvent[], keep: { selectors: boolean; when: boolean; asRun?: boolean }): number {
  const copy: Rule = { id: rule.id, seam: rule.seam, effect: keep.asRun ? 'run' : 'deny' };
  if (rule.tools) copy.tools = rule.tools;
  if (keep.selectors && rule.selectors) copy.selectors = rule.selectors;
  if (keep.when && rule.when) copy.when = rule.when;
  if (keep.asRun && rule.hook) copy.hook = rule.hook;
  const policy = compilePolicy({ version: IR_VERSION, sources: [], rules: [copy], tests: [] });
  let n = 0;
  for (const e of events) {
    const m = match(policy, e);
    // a `Read` or `Write` rule also judges the files a command reads or writes: those events are the command's tool's cases
    const t = m.trace.get(rule.id);
    if ((t !== undefined && !t.note?.startsWith('a file the command')) || m.pending.some((p) => p.rule.id === rule.id)) n++;
  }
  return n;
}

function mostFrequent(counts: Map<string, number>, max: number): string[] {
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, max).map(([id]) => id);
}

/** Why the rule never decided; `notRun`: it is a `run` rule and no hook was run (then `hint` follows). */
function whyNot(t: Tally, cases: readonly { event: AnyEvent }[], notRun: boolean, hint: string): string {
  const rule = t.rule;
  // It fired, but never decided.
  if (t.outranked > 0) {
    const by = mostFrequent(t.outrankedBy, 3);
    const more = t.outrankedBy.size > by.length ? `, +${t.outrankedBy.size - by.length} more` : '';
    const level = by.length > 0 ? ` (${by.map(code).join(', ')}${more})` : '';
    return `always outranked by a stricter rule${level}`;
  }
  if (t.partial > 0) return `it only ever allowed part of a command${t.partialNote ? ` (${t.partialNote})` : ''}`;
  if (t.ran > 0) return `its hook ran on ${plural(t.ran, 'case')} but never answered with a decision`;

  if (rule.seam === 'agent-event') {
    const name = rule.hook?.event;
    const same = cases.filter((c) => c.event.seam === 'agent-event' && c.event.event === name).length;
    if (same === 0) return `no case has the agent event ${code(name ?? '?')}`;
    if (notRun) return `its hook was not run on the ${plural(same, `${code(name ?? '?')} case`)}${hint}`;
    return `its hook's agent, matcher or \`if\` never selected the ${plural(same, `${code(name ?? '?')} case`)}`;
  }
  const events = seamEvents(rule.seam, cases);
  if (events.length === 0) return 'no case has an event on its seam';
  if (rule.effect === 'limit') return `its limit (${rule.limit ?? '?'}) was never reached on the ${plural(events.length, 'stop case')}`;

  const toolSeam = (TOOL_SEAMS as readonly string[]).includes(rule.seam);
  // `where(n)`: the cases that came closest so far, said with their number.
  let pool = events.length;
  let where = (n: number) => `${plural(n, `${rule.seam} case`)}`;
  if (toolSeam && rule.tools && rule.tools.length > 0) {
    const tools = rule.tools.map(code).join(', ');
    pool = reached(rule, events, { selectors: false, when: false });
    if (pool === 0) return `no case has an event for its tools (${tools})`;
    where = (n) => `${plural(n, 'case')} for its tools (${tools})`;
  }
  const selectors = rule.selectors ?? [];
  if (selectors.length > 0) {
    const n = reached(rule, events, { selectors: true, when: false });
    const kinds = [...new Set(selectors.map((s) => code(s.kind)))];
    if (n === 0) {
      const what = kinds.length === 1 ? `its ${kinds[0]!} selector` : `its selectors (${kinds.join(', ')}) together`;
      return `${what} never matched on the ${where(pool)}`;
    }
    pool = n;
    where = (k) => `${plural(k, 'case')} its selectors matched`;
  }
  if (rule.when) {
    const n = reached(rule, events, { selectors: true, when: true });
    if (n === 0) return `its condition never matched on the ${where(pool)}`;
    pool = n;
    where = (k) => `${plural(k, 'case')} its ${selectors.length > 0 ? 'selectors and condition' : 'condition'} matched`;
  }
  if (rule.effect === 'run') {
    const n = reached(rule, events, { selectors: true, when: true, asRun: true });
    if (n === 0) return `its hook's matcher or \`if\` never selected the ${where(pool)}`;
    if (notRun) return `its hook was not run on the ${where(n)}${hint}`;
  }
  // The parts of the rule each match somewhere; what remains is an allow whose command patterns
  // match a part only in the any-part sense, or a rule the cases reach only together.
  if (rule.effect === 'allow' && selectors.some((s) => s.kind === 'command')) {
    return `its command patterns never allowed a part of the command on the ${where(pool)}`;
  }
  return `no case reached it (the ${where(pool)} came closest)`;
}

/**
 * The coverage of a test run (runPolicyTests): its cases that reached a decision, with the events
 * of the skipped ones to explain the `run` rules they waited on. `hooksRun`: whether the run had
 * a hook runner.
 */
export function coverageOfCases(policy: CompiledPolicy, results: readonly CaseResult[], opts: { hooksRun: boolean; notRunHint?: string }): CoverageReport {
  const cases = results.flatMap((r): CoverageCase[] => (r.event && r.decision ? [{ event: r.event, decision: r.decision }] : []));
  const skipped = results.flatMap((r) => (r.status === 'skipped' && r.event ? [r.event] : []));
  return computeCoverage(policy, cases, { hooksRun: opts.hooksRun, skipped, ...(opts.notRunHint !== undefined ? { notRunHint: opts.notRunHint } : {}) });
}
