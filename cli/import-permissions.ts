/**
 * `dshpolicy import claude permissions | codex rules | gemini policy <file>`: another agent's
 * permission language printed as `.dshpolicy` rules (or IR), each under comments naming where it
 * came from; what the IR cannot say is reported as diagnostics at the entry it concerns.
 */
import { readFileSync } from 'node:fs';
import { diagnostic, IR_VERSION, type Diagnostic, type PolicyIR } from '../engine/index.js';
import { importPermissions, type PermissionImportOptions } from '../bridges/index.js';
import { printRules } from '../dsl/index.js';
import type { Io } from './args.js';
import { FAILED, OK } from './exit-codes.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize } from './render.js';

export interface PermissionImportRequest {
  agent: string;
  what: string;
  file: string;
  to: 'dshpolicy' | 'ir';
  json: boolean;
  options: PermissionImportOptions;
}

export function importPermissionFile(req: PermissionImportRequest, io: Io): number {
  const { agent, what, file } = req;
  const diagnostics: Diagnostic[] = [];
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = err instanceof Error && 'code' in err ? String((err as NodeJS.ErrnoException).code) : 'unreadable';
    diagnostics.push(diagnostic('import/unreadable', 'error', `cannot read \`${file}\` (${why})`, { help: 'check the path' }));
  }
  const imported = text === undefined ? undefined : importPermissions(agent, what, text, file, req.options);
  if (imported) diagnostics.push(...imported.diagnostics);
  const rules = imported?.rules ?? [];
  const tests = imported?.tests ?? [];
  const printed = printRules(rules, tests, {
    header: [`${agent} ${what} imported from ${file}`],
    comments: imported?.comments ?? new Map(),
    testName: `${agent} ${what} examples`,
  });
  for (const u of printed.unprinted) {
    diagnostics.push(diagnostic('import/unprintable', 'warning', `rule \`${u.rule.id}\` cannot be printed: ${u.why}`, u.rule.span ? { span: u.rule.span } : {}));
  }
  const ok = !diagnostics.some((d) => d.severity === 'error');
  const ir: PolicyIR = { version: IR_VERSION, sources: [file], rules, tests };
  if (req.json) {
    const out: Record<string, unknown> = { ok, file, agent, what, diagnostics };
    if (req.to === 'ir') out['ir'] = ir;
    else out['dshpolicy'] = printed.text;
    io.stdout.write(`${JSON.stringify(out)}\n`);
    return ok ? OK : FAILED;
  }
  const style = io.stderr === process.stderr ? styleFor(process.stderr) : PLAIN;
  const sources = new SourceCache();
  if (text !== undefined) sources.set(file, text);
  for (const d of diagnostics) io.stderr.write(`${renderDiagnostic(d, sources, style)}\n\n`);
  if (diagnostics.length > 0) io.stderr.write(`${ok ? style.yellow('imported') : style.red('failed')}: ${summarize(diagnostics) || 'notes only'}\n`);
  io.stdout.write(req.to === 'ir' ? `${JSON.stringify(ir, null, 2)}\n` : printed.text);
  return ok ? OK : FAILED;
}
