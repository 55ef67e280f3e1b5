/**
 * Text -> AST: the grammar's parse, with the CST visitor (cst-to-ast.ts) building the AST as the
 * parse hands over each rule and item, so that a large file never has its whole tree in memory.
 * Always returns an AST (partial when the text has errors) and every syntax diagnostic; never
 * throws on any input.
 */
import { diagnostic, type Diagnostic } from '../engine/index.js';
import { capDiagnostics, parse, SourceText } from '../grammar/index.js';
import type { PolicyFile } from './ast.js';
import { AstBuilder } from './cst-to-ast.js';

export interface ParsedPolicy {
  ast: PolicyFile;
  diagnostics: Diagnostic[];
}

export function parsePolicy(text: string, file: string): ParsedPolicy {
  try {
    const builder = new AstBuilder(new SourceText(text, file));
    const parsed = parse(text, file, { onItem: (item) => builder.add(item), onRule: (rule) => builder.addRule(rule) });
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
