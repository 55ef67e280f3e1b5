/**
 * What a replay gives: one `ReplayRecord` per decided event, and the `ReplaySummary` of the whole
 * run, made by `Counts` as the events go by. The counts are bounded whatever the sessions' size:
 * per seam and decision word, per tool (at most 1,000 names, the rest in one row), per rule of the
 * policy, and at most 100 diagnostics (the others only counted). Nothing per event is kept.
 */
import type { Decision, Diagnostic, PolicyEvent, PolicyIR } from '../../engine/index.js';
import type { TranscriptAgent } from '../transcript-head.js';

export type ReplaySeam = 'pre-tool' | 'post-tool' | 'prompt' | 'stop';
export const REPLAY_SEAMS: readonly ReplaySeam[] = ['pre-tool', 'post-tool', 'prompt', 'stop'];

/** Distinct tools counted by name; further ones share one row. */
const MAX_TOOLS = 1000;
const OTHER_TOOLS = '(other tools)';
/** Diagnostics kept for the summary; further ones are only counted. */
const MAX_DIAGNOSTICS = 100;

/** One replayed event: where it was recorded, the event the agent's hook would have sent, and the decision. */
export interface ReplayRecord {
  file: string;
  line?: number;
  /** The agent whose format the file was read as. */
  agent: TranscriptAgent;
  event: PolicyEvent;
  decision: Decision;
  /** `run` rules that matched but were not run (no hook runner). */
  pending: string[];
}

export interface FileSummary {
  file: string;
  agent?: TranscriptAgent;
  session?: string;
  cwd?: string;
  bytes: number;
  events: number;
  skippedLines: number;
  /** Set when the file could not be read (then it counts toward exit status 1). */
  error?: string;
  /** Wall time spent on the file. */
  seconds: number;
  /** CPU time of the process while on the file (user and system, every thread). */
  cpuSeconds: number;
}

export interface RuleCount {
  id: string;
  seam: string;
  effect: string;
  /** Events this rule was among the deciding rules of. */
  decided: number;
  /** By decision word. */
  decisions: Record<string, number>;
  /** Events on which this `run` rule matched but its hook was not run. */
  pending: number;
}

export interface ReplaySummary {
  files: FileSummary[];
  /** Files that could not be read (missing, unreadable, not a transcript). */
  failedFiles: number;
  bytes: number;
  events: number;
  /** Events per seam, by decision word. */
  seams: Record<ReplaySeam, Record<string, number>>;
  /** Per tool: pre-tool decisions (deny, ask, allow, none) and post-tool ones (block, accept). */
  tools: Record<string, { 'pre-tool': Record<string, number>; 'post-tool': Record<string, number> }>;
  prompts: { total: number; blocked: number };
  stops: { total: number; continued: number; halted: number; stopped: number; recordedContinuations: number };
  rules: RuleCount[];
  /** Lines skipped as unreadable (not JSON, not an object, or longer than the limit). */
  skippedLines: number;
  /** Tool results whose call was not seen: no post-tool event. */
  resultsWithoutCall: number;
  /**
   * Tool results that are errors, of an agent that sends a failed call to another hook event
   * (`AgentTranscripts.failedResultEvent`, Claude Code's PostToolUseFailure): no post-tool event.
   */
  failedToolResults: number;
  /** Events on which some `run` rule matched but was not run. */
  eventsWithPendingHooks: number;
  /** Subagent transcripts (sidechain lines only), which give no events. */
  sidechainFiles: number;
  diagnostics: Diagnostic[];
  droppedDiagnostics: number;
  seconds: number;
  eventsPerSecond: number;
}

function emptyWords(seam: ReplaySeam): Record<string, number> {
  switch (seam) {
    case 'pre-tool':
      return { deny: 0, ask: 0, allow: 0, none: 0 };
    case 'post-tool':
      return { block: 0, accept: 0 };
    case 'prompt':
      return { block: 0, allow: 0 };
    case 'stop':
      return { halt: 0, continue: 0, stop: 0 };
  }
}

/** Bounded counters: per seam, per tool (at most MAX_TOOLS names), per rule (the policy's rules). */
export class Counts {
  readonly seams = Object.fromEntries(REPLAY_SEAMS.map((s) => [s, emptyWords(s)])) as Record<ReplaySeam, Record<string, number>>;
  readonly tools = new Map<string, { 'pre-tool': Record<string, number>; 'post-tool': Record<string, number> }>();
  readonly rules = new Map<string, RuleCount>();
  events = 0;
  recordedContinuations = 0;
  skippedLines = 0;
  resultsWithoutCall = 0;
  failedToolResults = 0;
  eventsWithPendingHooks = 0;
  sidechainFiles = 0;
  bytes = 0;
  readonly diagnostics: Diagnostic[] = [];
  droppedDiagnostics = 0;
  readonly files: FileSummary[] = [];

  constructor(ir: PolicyIR | undefined) {
    for (const r of ir?.rules ?? []) {
      if (r.seam === 'agent-event' || r.effect === 'context') continue;
      this.rules.set(r.id, { id: r.id, seam: r.seam, effect: r.effect, decided: 0, decisions: {}, pending: 0 });
    }
  }

  add(r: ReplayRecord): void {
    const seam = r.event.seam as ReplaySeam;
    const word = r.decision.decision as string;
    this.events++;
    bump(this.seams[seam], word);
    if (r.event.seam === 'pre-tool' || r.event.seam === 'post-tool') {
      const tool = this.tools.has(r.event.tool) || this.tools.size < MAX_TOOLS ? r.event.tool : OTHER_TOOLS;
      let row = this.tools.get(tool);
      if (row === undefined) {
        row = { 'pre-tool': emptyWords('pre-tool'), 'post-tool': emptyWords('post-tool') };
        this.tools.set(tool, row);
      }
      bump(row[r.event.seam], word);
    }
    for (const id of r.decision.rules) {
      const rule = this.rule(id, seam);
      rule.decided++;
      bump(rule.decisions, word);
    }
    if (r.pending.length > 0) {
      this.eventsWithPendingHooks++;
      for (const id of r.pending) this.rule(id, seam).pending++;
    }
  }

  private rule(id: string, seam: string): RuleCount {
    let rule = this.rules.get(id);
    if (rule === undefined) {
      rule = { id, seam, effect: '?', decided: 0, decisions: {}, pending: 0 };
      this.rules.set(id, rule);
    }
    return rule;
  }

  diagnostic(d: Diagnostic): void {
    if (this.diagnostics.length < MAX_DIAGNOSTICS) this.diagnostics.push(d);
    else this.droppedDiagnostics++;
  }

  summary(seconds: number): ReplaySummary {
    const seams = this.seams;
    return {
      files: this.files,
      failedFiles: this.files.filter((f) => f.error !== undefined).length,
      bytes: this.bytes,
      events: this.events,
      seams,
      tools: Object.fromEntries([...this.tools].sort(([a], [b]) => (a === OTHER_TOOLS ? 1 : b === OTHER_TOOLS ? -1 : a.localeCompare(b)))),
      prompts: { total: countTotal(seams.prompt), blocked: seams.prompt['block'] ?? 0 },
      stops: {
        total: countTotal(seams.stop),
        continued: seams.stop['continue'] ?? 0,
        halted: seams.stop['halt'] ?? 0,
        stopped: seams.stop['stop'] ?? 0,
        recordedContinuations: this.recordedContinuations,
      },
      rules: [...this.rules.values()],
      skippedLines: this.skippedLines,
      resultsWithoutCall: this.resultsWithoutCall,
      failedToolResults: this.failedToolResults,
      eventsWithPendingHooks: this.eventsWithPendingHooks,
      sidechainFiles: this.sidechainFiles,
      diagnostics: this.diagnostics,
      droppedDiagnostics: this.droppedDiagnostics,
      seconds,
      eventsPerSecond: seconds > 0 ? Math.round(this.events / seconds) : 0,
    };
  }
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** The sum of a row of counts (a seam's decisions, a tool's). */
export function countTotal(counts: Record<string, number>): number {
  let n = 0;
  for (const v of Object.values(counts)) n += v;
  return n;
}
