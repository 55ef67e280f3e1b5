/**
 * Comparing the diagnostics a case wants with those it got: each wanted one must be matched by a
 * different real one, comparing only the fields the case names; none may be left over.
 */
import { expect } from 'vitest';
import type { Diagnostic } from '../engine/index.js';

export interface WantedDiagnostic {
  code: string;
  /** `line:col` of the span start. */
  at?: string;
  /** The file of the span. */
  file?: string;
  /** The JSON pointer. */
  pointer?: string;
  /** A substring of the message. */
  message?: string;
}

function at(d: Diagnostic): string | undefined {
  return d.span ? `${d.span.start.line}:${d.span.start.column}` : undefined;
}

/** Whether `d` is what `w` asks for, on the fields `w` names. */
function satisfies(d: Diagnostic, w: WantedDiagnostic): boolean {
  if (d.code !== w.code) return false;
  if (w.at !== undefined && at(d) !== w.at) return false;
  if (w.file !== undefined && d.span?.file !== w.file) return false;
  if (w.pointer !== undefined && d.pointer !== w.pointer) return false;
  if (w.message !== undefined && !d.message.includes(w.message)) return false;
  return true;
}

export function expectDiagnostics(got: Diagnostic[], want: WantedDiagnostic[], what: string): void {
  const remaining = [...got];
  const missing: WantedDiagnostic[] = [];
  for (const w of want) {
    const i = remaining.findIndex((d) => satisfies(d, w));
    if (i >= 0) remaining.splice(i, 1);
    else missing.push(w);
  }
  const unexpected = remaining.map((d) => ({ code: d.code, at: at(d), pointer: d.pointer, message: d.message }));
  expect({ missing, unexpected }, `${what} differ`).toEqual({ missing: [], unexpected: [] });
}
