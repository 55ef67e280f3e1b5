/**
 * IR -> compiled policy: every glob, regex and command pattern compiled once, rules indexed by
 * seam and by exact tool name, `when` conditions turned into closures.
 */
import type { CompareOp, Expr, PolicyIR, Rule, Seam, Selector, Value } from './ir.js';
import { AGENT_EVENT_SEAM, SEAMS } from './ir.js';
import { agentEventInfo, compileAgentMatcher, hookProtocol, matcherInputs, type AgentMatcher, type ConditionCall, type HookCondition } from './hooks/protocol.js';
import {
  compileDomainGlob,
  compileRegex,
  compileToolGlob,
  compileUrlGlob,
  MAX_REGEX_INPUT,
  type DomainMatcher,
  type Matcher,
  type UrlMatcher,
} from './match/index.js';
import { compilePathGlob, type PathGlob } from './match/path.js';
import { anyPathMatches, everyPathCovered } from './match/path-facts.js';
import { compileCommandPattern, matchCommandPart, type CommandPattern } from './shell/index.js';
import { asText, type EventView } from './fields.js';
import { TOOL_ALIASES } from './tools.js';
import type { StopEvent } from './events.js';
import { RuleIndex, type Trigger } from './rule-index.js';
import { enforcedRules } from './protect.js';

export type CompiledSelector =
  | { kind: 'command'; patterns: CommandPattern[] }
  | { kind: 'path'; globs: PathGlob[]; mode: PathMode }
  | { kind: 'url'; globs: UrlMatcher[] }
  | { kind: 'domain'; globs: DomainMatcher[] };

export type Condition = (view: EventView) => boolean;

/**
 * How path globs judge a call's paths: `any` (deny, ask and every rule but allow) fires when a
 * glob matches some path the call may touch; `every` (allow) only when globs cover all of them.
 * A `not` in a condition turns one into the other. By default `any` globs compare folded (case-
 * insensitively) and `every` globs exactly; a path selector's `case` says otherwise.
 */
export type PathMode = 'any' | 'every';

/** The mode of a rule's path selectors and conditions. */
export function pathModeOf(effect: Rule['effect']): PathMode {
  return effect === 'allow' ? 'every' : 'any';
}

function flipped(mode: PathMode): PathMode {
  return mode === 'any' ? 'every' : 'any';
}

function compilePathGlobs(globs: readonly string[], mode: PathMode, caseMode: 'fold' | 'exact' | undefined): PathGlob[] {
  const fold = caseMode !== undefined ? caseMode === 'fold' : mode === 'any';
  return globs.map((g) => compilePathGlob(g, { fold }));
}

function pathGlobsMatch(globs: readonly PathGlob[], mode: PathMode, view: EventView): boolean {
  const facts = view.pathFacts();
  if (facts === undefined) return false;
  return mode === 'any' ? anyPathMatches(globs, facts, view.pathEnv) : everyPathCovered(globs, facts, view.pathEnv);
}

export interface CompiledRule {
  rule: Rule;
  /** Position in the IR's rule list: evaluation and traces follow it. */
  index: number;
  /** Source-order sort key for reasons (see algebra.ts). */
  order: string;
  /** Tool matchers; null means every tool. */
  tools: Matcher[] | null;
  selectors: CompiledSelector[];
  when: Condition | null;
  /** An imported hook's matcher, in its agent's dialect; null when the rule has none. */
  matcher: AgentMatcher | null;
  /**
   * A Claude Code handler's `if` rule; null when the hook has none. `invalid` when the rule does
   * not parse: such a handler never runs.
   */
  ifRule: HookCondition | 'invalid' | null;
  /** The rule's trigger for the event index (rule-index.ts), once computed. */
  trigger?: Trigger | null;
  /** The last index lookup that took this rule (rule-index.ts). */
  stamp?: number;
}

interface SeamIndex {
  /** Rules listing a tool by exact name, per name. */
  exact: Map<string, CompiledRule[]>;
  /** Rules with no tool list or with a tool glob: tested one by one. */
  general: CompiledRule[];
  all: CompiledRule[];
  /** Per tool name seen in events, its rules indexed by trigger (built at first use, bounded). */
  byTool: Map<string, RuleIndex>;
  /**
   * The same indexes by the tool-specific rules they hold (their shape): tool names no rule tells
   * apart (say a thousand MCP tools that only tool-less rules and the same globs cover) share one.
   */
  byShape: Map<string, RuleIndex>;
  /** Every rule of the seam indexed by trigger, for events without a tool (built at first use). */
  allIndex: RuleIndex | null;
}

export interface CompiledPolicy {
  ir: PolicyIR;
  seams: Record<Seam, SeamIndex>;
  /** Imported hooks on agent events without a seam, per event name, in IR order. */
  agentEvents: Map<string, CompiledRule[]>;
}

const GLOB_CHARS = /[*?[]/;

export function orderKey(rule: Rule): string {
  if (rule.span) return `${rule.span.file}\u0000${String(rule.span.start.offset).padStart(12, '0')}`;
  return `\uffff${rule.id}`;
}

/** Compiles a selector whose path globs judge in `any` mode (see `compileSelectorIn`). */
export function compileSelector(s: Selector): CompiledSelector {
  return compileSelectorIn(s, 'any');
}

/** Compiles a selector; `mode` is how its path globs judge (the rule's, `pathModeOf`). */
export function compileSelectorIn(s: Selector, mode: PathMode): CompiledSelector {
  switch (s.kind) {
    case 'command':
      return { kind: 'command', patterns: s.patterns.map(compileCommandPattern) };
    case 'path':
      return { kind: 'path', globs: compilePathGlobs(s.globs, mode, s.case), mode };
    case 'url':
      return { kind: 'url', globs: s.globs.map(compileUrlGlob) };
    case 'domain':
      return { kind: 'domain', globs: s.globs.map(compileDomainGlob) };
  }
}

/** Any-part semantics: the selector matches when some part/path/url matches some pattern. */
export function selectorMatches(s: CompiledSelector, view: EventView): boolean {
  switch (s.kind) {
    case 'command': {
      const analysis = view.commandAnalysis();
      if (!analysis) return false;
      return analysis.parts.some((part) => s.patterns.some((p) => matchCommandPart(p, part, 'any')));
    }
    case 'path':
      return pathGlobsMatch(s.globs, s.mode, view);
    case 'url': {
      const u = view.parsedUrl();
      if (u === undefined) return false;
      for (const g of s.globs) if (g.testUrl(u)) return true;
      return false;
    }
    case 'domain': {
      const d = view.matchHost();
      if (d === undefined) return false;
      for (const g of s.globs) if (g.testHost(d)) return true;
      return false;
    }
  }
}

function isRegexValue(v: Value): v is { regex: string; flags: string } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function compileCompare(op: CompareOp, field: Expr & { op: 'compare' }, value: Value, mode: PathMode): Condition {
  const ref = field.field;
  switch (op) {
    case '==':
      return (view) => {
        const v = view.field(ref);
        return v !== undefined && v === value;
      };
    case '!=':
      return (view) => {
        const v = view.field(ref);
        return !(v !== undefined && v === value);
      };
    case 'in': {
      const list = Array.isArray(value) ? value : [];
      return (view) => {
        const v = view.field(ref);
        return v !== undefined && (list as unknown[]).includes(v);
      };
    }
    case 'matches': {
      if (!isRegexValue(value)) return () => false;
      const re = compileRegex(value.regex, value.flags);
      const name = [ref.name, ...(ref.path ?? [])].join('.');
      return (view) => {
        const t = asText(view.field(ref));
        if (t === undefined) return false;
        if (t.length > MAX_REGEX_INPUT) view.noteCapped(name);
        return re.test(t);
      };
    }
    case 'glob': {
      if (typeof value !== 'string') return () => false;
      if (ref.name === 'path' && !ref.path) {
        const globs = compilePathGlobs([value], mode, undefined);
        return (view) => pathGlobsMatch(globs, mode, view);
      }
      if (ref.name === 'url' && !ref.path) {
        const m = compileUrlGlob(value);
        return (view) => {
          const u = view.parsedUrl();
          return u !== undefined && m.testUrl(u);
        };
      }
      if (ref.name === 'domain' && !ref.path) {
        const m = compileDomainGlob(value);
        return (view) => {
          const h = view.matchHost();
          return h !== undefined && m.testHost(h);
        };
      }
      const g = compileToolGlob(value);
      return (view) => {
        const t = asText(view.field(ref));
        return t !== undefined && g.test(t);
      };
    }
    case 'startswith':
    case 'endswith':
    case 'contains': {
      if (typeof value !== 'string') return () => false;
      return (view) => {
        const v = view.field(ref);
        if (op === 'contains' && Array.isArray(v)) return v.includes(value);
        const t = asText(v);
        if (t === undefined) return false;
        if (op === 'startswith') return t.startsWith(value);
        if (op === 'endswith') return t.endsWith(value);
        return t.includes(value);
      };
    }
  }
}

/** Compiles a condition; `mode` is how its path globs judge where the condition stands (`not` flips it). */
export function compileExpr(e: Expr, mode: PathMode = 'any'): Condition {
  switch (e.op) {
    case 'and': {
      const args = e.args.map((a) => compileExpr(a, mode));
      return (view) => args.every((a) => a(view));
    }
    case 'or': {
      const args = e.args.map((a) => compileExpr(a, mode));
      return (view) => args.some((a) => a(view));
    }
    case 'not': {
      const arg = compileExpr(e.arg, flipped(mode));
      return (view) => !arg(view);
    }
    case 'compare':
      return compileCompare(e.cmp, e, e.value, mode);
    case 'exists':
      return (view) => {
        const v = view.field(e.field);
        return v !== undefined && v !== null;
      };
    case 'const':
      return () => e.value;
    case 'ran': {
      const tools = e.tools.length > 0 ? e.tools.map(compileToolGlob) : null;
      const selectors = e.selectors.map((s) => compileSelectorIn(s, mode));
      return (view) => {
        const ev = view.event;
        if (ev.seam !== 'stop') return false;
        return ranInTurn(ev, tools, selectors, view);
      };
    }
  }
}

function ranInTurn(ev: StopEvent, tools: Matcher[] | null, selectors: CompiledSelector[], view: EventView): boolean {
  const views = view.turnViews();
  for (let i = 0; i < ev.turn.length; i++) {
    const call = ev.turn[i]!;
    if (tools && !tools.some((t) => t.test(call.tool))) continue;
    const callView = views[i]!;
    if (selectors.every((s) => selectorMatches(s, callView))) return true;
  }
  return false;
}

export function compileRule(rule: Rule, index: number): CompiledRule {
  return {
    rule,
    index,
    order: orderKey(rule),
    tools: rule.tools && rule.tools.length > 0 ? rule.tools.map(compileToolGlob) : null,
    selectors: (rule.selectors ?? []).map((s) => compileSelectorIn(s, pathModeOf(rule.effect))),
    when: rule.when ? compileExpr(rule.when, pathModeOf(rule.effect)) : null,
    matcher: rule.hook?.matcher !== undefined ? compileAgentMatcher(rule.hook.dialect, rule.hook.matcher, matcherOptions(rule)) : null,
    ifRule: rule.hook?.if !== undefined ? (hookProtocol(rule.hook.dialect)?.compileCondition?.(rule.hook.if) ?? 'invalid') : null,
    trigger: undefined,
    stamp: 0,
  };
}

/**
 * Whether a hook's condition (Claude Code's `if`) lets it run on a tool call, as its agent tests it
 * (best effort, failing open on commands it cannot read, as the agent does: the condition only
 * ever keeps a hook from running). A hook with a condition never runs where there is no tool call.
 */
export function ifSelects(cr: CompiledRule, call: ConditionCall | undefined, ctx: { cwd?: string; home?: string }): boolean {
  const r = cr.ifRule;
  if (r === null) return true;
  if (r === 'invalid' || call === undefined) return false;
  const c: { cwd: string; home?: string } = { cwd: ctx.cwd ?? process.cwd() };
  if (ctx.home !== undefined) c.home = ctx.home;
  return r.test(call, c);
}

function matcherOptions(rule: Rule): { narrow?: boolean } {
  const h = rule.hook;
  if (rule.seam !== AGENT_EVENT_SEAM || !h?.event) return {};
  return agentEventInfo(h.dialect, h.event)?.narrowMatcher ? { narrow: true } : {};
}

/** Compiles a validated IR, with the built-in self-protection rules after its own (protect.ts). */
export function compilePolicy(ir: PolicyIR): CompiledPolicy {
  const seams = {} as Record<Seam, SeamIndex>;
  for (const s of SEAMS) seams[s] = { exact: new Map(), general: [], all: [], byTool: new Map(), byShape: new Map(), allIndex: null };
  const agentEvents = new Map<string, CompiledRule[]>();
  enforcedRules(ir).forEach((rule, i) => {
    const cr = compileRule(rule, i);
    if (rule.seam === AGENT_EVENT_SEAM) {
      const name = rule.hook?.event ?? '';
      let list = agentEvents.get(name);
      if (!list) agentEvents.set(name, (list = []));
      list.push(cr);
      return;
    }
    const idx = seams[rule.seam];
    idx.all.push(cr);
    const tools = rule.tools ?? [];
    if (tools.length === 0 || tools.some((t) => GLOB_CHARS.test(t))) {
      idx.general.push(cr);
    } else {
      for (const t of new Set(tools)) {
        let list = idx.exact.get(t);
        if (!list) idx.exact.set(t, (list = []));
        list.push(cr);
      }
    }
  });
  return { ir, seams, agentEvents };
}

/**
 * Whether an imported hook's matcher selects the event: tested against the tool name on tool seams
 * (by every name the dialect gives the tool: Codex's aliases) and the source on session-start. Prompt and stop
 * hooks ignore matchers, as both agents do.
 */
export function agentMatcherSelects(cr: CompiledRule, view: EventView): boolean {
  const m = cr.matcher;
  if (!m) return true;
  const e = view.event;
  switch (e.seam) {
    case 'pre-tool':
    case 'post-tool':
      return matcherInputs(cr.rule.hook?.dialect ?? '', e.tool).some((v) => m.test(v));
    case 'session-start':
      return m.test(e.source);
    case 'prompt':
    case 'stop':
      return true;
  }
}

/** The rules of a seam that may apply to a tool, in IR order. */
export function candidates(policy: CompiledPolicy, seam: Seam, tool: string | undefined): CompiledRule[] {
  const idx = policy.seams[seam];
  return tool === undefined ? idx.all : toolCandidates(idx, tool).rules;
}

/**
 * A tool's candidate rules, and their shape: the IR positions of the rules that name the tool
 * exactly or by a glob. The tool-less rules are every tool's candidates, so two tools of the same
 * shape have the same candidates in the same order.
 */
function toolCandidates(idx: SeamIndex, tool: string): { rules: CompiledRule[]; shape: string } {
  const aliases = TOOL_ALIASES[tool] ?? [];
  let exact = idx.exact.get(tool) ?? [];
  if (aliases.length > 0) {
    const byAlias = aliases.flatMap((a) => idx.exact.get(a) ?? []).filter((r) => aliasable(r) && !exact.includes(r));
    if (byAlias.length > 0) exact = [...new Set([...exact, ...byAlias])].sort((a, b) => a.index - b.index);
  }
  let shape = '';
  for (const r of exact) shape += `${r.index},`;
  shape += '|';
  const general: CompiledRule[] = [];
  for (const r of idx.general) {
    if (r.tools === null) general.push(r);
    else if (toolApplies(r, tool)) {
      general.push(r);
      shape += `${r.index},`;
    }
  }
  if (exact.length === 0) return { rules: general, shape };
  if (general.length === 0) return { rules: exact, shape };
  const merged = [...exact, ...general];
  merged.sort((a, b) => a.index - b.index);
  return { rules: merged, shape };
}

/** Whether a rule meets the tools its listed ones alias: the rules that only restrict (TOOL_ALIASES says why). */
function aliasable(cr: CompiledRule): boolean {
  const effect = cr.rule.effect;
  return effect !== 'allow' && effect !== 'run';
}

/** Whether a rule's tool list takes the tool: by its own name, or by a name it aliases (for the rules that meet aliases). */
export function toolApplies(cr: CompiledRule, tool: string): boolean {
  if (cr.tools === null) return true;
  if (cr.tools.some((t) => t.test(tool))) return true;
  const aliases = TOOL_ALIASES[tool];
  return aliases !== undefined && aliasable(cr) && cr.tools.some((t) => aliases.some((a) => t.test(a)));
}

/** How many tool names keep an index of their own; past it the oldest are dropped. */
const TOOL_INDEXES = 1024;

/**
 * The rules of a seam that may match an event with this tool (or none), indexed by trigger. Tools
 * of the same shape (toolCandidates) share one index.
 */
export function indexFor(policy: CompiledPolicy, seam: Seam, tool: string | undefined): RuleIndex {
  const idx = policy.seams[seam];
  if (tool === undefined) return (idx.allIndex ??= new RuleIndex(idx.all));
  let found = idx.byTool.get(tool);
  if (found === undefined) {
    const { rules, shape } = toolCandidates(idx, tool);
    found = idx.byShape.get(shape);
    if (found === undefined) {
      found = new RuleIndex(rules);
      if (idx.byShape.size >= TOOL_INDEXES) idx.byShape.delete(idx.byShape.keys().next().value!);
      idx.byShape.set(shape, found);
    }
    if (idx.byTool.size >= TOOL_INDEXES) idx.byTool.delete(idx.byTool.keys().next().value!);
    idx.byTool.set(tool, found);
  }
  return found;
}
