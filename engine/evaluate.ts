/**
 * The evaluator: event -> candidate rules (indexed by seam and tool) -> matching -> hits ->
 * the seam's decision, with a trace of every rule that fired.
 */
import { diagnostic, type Diagnostic } from './diagnostics.js';
import type { AnyEvent, EventOf, PolicyEvent } from './events.js';
import type { DecisionWord, Seam } from './ir.js';
import { decide, verdict, type Decided, type Hit, type HitEffect } from './algebra.js';
import { agentMatcherSelects, ifSelects, indexFor, selectorMatches, type CompiledPolicy, type CompiledRule } from './compile.js';
import { EventView } from './fields.js';
import { matchCommandPart, type CommandPart } from './shell/index.js';
import { judgeWrites, writesFiles, type WriteJudgement } from './writes.js';
import { judgeReads, READ_TOOL, type ReadQuery } from './reads.js';
import { SHELL_TOOLS } from './tools.js';
import { MAX_REGEX_INPUT, regexFailures } from './match/index.js';
import { dialectTitle, hookProtocol } from './hooks/protocol.js';

export interface TraceEntry {
  rule: string;
  effect: string;
  /** `decided`: among the rules that made the decision; `outranked`: fired, but a stricter level won;
   * `partial`: an allow that covered only some parts of a shell command; `limited`: the loop guard
   * ended a continuation; `abstained`: a hook that gave no opinion, or a limit not reached. */
  outcome: 'decided' | 'outranked' | 'partial' | 'limited' | 'abstained';
  reason?: string;
  text?: string;
  /** For command selectors: the parts of the command this rule matched. */
  parts?: string[];
  /** A hook's outcome, when the rule is a `run` rule. */
  hook?: { exitCode: number | null; timedOut: boolean; summary: string };
  note?: string;
}

export interface Decision<S extends Seam = Seam> {
  seam: S;
  decision: DecisionWord<S>;
  /** The winning level's reasons in source order, deduplicated. */
  reasons: string[];
  /** The reasons as one text (joined with a blank line), where a host needs one; absent when none. */
  reason?: string;
  context: string[];
  /** Ids (`file:line:col`) of the rules that decided. */
  rules: string[];
  trace: TraceEntry[];
  /** A command hook's rewrite of the tool input (pre-tool), when one allowed the call with one. */
  updatedInput?: Record<string, unknown>;
  /** Problems met while evaluating (a hook that timed out, ...). */
  diagnostics: Diagnostic[];
}

/** What a `run` rule's command hook answered, already decoded by its dialect. */
export interface HookOutcome {
  effect?: Exclude<HitEffect, 'context' | 'limit'>;
  reason?: string;
  context?: string[];
  updatedInput?: Record<string, unknown>;
  /** An agent event's own answer (`worktreePath`, `action`, `retry`, `watchPaths`, ...). */
  output?: Record<string, unknown>;
  exitCode: number | null;
  timedOut: boolean;
  /** One line for traces: `exit 2`, `timed out after 10s`, `permissionDecision deny`. */
  summary: string;
  diagnostics?: Diagnostic[];
}

export interface HookRunOptions {
  /** Overrides the hook's own timeout (Claude Code's shared SessionEnd budget). */
  timeoutMs?: number;
}

export type HookRunner = (rule: CompiledRule, event: AnyEvent, opts?: HookRunOptions) => Promise<HookOutcome>;

/** The result of the synchronous part of evaluation: hits plus the `run` rules still to run. */
export interface Matched {
  seam: Seam;
  hits: Hit[];
  trace: Map<string, TraceEntry>;
  pending: CompiledRule[];
  continuations: number;
  /** Problems met while matching (a text longer than regexes search). */
  diagnostics: Diagnostic[];
}

/** Part texts in traces are clipped: an unparseable tail can run to the end of a huge command. */
const MAX_PART_TEXT = 200;
function clipPart(text: string): string {
  return text.length > MAX_PART_TEXT ? `${text.slice(0, MAX_PART_TEXT)}…` : text;
}

function toolOf(event: PolicyEvent): string | undefined {
  return event.seam === 'pre-tool' || event.seam === 'post-tool' ? event.tool : undefined;
}

function toolCallOf(event: PolicyEvent): { tool: string; input: Record<string, unknown> } | undefined {
  return event.seam === 'pre-tool' || event.seam === 'post-tool' ? { tool: event.tool, input: event.input } : undefined;
}

function hitOf(cr: CompiledRule, effect: HitEffect): Hit {
  const r = cr.rule;
  const h: Hit = { rule: r.id, effect, order: cr.order };
  if (r.reason !== undefined) h.reason = r.reason;
  if (r.text !== undefined) h.text = r.text;
  if (r.limit !== undefined) h.limit = r.limit;
  return h;
}

/**
 * Matches every candidate rule against the event. Never runs hooks. `view` is the event's view; the
 * reads of a command give one that reads its paths otherwise (a search of a directory).
 */
export function match(policy: CompiledPolicy, event: PolicyEvent, view: EventView = new EventView(event)): Matched {
  const seam = event.seam;
  const hits: Hit[] = [];
  // Made at the first entry: most events match no rule.
  let trace: Map<string, TraceEntry> | undefined;
  const pending: CompiledRule[] = [];
  // Command allows: which rules cover which parts of the call's command.
  let cover: string[][] | undefined;
  let coverRules: Map<string, { cr: CompiledRule; parts: string[] }> | undefined;
  const failedBefore = regexFailures();
  const index = indexFor(policy, seam, toolOf(event));

  for (const cr of index.lookup(view)) {
    const r = cr.rule;
    const commandSel = r.effect === 'allow' ? cr.selectors.find((s) => s.kind === 'command') : undefined;
    if (commandSel && commandSel.kind === 'command') {
      if (!cr.selectors.every((s) => s === commandSel || selectorMatches(s, view))) continue;
      if (cr.when && !cr.when(view)) continue;
      const analysis = view.commandAnalysis();
      if (!analysis) continue;
      cover ??= analysis.parts.map(() => []);
      const covered: string[] = [];
      analysis.parts.forEach((part, i) => {
        if (commandSel.patterns.some((p) => matchCommandPart(p, part, 'allow'))) {
          cover![i]!.push(r.id);
          covered.push(clipPart(part.text));
        }
      });
      if (covered.length > 0) (coverRules ??= new Map()).set(r.id, { cr, parts: covered });
      continue;
    }
    if (!cr.selectors.every((s) => selectorMatches(s, view))) continue;
    if (cr.when && !cr.when(view)) continue;
    if (r.effect === 'run') {
      if (agentMatcherSelects(cr, view) && ifSelects(cr, toolCallOf(event), event)) pending.push(cr);
      continue;
    }
    hits.push(hitOf(cr, r.effect as HitEffect));
    const entry: TraceEntry = { rule: r.id, effect: r.effect, outcome: 'outranked' };
    if (r.reason !== undefined) entry.reason = r.reason;
    if (r.text !== undefined) entry.text = r.text;
    const partsHit = commandPartsMatched(cr, view);
    if (partsHit) entry.parts = partsHit;
    (trace ??= new Map()).set(r.id, entry);
  }

  // The files the command writes (redirections, and programs' operands and options) are judged by the `Write` rules.
  let writes: WriteJudgement | undefined;
  if (event.seam === 'pre-tool') {
    const parts = view.commandAnalysis()?.parts;
    if (parts !== undefined && writesFiles(parts)) {
      writes = judgeWrites(parts, event, (writeEvent, writeView) => match(policy, writeEvent, writeView).hits);
      for (const h of writes.hits) {
        hits.push(h);
        trace ??= new Map();
        if (!trace.has(h.rule)) trace.set(h.rule, { rule: h.rule, effect: h.effect, outcome: 'outranked', reason: h.reason!, note: 'a file the command writes' });
      }
    }
    // The files a shell command reads (input redirections, and what its programs read) are judged by
    // the `Read` rules, for deny and ask only, when some deny or ask applies to `Read` at all.
    if (parts !== undefined && SHELL_TOOLS.includes(event.tool) && readsJudged(policy)) {
      const cache = readCacheOf(policy);
      for (const h of judgeReads(parts, event, (read) => cache.hits(policy, read)).hits) {
        hits.push(h);
        trace ??= new Map();
        if (!trace.has(h.rule)) trace.set(h.rule, { rule: h.rule, effect: h.effect, outcome: 'outranked', reason: h.reason!, note: 'a file the command reads' });
      }
    }
  }

  if (coverRules !== undefined) {
    const parts = view.commandAnalysis()?.parts ?? [];
    const covered = (p: CommandPart, i: number): boolean =>
      p.unknowable === null &&
      ((cover?.[i]?.length ?? 0) > 0 || p.words.length === 0 || p.transparent === true) &&
      (writes === undefined || writes.allowed[i] === true);
    const whole = parts.length > 0 && parts.every(covered);
    const missing = parts.filter((p, i) => !covered(p, i)).map((p) => clipPart(p.text));
    for (const [id, { cr, parts: covered }] of coverRules) {
      if (whole) hits.push(hitOf(cr, 'allow'));
      const entry: TraceEntry = { rule: id, effect: 'allow', outcome: whole ? 'outranked' : 'partial', parts: covered };
      if (!whole) {
        entry.note = `not every part is allowed: ${missing.map((m) => `\`${m}\``).join(', ')}`;
        if (writes !== undefined && writes.unallowed.length > 0)
          entry.note += `; not allowed for writing: ${writes.unallowed.map((t) => `\`${clipPart(t)}\``).join(', ')}`;
      }
      (trace ??= new Map()).set(id, entry);
    }
  }

  const continuations =
    event.seam === 'stop' ? (event.continuations ?? (event.stop_hook_active ? 1 : 0)) : 0;
  const diagnostics: Diagnostic[] = [];
  const capped = seam === 'pre-tool' ? view.commandAnalysis()?.capped : undefined;
  if (capped !== undefined) {
    // Past a cap the command was not read to its end: a deny it hides could be anywhere in it.
    const hit = cappedHit(index.strictest, capped, toolOf(event)!);
    if (hit !== null) {
      hits.push(hit);
      (trace ??= new Map()).set(hit.rule, { rule: hit.rule, effect: hit.effect, outcome: 'outranked', reason: hit.reason! });
    }
    diagnostics.push(
      diagnostic('event/command-capped', 'warning', `the command passes a limit of the analysis (${capped}), so it is opaque${hit ? `; it gets the strictest decision a rule on \`${toolOf(event)}\` gives (${hit.effect})` : ''}`, {
        help: 'a command this large or this deeply nested cannot be read to its end; it is never allowed',
      }),
    );
  }
  for (const field of view.capped ?? []) {
    diagnostics.push(
      diagnostic('event/input-capped', 'warning', `\`${field}\` is longer than regexes search: only its first ${MAX_REGEX_INPUT} characters were searched`, {
        help: 'a regex cannot match text past the limit; match such input with a command pattern, a glob or `contains`',
      }),
    );
  }
  if (regexFailures() !== failedBefore) {
    // A regex that could not run answered "no match", which may hide a deny: fail closed.
    const effect = seam === 'pre-tool' ? 'deny' : seam === 'prompt' || seam === 'post-tool' ? 'block' : undefined;
    const reason = 'a regex of the policy could not be evaluated, so the event is refused';
    if (effect) {
      hits.push({ rule: '(regex engine)', effect, reason, order: '\uffff' });
      (trace ??= new Map()).set('(regex engine)', { rule: '(regex engine)', effect, outcome: 'outranked', reason });
    }
    diagnostics.push(
      diagnostic('event/regex-failed', 'error', `a regex could not be evaluated${effect ? `; the event is refused (${effect})` : ''}`, {
        help: 'the regex engine failed (for example, it ran out of memory); the rest of the decision cannot be trusted',
      }),
    );
  }
  // A `run` rule's outcome is traced after its hook runs: its events get a trace of their own.
  return { seam, hits, trace: trace ?? (pending.length > 0 ? new Map() : NO_TRACE), pending, continuations, diagnostics };
}

/** Whether some deny or ask rule applies to `Read` events: only then are a command's reads judged. */
function readsJudged(policy: CompiledPolicy): boolean {
  return indexFor(policy, 'pre-tool', READ_TOOL).strictest !== null;
}

/**
 * The hits of recent `Read` events of commands' reads, per policy, by the call's session fields and
 * then the read (reads.ts `ReadQuery`): agents read the same files again and again.
 */
const readCaches = new WeakMap<CompiledPolicy, ReadCache>();
const READ_CACHE_SIZE = 1024;

class ReadCache {
  /** The last call (whose session fields the reads share), its session's key and its reads. */
  private last: PolicyEvent | undefined;
  private lastKey = '';
  private reads = new Map<string, Hit[]>();
  private readonly sessions = new Map<string, Map<string, Hit[]>>();
  private size = 0;

  /** The hits of the `Read` event of one read, kept while nothing went wrong matching it. */
  hits(policy: CompiledPolicy, read: ReadQuery): Hit[] {
    const call = read.call;
    const last = this.last;
    if (last === undefined || call.cwd !== last.cwd || call.home !== last.home || call.session !== last.session || call.permission_mode !== last.permission_mode) {
      this.last = call;
      this.lastKey = `${call.cwd ?? ''}\u0000${call.home ?? ''}\u0000${call.session ?? ''}\u0000${call.permission_mode ?? ''}`;
      let reads = this.sessions.get(this.lastKey);
      if (reads === undefined) this.sessions.set(this.lastKey, (reads = new Map()));
      this.reads = reads;
    }
    const kept = this.reads.get(read.key);
    if (kept !== undefined) return kept;
    const m = match(policy, read.event(), read.view());
    // a regex that failed, a field past a limit: not kept, so it is met again
    if (m.diagnostics.length === 0) {
      if (this.size >= READ_CACHE_SIZE) {
        this.sessions.clear();
        this.sessions.set(this.lastKey, (this.reads = new Map()));
        this.size = 0;
      }
      this.reads.set(read.key, m.hits);
      this.size++;
    }
    return m.hits;
  }
}

function readCacheOf(policy: CompiledPolicy): ReadCache {
  let cache = readCaches.get(policy);
  if (cache === undefined) readCaches.set(policy, (cache = new ReadCache()));
  return cache;
}

/** The rule id of the decision given to a command past a cap of the analysis. */
export const CAPPED_RULE = '(command analysis)';

/** The hit a capped command gets: the strictest decision any deny or ask rule on its tool gives. */
export function cappedHit(strictest: 'deny' | 'ask' | null, cap: string, tool: string): Hit | null {
  if (strictest === null) return null;
  const reason = `the command passes a limit of the analysis (${cap}), so it gets the strictest decision a rule on \`${tool}\` gives`;
  return { rule: CAPPED_RULE, effect: strictest, reason, order: '\uffff' };
}

/** The trace of an event that matched nothing: shared, so it must stay empty. */
class EmptyTrace extends Map<string, TraceEntry> {
  override set(key: string): this {
    throw new Error(`internal error: trace entry \`${key}\` added to the shared empty trace`);
  }
}
const NO_TRACE: Map<string, TraceEntry> = new EmptyTrace();

function commandPartsMatched(cr: CompiledRule, view: EventView): string[] | undefined {
  const sel = cr.selectors.find((s) => s.kind === 'command');
  if (!sel || sel.kind !== 'command') return undefined;
  const parts = view.commandAnalysis()?.parts ?? [];
  return parts.filter((part) => sel.patterns.some((p) => matchCommandPart(p, part, 'any'))).map((p) => clipPart(p.text));
}

/** Turns matched hits into the seam's decision and finishes the trace. */
export function finish(m: Matched, extra: { diagnostics?: Diagnostic[]; updatedInput?: Record<string, unknown> } = {}): Decision {
  const d: Decided = decide(verdict(m.seam, m.hits), { continuations: m.continuations });
  // Few rules decide: a list search beats building a set, up to a point.
  const decidedSet = d.rules.length > 8 ? new Set(d.rules) : undefined;
  const decided = (id: string) => (decidedSet !== undefined ? decidedSet.has(id) : d.rules.includes(id));
  const trace: TraceEntry[] = [];
  for (const entry of m.trace.values()) {
    if (entry.outcome === 'outranked' && decided(entry.rule)) entry.outcome = 'decided';
    if (entry.effect === 'limit' && !d.limited) entry.outcome = 'abstained';
    if (d.limited && entry.effect === 'limit' && decided(entry.rule)) {
      entry.outcome = 'limited';
      entry.note = `${d.limited.continuations} continuation${d.limited.continuations === 1 ? '' : 's'} in a row reached the limit of ${d.limited.limit}`;
    }
    trace.push(entry);
  }
  if (d.limited && d.rules.length === 0) {
    trace.push({
      rule: '(default limit)',
      effect: 'limit',
      outcome: 'limited',
      note: `${d.limited.continuations} continuation${d.limited.continuations === 1 ? '' : 's'} in a row reached the default limit of ${d.limited.limit}`,
    });
  }
  const out: Decision = {
    seam: m.seam,
    decision: d.decision as DecisionWord<Seam>,
    reasons: d.reasons,
    context: d.context,
    rules: d.rules,
    trace,
    diagnostics: m.diagnostics.length > 0 ? [...m.diagnostics, ...(extra.diagnostics ?? [])] : (extra.diagnostics ?? []),
  };
  if (d.reasons.length > 0) out.reason = d.reasons.join('\n\n');
  // A rewrite stands when the call goes ahead: pre-approved, or left to the host's own flow.
  if (extra.updatedInput && (d.decision === 'allow' || d.decision === 'none')) out.updatedInput = extra.updatedInput;
  return out;
}

/** Evaluates without running command hooks; `run` rules that matched are reported, not run. */
export function evaluateSync(policy: CompiledPolicy, event: PolicyEvent): Decision & { pendingHooks: string[] } {
  const m = match(policy, event);
  const d = finish(m) as Decision & { pendingHooks: string[] };
  d.pendingHooks = m.pending.map((p) => p.rule.id);
  return d;
}

export interface EvaluateOptions {
  /** Runs `run` rules' command hooks; without one, matched hooks fail closed with a diagnostic. */
  runner?: HookRunner;
}

/** Hooks are effects only a hook may have on this seam. */
const HOOK_EFFECTS: Record<Seam, readonly string[]> = {
  'pre-tool': ['deny', 'ask', 'allow'],
  prompt: ['block'],
  'post-tool': ['block'],
  stop: ['continue', 'halt'],
  'session-start': ['halt'],
};

/** Evaluates an event, running matched command hooks in parallel. Never throws. */
export async function evaluate<E extends PolicyEvent>(
  policy: CompiledPolicy,
  event: E,
  opts: EvaluateOptions = {},
): Promise<Decision<E['seam']>> {
  const m = match(policy, event);
  const diagnostics: Diagnostic[] = [];
  let updatedInput: Record<string, unknown> | undefined;
  if (m.pending.length > 0) {
    const runner = opts.runner;
    // Claude Code runs an identical command once per event, however many of its settings' groups
    // name it; the first rule with it runs and the others share its outcome.
    const firstOf = new Map<string, number>();
    const sharedWith = m.pending.map((cr, i) => {
      const key = hookDedupKey(cr);
      if (key === undefined) return i;
      const first = firstOf.get(key);
      if (first === undefined) firstOf.set(key, i);
      return first ?? i;
    });
    // Both agents keep the rewrite of the hook that finished last: completion order is recorded.
    const finished: number[] = m.pending.map(() => -1);
    let finishOrder = 0;
    const outcomes = await Promise.all(
      m.pending.map(async (cr, i): Promise<HookOutcome | undefined> => {
        if (sharedWith[i] !== i) return undefined;
        if (!runner) {
          return {
            effect: failClosedEffect(m.seam),
            reason: `the command hook of rule \`${cr.rule.id}\` could not run: no hook runner`,
            exitCode: null,
            timedOut: false,
            summary: 'not run',
          };
        }
        try {
          const o = await runner(cr, event);
          finished[i] = finishOrder++;
          return o;
        } catch (err) {
          return {
            effect: failClosedEffect(m.seam),
            reason: `the command hook of rule \`${cr.rule.id}\` failed: ${String(err)}`,
            exitCode: null,
            timedOut: false,
            summary: 'runner error',
          };
        }
      }),
    );
    // Some agents (Codex) block a tool call or a prompt with the reason of the first blocking hook
    // in configured order; the others still block, silently.
    const blockedIn = new Set<string>();
    let rewroteAt = -1;
    let rewriter: TraceEntry | undefined;
    m.pending.forEach((cr, i) => {
      const shared = sharedWith[i] !== i;
      const o = outcomes[sharedWith[i]!]!;
      const id = cr.rule.id;
      if (o.diagnostics && !shared) diagnostics.push(...o.diagnostics);
      const entry: TraceEntry = {
        rule: id,
        effect: o.effect ?? 'run',
        outcome: o.effect && HOOK_EFFECTS[m.seam].includes(o.effect) ? 'outranked' : 'abstained',
        hook: { exitCode: o.exitCode, timedOut: o.timedOut, summary: o.summary },
      };
      if (o.effect && HOOK_EFFECTS[m.seam].includes(o.effect)) {
        const h: Hit = { rule: id, effect: o.effect, order: cr.order };
        const dialect = cr.rule.hook?.dialect ?? '';
        const firstOnly = hookProtocol(dialect)?.firstReasonOnly === true && (m.seam === 'pre-tool' || m.seam === 'prompt') && (o.effect === 'deny' || o.effect === 'block');
        const silent = firstOnly && blockedIn.has(dialect);
        if (firstOnly) blockedIn.add(dialect);
        if (o.reason && silent) entry.note = `${dialectTitle(dialect)} shows only the first blocking hook's reason`;
        if (o.reason && !silent) {
          h.reason = o.reason;
          entry.reason = o.reason;
        }
        m.hits.push(h);
      }
      for (const text of o.context ?? []) m.hits.push({ rule: id, effect: 'context', text, order: cr.order });
      if (o.updatedInput && (o.effect === 'allow' || o.effect === undefined) && !shared) {
        entry.note = 'the hook rewrote the tool input';
        if (finished[i]! >= rewroteAt) {
          const previous = rewriter;
          if (previous) previous.note = 'the hook rewrote the tool input; a rewrite that finished later replaced it';
          updatedInput = o.updatedInput;
          rewroteAt = finished[i]!;
          rewriter = entry;
        } else {
          entry.note = 'the hook rewrote the tool input; a rewrite that finished later replaced it';
        }
      }
      if (shared) entry.note = `the same command as \`${m.pending[sharedWith[i]!]!.rule.id}\`, which ${dialectTitle(cr.rule.hook?.dialect ?? '')} runs once`;
      m.trace.set(id, entry);
    });
  }
  const extra: { diagnostics: Diagnostic[]; updatedInput?: Record<string, unknown> } = { diagnostics };
  if (updatedInput) extra.updatedInput = updatedInput;
  return finish(m, extra) as Decision<E['seam']>;
}

/** The key under which the hook's agent runs identical handlers of one event once; undefined: never merged. */
export function hookDedupKey(cr: CompiledRule): string | undefined {
  const h = cr.rule.hook;
  return h ? hookProtocol(h.dialect)?.dedupKey?.(h) : undefined;
}

function failClosedEffect(seam: Seam): HookOutcome['effect'] {
  if (seam === 'pre-tool') return 'deny';
  if (seam === 'prompt' || seam === 'post-tool') return 'block';
  return undefined;
}
