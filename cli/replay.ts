/**
 * `dshpolicy replay --policy <file>... <transcript>...`: what a policy would have decided over real
 * recorded sessions, as a command. The replay itself (which agent wrote a file, reading it forward,
 * the events the agent's hook would have sent, deciding and counting them) is the bridges'
 * `replay` (bridges/replay/); this file parses the arguments, writes each event as it is decided
 * (waiting for a slow consumer), shows progress on a terminal, renders the summary, and says the
 * exit status.
 *
 * Command hooks (`run` rules, imported hooks configurations) do not run unless `--run-hooks` is
 * given: replay must not execute what a transcript's policy names. Without it the rules that would
 * have run are reported as pending and the decision is the other rules'.
 */
import { parseArgs } from 'node:util';
import { processHookRunner } from '../engine/index.js';
import {
  agentNameList,
  agentsWith,
  countTotal,
  replay,
  REPLAY_SEAMS,
  type ReplayOptions,
  type ReplayRecord,
  type ReplaySummary,
} from '../bridges/index.js';
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

/** Decision words `--only` accepts: every seam's, and `pending` (a `run` rule matched but did not run). */
const ONLY_WORDS = ['deny', 'ask', 'allow', 'none', 'block', 'accept', 'halt', 'continue', 'stop', 'pending'];
/** Longest event description in the per-event output. */
const EVENT_TEXT = 300;

// ---------------------------------------------------------------------------------------------
// One replayed event, as a JSON line

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
  const readable = agentsWith('transcripts');
  if (values.agent !== undefined && !readable.some((a) => a.name === values.agent)) throw new UsageError(`unknown agent \`${values.agent}\`; use ${agentNameList(readable)}`);
  const only = list(values.only, ONLY_WORDS, 'only');
  const seams = list(values.seams, REPLAY_SEAMS, 'seams');

  const loaded = loadPolicies(policies, hooks);
  if (!loaded.policy) return refuseToRun(loaded, fmt === 'json', io);
  const warnings = loaded.diagnostics.filter((d) => d.severity === 'warning');
  if (warnings.length > 0) io.stderr.write(`policy: ${summarize(warnings)} (run \`dshpolicy check\` to see them)\n`);

  const style: Style = fmt === 'table' && io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
  const out = new Output(io.stdout);
  const showProgress = io.stderr.isTTY === true && values['no-progress'] !== true;
  const progress = showProgress ? new ProgressLine(io.stderr) : undefined;
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
    // Directories are searched for .jsonl files; a path that cannot be read is reported in its turn.
    summary = await replay(loaded.policy, positionals, opts);
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

/** `Claude Code's PostToolUseFailure`: where the agents send a failed call instead of post-tool. */
function failedResultEvents(): string {
  const events: string[] = [];
  for (const a of agentsWith('transcripts')) if (a.transcripts.failedResultEvent !== undefined) events.push(`${a.title}'s ${a.transcripts.failedResultEvent}`);
  return events.join(', ');
}

const n = (x: number | undefined) => (x ?? 0).toLocaleString('en-US');
const plural = (k: number, word: string) => `${n(k)} ${word}${k === 1 ? '' : 's'}`;

/** The summary as text: totals, events per seam, decisions per tool, prompts, stops, rules, problems. */
export function renderSummary(s: ReplaySummary, { runHooks = false, style = PLAIN }: { runHooks?: boolean; style?: Style } = {}): string {
  const lines: string[] = [];
  const read = s.files.filter((f) => f.error === undefined);
  const agents = agentsWith('transcripts').map((a) => [a.name, read.filter((f) => f.agent === a.name).length] as const).filter(([, k]) => k > 0);
  const kinds = agents.length > 0 ? ` (${agents.map(([a, k]) => `${k} ${a}`).join(', ')})` : '';
  lines.push(
    `${style.bold('replayed')} ${plural(read.length, 'file')}${kinds}, ${formatBytes(s.bytes)}, ${plural(s.events, 'event')} in ${s.seconds.toFixed(2)} s (${n(s.eventsPerSecond)} events/s)`,
  );
  if (s.failedFiles > 0) lines.push(style.red(`${plural(s.failedFiles, 'file')} could not be read: ${safeList(s.files.filter((f) => f.error !== undefined).map((f) => f.file))}`));
  lines.push('');

  const seamRows = REPLAY_SEAMS.map((seam) => {
    const c = s.seams[seam];
    return [seam, n(countTotal(c)), Object.entries(c).filter(([, v]) => v > 0).map(([k, v]) => `${n(v)} ${k}`).join(', ')];
  });
  lines.push(...grid(['seam', 'events', 'decisions'], seamRows, style, (i) => i === 1), '');

  const toolRows = Object.entries(s.tools).map(([tool, c]) => {
    const pre = c['pre-tool'];
    // Tool names are the transcript's: escaped before the grid measures its columns.
    return [terminalSafe(tool), n(countTotal(pre)), n(pre['deny']), n(pre['ask']), n(pre['allow']), n(pre['none']), n(countTotal(c['post-tool'])), n(c['post-tool']['block'])];
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
  if (s.failedToolResults > 0) notes.push(`${plural(s.failedToolResults, 'failed tool result')} (${failedResultEvents()}, not post-tool)`);
  if (s.sidechainFiles > 0) notes.push(`${plural(s.sidechainFiles, 'subagent transcript')} gave no events`);
  if (s.droppedDiagnostics > 0) notes.push(`${plural(s.droppedDiagnostics, 'more diagnostic')} not kept`);
  for (const note of notes) lines.push(style.dim(note));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return `${lines.join('\n')}\n`;
}
