/**
 * The one diagnostic shape used by every layer: the DSL checks, the IR validator, the bridges and
 * the CLI (the grammar, which may import nothing, declares the same shape in grammar/errors.ts).
 * User errors are returned as diagnostics, never thrown. Positions come from line-index.ts.
 */

export type Severity = 'error' | 'warning' | 'info';

/** A position in a source text. `line` and `column` are 1-based; `offset` is a 0-based UTF-16 index. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/** A half-open range `[start, end)` in one file. */
export interface Span {
  file: string;
  start: Position;
  end: Position;
}

export interface Diagnostic {
  /** `phase/kebab-name`, e.g. `parse/unexpected-token`, `check/unknown-field`, `ir/schema`. */
  code: string;
  severity: Severity;
  /** Lowercase, no trailing period, user input in backticks. */
  message: string;
  span?: Span;
  /** A JSON pointer into a JSON document (IR, hooks.json, a fixture line) when there is no source span. */
  pointer?: string;
  /** How to fix it, as a separate sentence. */
  help?: string;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Builds a diagnostic, dropping undefined optional members so JSON output stays tidy. */
export function diagnostic(
  code: string,
  severity: Severity,
  message: string,
  extra: { span?: Span | undefined; pointer?: string | undefined; help?: string | undefined } = {},
): Diagnostic {
  const d: Diagnostic = { code, severity, message };
  if (extra.span) d.span = extra.span;
  if (extra.pointer !== undefined) d.pointer = extra.pointer;
  if (extra.help) d.help = extra.help;
  return d;
}

/** Orders diagnostics by file, then position, then code: stable output whatever order checks ran in. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort((a, b) => {
    const fa = a.span?.file ?? '';
    const fb = b.span?.file ?? '';
    if (fa !== fb) return fa < fb ? -1 : 1;
    const oa = a.span?.start.offset ?? -1;
    const ob = b.span?.start.offset ?? -1;
    if (oa !== ob) return oa - ob;
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
  });
}

/** `a`, `a or b`, `a, b or c`: a list of alternatives (or, with `word`, of things together) for a message. */
export function alternatives(items: readonly string[], word = 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${word} ${items[items.length - 1]}`;
}
