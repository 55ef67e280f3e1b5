/**
 * What `dshpolicy import --report` says about a hooks configuration: per event, each group and
 * handler, whether it became a rule or which diagnostic says why not, and which fields of a hook's
 * answer offline evaluation honours on that event (each agent's `hooks.outputFields`, the one place
 * these facts live; they follow docs/hooks.md).
 */
import { agentEventInfo, dialectTitle, type Diagnostic, type Rule, type Seam } from '../engine/index.js';
import { agentNamed, EVENT_SEAMS, type HooksConfig, type OutputFields } from '../bridges/index.js';
import type { UnprintedRule } from '../dsl/index.js';
import { terminalSafe } from './untrusted.js';

export type { OutputFields } from '../bridges/index.js';

export interface HandlerReport {
  pointer: string;
  type: string;
  /** The command, url or type: what names the handler. */
  what: string;
  /** `rule`: it became a `run` rule; `not-run`: it did not. */
  status: 'rule' | 'not-run';
  /** The id of its rule. */
  rule?: string;
  /** Diagnostics about the handler (why it does not run, or what of it is not honoured). */
  diagnostics: { code: string; severity: string; message: string }[];
  /** Set when `--to dshpolicy` can only print the rule as a comment. */
  unprintable?: string;
}

export interface EventReport {
  event: string;
  seam?: Seam;
  /** An agent event without a seam: its hooks run with the agent's semantics for it. */
  agentEvent?: boolean;
  evaluated: boolean;
  /** Why the event's hooks are not evaluated (a diagnostic code), when they are not. */
  code?: string;
  groups: { pointer: string; matcher?: string; handlers: HandlerReport[] }[];
  output?: OutputFields;
}

export interface ImportReport {
  file: string;
  agent: HooksConfig['agent'];
  disabled: boolean;
  events: EventReport[];
}

function brief(d: Diagnostic): { code: string; severity: string; message: string } {
  return { code: d.code, severity: d.severity, message: d.message };
}

/** Builds the report of a loaded and compiled hooks configuration. */
export function buildReport(
  file: string,
  config: HooksConfig,
  rules: readonly Rule[],
  diagnostics: readonly Diagnostic[],
  unprinted: readonly UnprintedRule[] = [],
): ImportReport {
  const byPointer = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    if (d.pointer === undefined) continue;
    const list = byPointer.get(d.pointer) ?? [];
    list.push(d);
    byPointer.set(d.pointer, list);
  }
  const ruleAt = new Map<string, Rule>();
  for (const r of rules) if (r.hook?.source) ruleAt.set(`${r.hook.source.file}#${r.hook.source.pointer}`, r);
  const why = new Map(unprinted.map((u) => [u.rule.id, u.why]));
  const events = new Map<string, EventReport>();
  for (const group of config.groups) {
    let ev = events.get(group.event);
    if (!ev) {
      const seam = EVENT_SEAMS[group.event];
      const info = seam ? undefined : agentEventInfo(config.agent, group.event);
      ev = { event: group.event, evaluated: (seam !== undefined || info !== undefined) && !config.disabled, groups: [] };
      if (seam) {
        ev.seam = seam;
        const output = agentNamed(config.agent)?.hooks?.outputFields(group.event);
        if (output) ev.output = output;
      } else if (info) {
        ev.agentEvent = true;
        const output = agentNamed(config.agent)?.hooks?.outputFields(group.event, info);
        if (output) ev.output = output;
      } else {
        ev.code = 'import/event-not-evaluated';
      }
      events.set(group.event, ev);
    }
    const g: EventReport['groups'][number] = { pointer: group.source.pointer, handlers: [] };
    if (group.matcher !== undefined) g.matcher = group.matcher;
    for (const h of group.hooks) {
      const rule = ruleAt.get(`${h.source.file}#${h.source.pointer}`);
      const hr: HandlerReport = {
        pointer: h.source.pointer,
        type: h.type,
        what: h.command ?? h.url ?? h.type,
        status: rule ? 'rule' : 'not-run',
        diagnostics: (byPointer.get(h.source.pointer) ?? []).map(brief),
      };
      if (rule) {
        hr.rule = rule.id;
        const u = why.get(rule.id);
        if (u !== undefined) hr.unprintable = u;
      }
      g.handlers.push(hr);
    }
    ev.groups.push(g);
  }
  return { file, agent: config.agent, disabled: config.disabled, events: [...events.values()] };
}

/**
 * The report as text. Event names, pointers, matchers, commands and messages come from the hooks
 * file, so they are escaped (untrusted.ts).
 */
export function renderReport(r: ImportReport): string {
  const safe = terminalSafe;
  const out = [`${safe(r.file)} (${r.agent} hooks)`];
  if (r.disabled) out.push('all hooks are disabled in this file: none of them runs');
  if (r.events.length === 0) out.push('no hooks');
  for (const ev of r.events) {
    out.push('');
    const event = safe(ev.event);
    if (ev.seam) out.push(`${event} -> on ${ev.seam}${ev.evaluated ? '' : ' (disabled)'}`);
    else if (ev.agentEvent) out.push(`${event} -> on ${event} (an agent event without a seam: its hooks run with ${dialectTitle(r.agent)}'s semantics)${ev.evaluated ? '' : ' (disabled)'}`);
    else out.push(`${event}: not evaluated [${ev.code}]: the agent does not run hooks on it`);
    for (const g of ev.groups) {
      out.push(`  group ${safe(g.pointer)}${g.matcher !== undefined ? ` matcher "${safe(g.matcher)}"` : ''}`);
      for (const h of g.handlers) {
        const what = `${safe(h.type)} "${safe(h.what)}"`;
        let line: string;
        if (!ev.evaluated) line = `not run`;
        else if (h.status === 'rule') line = 'run rule';
        else line = 'not run';
        out.push(`    ${safe(h.pointer)} ${what}: ${line}`);
        for (const d of h.diagnostics) out.push(`      ${d.severity}[${d.code}]: ${safe(d.message)}`);
        if (h.unprintable) out.push(`      printed as a comment by \`--to dshpolicy\`: ${safe(h.unprintable)}`);
      }
    }
    if (ev.output && ev.evaluated) {
      out.push(`  answer fields honoured: ${ev.output.honoured.join('; ')}`);
      out.push(`  honoured by the agent but not by dshpolicy: ${ev.output.gaps.length > 0 ? ev.output.gaps.join('; ') : 'none'}`);
      if (ev.output.rejected.length > 0) out.push(`  rejected by the agent, and so here: ${ev.output.rejected.join('; ')}`);
    }
  }
  return `${out.join('\n')}\n`;
}
