/**
 * The shadowing lint (`check/shadowed-rule`): a rule that another rule of its seam makes useless,
 * because it fires whenever the rule does and outranks it (or restates it). Coverage is decided
 * only where it is provable from the text: tools, selectors (command patterns word by word,
 * domain suffixes, identical path and URL globs), conditions as sets of conjuncts.
 */
import {
  compileCommandPattern,
  diagnostic,
  optionPatternCovers,
  wordGlobMatch,
  type Diagnostic,
  type Selector,
  type Seam,
  type Span,
} from '../engine/index.js';
import type { RuleNode } from './ast.js';
import { REASON_EFFECTS } from './check-rules.js';
import { commandPatternProblem, globProblem, Lowered, toolGlob } from './memo.js';
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
  /** The tool globs, compiled when first needed. */
  globs?: readonly { test(name: string): boolean }[];
  selectors: readonly Selector[];
  /** The canonical form of each conjunct of the `when` condition, each once. */
  conjuncts: readonly string[];
  /** The reason the rule shows, when its form shows one. */
  reason: string | undefined;
}

function summarize(r: RuleInfo, lowered: Lowered): Summary | undefined {
  const level = LEVELS[r.seam][r.effect];
  if (level === undefined || r.rule.hook) return undefined;
  if (r.rule.tools.some((t) => globProblem(t.name, 'tool') !== null)) return undefined;
  const selectors = lowered.selectorsOf(r.rule, r.file.scope);
  if (!selectors) return undefined;
  for (const s of selectors) {
    if (s.kind === 'command' ? s.patterns.some((p) => commandPatternProblem(p) !== null) : s.globs.some((g) => globProblem(g, s.kind) !== null)) {
      return undefined;
    }
  }
  let conjuncts: readonly string[] = [];
  if (r.rule.when) {
    const keys = lowered.conjunctKeys(r.rule.when, r.file.scope);
    if (!keys) return undefined;
    conjuncts = keys.length < 2 ? keys : [...new Set(keys)];
  }
  let reason: string | undefined;
  if (r.rule.because && (REASON_EFFECTS as readonly string[]).includes(r.effect)) {
    const value = deref(r.rule.because, r.file.scope);
    if (value?.kind !== 'string') return undefined;
    reason = value.value;
  }
  const tools = r.rule.tools.map((t) => t.name);
  return { info: r, level, tools, selectors, conjuncts, reason };
}

/**
 * Reports each rule that another rule of its seam makes useless, and returns them. `c` covers `r`
 * when `c` fires on every event `r` fires on (for an `allow` with a `command` selector: on every
 * call whose parts it covers) and outranks it, or is of its level and shows the same reason.
 */
export function checkShadowed(
  rules: readonly RuleInfo[],
  dead: ReadonlySet<RuleNode>,
  skip: ReadonlySet<RuleNode>,
  out: Diagnostic[],
  lowered = new Lowered(),
): RuleNode[] {
  // Loops over all rules use indexes: they run once per check, mostly before they are optimised,
  // where `for...of` allocates an iterator result per element.
  const summaries: Summary[] = [];
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    if (dead.has(r.rule)) continue;
    const s = summarize(r, lowered);
    if (s) summaries.push(s);
  }
  // A rule can only be covered by one whose conjuncts are all its own, whose tools include its
  // first tool, and whose first selector is matched by one of its own (coverSelectorKeys):
  // candidates are looked up by those keys (buckets by seam, then first conjunct, tool key and
  // selector key), so a large policy is not compared pair by pair.
  const buckets = new Map<Seam, Map<string, Map<string, Map<string, Summary[]>>>>();
  for (let i = 0; i < summaries.length; i++) {
    const c = summaries[i]!;
    let bySeam = buckets.get(c.info.seam);
    if (!bySeam) buckets.set(c.info.seam, (bySeam = new Map()));
    const conj = c.conjuncts[0] ?? '';
    let byTool = bySeam.get(conj);
    if (!byTool) bySeam.set(conj, (byTool = new Map()));
    const selectorKeys = coverSelectorKeys(c);
    const toolKeys = coverToolKeys(c);
    for (let j = 0; j < toolKeys.length; j++) {
      const t = toolKeys[j]!;
      let bySelector = byTool.get(t);
      if (!bySelector) byTool.set(t, (bySelector = new Map()));
      for (let k = 0; k < selectorKeys.length; k++) {
        const w = selectorKeys[k]!;
        const list = bySelector.get(w);
        if (list) list.push(c);
        else bySelector.set(w, [c]);
      }
    }
  }
  const found: RuleNode[] = [];
  let budget = MAX_COVER_TESTS;
  for (let ri = 0; ri < summaries.length; ri++) {
    const r = summaries[ri]!;
    if (skip.has(r.info.rule)) continue;
    let best: Summary | undefined;
    const bySeam = buckets.get(r.info.seam);
    // Tool keys `*` and, when the rule names tools (none of them `*`), `=` its first tool.
    const exactTool = r.tools.length === 0 || r.tools.includes('*') ? undefined : `=${r.tools[0]!}`;
    let commandKeys: string[] | undefined;
    let candidates: Summary[] = [];
    // Conjunct keys: none (''), then each of the rule's.
    for (let i = -1; i < r.conjuncts.length; i++) {
      const byTool = bySeam?.get(i < 0 ? '' : r.conjuncts[i]!);
      if (!byTool) continue;
      commandKeys ??= lookupSelectorKeys(r);
      for (let j = 0; j < 2; j++) {
        const t = j === 0 ? '*' : exactTool;
        if (t === undefined) break;
        const bySelector = byTool.get(t);
        if (!bySelector) continue;
        for (let k = 0; k < commandKeys.length; k++) {
          const list = bySelector.get(commandKeys[k]!);
          if (list) candidates = candidates.length === 0 ? list : candidates.concat(list);
        }
      }
    }
    if (candidates.length > 1) {
      // In order, each once (a rule found under two keys is tested once).
      const sorted = [...candidates].sort((a, b) => a.info.index - b.info.index);
      candidates = sorted.filter((c, k) => k === 0 || c !== sorted[k - 1]);
    }
    if ((budget -= candidates.length) < 0) {
      out.push(diagnostic('check/lints-incomplete', 'info', 'the policy is too large to look for every shadowed rule; the rest were not checked', { span: r.info.rule.span }));
      break;
    }
    for (let k = 0; k < candidates.length; k++) {
      const c = candidates[k]!;
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
 * a covered rule must match): `any` when it has none; for `command`, each pattern's key (see
 * commandKey); for `path` and `url`, each glob (a covered rule's glob must be one of them); for
 * `domain`, `domain` and each glob, normalised (see domainLookupKeys); `*` when it cannot be keyed
 * (a pattern starting with a glob).
 */
function coverSelectorKeys(c: Summary): string[] {
  const sel = c.selectors[0];
  if (!sel) return ['any'];
  if (sel.kind === 'command') {
    if (sel.patterns.length === 1) return [commandKey(sel.patterns[0]!) ?? '*'];
    const keys = new Set<string>();
    for (const p of sel.patterns) {
      const key = commandKey(p);
      if (key === undefined) return ['*'];
      keys.add(key);
    }
    return [...keys];
  }
  if (sel.kind === 'path' || sel.kind === 'url') return [...new Set(sel.globs.map((g) => `${sel.kind}=${g}`))];
  if (sel.kind === 'domain') return [...new Set(['domain', ...sel.globs.map((g) => `domain=${normDomain(g)}`)])];
  return ['*'];
}

/** The selector keys under which a rule's coverers may be found. */
function lookupSelectorKeys(r: Summary): string[] {
  const keys = ['any', '*'];
  for (const sel of r.selectors) {
    if (sel.kind === 'command') {
      const words = patternWords(sel.patterns[0] ?? '');
      const first = words?.[0];
      if (first && first.kind === 'literal') {
        keys.push(`command=${first.value}`);
        const second = words![1];
        if (second && second.kind === 'literal') keys.push(`command=${first.value}\u0000${second.value}`);
      }
    } else if ((sel.kind === 'path' || sel.kind === 'url') && sel.globs[0] !== undefined) {
      keys.push(`${sel.kind}=${sel.globs[0]}`);
    } else if (sel.kind === 'domain') {
      keys.push(...domainLookupKeys(sel.globs[0]));
    }
  }
  return keys;
}

/**
 * The key a command pattern of a coverer is found under: its literal first word, with its second
 * word when that is literal too (a pattern covers another only if each literal word of its own is
 * the other's word at that place); undefined when its first word is not literal.
 */
function commandKey(pattern: string): string | undefined {
  const words = patternWords(pattern);
  const first = words?.[0];
  if (!first || first.kind !== 'literal') return undefined;
  const second = words![1];
  return second && second.kind === 'literal' ? `command=${first.value}\u0000${second.value}` : `command=${first.value}`;
}

/**
 * The keys of the domain coverers that may cover a domain selector whose first glob is `q`
 * (domainCovers): `*`, `q` itself, and `*` before each suffix of `q` that starts with `.`. With no
 * glob at all, every domain coverer (under the key `domain`).
 */
function domainLookupKeys(q: string | undefined): string[] {
  if (q === undefined) return ['domain'];
  const r = normDomain(q);
  const keys = ['domain=*', `domain=${r}`];
  for (let i = r.indexOf('.'); i >= 0; i = r.indexOf('.', i + 1)) keys.push(`domain=*${r.slice(i)}`);
  return [...new Set(keys)];
}

function covers(c: Summary, r: Summary): boolean {
  if (c.level < r.level) return false;
  if (c.level === r.level && r.reason !== undefined && r.reason !== c.reason) return false;
  for (const k of c.conjuncts) if (!r.conjuncts.includes(k)) return false;
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
  const globs = (c.globs ??= c.tools.map(toolGlob));
  return r.every((t) => globs.some((g) => g.test(t)));
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

function normDomain(g: string): string {
  const lower = g.toLowerCase();
  return lower.length > 1 && lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function domainCovers(p: string, q: string): boolean {
  const c = normDomain(p);
  const r = normDomain(q);
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
  // where the programs table reads options, they decide (`rm * /` does not cover `rm -f /`); a
  // lone `*` covers what `PROGRAM *` of the same program does
  const first = qw[0];
  if (pw.length === 1 && pw[0]!.kind === 'star' && first?.kind === 'literal' && q.trim() !== '*') {
    return patternCovers(`${/^[A-Za-z0-9._+/-]+$/.test(first.value) ? first.value : `'${first.value.replace(/'/g, `'\\''`)}'`} *`, q);
  }
  const byOptions = optionPatternCovers(pw, qw);
  if (byOptions !== undefined) return byOptions;
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
