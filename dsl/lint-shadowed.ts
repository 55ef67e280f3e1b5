/**
 * The shadowing lint (`check/shadowed-rule`): a rule that another rule of its seam makes useless,
 * because it fires whenever the rule does and outranks it (or restates it). Coverage is decided
 * only where it is provable from the text: tools, selectors (command patterns word by word,
 * domain suffixes, identical path and URL globs), conditions as sets of conjuncts.
 */
import {
  checkCommandPattern,
  checkGlob,
  compileCommandPattern,
  compileToolGlob,
  diagnostic,
  wordGlobMatch,
  type Diagnostic,
  type Selector,
  type Seam,
  type Span,
} from '../engine/index.js';
import type { RuleNode } from './ast.js';
import { REASON_EFFECTS } from './check-rules.js';
import { lowerExpr, lowerSelectors } from './lower-expr.js';
import { deref, type ScopedFile } from './scope.js';

/** A rule of a seam, with where it stands. */
export interface RuleInfo {
  file: ScopedFile;
  seam: Seam;
  rule: RuleNode;
  effect: string;
  /** Position among all rules of all files, in load order. */
  index: number;
}

function where(span: Span): string {
  return `${span.file}:${span.start.line}:${span.start.column}`;
}

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
export function checkShadowed(rules: readonly RuleInfo[], dead: ReadonlySet<RuleNode>, skip: ReadonlySet<RuleNode>, out: Diagnostic[]): RuleNode[] {
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

export function patternWords(pattern: string): readonly PatternWord[] | undefined {
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
