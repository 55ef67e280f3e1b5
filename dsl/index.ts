/**
 * The dshpolicy language: parsing, checks and lowering to the IR.
 *
 * `compileSources` runs the stages in STAGES (load -> resolve -> check -> lower) over policy files
 * read through a SourceHost; `compileFiles` reads them from disk and `compileText` from memory.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { compileWith, type CompileResult } from './compile.js';
import { normalizePath, type Importer, type SourceHost } from './load.js';
import { parsePolicy } from './parse.js';

export { parsePolicy } from './parse.js';
export type { ParsedPolicy } from './parse.js';
export type * from './ast.js';
export { STAGES, MAX_DIAGNOSTICS, compileWith } from './compile.js';
export type { CompileResult, CompileStage, CompileState } from './compile.js';
export { KNOWN_IMPORTS, decodeSource, resolveInclude } from './load.js';
export type { ImportedRules, ImportRequest, Importer, LoadedFile, ParseFn, SourceHost } from './load.js';
export { HOOK_EVENT_SEAMS } from '../engine/index.js';
export { SEAM_EVENTS } from './lower.js';
export { MIN_TIMEOUT_MS, MAX_TIMEOUT_MS, evaluatesIf } from './check-rules.js';

/** Compiles the entry files (and what they include), read through `host`. */
export function compileSources(entries: string[], host: SourceHost): CompileResult {
  return compileWith(entries, host, parsePolicy);
}

/** The file system as a SourceHost: files are read as bytes, so that loading decodes them strictly. */
export const fileSystemHost: SourceHost = {
  readFile(path: string): Uint8Array | undefined {
    try {
      return readFileSync(path);
    } catch {
      return undefined;
    }
  },
  // Files are named relative to the working directory when they are under it, absolute otherwise,
  // so the same file always has the same name (and its rules the same ids).
  canonical(path: string): string {
    const abs = resolve(path);
    const rel = relative(process.cwd(), abs);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? abs : rel;
  },
};

/** Compiles policy files from disk. */
export function compileFiles(paths: string[], opts: { importer?: Importer } = {}): CompileResult {
  return compileSources(paths, opts.importer ? { ...fileSystemHost, importer: opts.importer } : fileSystemHost);
}

/**
 * Compiles a policy given as text, named `file`; `extra` holds more files by path (for
 * `include`), so that nothing is read from disk.
 */
export function compileText(
  text: string,
  file = 'policy.dshpolicy',
  extra: Record<string, string> = {},
  opts: { importer?: Importer } = {},
): CompileResult {
  const files = new Map<string, string>();
  for (const [path, content] of Object.entries(extra)) files.set(normalizePath(path), content);
  files.set(normalizePath(file), text);
  const host: SourceHost = { readFile: (path) => files.get(normalizePath(path)) };
  if (opts.importer) host.importer = opts.importer;
  return compileSources([file], host);
}
export { formatPolicy, astShape, FORMAT_WIDTH, type FormatResult } from './format.js';
export { printRules, printRule, printExpr, printTestCase, commentLine, type PrintOptions, type PrintedRules } from './print-ir.js';
export { printHooks, printRunRule, quoteString, type PrintedHooks, type UnprintedRule } from './print-hooks.js';
