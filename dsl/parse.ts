/**
 * Text -> AST: the grammar's parse, then the CST visitor. Always returns an AST (partial when the
 * text has errors) and every syntax diagnostic; never throws on any input. A file without syntax
 * errors is read by the fast path (parse-fast.ts), which gives the same AST.
 */
import { diagnostic, type Diagnostic } from '../engine/index.js';
import { capDiagnostics, parse, SourceText } from '../grammar/index.js';
import type { PolicyFile } from './ast.js';
import { AstBuilder } from './cst-to-ast.js';
import { parseFast } from './parse-fast.js';

export interface ParsedPolicy {
  ast: PolicyFile;
  diagnostics: Diagnostic[];
}

export function parsePolicy(text: string, file: string): ParsedPolicy {
  const fast = parseFast(text, file);
  return fast ? { ast: fast, diagnostics: [] } : parseWithParser(text, file);
}

/** `parsePolicy` without the fast path: the grammar's parser and the CST visitor. */
export function parseWithParser(text: string, file: string): ParsedPolicy {
  try {
    const builder = new AstBuilder(new SourceText(text, file));
    const parsed = parse(text, file, { onItem: (item) => builder.add(item) });
    const { ast, diagnostics } = builder.finish();
    return { ast, diagnostics: capDiagnostics([...parsed.diagnostics, ...diagnostics]) };
  } catch (e) {
    const what = e instanceof Error ? e.message : String(e);
    const start = { line: 1, column: 1, offset: 0 };
    return {
      ast: { kind: 'file', file, items: [], span: { file, start, end: start } },
      diagnostics: [
        diagnostic('parse/internal', 'error', `the parser failed: ${(what.split('\n')[0] ?? '').slice(0, 200)}`.toLowerCase(), {
          span: { file, start, end: start },
          help: 'this is a bug in dshpolicy; please report it with the file that caused it',
        }),
      ],
    };
  }
}
