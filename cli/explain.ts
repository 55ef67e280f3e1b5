/**
 * `dshpolicy explain --policy <file>... (--event '<json>' | --fixtures <file>)`: for each event,
 * the decision, every rule that fired and its outcome, every rule of the seam that did not fire and
 * why, and the parts a shell command split into with the rules that matched each.
 */
import { writeAll } from './crash.js';
import { parseArgs } from 'node:util';
import {
  diagnostic,
  explain,
  FixtureReadError,
  normalizeAnyEvent,
  readFixtures,
  processHookRunner,
  type AnyEvent,
  type CompiledPolicy,
  type Diagnostic,
  type Explanation,
  type HookRunner,
} from '../engine/index.js';
import { format, guard, UsageError, type Io, policyInputs } from './args.js';
import { FAILED, OK } from './exit-codes.js';
import { loadPolicies } from './policy.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize, type Style } from './render.js';
import { eventText } from './table.js';
import { terminalCell, terminalSafe } from './untrusted.js';

export const EXPLAIN_HELP = `usage: dshpolicy explain --policy <file>... (--event '<json>' | --fixtures <file.jsonl|->)
                         [--format human|json] [--no-hooks]
                         [--claude-hooks <settings.json|hooks.json>]... [--codex-hooks <hooks.json|config.toml>]...

Explains what the policy decides for one event (--event, a JSON event in the fixture shape or an
agent's raw hook payload) or for every event of a JSONL fixture file: the decision and its
reasons, every rule that fired with its outcome (decided, outranked, partial, limited, abstained,
pending), every other rule of the event's seam with the first reason it did not fire (tool,
selector, \`when\` condition, hook matcher, \`if\`), and for shell commands the parts the command
split into and the rules that matched each part.
Command hooks run as \`eval\` runs them; with --no-hooks they are listed as pending and the
decision leaves them out. --format json prints one JSON object per event.
Exits 1 when the policy does not compile or an event cannot be read.`;

interface Item {
  line?: number;
  event?: AnyEvent;
  explanation?: Explanation;
  errors?: Diagnostic[];
}

export async function explainCommand(argv: string[], io: Io): Promise<number> {
  const { values } = guard(() =>
    parseArgs({
      args: argv,
      options: {
        policy: { type: 'string', multiple: true, short: 'p' },
        'claude-hooks': { type: 'string', multiple: true },
        'codex-hooks': { type: 'string', multiple: true },
        event: { type: 'string', short: 'e' },
        fixtures: { type: 'string', short: 'f' },
        format: { type: 'string' },
        'no-hooks': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
      strict: true,
    }),
  );
  if (values.help) {
    io.stdout.write(`${EXPLAIN_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const { policies, hooks } = policyInputs(values);
  if (values.event === undefined && values.fixtures === undefined) {
    throw new UsageError("name the event with `--event '<json>'` or the events with `--fixtures <file.jsonl>`");
  }
  if (values.event !== undefined && values.fixtures !== undefined) throw new UsageError('give `--event` or `--fixtures`, not both');

  const style: Style = fmt === 'human' && io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
  const errStyle: Style = io.stderr === process.stderr ? styleFor(process.stderr) : PLAIN;
  const sources = new SourceCache();
  const loaded = loadPolicies(policies, hooks);
  if (!loaded.policy) {
    if (fmt === 'json') io.stdout.write(`${JSON.stringify({ ok: false, diagnostics: loaded.diagnostics })}\n`);
    else {
      for (const d of loaded.diagnostics) io.stderr.write(`${renderDiagnostic(d, sources, errStyle)}\n\n`);
      io.stderr.write(`the policy does not compile: ${summarize(loaded.diagnostics)}\n`);
    }
    return FAILED;
  }
  const policy = loaded.policy;
  const runner = values['no-hooks'] ? undefined : processHookRunner();
  let failed = false;
  let first = true;
  const emit = async (item: Item): Promise<void> => {
    if (item.errors) failed = true;
    if (fmt === 'json') {
      const full = writeAll(io.stdout, `${JSON.stringify(jsonOf(item))}\n`);
      if (full) await full;
      return;
    }
    if (item.errors) {
      for (const d of item.errors) io.stderr.write(`${renderDiagnostic(d, sources, errStyle)}\n\n`);
      if (item.line !== undefined) io.stderr.write(`line ${item.line}: the event cannot be read\n\n`);
      return;
    }
    if (!first) io.stdout.write('\n');
    first = false;
    io.stdout.write(renderExplanation(item, style, runner === undefined));
  };

  if (values.event !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(values.event);
    } catch (err) {
      const msg = (err as Error).message.replace(/^./, (c) => c.toLowerCase()).replace(/\.$/, '');
      await emit({ errors: [diagnostic('event/json', 'error', `\`--event\` is not valid JSON: ${msg}`)] });
      return FAILED;
    }
    await emit(await explainValue(policy, value, runner));
  } else {
    const file = values.fixtures!;
    try {
      for await (const item of readFixtures(file, io)) {
        if (item.errors) {
          await emit({ line: item.line, errors: item.errors });
          continue;
        }
        const r = await explainValue(policy, item.value, runner);
        if (r.errors) {
          r.errors = r.errors.map((d) => ({
            ...d,
            span: { file, start: { line: item.line, column: 1, offset: item.offset }, end: { line: item.line, column: 2, offset: item.offset + 1 } },
          }));
        }
        await emit({ ...r, line: item.line });
      }
    } catch (err) {
      if (!(err instanceof FixtureReadError)) throw err;
      const d = diagnostic('fixture/unreadable', 'error', err.message);
      if (fmt === 'json') io.stdout.write(`${JSON.stringify({ ok: false, diagnostics: [d] })}\n`);
      else io.stderr.write(`error: ${err.message}\n`);
      return FAILED;
    }
  }
  if (fmt === 'human') {
    const warnings = loaded.diagnostics.filter((d) => d.severity !== 'error');
    if (warnings.length > 0) io.stderr.write(`policy: ${summarize(warnings)} (run \`dshpolicy check\` to see them)\n`);
  }
  return failed ? FAILED : OK;
}

async function explainValue(policy: CompiledPolicy, value: unknown, runner: HookRunner | undefined): Promise<Item> {
  const norm = normalizeAnyEvent(value, '');
  if (!norm.event) return { errors: norm.diagnostics };
  const { explanation } = await explain(policy, norm.event, runner ? { runner } : {});
  return { event: norm.event, explanation };
}

/** One JSON object per event (an error object for an event that cannot be read). */
export function jsonOf(item: Item): Record<string, unknown> {
  const head: Record<string, unknown> = item.line !== undefined ? { line: item.line } : {};
  if (item.errors) return { ...head, decision: null, error: item.errors[0], errors: item.errors };
  const x = item.explanation!;
  const out: Record<string, unknown> = {
    ...head,
    seam: x.seam,
    ...(x.event !== undefined ? { event: x.event } : {}),
    decision: x.decision,
    reasons: x.reasons,
    context: x.context,
    rules: x.rules,
    matched: x.matched,
    skipped: x.skipped,
  };
  if (x.parts) out['parts'] = x.parts;
  if (x.pending.length > 0) out['pending'] = x.pending;
  if (x.updatedInput) out['updatedInput'] = x.updatedInput;
  if (x.output) out['output'] = x.output;
  if (x.diagnostics.length > 0) out['diagnostics'] = x.diagnostics;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Human output

/** Rows as aligned columns (the last column is not padded), each line indented. */
function columns(rows: string[][], indent = '  '): string[] {
  const n = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: n }, (_, i) => Math.max(0, ...rows.map((r) => (i < r.length - 1 ? (r[i] ?? '').length : 0))));
  return rows.map((r) => indent + r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ').trimEnd());
}

/**
 * A file a part reads, as the explanation describes it (`.env`, `src (and below it: *.pem)`, `.e* (the
 * files it matches)`): the path in backticks, what of it is read after them.
 */
function shownRead(read: string): string {
  const what = / \((and below it(?:: .*)?|the files it matches)\)$/.exec(read);
  return what === null ? `\`${terminalSafe(read)}\`` : `\`${terminalSafe(read.slice(0, what.index))}\` (${terminalSafe(what[1]!)})`;
}

const STRICT = new Set(['deny', 'block', 'halt']);
const MIDDLE = new Set(['ask', 'continue']);

function colorWord(word: string, style: Style): string {
  if (STRICT.has(word)) return style.red(style.bold(word));
  if (MIDDLE.has(word)) return style.yellow(style.bold(word));
  if (word === 'allow' || word === 'accept') return style.green(style.bold(word));
  return style.bold(word);
}

/**
 * A rule as people read it: its `file:line:col` (an imported hook's id names a JSON pointer
 * instead). Escaped: file names come from the repository too.
 */
function ruleName(id: string, at: string | undefined): string {
  return terminalSafe(at ?? id);
}

const ruleList = (ids: readonly string[]) => ids.map((id) => terminalSafe(id)).join(', ');

export function renderExplanation(item: Item, style: Style, noHooks: boolean): string {
  const x = item.explanation!;
  const lines: string[] = [];
  const where = item.line !== undefined ? `line ${item.line}` : 'event';
  const seam = x.seam === 'agent-event' ? `agent-event` : x.seam;
  // Everything the event, the hooks and the policy's authors wrote is escaped (untrusted.ts).
  lines.push(style.bold(`${where}: ${seam} ${terminalCell(eventText(item.event!), 100)}`));
  lines.push(`decision: ${colorWord(x.decision, style)}${x.rules.length > 0 ? style.dim(`  (by ${ruleList(x.rules)})`) : ''}`);
  for (const r of x.reasons) lines.push(`  because: ${terminalCell(r, 100)}`);
  for (const c of x.context) lines.push(`  context: ${terminalCell(c, 100)}`);
  if (x.updatedInput) lines.push(`  updated input: ${terminalCell(JSON.stringify(x.updatedInput), 100)}`);
  if (x.output) lines.push(`  output: ${terminalCell(JSON.stringify(x.output), 100)}`);
  if (x.pending.length > 0 && noHooks) {
    lines.push(style.dim(`  (--no-hooks: ${x.pending.length} matched hook${x.pending.length === 1 ? ' was' : 's were'} not run; the decision leaves ${x.pending.length === 1 ? 'it' : 'them'} out)`));
  }
  for (const d of x.diagnostics) lines.push(`  ${d.severity === 'error' ? style.red(d.severity) : style.yellow(d.severity)}[${d.code}]: ${terminalCell(d.message, 100)}`);

  lines.push(style.bold(`matched (${x.matched.length}):`));
  if (x.matched.length === 0) lines.push(style.dim('  (none)'));
  lines.push(
    ...columns(
      x.matched.map((m) => {
        const detail: string[] = [];
        if (m.reason !== undefined) detail.push(`because "${terminalCell(m.reason, 60)}"`);
        if (m.text !== undefined) detail.push(`context "${terminalCell(m.text, 60)}"`);
        if (m.hook) detail.push(`hook: ${terminalSafe(m.hook.summary)}`);
        if (m.parts && m.parts.length > 0) detail.push(`parts: ${m.parts.map((p) => `\`${terminalCell(p, 40)}\``).join(', ')}`);
        if (m.note) detail.push(terminalCell(m.note, 100));
        return [ruleName(m.rule, m.at), m.effect, m.outcome, detail.join('; ')];
      }),
    ),
  );

  lines.push(style.bold(`skipped (${x.skipped.length}):`));
  if (x.skipped.length === 0) lines.push(style.dim('  (none)'));
  lines.push(...columns(x.skipped.map((s) => [ruleName(s.rule, s.at), s.effect, s.stage, terminalCell(s.why, 160)])));

  if (x.parts) {
    lines.push(style.bold(`command parts (${x.parts.length}):`));
    const anyAllowed = x.parts.some((p) => p.allowed);
    const header = ['#', 'part', 'rules', 'note'];
    const rows = x.parts.map((p, i) => {
      const notes: string[] = [];
      if (p.unknowable !== undefined) notes.push(`unknowable: ${terminalSafe(p.unknowable)}`);
      if (p.writes !== undefined) notes.push(`writes ${p.writes.map((w) => `\`${terminalSafe(w)}\``).join(', ')}`);
      if (p.reads !== undefined) notes.push(`reads ${p.reads.map(shownRead).join(', ')}`);
      if (p.wrappers) notes.push(`through ${terminalSafe(p.wrappers.join(' '))}${p.privileged ? ' (privileged)' : ''}`);
      if (p.transparent) notes.push('runs only the parts after it');
      else if (anyAllowed && !p.allowed) notes.push('no allow covers it');
      const rules = p.rules.map((r) => `${r.effect} ${terminalSafe(r.rule)}`).join(', ');
      return [String(i + 1), terminalCell(p.text, 48), rules === '' ? '-' : rules, notes.join('; ')];
    });
    const table = columns([header, ...rows]);
    lines.push(style.dim(table[0]!), ...table.slice(1));
  }
  return `${lines.join('\n')}\n`;
}
