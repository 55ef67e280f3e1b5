/**
 * Gemini CLI policy files (`~/.gemini/policies/*.toml`) as dshpolicy `pre-tool` rules.
 *
 * Gemini CLI decides a tool call by its first matching rule, highest `priority` first (then file
 * order); dshpolicy by the most restrictive rule that fires. Each rule is imported with its
 * conditions, and every rule tried before it in Gemini CLI with a less restrictive decision has
 * its condition carved out of it (`and not ...`), so that exactly one rule fires where Gemini CLI
 * would stop: the outcome is the same. Where that other rule's condition cannot be said exactly,
 * the rule is reported (`import/priority-changes-meaning`).
 *
 * Conditions (see translate.ts): `toolName`/`mcpName` become tool names (tools.ts); a
 * `commandPrefix` of plain words becomes the command pattern `<prefix> *`, which dshpolicy matches
 * against each command of the line, as Gemini CLI also checks each command of a compound line;
 * any other prefix, `commandRegex` and `argsPattern` become `matches` tests, exact for one command
 * (a `deny`/`ask` also tests where each further command of the line starts, an `allow` holds only
 * for a line of one command). `modes` become `permission_mode` tests. An `allow` on the shell tool
 * holds only without a redirection unless `allowRedirection`, since Gemini CLI asks about those.
 */
import { diagnostic, type Diagnostic, type Expr, type Rule, type Selector } from '../../engine/index.js';
import type { ImportedPolicy, PermissionImportOptions } from '../permissions.js';
import { geminiOrder, readGeminiPolicy, type GeminiRule } from './read.js';
import {
  allowGuard, and, argsPart, canBeBash, globsOverlap, modesPart, not, ONE_COMMAND, prefixesMeet, toolPart, toolsCovered,
  type ArgsPart, type Problem, type ToolPart, MODE_TO_PERMISSION,
} from './translate.js';

type Effect = 'deny' | 'ask' | 'allow';
const EFFECT: Record<GeminiRule['decision'], Effect> = { deny: 'deny', ask_user: 'ask', allow: 'allow' };
const RANK: Record<Effect, number> = { allow: 0, ask: 1, deny: 2 };

/** The diagnostic codes that say an imported rule does not decide as Gemini CLI does. */
export const CHANGED_MEANING = [
  'import/priority-changes-meaning', 'import/unsupported-condition', 'import/legacy-mcp-name', 'import/args-order',
  'import/regex-differs', 'import/whole-line', 'import/modes', 'import/regex-not-re2', 'import/unsupported-checker',
] as const;

interface Translated {
  g: GeminiRule;
  effect: Effect;
  tools: ToolPart;
  args: ArgsPart;
  modes?: Expr;
  /** The exact condition of the rule loop; undefined when it cannot be said, with `inexact`. */
  exact?: Expr | 'always';
  inexact?: string;
  /** Matches no call in Gemini CLI. */
  never: boolean;
  /** Not imported (an `allow` whose condition dshpolicy cannot see, a regex RE2 cannot run). */
  drop: boolean;
  problems: Problem[];
  notes: string[];
}

function describe(g: GeminiRule): string {
  const v = (x: unknown) => JSON.stringify(x);
  const parts = [`decision = ${v(g.decision)}`, `priority = ${g.priority}`];
  const tn = g.toolNames.length === 1 ? v(g.toolNames[0]) : v(g.toolNames);
  if (!(g.mcpName !== undefined && g.toolNames.length === 1 && g.toolNames[0] === '*')) parts.push(`toolName = ${tn}`);
  if (g.mcpName !== undefined) parts.push(`mcpName = ${v(g.mcpName)}`);
  if (g.commandPrefix) parts.push(`commandPrefix = ${g.commandPrefix.length === 1 ? v(g.commandPrefix[0]) : v(g.commandPrefix)}`);
  if (g.commandRegex !== undefined) parts.push(`commandRegex = ${v(g.commandRegex)}`);
  if (g.argsPattern !== undefined && !g.commandPrefix && g.commandRegex === undefined) parts.push(`argsPattern = ${v(g.argsPattern)}`);
  if (g.modes) parts.push(`modes = ${v(g.modes)}`);
  return parts.join(', ');
}

function translate(g: GeminiRule): Translated {
  const problems: Problem[] = [];
  const notes: string[] = [];
  const effect = EFFECT[g.decision];
  const tools = toolPart(g, problems);
  const args = argsPart(g, problems);
  const modes = modesPart(g);
  const never = args.never === true || (tools.globs !== undefined && tools.globs.length === 0);
  let drop = args.inexact === 'a regex RE2 cannot run';
  if (args.never && !drop && !args.inexact) notes.push('gemini cli makes no rule of it (an empty `commandPrefix` list)');
  if (modes) {
    const list = g.modes!.map((m) => `\`${m}\``).join(', ');
    problems.push({
      severity: 'warning',
      code: 'import/modes',
      key: 'modes',
      message: `gemini cli applies this rule only in the approval modes ${list}; read as \`permission_mode\` ${g.modes!.map((m) => `\`${MODE_TO_PERMISSION[m]}\``).join(', ')}`,
      help: 'gemini cli sends hooks no approval mode: an event without `permission_mode` never matches this rule',
    });
  }
  const context: string[] = [];
  if (g.interactive !== undefined) context.push(`\`interactive = ${g.interactive}\``);
  if (g.subagent !== undefined) context.push(`\`subagent = ${JSON.stringify(g.subagent)}\``);
  if (g.toolAnnotations !== undefined) context.push('`toolAnnotations`');
  if (context.length > 0 && !never) {
    if (effect === 'allow') drop = true;
    problems.push({
      severity: 'warning',
      code: 'import/unsupported-condition',
      key: g.interactive !== undefined ? 'interactive' : g.subagent !== undefined ? 'subagent' : 'toolAnnotations',
      message: `gemini cli applies this rule only where ${context.join(' and ')} holds, which a dshpolicy event does not say`,
      help: effect === 'allow' ? 'so this `allow` is not imported: dshpolicy never allows more than gemini cli would' : `so this \`${effect}\` is imported for every call it matches otherwise`,
    });
  }
  if (g.denyMessage !== undefined && effect !== 'deny') notes.push(`its \`denyMessage\` is not kept: gemini cli shows it only when it denies`);
  const inexact = tools.inexact ?? args.inexact ?? (context.length > 0 ? 'it depends on ' + context.join(' and ') : undefined);
  const exact = inexact !== undefined ? undefined : (and(tools.expr, args.exact, modes) ?? 'always');
  return { g, effect, tools, args, ...(modes ? { modes } : {}), ...(exact ? { exact } : {}), ...(inexact ? { inexact } : {}), never, drop, problems, notes };
}

/** Whether some call can match both rules. */
function meet(a: Translated, b: Translated): boolean {
  if (a.never || b.never) return false;
  const ga = a.tools.globs;
  const gb = b.tools.globs;
  if (ga && gb && !ga.some((x) => gb.some((y) => globsOverlap(x, y)))) return false;
  if (a.g.modes?.length && b.g.modes?.length && !a.g.modes.some((m) => b.g.modes!.includes(m))) return false;
  if (a.args.prefixes && b.args.prefixes) return prefixesMeet(a.args.prefixes, b.args.prefixes);
  const la = a.args.leads;
  const lb = b.args.leads;
  if (la && lb) return la.some((x) => lb.some((y) => x.startsWith(y) || y.startsWith(x)));
  return true;
}

const where = (t: Translated) => `the \`${t.effect}\` rule at line ${t.g.line} (priority ${t.g.priority})`;

export function importGeminiPolicy(text: string, file: string, _opts: PermissionImportOptions = {}): ImportedPolicy {
  const read = readGeminiPolicy(text, file);
  const diagnostics: Diagnostic[] = [...read.diagnostics];
  const comments = new Map<Rule, string[]>();
  const all = read.rules.map(translate);
  const order = geminiOrder(read.rules).map((g) => all.find((t) => t.g === g)!);
  const carves = new Map<Translated, Expr[]>();
  const shadowed = new Map<Translated, Translated>();

  for (const [i, r] of order.entries()) {
    if (r.never || r.drop) continue;
    const terms: Expr[] = [];
    for (const h of order.slice(0, i)) {
      if (RANK[h.effect] >= RANK[r.effect] || !meet(h, r)) continue;
      if (h.exact === undefined) {
        r.problems.push({
          severity: 'warning',
          code: 'import/priority-changes-meaning',
          message: `gemini cli tries ${where(h)} before this \`${r.effect}\`, but its condition cannot be carved out here: where both match, gemini cli decides \`${h.effect}\` and dshpolicy \`${r.effect}\``,
          help: `that rule's condition cannot be said exactly (${h.inexact}); write the exception into this rule by hand, or give that rule's calls a rule of their own`,
        });
        r.notes.push(`where ${where(h)} also matches, gemini cli decides \`${h.effect}\` and dshpolicy \`${r.effect}\``);
        continue;
      }
      const toolCond = toolsCovered(r.tools.globs, h.tools.globs) ? undefined : h.tools.expr;
      const modesCovered = r.g.modes?.length && h.g.modes?.length && r.g.modes.every((m) => h.g.modes!.includes(m));
      const cond = and(toolCond, h.args.exact, modesCovered ? undefined : h.modes);
      if (cond === undefined) {
        shadowed.set(r, h);
        break;
      }
      const oneCommand = h.args.exact !== undefined && canBeBash(h.tools.globs) && canBeBash(r.tools.globs) ? ONE_COMMAND : undefined;
      terms.push(not(and(cond, oneCommand)!));
      r.notes.push(`except where ${where(h)} matches${oneCommand ? ' a line of one command' : ''}: gemini cli tries it first`);
    }
    carves.set(r, terms);
  }

  const rules: Rule[] = [];
  for (const t of all) {
    const g = t.g;
    for (const p of t.problems) {
      diagnostics.push(diagnostic(p.code, p.severity, p.message, { span: (p.key ? g.valueSpans.get(p.key) : undefined) ?? g.span, help: p.help }));
    }
    if (t.never || t.drop) continue;
    const h = shadowed.get(t);
    if (h) {
      diagnostics.push(
        diagnostic('import/shadowed', 'info', `${where(h)} takes every call this rule could match, so gemini cli never reaches it; it is not imported`, { span: g.span }),
      );
      continue;
    }
    const bashy = canBeBash(t.tools.globs);
    let own: Expr | undefined;
    let selector: Selector | undefined = t.args.selector;
    let guard: Expr | undefined;
    if (t.effect === 'allow') {
      if (!selector) own = t.args.exact;
      if (bashy) guard = allowGuard(!selector && t.args.exact !== undefined, g.allowRedirection === true);
    } else {
      if (!selector) own = t.args.strict;
      if (t.args.wholeLine && bashy) {
        diagnostics.push(
          diagnostic('import/whole-line', 'warning', `gemini cli also tests this rule against each command of a compound command line; here it sees the whole line only`, {
            span: g.span,
            help: 'so `ls && <a matching command>` is caught only when the whole line matches the regex; a `commandPrefix` of plain words, or a `commandRegex` that stays within the command, is tested command by command',
          }),
        );
      }
    }
    if (g.allowRedirection !== undefined && !(t.effect === 'allow' && bashy)) t.notes.push('`allowRedirection` only changes what gemini cli allows on its shell tool; nothing to import');
    if (g.allowRedirection === true && t.effect === 'allow' && bashy)
      t.notes.push('with `allowRedirection`, gemini cli also allows a redirected command; dshpolicy allows one only when the policy allows writing each file it writes (`allow Write path ...`)');
    const when = and(own, t.modes, t.tools.printable ? undefined : t.tools.expr, guard, ...(carves.get(t) ?? []));
    const rule: Rule = { id: g.id, seam: 'pre-tool', effect: t.effect };
    if (t.tools.printable && t.tools.globs) rule.tools = t.tools.globs;
    if (selector) rule.selectors = [selector];
    if (when) rule.when = when;
    if (t.effect === 'deny' && g.denyMessage !== undefined && g.denyMessage !== '') rule.reason = g.denyMessage;
    rule.span = g.span;
    rules.push(rule);
    comments.set(rule, [`gemini ${g.id}: ${describe(g)}`, ...t.notes]);
  }
  return { rules, tests: [], diagnostics, comments };
}
