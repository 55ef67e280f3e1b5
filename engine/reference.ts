/**
 * The reference interpreter: a deliberately plain evaluator to test and measure the indexed one
 * (evaluate.ts) against. For an event it scans every rule of the IR in order and tests the rule's
 * seam, tools, selectors and `when` one by one: no index by seam or tool, nothing kept between
 * events. The matching primitives (globs, command patterns, regexes, `when` closures) and the
 * decision algebra are the engine's own; only the walk over the rules is independent.
 *
 * Rules are compiled once by `referencePolicy` (compiling a regex per event would measure the
 * regex compiler, not the scan); that list is the only state, and it is the IR's list, unindexed.
 *
 * Command hooks are not run: a `run` rule that matches is reported in `pendingHooks`, as
 * `evaluateSync` does. Traces are not produced.
 */
import type { PolicyEvent } from './events.js';
import type { DecisionWord, PolicyIR, Seam } from './ir.js';
import { decide, verdict, type Hit, type HitEffect } from './algebra.js';
import { agentMatcherSelects, compileRule, ifSelects, selectorMatches, toolApplies, type CompiledRule } from './compile.js';
import { EventView } from './fields.js';
import { cappedHit } from './evaluate.js';
import { judgeWrites, writesFiles } from './writes.js';
import { judgeReads, READ_TOOL } from './reads.js';
import { SHELL_TOOLS } from './tools.js';
import { matchCommandPart } from './shell/index.js';
import { enforcedRules } from './protect.js';

export interface ReferencePolicy {
  ir: PolicyIR;
  /** Every rule of the IR, compiled, in IR order, then the built-in self-protection rules. */
  rules: CompiledRule[];
}

export interface ReferenceDecision<S extends Seam = Seam> {
  seam: S;
  decision: DecisionWord<S>;
  reasons: string[];
  reason?: string;
  context: string[];
  rules: string[];
  /** Ids of the `run` rules that matched (not run). */
  pendingHooks: string[];
}

/** Compiles each rule of an IR on its own, the built-in self-protection rules too: the plain list the reference scans. */
export function referencePolicy(ir: PolicyIR): ReferencePolicy {
  return { ir, rules: enforcedRules(ir).map((r, i) => compileRule(r, i)) };
}

function hit(cr: CompiledRule, effect: HitEffect): Hit {
  const r = cr.rule;
  const h: Hit = { rule: r.id, effect, order: cr.order };
  if (r.reason !== undefined) h.reason = r.reason;
  if (r.text !== undefined) h.text = r.text;
  if (r.limit !== undefined) h.limit = r.limit;
  return h;
}

/** Whether a rule applies to the event's seam and tool. Rules off tool seams have no tool list. */
function appliesTo(cr: CompiledRule, event: PolicyEvent): boolean {
  if (cr.rule.seam !== event.seam) return false;
  if (event.seam !== 'pre-tool' && event.seam !== 'post-tool') return true;
  return toolApplies(cr, event.tool);
}

/** The hits of a `Write` or `Read` event (no command, so no allows by command and no writes or reads of its own). */
function fileHits(rules: readonly CompiledRule[], event: PolicyEvent, view: EventView = new EventView(event)): Hit[] {
  const out: Hit[] = [];
  for (const cr of rules) {
    if (!appliesTo(cr, event)) continue;
    const r = cr.rule;
    if (r.effect === 'run') continue;
    if (r.effect === 'allow' && cr.selectors.some((s) => s.kind === 'command')) continue;
    if (!cr.selectors.every((s) => selectorMatches(s, view))) continue;
    if (cr.when && !cr.when(view)) continue;
    out.push(hit(cr, r.effect as HitEffect));
  }
  return out;
}

/** Whether some deny or ask rule applies to `Read` events (by seam and tool). */
function readRulesExist(rules: readonly CompiledRule[]): boolean {
  const probe: PolicyEvent = { seam: 'pre-tool', tool: READ_TOOL, input: {} };
  return rules.some((cr) => (cr.rule.effect === 'deny' || cr.rule.effect === 'ask') && appliesTo(cr, probe));
}

/** Evaluates an event by scanning every rule. Accepts an IR (compiled on the spot) or a prepared list. */
export function evaluateReference(policy: ReferencePolicy | PolicyIR, event: PolicyEvent): ReferenceDecision {
  const rules = 'version' in policy ? referencePolicy(policy).rules : policy.rules;
  const view = new EventView(event);
  const hits: Hit[] = [];
  const pendingHooks: string[] = [];
  // Allow rules with a command selector: the parts of the command each one covers.
  const allows: { cr: CompiledRule; covers: boolean[] }[] = [];

  for (const cr of rules) {
    if (!appliesTo(cr, event)) continue;
    const r = cr.rule;
    const command = r.effect === 'allow' ? cr.selectors.find((s) => s.kind === 'command') : undefined;
    const others = cr.selectors.filter((s) => s !== command);
    if (!others.every((s) => selectorMatches(s, view))) continue;
    if (cr.when && !cr.when(view)) continue;
    if (command && command.kind === 'command') {
      // An allow by command decides only when every part of the command is allowed by some rule.
      const analysis = view.commandAnalysis();
      if (!analysis) continue;
      const covers = analysis.parts.map((part) => command.patterns.some((p) => matchCommandPart(p, part, 'allow')));
      if (covers.some(Boolean)) allows.push({ cr, covers });
      continue;
    }
    if (r.effect === 'run') {
      const call = event.seam === 'pre-tool' || event.seam === 'post-tool' ? { tool: event.tool, input: event.input } : undefined;
      if (agentMatcherSelects(cr, view) && ifSelects(cr, call, event)) pendingHooks.push(r.id);
      continue;
    }
    hits.push(hit(cr, r.effect as HitEffect));
  }

  let writesAllowed: boolean[] | undefined;
  if (event.seam === 'pre-tool') {
    const parts = view.commandAnalysis()?.parts;
    if (parts !== undefined && writesFiles(parts)) {
      const judged = judgeWrites(parts, event, (writeEvent, writeView) => fileHits(rules, writeEvent, writeView));
      for (const h of judged.hits) hits.push(h);
      writesAllowed = judged.allowed;
    }
    // The files a shell command reads, judged by the `Read` rules for deny and ask, when some deny or ask applies to `Read`.
    if (parts !== undefined && SHELL_TOOLS.includes(event.tool) && readRulesExist(rules)) {
      for (const h of judgeReads(parts, event, (read) => fileHits(rules, read.event(), read.view())).hits) hits.push(h);
    }
  }

  if (allows.length > 0) {
    const parts = view.commandAnalysis()?.parts ?? [];
    const whole =
      parts.length > 0 &&
      parts.every(
        (p, i) =>
          p.unknowable === null &&
          (p.words.length === 0 || p.transparent === true || allows.some((a) => a.covers[i])) &&
          (writesAllowed === undefined || writesAllowed[i] === true),
      );
    if (whole) for (const a of allows) hits.push(hit(a.cr, 'allow'));
  }

  const capped = event.seam === 'pre-tool' ? view.commandAnalysis()?.capped : undefined;
  if (capped !== undefined && event.seam === 'pre-tool') {
    let strictest: 'deny' | 'ask' | null = null;
    for (const cr of rules) {
      if (!appliesTo(cr, event)) continue;
      if (cr.rule.effect === 'deny') strictest = 'deny';
      else if (cr.rule.effect === 'ask' && strictest === null) strictest = 'ask';
    }
    const h = cappedHit(strictest, capped, event.tool);
    if (h !== null) hits.push(h);
  }

  const continuations = event.seam === 'stop' ? (event.continuations ?? (event.stop_hook_active ? 1 : 0)) : 0;
  const d = decide(verdict(event.seam, hits), { continuations });
  const out: ReferenceDecision = {
    seam: event.seam,
    decision: d.decision as DecisionWord<Seam>,
    reasons: d.reasons,
    context: d.context,
    rules: d.rules,
    pendingHooks,
  };
  if (d.reasons.length > 0) out.reason = d.reasons.join('\n\n');
  return out;
}
