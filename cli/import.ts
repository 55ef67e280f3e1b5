/**
 * `dshpolicy import claude|codex <file> [--to dshpolicy|ir] [--report]`: reads an agent's hooks
 * configuration as the agent reads it and prints its command hooks as `.dshpolicy` text, as IR, or
 * a report of what is honoured. Exit 0 when the file loads without errors, 1 otherwise (what did
 * load is printed all the same).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { diagnostic, IR_VERSION, type Diagnostic, type PolicyIR } from '../engine/index.js';
import { compileHooks, loadHooksText, type Agent, type PermissionImportOptions } from '../bridges/index.js';
import { alternatives, format, guard, UsageError, type Io } from './args.js';
import { FAILED, OK } from './exit-codes.js';
import { importPermissionFile } from './import-permissions.js';
import { buildReport } from '../bridges/index.js';
import { renderReport } from './import-report.js';
import { printHooks } from '../dsl/index.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, summarize } from './render.js';

export const IMPORT_HELP = `usage: dshpolicy import claude|codex [hooks] <file> [--to dshpolicy|ir] [--report] [--format human|json]
       dshpolicy import claude permissions <file> [--project-dir <dir>] [--home <dir>] [--to dshpolicy|ir]
       dshpolicy import codex rules <file> [--to dshpolicy|ir]
       dshpolicy import gemini policy <file> [--to dshpolicy|ir]

Reads a hooks configuration (Claude Code: settings.json, a plugin's hooks.json or plugin.json;
Codex: hooks.json or config.toml) as its agent reads it and prints its command hooks:
  --to dshpolicy   as \`run\` rules of a .dshpolicy file (the default), each under a comment
                   naming its handler; a hook the language cannot say yet is printed as a comment
  --to ir          as the IR (JSON) of those rules
  --report         instead, per event: which handlers became rules, which did not and why, and
                   which fields of a hook's answer are honoured
Or reads another agent's permission language and prints it as deny/ask/allow rules (Codex's
examples as a test block): Claude Code's permissions.allow/ask/deny (paths anchored at the project
directory, by default the one holding .claude/), Codex rules files, Gemini CLI policy files. Where
the rules cannot mean exactly what the agent does, a warning at the entry says how they differ.
Diagnostics go to stderr; with --format json, stdout is one JSON object
({"ok", "file", "agent", "diagnostics", and "dshpolicy", "ir" or "report"}).
Exits 0 when the file loads without errors, 1 otherwise.`;

const ALL_AGENTS: readonly string[] = ['claude', 'codex', 'gemini'];
/** What each agent has to import; the first is the default when none is named. */
const KINDS: Record<string, readonly string[]> = { claude: ['hooks', 'permissions'], codex: ['hooks', 'rules'], gemini: ['policy'] };
const TARGETS = ['dshpolicy', 'ir'] as const;

export function importCommand(argv: string[], io: Io): number {
  const { values, positionals } = guard(() =>
    parseArgs({
      args: argv,
      options: {
        to: { type: 'string' },
        report: { type: 'boolean' },
        format: { type: 'string' },
        'project-dir': { type: 'string' },
        home: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    }),
  );
  if (values.help) {
    io.stdout.write(`${IMPORT_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const [agentWord, ...rest] = positionals;
  if (agentWord === undefined) throw new UsageError('name the agent: `claude`, `codex` or `gemini`');
  if (!ALL_AGENTS.includes(agentWord)) throw new UsageError(`unknown agent \`${agentWord}\`; use \`claude\`, \`codex\` or \`gemini\``);
  const kinds = KINDS[agentWord]!;
  const what = rest.length >= 2 ? rest[0]! : kinds[0]!;
  if (!kinds.includes(what)) throw new UsageError(`\`${agentWord}\` has no \`${what}\` to import; use ${alternatives(kinds.map((k) => `\`${k}\``))}`);
  const [file, ...extra] = rest.length >= 2 ? rest.slice(1) : rest;
  if (file === undefined) throw new UsageError(`name the ${agentWord} ${what} file to import`);
  if (extra.length > 0) throw new UsageError(`import takes one file, but \`${extra[0]}\` follows \`${file}\``);
  const to = values.to ?? 'dshpolicy';
  if (!(TARGETS as readonly string[]).includes(to)) throw new UsageError(`unknown target \`${to}\`; use \`dshpolicy\` or \`ir\``);
  if (values.report && values.to !== undefined) throw new UsageError('`--report` prints a report instead of the rules; leave out `--to`');
  if (what !== 'hooks') {
    if (values.report) throw new UsageError('`--report` is for hooks files; a permission import reports its differences as diagnostics');
    if ((values['project-dir'] !== undefined || values.home !== undefined) && what !== 'permissions') throw new UsageError('`--project-dir` and `--home` are for `claude permissions`');
    const options: PermissionImportOptions = {};
    if (values['project-dir'] !== undefined) options.baseDir = resolve(values['project-dir']);
    if (values.home !== undefined) options.home = resolve(values.home);
    return importPermissionFile({ agent: agentWord, what, file, to: to as 'dshpolicy' | 'ir', json: fmt === 'json', options }, io);
  }
  if (values['project-dir'] !== undefined || values.home !== undefined) throw new UsageError('`--project-dir` and `--home` are for `claude permissions`');
  const agent = agentWord as Agent;

  const diagnostics: Diagnostic[] = [];
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = err instanceof Error && 'code' in err ? String((err as NodeJS.ErrnoException).code) : 'unreadable';
    diagnostics.push(diagnostic('import/unreadable', 'error', `cannot read \`${file}\` (${why})`, { help: 'check the path' }));
  }
  const config = text === undefined ? undefined : loadHooksText(agent, text, file);
  const compiled = config ? compileHooks(config) : { rules: [], diagnostics: [] };
  if (config) diagnostics.push(...config.diagnostics, ...compiled.diagnostics);
  const ok = !diagnostics.some((d) => d.severity === 'error');

  const printed = printHooks(compiled.rules, [`${agent} hooks imported from ${file}`]);
  const ir: PolicyIR = { version: IR_VERSION, sources: config?.files ?? [file], rules: compiled.rules, tests: [] };
  const report = config ? buildReport(file, config, compiled.rules, diagnostics, printed.unprinted) : undefined;

  if (fmt === 'json') {
    const out: Record<string, unknown> = { ok, file, agent, diagnostics };
    if (values.report) out['report'] = report ?? null;
    else if (to === 'ir') out['ir'] = ir;
    else out['dshpolicy'] = printed.text;
    io.stdout.write(`${JSON.stringify(out)}\n`);
    return ok ? OK : FAILED;
  }
  const style = io.stderr === process.stderr ? styleFor(process.stderr) : PLAIN;
  const sources = new SourceCache();
  if (text !== undefined) sources.set(file, text);
  for (const d of diagnostics) io.stderr.write(`${renderDiagnostic(d, sources, style)}\n\n`);
  if (diagnostics.length > 0) io.stderr.write(`${ok ? style.yellow('imported') : style.red('failed')}: ${summarize(diagnostics) || 'notes only'}\n`);
  if (values.report) {
    if (report) io.stdout.write(renderReport(report));
  } else if (to === 'ir') {
    io.stdout.write(`${JSON.stringify(ir, null, 2)}\n`);
  } else {
    io.stdout.write(printed.text);
  }
  return ok ? OK : FAILED;
}
