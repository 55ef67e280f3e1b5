/**
 * `run` rules imported from an agent's hooks configuration, printed as `.dshpolicy` text: one
 * `on <seam> { ... }` block per seam, then one `on <AgentEvent> { ... }` block per agent event
 * without a seam, one `run` rule per handler, each under a comment naming the handler it came
 * from; a handler's `args`, `shell`, plugin root and `if` go in a `with { ... }` clause.
 * Compiling the text gives back the same rules (seam, effect and hook, but for the hook's
 * `source`); a rule the language cannot say is printed as a comment instead.
 */
import { AGENT_EVENT_SEAM, SEAMS, hookProtocol, type HookSpec, type Rule, type Seam } from '../engine/index.js';
import { evaluatesIf, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from './check-rules.js';
import { SEAM_EVENTS } from './lower.js';
import { encodeString } from '../grammar/index.js';

/** A rule printed as a comment only, and why. */
export interface UnprintedRule {
  rule: Rule;
  why: string;
}

export interface PrintedHooks {
  text: string;
  /** The rules printed as `run` rules, in the order printed (by seam, then as given). */
  printed: Rule[];
  unprinted: UnprintedRule[];
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A string literal of the language whose value is `value`; undefined when none can say it. */
export function quoteString(value: string): string | undefined {
  return LONE_SURROGATE.test(value) ? undefined : encodeString(value);
}

/** A duration literal for a whole number of milliseconds. */
function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}


/**
 * The `with { ... }` clause of a hook's `args`, `shell`, `plugin_root` and `if` (in that order;
 * empty when it has none), or why the language cannot say them.
 */
/** How a hook that cannot have an option reads, by option. */
const LACKS: Readonly<Record<string, string>> = {
  args: 'has no exec form (`args`)',
  shell: 'has no `shell`',
  if: 'has no `if`',
  http: 'cannot be an http hook',
};

/** Why the hook's dialect cannot have the option; undefined when it can. */
function lacks(h: HookSpec, option: string): { why: string } | undefined {
  const p = hookProtocol(h.dialect);
  if (p && !p.unsupportedOption?.(option)) return undefined;
  return { why: `a ${p?.title ?? h.dialect} hook ${LACKS[option] ?? `has no \`${option}\``}` };
}

function withClause(rule: Rule, h: HookSpec): { text: string } | { why: string } {
  const options: string[] = [];
  if (h.args !== undefined) {
    const items = h.args.map(quoteString);
    if (items.some((a) => a === undefined)) return { why: 'one of its `args` holds a lone surrogate, which no string literal can hold' };
    const no = lacks(h, 'args');
    if (no) return no;
    if (h.shell !== undefined) return { why: 'it has both `args` and `shell`, and a hook with `args` runs without a shell' };
    options.push(`args: [${items.join(', ')}]`);
  }
  if (h.shell !== undefined) {
    const no = lacks(h, 'shell');
    if (no) return no;
    if (h.shell !== 'bash') return { why: `its shell \`${String(h.shell)}\` is not \`bash\`` };
    options.push(`shell: ${quoteString(h.shell)!}`);
  }
  if (h.pluginRoot !== undefined) {
    const root = quoteString(h.pluginRoot);
    if (root === undefined) return { why: 'its plugin root holds a lone surrogate, which no string literal can hold' };
    options.push(`plugin_root: ${root}`);
  }
  if (h.if !== undefined) {
    const cond = quoteString(h.if);
    if (cond === undefined) return { why: 'its `if` holds a lone surrogate, which no string literal can hold' };
    const no = lacks(h, 'if');
    if (no) return no;
    const place = evaluatesIf(rule.seam === AGENT_EVENT_SEAM ? { event: h.event ?? '' } : { seam: rule.seam }, h.dialect);
    if (!place) return { why: `its \`if\` is never evaluated on \`${rule.seam === AGENT_EVENT_SEAM ? (h.event ?? rule.seam) : rule.seam}\`` };
    const problem = hookProtocol(h.dialect)?.checkCondition?.(h.if);
    if (problem) return { why: `its \`if\` is not one permission rule: ${problem.message}` };
    options.push(`if: ${cond}`);
  }
  if (h.http !== undefined) {
    const no = lacks(h, 'http');
    if (no) return no;
    if (h.args !== undefined || h.shell !== undefined) return { why: 'an http hook with `args` or `shell`' };
    options.push('http: true');
    const headers = Object.entries(h.http.headers ?? {}).map(([k, v]) => [quoteString(k), quoteString(v)] as const);
    if (headers.some(([k, v]) => k === undefined || v === undefined)) return { why: 'one of its headers holds a lone surrogate, which no string literal can hold' };
    if (h.http.headers !== undefined) options.push(`headers: {${headers.map(([k, v]) => `${k!}: ${v!}`).join(', ')}}`);
    const vars = (h.http.allowedEnvVars ?? []).map(quoteString);
    if (vars.some((v) => v === undefined)) return { why: 'one of its `allowedEnvVars` holds a lone surrogate, which no string literal can hold' };
    if (h.http.allowedEnvVars !== undefined) options.push(`allowed_env_vars: [${vars.join(', ')}]`);
  }
  return { text: options.length > 0 ? `with {${options.join(', ')}}` : '' };
}

/** The `run` rule that says `rule`, or why it cannot be said yet. */
export function printRunRule(rule: Rule): { line: string } | { why: string; line?: string } {
  const h = rule.hook;
  if (rule.effect !== 'run' || !h) return { why: 'it is not a hook rule' };
  const command = quoteString(h.command);
  if (command === undefined) return { why: 'its command holds a lone surrogate, which no string literal can hold' };
  const parts = ['run', 'hook', command, 'dialect', h.dialect];
  if (h.matcher !== undefined) {
    const m = quoteString(h.matcher);
    if (m === undefined) return { why: 'its matcher holds a lone surrogate, which no string literal can hold' };
    parts.push('matcher', m);
  } else {
    parts.push('matcher', '*');
  }
  if (h.timeoutMs !== undefined) parts.push('timeout', duration(h.timeoutMs));
  const options = withClause(rule, h);
  if ('why' in options) return { why: options.why, line: parts.join(' ') };
  if (options.text !== '') parts.push(options.text);
  const line = parts.join(' ');
  if (rule.seam !== AGENT_EVENT_SEAM && h.event !== undefined && h.event !== SEAM_EVENTS[rule.seam]) return { why: `its event \`${h.event}\` is not the event of the \`${rule.seam}\` seam`, line };
  if (h.timeoutMs !== undefined && !(Number.isInteger(h.timeoutMs) && h.timeoutMs >= MIN_TIMEOUT_MS && h.timeoutMs <= MAX_TIMEOUT_MS)) {
    return { why: `its timeout of ${h.timeoutMs}ms is outside what a \`timeout\` clause takes (1ms to 1h)`, line };
  }
  if (h.command.trim() === '') return { why: 'its command is empty', line };
  return { line };
}

/** A comment's text on one line: line breaks and other controls are shown as spaces. */
function commentText(s: string): string {
  return s.replace(/[\p{Cc}\u2028\u2029]/gu, ' ');
}

/** Prints imported `run` rules as `.dshpolicy` text; `header` lines become comments on top. */
export function printHooks(rules: readonly Rule[], header: readonly string[] = []): PrintedHooks {
  const lines = header.map((h) => `# ${commentText(h)}`);
  const printed: Rule[] = [];
  const unprinted: UnprintedRule[] = [];
  const blocks: { name: string; rules: Rule[] }[] = (SEAMS as readonly Seam[]).map((seam) => ({ name: seam, rules: rules.filter((r) => r.seam === seam) }));
  const events = new Map<string, Rule[]>();
  for (const r of rules) {
    if (r.seam !== AGENT_EVENT_SEAM || r.hook?.event === undefined) continue;
    let list = events.get(r.hook.event);
    if (!list) events.set(r.hook.event, (list = []));
    list.push(r);
  }
  for (const [name, list] of events) blocks.push({ name, rules: list });
  for (const { name, rules: ofSeam } of blocks) {
    if (ofSeam.length === 0) continue;
    if (lines.length > 0) lines.push('');
    lines.push(`on ${name} {`);
    ofSeam.forEach((rule, i) => {
      if (i > 0) lines.push('');
      const origin = rule.hook?.source ? `${rule.hook.source.file}#${rule.hook.source.pointer}` : rule.id;
      lines.push(`  # ${commentText(origin)}`);
      const r = printRunRule(rule);
      if ('why' in r) {
        unprinted.push({ rule, why: r.why });
        lines.push(`  # not expressible yet: ${r.why}`);
        if (r.line !== undefined) lines.push(`  # ${r.line}`);
      } else {
        printed.push(rule);
        lines.push(`  ${r.line}`);
      }
    });
    lines.push('}');
  }
  return { text: `${lines.join('\n')}\n`, printed, unprinted };
}
