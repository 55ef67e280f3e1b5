/**
 * `dshpolicy eval --policy <file>... --fixtures <file.jsonl|->`: what the policy decides for
 * every event of a fixture file, as a table or one JSON line per fixture line.
 */
import { writeAll } from './crash.js';
import {
  diagnostic,
  evaluateFixtures,
  FixtureReadError,
  processHookRunner,
  type FixtureResult,
} from '../engine/index.js';
import { parseArgs } from 'node:util';
import { format, guard, UsageError, type Io, policyInputs } from './args.js';
import { FAILED, OK } from './exit-codes.js';
import { loadPolicies, refuseToRun } from './policy.js';
import { PLAIN, styleFor, summarize, type Style } from './render.js';
import { renderTable } from './table.js';

export const EVAL_HELP = `usage: dshpolicy eval --policy <file>... --fixtures <file.jsonl|-> [--format table|json]
                      [--claude-hooks <settings.json|hooks.json>]... [--codex-hooks <hooks.json|config.toml>]...

Evaluates every event of a JSONL fixture file (one JSON event per line, or - for stdin) against
the policy files and prints what they decide: a table, or with --format json one JSON line per
fixture line ({"line", "seam", "decision", "reasons", "context", "rules", "trace"}).
A line that cannot be read gets an error object; the others still run, and the exit status is 1.
Policy files may be .dshpolicy sources or compiled IR (.json). Hooks configurations given with
--claude-hooks and --codex-hooks are imported beside them: their command hooks run as the agent
runs them, and their answers merge with the policy's rules by each seam's law. Lines may also be
agent events without a seam ({"event": "Notification", "agent": "claude", ...fields}, or a raw hook
payload): the hooks configured on them run with their agent's semantics for the event.`;

export async function evalCommand(argv: string[], io: Io): Promise<number> {
  const { values } = guard(() => parseArgs({ args: argv, options: {
      policy: { type: 'string', multiple: true, short: 'p' },
      'claude-hooks': { type: 'string', multiple: true },
      'codex-hooks': { type: 'string', multiple: true },
      fixtures: { type: 'string', short: 'f' },
      format: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    }, allowPositionals: false, strict: true }));
  if (values.help) {
    io.stdout.write(`${EVAL_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['table', 'json'], 'table');
  const { policies, hooks } = policyInputs(values);
  if (values.fixtures === undefined) throw new UsageError('name the events with `--fixtures <file.jsonl>` (or `-` for stdin)');

  const style: Style = fmt === 'table' && io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
  const loaded = loadPolicies(policies, hooks);
  if (!loaded.policy) return refuseToRun(loaded, fmt === 'json', io);
  const runner = processHookRunner();
  const results: FixtureResult[] = [];
  let failed = false;
  try {
    for await (const result of evaluateFixtures(loaded.policy, values.fixtures, { runner, stdin: io.stdin })) {
      if (result.errors) failed = true;
      if (fmt === 'json') {
        // wait only while the pipe is full: an await per line would cost a turn of the event loop per event
        const full = writeAll(io.stdout, `${JSON.stringify(jsonLine(result))}\n`);
        if (full) await full;
      }
      else results.push(result);
    }
  } catch (err) {
    if (!(err instanceof FixtureReadError)) throw err;
    const d = diagnostic('fixture/unreadable', 'error', err.message);
    if (fmt === 'json') io.stdout.write(`${JSON.stringify({ ok: false, diagnostics: [d] })}\n`);
    else io.stderr.write(`error: ${err.message}\n`);
    return FAILED;
  }
  if (fmt === 'table') {
    io.stdout.write(renderTable(results, style));
    const warnings = loaded.diagnostics.filter((d) => d.severity !== 'error');
    if (warnings.length > 0) io.stderr.write(`policy: ${summarize(warnings)} (run \`dshpolicy check\` to see them)\n`);
  }
  return failed ? FAILED : OK;
}

export function jsonLine(r: FixtureResult): Record<string, unknown> {
  if (r.errors) return { line: r.line, decision: null, error: r.errors[0], errors: r.errors };
  const d = r.decision!;
  const out: Record<string, unknown> = {
    line: r.line,
    seam: d.seam,
    ...(d.seam === 'agent-event' ? { event: d.event, ...(d.agent ? { agent: d.agent } : {}) } : {}),
    decision: d.decision,
    reasons: d.reasons,
    context: d.context,
    rules: d.rules,
  };
  if (d.updatedInput) out['updatedInput'] = d.updatedInput;
  if (d.seam === 'agent-event' && d.output) out['output'] = d.output;
  out['trace'] = d.trace;
  if (d.diagnostics.length > 0) out['diagnostics'] = d.diagnostics;
  return out;
}
