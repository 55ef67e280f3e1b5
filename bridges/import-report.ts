/**
 * The report of `dshpolicy import --report` on a hooks configuration, as data: per event, each group and
 * handler, whether it became a rule or which diagnostic says why not, and which fields of a hook's
 * answer offline evaluation honours on that event (each agent's `hooks.outputFields`, the one place
 * these facts live; they follow docs/hooks.md).
 */
import { agentEventInfo, type Diagnostic, type Rule, type Seam } from '../engine/index.js';
import type { UnprintedRule } from '../dsl/index.js';
import { agentNamed } from './agents.js';
import type { OutputFields } from './common/output-fields.js';
import { EVENT_SEAMS } from './compile.js';
import type { HooksConfig } from './config.js';

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

