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
 *
 * Each is reported only when it is provable from the text: a lint that cannot decide stays silent.
 * The lints run on policies without errors (check.ts), so every name, pattern and regex is valid.
 */
import {
  analyzeCommand,
  CLAUDE_CODE_TOOLS,
  CODEX_TOOLS,
  SEAMS,
  SEAM_EFFECTS,
  SHELL_TOOLS,
  TOOL_SEAMS,
  checkCommandPattern,
  checkGlob,
  checkRegex,
  compileCommandPattern,
  compileToolGlob,
  diagnostic,
  wordGlobMatch,
  type Diagnostic,
  type Selector,
  type Seam,
  type Span,
} from '../engine/index.js';
import type { ExprNode, RegexLit, RuleNode, SelectorNode, StringLit, ToolPattern, ValueNode } from './ast.js';
import { makeContext, spanInRegex, spanInString, type CheckContext } from './check-context.js';
import { deadAllowRules } from './check-dead.js';
import { REASON_EFFECTS } from './check-rules.js';
import { lowerExpr, lowerSelectors } from './lower-expr.js';
import { deref, type ScopedFile } from './scope.js';
import { codeList } from './suggest.js';

export function checkLints(files: readonly ScopedFile[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const rules = collectRules(files);
  const dead = new Set<RuleNode>();

  for (const r of rules) {
    const ctx = makeContext(r.file, out);
    checkToolGlobs(ctx, r.rule.tools);
    if (r.rule.when) {
      const verdict = evalCondition(r, r.rule.when);
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
        } else if (e.kind === 'compare' && e.op === 'matches' && e.value.kind === 'regex') {
          checkRegexSatisfiable(ctx, e.value);
        } else if (e.kind === 'compare' && e.op === 'glob' && e.field.path.length === 1 && e.field.path[0] === 'path') {
          const value = deref(e.value, r.file.scope);
          if (value?.kind === 'string') checkPathGlobNode(ctx, value);
        }
      });
    }
    checkPathSelectors(ctx, r.rule.selectors);
  }

  // Regexes written in `let` values, used or not (like their syntax errors).
  for (const file of files) {
    const ctx = makeContext(file, out);
    for (const item of file.ast.items) {
      if (item.kind === 'let' && file.scope.lets.get(item.name.name) === item) walkValue(item.value, (v) => v.kind === 'regex' && checkRegexSatisfiable(ctx, v));
    }
  }

  const reported = deadAllowRules(files);
  for (const r of checkShadowed(rules, dead, reported, out)) reported.add(r);
  for (const r of rules) {
    if (r.seam !== 'pre-tool' || r.effect !== 'allow') continue;
    const ctx = makeContext(r.file, out);
    if (!reported.has(r.rule) && !dead.has(r.rule)) checkAllowAnyCommand(ctx, r.rule);
    checkNeverAllowed(ctx, r.rule);
  }
  return out;
}

// ---------------------------------------------------------------- rules

interface RuleInfo {
  file: ScopedFile;
  seam: Seam;
  rule: RuleNode;
  effect: string;
  /** Position among all rules of all files, in load order. */
  index: number;
}

function collectRules(files: readonly ScopedFile[]): RuleInfo[] {
  const out: RuleInfo[] = [];
  for (const file of files) {
    for (const item of file.ast.items) {
      if (item.kind !== 'on' || !(SEAMS as readonly string[]).includes(item.seam.name)) continue;
      const seam = item.seam.name as Seam;
      for (const rule of item.rules) {
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

function where(span: Span): string {
  return `${span.file}:${span.start.line}:${span.start.column}`;
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
function evalCondition(r: RuleInfo, e: ExprNode): Verdict {
  switch (e.kind) {
    case 'boolexpr':
      return e.value ? TRUE : { value: false, cause: { span: e.span, why: '`false` is never true' } };
    case 'not': {
      const inner = evalCondition(r, e.arg);
      if (inner.value === true) return { value: false, cause: { span: e.span, why: 'what `not` negates is always true' } };
      return inner.value === false ? TRUE : UNKNOWN;
    }
    case 'or': {
      const all = e.args.map((a) => evalCondition(r, a));
      if (all.some((v) => v.value === true)) return TRUE;
      if (all.every((v) => v.value === false)) return { value: false, cause: { span: e.span, why: 'each side of `or` is always false' } };
      return UNKNOWN;
    }
    case 'and': {
      const all = e.args.map((a) => evalCondition(r, a));
      const falsy = all.find((v) => v.value === false);
      if (falsy) return falsy;
      const clash = contradiction(r, e.args);
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
      const clash = contradiction(r, [e]);
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
  fromTools?: string;
}

/**
 * The first conjunct that makes a conjunction impossible: comparisons of one field that no value
 * satisfies together, or a condition and its negation.
 */
function contradiction(r: RuleInfo, conjuncts: readonly ExprNode[]): Cause | undefined {
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
    f.fromTools = codeList(names);
  }
  const seen = new Set<string>();
  for (const c of conjuncts) {
    const lowered = lowerExpr(c, r.file.scope);
    if (!lowered) continue;
    const key = JSON.stringify(lowered);
    const negated = lowered.op === 'not' ? JSON.stringify(lowered.arg) : JSON.stringify({ op: 'not', arg: lowered });
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
        ? `the rule applies only to ${f.fromTools}, so this comparison of \`tool\` is never true`
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

// ---------------------------------------------------------------- shadowed rules

/** The level of each rule form that makes a decision, per seam; the higher outranks the lower. */
const LEVELS: Readonly<Record<Seam, Readonly<Record<string, number>>>> = {
  'pre-tool': { allow: 1, ask: 2, deny: 3 },
  prompt: { block: 1 },
  'post-tool': { block: 1 },
  stop: { continue: 1, halt: 2 },
  'session-start': {},
};

interface Summary {
  info: RuleInfo;
  level: number;
  tools: readonly string[];
  globs: readonly { test(name: string): boolean }[];
  selectors: readonly Selector[];
  /** The canonical form of each conjunct of the `when` condition. */
  conjuncts: ReadonlySet<string>;
  /** The reason the rule shows, when its form shows one. */
  reason: string | undefined;
}

function summarize(r: RuleInfo): Summary | undefined {
  const level = LEVELS[r.seam][r.effect];
  if (level === undefined || r.rule.hook) return undefined;
  if (r.rule.tools.some((t) => checkGlob(t.name, 'tool') !== null)) return undefined;
  const selectors = lowerSelectors(r.rule.selectors, r.file.scope);
  if (!selectors) return undefined;
  for (const s of selectors) {
    if (s.kind === 'command' ? s.patterns.some((p) => checkCommandPattern(p) !== null) : s.globs.some((g) => checkGlob(g, s.kind) !== null)) {
      return undefined;
    }
  }
  const conjuncts = new Set<string>();
  if (r.rule.when) {
    const lowered = lowerExpr(r.rule.when, r.file.scope);
    if (!lowered) return undefined;
    for (const c of lowered.op === 'and' ? lowered.args : [lowered]) conjuncts.add(JSON.stringify(c));
  }
  let reason: string | undefined;
  if (r.rule.because && (REASON_EFFECTS as readonly string[]).includes(r.effect)) {
    const value = deref(r.rule.because, r.file.scope);
    if (value?.kind !== 'string') return undefined;
    reason = value.value;
  }
  const tools = r.rule.tools.map((t) => t.name);
  return { info: r, level, tools, globs: tools.map(compileToolGlob), selectors, conjuncts, reason };
}

/**
 * Reports each rule that another rule of its seam makes useless, and returns them. `c` covers `r`
 * when `c` fires on every event `r` fires on (for an `allow` with a `command` selector: on every
 * call whose parts it covers) and outranks it, or is of its level and shows the same reason.
 */
function checkShadowed(rules: readonly RuleInfo[], dead: ReadonlySet<RuleNode>, skip: ReadonlySet<RuleNode>, out: Diagnostic[]): RuleNode[] {
  const summaries = rules.filter((r) => !dead.has(r.rule)).map(summarize).filter((s): s is Summary => s !== undefined);
  // A rule can only be covered by one whose conjuncts are all its own, whose tools include its
  // first tool, and whose first selector is matched by one of its own (coverSelectorKeys):
  // candidates are looked up by those keys, so a large policy is not compared pair by pair.
  const buckets = new Map<string, Summary[]>();
  const add = (key: string, c: Summary) => {
    const list = buckets.get(key);
    if (list) list.push(c);
    else buckets.set(key, [c]);
  };
  for (const c of summaries) {
    const conj = c.conjuncts.values().next().value ?? '';
    for (const t of coverToolKeys(c)) for (const w of coverSelectorKeys(c)) add(`${c.info.seam}\u0000${conj}\u0000${t}\u0000${w}`, c);
  }
  const found: RuleNode[] = [];
  let budget = MAX_COVER_TESTS;
  for (const r of summaries) {
    if (skip.has(r.info.rule)) continue;
    let best: Summary | undefined;
    const toolKeys = r.tools.length === 0 || r.tools.includes('*') ? ['*'] : ['*', `=${r.tools[0]!}`];
    const commandKeys = lookupSelectorKeys(r);
    const candidates: Summary[] = [];
    for (const k of ['', ...r.conjuncts]) {
      for (const t of toolKeys) for (const w of commandKeys) candidates.push(...(buckets.get(`${r.info.seam}\u0000${k}\u0000${t}\u0000${w}`) ?? []));
    }
    candidates.sort((a, b) => a.info.index - b.info.index);
    if ((budget -= candidates.length) < 0) {
      out.push(diagnostic('check/lints-incomplete', 'info', 'the policy is too large to look for every shadowed rule; the rest were not checked', { span: r.info.rule.span }));
      break;
    }
    for (const c of candidates) {
      if (c === r || c.level < r.level || !covers(c, r)) continue;
      // Restating a rule of another file at its level keeps each file whole: not reported.
      if (c.level === r.level && c.info.file !== r.info.file) continue;
      // Of two rules that cover each other, the later one is reported.
      if (c.level === r.level && c.info.index > r.info.index && covers(r, c)) continue;
      if (!best || c.level > best.level) best = c;
    }
    if (!best) continue;
    found.push(r.info.rule);
    const at = where(best.info.rule.span);
    const e = r.info.effect;
    const b = best.info.effect;
    out.push(
      best.level > r.level
        ? diagnostic('check/shadowed-rule', 'warning', `this \`${e}\` never takes effect: the \`${b}\` at \`${at}\` fires whenever it does and outranks it`, {
            span: r.info.rule.span,
            help: `remove this \`${e}\`, or narrow the \`${b}\` so that it no longer fires whenever this rule does`,
          })
        : diagnostic('check/shadowed-rule', 'warning', `this \`${e}\` is redundant: the \`${b}\` at \`${at}\` fires whenever it does`, {
            span: r.info.rule.span,
            help: `remove this \`${e}\`: it changes neither the decision nor its reasons`,
          }),
    );
  }
  return found;
}

/** Candidate pairs the shadowing lint tests at most (a bound on its time for any policy). */
const MAX_COVER_TESTS = 5_000_000;

/** The tool keys a coverer is found under: `*` (any tool list), or each tool it names exactly. */
function coverToolKeys(c: Summary): string[] {
  if (c.tools.length === 0 || c.tools.some((t) => t.includes('*') || t.includes('?') || t.includes('['))) return ['*'];
  return c.tools.map((t) => `=${t}`);
}

/**
 * The selector keys a coverer is found under, from its first selector (which some selector of
 * a covered rule must match): `any` when it has none; for `command`, each literal first word of its
 * patterns; for `path` and `url`, each glob (a covered rule's glob must be one of them); `*` when it
 * cannot be keyed (a domain, a pattern starting with a glob).
 */
function coverSelectorKeys(c: Summary): string[] {
  const sel = c.selectors[0];
  if (!sel) return ['any'];
  if (sel.kind === 'command') {
    const words = new Set<string>();
    for (const p of sel.patterns) {
      const w = patternWords(p)?.[0];
      if (!w || w.kind !== 'literal') return ['*'];
      words.add(`command=${w.value}`);
    }
    return [...words];
  }
  if (sel.kind === 'path' || sel.kind === 'url') return [...new Set(sel.globs.map((g) => `${sel.kind}=${g}`))];
  return ['*'];
}

/** The selector keys under which a rule's coverers may be found. */
function lookupSelectorKeys(r: Summary): string[] {
  const keys = ['any', '*'];
  for (const sel of r.selectors) {
    if (sel.kind === 'command') {
      const w = patternWords(sel.patterns[0] ?? '')?.[0];
      if (w && w.kind === 'literal') keys.push(`command=${w.value}`);
    } else if ((sel.kind === 'path' || sel.kind === 'url') && sel.globs[0] !== undefined) {
      keys.push(`${sel.kind}=${sel.globs[0]}`);
    }
  }
  return keys;
}

function covers(c: Summary, r: Summary): boolean {
  if (c.level < r.level) return false;
  if (c.level === r.level && r.reason !== undefined && r.reason !== c.reason) return false;
  for (const k of c.conjuncts) if (!r.conjuncts.has(k)) return false;
  if (!toolsCover(c, r.tools)) return false;
  return c.selectors.every((cs) => r.selectors.some((rs) => selectorCovers(cs, rs)));
}

/**
 * Whether every tool `r` names is one of `c`'s. A glob of `c` that matches the text of a glob of
 * `r` matches every name that glob matches: tool names have no `*`, so each `*` of `r`'s glob falls
 * inside a `*` of `c`'s.
 */
function toolsCover(c: Summary, r: readonly string[]): boolean {
  if (c.tools.length === 0 || c.tools.includes('*')) return true;
  if (r.length === 0) return false;
  return r.every((t) => c.globs.some((g) => g.test(t)));
}

/** Whether every value `r` matches, `c` matches too. */
function selectorCovers(c: Selector, r: Selector): boolean {
  if (c.kind !== r.kind) return false;
  if (c.kind === 'command' && r.kind === 'command') {
    return r.patterns.every((q) => c.patterns.some((p) => patternCovers(p, q)));
  }
  if (c.kind === 'domain' && r.kind === 'domain') return r.globs.every((q) => c.globs.some((p) => domainCovers(p, q)));
  if (c.kind === 'command' || r.kind === 'command') return false;
  return r.globs.every((q) => c.globs.includes(q));
}

function domainCovers(p: string, q: string): boolean {
  const norm = (g: string): string => {
    const lower = g.toLowerCase();
    return lower.length > 1 && lower.endsWith('.') ? lower.slice(0, -1) : lower;
  };
  const c = norm(p);
  const r = norm(q);
  if (c === '*' || c === r) return true;
  if (!c.startsWith('*.') || r === '*') return false;
  // `*.example.com` matches the hosts that end in `.example.com`.
  const suffix = c.slice(1);
  return r.startsWith('*.') ? r.slice(1).endsWith(suffix) : r.endsWith(suffix) && r.length > suffix.length;
}

/** The compiled words of a command pattern (engine/shell/pattern.ts). */
type PatternWord = { kind: 'star' } | { kind: 'literal'; value: string } | { kind: 'glob'; segments: readonly string[] };

const patternCache = new Map<string, readonly PatternWord[] | undefined>();

function patternWords(pattern: string): readonly PatternWord[] | undefined {
  if (patternCache.has(pattern)) return patternCache.get(pattern);
  let words: readonly PatternWord[] | undefined = compileCommandPattern(pattern).words as readonly PatternWord[];
  const known = words.length > 0 && words.every((w) => w && (w.kind === 'star' || w.kind === 'literal' || w.kind === 'glob'));
  if (!known) words = undefined;
  if (patternCache.size > 10_000) patternCache.clear();
  patternCache.set(pattern, words);
  return words;
}

/** Whether every word list `q` matches, `p` matches too (in `any` mode and in `allow` mode). */
export function patternCovers(p: string, q: string): boolean {
  const pw = patternWords(p);
  const qw = patternWords(q);
  if (!pw || !qw) return false;
  const pOpen = pw[pw.length - 1]!.kind === 'star';
  const qOpen = qw[qw.length - 1]!.kind === 'star';
  const pFixed = pOpen ? pw.length - 1 : pw.length;
  const qFixed = qOpen ? qw.length - 1 : qw.length;
  if (pOpen ? pFixed > qFixed : qOpen || pFixed !== qFixed) return false;
  for (let i = 0; i < pFixed; i++) {
    const a = pw[i]!;
    if (i >= qFixed) {
      // a word of `q`'s final `*`: any word at all
      if (a.kind !== 'star') return false;
    } else if (!wordCovers(a, qw[i]!)) {
      return false;
    }
  }
  return true;
}

function wordCovers(p: PatternWord, q: PatternWord): boolean {
  if (p.kind === 'star') return true;
  if (q.kind === 'star') return false;
  if (p.kind === 'literal') return q.kind === 'literal' && q.value === p.value;
  if (q.kind === 'literal') return wordGlobMatch(p.segments, q.value);
  if (p.segments.length === q.segments.length && p.segments.every((s, i) => s === q.segments[i])) return true;
  // `pre*suf` covers a glob that starts with `pre` and ends with `suf`.
  if (p.segments.length !== 2) return false;
  return q.segments[0]!.startsWith(p.segments[0]!) && q.segments[q.segments.length - 1]!.endsWith(p.segments[1]!);
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
    if (!tool.name.includes('*') || checkGlob(tool.name, 'tool') !== null) continue;
    const glob = compileToolGlob(tool.name);
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
      if (checkCommandPattern(str.value) !== null) continue;
      const words = patternWords(str.value);
      if (!words) continue;
      const fixed = words[words.length - 1]!.kind === 'star' ? words.slice(0, -1) : words;
      if (fixed.length === 0 || fixed.some((w) => w.kind !== 'literal')) continue;
      const values = fixed.map((w) => (w as { value: string }).value);
      const parts = analyzeCommand(values.map(shellQuote).join(' ')).parts;
      const same = parts.filter((p) => p.words.length === values.length && p.words.every((w, i) => !w.dynamic && w.value === values[i]));
      if (same.length > 0 && same.every((p) => p.unknowable !== null)) {
        const why = same[0]!.unknowable!;
        ctx.report(
          diagnostic('check/command-never-allowed', 'warning', `an \`allow\` never matches ${code(str.value)}: ${why.replace(/^[A-Z]/, (c) => c.toLowerCase())}, so the command is unknowable`, {
            span: str.span,
            help: 'an unknowable command is never allowed by a `command` pattern; remove the pattern, or allow the commands it runs instead',
          }),
        );
      } else if (same.length === 0 && parts.length > 0 && parts.every((p) => p.unknowable === null)) {
        const inner = parts.map((p) => code(p.text)).join(', ');
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
    if (!name.includes('*') || checkGlob(name, 'tool') !== null) continue;
    // Some MCP tool (`mcp__<server>__<tool>`) may match when the text before the first `*` fits `mcp__`.
    const head = name.slice(0, name.indexOf('*'));
    if (head.startsWith('mcp__') || 'mcp__'.startsWith(head)) continue;
    const glob = compileToolGlob(name);
    if (AGENT_TOOLS.some((t) => glob.test(t))) continue;
    const lower = compileToolGlob(name.toLowerCase());
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

function checkPathSelectors(ctx: CheckContext, selectors: readonly SelectorNode[]): void {
  for (const s of selectors) {
    if (s.selector.name === 'path') for (const str of selectorStrings(s, ctx.file)) checkPathGlobNode(ctx, str);
  }
}

/**
 * A path glob never matches when one of its segments can only match text that no segment of a
 * normalised absolute path is: one containing `/` (written `\/`), or exactly `.` or `..` (written
 * with a `\`; unescaped they are resolved).
 */
function checkPathGlobNode(ctx: CheckContext, node: StringLit): void {
  const glob = node.value;
  if (checkGlob(glob, 'path') !== null) return;
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
  if (checkRegex(node.source, node.flags) !== null) return;
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

// Characters fall in three classes, all a regex's assertions can tell apart: a line break, an
// ASCII word character (what `\b` looks at), and anything else. A position's neighbour is one of
// those, or the edge of the text.
const NL = 1;
const WORD = 2;
const OTHER = 4;
const ANY_CHAR = NL | WORD | OTHER;
/** The start (before) or the end (after) of the text. */
const EDGE = 8;
const ANY_NEXT = ANY_CHAR | EDGE;

type AssertKind = 'bot' | 'eot' | 'bol' | 'eol' | 'word' | 'nonword';

type CharNode = { t: 'char'; mask: number; id: number; start: number; end: number };
type AssertNode = { t: 'assert'; kind: AssertKind; id: number; start: number; end: number; token: string };
type RNode =
  | { t: 'empty' }
  | CharNode
  | AssertNode
  | { t: 'cat'; items: RNode[] }
  | { t: 'alt'; items: RNode[] }
  | { t: 'rep'; item: RNode; min: number };

interface Culprit {
  kind: AssertKind | 'class';
  start: number;
  end: number;
  token: string;
}

/**
 * Whether no text contains a match of the regex (RE2 syntax, already validated). The regex is read
 * into an automaton whose characters are the three classes above (a superset of what it matches:
 * counted repetitions become `*` or `+`, case folding and Unicode classes only widen), and the
 * automaton is searched for a path that meets every assertion. Undefined when some path does, or
 * when the regex uses syntax this reader does not know. Otherwise the culprit, when removing one
 * assertion or empty class alone makes the regex satisfiable.
 */
export function unsatisfiable(source: string, flags: string): { culprit: Culprit | undefined } | undefined {
  let tree: RNode;
  const nodes: (CharNode | AssertNode)[] = [];
  try {
    tree = new RegexReader(source, nodes).read({ i: flags.includes('i'), m: flags.includes('m'), s: flags.includes('s') });
  } catch {
    return undefined;
  }
  if (satisfiable(tree, new Set())) return undefined;
  for (const n of nodes) {
    if (n.t === 'char' && n.mask !== 0) continue;
    if (satisfiable(tree, new Set([n.id]))) {
      const kind = n.t === 'char' ? 'class' : n.kind;
      return { culprit: { kind, start: n.start, end: n.end, token: n.t === 'assert' ? n.token : source.slice(n.start, n.end) } };
    }
  }
  return { culprit: undefined };
}

interface Edge {
  to: number;
  kind: 'eps' | 'char' | 'assert';
  mask?: number;
  assert?: AssertKind;
}

function satisfiable(tree: RNode, neutral: ReadonlySet<number>): boolean {
  const edges: Edge[][] = [];
  const state = (): number => edges.push([]) - 1;
  const link = (from: number, e: Edge): void => {
    edges[from]!.push(e);
  };
  const build = (n: RNode): [number, number] => {
    const s = state();
    switch (n.t) {
      case 'empty':
        return [s, s];
      case 'char': {
        const e = state();
        link(s, { to: e, kind: 'char', mask: neutral.has(n.id) ? ANY_CHAR : n.mask });
        return [s, e];
      }
      case 'assert': {
        const e = state();
        link(s, neutral.has(n.id) ? { to: e, kind: 'eps' } : { to: e, kind: 'assert', assert: n.kind });
        return [s, e];
      }
      case 'cat': {
        let end = s;
        for (const item of n.items) {
          const [a, b] = build(item);
          link(end, { to: a, kind: 'eps' });
          end = b;
        }
        return [s, end];
      }
      case 'alt': {
        const e = state();
        for (const item of n.items) {
          const [a, b] = build(item);
          link(s, { to: a, kind: 'eps' });
          link(b, { to: e, kind: 'eps' });
        }
        return [s, e];
      }
      case 'rep': {
        const e = state();
        const [a, b] = build(n.item);
        link(s, { to: a, kind: 'eps' });
        link(b, { to: a, kind: 'eps' });
        link(b, { to: e, kind: 'eps' });
        if (n.min === 0) link(s, { to: e, kind: 'eps' });
        return [s, e];
      }
    }
  };
  const [start, accept] = build(tree);
  // A search state: where in the automaton, what the previous character was (EDGE: none, the
  // start of the text), and which next characters (EDGE: the end of the text) the assertions met
  // since then still allow.
  const seen = new Set<number>();
  const queue: [number, number, number][] = [];
  const push = (at: number, prev: number, next: number): void => {
    const key = (at * 16 + prev) * 16 + next;
    if (seen.has(key)) return;
    seen.add(key);
    queue.push([at, prev, next]);
  };
  // A match may start anywhere: after any character, or at the start of the text.
  for (const prev of [EDGE, NL, WORD, OTHER]) push(start, prev, ANY_NEXT);
  while (queue.length > 0) {
    const [at, prev, next] = queue.pop()!;
    // ...and end anywhere: before any character the assertions allow, or at the end of the text.
    if (at === accept && next !== 0) return true;
    for (const e of edges[at]!) {
      if (e.kind === 'eps') push(e.to, prev, next);
      else if (e.kind === 'char') {
        for (const c of [NL, WORD, OTHER]) if (c & e.mask! & next) push(e.to, c, ANY_NEXT);
      } else {
        const allowed = assertNext(e.assert!, prev);
        if (allowed & next) push(e.to, prev, allowed & next);
      }
    }
  }
  return false;
}

/** The next characters an assertion allows after `prev` (0: it fails whatever follows). */
function assertNext(kind: AssertKind, prev: number): number {
  const nonWord = NL | OTHER | EDGE;
  switch (kind) {
    case 'bot':
      return prev === EDGE ? ANY_NEXT : 0;
    case 'bol':
      return prev === EDGE || prev === NL ? ANY_NEXT : 0;
    case 'eot':
      return EDGE;
    case 'eol':
      return EDGE | NL;
    case 'word':
      return prev === WORD ? nonWord : WORD;
    case 'nonword':
      return prev === WORD ? WORD : nonWord;
  }
}

// -------- reading RE2 syntax

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
}

const MAX_CP = 0x10ffff;
type Ranges = [number, number][];

const DIGIT: Ranges = [[0x30, 0x39]];
const WORD_RANGES: Ranges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: Ranges = [[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]];
const POSIX: Readonly<Record<string, Ranges>> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x00, 0x7f]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
  cntrl: [[0x00, 0x1f], [0x7f, 0x7f]],
  digit: DIGIT,
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x09, 0x0d], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  word: WORD_RANGES,
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};

/** Neither a line break nor a word character. */
const OTHER_RANGES: Ranges = [[0x00, 0x09], [0x0b, 0x2f], [0x3a, 0x40], [0x5b, 0x5e], [0x60, 0x60], [0x7b, MAX_CP]];

function normalize(r: Ranges): Ranges {
  const sorted = [...r].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(r: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of normalize(r)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

function intersects(r: Ranges, lo: number, hi: number): boolean {
  return r.some(([a, b]) => a <= hi && lo <= b);
}

/** The character classes a set of code points touches; with case folding, a superset of them. */
function maskOf(r: Ranges, fold: boolean): number {
  let mask = 0;
  if (intersects(r, 0x0a, 0x0a)) mask |= NL;
  if (WORD_RANGES.some(([lo, hi]) => intersects(r, lo, hi))) mask |= WORD;
  if (r.some(([lo, hi]) => OTHER_RANGES.some(([a, b]) => a <= hi && lo <= b))) mask |= OTHER;
  if (fold) {
    // A letter may fold to a character outside ASCII (`k` to the Kelvin sign) and back.
    if (intersects(r, 0x41, 0x5a) || intersects(r, 0x61, 0x7a)) mask |= OTHER;
    if (intersects(r, 0x80, MAX_CP)) mask |= WORD;
  }
  return mask;
}

class RegexReader {
  private pos = 0;
  private nextId = 0;

  constructor(
    private readonly src: string,
    private readonly nodes: (CharNode | AssertNode)[],
  ) {}

  read(flags: Flags): RNode {
    const tree = this.alternation({ ...flags });
    if (this.pos !== this.src.length) throw new Error('unexpected )');
    return tree;
  }

  private fail(): never {
    throw new Error('unsupported regex syntax');
  }

  /** Alternatives up to a `)` or the end; `(?i)` and friends change `flags` until then. */
  private alternation(flags: Flags): RNode {
    const alts: RNode[] = [];
    let items: RNode[] = [];
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]!;
      if (c === ')') break;
      if (c === '|') {
        alts.push({ t: 'cat', items });
        items = [];
        this.pos++;
        continue;
      }
      let atom = this.atom(flags);
      if (atom === null) continue;
      for (;;) {
        const r = this.src[this.pos];
        if (r === '*' || r === '+' || r === '?') {
          this.pos++;
          atom = { t: 'rep', item: atom, min: r === '+' ? 1 : 0 };
        } else if (r === '{') {
          const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.src.slice(this.pos));
          if (!m) break;
          this.pos += m[0].length;
          const min = Number(m[1]);
          const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
          atom = max === 0 ? { t: 'empty' } : { t: 'rep', item: atom, min: min === 0 ? 0 : 1 };
        } else {
          break;
        }
        if (this.src[this.pos] === '?') this.pos++; // non-greedy
      }
      items.push(atom);
    }
    alts.push({ t: 'cat', items });
    return alts.length === 1 ? alts[0]! : { t: 'alt', items: alts };
  }

  private char(mask: number, start: number): RNode {
    const n: CharNode = { t: 'char', mask, id: this.nextId++, start, end: this.pos };
    this.nodes.push(n);
    return n;
  }

  private assertion(kind: AssertKind, start: number): RNode {
    const n: AssertNode = { t: 'assert', kind, id: this.nextId++, start, end: this.pos, token: this.src.slice(start, this.pos) };
    this.nodes.push(n);
    return n;
  }

  private literal(cp: number, flags: Flags, start: number): RNode {
    return this.char(maskOf([[cp, cp]], flags.i), start);
  }

  /** One atom, or null for `(?flags)`, which changes `flags` instead. */
  private atom(flags: Flags): RNode | null {
    const src = this.src;
    const start = this.pos;
    const c = src.codePointAt(this.pos)!;
    const ch = String.fromCodePoint(c);
    this.pos += ch.length;
    switch (ch) {
      case '(':
        return this.group(flags);
      case '[':
        return this.charClass(flags, start);
      case '.':
        return this.char(flags.s ? ANY_CHAR : WORD | OTHER, start);
      case '^':
        return this.assertion(flags.m ? 'bol' : 'bot', start);
      case '$':
        return this.assertion(flags.m ? 'eol' : 'eot', start);
      case '\\':
        return this.escape(flags, start);
      case '*':
      case '+':
      case '?':
        return this.fail();
      default:
        return this.literal(c, flags, start);
    }
  }

  private group(flags: Flags): RNode | null {
    const src = this.src;
    let inner: Flags = { ...flags };
    if (src[this.pos] === '?') {
      const named = /^\?P?<[A-Za-z0-9_]+>/.exec(src.slice(this.pos));
      if (named) {
        this.pos += named[0].length;
      } else {
        const m = /^\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(src.slice(this.pos));
        if (!m) return this.fail();
        this.pos += m[0].length;
        const set = (target: Flags, on: string, value: boolean): void => {
          for (const f of on) if (f === 'i' || f === 'm' || f === 's') target[f] = value;
        };
        if (m[3] === ')') {
          set(flags, m[1] ?? '', true);
          set(flags, m[2] ?? '', false);
          return null;
        }
        set(inner, m[1] ?? '', true);
        set(inner, m[2] ?? '', false);
      }
    }
    const body = this.alternation(inner);
    if (src[this.pos] !== ')') return this.fail();
    this.pos++;
    return body;
  }

  /** A code point written as an escape that stands for one character, or undefined. */
  private escapedChar(): number | undefined {
    const src = this.src;
    const d = src[this.pos];
    if (d === undefined) return this.fail();
    const simple: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    if (d in simple) {
      this.pos++;
      return simple[d];
    }
    if (d === 'x') {
      const braced = /^x\{([0-9A-Fa-f]+)\}/.exec(src.slice(this.pos));
      const short = /^x([0-9A-Fa-f]{2})/.exec(src.slice(this.pos));
      const m = braced ?? short;
      if (!m) return this.fail();
      this.pos += m[0].length;
      return parseInt(m[1]!, 16);
    }
    if (d >= '0' && d <= '7') {
      const m = /^[0-7]{1,3}/.exec(src.slice(this.pos))!;
      this.pos += m[0].length;
      return parseInt(m[0], 8);
    }
    if (/[A-Za-z0-9]/.test(d)) return undefined;
    const cp = src.codePointAt(this.pos)!;
    this.pos += String.fromCodePoint(cp).length;
    return cp;
  }

  /** `\d`, `\s`, `\w` and their negations; `\p...`/`\P...` as null (not read); undefined otherwise. */
  private perlClass(): Ranges | null | undefined {
    const src = this.src;
    const d = src[this.pos];
    const table: Record<string, Ranges> = { d: DIGIT, s: SPACE, w: WORD_RANGES };
    if (d !== undefined && d.toLowerCase() in table && /[dswDSW]/.test(d)) {
      this.pos++;
      const r = table[d.toLowerCase()]!;
      return d === d.toLowerCase() ? r : complement(r);
    }
    if (d === 'p' || d === 'P') {
      const m = /^[pP](\{[^}]*\}|[A-Za-z])/.exec(src.slice(this.pos));
      if (!m) return this.fail();
      this.pos += m[0].length;
      return null;
    }
    return undefined;
  }

  private escape(flags: Flags, start: number): RNode {
    const src = this.src;
    const d = src[this.pos];
    const asserts: Record<string, AssertKind> = { A: 'bot', z: 'eot', b: 'word', B: 'nonword' };
    if (d !== undefined && d in asserts) {
      this.pos++;
      return this.assertion(asserts[d]!, start);
    }
    if (d === 'Q') {
      this.pos++;
      const end = src.indexOf('\\E', this.pos);
      const text = src.slice(this.pos, end < 0 ? undefined : end);
      const items: RNode[] = [];
      let at = this.pos;
      for (const ch of text) {
        this.pos = at + ch.length;
        items.push(this.literal(ch.codePointAt(0)!, flags, at));
        at += ch.length;
      }
      this.pos = end < 0 ? src.length : end + 2;
      return { t: 'cat', items };
    }
    if (d === 'C') {
      this.pos++;
      return this.char(ANY_CHAR, start);
    }
    const perl = this.perlClass();
    if (perl === null) return this.char(ANY_CHAR, start);
    if (perl !== undefined) return this.char(maskOf(perl, flags.i), start);
    const cp = this.escapedChar();
    if (cp === undefined) return this.fail();
    return this.literal(cp, flags, start);
  }

  private charClass(flags: Flags, start: number): RNode {
    const src = this.src;
    const negated = src[this.pos] === '^';
    if (negated) this.pos++;
    const ranges: Ranges = [];
    let unknown = false;
    let first = true;
    for (;;) {
      if (this.pos >= src.length) return this.fail();
      const c = src[this.pos]!;
      if (c === ']' && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === '[' && src[this.pos + 1] === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(src.slice(this.pos));
        const set = m ? POSIX[m[2]!] : undefined;
        if (!m || !set) return this.fail();
        this.pos += m[0].length;
        ranges.push(...(m[1] ? complement(set) : set));
        continue;
      }
      const lo = this.classItem();
      if (lo === null) {
        unknown = true;
        continue;
      }
      if (typeof lo !== 'number') {
        ranges.push(...lo);
        continue;
      }
      if (src[this.pos] === '-' && src[this.pos + 1] !== ']' && this.pos + 1 < src.length) {
        this.pos++;
        const hi = this.classItem();
        if (typeof hi !== 'number' || hi < lo) return this.fail();
        ranges.push([lo, hi]);
      } else {
        ranges.push([lo, lo]);
      }
    }
    if (unknown) return this.char(ANY_CHAR, start);
    const set = negated ? complement(ranges) : normalize(ranges);
    // Folding a negated class happens before the negation, so it only removes characters.
    return this.char(set.length === 0 ? 0 : maskOf(set, flags.i && !negated), start);
  }

  /** A code point, a set (`\d`), or null for a set that is not read (`\pL`). */
  private classItem(): number | Ranges | null {
    const src = this.src;
    if (src[this.pos] === '\\') {
      this.pos++;
      const perl = this.perlClass();
      if (perl !== undefined) return perl;
      const cp = this.escapedChar();
      if (cp === undefined) return this.fail();
      return cp;
    }
    const cp = src.codePointAt(this.pos)!;
    this.pos += String.fromCodePoint(cp).length;
    return cp;
  }
}
