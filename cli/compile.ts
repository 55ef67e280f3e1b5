/**
 * `dshpolicy compile <file> [-o out.json]`: the policy's IR as JSON.
 */
import { writeFileSync } from 'node:fs';
import { compileFiles } from '../dsl/index.js';
import { validateIR } from '../engine/index.js';
import { parseArgs } from 'node:util';
import { format, guard, UsageError, type Io } from './args.js';
import { FAILED, OK } from './exit-codes.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor } from './render.js';

export const COMPILE_HELP = `usage: dshpolicy compile <file.dshpolicy>... [-o out.json] [--format human|json]

Compiles the policy files to the versioned IR (JSON). Without -o the IR goes to stdout.
With --format json, diagnostics are printed as JSON instead of code frames.`;

export function compile(argv: string[], io: Io): number {
  const { values, positionals } = guard(() => parseArgs({ args: argv, options: {
    output: { type: 'string', short: 'o' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, allowPositionals: true, strict: true }));
  if (values.help) {
    io.stdout.write(`${COMPILE_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  if (positionals.length === 0) throw new UsageError('name the policy file to compile');
  const result = compileFiles(positionals);
  let diagnostics = result.diagnostics;
  if (result.ir) {
    // The compiler's output must always validate; say so loudly if it ever does not.
    const v = validateIR(JSON.parse(JSON.stringify(result.ir)));
    diagnostics = [...diagnostics, ...v.diagnostics.map((d) => ({ ...d, message: `internal: compiled IR is invalid: ${d.message}` }))];
  }
  const failed = !result.ir || diagnostics.some((d) => d.severity === 'error');
  if (fmt === 'json') {
    if (failed || values.output === undefined) {
      io.stdout.write(`${JSON.stringify({ ok: !failed, ir: failed ? null : result.ir, diagnostics })}\n`);
    }
  } else {
    const style = io.stderr === process.stderr ? styleFor(process.stderr) : PLAIN;
    const sources = new SourceCache();
    for (const d of diagnostics) io.stderr.write(`${renderDiagnostic(d, sources, style)}\n\n`);
  }
  if (failed) return FAILED;
  const text = `${JSON.stringify(result.ir, null, 2)}\n`;
  if (values.output !== undefined) {
    try {
      writeFileSync(values.output, text);
    } catch (err) {
      io.stderr.write(`error: cannot write \`${values.output}\`: ${(err as Error).message}\n`);
      return FAILED;
    }
  } else if (fmt !== 'json') {
    io.stdout.write(text);
  }
  return OK;
}
