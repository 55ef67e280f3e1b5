/**
 * What `dshpolicy import --report` says about a hooks configuration: per event, each group and
 * handler, whether it became a rule or which diagnostic says why not, and which fields of a hook's
 * answer offline evaluation honours on that event (OUTPUT_FIELDS, the one place these facts live;
 * they follow docs/hooks.md).
 */
import { agentEventInfo, type AgentEventInfo, type Diagnostic, type Rule, type Seam } from '../engine/index.js';
import { EVENT_SEAMS, type Agent, type HooksConfig } from '../bridges/index.js';
import type { UnprintedRule } from './print-hooks.js';
import { terminalSafe } from './untrusted.js';

export interface OutputFields {
  /** What the agent acts on, and dshpolicy too. */
  honoured: string[];
  /** What the agent acts on and dshpolicy does not (yet), each with why: none, ideally. */
  gaps: string[];
  /** Answers the agent itself rejects (the hook fails); dshpolicy rejects them the same way. */
  rejected: string[];
}

/** The answer fields honoured per agent and seam event; agent events without a seam: agentEventFields. */
export const OUTPUT_FIELDS: Readonly<Record<Agent, Readonly<Record<string, OutputFields>>>> = {
  claude: {
    PreToolUse: {
      honoured: ['exit 2 + stderr', 'permissionDecision (allow, deny, ask; defer read as ask)', 'permissionDecisionReason', 'decision (legacy; the stricter stands)', 'reason', 'updatedInput (the last to finish wins)', 'additionalContext', 'continue: false (no effect: Claude Code 2.1.328 runs the call and goes on)'],
      gaps: [],
      rejected: ['an unknown permissionDecision, or a hookSpecificOutput without (or with another) hookEventName: the whole answer is void'],
    },
    PostToolUse: { honoured: ['exit 2 + stderr', 'decision: block', 'reason', 'additionalContext'], gaps: [], rejected: [] },
    UserPromptSubmit: { honoured: ['exit 2 + stderr', 'decision: block', 'reason', 'plain stdout as context', 'additionalContext', 'continue: false (blocks, with stopReason)'], gaps: [], rejected: ['a top-level decision other than block: the whole answer is void'] },
    Stop: { honoured: ['exit 2 + stderr', 'decision: block (continues)', 'reason', 'additionalContext (continues)', 'continue: false (halts)'], gaps: [], rejected: [] },
    SessionStart: { honoured: ['plain stdout as context', 'additionalContext', 'continue: false (halts)'], gaps: [], rejected: [] },
  },
  codex: {
    PreToolUse: {
      honoured: ['exit 2 + stderr', 'permissionDecision: deny with a reason', 'permissionDecision: allow with updatedInput', 'decision: block with a reason', 'additionalContext'],
      gaps: [],
      rejected: ['permissionDecision: ask, a plain allow, a deny without a reason, continue/stopReason/suppressOutput, unknown keys: the hook fails, and a failed hook never blocks'],
    },
    PostToolUse: {
      honoured: ['exit 2 + stderr', 'decision: block with a reason', 'continue: false (blocks)', 'additionalContext'],
      gaps: [],
      rejected: ['a decision without a reason, unknown keys: the hook fails'],
    },
    UserPromptSubmit: {
      honoured: ['exit 2 + stderr', 'decision: block with a reason', 'continue: false (blocks)', 'additionalContext'],
      gaps: [],
      rejected: ['a decision without a reason, unknown keys: the hook fails'],
    },
    Stop: {
      honoured: ['exit 2 + stderr (continues)', 'decision: block with a reason (continues)', 'continue: false (halts)'],
      gaps: [],
      rejected: ['text on stdout, a block without a reason, unknown keys: the hook fails'],
    },
    SessionStart: {
      honoured: ['additionalContext', 'plain stdout as context', 'continue: false (halts)'],
      gaps: [],
      rejected: ['exit 2 (means nothing here: the hook fails)', 'unknown keys: the hook fails'],
    },
  },
};

/** The answer fields of an agent event without a seam, from the engine's table of what its agent honours. */
export function agentEventFields(info: AgentEventInfo): OutputFields {
  const honoured: string[] = [];
  if (info.special === 'worktree-create') honoured.push('the last non-empty stdout line (the path)', 'a failing exit (fails the creation)');
  if (info.exit2) honoured.push(`exit 2 + stderr (${info.exit2})`);
  if (info.block) honoured.push(`decision: block${info.dialect === 'codex' ? ' with a reason' : ''} (${info.block})`, 'reason');
  if (info.halt) honoured.push('continue: false (halts)', 'stopReason');
  if (info.context) honoured.push(info.block === 'continue' && info.dialect === 'claude' ? 'additionalContext (continues)' : 'additionalContext');
  if (info.plainContext) honoured.push('plain stdout as context');
  if (info.systemMessageContext) honoured.push('systemMessage (context, from a slash command)');
  switch (info.special) {
    case 'permission-request':
      honoured.push(info.dialect === 'claude' ? 'decision.behavior allow (with updatedInput) or deny (with message, interrupt halts)' : 'decision.behavior allow or deny (with message)');
      break;
    case 'permission-decision':
      honoured.push('permissionDecision (allow, deny, ask; defer read as ask)', 'permissionDecisionReason');
      break;
    case 'elicitation':
      honoured.push('action (accept allows; decline and cancel deny)', 'content');
      break;
    case 'permission-denied':
      honoured.push('retry');
      break;
    case 'message-display':
      honoured.push('displayContent');
      break;
    default:
      break;
  }
  for (const o of info.outputs ?? []) if (!honoured.includes(o)) honoured.push(o);
  if (honoured.length === 0) honoured.push('nothing: the agent ignores the answer; the hook still runs');
  const rejected =
    info.dialect === 'codex'
      ? ['unknown keys, a hookSpecificOutput the event does not take, exit 2 without a reason, or (where it means nothing) exit 2: the hook fails, and a failed hook never decides']
      : ['a hookSpecificOutput without (or with another) hookEventName: the whole answer is void'];
  return { honoured, gaps: [], rejected };
}

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
  agent: Agent;
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
        const output = OUTPUT_FIELDS[config.agent][group.event];
        if (output) ev.output = output;
      } else if (info) {
        ev.agentEvent = true;
        ev.output = agentEventFields(info);
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
    else if (ev.agentEvent) out.push(`${event} -> on ${event} (an agent event without a seam: its hooks run with ${r.agent === 'claude' ? 'Claude Code' : 'Codex'}'s semantics)${ev.evaluated ? '' : ' (disabled)'}`);
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
