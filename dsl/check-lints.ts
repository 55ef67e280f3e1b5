/**
 * Lints: warnings about rules and patterns that are valid but cannot do what they seem to do.
 *
 * - `check/shadowed-rule`: a rule that never changes a decision, because another rule of the same
 *   seam, at the same or a stricter level, fires whenever it does (an `allow` that `check/dead-allow`
 *   already reports is left to it).
 * - `check/dead-rule`: a rule whose `when` condition is always false.
 * - `check/allow-any-command`: an `allow` of `Bash` or `PowerShell` with no selector and no condition.
 * - `check/command-never-allowed`: an `allow` pattern whose command the analysis never lets an
 *   `allow` match (`eval ...`, `bash -c "<script>"`).
 * - `check/regex-never-matches`: a regex that no text matches.
 * - `check/unknown-tool-glob`: a tool glob that matches no tool of any known agent.
 * - `check/path-glob-never-matches`: a path glob that no normalised absolute path matches.
 * - `check/unknown-command-option`: a command pattern option word its program does not have (`rm -Q *`).
 *
 * Each is reported only when it is provable from the text: a lint that cannot decide stays silent.
 * The shadowing lint is in lint-shadowed.ts, the regex analysis in lint-regex.ts.
 * The lints run on policies without errors (check.ts), so every name, pattern and regex is valid.
 */
import {
  analyzeCommand,
  CLAUDE_CODE_TOOLS,
  CODEX_TOOLS,
  commandPatternOptionWarning,
  SEAMS,
  SEAM_EFFECTS,
  SHELL_TOOLS,
  TOOL_SEAMS,
  diagnostic,
  type Diagnostic,
  type Seam,
  type Span,
} from '../engine/index.js';
import type { ExprNode, RegexLit, RuleNode, SelectorNode, StringLit, ToolPattern, ValueNode } from './ast.js';
import { makeContext, spanInRegex, spanInString, type CheckContext } from './check-context.js';
import { deadAllowRules } from './check-dead.js';
import { deref, type ScopedFile } from './scope.js';
import { codeList } from './suggest.js';
import { unsatisfiable, type Culprit } from './lint-regex.js';
import { commandPatternProblem, globProblem, Lowered, toolGlob } from './memo.js';
import { regexProblem } from './regex-valid.js';
import { checkShadowed, patternWords, type RuleInfo } from './lint-shadowed.js';

/**
 * `deadAllows`: the rules `check/dead-allow` reports, when the caller already has them; `lowered`:
 * lowered forms the caller's other checks of these files already made.
 */
export function checkLints(files: readonly ScopedFile[], deadAllows?: ReadonlySet<RuleNode>, lowered = new Lowered()): Diagnostic[] {
  const out: Diagnostic[] = [];
  const rules = collectRules(files);
  const dead = new Set<RuleNode>();
  // One context per file (they all report to `out`).
  const contexts = new Map<ScopedFile, CheckContext>();
  const contextOf = (file: ScopedFile): CheckContext => {
    let ctx = contexts.get(file);
    if (!ctx) contexts.set(file, (ctx = makeContext(file, out)));
    return ctx;
  };

  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    const ctx = contextOf(r.file);
    checkToolGlobs(ctx, r.rule.tools);
    if (r.rule.when) {
      const verdict = evalCondition(r, r.rule.when, lowered);
      if (verdict.value === false) {
        dead.add(r.rule);
        out.push(
          diagnostic('check/dead-rule', 'warning', `this \`${r.effect}\` never fires: its \`when\` condition is always false`, {
            span: verdict.cause.span,
            help: `${verdict.cause.why}; remove the rule or fix its condition`,
          }),
        );
      }
      walkExpr(r.rule.when, (e) => {
        if (e.kind === 'ran') {
          checkToolGlobs(ctx, e.tools);
          checkPathSelectors(ctx, e.selectors);
          checkCommandOptions(ctx, e.selectors);
        } else if (e.kind === 'compare' && e.op === 'matches' && e.value.kind === 'regex') {
          checkRegexSatisfiable(ctx, e.value);
        } else if (e.kind === 'compare' && e.op === 'glob' && e.field.path.length === 1 && e.field.path[0] === 'path') {
          const value = deref(e.value, r.file.scope);
          if (value?.kind === 'string') checkPathGlobNode(ctx, value);
        }
      });
    }
    checkPathSelectors(ctx, r.rule.selectors);
    checkCommandOptions(ctx, r.rule.selectors);
  }

  // Regexes written in `let` values, used or not (like their syntax errors).
  for (const file of files) {
    const ctx = makeContext(file, out);
    for (const item of file.ast.items) {
      if (item.kind === 'let' && file.scope.lets.get(item.name.name) === item) walkValue(item.value, (v) => v.kind === 'regex' && checkRegexSatisfiable(ctx, v));
    }
  }

  const reported = new Set(deadAllows ?? deadAllowRules(files, lowered));
  for (const r of checkShadowed(rules, dead, reported, out, lowered)) reported.add(r);
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    if (r.seam !== 'pre-tool' || r.effect !== 'allow') continue;
    const ctx = contextOf(r.file);
    if (!reported.has(r.rule) && !dead.has(r.rule)) checkAllowAnyCommand(ctx, r.rule);
    checkNeverAllowed(ctx, r.rule);
  }
  return out;
}

// ---------------------------------------------------------------- rules


function collectRules(files: readonly ScopedFile[]): RuleInfo[] {
  const out: RuleInfo[] = [];
  for (const file of files) {
    for (const item of file.ast.items) {
      if (item.kind !== 'on' || !(SEAMS as readonly string[]).includes(item.seam.name)) continue;
      const seam = item.seam.name as Seam;
      for (let i = 0; i < item.rules.length; i++) {
        const rule = item.rules[i]!;
        const effect = rule.effect.name;
        if (!(SEAM_EFFECTS[seam] as readonly string[]).includes(effect)) continue;
        out.push({ file, seam, rule, effect, index: out.length });
      }
    }
  }
  return out;
}

function walkExpr(e: ExprNode, visit: (e: ExprNode) => void): void {
  visit(e);
  if (e.kind === 'and' || e.kind === 'or') for (const a of e.args) walkExpr(a, visit);
  else if (e.kind === 'not') walkExpr(e.arg, visit);
}

function walkValue(v: ValueNode, visit: (v: ValueNode) => void): void {
  visit(v);
  if (v.kind === 'list') for (const item of v.items) walkValue(item, visit);
  else if (v.kind === 'object') for (const entry of v.entries) walkValue(entry.value, visit);
}

/** `text`, shortened, in backticks. */
function code(text: string): string {
  const flat = text.replace(/\n/g, '\\n');
  return '`' + (flat.length > 40 ? flat.slice(0, 37) + '...' : flat) + '`';
}


// ---------------------------------------------------------------- `when` always false

interface Cause {
  span: Span;
  why: string;
}
type Verdict = { value: true } | { value: false; cause: Cause } | { value: undefined };

const UNKNOWN: Verdict = { value: undefined };
const TRUE: Verdict = { value: true };

/**
 * Whether a condition is always true or always false, whatever the event: from `true` and
 * `false`, `in []`, `not`, `and`, `or`, and conjunctions that contradict themselves (`x == 1 and
 * x == 2`, `a and not a`, `tool == "Read"` on a rule of `Bash` only).
 */
function evalCondition(r: RuleInfo, e: ExprNode, lw: Lowered): Verdict {
  switch (e.kind) {
    case 'boolexpr':
      return e.value ? TRUE : { value: false, cause: { span: e.span, why: '`false` is never true' } };
    case 'not': {
      const inner = evalCondition(r, e.arg, lw);
      if (inner.value === true) return { value: false, cause: { span: e.span, why: 'what `not` negates is always true' } };
      return inner.value === false ? TRUE : UNKNOWN;
    }
    case 'or': {
      const all = e.args.map((a) => evalCondition(r, a, lw));
      if (all.some((v) => v.value === true)) return TRUE;
      if (all.every((v) => v.value === false)) return { value: false, cause: { span: e.span, why: 'each side of `or` is always false' } };
      return UNKNOWN;
    }
    case 'and': {
      const all = e.args.map((a) => evalCondition(r, a, lw));
      const falsy = all.find((v) => v.value === false);
      if (falsy) return falsy;
      const clash = contradiction(r, e.args, lw);
      if (clash) return { value: false, cause: clash };
      return all.every((v) => v.value === true) ? TRUE : UNKNOWN;
    }
    case 'compare': {
      if (e.op === 'in') {
        const list = deref(e.value, r.file.scope);
        if (list?.kind === 'list' && flatScalars(list)?.length === 0) {
          return { value: false, cause: { span: e.span, why: 'the list is empty, so `in` is never true' } };
        }
      }
      // One comparison alone contradicts only the rule's tools (an empty `in` list is above).
      if (e.field.path.length !== 1 || e.field.path[0] !== 'tool') return UNKNOWN;
      const clash = contradiction(r, [e], lw);
      return clash ? { value: false, cause: clash } : UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

/** The scalars of a list (nested lists flattened) as comparison keys; undefined if some item is not a scalar. */
function flatScalars(list: ValueNode): string[] | undefined {
  const out: string[] = [];
  const walk = (v: ValueNode): boolean => {
    if (v.kind === 'list') return v.items.every(walk);
    const key = scalarKey(v);
    if (key === undefined) return false;
    out.push(key);
    return true;
  };
  return walk(list) ? out : undefined;
}

/** `==` compares type and value: `"0"` is not `0`. */
function scalarKey(v: ValueNode): string | undefined {
  switch (v.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return JSON.stringify(v.value);
    case 'null':
      return 'null';
    default:
      return undefined;
  }
}

interface FieldFacts {
  /** The values the field may have, when some conjunct requires it to be present. */
  allowed?: Set<string>;
  excluded: Set<string>;
  exists: boolean;
  notExists: boolean;
  /** `tool` on a rule whose tools are plain names: those names. */
  fromTools?: readonly string[];
}

/**
 * The first conjunct that makes a conjunction impossible: comparisons of one field that no value
 * satisfies together, or a condition and its negation.
 */
function contradiction(r: RuleInfo, conjuncts: readonly ExprNode[], lw: Lowered): Cause | undefined {
  const facts = new Map<string, FieldFacts>();
  const factsOf = (field: string): FieldFacts => {
    let f = facts.get(field);
    if (!f) {
      f = { excluded: new Set(), exists: false, notExists: false };
      facts.set(field, f);
    }
    return f;
  };
  const names = r.rule.tools.map((t) => t.name);
  if (TOOL_SEAMS.includes(r.seam) && names.length > 0 && names.every((n) => !n.includes('*'))) {
    const f = factsOf('tool');
    f.allowed = new Set(names.map((n) => JSON.stringify(n)));
    f.fromTools = names;
  }
  const seen = new Set<string>();
  for (const c of conjuncts) {
    const key = lw.keyOf(c, r.file.scope);
    if (key === undefined) continue;
    // `lowerExpr` gives `{op: 'not', arg}` exactly for a `not`, with `arg` the lowered operand.
    const negated = c.kind === 'not' ? lw.keyOf(c.arg, r.file.scope)! : `{"op":"not","arg":${key}}`;
    if (seen.has(negated)) return { span: c.span, why: 'it contradicts another part of the same `and`' };
    seen.add(key);

    const negate = c.kind === 'not';
    const atom = c.kind === 'not' ? c.arg : c;
    if (atom.kind !== 'compare' && atom.kind !== 'exists') continue;
    const field = atom.field.path.join('.');
    const f = factsOf(field);
    if (atom.kind === 'exists') {
      if (negate) f.notExists = true;
      else f.exists = true;
    } else {
      const value = deref(atom.value, r.file.scope);
      if (!value) continue;
      // `x != v` is `not (x == v)`.
      const op = atom.op === '!=' ? '==' : atom.op;
      const excludes = negate !== (atom.op === '!=');
      const single = scalarKey(value);
      const keys = op === '==' ? (single === undefined ? undefined : [single]) : op === 'in' && value.kind === 'list' ? flatScalars(value) : undefined;
      if (!keys) continue;
      if (excludes) for (const k of keys) f.excluded.add(k);
      else f.allowed = f.allowed ? new Set(keys.filter((k) => f.allowed!.has(k))) : new Set(keys);
    }
    if (impossible(f)) {
      const which = code(field);
      const why = f.fromTools && field === 'tool'
        ? `the rule applies only to ${codeList(f.fromTools)}, so this comparison of \`tool\` is never true`
        : `no value of ${which} satisfies both this and the other comparisons of ${which}`;
      return { span: c.span, why };
    }
  }
  return undefined;
}

function impossible(f: FieldFacts): boolean {
  // `exists` is "present and not null"; `not exists` is "absent or null".
  if (f.exists && f.notExists) return true;
  if (!f.allowed) return false;
  const left = [...f.allowed].filter((k) => !f.excluded.has(k) && !(f.exists && k === 'null') && (!f.notExists || k === 'null'));
  return left.length === 0;
}

// ---------------------------------------------------------------- `allow` of every command

/**
 * The shell tools of the agents that take a hook's `allow` as leave to run the call without asking
 * (Claude Code's). Codex runs a call its hook allows as it would without the hook, so an `allow` of
 * its shell tools lets nothing through.
 */
const ALLOWED_SHELL_TOOLS: readonly string[] = SHELL_TOOLS.filter((t) => CLAUDE_CODE_TOOLS.includes(t));

function checkAllowAnyCommand(ctx: CheckContext, rule: RuleNode): void {
  if (rule.selectors.length > 0 || rule.when) return;
  const example = 'e.g. `allow Bash command "npm test", "git status"`';
  if (rule.tools.length === 0) {
    ctx.report(
      diagnostic('check/allow-any-command', 'warning', '`allow` with no tools, selector or condition allows every command, and every other call', {
        span: rule.effect.span,
        help: `name the tools it allows, and allow the shell tools only for some commands, ${example}`,
      }),
    );
    return;
  }
  for (const tool of rule.tools) {
    if (ALLOWED_SHELL_TOOLS.includes(tool.name)) {
      ctx.report(
        diagnostic('check/allow-any-command', 'warning', `\`allow ${tool.name}\` with no selector or condition allows every command`, {
          span: tool.span,
          help: `name the commands it allows with a \`command\` selector, ${example.replace('Bash', tool.name)}`,
        }),
      );
      return;
    }
    if (!tool.name.includes('*') || globProblem(tool.name, 'tool') !== null) continue;
    const glob = toolGlob(tool.name);
    const shell = ALLOWED_SHELL_TOOLS.find((t) => glob.test(t));
    if (shell) {
      ctx.report(
        diagnostic('check/allow-any-command', 'warning', `\`${tool.name}\` matches the shell tool \`${shell}\`, so this \`allow\` allows every command`, {
          span: tool.span,
          help: `list the tools it allows without the shell tools, and allow those only for some commands, ${example}`,
        }),
      );
      return;
    }
  }
}

// ---------------------------------------------------------------- `allow` patterns the analysis never lets match

/** Quotes a word for the shell, so that it is read back as exactly `value`. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * An `allow` pattern made of literal words (and perhaps a final `*`) can never match when the
 * command those words make is not a part an `allow` may match: it is unknowable (`eval ...`,
 * `env -S ...`), or it is replaced by the commands of its script (`bash -c "git status"`). What
 * follows the words cannot change that, and neither can where the command stands: the words are
 * analysed exactly as they would be there.
 */
function checkNeverAllowed(ctx: CheckContext, rule: RuleNode): void {
  for (const s of rule.selectors) {
    if (s.selector.name !== 'command') continue;
    for (const str of selectorStrings(s, ctx.file)) {
      if (commandPatternProblem(str.value) !== null) continue;
      const words = patternWords(str.value);
      if (!words) continue;
      const fixed = words[words.length - 1]!.kind === 'star' ? words.slice(0, -1) : words;
      if (fixed.length === 0 || fixed.some((w) => w.kind !== 'literal')) continue;
      const values = fixed.map((w) => (w as { value: string }).value);
      const parts = analyzeCommand(values.map(shellQuote).join(' ')).parts;
      // a shell's own part, which runs only its script's parts, is not what an allow must match
      const same = parts.filter(
        (p) => p.transparent !== true && p.words.length === values.length && p.words.every((w, i) => !w.dynamic && w.value === values[i]),
      );
      if (same.length > 0 && same.every((p) => p.unknowable !== null)) {
        const why = same[0]!.unknowable!;
        ctx.report(
          diagnostic('check/command-never-allowed', 'warning', `an \`allow\` never matches ${code(str.value)}: ${why.replace(/^[A-Z]/, (c) => c.toLowerCase())}, so the command is unknowable`, {
            span: str.span,
            help: 'an unknowable command is never allowed by a `command` pattern; remove the pattern, or allow the commands it runs instead',
          }),
        );
      } else if (same.length === 0 && parts.length > 0 && parts.every((p) => p.unknowable === null)) {
        const inner = parts.filter((p) => p.transparent !== true).map((p) => code(p.text)).join(', ');
        ctx.report(
          diagnostic('check/command-never-allowed', 'warning', `an \`allow\` never matches ${code(str.value)}: the shell's script is analysed in its place`, {
            span: str.span,
            help: `a \`${values[0]}\` script's commands are parts of their own; allow those instead (here ${inner})`,
          }),
        );
      }
    }
  }
}

function selectorStrings(s: SelectorNode, file: ScopedFile): StringLit[] {
  const out: StringLit[] = [];
  for (const written of s.values) {
    const value = deref(written, file.scope);
    if (value) walkValue(value, (v) => v.kind === 'string' && out.push(v));
  }
  return out;
}

// ---------------------------------------------------------------- tool globs and path globs

const AGENT_TOOLS: readonly string[] = [...CLAUDE_CODE_TOOLS, ...CODEX_TOOLS];

function checkToolGlobs(ctx: CheckContext, tools: readonly ToolPattern[]): void {
  for (const tool of tools) {
    const name = tool.name;
    if (!name.includes('*') || globProblem(name, 'tool') !== null) continue;
    // Some MCP tool (`mcp__<server>__<tool>`) may match when the text before the first `*` fits `mcp__`.
    const head = name.slice(0, name.indexOf('*'));
    if (head.startsWith('mcp__') || 'mcp__'.startsWith(head)) continue;
    const glob = toolGlob(name);
    if (AGENT_TOOLS.some((t) => glob.test(t))) continue;
    const lower = toolGlob(name.toLowerCase());
    const folded = AGENT_TOOLS.filter((t) => lower.test(t.toLowerCase()));
    ctx.report(
      diagnostic('check/unknown-tool-glob', 'warning', `${code(name)} matches no tool of any known agent`, {
        span: tool.span,
        help: folded.length > 0
          ? `tool names are case-sensitive; ignoring case it would match ${codeList(folded.slice(0, 3))}`
          : 'tool names are case-sensitive; MCP tools are named `mcp__<server>__<tool>`',
      }),
    );
  }
}

/** `check/unknown-command-option`: an option word the programs table cannot read for its program. */
function checkCommandOptions(ctx: CheckContext, selectors: readonly SelectorNode[]): void {
  for (const s of selectors) {
    if (s.selector.name !== 'command') continue;
    for (const str of selectorStrings(s, ctx.file)) {
      if (commandPatternProblem(str.value) !== null) continue;
      const warning = commandPatternOptionWarning(str.value);
      if (warning) ctx.report(diagnostic('check/unknown-command-option', 'warning', warning.message, { span: str.span, help: warning.help }));
    }
  }
}

function checkPathSelectors(ctx: CheckContext, selectors: readonly SelectorNode[]): void {
  for (const s of selectors) {
    if (s.selector.name !== 'path') continue;
    // The strings of `selectorStrings`, in its order, without building its list.
    for (const written of s.values) {
      const value = deref(written, ctx.file.scope);
      if (value) checkPathStrings(ctx, value);
    }
  }
}

function checkPathStrings(ctx: CheckContext, v: ValueNode): void {
  if (v.kind === 'string') checkPathGlobNode(ctx, v);
  else if (v.kind === 'list') for (const item of v.items) checkPathStrings(ctx, item);
  else if (v.kind === 'object') for (const entry of v.entries) checkPathStrings(ctx, entry.value);
}

/**
 * A path glob never matches when one of its segments can only match text that no segment of a
 * normalised absolute path is: one containing `/` (written `\/`), or exactly `.` or `..` (written
 * with a `\`; unescaped they are resolved).
 */
function checkPathGlobNode(ctx: CheckContext, node: StringLit): void {
  const glob = node.value;
  // Both problems need a `\`: without one, each segment's literal text is the segment as written.
  if (!glob.includes('\\') || globProblem(glob, 'path') !== null) return;
  let start = 0;
  let literal = '';
  let wild = false;
  const finish = (end: number): boolean => {
    const raw = glob.slice(start, end);
    if (!wild && (literal === '.' || literal === '..') && raw !== literal) {
      ctx.report(
        diagnostic('check/path-glob-never-matches', 'warning', `path glob ${code(glob)} never matches: no segment of a normalised path is ${code(literal)}`, {
          span: spanInString(ctx, node, start),
          help: `paths are matched after \`.\` and \`..\` are resolved; write ${code(literal)} without \`\\\``,
        }),
      );
      return true;
    }
    return false;
  };
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\') {
      const next = glob[i + 1];
      if (next === '/') {
        ctx.report(
          diagnostic('check/path-glob-never-matches', 'warning', `path glob ${code(glob)} never matches: \`\\/\` asks for a \`/\` inside a segment`, {
            span: spanInString(ctx, node, i),
            help: 'no segment of a path contains `/`; write `/` without `\\` to separate segments',
          }),
        );
        return;
      }
      literal += next ?? '';
      i++;
    } else if (c === '/') {
      if (finish(i)) return;
      start = i + 1;
      literal = '';
      wild = false;
    } else {
      if (c === '*' || c === '?' || c === '[') wild = true;
      literal += c;
    }
  }
  finish(glob.length);
}

// ---------------------------------------------------------------- regexes that never match

function checkRegexSatisfiable(ctx: CheckContext, node: RegexLit): void {
  if (regexProblem(node.source, node.flags) !== null) return;
  const found = unsatisfiable(node.source, node.flags);
  if (!found) return;
  const culprit = found.culprit;
  const span =
    culprit && culprit.end > culprit.start
      ? joinSpan(spanInRegex(ctx, node, culprit.start), spanInRegex(ctx, node, culprit.end - 1))
      : node.span;
  const { message, help } = describeCulprit(node, culprit);
  ctx.report(diagnostic('check/regex-never-matches', 'warning', message, { span, help }));
}

function joinSpan(a: Span, b: Span): Span {
  return { file: a.file, start: a.start, end: b.end };
}

function describeCulprit(node: RegexLit, culprit: Culprit | undefined): { message: string; help: string } {
  const whole = code(`/${node.source}/${node.flags}`);
  if (!culprit) {
    return { message: `${whole} never matches: no text satisfies all of its parts`, help: 'check its anchors (`^`, `$`, `\\b`, `\\B`) and character classes' };
  }
  const text = code(node.source.slice(culprit.start, culprit.end));
  switch (culprit.kind) {
    case 'class':
      return { message: `${whole} never matches: ${text} matches no character`, help: 'a character class that excludes every character never matches' };
    case 'bot':
      return {
        message: `${whole} never matches: ${text} is the start of the text, but text must come before it`,
        help: culprit.token === '^' ? 'without the `m` flag, `^` matches only at the start of the text; add `m` to match at the start of each line' : 'move it to the start, or remove it',
      };
    case 'eot':
      return {
        message: `${whole} never matches: ${text} is the end of the text, but text must follow it`,
        help: culprit.token === '$' ? 'without the `m` flag, `$` matches only at the end of the text; add `m` to match at the end of each line' : 'move it to the end, or remove it',
      };
    case 'bol':
      return { message: `${whole} never matches: ${text} is the start of a line, but what comes before it is not a line break`, help: 'with the `m` flag, `^` matches at the start of the text and after `\\n`' };
    case 'eol':
      return { message: `${whole} never matches: ${text} is the end of a line, but what follows it is not a line break`, help: 'with the `m` flag, `$` matches at the end of the text and before `\\n`' };
    case 'word':
      return { message: `${whole} never matches: ${text} needs a word character on one side only, which it cannot have here`, help: '`\\b` sits between a word character (`[0-9A-Za-z_]`) and a non-word character, or the start or end of the text' };
    case 'nonword':
      return { message: `${whole} never matches: ${text} needs word characters on both sides or on neither, which it cannot have here`, help: '`\\B` sits between two word characters (`[0-9A-Za-z_]`) or two non-word characters' };
  }
}
