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
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { open, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
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
import { iterateClaudeTranscript, iterateCodexRollout, readTranscriptHead, type TranscriptHead, type TranscriptItem } from '../bridges/index.js';
import { format, guard, UsageError, type Io, policyInputs } from './args.js';
import { loadPolicies } from './policy.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize, type Style } from './render.js';
import { describeEvent, explainShort } from './table.js';

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

function clip(s: string, width: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
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
  for (let i = 0; i < files.length; i++) await replayFile(policy, files[i]!, i, files.length, counts, opts);
  return counts.summary((performance.now() - started) / 1000);
}

async function replayFile(policy: CompiledPolicy, file: string, index: number, of: number, counts: Counts, opts: ReplayOptions): Promise<void> {
  let summary: FileSummary = { file, bytes: 0, events: 0, skippedLines: 0 };
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
  summary = Object.assign(known, { bytes: size, events: 0, skippedLines: 0 });
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

  const base: { cwd?: string; session?: string; permission_mode?: string; transcript_path: string } = { transcript_path: resolve(file) };
  if (head.cwd !== undefined) base.cwd = head.cwd;
  if (head.session !== undefined) base.session = head.session;
  if (head.permissionMode !== undefined) base.permission_mode = head.permissionMode;
  const seams = opts.seams;
  const wants = (s: ReplaySeam) => seams === undefined || seams.has(s);
  const progress = opts.onProgress;
  progress?.({ file: index + 1, files: of, path: file, size, events: counts.events });

  const itemsOpts = { maxLineBytes: opts.maxLineBytes ?? REPLAY_MAX_LINE_BYTES };
  const items: AsyncGenerator<TranscriptItem> = agent === 'claude' ? iterateClaudeTranscript(file, itemsOpts) : iterateCodexRollout(file, itemsOpts);
  for await (const item of items) {
    let event: PolicyEvent | undefined;
    switch (item.kind) {
      case 'prompt':
        if (wants('prompt')) event = { seam: 'prompt', prompt: item.prompt, ...base };
        break;
      case 'tool-call':
        if (wants('pre-tool')) event = { seam: 'pre-tool', tool: item.call.tool, input: item.call.input, ...base };
        break;
      case 'tool-result':
        if (item.call === undefined) counts.resultsWithoutCall++;
        // Claude Code sends a failed call to PostToolUseFailure, not to the post-tool seam.
        else if (agent === 'claude' && item.isError === true) counts.failedToolResults++;
        else if (wants('post-tool')) {
          event = { seam: 'post-tool', tool: item.call.tool, input: item.call.input, ...base };
          if (item.output !== undefined) event.output = item.output;
        }
        break;
      case 'stop':
        if (wants('stop')) {
          event = { seam: 'stop', turn: item.turn, stop_hook_active: item.continuations > 0, continuations: item.continuations, ...base };
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
      if (opts.runner !== undefined) {
        const decision = (await evaluateAny(policy, event, { runner: opts.runner })) as Decision;
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
    if (opts.onEvent) await opts.onEvent(record);
    if (progress && (counts.events & 1023) === 0) progress({ file: index + 1, files: of, path: file, size, events: counts.events });
  }
}

// ---------------------------------------------------------------------------------------------
// Output

/**
 * Buffers writes into 64 KiB chunks (a line at a time on a terminal) and waits for the stream to
 * drain, so a slow reader costs no memory.
 */
class Output {
  private buf = '';
  /** Called before text goes out (clears the progress line on a shared terminal). */
  beforeWrite: (() => void) | undefined;
  constructor(private readonly stream: NodeJS.WritableStream & { isTTY?: boolean }) {}
  async write(text: string): Promise<void> {
    this.buf += text;
    if (this.buf.length >= 64 * 1024 || this.stream.isTTY === true) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.buf === '') return;
    const text = this.buf;
    this.buf = '';
    this.beforeWrite?.();
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }
}

/** Bytes this process has read so far (Linux `/proc/self/io` `rchar`), or undefined where there is no such file. */
function bytesReadByProcess(): number | undefined {
  try {
    const m = /^rchar:\s*(\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A one-line progress display on a terminal (stderr): file, bytes read of the total, events. The
 * iterators do not say how far into a file they are, so bytes come from the process's read count
 * where the system keeps one (Linux); elsewhere the line shows events only.
 */
class ProgressLine {
  private timer: NodeJS.Timeout | undefined;
  private current: ReplayProgress | undefined;
  private fileStartRead: number | undefined;
  private doneBytes = 0;
  private shown = false;
  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly totalBytes: number,
  ) {}
  update(p: ReplayProgress): void {
    const next = this.current?.file !== p.file;
    if (next) {
      if (this.current !== undefined) this.doneBytes += this.current.size;
      this.fileStartRead = bytesReadByProcess();
    }
    this.current = p;
    this.timer ??= setInterval(() => this.render(), 200).unref();
    if (next) this.render();
  }
  render(): void {
    const p = this.current;
    if (p === undefined) return;
    const now = bytesReadByProcess();
    const inFile = now !== undefined && this.fileStartRead !== undefined ? Math.max(0, Math.min(p.size, now - this.fileStartRead)) : undefined;
    const parts = [`replay: file ${p.file}/${p.files}`];
    if (inFile !== undefined) {
      const done = this.doneBytes + inFile;
      const pct = this.totalBytes > 0 ? Math.floor((done / this.totalBytes) * 100) : 100;
      parts.push(`${formatBytes(done)} / ${formatBytes(this.totalBytes)} (${pct}%)`);
    } else {
      parts.push(`${formatBytes(this.doneBytes)} done of ${formatBytes(this.totalBytes)}`);
    }
    parts.push(`${p.events.toLocaleString('en-US')} events`);
    this.stream.write(`\r\u001b[2K${parts.join('  ')}`);
    this.shown = true;
  }
  /** Clears the line (before other stderr output, and at the end). */
  clear(): void {
    if (this.shown) this.stream.write('\r\u001b[2K');
    this.shown = false;
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
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
    return 0;
  }
  const fmt = format(values.format, ['table', 'json'], 'table');
  const { policies, hooks } = policyInputs(values);
  if (positionals.length === 0) throw new UsageError('name at least one transcript (a Claude Code session .jsonl, a Codex rollout, or a directory of them)');
  if (values.agent !== undefined && values.agent !== 'claude' && values.agent !== 'codex') throw new UsageError(`unknown agent \`${values.agent}\`; use claude or codex`);
  const only = list(values.only, ONLY_WORDS, 'only');
  const seams = list(values.seams, REPLAY_SEAMS, 'seams');

  const loaded = loadPolicies(policies, hooks);
  if (!loaded.policy) {
    if (fmt === 'json') io.stdout.write(`${JSON.stringify({ ok: false, diagnostics: loaded.diagnostics })}\n`);
    else {
      const sources = new SourceCache();
      for (const d of loaded.diagnostics) io.stderr.write(`${renderDiagnostic(d, sources, styleFor(process.stderr))}\n\n`);
      io.stderr.write(`the policy does not compile: ${summarize(loaded.diagnostics)}\n`);
    }
    return 1;
  }
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
      io.stderr.write(`${sev}: ${d.message}${d.help ? ` (${d.help})` : ''}\n`);
    },
  };
  if (values.agent !== undefined) opts.agent = values.agent;
  if (seams !== undefined) opts.seams = seams;
  if (values['run-hooks'] === true) opts.runner = processHookRunner();
  if (progress) opts.onProgress = (p) => progress.update(p);
  if (fmt === 'json') {
    opts.onEvent = async (r) => {
      if (listed(r)) await out.write(`${JSON.stringify(recordJson(r))}\n`);
    };
  } else if (only !== undefined) {
    opts.onEvent = async (r) => {
      if (!listed(r)) return;
      listedCount++;
      await out.write(`${eventRow(r, style)}\n`);
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
  return summary.failedFiles > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// The table format

const DECISION_STYLE: Record<string, keyof Style> = { deny: 'red', block: 'red', halt: 'red', ask: 'yellow', continue: 'yellow', allow: 'green', accept: 'green' };

function styled(word: string, style: Style, width = word.length): string {
  const key = DECISION_STYLE[word];
  const pad = ' '.repeat(Math.max(0, width - word.length));
  return (key ? style[key](word) : style.dim(word)) + pad;
}

/** One listed event: decision, seam, where, what, why. */
export function eventRow(r: ReplayRecord, style: Style = PLAIN): string {
  const where = r.line !== undefined ? `${r.file}:${r.line}` : r.file;
  const why = explainShort(r.decision);
  const pending = r.pending.length > 0 ? ` [${r.pending.length} hook${r.pending.length === 1 ? '' : 's'} not run: ${r.pending.join(', ')}]` : '';
  return `${styled(r.decision.decision, style, 9)}${r.event.seam.padEnd(10)}${where}  ${clip(describeEvent(r.event), 60)}${why ? `  ${style.dim('—')} ${clip(why, 100)}` : ''}${pending}`;
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
  if (s.failedFiles > 0) lines.push(style.red(`${plural(s.failedFiles, 'file')} could not be read: ${s.files.filter((f) => f.error !== undefined).map((f) => f.file).join(', ')}`));
  lines.push('');

  const seamRows = REPLAY_SEAMS.map((seam) => {
    const c = s.seams[seam];
    return [seam, n(total(c)), Object.entries(c).filter(([, v]) => v > 0).map(([k, v]) => `${n(v)} ${k}`).join(', ')];
  });
  lines.push(...grid(['seam', 'events', 'decisions'], seamRows, style, (i) => i === 1), '');

  const toolRows = Object.entries(s.tools).map(([tool, c]) => {
    const pre = c['pre-tool'];
    return [tool, n(total(pre)), n(pre['deny']), n(pre['ask']), n(pre['allow']), n(pre['none']), n(total(c['post-tool'])), n(c['post-tool']['block'])];
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
    const rows = active.map((r) => [r.id, r.seam, r.effect, n(r.decided), ...(anyPending ? [n(r.pending)] : [])]);
    lines.push(...grid(header, rows, style, (i) => i >= 3));
  }
  const idle = s.rules.filter((r) => r.decided === 0 && r.pending === 0);
  if (idle.length > 0) {
    const shown = idle.slice(0, 10).map((r) => r.id).join(', ');
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

// ---------------------------------------------------------------------------------------------
// Synthetic transcripts and the throughput hook (for tests and benchmarks)

export interface SyntheticOptions {
  agent?: TranscriptAgent;
  /** Prompts, each followed by its calls, their results and a final message. */
  turns: number;
  /** Tool calls per turn (default 2). */
  callsPerTurn?: number;
  /** Bytes of output per tool result (default 512). */
  outputBytes?: number;
}

export const SYNTHETIC_COMMANDS = ['npm test', 'git status', 'cat src/index.ts', 'rm -rf build', 'git push origin main', 'ls -la', 'npm run lint -- --fix'];

/**
 * Writes a transcript of the agent's format with `turns` turns, in ~1 MiB appends (the whole file is
 * never in memory). The Bash commands cycle through SYNTHETIC_COMMANDS (`npm test`, `git status`,
 * `cat src/index.ts`, `rm -rf build`, `git push origin main`, `ls -la`, `npm run lint -- --fix`).
 * Returns the bytes written and the events a replay of it makes.
 */
export function writeSyntheticTranscript(path: string, opts: SyntheticOptions): { bytes: number; events: number } {
  const agent = opts.agent ?? 'claude';
  const calls = opts.callsPerTurn ?? 2;
  const pad = 'x'.repeat(opts.outputBytes ?? 512);
  const session = '00000000-0000-4000-8000-000000000000';
  const cwd = '/tmp/replay-project';
  const fd = openSync(path, 'w');
  let bytes = 0;
  let chunk: string[] = [];
  let size = 0;
  let k = 0;
  const push = (value: unknown) => {
    const text = `${JSON.stringify(value)}\n`;
    chunk.push(text);
    size += text.length;
    if (size >= 1024 * 1024) flush();
  };
  const flush = () => {
    const text = chunk.join('');
    bytes += writeSync(fd, text);
    chunk = [];
    size = 0;
  };
  try {
    if (agent === 'codex') push({ timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: session, cwd, cli_version: 'synthetic' } });
    for (let t = 0; t < opts.turns; t++) {
      const prompt = `task ${t}`;
      if (agent === 'claude') {
        push({ type: 'user', isSidechain: false, message: { role: 'user', content: prompt }, cwd, sessionId: session, permissionMode: 'default' });
      } else {
        push({ type: 'event_msg', payload: { type: 'task_started', turn_id: `t${t}` } });
        push({
          type: 'response_item',
          payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }], internal_chat_message_metadata_passthrough: { content_item_metadata: [{ provenance: { type: 'user' } }] } },
        });
      }
      for (let c = 0; c < calls; c++) {
        const command = SYNTHETIC_COMMANDS[k++ % SYNTHETIC_COMMANDS.length]!;
        const id = `call_${t}_${c}`;
        const output = `${command}: ${pad}`;
        if (agent === 'claude') {
          push({ type: 'assistant', isSidechain: false, message: { id: `msg_${t}_${c}`, role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }], stop_reason: 'tool_use' }, cwd, sessionId: session });
          push({ type: 'user', isSidechain: false, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: false }] }, toolUseResult: { stdout: output }, cwd, sessionId: session });
        } else {
          push({ type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command }), call_id: id } });
          push({ type: 'response_item', payload: { type: 'function_call_output', call_id: id, output } });
        }
      }
      const last = `Done with task ${t}.`;
      if (agent === 'claude') {
        push({ type: 'assistant', isSidechain: false, message: { id: `msg_${t}_end`, role: 'assistant', content: [{ type: 'text', text: last }], stop_reason: 'end_turn' }, cwd, sessionId: session });
      } else {
        push({ type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: last }] } });
        push({ type: 'event_msg', payload: { type: 'task_complete', turn_id: `t${t}`, last_agent_message: last } });
      }
    }
    flush();
  } finally {
    closeSync(fd);
  }
  // prompt + (pre + post) per call + stop
  return { bytes, events: opts.turns * (2 + 2 * calls) };
}

/** A small policy with rules on every seam, for throughput measurements. */
export const THROUGHPUT_POLICY = `on pre-tool {
  deny Bash command "rm -rf *" because "no recursive deletes"
  ask Bash command "git push *" because "pushing needs a human"
  allow Bash command "npm test", "git status", "ls *"
  deny Read, Write path "**/.env" because "secrets stay out"
}
on post-tool {
  block Bash when output matches /npm ERR!/ because "the install failed"
}
on prompt {
  block when prompt contains "BEGIN PRIVATE KEY" because "no keys"
}
on stop {
  continue when not ran Bash command "npm test *" because "run the tests"
  limit 3
}
`;

export interface ThroughputResult {
  agent: TranscriptAgent;
  events: number;
  bytes: number;
  seconds: number;
  eventsPerSecond: number;
  bytesPerSecond: number;
}

/**
 * Replay throughput on a synthetic transcript: writes one (default 20,000 turns of 2 calls, ~50
 * MB for Claude Code) to a temp directory, replays it against THROUGHPUT_POLICY (or `policy`, a
 * .dshpolicy source text), and removes it. For `bench/`.
 */
export async function measureReplayThroughput(opts: Partial<SyntheticOptions> & { policy?: string } = {}): Promise<ThroughputResult> {
  const dir = await mkdtemp(join(tmpdir(), 'dshpolicy-replay-bench-'));
  try {
    const agent = opts.agent ?? 'claude';
    const file = join(dir, `${agent}.jsonl`);
    const synthetic: SyntheticOptions = { agent, turns: opts.turns ?? 20_000 };
    if (opts.callsPerTurn !== undefined) synthetic.callsPerTurn = opts.callsPerTurn;
    if (opts.outputBytes !== undefined) synthetic.outputBytes = opts.outputBytes;
    const written = writeSyntheticTranscript(file, synthetic);
    const policyFile = join(dir, 'bench.dshpolicy');
    await writeFile(policyFile, opts.policy ?? THROUGHPUT_POLICY);
    const loaded = loadPolicies([policyFile]);
    if (!loaded.policy) throw new Error(`the throughput policy does not compile: ${summarize(loaded.diagnostics)}`);
    const summary = await replayFiles(loaded.policy, [file]);
    return {
      agent,
      events: summary.events,
      bytes: written.bytes,
      seconds: summary.seconds,
      eventsPerSecond: summary.eventsPerSecond,
      bytesPerSecond: summary.seconds > 0 ? Math.round(written.bytes / summary.seconds) : 0,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
