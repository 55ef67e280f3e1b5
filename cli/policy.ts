/**
 * Loading the policies a command was given: `.dshpolicy` source (compiled) or IR JSON (validated),
 * and the hooks configurations imported beside them. Every command that reads a policy loads it
 * here, so every command reaches the same verdict on the same input: any error, in any of the
 * files, and there is no policy (`check` reports it, the others refuse to run).
 */
import { readFileSync } from 'node:fs';
import { agentImporter, compileHooks, loadHooksText } from '../bridges/index.js';
import { compileFiles, decodeSource } from '../dsl/index.js';
import { compilePolicy, hasErrors, mergedUnprotected, validateIR, type CompiledPolicy, type Diagnostic, type PolicyIR, IR_VERSION } from '../engine/index.js';
import type { Io } from './args.js';
import { FAILED } from './exit-codes.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize } from './render.js';

export interface LoadedPolicy {
  /** Undefined exactly when some diagnostic is an error. */
  policy: CompiledPolicy | undefined;
  ir: PolicyIR | undefined;
  diagnostics: Diagnostic[];
}

function loadIrFile(file: string): { ir: PolicyIR | undefined; diagnostics: Diagnostic[] } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    return { ir: undefined, diagnostics: [{ code: 'cli/unreadable', severity: 'error', message: `cannot read \`${file}\`: ${(err as NodeJS.ErrnoException).code ?? 'error'}` }] };
  }
  // The IR is a policy too: its bytes are UTF-8 or it is refused, as a source file is.
  const { text, diagnostic: notUtf8 } = decodeSource(bytes, file);
  if (notUtf8) return { ir: undefined, diagnostics: [notUtf8] };
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

export function loadHookFile(agent: string, file: string): { ir: PolicyIR; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return {
      ir: { version: IR_VERSION, sources: [], rules: [], tests: [] },
      diagnostics: [{ code: 'cli/unreadable', severity: 'error', message: `cannot read \`${file}\`: ${(err as NodeJS.ErrnoException).code ?? 'error'}` }],
    };
  }
  const config = loadHooksText(agent, text, file);
  const compiled = compileHooks(config);
  return {
    ir: { version: IR_VERSION, sources: [file], rules: compiled.rules, tests: [] },
    // The loaders skip what the agent skips, so problems in a hooks file are reported, and the rest runs.
    diagnostics: [...config.diagnostics, ...compiled.diagnostics],
  };
}

/**
 * Compiles `.dshpolicy` files together and merges any IR `.json` files and hooks configurations
 * beside them. Every file is read and all their diagnostics are reported; when any is an error
 * there is no policy: a hooks file the agent would ignore in part (a truncated settings.json) is
 * no more run in part here than a policy with an error.
 */
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
  for (const agent of ['claude', 'codex'] as const) {
    for (const f of hooks[agent] ?? []) {
      const r = loadHookFile(agent, f);
      diagnostics.push(...r.diagnostics);
      parts.push(r.ir);
    }
  }
  if (hasErrors(diagnostics)) return { policy: undefined, ir: undefined, diagnostics };
  const ir: PolicyIR = {
    version: IR_VERSION,
    sources: parts.flatMap((p) => p.sources),
    rules: parts.flatMap((p) => p.rules),
    tests: parts.flatMap((p) => p.tests),
  };
  const name = parts.find((p) => p.name !== undefined)?.name;
  if (name !== undefined) ir.name = name;
  const unprotected = mergedUnprotected(parts);
  if (unprotected !== undefined) ir.unprotected = unprotected;
  return { policy: compilePolicy(ir), ir, diagnostics };
}

/**
 * The answer of a command whose policy did not load (`loaded.policy` undefined): its diagnostics,
 * rendered as `check` renders them, on stderr with a summary line, or, with `json`, as
 * `{"ok": false, "diagnostics"}` on stdout. The exit status is 1.
 */
export function refuseToRun(loaded: LoadedPolicy, json: boolean, io: Io): number {
  if (json) {
    io.stdout.write(`${JSON.stringify({ ok: false, diagnostics: loaded.diagnostics })}\n`);
    return FAILED;
  }
  const style = io.stderr === process.stderr ? styleFor(process.stderr) : PLAIN;
  const sources = new SourceCache();
  for (const d of loaded.diagnostics.filter((x) => x.severity !== 'info')) io.stderr.write(`${renderDiagnostic(d, sources, style)}\n\n`);
  io.stderr.write(`the policy does not compile: ${summarize(loaded.diagnostics)}\n`);
  return FAILED;
}
