/**
 * `dshpolicy check <files...>`: compile the policy files and report every problem.
 * Exit 0 when there are no errors, 1 when there are.
 */
import { processHookRunner, runTestCases, type Diagnostic } from '../engine/index.js';
import { loadPolicies } from './policy.js';
import { parseArgs } from 'node:util';
import { format, guard, UsageError, type Io } from './args.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize } from './render.js';

export const CHECK_HELP = `usage: dshpolicy check <file.dshpolicy>... [--format human|json] [--verbose]
                       [--claude-hooks <settings.json|hooks.json>]... [--codex-hooks <hooks.json|config.toml>]...

Compiles the policy files (and what they include), runs their \`test\` blocks, and prints every
error and warning, including those of the hooks configurations named beside them; --verbose also
prints notes (info).
Exits 0 when there are no errors, 1 when there are.`;

export async function check(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = guard(() => parseArgs({ args: argv, options: { format: { type: 'string' }, 'claude-hooks': { type: 'string', multiple: true }, 'codex-hooks': { type: 'string', multiple: true }, verbose: { type: 'boolean', short: 'v' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }));
  if (values.help) {
    io.stdout.write(`${CHECK_HELP}\n`);
    return 0;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const hooks = { claude: values['claude-hooks'] ?? [], codex: values['codex-hooks'] ?? [] };
  if (positionals.length === 0 && hooks.claude.length === 0 && hooks.codex.length === 0) {
    throw new UsageError('name at least one policy file (or hooks configuration) to check');
  }
  const result = loadPolicies(positionals, hooks);
  let tests = 0;
  if (result.policy && result.policy.ir.tests.length > 0) {
    const outcomes = await runTestCases(result.policy, { runner: processHookRunner() });
    tests = outcomes.length;
    const failures: Diagnostic[] = outcomes.flatMap((o) => (o.failure ? [o.failure] : []));
    result.diagnostics.push(...failures);
  }
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  const ok = errors === 0;
  if (fmt === 'json') {
    io.stdout.write(
      `${JSON.stringify({ ok, files: result.ir?.sources ?? positionals, rules: result.ir?.rules.length ?? null, tests, diagnostics: result.diagnostics })}\n`,
    );
    return ok ? 0 : 1;
  }
  const style = io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
  const sources = new SourceCache();
  // Notes (info) are for the curious: shown with --verbose, always in JSON.
  const shown = values.verbose ? result.diagnostics : result.diagnostics.filter((d) => d.severity !== 'info');
  for (const d of shown) io.stdout.write(`${renderDiagnostic(d, sources, style)}\n\n`);
  const notes = result.diagnostics.length - shown.length;
  if (ok) {
    const n = result.ir?.rules.length ?? 0;
    const files = result.ir?.sources.length ?? positionals.length;
    const said = [summarize(result.diagnostics), notes > 0 ? `${notes} note${notes === 1 ? '' : 's'}, shown with --verbose` : ''].filter((x) => x !== '');
    const warn = said.length > 0 ? ` (${said.join(', ')})` : '';
    const t = tests > 0 ? `, ${tests} test${tests === 1 ? '' : 's'} passed` : '';
    io.stdout.write(`${style.green('ok')}: ${files} file${files === 1 ? '' : 's'}, ${n} rule${n === 1 ? '' : 's'}${t}${warn}\n`);
  } else {
    io.stdout.write(`${style.red('failed')}: ${summarize(result.diagnostics)}\n`);
  }
  return ok ? 0 : 1;
}
