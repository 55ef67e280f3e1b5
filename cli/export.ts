/**
 * `dshpolicy export gemini --policy <file>...`: a policy's pre-tool rules as a Gemini CLI policy
 * file (TOML), with every rule Gemini cannot say reported at the rule.
 */
import { parseArgs } from 'node:util';
import { AGENTS, agentNamed, agentNameList, agentsWith } from '../bridges/index.js';
import { enforcedRules, type Diagnostic } from '../engine/index.js';
import { format, guard, UsageError, type Io } from './args.js';
import { FAILED, OK } from './exit-codes.js';
import { loadPolicies } from './policy.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize } from './render.js';

export const EXPORT_HELP = `usage: dshpolicy export gemini --policy <file>... [--lossy] [--format human|json]

Prints the policy's pre-tool deny/ask/allow rules, and its self-protection, as a Gemini CLI policy
file (TOML [[rule]] tables: deny at priority 300, ask_user at 200, allow at 100, so the strictest
decision wins as it does here). The file is never less restrictive than the policy: an allow that
a deny or ask Gemini cannot say could carve into is left out or narrowed (reported at the rule),
what such a deny or ask covers gets a catch-all ask_user, and a deny Gemini cannot say is an
error (export/widens), since Gemini would ask where the policy denies.
  --lossy   export anyway, with each such deny a warning
Diagnostics go to stderr; with --format json, stdout is one JSON object
({"ok", "agent", "toml", "diagnostics"}). Exits 0 when the export holds, 1 otherwise.`;

export function exportCommand(argv: string[], io: Io): number {
  const { values, positionals } = guard(() =>
    parseArgs({
      args: argv,
      options: { policy: { type: 'string', multiple: true }, lossy: { type: 'boolean' }, format: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }),
  );
  if (values.help) {
    io.stdout.write(`${EXPORT_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const [agent, ...extra] = positionals;
  const exporters = agentsWith('export');
  if (agent === undefined) throw new UsageError(`name the agent to export to: ${agentNameList(exporters)}`);
  const target = agentNamed(agent)?.export;
  if (!target) {
    const hooked = AGENTS.filter((a) => !a.export && a.protocol).map((a) => a.title);
    const why = hooked.length > 0 ? ` (${hooked.join(' and ')} run dshpolicy as their hook: see \`dshpolicy install\`)` : '';
    throw new UsageError(`cannot export to \`${agent}\`; use ${agentNameList(exporters)}${why}`);
  }
  if (extra.length > 0) throw new UsageError(`export takes one agent, but \`${extra[0]}\` follows \`${agent}\``);
  const files = values.policy ?? [];
  if (files.length === 0) throw new UsageError('name the policy with `--policy <file>`');

  const loaded = loadPolicies(files);
  const diagnostics: Diagnostic[] = [...loaded.diagnostics];
  const exported = loaded.ir ? target.policy(enforcedRules(loaded.ir), { lossy: values.lossy === true }) : undefined;
  if (exported) diagnostics.push(...exported.diagnostics);
  const ok = exported !== undefined && !diagnostics.some((d) => d.severity === 'error');
  if (fmt === 'json') {
    io.stdout.write(`${JSON.stringify({ ok, agent, toml: ok ? exported!.text : null, diagnostics })}\n`);
    return ok ? OK : FAILED;
  }
  const style = io.stderr === process.stderr ? styleFor(process.stderr) : PLAIN;
  const sources = new SourceCache();
  for (const d of diagnostics) io.stderr.write(`${renderDiagnostic(d, sources, style)}\n\n`);
  if (diagnostics.length > 0) io.stderr.write(`${ok ? style.yellow('exported') : style.red('failed')}: ${summarize(diagnostics) || 'notes only'}\n`);
  // a file that would widen is not printed: a pipe into gemini cli's policy folder must not get it
  if (exported && ok) io.stdout.write(exported.text);
  return ok ? OK : FAILED;
}
