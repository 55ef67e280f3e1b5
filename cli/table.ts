/**
 * The readable decision table `eval` prints by default.
 */
import type { AnyDecision, AnyEvent, FixtureResult as LineResult } from '../engine/index.js';
import type { Style } from './render.js';
import { terminalCell } from './untrusted.js';

const EVENT_WIDTH = 44;
const WHY_WIDTH = 60;

/**
 * A short description of an event: the tool and its most telling argument. `quote` writes a
 * prompt: as JSON by default (the JSON outputs carry this text).
 */
export function describeEvent(e: AnyEvent, quote: (prompt: string) => string = JSON.stringify): string {
  switch (e.seam) {
    case 'agent-event': {
      const f = e.fields;
      const arg = ['tool_name', 'notification_type', 'trigger', 'agent_type', 'reason', 'source', 'error', 'message', 'name', 'file_path']
        .map((k) => f[k])
        .find((v): v is string => typeof v === 'string');
      return arg !== undefined ? `${e.event} ${arg}` : e.event;
    }
    case 'pre-tool':
    case 'post-tool': {
      const i = e.input;
      const arg = ['command', 'file_path', 'path', 'notebook_path', 'url', 'pattern', 'query', 'prompt']
        .map((k) => i[k])
        .find((v): v is string => typeof v === 'string');
      return arg !== undefined ? `${e.tool} ${arg}` : e.tool;
    }
    case 'prompt':
      return quote(e.prompt);
    case 'stop': {
      const ran = e.turn.map((c) => (typeof c.input['command'] === 'string' ? `${c.tool}(${c.input['command']})` : c.tool));
      return ran.length > 0 ? `after ${ran.join(', ')}` : 'turn with no tool calls';
    }
    case 'session-start':
      return `source ${e.source}`;
  }
}

/**
 * describeEvent for people: the prompt between plain quotes, as it was written. Still raw text:
 * escape it (terminalSafe, terminalCell) where it is printed, once, so a JSON escape is not
 * escaped again.
 */
export function eventText(e: AnyEvent): string {
  return describeEvent(e, (prompt) => `"${prompt}"`);
}

const STRICT = new Set(['deny', 'block', 'halt']);
const MIDDLE = new Set(['ask', 'continue']);

function colorDecision(word: string, style: Style): string {
  if (STRICT.has(word)) return style.red(style.bold(word));
  if (MIDDLE.has(word)) return style.yellow(style.bold(word));
  if (word === 'allow' || word === 'accept') return style.green(word);
  return style.dim(word);
}

/** The one-line "why" of a decision: its reason, else what the trace says, else the deciding rule. */
export function explainShort(d: AnyDecision): string {
  if (d.reasons[0] !== undefined) return d.reasons[0];
  const limited = d.trace.find((t) => t.outcome === 'limited');
  if (limited?.note) return limited.note;
  const partial = d.trace.find((t) => t.outcome === 'partial');
  if (d.decision === 'none' && partial?.note) return partial.note;
  if (d.context[0] !== undefined) return d.context[0];
  if (d.rules.length > 0) return `${d.decision === 'allow' ? 'allowed by' : 'decided by'} ${d.rules.join(', ')}`;
  if (d.seam === 'agent-event') {
    if (d.output) return Object.entries(d.output).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ');
    return d.trace.length > 0 ? `${d.trace.length} hook${d.trace.length === 1 ? '' : 's'} ran, none decided` : 'no hook runs on it';
  }
  return d.decision === 'none' || d.decision === 'stop' ? 'no rule applies' : '';
}

export function renderTable(results: LineResult[], style: Style): string {
  const rows: string[][] = [];
  for (const r of results) {
    if (r.errors) {
      rows.push([String(r.line), '-', 'invalid event', 'error', terminalCell(r.errors[0]!.message, WHY_WIDTH)]);
      continue;
    }
    const d = r.decision!;
    const why = explainShort(d);
    const more = d.reasons.length > 1 ? ` (+${d.reasons.length - 1})` : '';
    // Cells are escaped before the widths are measured, so escapes keep the columns aligned.
    rows.push([String(r.line), d.seam === 'agent-event' ? d.event : d.seam, terminalCell(eventText(r.event!), EVENT_WIDTH), d.decision, terminalCell(why, WHY_WIDTH) + more]);
  }
  const header = ['line', 'seam', 'event', 'decision', 'why'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const pad = (s: string, i: number) => s + ' '.repeat(Math.max(0, widths[i]! - s.length));
  const lines = [style.bold(header.map(pad).join('  ').trimEnd()), style.dim(widths.map((w) => '─'.repeat(w)).join('  '))];
  for (const row of rows) {
    const cells = row.map((c, i) => (i === 3 ? colorDecision(c, style) + ' '.repeat(Math.max(0, widths[i]! - c.length)) : pad(c, i)));
    lines.push(cells.join('  ').trimEnd());
  }
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row[3]!, (counts.get(row[3]!) ?? 0) + 1);
  const summary = [...counts].map(([k, v]) => `${v} ${k}`).join(', ');
  lines.push('', `${rows.length} event${rows.length === 1 ? '' : 's'}: ${summary}`);
  return `${lines.join('\n')}\n`;
}
