/**
 * The compiler: a named, ordered list of stages, each a function from one immutable state to the
 * next (load -> resolve -> check -> lower), then the diagnostics in a stable order.
 */
import { hasErrors, sortDiagnostics, type Diagnostic, type PolicyIR } from '../engine/index.js';
import { checkProgram } from './check.js';
import { loadSources, type ImportedRules, type LoadedFile, type ParseFn, type SourceHost } from './load.js';
import { lowerProgram } from './lower.js';
import { resolveNames, type ScopedFile } from './scope.js';

export interface CompileResult {
  /** The IR; undefined when (and only when) some diagnostic is an error. */
  ir: PolicyIR | undefined;
  diagnostics: Diagnostic[];
}

/** What flows from stage to stage. Each stage returns a new state; none changes the one it got. */
export interface CompileState {
  readonly entries: readonly string[];
  readonly host: SourceHost;
  readonly parse: ParseFn;
  /** Every file read, in load order (load). */
  readonly loaded: readonly LoadedFile[];
  /** Rules that `import` declarations brought in (load). */
  readonly imported: readonly ImportedRules[];
  /** The files that parsed, with their names resolved (resolve). */
  readonly scoped: readonly ScopedFile[];
  readonly ir: PolicyIR | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

export interface CompileStage {
  readonly name: string;
  run(state: CompileState): CompileState;
}

export const STAGES: readonly CompileStage[] = [
  {
    name: 'load',
    run: (s) => {
      const { files, imported, diagnostics } = loadSources(s.entries, s.host, s.parse);
      return { ...s, loaded: files, imported, diagnostics: [...s.diagnostics, ...diagnostics] };
    },
  },
  {
    name: 'resolve',
    run: (s) => {
      const { files, diagnostics } = resolveNames(s.loaded);
      return { ...s, scoped: files, diagnostics: [...s.diagnostics, ...diagnostics] };
    },
  },
  {
    name: 'check',
    run: (s) => ({ ...s, diagnostics: [...s.diagnostics, ...checkProgram(s.scoped)] }),
  },
  {
    name: 'lower',
    run: (s) => {
      if (hasErrors(s.diagnostics)) return s;
      const ir = lowerProgram(s.scoped);
      for (const i of s.imported) {
        ir.sources.push(i.file);
        ir.rules.push(...i.rules);
        ir.tests.push(...i.tests);
      }
      return { ...s, ir };
    },
  },
];

/** At most this many diagnostics are returned (the last one then says how many were left out). */
export const MAX_DIAGNOSTICS = 200;

export function compileWith(entries: readonly string[], host: SourceHost, parse: ParseFn): CompileResult {
  const initial: CompileState = { entries, host, parse, loaded: [],
    imported: [], scoped: [], ir: undefined, diagnostics: [] };
  const final = STAGES.reduce((state, stage) => stage.run(state), initial);
  const diagnostics = finishDiagnostics(final.diagnostics);
  return { ir: hasErrors(final.diagnostics) ? undefined : final.ir, diagnostics };
}

/** Drops repeats (a `let` used twice reports its problem once), sorts, and caps the list. */
export function finishDiagnostics(all: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const unique: Diagnostic[] = [];
  for (const d of all) {
    const key = JSON.stringify([d.code, d.severity, d.message, d.span?.file, d.span?.start.offset, d.span?.end.offset, d.pointer]);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(d);
  }
  if (unique.length <= MAX_DIAGNOSTICS) return sortDiagnostics(unique);
  // Keep errors before warnings, so a capped list still shows why there is no IR.
  const rank = { error: 0, warning: 1, info: 2 } as const;
  const kept = sortDiagnostics(unique)
    .map((d, i) => ({ d, i }))
    .sort((a, b) => rank[a.d.severity] - rank[b.d.severity] || a.i - b.i)
    .slice(0, MAX_DIAGNOSTICS - 1)
    .map((x) => x.d);
  const more = unique.length - kept.length;
  return [
    ...sortDiagnostics(kept),
    { code: 'check/too-many-diagnostics', severity: 'info', message: `${more} more diagnostics not shown` },
  ];
}
