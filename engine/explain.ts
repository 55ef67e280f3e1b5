/**
 * Explaining a decision: which rules fired (from the decision's trace), which rules of the event's
 * seam did not and the first reason why, and how a shell command split into parts and which rules
 * matched each part.
 *
 * Nothing here is on the evaluator's path: it re-walks the seam's rules after the fact, testing the
 * same compiled tool matchers, selectors, `when` closures, hook matchers and `if` rules in the
 * order `match()` (evaluate.ts) and `agentEventCandidates()` (evaluate-agent.ts) test them.
 */
import type { AgentEvent, AnyEvent, PolicyEvent } from './events.js';
import type { Expr, Seam, Selector } from './ir.js';
import { exprText, fieldText } from './expr-text.js';
import {
  agentMatcherSelects,
  candidates,
  compileExpr,
  compileSelector,
  ifSelects,
  indexFor,
  selectorMatches,
  type CompiledPolicy,
  type CompiledRule,
  type CompiledSelector,
} from './compile.js';
import { asText, EventView } from './fields.js';
import { matchCommandPart, type CommandPart } from './shell/index.js';
import { uncoveredWord, type PatternWord, type Uncovered } from './shell/pattern.js';
import { agentEventInfo, dialectTitle } from './hooks/protocol.js';
import { describeReads, partReads, READ_TOOL } from './reads.js';
import { SHELL_TOOLS, TOOL_ALIASES } from './tools.js';
import { compileToolGlob } from './match/index.js';
import { evaluate, evaluateSync, type Decision, type HookRunner, type TraceEntry } from './evaluate.js';
import { agentEventCandidates, agentMatcherSelectsEvent, evaluateAgentEvent, agentEventMatchValue, agentEventToolCall, type AgentEventDecision, type AnyDecision } from './evaluate-agent.js';
import { alternatives, type Diagnostic } from './diagnostics.js';
import { SELF_PROTECTION_ID } from './protect.js';

/** A rule that fired: its trace entry, or a `run` rule whose hook was not run (`pending`). */
export interface ExplainedRule extends Omit<TraceEntry, 'outcome'> {
  outcome: TraceEntry['outcome'] | 'pending';
  /** `file:line:col` of the rule's source, when its id is not already that (imported hooks). */
  at?: string;
}

/** Which test a skipped rule failed first. */
export type SkipStage = 'tool' | 'selector' | 'when' | 'matcher' | 'if' | 'agent' | 'other';

export interface SkippedRule {
  rule: string;
  at?: string;
  effect: string;
  stage: SkipStage;
  why: string;
}

export interface PartRule {
  rule: string;
  effect: string;
}

export interface ExplainedPart {
  /** The part's source text (clipped). */
  text: string;
  /** The words as written, after quote removal. */
  words: string[];
  /** The wrappers looked through to reach the innermost command (`sudo`, `nice`, ...). */
  wrappers?: string[];
  /** True when one of those wrappers is not privilege-neutral: an allow does not look through it. */
  privileged?: boolean;
  /** Why the part cannot be known statically; such a part is never allowed. */
  unknowable?: string;
  /** The files its redirections write: each is judged as a `Write` of that file. */
  writes?: string[];
  /**
   * The files it reads (its input redirections, what its programs read), each judged as a `Read`
   * of that file for deny and ask; shown when the policy has deny or ask rules on `Read`.
   */
  reads?: string[];
  /** The part runs only the parts after it (`bash -c '...'`): an allow needs only those. */
  transparent?: boolean;
  /** The rules that fired and match this part (allow rules: those that cover it). */
  rules: PartRule[];
  /** Whether some allow rule covers this part (an allow by command needs every part covered). */
  allowed: boolean;
}

export interface Explanation {
  seam: Seam | 'agent-event';
  /** An agent event's name. */
  event?: string;
  decision: string;
  reasons: string[];
  context: string[];
  /** The rules that decided. */
  rules: string[];
  matched: ExplainedRule[];
  skipped: SkippedRule[];
  /** The parts of the call's shell command, when it has one. */
  parts?: ExplainedPart[];
  /** `run` rules that matched but whose hooks were not run. */
  pending: string[];
  updatedInput?: Record<string, unknown>;
  output?: Record<string, unknown>;
  diagnostics: Diagnostic[];
}

/** A decision, possibly from `evaluateSync` (which lists the hooks it did not run). */
export type ExplainableDecision = AnyDecision & { pendingHooks?: string[] };

const MAX_PART_TEXT = 200;
const MAX_SHOWN = 80;

function clip(text: string, max = MAX_SHOWN): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function code(text: string): string {
  return `\`${clip(text)}\``;
}


function locationOf(cr: CompiledRule): string | undefined {
  const s = cr.rule.span;
  if (!s) return undefined;
  const at = `${s.file}:${s.start.line}:${s.start.column}`;
  return at === cr.rule.id ? undefined : at;
}

function shownValue(v: unknown): string {
  if (v === undefined) return 'absent';
  const t = typeof v === 'string' ? JSON.stringify(v) : (asText(v) ?? 'absent');
  return clip(t);
}

/** What the fields of a comparison hold, for `(input.sql is "select 1")`. */
function fieldFact(e: Expr, view: EventView): string | undefined {
  if (e.op === 'compare' || e.op === 'exists') return `\`${fieldText(e.field)}\` is ${shownValue(view.field(e.field))}`;
  return undefined;
}

function holds(e: Expr, view: EventView): boolean {
  return compileExpr(e)(view);
}

/** Why a condition that is false is false: the first false conjunct, down to a comparison. */
export function whyFalse(e: Expr, view: EventView): string {
  switch (e.op) {
    case 'and': {
      const failed = e.args.find((a) => !holds(a, view));
      return failed ? whyFalse(failed, view) : `${code(exprText(e))} is false`;
    }
    case 'or':
      return `no alternative of ${code(exprText(e))} holds: ${e.args.map((a) => whyFalse(a, view)).join('; ')}`;
    case 'not': {
      const fact = e.arg.op === 'ran' ? ranFact(e.arg, view) : fieldFact(e.arg, view);
      return `${code(exprText(e))} is false: ${code(exprText(e.arg))} holds${fact ? ` (${fact})` : ''}`;
    }
    case 'compare':
    case 'exists':
      return `${code(exprText(e))} is false (${fieldFact(e, view)!})`;
    case 'const':
      return 'the condition is `false`';
    case 'ran': {
      const ev = view.event;
      const n = ev.seam === 'stop' ? ev.turn.length : 0;
      return `${code(exprText(e))} is false: ${n === 0 ? 'the turn ran no tool' : `none of the turn's ${n} tool call${n === 1 ? '' : 's'} matches`}`;
    }
  }
}

/** Which call of the turn a true `ran` matched. */
function ranFact(e: Expr & { op: 'ran' }, view: EventView): string | undefined {
  const ev = view.event;
  if (ev.seam !== 'stop') return undefined;
  const tools = e.tools.length > 0 ? e.tools.map(compileToolGlob) : null;
  const selectors = e.selectors.map(compileSelector);
  for (const call of ev.turn) {
    if (tools && !tools.some((t) => t.test(call.tool))) continue;
    const callView = view.forToolCall(call);
    if (selectors.every((s) => selectorMatches(s, callView))) {
      const c = call.input['command'];
      return `the turn ran ${typeof c === 'string' ? `${call.tool} ${code(c)}` : call.tool}`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Why a rule's tests fail

function toolWhy(cr: CompiledRule, tool: string): string {
  const tools = cr.rule.tools ?? [];
  const is = (TOOL_ALIASES[tool] ?? []).filter((a) => tools.includes(a));
  if (is.length > 0) {
    const also = `\`${tool}\` is also ${alternatives(is.map((t) => `\`${t}\``))}`;
    if (cr.rule.effect === 'run') return `${also}, but a \`run\` rule runs only on the tools it names`;
    return `${also}, but an \`allow\` vouches only for the tools it names`;
  }
  if (tools.length === 1) return `\`${tool}\` is not \`${tools[0]}\``;
  return `\`${tool}\` is none of ${alternatives(tools.map((t) => `\`${t}\``))}`;
}

function selectorWhy(s: CompiledSelector, src: Selector | undefined, view: EventView): string {
  const values = src ? (src.kind === 'command' ? src.patterns : src.globs) : [];
  const listed = alternatives(values.map((v) => code(v)));
  switch (s.kind) {
    case 'command': {
      const analysis = view.commandAnalysis();
      if (!analysis) return 'the call has no `command`';
      return `no part of the command matches ${listed}`;
    }
    case 'path': {
      const p = view.path();
      if (p === undefined) return 'the call has no path';
      return `path ${code(p)} matches no glob of ${listed}`;
    }
    case 'url': {
      const u = view.url();
      if (u === undefined) return 'the call has no `url`';
      return `url ${code(u)} matches no glob of ${listed}`;
    }
    case 'domain': {
      const d = view.domain();
      if (d === undefined) return view.url() === undefined ? 'the call has no `url`' : `url ${code(view.url()!)} has no host`;
      return `domain ${code(d)} matches no glob of ${listed}`;
    }
  }
}

/**
 * An allow by command that covered no part: say why the closest part fell short (it matched only
 * behind a privileged wrapper, from an untrusted program path, or it is unknowable).
 */
function coverWhy(s: CompiledSelector & { kind: 'command' }, src: Selector | undefined, parts: CommandPart[]): string {
  const values = src && src.kind === 'command' ? src.patterns : s.patterns.map((p) => p.source);
  const listed = alternatives(values.map((v) => code(v)));
  for (const part of parts) {
    const pattern = s.patterns.find((p) => matchCommandPart(p, part, 'any'));
    if (!pattern) continue;
    const shown = code(clip(part.text, MAX_PART_TEXT));
    if (part.unknowable !== null) return `${shown} matches ${code(pattern.source)} but cannot be known (${part.unknowable}), so no allow covers it`;
    const views = part.views.length > 0 ? part.views : [{ words: part.words, wrappers: [], neutral: true }];
    const view = views.find((v) => !v.neutral && matchCommandPart(pattern, { ...part, views: [{ ...v, neutral: true }] }, 'allow'));
    if (view) {
      const privileged = view.wrappers.filter((w) => w === 'sudo' || w === 'doas' || w === 'xargs');
      const named = privileged.length > 0 ? privileged : view.wrappers;
      return `${shown} matches ${code(pattern.source)} only through ${alternatives(named.map((w) => `\`${w}\``), 'and')}, which an allow does not look through`;
    }
    for (const v of views) {
      const uncovered = v.neutral ? uncoveredWord(pattern.words as readonly PatternWord[], v.words) : null;
      if (uncovered) return `${shown} matches ${code(pattern.source)}, but ${uncoveredText(uncovered)}, which a \`*\` of an allow pattern does not cover; name it in the pattern to allow it`;
    }
    return `${shown} matches ${code(pattern.source)} only by the program's base name, and an allow trusts only programs in the system bin directories`;
  }
  return `no part of the command matches ${listed}`;
}

/** `its \`--pre\` runs code`, `its operand \`out\` is a file it writes`: what an allow does not cover. */
function uncoveredText(u: Uncovered): string {
  const word = code(u.word);
  if (u.kind === 'option') {
    if (u.effect === 'unknown') return `its ${word} may be an option that runs code or writes a file`;
    return `its ${word} ${u.effect === 'runs' ? 'runs code' : 'writes a file'}`;
  }
  if (u.effect === 'unknown') return `its computed word ${word} may be an option that runs code or writes a file`;
  return u.effect === 'runs' ? `its operand ${word} is code it runs` : `its operand ${word} is a file it writes`;
}

function matcherValue(event: PolicyEvent): string | undefined {
  if (event.seam === 'pre-tool' || event.seam === 'post-tool') return event.tool;
  if (event.seam === 'session-start') return event.source;
  return undefined;
}

function ifWhy(cr: CompiledRule, hasCall: boolean): string {
  const text = cr.rule.hook?.if ?? '';
  if (cr.ifRule === 'invalid') return `the hook's \`if\` rule ${code(text)} does not parse, so the hook never runs`;
  if (!hasCall) return `the hook has the \`if\` rule ${code(text)}, and the event has no tool call, so it never runs`;
  return `the hook's \`if\` rule ${code(text)} does not match the call`;
}

/** The first test a seam rule fails, in the order `match()` tests them; undefined if it passes all. */
function seamSkip(cr: CompiledRule, view: EventView, inCandidates: boolean): { stage: SkipStage; why: string } | undefined {
  const r = cr.rule;
  const event = view.event;
  if (!inCandidates) return { stage: 'tool', why: toolWhy(cr, view.tool ?? '') };
  const srcs = r.selectors ?? [];
  const commandIdx = r.effect === 'allow' ? cr.selectors.findIndex((s) => s.kind === 'command') : -1;
  for (let i = 0; i < cr.selectors.length; i++) {
    if (i === commandIdx) continue;
    const s = cr.selectors[i]!;
    if (!selectorMatches(s, view)) return { stage: 'selector', why: selectorWhy(s, srcs[i], view) };
  }
  if (cr.when && !cr.when(view)) {
    let why = 'the `when` condition is false';
    try {
      if (r.when) why = whyFalse(r.when, view);
    } catch {
      // keep the plain statement
    }
    return { stage: 'when', why };
  }
  if (commandIdx >= 0) {
    const s = cr.selectors[commandIdx]! as CompiledSelector & { kind: 'command' };
    const analysis = view.commandAnalysis();
    if (!analysis) return { stage: 'selector', why: 'the call has no `command`' };
    if (!analysis.parts.some((p) => s.patterns.some((pat) => matchCommandPart(pat, p, 'allow')))) {
      return { stage: 'selector', why: coverWhy(s, srcs[commandIdx], analysis.parts) };
    }
    return undefined;
  }
  if (r.effect === 'run') {
    if (!agentMatcherSelects(cr, view)) {
      const v = matcherValue(event as PolicyEvent);
      return { stage: 'matcher', why: `the hook's matcher ${code(r.hook?.matcher ?? '')} does not match ${v === undefined ? 'the event' : code(v)}` };
    }
    const call = event.seam === 'pre-tool' || event.seam === 'post-tool' ? { tool: event.tool, input: event.input } : undefined;
    if (!ifSelects(cr, call, event)) return { stage: 'if', why: ifWhy(cr, call !== undefined) };
  }
  return undefined;
}

// Agent events: the tests of `agentEventCandidates` (evaluate-agent.ts), one by one.


function agentSkip(cr: CompiledRule, event: AgentEvent): { stage: SkipStage; why: string } {
  const hook = cr.rule.hook;
  if (!hook) return { stage: 'other', why: 'the rule has no hook' };
  if (event.agent !== undefined && hook.dialect !== event.agent) {
    return { stage: 'agent', why: `a ${dialectTitle(hook.dialect)} hook, and the event is ${dialectTitle(event.agent)}'s` };
  }
  const info = agentEventInfo(hook.dialect, event.event);
  if (!info) return { stage: 'agent', why: `${dialectTitle(hook.dialect)} has no \`${event.event}\` event` };
  const value = agentEventMatchValue(info, event);
  if (cr.matcher && value !== undefined) {
    if (!agentMatcherSelectsEvent(cr, info, event)) {
      const what = value === '' ? `the event's empty \`${info.matchField}\`` : code(value);
      return { stage: 'matcher', why: `the hook's matcher ${code(hook.matcher ?? '')} does not match ${what}` };
    }
  }
  const call = agentEventToolCall(event, hook.dialect);
  if (!ifSelects(cr, call, event)) return { stage: 'if', why: ifWhy(cr, call !== undefined) };
  return { stage: 'other', why: 'the hook did not run' };
}

// ---------------------------------------------------------------------------------------------

function explainParts(policy: CompiledPolicy, view: EventView, fired: Set<string>): ExplainedPart[] | undefined {
  const analysis = view.commandAnalysis();
  if (!analysis) return undefined;
  const tool = view.tool;
  const rules = candidates(policy, view.event.seam as Seam, tool).filter((cr) => fired.has(cr.rule.id));
  // as match() judges them: a shell call's reads, when some deny or ask applies to `Read`
  const reads = view.event.seam === 'pre-tool' && tool !== undefined && SHELL_TOOLS.includes(tool) && indexFor(policy, 'pre-tool', READ_TOOL).strictest !== null;
  return analysis.parts.map((part) => {
    const views = part.views;
    const last = views[views.length - 1];
    const out = { text: clip(part.text, MAX_PART_TEXT), words: part.words.map((w) => w.value) } as ExplainedPart;
    if (last && last.wrappers.length > 0) {
      out.wrappers = last.wrappers;
      if (!last.neutral) out.privileged = true;
    }
    if (part.unknowable !== null) out.unknowable = part.unknowable;
    if (part.writes !== undefined || part.operandWrites !== undefined)
      out.writes = [...(part.operandWrites ?? []), ...(part.writes ?? [])].map((w) => clip(w.value, MAX_PART_TEXT));
    if (reads) {
      const read = describeReads(partReads(part));
      if (read.length > 0) out.reads = read.map((r) => clip(r, MAX_PART_TEXT));
    }
    if (part.transparent === true) out.transparent = true;
    out.rules = [];
    out.allowed = false;
    for (const cr of rules) {
      const sel = cr.selectors.find((s) => s.kind === 'command');
      if (!sel || sel.kind !== 'command') continue;
      const mode = cr.rule.effect === 'allow' ? 'allow' : 'any';
      if (sel.patterns.some((p) => matchCommandPart(p, part, mode))) {
        out.rules.push({ rule: cr.rule.id, effect: cr.rule.effect });
        if (mode === 'allow') out.allowed = true;
      }
    }
    return out;
  });
}

function matchedOf(policy: CompiledPolicy, decision: ExplainableDecision): ExplainedRule[] {
  const byId = new Map<string, CompiledRule>();
  for (const cr of allRules(policy)) byId.set(cr.rule.id, cr);
  const out: ExplainedRule[] = decision.trace.map((t) => {
    const e: ExplainedRule = { ...t };
    if (t.effect === 'limit' && t.outcome === 'abstained' && t.note === undefined) e.note = 'the loop guard was not reached';
    const cr = byId.get(t.rule);
    const at = cr ? locationOf(cr) : undefined;
    if (at) e.at = at;
    return e;
  });
  for (const id of decision.pendingHooks ?? []) {
    const e: ExplainedRule = { rule: id, effect: 'run', outcome: 'pending', note: 'the hook was not run' };
    const cr = byId.get(id);
    const at = cr ? locationOf(cr) : undefined;
    if (at) e.at = at;
    out.push(e);
  }
  // Source order (the trace lists partial allows last); entries without a rule (`(default limit)`) last.
  const index = (id: string) => byId.get(id)?.index ?? Number.MAX_SAFE_INTEGER;
  return out.sort((a, b) => index(a.rule) - index(b.rule));
}

function allRules(policy: CompiledPolicy): CompiledRule[] {
  const out: CompiledRule[] = [];
  for (const idx of Object.values(policy.seams)) out.push(...idx.all);
  for (const list of policy.agentEvents.values()) out.push(...list);
  return out;
}

/**
 * Explains a decision the policy made for an event: the rules that fired (from the decision's
 * trace, plus hooks not run), every other rule of the event's seam with the first test it failed,
 * and the parts of a shell command with the rules that matched each.
 */
export function explainEvent(policy: CompiledPolicy, event: AnyEvent, decision: ExplainableDecision): Explanation {
  const matched = matchedOf(policy, decision);
  const fired = new Set(matched.map((m) => m.rule));
  const skipped: SkippedRule[] = [];
  const out: Explanation = {
    seam: event.seam,
    decision: decision.decision,
    reasons: decision.reasons,
    context: decision.context,
    rules: decision.rules,
    matched,
    skipped,
    pending: decision.pendingHooks ?? [],
    diagnostics: decision.diagnostics,
  };
  if (decision.updatedInput) out.updatedInput = decision.updatedInput;
  const skip = (cr: CompiledRule, s: { stage: SkipStage; why: string }) => {
    const entry: SkippedRule = { rule: cr.rule.id, effect: cr.rule.effect, stage: s.stage, why: s.why };
    const at = locationOf(cr);
    if (at) entry.at = at;
    skipped.push(entry);
  };

  if (event.seam === 'agent-event') {
    out.event = event.event;
    if (decision.seam === 'agent-event' && decision.output) out.output = decision.output;
    for (const cr of policy.agentEvents.get(event.event) ?? []) {
      if (!fired.has(cr.rule.id)) skip(cr, agentSkip(cr, event));
    }
    return out;
  }

  const view = new EventView(event);
  const tool = view.tool;
  const inCandidates = new Set(candidates(policy, event.seam, tool));
  for (const cr of policy.seams[event.seam].all) {
    // the built-in self-protection rules are listed when they fire, not among the policy's own rules
    if (fired.has(cr.rule.id) || cr.rule.id === SELF_PROTECTION_ID) continue;
    skip(cr, seamSkip(cr, view, inCandidates.has(cr)) ?? { stage: 'other', why: 'the rule did not fire' });
  }
  const parts = explainParts(policy, view, fired);
  if (parts) out.parts = parts;
  return out;
}

export interface ExplainOptions {
  /** Runs `run` rules' command hooks; without one, matched hooks are listed as pending, not run. */
  runner?: HookRunner;
}

/** Evaluates an event (running hooks only with a runner) and explains the decision. Never throws. */
export async function explain(policy: CompiledPolicy, event: AnyEvent, opts: ExplainOptions = {}): Promise<{ decision: ExplainableDecision; explanation: Explanation }> {
  let decision: ExplainableDecision;
  if (opts.runner) {
    decision = event.seam === 'agent-event' ? await evaluateAgentEvent(policy, event, { runner: opts.runner }) : await evaluate(policy, event, { runner: opts.runner });
  } else if (event.seam === 'agent-event') {
    const d: AgentEventDecision & { pendingHooks: string[] } = {
      seam: 'agent-event',
      event: event.event,
      decision: 'none',
      reasons: [],
      context: [],
      rules: [],
      trace: [],
      diagnostics: [],
      pendingHooks: agentEventCandidates(policy, event).map(({ cr }) => cr.rule.id),
    };
    if (event.agent !== undefined) d.agent = event.agent;
    decision = d;
  } else {
    decision = evaluateSync(policy, event) as Decision & { pendingHooks: string[] };
  }
  return { decision, explanation: explainEvent(policy, event, decision) };
}
