/**
 * Loading the policies a command was given: `.dshpolicy` source (compiled) or IR JSON (validated).
 */
import { readFileSync } from 'node:fs';
import { agentImporter, compileHooks, loadClaudeHooksText, loadCodexHooksText } from '../bridges/index.js';
import { compileFiles } from '../dsl/index.js';
import { compilePolicy, validateIR, type CompiledPolicy, type Diagnostic, type PolicyIR, IR_VERSION } from '../engine/index.js';

export interface LoadedPolicy {
  policy: CompiledPolicy | undefined;
  ir: PolicyIR | undefined;
  diagnostics: Diagnostic[];
}

function loadIrFile(file: string): { ir: PolicyIR | undefined; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { ir: undefined, diagnostics: [{ code: 'cli/unreadable', severity: 'error', message: `cannot read \`${file}\`: ${(err as NodeJS.ErrnoException).code ?? 'error'}` }] };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ir: undefined, diagnostics: [{ code: 'ir/json', severity: 'error', message: `\`${file}\` is not JSON: ${(err as Error).message}`, pointer: '' }] };
  }
  const v = validateIR(json);
  return { ir: v.ir, diagnostics: v.diagnostics.map((d) => ({ ...d, message: `${file}: ${d.message}` })) };
}

/** Hooks configurations to import beside the policy files. */
export interface HookFiles {
  claude?: string[];
  codex?: string[];
}

export function loadHookFile(agent: 'claude' | 'codex', file: string): { ir: PolicyIR; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return {
      ir: { version: IR_VERSION, sources: [], rules: [], tests: [] },
      diagnostics: [{ code: 'cli/unreadable', severity: 'error', message: `cannot read \`${file}\`: ${(err as NodeJS.ErrnoException).code ?? 'error'}` }],
    };
  }
  const config = agent === 'claude' ? loadClaudeHooksText(text, file) : loadCodexHooksText(text, file);
  const compiled = compileHooks(config);
  return {
    ir: { version: IR_VERSION, sources: [file], rules: compiled.rules, tests: [] },
    // The loaders skip what the agent skips, so problems in a hooks file are reported, and the rest runs.
    diagnostics: [...config.diagnostics, ...compiled.diagnostics],
  };
}

/** Compiles `.dshpolicy` files together and merges any IR `.json` files and hooks configurations beside them. */
export function loadPolicies(files: string[], hooks: HookFiles = {}): LoadedPolicy {
  const sources = files.filter((f) => !f.endsWith('.json'));
  const irs = files.filter((f) => f.endsWith('.json'));
  const diagnostics: Diagnostic[] = [];
  const parts: PolicyIR[] = [];
  if (sources.length > 0) {
    const r = compileFiles(sources, { importer: agentImporter });
    diagnostics.push(...r.diagnostics);
    if (r.ir) parts.push(r.ir);
  }
  for (const f of irs) {
    const r = loadIrFile(f);
    diagnostics.push(...r.diagnostics);
    if (r.ir) parts.push(r.ir);
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { policy: undefined, ir: undefined, diagnostics };
  for (const agent of ['claude', 'codex'] as const) {
    for (const f of hooks[agent] ?? []) {
      const r = loadHookFile(agent, f);
      if (r.diagnostics.some((d) => d.code === 'cli/unreadable')) return { policy: undefined, ir: undefined, diagnostics: [...diagnostics, ...r.diagnostics] };
      diagnostics.push(...r.diagnostics);
      parts.push(r.ir);
    }
  }
  const ir: PolicyIR = {
    version: IR_VERSION,
    sources: parts.flatMap((p) => p.sources),
    rules: parts.flatMap((p) => p.rules),
    tests: parts.flatMap((p) => p.tests),
  };
  const name = parts.find((p) => p.name !== undefined)?.name;
  if (name !== undefined) ir.name = name;
  return { policy: compilePolicy(ir), ir, diagnostics };
}
