/**
 * `dshpolicy import --report` as text: the report (bridges/import-report.ts) rendered per event,
 * group and handler, with every piece of the file's own text made safe for a terminal.
 */
import { dialectTitle } from '../engine/index.js';
import type { ImportReport } from '../bridges/index.js';
import { terminalSafe } from './untrusted.js';

/**
 * The report as text. Event names, pointers, matchers, commands and messages come from the hooks
 * file, so they are escaped (untrusted.ts).
 */
export function renderReport(r: ImportReport): string {
  const safe = terminalSafe;
  const out = [`${safe(r.file)} (${r.agent} hooks)`];
  if (r.disabled) out.push('all hooks are disabled in this file: none of them runs');
  if (r.events.length === 0) out.push('no hooks');
  for (const ev of r.events) {
    out.push('');
    const event = safe(ev.event);
    if (ev.seam) out.push(`${event} -> on ${ev.seam}${ev.evaluated ? '' : ' (disabled)'}`);
    else if (ev.agentEvent) out.push(`${event} -> on ${event} (an agent event without a seam: its hooks run with ${dialectTitle(r.agent)}'s semantics)${ev.evaluated ? '' : ' (disabled)'}`);
    else out.push(`${event}: not evaluated [${ev.code}]: the agent does not run hooks on it`);
    for (const g of ev.groups) {
      out.push(`  group ${safe(g.pointer)}${g.matcher !== undefined ? ` matcher "${safe(g.matcher)}"` : ''}`);
      for (const h of g.handlers) {
        const what = `${safe(h.type)} "${safe(h.what)}"`;
        let line: string;
        if (!ev.evaluated) line = `not run`;
        else if (h.status === 'rule') line = 'run rule';
        else line = 'not run';
        out.push(`    ${safe(h.pointer)} ${what}: ${line}`);
        for (const d of h.diagnostics) out.push(`      ${d.severity}[${d.code}]: ${safe(d.message)}`);
        if (h.unprintable) out.push(`      printed as a comment by \`--to dshpolicy\`: ${safe(h.unprintable)}`);
      }
    }
    if (ev.output && ev.evaluated) {
      out.push(`  answer fields honoured: ${ev.output.honoured.join('; ')}`);
      out.push(`  honoured by the agent but not by dshpolicy: ${ev.output.gaps.length > 0 ? ev.output.gaps.join('; ') : 'none'}`);
      if (ev.output.rejected.length > 0) out.push(`  rejected by the agent, and so here: ${ev.output.rejected.join('; ')}`);
    }
  }
  return `${out.join('\n')}\n`;
}
