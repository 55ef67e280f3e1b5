/**
 * What every check gets: the file being checked (its text, for spans inside literals, and its
 * names) and a place to report diagnostics. Also the validators of regexes and globs, which place
 * their errors at the offending character when the source allows it.
 */
import {
  diagnostic,
  LineIndex,
  type Diagnostic,
  type GlobKind,
  type Severity,
  type Span,
} from '../engine/index.js';
import type { RegexLit, StringLit, ToolPattern, ValueNode } from './ast.js';
import { commandPatternProblem, globProblem } from './memo.js';
import { regexProblem } from './regex-valid.js';
import { deref, type ScopedFile } from './scope.js';

export interface CheckContext {
  readonly file: ScopedFile;
  report(d: Diagnostic): void;
}

export function makeContext(file: ScopedFile, out: Diagnostic[]): CheckContext {
  return { file, report: (d) => out.push(d) };
}

export function report(
  ctx: CheckContext,
  code: string,
  severity: Severity,
  message: string,
  span: Span | undefined,
  help?: string,
): void {
  ctx.report(diagnostic(code, severity, message, { span, help }));
}

export function error(ctx: CheckContext, code: string, message: string, span: Span | undefined, help?: string): void {
  report(ctx, code, 'error', message, span, help);
}

export function warning(ctx: CheckContext, code: string, message: string, span: Span | undefined, help?: string): void {
  report(ctx, code, 'warning', message, span, help);
}

export function resolve(ctx: CheckContext, node: ValueNode): ValueNode | null {
  return deref(node, ctx.file.scope);
}

/** The span from `from`'s start to `to`'s end. */
export function joinSpans(from: Span, to: Span): Span {
  return { file: from.file, start: from.start, end: to.end };
}

/** A span of `length` characters at `offset` in the file being checked. */
function spanAt(ctx: CheckContext, file: string, offset: number, length: number): Span {
  return new LineIndex(ctx.file.text).span(file, offset, offset + length);
}

/**
 * The span of the character at `offset` inside a string literal, when the literal's text in the
 * file is its value between two quotes (no escapes); otherwise the whole literal.
 */
export function spanInString(ctx: CheckContext, node: StringLit | ToolPattern, offset: number): Span {
  const { start, end, file } = node.span;
  if (file !== ctx.file.file) return node.span;
  const raw = ctx.file.text.slice(start.offset, end.offset);
  const value = node.kind === 'string' ? node.value : node.name;
  let inner: number;
  if (node.kind === 'tool' && raw === value) inner = start.offset;
  else if (raw.length === value.length + 2 && raw.slice(1, -1) === value) inner = start.offset + 1;
  else return node.span;
  const at = Math.max(0, Math.min(offset, value.length));
  // Past the end of a string's value, point at its closing quote.
  const length = at < value.length || node.kind === 'string' ? 1 : 0;
  return spanAt(ctx, file, inner + at, length);
}

/** The span of the character at `offset` in a regex literal's pattern. */
export function spanInRegex(ctx: CheckContext, node: RegexLit, offset: number): Span {
  if (node.span.file !== ctx.file.file) return node.span;
  const at = Math.max(0, Math.min(offset, node.source.length));
  // The pattern had each `\/` turned into `/`: walk the written text to map the offset back.
  const written = ctx.file.text;
  let start = node.sourceOffset;
  let i = 0;
  while (i < at && start < node.span.end.offset) {
    if (written[start] === '\\' && written[start + 1] === '/') {
      start += 2;
      i += 1;
    } else if (written[start] === '\\') {
      // Any other escape is kept as two characters; stop inside it if the offset does.
      start += at - i >= 2 ? 2 : 1;
      i += 2;
    } else {
      start += 1;
      i += 1;
    }
  }
  // Past the end of the pattern, point at the closing slash.
  const end = Math.min(start + 1, node.span.end.offset);
  return spanAt(ctx, node.span.file, start, Math.max(0, end - start));
}

// ---------------------------------------------------------------- validators

const REGEX_FLAGS = 'ims';

export function validateRegex(ctx: CheckContext, node: RegexLit): boolean {
  for (let i = 0; i < node.flags.length; i++) {
    const flag = node.flags[i]!;
    if (!REGEX_FLAGS.includes(flag) || node.flags.indexOf(flag) !== i) {
      const flagsStart = node.span.end.offset - node.flags.length;
      const span =
        node.span.file === ctx.file.file && flagsStart >= node.sourceOffset
          ? spanAt(ctx, node.span.file, flagsStart + i, 1)
          : node.span;
      const what = REGEX_FLAGS.includes(flag) ? `repeated regex flag \`${flag}\`` : `unknown regex flag \`${flag}\``;
      error(ctx, 'check/invalid-regex', what, span, 'regex flags are `i` (ignore case), `m` (multi-line) and `s` (dot matches newline)');
      return false;
    }
  }
  const problem = regexProblem(node.source, node.flags);
  if (!problem) return true;
  error(ctx, 'check/invalid-regex', problem.message, spanInRegex(ctx, node, problem.offset), 'regexes use RE2 syntax');
  return false;
}

export function validateGlob(ctx: CheckContext, node: StringLit, kind: GlobKind): boolean {
  const problem = globProblem(node.value, kind);
  if (!problem) return true;
  error(ctx, 'check/invalid-glob', problem.message, spanInString(ctx, node, problem.offset));
  return false;
}

export function validateToolGlob(ctx: CheckContext, node: ToolPattern): boolean {
  const problem = globProblem(node.name, 'tool');
  if (!problem) return true;
  error(ctx, 'check/invalid-glob', problem.message, spanInString(ctx, node, problem.offset));
  return false;
}

export function validateCommandPattern(ctx: CheckContext, node: StringLit): boolean {
  const problem = commandPatternProblem(node.value);
  if (!problem) return true;
  error(ctx, 'check/invalid-command-pattern', problem.message, spanInString(ctx, node, problem.offset));
  return false;
}
