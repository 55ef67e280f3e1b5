/**
 * `dshpolicy check <files...>`: compile the policy files and report every problem.
 * Exit 0 when there are no errors, 1 when there are (or, with --strict or --max-warnings, when
 * there are more warnings than allowed).
 */
import { diagnostic, processHookRunner, runTestCases, type Diagnostic, type TestResult } from '../engine/index.js';
import { hookTimeoutLints } from '../bridges/index.js';
import { loadPolicies } from './policy.js';
import { parseArgs } from 'node:util';
import { format, guard, tooManyWarnings, UsageError, WARNING_OPTIONS, warningLimit, type Io } from './args.js';
import { FAILED, OK } from './exit-codes.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize } from './render.js';

export const CHECK_HELP = `usage: dshpolicy check <file.dshpolicy>... [--format human|json] [--verbose] [--run-hooks]
                       [--strict | --max-warnings <n>]
                       [--claude-hooks <settings.json|hooks.json>]... [--codex-hooks <hooks.json|config.toml>]...

Compiles the policy files (and what they include), runs their \`test\` blocks, and prints every
error and warning, including those of the hooks configurations named beside them; --verbose also
prints notes (info).
No command hook runs: a test case whose outcome depends on a \`run\` hook is skipped, and said so,
unless --run-hooks is given.
  --strict             fail on any warning
  --max-warnings <n>   fail when there are more than n warnings
Exits 0 when there are no errors (and no more warnings than allowed), 1 otherwise.`;

/** What a test case skipped for want of its hooks says, wherever it is reported. */
export const NEEDS_HOOKS = 'needs `run` hooks: pass --run-hooks';

/** A test case skipped for want of its hooks, as a note at the case. */
export function skippedNote(r: TestResult, command: string): Diagnostic {
  const hooks = r.skipped?.hooks ?? [];
  return diagnostic('test/skipped', 'info', `test \`${r.case.name}\` skipped: ${NEEDS_HOOKS}`, {
    span: r.case.span,
    help: `its outcome depends on the hook of ${hooks.map((h) => `\`${h}\``).join(', ')}, and \`${command}\` runs no hook unless --run-hooks is given`,
  });
}

export async function check(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = guard(() => parseArgs({ args: argv, options: {
      format: { type: 'string' },
      'claude-hooks': { type: 'string', multiple: true },
      'codex-hooks': { type: 'string', multiple: true },
      'run-hooks': { type: 'boolean' },
      ...WARNING_OPTIONS,
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    }, allowPositionals: true, strict: true }));
  if (values.help) {
    io.stdout.write(`${CHECK_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const maxWarnings = warningLimit(values);
  const hooks = { claude: values['claude-hooks'] ?? [], codex: values['codex-hooks'] ?? [] };
  if (positionals.length === 0 && hooks.claude.length === 0 && hooks.codex.length === 0) {
    throw new UsageError('name at least one policy file (or hooks configuration) to check');
  }
  const result = loadPolicies(positionals, hooks);
  // A hook longer than an agent lets dshpolicy's own handler run.
  if (result.ir) result.diagnostics.push(...hookTimeoutLints(result.ir));
  let tests = 0;
  let skipped = 0;
  if (result.policy && result.policy.ir.tests.length > 0) {
    // Checking a policy runs none of the commands it names, unless asked to.
    const outcomes = await runTestCases(result.policy, values['run-hooks'] === true ? { runner: processHookRunner() } : { skipHooks: true });
    for (const o of outcomes) {
      if (o.skipped) {
        skipped++;
        result.diagnostics.push(skippedNote(o, 'check'));
      } else {
        tests++;
        if (o.failure) result.diagnostics.push(o.failure);
      }
    }
  }
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = result.diagnostics.filter((d) => d.severity === 'warning').length;
  const tooMany = tooManyWarnings(warnings, maxWarnings, values.strict === true);
  const ok = errors === 0 && tooMany === undefined;
  if (fmt === 'json') {
    io.stdout.write(
      `${JSON.stringify({ ok, files: result.ir?.sources ?? positionals, rules: result.ir?.rules.length ?? null, tests, skipped, diagnostics: result.diagnostics })}\n`,
    );
    return ok ? OK : FAILED;
  }
  const style = io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
  const sources = new SourceCache();
  // Notes (info) are for the curious: shown with --verbose, always in JSON; a skipped test always.
  const shown = values.verbose ? result.diagnostics : result.diagnostics.filter((d) => d.severity !== 'info' || d.code === 'test/skipped');
  for (const d of shown) io.stdout.write(`${renderDiagnostic(d, sources, style)}\n\n`);
  const notes = result.diagnostics.length - shown.length;
  if (ok) {
    const n = result.ir?.rules.length ?? 0;
    const files = result.ir?.sources.length ?? positionals.length;
    const said = [summarize(result.diagnostics), notes > 0 ? `${notes} note${notes === 1 ? '' : 's'}, shown with --verbose` : ''].filter((x) => x !== '');
    const warn = said.length > 0 ? ` (${said.join(', ')})` : '';
    const t = tests > 0 || skipped > 0 ? `, ${tests} test${tests === 1 ? '' : 's'} passed${skipped > 0 ? `, ${skipped} skipped` : ''}` : '';
    io.stdout.write(`${style.green('ok')}: ${files} file${files === 1 ? '' : 's'}, ${n} rule${n === 1 ? '' : 's'}${t}${warn}\n`);
  } else {
    io.stdout.write(`${style.red('failed')}: ${errors > 0 ? summarize(result.diagnostics) : tooMany}\n`);
  }
  return ok ? OK : FAILED;
}
