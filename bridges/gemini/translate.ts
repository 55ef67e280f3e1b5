/**
 * One Gemini CLI rule's conditions in the IR: its tools, the regex it tests against the call's
 * arguments, its approval modes. Each condition comes in two forms: the exact one (the rule loop's
 * test of one call), used to carve exceptions out of other rules, and the one the rule itself
 * carries, which for shell commands also covers the commands of a compound command line as Gemini
 * CLI checks them (see `policy.ts`).
 */
import { checkRegex, exactProgramWord, type Expr, type FieldRef, type Selector } from '../../engine/index.js';
import { re2Difference, consumable, hasAnchor, intersectUnits, parseJsRegex, re2Literal, splitLiteralPrefix, staysInMember, toRe2, trimEdges, badReason, unwrap, type Node } from './jsregex.js';
import type { GeminiMode, GeminiRule } from './read.js';
import { mapToolName } from './tools.js';

export const MODE_TO_PERMISSION: Readonly<Record<GeminiMode, string>> = {
  default: 'default',
  autoEdit: 'acceptEdits',
  plan: 'plan',
  yolo: 'bypassPermissions',
};

/** What follows a `commandPrefix` for Gemini CLI: the end, a space it does not escape in JSON, or a `"`. */
export const PREFIX_END = '(?:$|[\\p{Zs}\\x{2028}\\x{2029}\\x{FEFF}"])';
/** Where a command of a compound command line starts, near enough: the line's start or a separator. */
export const PART_START = '(?:^|[;&|\\n\\r`(]\\s*)';
/** A line that may hold more than one command, or a substitution. */
export const COMPOUND = '[;&|\\n\\r`]|\\$\\(|[<>]\\(';
export const COMPOUND_OR_REDIRECT = '[;&|\\n\\r`<>]|\\$\\(';
export const REDIRECT = '[<>]';

const KEYWORDS = new Set(
  ('policy include import let on test when because hook timeout dialect matcher with deny ask allow block context continue halt run limit ' +
    'command path url domain and or not exists ran true false null in matches glob startswith endswith contains').split(' '),
);
const PRINTABLE_NAME = /^[A-Za-z_*][A-Za-z0-9_*.-]*$/;

export const field = (name: string): FieldRef => ({ name });
export const matches = (name: string, regex: string): Expr => ({ op: 'compare', cmp: 'matches', field: field(name), value: { regex, flags: '' } });

export function and(...parts: (Expr | undefined)[]): Expr | undefined {
  const args: Expr[] = [];
  for (const p of parts) {
    if (p === undefined) continue;
    if (p.op === 'and') args.push(...p.args);
    else args.push(p);
  }
  return args.length === 0 ? undefined : args.length === 1 ? args[0] : { op: 'and', args };
}

export function or(parts: Expr[]): Expr {
  const args = parts.flatMap((p) => (p.op === 'or' ? p.args : [p]));
  return args.length === 1 ? args[0]! : { op: 'or', args };
}

export const not = (e: Expr): Expr => ({ op: 'not', arg: e });

/** A problem with the rule's translation, reported at the rule. */
export interface Problem {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  help: string;
  /** The key it is about, for the span. */
  key?: string;
}

export interface ToolPart {
  /** dshpolicy tool globs; undefined: every tool. */
  globs?: string[];
  /** Printable as a tool list. */
  printable: boolean;
  /** The globs as a condition (for exceptions, and when they cannot be printed as a list). */
  expr?: Expr;
  /** Names Gemini CLI matches differently from the globs. */
  inexact?: string;
}

function toolExpr(globs: string[]): Expr {
  const exact = globs.filter((g) => !g.includes('*'));
  const parts: Expr[] = [];
  if (exact.length === 1) parts.push({ op: 'compare', cmp: '==', field: field('tool'), value: exact[0]! });
  else if (exact.length > 1) parts.push({ op: 'compare', cmp: 'in', field: field('tool'), value: exact });
  for (const g of globs.filter((x) => x.includes('*'))) parts.push({ op: 'compare', cmp: 'glob', field: field('tool'), value: g });
  return or(parts);
}

export function toolPart(rule: GeminiRule, problems: Problem[]): ToolPart {
  const globs: string[] = [];
  let all = false;
  let inexact: string | undefined;
  for (const name of rule.toolNames) {
    const m = mapToolName(name, rule.mcpName);
    if (m.form === 'foreign') continue;
    if (m.form === 'literal-star') {
      problems.push({
        severity: 'warning',
        code: 'import/never-matches',
        key: 'toolName',
        message: `gemini cli compares \`${name}\` as it is written, so it matches no tool`,
        help: 'its tool patterns are `*`, `mcp_*` and `mcp_<server>_*`',
      });
      continue;
    }
    if (m.form === 'legacy-mcp') {
      inexact = `\`${name}\` is an older form of an mcp tool name`;
      problems.push({
        severity: 'warning',
        code: 'import/legacy-mcp-name',
        key: 'toolName',
        message: `\`${name}\` is the older form of an mcp tool name; read as \`${m.glob}\``,
        help: 'current gemini cli names mcp tools `mcp_<server>_<tool>` and no longer matches this name; use `mcpName` and `toolName`',
      });
    }
    if (m.glob === '*') all = true;
    else if (m.glob !== undefined && !globs.includes(m.glob)) globs.push(m.glob);
  }
  if (all) return { printable: true, ...(inexact ? { inexact } : {}) };
  const printable = globs.length > 0 && globs.every((g) => PRINTABLE_NAME.test(g) && !KEYWORDS.has(g));
  return { globs, printable, ...(globs.length > 0 ? { expr: toolExpr(globs) } : {}), ...(inexact ? { inexact } : {}) };
}

function globMatches(glob: string, name: string): boolean {
  const re = new RegExp(`^${glob.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(name);
}

/** Whether two tool globs can name one tool. */
export function globsOverlap(a: string, b: string): boolean {
  if (!a.includes('*')) return globMatches(b, a);
  if (!b.includes('*')) return globMatches(a, b);
  const pa = a.slice(0, a.indexOf('*'));
  const pb = b.slice(0, b.indexOf('*'));
  return pa.startsWith(pb) || pb.startsWith(pa);
}

/** Whether every tool of `inner` is one of `outer` (undefined: every tool). */
export function toolsCovered(inner: string[] | undefined, outer: string[] | undefined): boolean {
  if (outer === undefined) return true;
  if (inner === undefined) return false;
  return inner.every((i) => outer.some((o) => (i.includes('*') ? o === i || o === '*' || (o.endsWith('*') && i.startsWith(o.slice(0, -1))) : globMatches(o, i))));
}

export function canBeBash(globs: string[] | undefined): boolean {
  return globs === undefined || globs.some((g) => globMatches(g, 'Bash'));
}

// -------- arguments

/** Words a command pattern says literally and the shell reads as they are. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const SHELL_WORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'in', 'select', 'function', '!', '{', '}', '[[', ']]', 'coproc']);

/** Whether `commandPrefix` can be the command pattern `<prefix> *`: words separated by one space. */
export function isPlainPrefix(p: string): boolean {
  const words = p.split(' ');
  if (words.some((w) => !PLAIN_WORD.test(w))) return false;
  return !words[0]!.includes('=') && !SHELL_WORDS.has(words[0]!);
}

export interface ArgsPart {
  /** The exact condition of the rule loop; undefined: none (every call). */
  exact?: Expr;
  /** Not expressible exactly; why. */
  inexact?: string;
  /** The condition a `deny`/`ask` rule carries. */
  strict?: Expr;
  /** The selector a rule carries instead (a plain `commandPrefix`). */
  selector?: Selector;
  /** Whether the rule's own condition tests the whole command line only (warned on `deny`/`ask`). */
  wholeLine?: boolean;
  /** The prefixes, for telling which rules can meet. */
  prefixes?: string[];
  /** Text every command the exact condition matches starts with (one of them), for the same. */
  leads?: string[];
  /** Gemini CLI tests no regex: the rule never applies. */
  never?: boolean;
}

function regexProblem(js: string, why: string, key: string): Problem {
  return {
    severity: 'error',
    code: 'import/regex-not-re2',
    key,
    message: `the regex \`${js}\` uses ${why}`,
    help: 'dshpolicy runs RE2 regexes; rewrite it without that, and the rule is imported',
  };
}

function checked(source: string, js: string, key: string, problems: Problem[]): string | undefined {
  const err = checkRegex(source, '');
  if (err === null) return source;
  problems.push(regexProblem(js, `something RE2 cannot run (${err.message})`, key));
  return undefined;
}

/** The literal text a tree starts with. */
function leadingText(n: Node): string {
  const items = n.t === 'seq' ? n.items : [n];
  let out = '';
  for (const it of items) {
    if (it.t !== 'set' || it.units.length !== 2 || it.units[0] !== it.units[1]) break;
    out += String.fromCharCode(it.units[0]!);
  }
  return out;
}

/** `(?:x)` around a regex whose top level is an alternation. */
function grouped(n: Node, source: string): string {
  return unwrap(n).t === 'alt' ? `(?:${source})` : source;
}

export function argsPart(rule: GeminiRule, problems: Problem[]): ArgsPart {
  if (rule.patterns.length === 0) return { never: true };
  if (rule.commandPrefix !== undefined) return prefixPart(rule.commandPrefix, problems);
  const js = rule.patterns[0];
  if (js === undefined) return {};
  return regexPart(js, rule.commandRegex !== undefined ? 'commandRegex' : 'argsPattern', problems);
}

function prefixPart(prefixes: string[], problems: Problem[]): ArgsPart {
  const lits = prefixes.map((p) => re2Literal(p));
  const body = lits.length === 1 ? lits[0]! : `(?:${lits.join('|')})`;
  for (const p of prefixes) {
    if (/\s$/.test(p)) {
      problems.push({
        severity: 'warning',
        code: 'import/prefix-ends-in-space',
        key: 'commandPrefix',
        message: `gemini cli matches \`${p}\` only where another space or the end of the command follows it`,
        help: `it adds a word boundary after the prefix, so \`${p.trimEnd()} status\`-like commands do not match; write \`${p.trimEnd()}\``,
      });
    }
  }
  const exactSrc = checked(`^${body}${PREFIX_END}`, prefixes.join(', '), 'commandPrefix', problems);
  if (exactSrc === undefined) return { inexact: 'a prefix RE2 cannot say', never: true };
  const exact = matches('command', exactSrc);
  if (prefixes.every(isPlainPrefix)) {
    // word by word, as gemini cli compares prefixes
    const patterns = prefixes.map((p) => {
      const words = p.split(' ');
      words[0] = exactProgramWord(words[0]!);
      return `${words.join(' ')} *`;
    });
    return { exact, prefixes, leads: prefixes, selector: { kind: 'command', patterns } };
  }
  return { exact, prefixes, leads: prefixes, strict: matches('command', `${PART_START}${body}${PREFIX_END}`) };
}

const COMMAND_KEY = '"command":"';
/** `"`, `\\` and the control characters, which JSON escapes: a regex that takes none stays in one string. */
const NOT_IN_VALUE = [0x00, 0x1f, 0x22, 0x22, 0x5c, 0x5c];

function regexPart(js: string, key: string, problems: Problem[]): ArgsPart {
  const tree = parseJsRegex(js);
  const bad = badReason(tree);
  if (bad !== undefined) {
    problems.push(regexProblem(js, bad, key));
    return { never: true, inexact: 'a regex RE2 cannot run' };
  }
  const t = trimEdges(tree);
  if (t.t === 'seq' && t.items.length === 0) return {};
  const differs = re2Difference(t);
  // `"command":"` and then a regex that stays inside the command's JSON string: a test of the command.
  let rest = splitLiteralPrefix(t, COMMAND_KEY);
  let toEnd = false;
  if (rest !== undefined) {
    const r = unwrap(rest);
    if (r.t === 'seq' && r.items.length > 0) {
      const last = r.items[r.items.length - 1]!;
      if (last.t === 'set' && last.units.length === 2 && last.units[0] === 0x22 && last.units[1] === 0x22) {
        rest = { t: 'seq', items: r.items.slice(0, -1) };
        toEnd = true;
      }
    }
    const inValue = intersectUnits(consumable(rest), NOT_IN_VALUE).length === 0 && !hasAnchor(rest);
    if (!inValue) rest = undefined;
  }
  if (differs) {
    problems.push({
      severity: 'warning',
      code: 'import/regex-differs',
      key,
      message: `the regex \`${js}\` can match differently in dshpolicy: it has ${differs}`,
      help: 'for "any character" write `.*`, `.+` or a class repeated without a count; for `\\B`, the words around it',
    });
  }
  if (rest !== undefined) {
    const r2 = toRe2(rest);
    if (!r2.ok) {
      problems.push(regexProblem(js, r2.why, key));
      return { never: true, inexact: 'a regex RE2 cannot run' };
    }
    const body = grouped(rest, r2.source);
    const exactSrc = checked(`^${body}${toEnd ? '$' : ''}`, js, key, problems);
    const strictSrc = checked(`${PART_START}${body}${toEnd ? '$' : ''}`, js, key, problems);
    if (exactSrc === undefined || strictSrc === undefined) return { never: true, inexact: 'a regex RE2 cannot run' };
    const lead = leadingText(rest);
    return {
      exact: matches('command', exactSrc),
      strict: matches('command', strictSrc),
      ...(lead !== '' ? { leads: [lead] } : {}),
      ...(differs ? { inexact: 'its regex can match differently' } : {}),
    };
  }
  const r2 = toRe2(t);
  if (!r2.ok) {
    problems.push(regexProblem(js, r2.why, key));
    return { never: true, inexact: 'a regex RE2 cannot run' };
  }
  const src = checked(r2.source, js, key, problems);
  if (src === undefined) return { never: true, inexact: 'a regex RE2 cannot run' };
  const expr = matches('input', src);
  let inexact: string | undefined = differs ? 'its regex can match differently' : undefined;
  if (!staysInMember(t)) {
    inexact = 'its regex can span several arguments';
    problems.push({
      severity: 'warning',
      code: 'import/args-order',
      key,
      message: `the regex \`${js}\` can match across several arguments, so its result depends on their order`,
      help: 'gemini cli tests it against the arguments as JSON with sorted keys, dshpolicy against `input` in the order the agent sent it; keep the match inside one value, e.g. `[^"]*` for any text of a string',
    });
  }
  // Gemini CLI tests each part of a command line with the arguments `command` and `dir_path` only: a
  // regex that starts with another key never matches a part, and the line decides alone.
  const first = /^"([^"\\]*)":/.exec(leadingText(t))?.[1];
  const wholeLine = first === undefined || first === 'command' || first === 'dir_path';
  return { exact: expr, strict: expr, ...(wholeLine ? { wholeLine } : {}), ...(inexact ? { inexact } : {}) };
}

/** The guard an `allow` on the shell tool carries: no redirection (unless allowed), and, for a whole-line test, one command. */
export function allowGuard(whole: boolean, allowRedirection: boolean): Expr | undefined {
  if (whole) return not(matches('command', allowRedirection ? COMPOUND : COMPOUND_OR_REDIRECT));
  return allowRedirection ? undefined : not(matches('command', REDIRECT));
}

/** A line that is one command: exceptions carved by whole-line conditions hold only there. */
export const ONE_COMMAND: Expr = not(matches('command', COMPOUND));

/** Whether two lists of prefixes can both match one command. */
export function prefixesMeet(a: string[], b: string[]): boolean {
  const boundary = /^[\p{Zs}\u2028\u2029\ufeff"]/u;
  return a.some((p) =>
    b.some((q) => {
      const [s, l] = p.length <= q.length ? [p, q] : [q, p];
      return l.startsWith(s) && (l.length === s.length || boundary.test(l.slice(s.length)));
    }),
  );
}

export function modesPart(rule: GeminiRule): Expr | undefined {
  if (!rule.modes || rule.modes.length === 0) return undefined;
  const values = [...new Set(rule.modes.map((m) => MODE_TO_PERMISSION[m]))];
  return values.length === 1
    ? { op: 'compare', cmp: '==', field: field('permission_mode'), value: values[0]! }
    : { op: 'compare', cmp: 'in', field: field('permission_mode'), value: values };
}
