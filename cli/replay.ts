/**
 * `dshpolicy replay --policy <file>... <transcript>...`: what a policy would have decided over real
 * recorded sessions. Claude Code session transcripts (`~/.claude/projects/<dir>/<session>.jsonl`)
 * and Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) are read forward by the
 * bridges' iterators; every prompt, tool call, tool result and stop becomes the event the agent's
 * hook would have sent, and the policy decides it.
 *
 * It streams: one event is alive at a time, the report is counts (per seam, per tool, per rule), and
 * per-event output is written as it is made, waiting for the consumer when it is slow. Memory is
 * bounded by the longest line and the longest turn, not by the file. Unreadable lines are counted
 * and skipped; a file that cannot be opened is reported and the others still run.
 *
 * Command hooks (`run` rules, imported hooks configurations) do not run unless `--run-hooks` is
 * given: replay must not execute what a transcript's policy names. Without it the rules that would
 * have run are reported as pending and the decision is the other rules'.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  diagnostic,
  evaluateAny,
  evaluateSync,
  processHookRunner,
  type CompiledPolicy,
  type Decision,
  type Diagnostic,
  type HookRunner,
  type PolicyEvent,
  type PolicyIR,
} from '../engine/index.js';
import { claudeTranscriptBatches, codexRolloutBatches, readTranscriptHead, type TranscriptHead, type TranscriptItem } from '../bridges/index.js';
import { format, guard, UsageError, type Io, policyInputs } from './args.js';
import { FAILED, OK } from './exit-codes.js';
import { loadPolicies, refuseToRun } from './policy.js';
import { PLAIN, styleFor, summarize, type Style } from './render.js';
import { describeEvent, eventText, explainShort } from './table.js';
import { formatBytes, Output, ProgressLine } from './replay-output.js';
import { terminalCell, terminalSafe } from './untrusted.js';

export const REPLAY_HELP = `usage: dshpolicy replay --policy <file>... <transcript.jsonl|dir>... [--format table|json]
                        [--agent claude|codex] [--only <decision,...>] [--seams <seam,...>]
                        [--run-hooks] [--no-progress]
                        [--claude-hooks <settings.json|hooks.json>]... [--codex-hooks <hooks.json|config.toml>]...

Replays recorded sessions against the policy: Claude Code transcripts (~/.claude/projects/...)
and Codex rollouts (~/.codex/sessions/...), one format detected per file (--agent forces it).
A directory is searched for .jsonl files. Every prompt, tool call (pre-tool), tool result
(post-tool) and stop of the sessions is decided as the agent's hook would have asked, and a
summary says how many events of each seam, what was decided per tool, how many prompts were
blocked and stops continued, and how often each rule decided.

  --format json        one JSON line per event ({file, line, seam, tool, event, decision, reasons,
                       rules, pending}), then {"summary": {...}}
  --only deny,ask      list only the events with these decisions (any seam's words, or pending);
                       in the table format events are listed only when --only is given
  --seams <list>       the seams to decide (default pre-tool,post-tool,prompt,stop)
  --run-hooks          run the command hooks of \`run\` rules and imported hooks configurations;
                       without it they are not run and are reported as pending
  --agent claude|codex read every file as this agent's format

Each event is decided on the recorded history: a call the policy denies still happened in the
recording, and what came after it is decided too. Lines that cannot be read are skipped and
counted. Exits 0, or 1 when the policy does not compile or a file cannot be read.`;

export type TranscriptAgent = 'claude' | 'codex';
export type ReplaySeam = 'pre-tool' | 'post-tool' | 'prompt' | 'stop';
export const REPLAY_SEAMS: readonly ReplaySeam[] = ['pre-tool', 'post-tool', 'prompt', 'stop'];

/** Decision words `--only` accepts: every seam's, and `pending` (a `run` rule matched but did not run). */
const ONLY_WORDS = ['deny', 'ask', 'allow', 'none', 'block', 'accept', 'halt', 'continue', 'stop', 'pending'];

/** Lines longer than this are skipped (and counted); memory is bounded by it. */
export const REPLAY_MAX_LINE_BYTES = 32 * 1024 * 1024;
/** How much of a file's head is read to tell its format and find its session and working directory. */
const SNIFF_BYTES = 4 * 1024 * 1024;
/** Distinct tools counted by name; further ones share one row. */
const MAX_TOOLS = 1000;
const OTHER_TOOLS = '(other tools)';
/** Diagnostics kept for the summary; further ones are only counted. */
const MAX_DIAGNOSTICS = 100;
/** Longest event description in the per-event output. */
const EVENT_TEXT = 300;

// ---------------------------------------------------------------------------------------------
// What one replayed event is

export interface ReplayRecord {
  file: string;
  line?: number;
  agent: TranscriptAgent;
  event: PolicyEvent;
  decision: Decision;
  /** `run` rules that matched but were not run (no `--run-hooks`). */
  pending: string[];
}

/** The JSON line of one replayed event. */
export function recordJson(r: ReplayRecord): Record<string, unknown> {
  const e = r.event;
  const d = r.decision;
  const out: Record<string, unknown> = { file: r.file };
  if (r.line !== undefined) out['line'] = r.line;
  out['seam'] = e.seam;
  if (e.seam === 'pre-tool' || e.seam === 'post-tool') out['tool'] = e.tool;
  out['event'] = clip(describeEvent(e), EVENT_TEXT);
  if (e.seam === 'stop') out['stop_hook_active'] = e.stop_hook_active;
  out['decision'] = d.decision;
  out['reasons'] = d.reasons;
  out['rules'] = d.rules;
  if (r.pending.length > 0) out['pending'] = r.pending;
  if (d.context.length > 0) out['context'] = d.context;
  if (d.diagnostics.length > 0) out['diagnostics'] = d.diagnostics;
  return out;
}

/** Whitespace other than single spaces: what flattening would change inside a text. */
const ODD_SPACE = /[^\S ]| {2}/;

/** One line of at most `width` characters: runs of whitespace made one space, trimmed, clipped with `…`. */
export function clip(s: string, width: number): string {
  // A long text: flatten a prefix first. When the flattened prefix, trimmed, is still longer than
  // the width, the whole text clips to the same characters (flattening only shortens runs of
  // whitespace, and the end trimmed away lies past the width).
  if (s.length > 4 * width + 64) {
    const head = flatten(s.slice(0, 4 * width + 64));
    if (head.length > width) return `${head.slice(0, width - 1)}…`;
  }
  const flat = flatten(s);
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

/** `s.replace(/\s+/g, ' ').trim()`, without the copy when there is nothing to change. */
function flatten(s: string): string {
  if (!ODD_SPACE.test(s) && s.charCodeAt(0) !== 0x20 && s.charCodeAt(s.length - 1) !== 0x20) return s;
  return s.replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// The counts

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
  /** Claude Code tool results that are errors: PostToolUseFailure, not the post-tool seam. */
  failedToolResults: number;
  /** Events on which some `run` rule matched but was not run. */
  eventsWithPendingHooks: number;
  /** Claude Code subagent transcripts (sidechain lines only), which give no events. */
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
class Counts {
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
      prompts: { total: total(seams.prompt), blocked: seams.prompt['block'] ?? 0 },
      stops: {
        total: total(seams.stop),
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

function total(counts: Record<string, number>): number {
  let n = 0;
  for (const v of Object.values(counts)) n += v;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Telling a file's format, and its session facts


/** The `.jsonl` files under a directory, sorted; a file path is itself. Throws when a path cannot be read. */
export function transcriptFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const out: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(path);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The replay

export interface ReplayProgress {
  /** 1-based index of the file being read, of `files`. */
  file: number;
  files: number;
  path: string;
  /** Size of the file being read. */
  size: number;
  events: number;
}

export interface ReplayOptions {
  /** Read every file as this format instead of detecting it. */
  agent?: TranscriptAgent;
  /** Seams to decide (default all four). */
  seams?: ReadonlySet<ReplaySeam>;
  /** Runs `run` rules' command hooks with this runner; without one they are reported as pending. */
  runner?: HookRunner;
  /** Lines longer than this are skipped (default 32 MiB). */
  maxLineBytes?: number;
  /** Each decided event, as it is decided; awaited (output backpressure). */
  onEvent?: (record: ReplayRecord) => void | Promise<void>;
  /** A problem with a file: as it is met. */
  onDiagnostic?: (file: string, d: Diagnostic) => void;
  /** Called when a file starts and as events are decided (every 1024 events). */
  onProgress?: (p: ReplayProgress) => void;
}

/**
 * Replays transcript files against a compiled policy and returns the counts. Files are read one
 * after the other, forward, with constant memory; nothing per event is kept. Never throws for a
 * file's sake: a file that cannot be read is a diagnostic and a `FileSummary.error`.
 */
export async function replayFiles(policy: CompiledPolicy, files: readonly string[], opts: ReplayOptions = {}): Promise<ReplaySummary> {
  const counts = new Counts(policy.ir);
  const started = performance.now();
  for (let i = 0; i < files.length; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await replayFile(policy, files[i]!, i, files.length, counts, opts);
    const c = process.cpuUsage(c0);
    const summary = counts.files[counts.files.length - 1]!;
    summary.seconds = (performance.now() - t0) / 1000;
    summary.cpuSeconds = (c.user + c.system) / 1e6;
  }
  return counts.summary((performance.now() - started) / 1000);
}

async function replayFile(policy: CompiledPolicy, file: string, index: number, of: number, counts: Counts, opts: ReplayOptions): Promise<void> {
  let summary: FileSummary = { file, bytes: 0, events: 0, skippedLines: 0, seconds: 0, cpuSeconds: 0 };
  counts.files.push(summary);
  const report = (d: Diagnostic) => {
    counts.diagnostic(d);
    opts.onDiagnostic?.(file, d);
  };
  const fail = (d: Diagnostic) => {
    summary.error = d.message;
    report(d);
  };
  let head: TranscriptHead;
  let size: number;
  try {
    size = statSync(file).size;
    head = await readTranscriptHead(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    fail(diagnostic('replay/unreadable', 'error', code === 'ENOENT' ? `\`${file}\` does not exist` : `cannot read \`${file}\`: ${code ?? (error as Error).message}`));
    return;
  }
  summary.bytes = size;
  const agent = opts.agent ?? head.agent;
  if (agent === undefined) {
    if (head.empty && size === 0) report(diagnostic('replay/empty', 'info', `\`${file}\` is empty`));
    else if (head.empty) fail(diagnostic('replay/not-a-transcript', 'error', `\`${file}\` has no readable JSON line in its first ${SNIFF_BYTES / 1024 / 1024} MiB`));
    else {
      fail(
        diagnostic('replay/unknown-format', 'error', `\`${file}\` is neither a Claude Code transcript nor a Codex rollout`, {
          help: 'Name its format with `--agent claude` or `--agent codex`.',
        }),
      );
    }
    return;
  }
  // Keys in reading order: file, agent, session, cwd, then the counts.
  const known: Partial<FileSummary> & { file: string } = { file, agent };
  if (head.session !== undefined) known.session = head.session;
  if (head.cwd !== undefined) known.cwd = head.cwd;
  summary = Object.assign(known, { bytes: size, events: 0, skippedLines: 0, seconds: 0, cpuSeconds: 0 });
  counts.files[counts.files.length - 1] = summary;
  if (head.sidechain && opts.agent === undefined) {
    counts.sidechainFiles++;
    report(
      diagnostic('replay/sidechain', 'warning', `\`${file}\` is a Claude Code subagent transcript (sidechain lines only); it gives no events`, {
        help: "The transcript reader skips sidechain lines, so a subagent's tool calls are not replayed.",
      }),
    );
  }
  counts.bytes += size;

  const base: EventBase = { transcript_path: resolve(file) };
  if (head.cwd !== undefined) base.cwd = head.cwd;
  if (head.session !== undefined) base.session = head.session;
  if (head.permissionMode !== undefined) base.permission_mode = head.permissionMode;
  const seams = opts.seams;
  const wants = (s: ReplaySeam) => seams === undefined || seams.has(s);
  const progress = opts.onProgress;
  progress?.({ file: index + 1, files: of, path: file, size, events: counts.events });

  const itemsOpts = { maxLineBytes: opts.maxLineBytes ?? REPLAY_MAX_LINE_BYTES };
  const batches: AsyncGenerator<TranscriptItem[]> = agent === 'claude' ? claudeTranscriptBatches(file, itemsOpts) : codexRolloutBatches(file, itemsOpts);
  const wantPrompt = wants('prompt');
  const wantPre = wants('pre-tool');
  const wantPost = wants('post-tool');
  const wantStop = wants('stop');
  const onEvent = opts.onEvent;
  const runner = opts.runner;
  for await (const batch of batches) {
    for (const item of batch) {
      let event: PolicyEvent | undefined;
      switch (item.kind) {
        case 'prompt':
          if (wantPrompt) event = withBase({ seam: 'prompt', prompt: item.prompt }, base);
          break;
        case 'tool-call':
          if (wantPre) event = withBase({ seam: 'pre-tool', tool: item.call.tool, input: item.call.input }, base);
          break;
        case 'tool-result':
          if (item.call === undefined) counts.resultsWithoutCall++;
          // Claude Code sends a failed call to PostToolUseFailure, not to the post-tool seam.
          else if (agent === 'claude' && item.isError === true) counts.failedToolResults++;
          else if (wantPost) {
            event = withBase({ seam: 'post-tool', tool: item.call.tool, input: item.call.input }, base);
            if (item.output !== undefined) event.output = item.output;
          }
          break;
        case 'stop':
          if (wantStop) {
            event = withBase({ seam: 'stop', turn: item.turn, stop_hook_active: item.continuations > 0, continuations: item.continuations }, base);
            if (item.lastMessage !== undefined) event.last_message = item.lastMessage;
          }
          break;
        case 'continuation':
          counts.recordedContinuations++;
          break;
        case 'diagnostic': {
          const d = item.diagnostic;
          const skipped = /-bad-lines$/.test(d.code) ? /^skipped (\d+) /.exec(d.message) : null;
          if (skipped) {
            const n = Number(skipped[1]);
            counts.skippedLines += n;
            summary.skippedLines += n;
          }
          if (d.severity === 'error') fail(d);
          else report(d);
          break;
        }
      }
      if (event === undefined) continue;
      let record: ReplayRecord;
      try {
        if (runner !== undefined) {
          const decision = (await evaluateAny(policy, event, { runner })) as Decision;
          record = { file, agent, event, decision, pending: [] };
        } else {
          const { pendingHooks, ...decision } = evaluateSync(policy, event);
          record = { file, agent, event, decision, pending: pendingHooks };
        }
      } catch (error) {
        // The engine does not throw on events; should it, the event is reported and the run goes on.
        const where = 'line' in item ? `line ${item.line} of ` : '';
        report(diagnostic('replay/evaluate-failed', 'error', `could not decide the ${event.seam} event at ${where}\`${file}\`: ${(error as Error).message ?? String(error)}`));
        continue;
      }
      if ('line' in item) record.line = item.line;
      summary.events++;
      counts.add(record);
      if (onEvent) {
        // Awaited only when the consumer returns a promise (output waiting for a slow reader).
        const waiting = onEvent(record);
        if (waiting !== undefined) await waiting;
      }
      if (progress && (counts.events & 1023) === 0) progress({ file: index + 1, files: of, path: file, size, events: counts.events });
    }
  }
}

/** The session facts every event of a file carries. */
interface EventBase {
  transcript_path: string;
  cwd?: string;
  session?: string;
  permission_mode?: string;
}

/** Adds a file's session facts to an event, in the order `{...event, ...base}` gives them. */
function withBase<E extends PolicyEvent>(event: E, base: EventBase): E {
  const e = event as E & EventBase;
  e.transcript_path = base.transcript_path;
  if (base.cwd !== undefined) e.cwd = base.cwd;
  if (base.session !== undefined) e.session = base.session;
  if (base.permission_mode !== undefined) e.permission_mode = base.permission_mode;
  return e;
}

function list<T extends string>(value: string | undefined, allowed: readonly T[], option: string): Set<T> | undefined {
  if (value === undefined) return undefined;
  const words = value.split(',').map((w) => w.trim()).filter((w) => w !== '');
  if (words.length === 0) throw new UsageError(`\`--${option}\` needs at least one of ${allowed.join(', ')}`);
  for (const w of words) {
    if (!(allowed as readonly string[]).includes(w)) throw new UsageError(`unknown ${option === 'only' ? 'decision' : 'seam'} \`${w}\` in \`--${option}\`; use ${allowed.join(', ')}`);
  }
  return new Set(words as T[]);
}

export async function replayCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = guard(() =>
    parseArgs({
      args: argv,
      options: {
        policy: { type: 'string', multiple: true, short: 'p' },
        'claude-hooks': { type: 'string', multiple: true },
        'codex-hooks': { type: 'string', multiple: true },
        agent: { type: 'string' },
        format: { type: 'string' },
        only: { type: 'string' },
        seams: { type: 'string' },
        'run-hooks': { type: 'boolean' },
        'no-progress': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    }),
  );
  if (values.help) {
    io.stdout.write(`${REPLAY_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['table', 'json'], 'table');
  const { policies, hooks } = policyInputs(values);
  if (positionals.length === 0) throw new UsageError('name at least one transcript (a Claude Code session .jsonl, a Codex rollout, or a directory of them)');
  if (values.agent !== undefined && values.agent !== 'claude' && values.agent !== 'codex') throw new UsageError(`unknown agent \`${values.agent}\`; use claude or codex`);
  const only = list(values.only, ONLY_WORDS, 'only');
  const seams = list(values.seams, REPLAY_SEAMS, 'seams');

  const loaded = loadPolicies(policies, hooks);
  if (!loaded.policy) return refuseToRun(loaded, fmt === 'json', io);
  const warnings = loaded.diagnostics.filter((d) => d.severity === 'warning');
  if (warnings.length > 0) io.stderr.write(`policy: ${summarize(warnings)} (run \`dshpolicy check\` to see them)\n`);

  // Directories are searched for .jsonl files; a path that cannot be read is reported when it is replayed.
  const files: string[] = [];
  for (const p of positionals) {
    try {
      files.push(...transcriptFiles(p));
    } catch {
      files.push(p); // reported when it is read
    }
  }

  const style: Style = fmt === 'table' && io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
  const out = new Output(io.stdout);
  const showProgress = io.stderr.isTTY === true && values['no-progress'] !== true;
  let totalBytes = 0;
  if (showProgress) {
    for (const f of files) {
      try {
        totalBytes += statSync(f).size;
      } catch {
        // reported when it is read
      }
    }
  }
  const progress = showProgress ? new ProgressLine(io.stderr, totalBytes) : undefined;
  if (progress && io.stdout.isTTY === true) out.beforeWrite = () => progress.clear();
  let listedCount = 0;
  const listed = (r: ReplayRecord) => only === undefined || only.has(r.decision.decision) || (only.has('pending') && r.pending.length > 0);
  let shownDiagnostics = 0;
  const opts: ReplayOptions = {
    onDiagnostic: (file, d) => {
      if (fmt === 'json') {
        void out.write(`${JSON.stringify({ file, diagnostic: d })}\n`);
        return;
      }
      if (d.severity === 'info' || (d.severity === 'warning' && ++shownDiagnostics > 20)) return;
      progress?.clear();
      const sev = d.severity === 'error' ? style.red('error') : style.yellow('warning');
      // A message quotes file names and transcript text.
      io.stderr.write(`${sev}: ${terminalSafe(d.message)}${d.help ? ` (${terminalSafe(d.help)})` : ''}\n`);
    },
  };
  if (values.agent !== undefined) opts.agent = values.agent;
  if (seams !== undefined) opts.seams = seams;
  if (values['run-hooks'] === true) opts.runner = processHookRunner();
  if (progress) opts.onProgress = (p) => progress.update(p);
  if (fmt === 'json') {
    opts.onEvent = (r) => (listed(r) ? out.write(`${JSON.stringify(recordJson(r))}\n`) : undefined);
  } else if (only !== undefined) {
    opts.onEvent = (r) => {
      if (!listed(r)) return undefined;
      listedCount++;
      return out.write(`${eventRow(r, style)}\n`);
    };
  }
  let summary: ReplaySummary;
  try {
    summary = await replayFiles(loaded.policy, files, opts);
  } finally {
    progress?.stop();
  }
  if (fmt === 'json') {
    await out.write(`${JSON.stringify({ summary })}\n`);
  } else {
    if (listedCount > 0) await out.write('\n');
    await out.write(renderSummary(summary, { runHooks: opts.runner !== undefined, style }));
  }
  await out.flush();
  return summary.failedFiles > 0 ? FAILED : OK;
}

// ---------------------------------------------------------------------------------------------
// The table format

const DECISION_STYLE: Record<string, keyof Style> = { deny: 'red', block: 'red', halt: 'red', ask: 'yellow', continue: 'yellow', allow: 'green', accept: 'green' };

function styled(word: string, style: Style, width = word.length): string {
  const key = DECISION_STYLE[word];
  const pad = ' '.repeat(Math.max(0, width - word.length));
  return (key ? style[key](word) : style.dim(word)) + pad;
}

/** Rule ids and file names, escaped: file names come from the repository and the transcripts' directories. */
const safeList = (names: readonly string[]) => names.map((name) => terminalSafe(name)).join(', ');

/** One listed event: decision, seam, where, what, why; the transcript's text escaped (untrusted.ts). */
export function eventRow(r: ReplayRecord, style: Style = PLAIN): string {
  const file = terminalSafe(r.file);
  const where = r.line !== undefined ? `${file}:${r.line}` : file;
  const why = explainShort(r.decision);
  const pending = r.pending.length > 0 ? ` [${r.pending.length} hook${r.pending.length === 1 ? '' : 's'} not run: ${safeList(r.pending)}]` : '';
  return `${styled(r.decision.decision, style, 9)}${r.event.seam.padEnd(10)}${where}  ${terminalCell(eventText(r.event), 60)}${why ? `  ${style.dim('—')} ${terminalCell(why, 100)}` : ''}${pending}`;
}

function grid(header: string[], rows: string[][], style: Style, right: (i: number) => boolean): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const cell = (s: string, i: number) => (right(i) ? s.padStart(widths[i]!) : s.padEnd(widths[i]!));
  return [style.bold(header.map(cell).join('  ').trimEnd()), ...rows.map((r) => r.map(cell).join('  ').trimEnd())];
}

const n = (x: number | undefined) => (x ?? 0).toLocaleString('en-US');
const plural = (k: number, word: string) => `${n(k)} ${word}${k === 1 ? '' : 's'}`;

/** The summary as text: totals, events per seam, decisions per tool, prompts, stops, rules, problems. */
export function renderSummary(s: ReplaySummary, { runHooks = false, style = PLAIN }: { runHooks?: boolean; style?: Style } = {}): string {
  const lines: string[] = [];
  const read = s.files.filter((f) => f.error === undefined);
  const agents = (['claude', 'codex'] as const).map((a) => [a, read.filter((f) => f.agent === a).length] as const).filter(([, k]) => k > 0);
  const kinds = agents.length > 0 ? ` (${agents.map(([a, k]) => `${k} ${a}`).join(', ')})` : '';
  lines.push(
    `${style.bold('replayed')} ${plural(read.length, 'file')}${kinds}, ${formatBytes(s.bytes)}, ${plural(s.events, 'event')} in ${s.seconds.toFixed(2)} s (${n(s.eventsPerSecond)} events/s)`,
  );
  if (s.failedFiles > 0) lines.push(style.red(`${plural(s.failedFiles, 'file')} could not be read: ${safeList(s.files.filter((f) => f.error !== undefined).map((f) => f.file))}`));
  lines.push('');

  const seamRows = REPLAY_SEAMS.map((seam) => {
    const c = s.seams[seam];
    return [seam, n(total(c)), Object.entries(c).filter(([, v]) => v > 0).map(([k, v]) => `${n(v)} ${k}`).join(', ')];
  });
  lines.push(...grid(['seam', 'events', 'decisions'], seamRows, style, (i) => i === 1), '');

  const toolRows = Object.entries(s.tools).map(([tool, c]) => {
    const pre = c['pre-tool'];
    // Tool names are the transcript's: escaped before the grid measures its columns.
    return [terminalSafe(tool), n(total(pre)), n(pre['deny']), n(pre['ask']), n(pre['allow']), n(pre['none']), n(total(c['post-tool'])), n(c['post-tool']['block'])];
  });
  if (toolRows.length > 0) {
    lines.push(...grid(['tool', 'calls', 'deny', 'ask', 'allow', 'none', 'results', 'blocked'], toolRows, style, (i) => i > 0), '');
  }

  lines.push(`prompts: ${n(s.prompts.total)}, blocked ${n(s.prompts.blocked)}`);
  const recorded = s.stops.recordedContinuations > 0 ? `; the recording had ${plural(s.stops.recordedContinuations, 'forced continuation')}` : '';
  lines.push(`stops: ${n(s.stops.total)}, continued ${n(s.stops.continued)}, halted ${n(s.stops.halted)}, let stop ${n(s.stops.stopped)}${recorded}`, '');

  const active = s.rules.filter((r) => r.decided > 0 || r.pending > 0).sort((a, b) => b.decided - a.decided || b.pending - a.pending || a.id.localeCompare(b.id));
  if (active.length > 0) {
    const anyPending = active.some((r) => r.pending > 0);
    const header = ['rule', 'seam', 'effect', 'decided', ...(anyPending ? ['not run'] : [])];
    const rows = active.map((r) => [terminalSafe(r.id), r.seam, r.effect, n(r.decided), ...(anyPending ? [n(r.pending)] : [])]);
    lines.push(...grid(header, rows, style, (i) => i >= 3));
  }
  const idle = s.rules.filter((r) => r.decided === 0 && r.pending === 0);
  if (idle.length > 0) {
    const shown = safeList(idle.slice(0, 10).map((r) => r.id));
    lines.push(`${plural(idle.length, 'rule')} never decided: ${shown}${idle.length > 10 ? ', …' : ''}`);
  }
  if (active.length > 0 || idle.length > 0) lines.push('');

  const notes: string[] = [];
  if (s.eventsWithPendingHooks > 0 && !runHooks) notes.push(`${plural(s.eventsWithPendingHooks, 'event')} matched command hooks that were not run (pass --run-hooks to run them)`);
  if (s.skippedLines > 0) notes.push(`${plural(s.skippedLines, 'unreadable line')} skipped`);
  if (s.resultsWithoutCall > 0) notes.push(`${plural(s.resultsWithoutCall, 'tool result')} without its call (no post-tool event)`);
  if (s.failedToolResults > 0) notes.push(`${plural(s.failedToolResults, 'failed tool result')} (Claude Code's PostToolUseFailure, not post-tool)`);
  if (s.sidechainFiles > 0) notes.push(`${plural(s.sidechainFiles, 'subagent transcript')} gave no events`);
  if (s.droppedDiagnostics > 0) notes.push(`${plural(s.droppedDiagnostics, 'more diagnostic')} not kept`);
  for (const note of notes) lines.push(style.dim(note));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return `${lines.join('\n')}\n`;
}
