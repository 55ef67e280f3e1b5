/**
 * Rendering diagnostics for people (a code frame per diagnostic) and for machines (JSON).
 */
import { readFileSync } from 'node:fs';
import { LineIndex, type Diagnostic } from '../engine/index.js';
import { escapedLength, terminalSafe } from './untrusted.js';

export interface Style {
  bold(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  dim(s: string): string;
  green(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
export const COLOR: Style = {
  bold: wrap(1, 22),
  red: wrap(31, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
  dim: wrap(2, 22),
  green: wrap(32, 39),
};
const id = (s: string) => s;
export const PLAIN: Style = { bold: id, red: id, yellow: id, cyan: id, dim: id, green: id };

export function styleFor(stream: NodeJS.WriteStream): Style {
  return stream.isTTY && !process.env['NO_COLOR'] ? COLOR : PLAIN;
}

/** Source texts by file name, read once and indexed by line when first shown; the CLI seeds it with what it already read. */
export class SourceCache {
  private readonly texts = new Map<string, string | LineIndex | null>();

  set(file: string, text: string): void {
    this.texts.set(file, text);
  }

  /** The lines of `file`; undefined when it cannot be read. */
  lines(file: string): LineIndex | undefined {
    let known = this.texts.get(file);
    if (known === undefined) {
      try {
        known = readFileSync(file, 'utf8');
      } catch {
        known = null;
      }
    }
    if (typeof known === 'string') known = new LineIndex(known);
    this.texts.set(file, known);
    return known ?? undefined;
  }
}

const MAX_FRAME_LINE = 160;

function clip(line: string, col: number): { text: string; col: number } {
  if (line.length <= MAX_FRAME_LINE) return { text: line, col };
  const start = Math.max(0, Math.min(col - 40, line.length - MAX_FRAME_LINE));
  return { text: `…${line.slice(start, start + MAX_FRAME_LINE)}…`, col: col - start + 1 };
}

/**
 * One diagnostic as a code frame: header, location, the source line with a caret, help. What it
 * quotes of policy files, fixture lines and hook output is escaped (untrusted.ts): the message,
 * help and file as one-line values (a line break in them could forge a frame line), the source
 * line as a line of its file.
 */
export function renderDiagnostic(d: Diagnostic, sources: SourceCache, style: Style): string {
  const sev = d.severity === 'error' ? style.red(style.bold('error')) : d.severity === 'warning' ? style.yellow(style.bold('warning')) : style.cyan('info');
  const out = [`${sev}${style.dim(`[${d.code}]`)}: ${style.bold(terminalSafe(d.message))}`];
  if (d.span) {
    const { file, start, end } = d.span;
    out.push(`  ${style.cyan('-->')} ${terminalSafe(file)}:${start.line}:${start.column}`);
    const raw = sources.lines(file)?.lineText(start.line);
    if (raw !== undefined) {
      // A tab is one column wide here, so the caret stays under what it points at.
      const line = raw.replace(/\r$/, '').replace(/\t/g, ' ');
      const gutter = String(start.line);
      const pad = ' '.repeat(gutter.length);
      const { text: clipped, col } = clip(line, start.column);
      const width = end.line === start.line ? Math.max(1, end.column - start.column) : Math.max(1, line.length - start.column + 1);
      // The caret is placed on the escaped line: an escape is wider than the character it stands for.
      const from = Math.min(col - 1, clipped.length);
      const before = escapedLength(clipped, from, 'block') + Math.max(0, col - 1 - from);
      const upTo = escapedLength(clipped, Math.min(clipped.length, col - 1 + width), 'block');
      const caret = ' '.repeat(Math.max(0, before)) + '^'.repeat(Math.max(1, upTo - before));
      out.push(`${pad} ${style.cyan('|')}`);
      out.push(`${style.cyan(gutter)} ${style.cyan('|')} ${terminalSafe(clipped, 'block')}`);
      out.push(`${pad} ${style.cyan('|')} ${d.severity === 'error' ? style.red(caret) : style.yellow(caret)}`);
    }
  } else if (d.pointer !== undefined) {
    out.push(`  ${style.cyan('-->')} ${terminalSafe(d.pointer || '/')}`);
  }
  if (d.help) out.push(`  ${style.cyan('=')} ${style.bold('help')}: ${terminalSafe(d.help)}`);
  return out.join('\n');
}

export function summarize(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  const parts: string[] = [];
  if (errors) parts.push(`${errors} error${errors === 1 ? '' : 's'}`);
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  return parts.join(', ');
}
