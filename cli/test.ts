/**
 * `dshpolicy test [files...]`: runs the policy's `test` blocks and the fixture lines that carry an
 * `"expect"` decision, and reports every case whose decision (or reason) is not the expected one,
 * for people, as JSON, or as JUnit XML for CI; `--coverage` adds which rules the cases exercised.
 * Finding and loading the files is this command's; running the cases and computing coverage is
 * engine/testing's (runPolicyTests, coverageOfCases), and what is here renders their results.
 */
import { readdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import {
  coverageOfCases,
  processHookRunner,
  runPolicyTests,
  type AnyEvent,
  type CaseCounts,
  type CaseResult,
  type CaseStatus,
  type CoverageReport,
  type Diagnostic,
} from '../engine/index.js';
import { alternatives, guard, tooManyWarnings, UsageError, WARNING_OPTIONS, warningLimit, type Io } from './args.js';
import { NEEDS_HOOKS } from './check.js';
import { renderCoverage } from './coverage.js';
import { FAILED, OK } from './exit-codes.js';
import { discoverPolicies } from './hook.js';
import { loadPolicies } from './policy.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize, type Style } from './render.js';
import { describeEvent, eventText } from './table.js';
import { terminalSafe } from './untrusted.js';

export const TEST_HELP = `usage: dshpolicy test [<file.dshpolicy|file.json|fixtures.jsonl>...] [--policy <file>]...
                      [--format human|json|junit] [--coverage] [--verbose] [--run-hooks]
                      [--strict | --max-warnings <n>]
                      [--claude-hooks <settings.json|hooks.json>]... [--codex-hooks <hooks.json|config.toml>]...

Runs every \`test\` block of the policy files, and every line of the fixture files (.jsonl) that
carries an "expect" decision (and optionally an "expect_reason" regex that some reason or context
of the decision must match), against the policy formed by all the policy files given (positional
.dshpolicy and .json files, and --policy). Reports each case that fails, with the rules that
decided and their reasons; lines that cannot be read are errors, and the others still run.
With no files, tests the .dshpolicy files of the nearest .dshpolicy/ directory and the *.jsonl
files in its tests/ folder. --coverage adds, per rule, how many cases it decided or was outranked
in, and why a rule never decided. --verbose also lists the cases that passed.
No command hook runs unless --run-hooks is given: a case whose outcome depends on a \`run\` hook
is then skipped, and said so (neither passed nor failed).
  --strict             fail on any warning of the policy
  --max-warnings <n>   fail when the policy has more than n warnings
Exits 0 when no case fails or errs, 1 when one does, when the policy does not compile, or when it
has more warnings than --strict or --max-warnings allow.`;

const FORMATS = ['human', 'json', 'junit'] as const;
type TestFormat = (typeof FORMATS)[number];

export interface TestOptions {
  /** Where to look for the `.dshpolicy/` directory when no file is named (default: the process's). */
  cwd?: string;
}

/** A path for display: relative to the working directory when it is inside it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

function discover(cwd: string): { policies: string[]; fixtures: string[]; dir?: string } {
  const found = discoverPolicies(cwd);
  if (!found.dir) return { policies: [], fixtures: [] };
  let fixtures: string[] = [];
  try {
    const tests = join(found.dir, 'tests');
    fixtures = readdirSync(tests).filter((f) => f.endsWith('.jsonl')).sort().map((f) => shown(join(tests, f)));
  } catch {
    // no tests/ folder
  }
  return { dir: found.dir, policies: found.files.map(shown), fixtures };
}

function seamName(event: AnyEvent): string {
  return event.seam === 'agent-event' ? event.event : event.seam;
}

export async function testCommand(argv: string[], io: Io, opts: TestOptions = {}): Promise<number> {
  const { values, positionals } = guard(() => parseArgs({ args: argv, options: {
      policy: { type: 'string', multiple: true, short: 'p' },
      'claude-hooks': { type: 'string', multiple: true },
      'codex-hooks': { type: 'string', multiple: true },
      format: { type: 'string' },
      coverage: { type: 'boolean' },
      'run-hooks': { type: 'boolean' },
      ...WARNING_OPTIONS,
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    }, allowPositionals: true, strict: true }));
  if (values.help) {
    io.stdout.write(`${TEST_HELP}\n`);
    return OK;
  }
  const fmt = values.format ?? 'human';
  if (!(FORMATS as readonly string[]).includes(fmt)) {
    throw new UsageError(`unknown format \`${fmt}\`; use ${alternatives(FORMATS.map((f) => `\`${f}\``))}`);
  }
  const format = fmt as TestFormat;
  const maxWarnings = warningLimit(values);
  const hooks = { claude: values['claude-hooks'] ?? [], codex: values['codex-hooks'] ?? [] };
  let policies = [...positionals.filter((f) => !isFixtureFile(f)), ...(values.policy ?? [])];
  let fixtures = positionals.filter(isFixtureFile);
  if (positionals.length === 0 && policies.length === 0) {
    const cwd = opts.cwd ?? process.cwd();
    const found = discover(cwd);
    if (!found.dir || found.policies.length === 0) {
      if (hooks.claude.length === 0 && hooks.codex.length === 0) {
        throw new UsageError(found.dir
          ? `the \`${shown(found.dir)}\` directory holds no .dshpolicy file; name the files to test`
          : `no \`.dshpolicy/\` directory was found from \`${cwd}\`; name the policy and fixture files to test`);
      }
    }
    policies = found.policies;
    fixtures = found.fixtures;
  }
  if (policies.length === 0 && hooks.claude.length === 0 && hooks.codex.length === 0) {
    throw new UsageError('name a policy to test the fixtures against (a .dshpolicy or .json file, or `--policy <file>`)');
  }
  if (fixtures.filter((f) => f === '-').length > 1) throw new UsageError('standard input (`-`) can be read only once');

  const loaded = loadPolicies(policies, hooks);
  if (!loaded.policy) return reportPolicyErrors(loaded.diagnostics, format, io);
  const policy = loaded.policy;
  // Testing a policy runs none of the commands it names, unless asked to.
  const runner = values['run-hooks'] === true ? processHookRunner() : undefined;
  const fallback = loaded.ir?.sources[0] ?? policies[0] ?? 'policy';

  const { results, counts } = await runPolicyTests(policy, { runner, fixtures, file: fallback, stdin: io.stdin });
  const warnings = loaded.diagnostics.filter((d) => d.severity === 'warning');
  const tooMany = tooManyWarnings(warnings.length, maxWarnings, values.strict === true);
  const ok = counts.failed === 0 && counts.errors === 0 && tooMany === undefined;
  const coverage = values.coverage ? coverageOfCases(policy, results, { hooksRun: runner !== undefined, notRunHint: ' (pass --run-hooks)' }) : undefined;

  if (format === 'json') {
    const out: Record<string, unknown> = { ok, ...counts, results: results.map(resultJson), diagnostics: loaded.diagnostics };
    if (coverage) {
      out['coverage'] = coverage.rows;
      out['coverageSummary'] = { rules: coverage.rules, hit: coverage.hit, decided: coverage.decided, share: Math.round(coverage.share * 1000) / 1000 };
    }
    io.stdout.write(`${JSON.stringify(out)}\n`);
  } else if (format === 'junit') {
    io.stdout.write(renderJunit(results, coverage, tooMany === undefined ? undefined : { message: tooMany, warnings }));
  } else {
    const style: Style = io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
    // Warnings that fail the run are shown where the failures are, so a CI log says what to fix.
    if (tooMany !== undefined) {
      const sources = new SourceCache();
      for (const d of warnings) io.stdout.write(`${renderDiagnostic(d, sources, style)}\n\n`);
    }
    io.stdout.write(renderHuman(results, counts, ok, values.verbose === true, style, coverage, tooMany));
    if (warnings.length > 0 && tooMany === undefined) io.stderr.write(`policy: ${summarize(warnings)} (run \`dshpolicy check\` to see them)\n`);
  }
  return ok ? OK : FAILED;
}

function isFixtureFile(f: string): boolean {
  return f.endsWith('.jsonl') || f === '-';
}

function reportPolicyErrors(diagnostics: Diagnostic[], format: TestFormat, io: Io): number {
  const message = `the policy does not compile: ${summarize(diagnostics)}`;
  if (format === 'json') {
    io.stdout.write(`${JSON.stringify({ ok: false, passed: 0, failed: 0, errors: 0, skippedCases: 0, skipped: 0, results: [], diagnostics })}\n`);
  } else if (format === 'junit') {
    const sources = new SourceCache();
    const body = diagnostics.filter((d) => d.severity === 'error').map((d) => renderDiagnostic(d, sources, PLAIN)).join('\n\n');
    io.stdout.write(
      `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="dshpolicy" tests="1" failures="0" errors="1">\n` +
        `  <testsuite name="policy" tests="1" failures="0" errors="1" skipped="0">\n` +
        `    <testcase name="the policy compiles" classname="policy">\n` +
        `      <error message="${attr(message)}" type="policy">${text(body)}</error>\n` +
        `    </testcase>\n  </testsuite>\n</testsuites>\n`,
    );
  } else {
    const style = io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
    const sources = new SourceCache();
    for (const d of diagnostics.filter((x) => x.severity !== 'info')) io.stdout.write(`${renderDiagnostic(d, sources, style)}\n\n`);
    io.stdout.write(`${style.red('failed')}: ${message}\n`);
  }
  return FAILED;
}

/** A case as JSON: where it is, its status, what was expected and what was decided. */
export function resultJson(r: CaseResult): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: r.kind, file: r.file, name: r.name, at: r.at, status: r.status };
  if (r.event) {
    out['seam'] = r.event.seam;
    if (r.event.seam === 'agent-event') out['hookEvent'] = r.event.event;
    out['event'] = describeEvent(r.event);
  }
  if (r.expect !== undefined) out['expect'] = r.expect;
  if (r.expectReason !== undefined) out['expect_reason'] = r.expectReason;
  if (r.decision) {
    const d = r.decision;
    out['decision'] = d.decision;
    out['rules'] = d.rules;
    out['reasons'] = d.reasons;
    out['context'] = d.context;
  }
  // A skipped case carries no message of its own: what it waits on is said here.
  const message = r.status === 'skipped' ? (r.message ?? NEEDS_HOOKS) : r.message;
  if (message !== undefined && r.status !== 'passed') out['message'] = message;
  if (r.hooks) out['hooks'] = r.hooks;
  if (r.status === 'failed' && r.decision) {
    out['trace'] = r.decision.trace;
    if (r.decision.diagnostics.length > 0) out['diagnostics'] = r.decision.diagnostics;
  }
  if (r.errors) out['errors'] = r.errors;
  return out;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The detail lines of a failed or erring case (no header), plain text. What the events, hooks,
 * fixtures and policy files say is written as it is (the JUnit report carries it exact, replacing
 * only what XML cannot hold), or with `terminal` escaped for a terminal (untrusted.ts).
 */
export function caseDetails(r: CaseResult, terminal = false): string[] {
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${label.padEnd(9)} ${value}`);
  const show = terminal ? (text: string) => terminalSafe(text) : (text: string) => text;
  const event = (e: AnyEvent) => row('event', `${seamName(e)} ${terminal ? terminalSafe(eventText(e)) : describeEvent(e)}`);
  if (r.status === 'skipped') {
    if (r.event) event(r.event);
    row('skipped', show(r.message ?? NEEDS_HOOKS));
    row('hooks', (r.hooks ?? []).map((h) => show(h)).join(', '));
    return lines;
  }
  if (r.status === 'error') {
    for (const e of r.errors ?? []) {
      lines.push(`${e.severity}[${e.code}]: ${show(e.message)}${e.pointer ? ` (at ${show(e.pointer || '/')})` : ''}`);
      if (e.help) lines.push(`  = help: ${show(e.help)}`);
    }
    if ((r.errors ?? []).length === 0 && r.message) lines.push(show(r.message));
    return lines;
  }
  if (r.event) event(r.event);
  const expectReason = r.expectReason !== undefined ? show(r.expectReason) : undefined;
  if (r.expect !== undefined) row('expected', `${r.expect}${expectReason ? ` because ${expectReason}` : ''}`);
  const d = r.decision;
  if (!d) return lines;
  row('got', d.decision === r.expect && expectReason ? `${d.decision}, but no reason or context matches ${expectReason}` : d.decision);
  if (d.rules.length > 0) {
    const effects = new Map(d.trace.map((t) => [t.rule, t.effect]));
    row('rules', d.rules.map((id) => `${show(id)} (${effects.get(id) ?? '?'})`).join(', '));
  } else {
    row('rules', 'none decided');
  }
  for (const reason of d.reasons) row('reason', show(reason));
  for (const c of d.context) row('context', show(c));
  for (const t of d.trace) {
    if (t.outcome === 'partial' || t.outcome === 'limited') row('note', `${show(t.rule)}: ${show(t.note ?? t.outcome)}`);
  }
  for (const x of d.diagnostics.filter((y) => y.severity !== 'info')) row(x.severity, `${show(x.message)} [${x.code}]`);
  return lines;
}

function renderHuman(
  results: CaseResult[],
  counts: CaseCounts,
  ok: boolean,
  verbose: boolean,
  style: Style,
  coverage: CoverageReport | undefined,
  tooMany: string | undefined,
): string {
  const out: string[] = [];
  for (const r of results) {
    if (r.status === 'passed') {
      if (verbose) out.push(`${style.green('ok')}    ${terminalSafe(r.at)}  ${terminalSafe(r.name)}`);
      continue;
    }
    const head = r.status === 'failed' ? style.red(style.bold('FAIL')) + ' ' : r.status === 'skipped' ? style.yellow(style.bold('SKIP')) + ' ' : style.red(style.bold('ERROR'));
    // Test names are the policy's or the fixture's, file names the repository's.
    out.push(`${head} ${style.cyan(terminalSafe(r.at))}  ${style.bold(terminalSafe(r.name))}`);
    for (const line of caseDetails(r, true)) out.push(`      ${line}`);
    out.push('');
  }
  if (verbose && results.some((r) => r.status === 'passed') && out[out.length - 1] !== '') out.push('');
  if (coverage) out.push(renderCoverage(coverage, style));
  const tests = results.filter((r) => r.kind === 'test').length;
  const lines = results.filter((r) => r.kind === 'fixture').length;
  const parts = [`${counts.passed} passed`];
  if (counts.failed > 0) parts.push(`${counts.failed} failed`);
  if (counts.errors > 0) parts.push(plural(counts.errors, 'error'));
  if (counts.skippedCases > 0) parts.push(`${counts.skippedCases} skipped`);
  const what = [tests > 0 ? plural(tests, 'test case') : '', lines > 0 ? plural(lines, 'fixture line') : ''].filter((x) => x !== '').join(', ');
  const skipped = counts.skipped > 0 ? `; ${plural(counts.skipped, 'line')} without \`expect\` skipped` : '';
  const head = ok ? style.green('ok') : style.red('failed');
  const warned = tooMany !== undefined ? `; ${tooMany}` : '';
  if (results.length === 0) out.push(`${head}: no test cases (no \`test\` block, and no fixture line with \`expect\`)${skipped}${warned}`);
  else out.push(`${head}: ${parts.join(', ')} (${what}${skipped})${warned}`);
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// JUnit XML

/**
 * Characters XML 1.0 cannot carry at all (C0 controls but tab and line breaks, lone surrogates,
 * U+FFFE, U+FFFF) become U+FFFD; the rest of the text stays exact, as in the JSON output.
 */
function xmlChars(s: string): string {
  return s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}

/** Text content. */
export function text(s: string): string {
  return xmlChars(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value (double-quoted); line breaks and tabs are kept as character references. */
export function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

function lineOf(r: CaseResult): number | undefined {
  const m = /:(\d+)(?::\d+)?$/.exec(r.at);
  return m ? Number(m[1]) : undefined;
}

export function renderJunit(results: CaseResult[], coverage: CoverageReport | undefined, warned?: { message: string; warnings: Diagnostic[] }): string {
  const suites = new Map<string, CaseResult[]>();
  for (const r of results) {
    const list = suites.get(r.file) ?? [];
    list.push(r);
    suites.set(r.file, list);
  }
  const count = (rs: CaseResult[], s: CaseStatus) => rs.filter((r) => r.status === s).length;
  const extra = warned ? 1 : 0;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="dshpolicy" tests="${results.length + extra}" failures="${count(results, 'failed') + extra}" errors="${count(results, 'error')}">`,
  ];
  if (warned) {
    // Warnings that fail the run (--strict, --max-warnings) are one failing case of their own.
    const sources = new SourceCache();
    const body = warned.warnings.map((d) => renderDiagnostic(d, sources, PLAIN)).join('\n\n');
    out.push('  <testsuite name="policy" tests="1" failures="1" errors="0" skipped="0">');
    out.push('    <testcase name="the policy has no more warnings than allowed" classname="policy">');
    out.push(`      <failure message="${attr(warned.message)}" type="warnings">${text(body)}</failure>`);
    out.push('    </testcase>');
    out.push('  </testsuite>');
  }
  for (const [file, rs] of suites) {
    out.push(`  <testsuite name="${attr(file)}" tests="${rs.length}" failures="${count(rs, 'failed')}" errors="${count(rs, 'error')}" skipped="${count(rs, 'skipped')}">`);
    for (const r of rs) {
      const line = lineOf(r);
      const open = `    <testcase name="${attr(r.name)}" classname="${attr(file)}" file="${attr(file)}"${line !== undefined ? ` line="${line}"` : ''}`;
      if (r.status === 'passed') {
        out.push(`${open}/>`);
        continue;
      }
      if (r.status === 'skipped') {
        out.push(`${open}>`);
        out.push(`      <skipped message="${attr(r.message ?? NEEDS_HOOKS)}">${text(caseDetails(r).join('\n'))}</skipped>`);
        out.push('    </testcase>');
        continue;
      }
      const tag = r.status === 'failed' ? 'failure' : 'error';
      const type = r.status === 'failed' ? (r.decision && r.decision.decision === r.expect ? 'reason' : 'decision') : (r.errors?.[0]?.code ?? 'error');
      out.push(`${open}>`);
      out.push(`      <${tag} message="${attr(r.message ?? r.status)}" type="${attr(type)}">${text(caseDetails(r).join('\n'))}</${tag}>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  if (coverage) {
    out.push('  <testsuite name="coverage" tests="0" failures="0" errors="0" skipped="0">');
    out.push(`    <system-out>${text(renderCoverage(coverage, PLAIN))}</system-out>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
