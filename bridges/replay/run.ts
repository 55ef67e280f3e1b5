/**
 * The replay loop: each session file is read forward by the reader of the agent that wrote it
 * (told from the file's head, or named by the caller), every prompt, tool call, tool result and
 * stop becomes the event that agent's hook would have sent, and the policy decides it. The agents
 * come from the registry (`agentsWith('transcripts')`); no agent is named here.
 *
 * It streams: one event is alive at a time, the counts are bounded (summary.ts), and each decided
 * event goes to the caller as it is made, waiting for the caller only when it returns a promise.
 * Memory is bounded by the longest line and the longest turn, not by the file. Unreadable lines
 * are counted and skipped; a file that cannot be read is a diagnostic and a `FileSummary.error`,
 * and the other files still run. It never throws for a file's sake.
 *
 * Command hooks (`run` rules, imported hooks configurations) run only with a `runner`; without
 * one, the rules that would have run are reported as pending and the decision is the other rules'.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { diagnostic, evaluateAny, evaluateSync, type CompiledPolicy, type Decision, type Diagnostic, type HookRunner, type PolicyEvent } from '../../engine/index.js';
import type { Agent, AgentTranscripts } from '../agent.js';
import { agentNameList, agentsWith } from '../agents.js';
import { readTranscriptHead, TRANSCRIPT_HEAD_BYTES, type TranscriptAgent, type TranscriptHead } from '../transcript-head.js';
import { totalSize } from './files.js';
import { Counts, type FileSummary, type ReplayRecord, type ReplaySeam, type ReplaySummary } from './summary.js';

/** Lines longer than this are skipped (and counted); memory is bounded by it. */
export const REPLAY_MAX_LINE_BYTES = 32 * 1024 * 1024;

export interface ReplayProgress {
  /** 1-based index of the file being read, of `files`. */
  file: number;
  files: number;
  path: string;
  /** Size of the file being read. */
  size: number;
  /** Sizes of every file of the run that can be read, summed. */
  totalBytes: number;
  events: number;
}

export interface ReplayOptions {
  /** Read every file as this agent's format instead of telling it from the file's head. */
  agent?: TranscriptAgent;
  /** Seams to decide (default all four). */
  seams?: ReadonlySet<ReplaySeam>;
  /** Runs `run` rules' command hooks with this runner; without one they are reported as pending. */
  runner?: HookRunner;
  /** Lines longer than this are skipped (default 32 MiB). */
  maxLineBytes?: number;
  /** Each decided event, as it is decided; awaited when it returns a promise (output backpressure). */
  onEvent?: (record: ReplayRecord) => void | Promise<void>;
  /** A problem with a file: as it is met. */
  onDiagnostic?: (file: string, d: Diagnostic) => void;
  /** Called when a file starts and as events are decided (every 1024 events). */
  onProgress?: (p: ReplayProgress) => void;
}

type TranscriptsAgent = Agent & { transcripts: AgentTranscripts };

/** `a Claude Code transcript`: how messages name one of an agent's files. */
function aFileOf(agent: TranscriptsAgent, extra = ''): string {
  const words = `${agent.title} ${extra}${agent.transcripts.noun}`;
  return `${/^[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`;
}

/** `` `--agent a` or `--agent b` ``: the option that names each agent's format. */
function agentOptions(agents: readonly TranscriptsAgent[]): string {
  const words = agents.map((a) => `\`--agent ${a.name}\``);
  return words.length <= 1 ? (words[0] ?? '`--agent`') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** `neither A nor B` (`not A` for one agent). */
function neither(parts: readonly string[]): string {
  if (parts.length <= 1) return `not ${parts[0] ?? 'a session file'}`;
  return `neither ${parts.slice(0, -1).join(', ')} nor ${parts[parts.length - 1]}`;
}

/**
 * Replays session files against a compiled policy and returns the counts. Files are read one
 * after the other, forward, with constant memory; nothing per event is kept. Never throws for a
 * file's sake: a file that cannot be read is a diagnostic and a `FileSummary.error`.
 */
export async function replayFiles(policy: CompiledPolicy, files: readonly string[], opts: ReplayOptions = {}): Promise<ReplaySummary> {
  const agents = agentsWith('transcripts');
  const counts = new Counts(policy.ir);
  const started = performance.now();
  const totalBytes = opts.onProgress !== undefined ? totalSize(files) : 0;
  for (let i = 0; i < files.length; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await replayFile(policy, files[i]!, { index: i, of: files.length, totalBytes }, agents, counts, opts);
    const c = process.cpuUsage(c0);
    const summary = counts.files[counts.files.length - 1]!;
    summary.seconds = (performance.now() - t0) / 1000;
    summary.cpuSeconds = (c.user + c.system) / 1e6;
  }
  return counts.summary((performance.now() - started) / 1000);
}

interface Place {
  index: number;
  of: number;
  totalBytes: number;
}

async function replayFile(policy: CompiledPolicy, file: string, place: Place, agents: readonly TranscriptsAgent[], counts: Counts, opts: ReplayOptions): Promise<void> {
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
  let forced: TranscriptsAgent | undefined;
  if (opts.agent !== undefined) {
    forced = agents.find((a) => a.name === opts.agent);
    if (forced === undefined) {
      fail(diagnostic('replay/unknown-agent', 'error', `cannot read \`${file}\` as \`${opts.agent}\`: no agent of that name has session files dshpolicy reads`, { help: `Use ${agentNameList(agents)}.` }));
      return;
    }
  }
  let head: TranscriptHead;
  let size: number;
  try {
    size = statSync(file).size;
    head = await readTranscriptHead(file, agents);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    fail(diagnostic('replay/unreadable', 'error', code === 'ENOENT' ? `\`${file}\` does not exist` : `cannot read \`${file}\`: ${code ?? (error as Error).message}`));
    return;
  }
  summary.bytes = size;
  const detected = head.agent !== undefined ? agents.find((a) => a.name === head.agent) : undefined;
  const agent = forced ?? detected;
  if (agent === undefined) {
    if (head.empty && size === 0) report(diagnostic('replay/empty', 'info', `\`${file}\` is empty`));
    else if (head.empty) fail(diagnostic('replay/not-a-transcript', 'error', `\`${file}\` has no readable JSON line in its first ${TRANSCRIPT_HEAD_BYTES / 1024 / 1024} MiB`));
    else {
      fail(
        diagnostic('replay/unknown-format', 'error', `\`${file}\` is ${neither(agents.map((a) => aFileOf(a)))}`, {
          help: `Name its format with ${agentOptions(agents)}.`,
        }),
      );
    }
    return;
  }
  // Keys in reading order: file, agent, session, cwd, then the counts.
  const known: Partial<FileSummary> & { file: string } = { file, agent: agent.name };
  if (head.session !== undefined) known.session = head.session;
  if (head.cwd !== undefined) known.cwd = head.cwd;
  summary = Object.assign(known, { bytes: size, events: 0, skippedLines: 0, seconds: 0, cpuSeconds: 0 });
  counts.files[counts.files.length - 1] = summary;
  if (head.sidechain && forced === undefined && detected !== undefined) {
    counts.sidechainFiles++;
    report(
      diagnostic('replay/sidechain', 'warning', `\`${file}\` is ${aFileOf(detected, 'subagent ')} (sidechain lines only); it gives no events`, {
        help: `The ${detected.transcripts.noun} reader skips sidechain lines, so a subagent's tool calls are not replayed.`,
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
  const { index, of, totalBytes } = place;
  progress?.({ file: index + 1, files: of, path: file, size, totalBytes, events: counts.events });

  const batches = agent.transcripts.batches(file, { maxLineBytes: opts.maxLineBytes ?? REPLAY_MAX_LINE_BYTES });
  // An agent that sends a failed call to another hook event gives it no post-tool event.
  const failedElsewhere = agent.transcripts.failedResultEvent !== undefined;
  const agentName = agent.name;
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
          else if (failedElsewhere && item.isError === true) counts.failedToolResults++;
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
          record = { file, agent: agentName, event, decision, pending: [] };
        } else {
          const { pendingHooks, ...decision } = evaluateSync(policy, event);
          record = { file, agent: agentName, event, decision, pending: pendingHooks };
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
      if (progress && (counts.events & 1023) === 0) progress({ file: index + 1, files: of, path: file, size, totalBytes, events: counts.events });
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
