/**
 * A policy's `pre-tool` rules as a Gemini CLI policy file that is never less restrictive than the
 * policy. Most restrictive wins becomes priority: every `deny` at 300, every `ask` (`ask_user`) at
 * 200, every `allow` at 100, so the first rule Gemini CLI finds is one of the most restrictive
 * that match.
 *
 * Said: tools (by the names of tools.ts; `mcp__<server>__<tool>` as `mcpName` and `toolName`), a
 * `command` selector of plain words ending in `*` (`commandPrefix`) or without it (a
 * `commandRegex` for that exact command), `when` conditions made of `and`/`or` over `tool ==`,
 * `tool in`, `permission_mode ==`/`in` (as `modes`), `command ==`, `command startswith`,
 * `command contains` and `input.<key> ==` a string or boolean (as `argsPattern`), `because` on a
 * `deny` (`denyMessage`), and, for a `deny` or `ask` of the file tools, a `path` selector as the
 * paths that contain a piece of text every matching path has (`.env` for any `.env` file), which is wider.
 *
 * Never wider (export-safety.ts): a deny or ask Gemini CLI cannot say, or says for fewer tools, leaves
 * those tools to a catch-all `ask_user` at priority 1 and is reported as widening (an error unless
 * `lossy`), and every allow it could carve into is left out or narrowed; a shell allow is kept only
 * where dshpolicy's deeper reading of commands (wrappers, reads, writes, expansions) cannot deny
 * what Gemini CLI's prefix would allow.
 */
import { CLAUDE_CODE_TOOLS, CODEX_TOOLS, diagnostic, type Diagnostic, type Expr, type Rule, type Selector } from '../../engine/index.js';
import { carve, FILE_PATH_TOOLS, JSON_STRING_TEXT, pathArgsPatterns, patternAsWritten, type Exported, type Table } from './export-safety.js';
import { isSafeForGemini } from './jsregex.js';
import { escapeForGemini } from './read.js';
import { DSH_TO_GEMINI, GEMINI_SHELL_TOOL } from './tools.js';
import { COMPOUND, COMPOUND_OR_REDIRECT, isPlainPrefix, MODE_TO_PERMISSION, REDIRECT } from './translate.js';

export const EXPORT_PRIORITY = { deny: 300, ask: 200, allow: 100 } as const;
const DECISION = { deny: 'deny', ask: 'ask_user', allow: 'allow' } as const;
const PERMISSION_TO_MODE: Record<string, string> = Object.fromEntries(Object.entries(MODE_TO_PERMISSION).map(([g, p]) => [p, g]));

class Unsayable extends Error {}

/** One alternative of a condition: what a single Gemini CLI rule can test. */
interface Clause {
  tools?: string[];
  modes?: string[];
  /** One regex over the arguments, as `commandPrefix`, `commandRegex` or `argsPattern`. */
  args?: { kind: 'prefix'; prefixes: string[] } | { kind: 'regex'; source: string; words?: string[][] } | { kind: 'pattern'; source: string } | { kind: 'patterns'; sources: string[] };
}

const jsonBody = (s: string) => escapeForGemini(JSON.stringify(s).slice(1, -1));

/** The arguments pattern gemini cli builds for a `commandPrefix` (policy/utils.ts `buildArgsPatterns`). */
const prefixPattern = (p: string) => `"command":"${jsonBody(p)}(?:[\\s"]|\\\\")`;

function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new Unsayable('a tool or mode compared with something other than strings');
}

function meet(a: Clause, b: Clause): Clause {
  const out: Clause = {};
  const tools = a.tools && b.tools ? a.tools.filter((t) => b.tools!.includes(t)) : (a.tools ?? b.tools);
  if (tools) out.tools = tools;
  const modes = a.modes && b.modes ? a.modes.filter((m) => b.modes!.includes(m)) : (a.modes ?? b.modes);
  if (modes) out.modes = modes;
  if (a.args && b.args) throw new Unsayable('two tests of the arguments in one rule, where gemini cli has one');
  const args = a.args ?? b.args;
  if (args) out.args = args;
  return out;
}

/** The guards the importer puts on an `allow` of the shell tool (translate.ts), which Gemini CLI applies itself. */
const REDIRECT_GUARDS = new Set([REDIRECT, COMPOUND_OR_REDIRECT]);
const COMPOUND_GUARDS = new Set([COMPOUND]);

/** The condition without those guards, and whether it had a redirection guard. */
function withoutGuards(e: Expr | undefined): { rest?: Expr; redirect: boolean } {
  if (e === undefined) return { redirect: false };
  const parts = e.op === 'and' ? e.args : [e];
  let redirect = false;
  const rest = parts.filter((p) => {
    if (p.op !== 'not' || p.arg.op !== 'compare' || p.arg.cmp !== 'matches' || p.arg.field.name !== 'command') return true;
    const v = p.arg.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v) || v.flags !== '') return true;
    if (REDIRECT_GUARDS.has(v.regex)) redirect = true;
    else if (!COMPOUND_GUARDS.has(v.regex)) return true;
    return false;
  });
  if (rest.length === 0) return { redirect };
  return { rest: rest.length === 1 ? rest[0]! : { op: 'and', args: rest }, redirect };
}

/** A condition as alternatives, each one Gemini CLI rule's worth. */
function clauses(e: Expr): Clause[] {
  switch (e.op) {
    case 'const':
      if (e.value) return [{}];
      return [];
    case 'or':
      return e.args.flatMap(clauses);
    case 'and':
      return e.args.map(clauses).reduce<Clause[]>((acc, cs) => acc.flatMap((a) => cs.map((c) => meet(a, c))), [{}]);
    case 'not':
      throw new Unsayable('`not`, since gemini cli has no negation');
    case 'exists':
    case 'ran':
      throw new Unsayable(`\`${e.op}\``);
    case 'compare':
      return [compare(e)];
  }
}

function compare(e: Extract<Expr, { op: 'compare' }>): Clause {
  const f = e.field;
  const v = e.value;
  if (f.name === 'tool' && (e.cmp === '==' || e.cmp === 'in') && !f.path) return { tools: strings(v) };
  if (f.name === 'permission_mode' && (e.cmp === '==' || e.cmp === 'in')) {
    const modes = strings(v).map((p) => {
      const m = PERMISSION_TO_MODE[p];
      if (!m) throw new Unsayable(`the permission mode \`${p}\`, which has no gemini cli approval mode`);
      return m;
    });
    return { modes };
  }
  if (f.name === 'command' && typeof v === 'string') {
    if (e.cmp === '==') return { args: { kind: 'regex', source: `${jsonBody(v)}"`, words: [v.split(' ')] } };
    if (e.cmp === 'startswith') return { args: { kind: 'regex', source: jsonBody(v) } };
    if (e.cmp === 'contains') return { args: { kind: 'regex', source: `${JSON_STRING_TEXT}${jsonBody(v)}` } };
  }
  if (f.name === 'input' && f.path?.length === 1 && e.cmp === '==' && (typeof v === 'string' || typeof v === 'boolean')) {
    // A string's closing quote, or a boolean's last letter, ends the member's value.
    return { args: { kind: 'pattern', source: `${escapeForGemini(JSON.stringify(f.path[0]))}:${escapeForGemini(JSON.stringify(v))}` } };
  }
  const shown = `${[f.name, ...(f.path ?? [])].join('.')} ${e.cmp}`;
  throw new Unsayable(`the condition \`${shown} ...\``);
}

function toolClause(rule: Rule, problems: string[]): string[] | undefined {
  if (!rule.tools) return undefined;
  const out: string[] = [];
  for (const t of rule.tools) {
    if (t === '*') return undefined;
    const mapped = DSH_TO_GEMINI[t];
    if (mapped) out.push(mapped);
    else if (t.startsWith('mcp__')) out.push(t);
    else if (t.includes('*')) problems.push(`the tool pattern \`${t}\`, which gemini cli cannot say`);
    else if (CLAUDE_CODE_TOOLS.includes(t) || CODEX_TOOLS.includes(t)) problems.push(`the tool \`${t}\`, which gemini cli does not have`);
    else out.push(t);
  }
  return out;
}

/** Gemini CLI tables for one clause: built-in tools in one, each MCP server in its own. */
function tables(c: Clause, effect: 'deny' | 'ask' | 'allow'): Table[] {
  const base: Table = {};
  if (c.modes) base.modes = [...new Set(c.modes)];
  if (c.args?.kind === 'prefix') base.commandPrefix = c.args.prefixes;
  else if (c.args?.kind === 'regex') {
    base.commandRegex = c.args.source;
    if (c.args.words) base.exactWords = c.args.words;
  }
  else if (c.args?.kind === 'pattern') base.argsPattern = c.args.source;
  else if (c.args?.kind === 'patterns') {
    const { sources } = c.args;
    return sources.flatMap((source) => tables({ ...c, args: { kind: 'pattern', source } }, effect));
  }
  if (c.tools === undefined) {
    // A command test of every tool: gemini cli reads `commandPrefix` and `commandRegex` on the
    // shell tool only, so a deny or ask says it as the pattern gemini cli builds from them, for
    // every tool; an allow stays with the shell tool (narrower).
    if (c.args && c.args.kind !== 'pattern' && effect !== 'allow') {
      const { commandPrefix, commandRegex, ...rest } = base;
      const sources = commandPrefix ? commandPrefix.map(prefixPattern) : [`"command":"${commandRegex!}`];
      return sources.map((argsPattern) => ({ ...rest, toolName: '*', argsPattern }));
    }
    return [{ ...base, toolName: c.args && c.args.kind !== 'pattern' ? GEMINI_SHELL_TOOL : '*' }];
  }
  const plain = c.tools.filter((t) => !t.startsWith('mcp__'));
  const out: Table[] = [];
  const unique = [...new Set(plain)];
  if (unique.length > 0) out.push({ ...base, toolName: unique.length === 1 ? unique[0]! : unique });
  const byServer = new Map<string, string[]>();
  for (const t of c.tools.filter((x) => x.startsWith('mcp__'))) {
    const rest = t.slice(5);
    const i = rest.indexOf('__');
    const server = i < 0 ? rest : rest.slice(0, i);
    const tool = i < 0 ? '*' : rest.slice(i + 2);
    if (server.includes('*') && server !== '*') throw new Unsayable(`the tool pattern \`${t}\``);
    byServer.set(server, [...(byServer.get(server) ?? []), tool]);
  }
  for (const [server, tools] of byServer) out.push({ ...base, mcpName: server, toolName: tools.includes('*') ? '*' : tools.length === 1 ? tools[0]! : tools });
  return out;
}

/** A TOML string: a literal string where it can be one, else a basic string. */
function tomlString(s: string): string {
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) throw new Unsayable('a string with a lone surrogate');
  if (!/['\u0000-\u001f\u007f]/.test(s)) return `'${s}'`;
  return JSON.stringify(s).replace(/\u007f/g, '\\u007F');
}

function tomlValue(v: string | string[] | number): string {
  if (typeof v === 'number') return String(v);
  return Array.isArray(v) ? `[${v.map(tomlString).join(', ')}]` : tomlString(v);
}

export interface ExportOptions {
  /** Export even where gemini cli would be less restrictive, with each widening a warning rather than an error. */
  lossy?: boolean;
}

const LEFT_OUT_HELP = 'write the rule with tools, plain command patterns and the conditions gemini cli has, or leave it to dshpolicy';

/** One rule as gemini cli tables, or why it cannot be one. */
function translate(rule: Rule & { effect: 'deny' | 'ask' | 'allow' }, diagnostics: Diagnostic[]): Exported {
  const report = (why: string, help: string): Exported => {
    const d = diagnostic('export/unsupported', 'warning', `rule \`${rule.id}\` is left out: gemini cli cannot say ${why}`, { span: rule.span, help });
    diagnostics.push(d);
    return { rule, effect: rule.effect, tables: [], leftOut: why, leftOutDiagnostic: d, clauseTools: undefined };
  };
  const problems: string[] = [];
  const tools = toolClause(rule, problems);
  if (problems.length > 0 && (tools === undefined || tools.length === 0)) return report(problems.join(' and '), 'name the gemini cli tools it should cover');
  let cs: Clause[];
  let pathOnly = false;
  try {
    const base: Clause = tools ? { tools } : {};
    const selectorClause: Clause = {};
    for (const s of rule.selectors ?? []) {
      if (s.kind === 'path' && rule.effect !== 'allow') {
        if (selectorClause.args) throw new Unsayable('a `path` selector beside another test of the arguments');
        const sources = pathArgsPatterns(s as Extract<Selector, { kind: 'path' }>);
        if (sources === null) throw new Unsayable('a `path` selector with a negated glob');
        if (sources.length === 1) selectorClause.args = { kind: 'pattern', source: sources[0]! };
        else if (sources.length > 1) selectorClause.args = { kind: 'patterns', sources };
        pathOnly = true;
        continue;
      }
      if (s.kind !== 'command') throw new Unsayable(`a \`${s.kind}\` selector`);
      const written = s.patterns.map(patternAsWritten);
      const prefixes = written.filter((p) => p.endsWith(' *') && isPlainPrefix(p.slice(0, -2)));
      const exact = written.filter((p) => isPlainPrefix(p));
      if (prefixes.length + exact.length !== s.patterns.length || (prefixes.length > 0 && exact.length > 0)) {
        throw new Unsayable('a command pattern other than plain words, or plain words with and without a final `*` in one selector');
      }
      if (selectorClause.args) throw new Unsayable('two `command` selectors');
      const asPrefixes = prefixes.map((p) => p.slice(0, -2));
      // dshpolicy finds a pattern's options anywhere among the arguments (`rm -rf *` denies
      // `rm x -rf`), gemini cli reads words in order: a deny or ask with options is exported as
      // the words before its first option, which deny or ask more than the rule, never less.
      const restricts = rule.effect !== 'allow';
      const cut = (words: string[]): string[] => {
        const i = words.findIndex((w, k) => k > 0 && w.startsWith('-'));
        return i < 0 ? words : words.slice(0, i);
      };
      const broadened = restricts && [...asPrefixes, ...exact].some((p) => cut(p.split(' ')).length < p.split(' ').length);
      if (broadened) {
        const wider = [...new Set([...asPrefixes, ...exact].map((p) => cut(p.split(' ')).join(' ')))];
        diagnostics.push(
          diagnostic('export/broadened', 'warning', `rule \`${rule.id}\` names options, which dshpolicy finds in any order and gemini cli only as written: the export ${rule.effect === 'deny' ? 'denies' : 'asks about'} every ${wider.map((w) => `\`${w}\``).join(', ')} command`, {
            span: rule.span,
            help: 'gemini cli cannot say "these options anywhere"; the broader prefix keeps the export from being less restrictive than the policy',
          }),
        );
        selectorClause.args = { kind: 'prefix', prefixes: wider };
      } else {
        selectorClause.args =
          prefixes.length > 0
            ? { kind: 'prefix', prefixes: asPrefixes }
            : { kind: 'regex', source: `(?:${exact.map(jsonBody).join('|')})"`, words: exact.map((p) => p.split(' ')) };
      }
    }
    const guards = withoutGuards(rule.when);
    cs = (guards.rest ? clauses(guards.rest) : [{}]).map((c) => meet(meet(base, selectorClause), c));
  } catch (err) {
    if (!(err instanceof Unsayable)) throw err;
    return report(err.message, LEFT_OUT_HELP);
  }
  // the tools the rule's alternatives cover, before what gemini cli cannot say of them is left out
  const clauseTools = cs.some((c) => c.tools === undefined) ? undefined : [...new Set(cs.flatMap((c) => c.tools!))];
  if (!rule.id.startsWith('(')) for (const p of problems) diagnostics.push(diagnostic('export/unsupported', 'warning', `rule \`${rule.id}\` leaves out ${p}`, { span: rule.span }));
  const out: Table[] = [];
  try {
    for (let c of cs) {
      if (c.tools?.length === 0 || c.modes?.length === 0) continue;
      if (pathOnly) {
        // the paths gemini cli can see are the file tools' own: other tools of the rule are left to the catch-all
        const fileTools = (c.tools ?? FILE_PATH_TOOLS).filter((t) => FILE_PATH_TOOLS.includes(t));
        if (fileTools.length === 0) continue;
        c = { ...c, tools: fileTools };
      }
      const shellOnly = c.tools === undefined || (c.tools.length === 1 && c.tools[0] === GEMINI_SHELL_TOOL);
      if (c.args && (c.args.kind === 'prefix' || c.args.kind === 'regex') && !shellOnly) throw new Unsayable('a command test on tools other than the shell tool');
      if (c.args && (c.args.kind === 'prefix' || c.args.kind === 'regex') && c.tools === undefined && rule.effect === 'allow') {
        diagnostics.push(
          diagnostic('export/narrowed', 'warning', `rule \`${rule.id}\` tests the command of every tool; gemini cli tests \`commandPrefix\` and \`commandRegex\` on \`${GEMINI_SHELL_TOOL}\` only`, {
            span: rule.span,
            help: 'it is exported for the shell tool',
          }),
        );
      }
      for (const t of tables(c, rule.effect)) {
        // gemini cli drops a rule whose pattern it holds unsafe, with no more than a notice
        for (const p of [t.argsPattern, t.commandRegex === undefined ? undefined : `"command":"${t.commandRegex}`, ...(t.commandPrefix ?? []).map(prefixPattern)]) {
          if (p !== undefined && !isSafeForGemini(p)) throw new Unsayable(`the pattern \`${p}\`, which gemini cli refuses as unsafe (too long, or a quantified group that holds a quantifier)`);
        }
        out.push(pathOnly ? { ...t, wide: true } : t);
      }
    }
  } catch (err) {
    if (!(err instanceof Unsayable)) throw err;
    return report(err.message, LEFT_OUT_HELP);
  }
  if (rule.effect === 'ask' && rule.reason !== undefined) {
    diagnostics.push(diagnostic('export/reason-dropped', 'info', `gemini cli shows no reason when it asks, so the reason of \`${rule.id}\` is left out`, { span: rule.span }));
  }
  return { rule, effect: rule.effect, tables: out, clauseTools };
}

function render(t: Table, effect: 'deny' | 'ask' | 'allow', reason: string | undefined, priority: number): string {
  const lines = ['[[rule]]'];
  if (t.toolName !== undefined) lines.push(`toolName = ${tomlValue(t.toolName)}`);
  if (t.mcpName !== undefined) lines.push(`mcpName = ${tomlValue(t.mcpName)}`);
  if (t.commandPrefix) lines.push(`commandPrefix = ${tomlValue(t.commandPrefix.length === 1 ? t.commandPrefix[0]! : t.commandPrefix)}`);
  if (t.commandRegex !== undefined) lines.push(`commandRegex = ${tomlValue(t.commandRegex)}`);
  if (t.argsPattern !== undefined) lines.push(`argsPattern = ${tomlValue(t.argsPattern)}`);
  lines.push(`decision = "${DECISION[t.decision ?? effect]}"`, `priority = ${priority}`);
  if (t.modes) lines.push(`modes = ${tomlValue(t.modes)}`);
  // Gemini CLI asks before a redirected command an `allow` matches, unless the rule lets it.
  if (t.allowRedirection) lines.push('allowRedirection = true');
  if ((t.decision ?? effect) === 'deny' && reason !== undefined) lines.push(`denyMessage = ${tomlValue(reason)}`);
  return lines.join('\n');
}

export function exportGeminiPolicy(rules: readonly Rule[], options: ExportOptions = {}): { text: string; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const items: Exported[] = [];
  for (const rule of rules) {
    if (rule.seam !== 'pre-tool') continue;
    if (rule.effect === 'deny' || rule.effect === 'ask' || rule.effect === 'allow') {
      items.push(translate(rule as Rule & { effect: 'deny' | 'ask' | 'allow' }, diagnostics));
      continue;
    }
    const d = diagnostic('export/unsupported', 'warning', `rule \`${rule.id}\` is left out: gemini cli cannot say a \`${rule.effect}\` rule`, {
      span: rule.span,
      help: "a command hook can run from gemini cli's own `BeforeTool` hooks",
    });
    diagnostics.push(d);
    // a hook may deny any call it sees: what it sees is left to the catch-all, and allows there are carved
    if (rule.effect === 'run') items.push({ rule, effect: 'deny', tables: [], leftOut: 'a `run` rule, whose hook may deny', leftOutDiagnostic: d, clauseTools: undefined });
  }
  const carved = carve(items, options.lossy === true);
  // a deny left out is said once, as the widening it is
  const said = diagnostics.filter((d) => !items.some((i) => i.leftOutDiagnostic === d && carved.widened.has(i)));
  diagnostics.length = 0;
  diagnostics.push(...said, ...carved.diagnostics);
  const blocks: string[] = [];
  for (const { item, tables: ts } of carved.rules) {
    const from = `# from ${item.rule.id.replace(/[\r\n]/g, ' ')}`;
    for (const t of ts) blocks.push(`${from}\n${render(t, item.effect, item.rule.reason, EXPORT_PRIORITY[t.decision ?? item.effect])}`);
  }
  for (const extra of carved.extra) blocks.push(`# ${extra.why}\n${render(extra.table, 'ask', undefined, extra.priority)}`);
  const header = '# Gemini CLI policy exported by dshpolicy: deny at priority 300, ask_user at 200, allow at 100.';
  return { text: `${[header, ...blocks].join('\n\n')}\n`, diagnostics };
}
