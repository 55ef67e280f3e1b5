/**
 * The coverage table of `dshpolicy test --coverage`, for people: one row per rule of the report
 * (computeCoverage in engine/testing computes it), coloured by whether the rule was hit and
 * decided, and a summary line. Rule ids and explanations are escaped for the terminal.
 */
import type { CoverageReport } from '../engine/index.js';
import type { Style } from './render.js';
import { terminalSafe } from './untrusted.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function pad(s: string, w: number): string {
  return s + ' '.repeat(Math.max(0, w - s.length));
}

/** The coverage table and its summary line, for people. */
export function renderCoverage(report: CoverageReport, style: Style): string {
  const header = ['rule', 'seam', 'effect', 'hits', 'decided', 'outranked', 'why not decided'];
  // Rule ids name the policy's files, and the reasons quote its tools and notes: escaped before the widths are measured.
  const rows = report.rows.map((r) => [terminalSafe(r.rule), r.seam, r.effect, String(r.hits), String(r.decided), String(r.outranked), terminalSafe(r.why ?? '')]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const lines = [
    style.bold(header.map((h, i) => pad(h, widths[i]!)).join('  ').trimEnd()),
    style.dim(widths.map((w) => '─'.repeat(w)).join('  ')),
  ];
  for (const [i, row] of rows.entries()) {
    const line = row.map((c, j) => pad(c, widths[j]!)).join('  ').trimEnd();
    const r = report.rows[i]!;
    lines.push(r.hits === 0 ? style.red(line) : r.decided === 0 ? style.yellow(line) : line);
  }
  const pct = Math.round(report.share * 100);
  lines.push(
    '',
    `coverage: ${report.hit} of ${plural(report.rules, 'rule')} hit (${pct}%), ${report.decided} decided at least once`,
  );
  return `${lines.join('\n')}\n`;
}

