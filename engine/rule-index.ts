/**
 * The second level of the evaluator's index: within the rules a seam and tool leave, which rules
 * can match this event at all.
 *
 * Each rule gets at most one trigger: a fact every event it matches has, read from the rule's
 * selectors or `when` (the first literal words of its command patterns, a literal segment or
 * extension of its path globs, the literal end of its domain globs, a `==` value, a literal its
 * text comparisons or regexes require, a word of a command its `ran` needs). The index maps
 * trigger keys to rules; an event computes its own keys once and takes the union of the rules
 * they name, plus the rules with no trigger, in IR order. A trigger is a necessary condition only:
 * every candidate is still tested in full, so the index can only skip rules that cannot match.
 */
import type { CompiledRule } from './compile.js';
import type { Expr, FieldRef, Selector, Value } from './ir.js';
import type { EventView } from './fields.js';
import type { CommandPart } from './shell/index.js';
import { keyWord, patternKeyWord, type PatternWord } from './shell/pattern.js';
import { compileCommandPattern } from './shell/index.js';
import { requiredDomainKey, requiredPathKey } from './match/index.js';
import { asText } from './fields.js';
import { LiteralScanner, requiredLiteralOptions } from './regex/index.js';

export type Trigger =
  | { kind: 'word'; keys: string[] }
  | { kind: 'eq'; field: FieldRef; keys: string[] }
  | { kind: 'domain'; keys: string[] }
  | { kind: 'path'; segments: string[]; suffixes: string[] }
  | { kind: 'text'; field: string; literals: string[]; folded: boolean; options?: { literals: string[]; folded: boolean }[] }
  | { kind: 'ran'; keys: string[] };

/** Preference when a rule offers several triggers: the most selective kinds first. */
const RANK: Record<Trigger['kind'], number> = { word: 0, eq: 1, domain: 2, path: 3, text: 4, ran: 5 };

/** Fields whose value is a string or absent on every event, so their text is the value itself. */
const TEXT_FIELDS = new Set(['command', 'prompt', 'output', 'last_message', 'path', 'url', 'domain']);

function better(a: Trigger | null, b: Trigger | null): Trigger | null {
  if (a === null) return b;
  if (b === null) return a;
  if (RANK[b.kind] !== RANK[a.kind]) return RANK[b.kind] < RANK[a.kind] ? b : a;
  // Same kind: fewer keys select fewer rules.
  return keyCount(b) < keyCount(a) ? b : a;
}

function keyCount(t: Trigger): number {
  switch (t.kind) {
    case 'path':
      return t.segments.length + t.suffixes.length;
    case 'text':
      return t.literals.length;
    default:
      return t.keys.length;
  }
}

/**
 * The key of a command pattern: its literal first word, with the word it pairs with when that is
 * literal too (patternKeyWord: the second word; for a program of the options table with
 * subcommands, its subcommand after its global options; none for another program of the table,
 * whose options and operands may come in any order).
 */
function patternKey(source: string): string | null {
  const words = compileCommandPattern(source).words as readonly PatternWord[];
  const first = words[0];
  if (first === undefined || first.kind !== 'literal') return null;
  const second = patternKeyWord(words);
  return second !== null ? `${first.value}\u0000${second}` : first.value;
}

function commandKeys(patterns: readonly string[]): string[] | null {
  const keys: string[] = [];
  for (const p of patterns) {
    const k = patternKey(p);
    if (k === null) return null;
    keys.push(k);
  }
  return keys.length > 0 ? keys : null;
}

function selectorTrigger(s: Selector): Trigger | null {
  switch (s.kind) {
    case 'command': {
      const keys = commandKeys(s.patterns);
      return keys && { kind: 'word', keys };
    }
    case 'path': {
      const segments: string[] = [];
      const suffixes: string[] = [];
      for (const g of s.globs) {
        const key = requiredPathKey(g);
        if (key === null) return null;
        (key.kind === 'segment' ? segments : suffixes).push(key.value);
      }
      return s.globs.length > 0 ? { kind: 'path', segments, suffixes } : null;
    }
    case 'domain': {
      const keys: string[] = [];
      for (const g of s.globs) {
        const key = requiredDomainKey(g);
        if (key === null) return null;
        keys.push(key);
      }
      return keys.length > 0 ? { kind: 'domain', keys } : null;
    }
    case 'url':
      return null;
  }
}

function scalarKey(v: unknown): string | null {
  switch (typeof v) {
    case 'string':
      return 's' + v;
    case 'number':
      return Number.isNaN(v) ? null : 'n' + String(v);
    case 'boolean':
      return v ? 'b1' : 'b0';
    default:
      return v === null ? 'z' : null;
  }
}

function fieldKey(ref: FieldRef): string {
  return ref.path ? `${ref.name}\u0000${ref.path.join('\u0000')}` : ref.name;
}

function exprTrigger(e: Expr): Trigger | null {
  switch (e.op) {
    case 'and': {
      let best: Trigger | null = null;
      for (const a of e.args) best = better(best, exprTrigger(a));
      return best;
    }
    case 'or':
      return unionOf(e.args.map(exprTrigger));
    case 'compare':
      return compareTrigger(e.cmp, e.field, e.value);
    case 'ran': {
      const command = e.selectors.find((s) => s.kind === 'command');
      const keys = command && command.kind === 'command' ? commandKeys(command.patterns) : null;
      return keys && { kind: 'ran', keys };
    }
    default:
      return null;
  }
}

function compareTrigger(cmp: string, field: FieldRef, value: Value): Trigger | null {
  switch (cmp) {
    case '==': {
      const key = scalarKey(value);
      return key === null ? null : { kind: 'eq', field, keys: [key] };
    }
    case 'in': {
      if (!Array.isArray(value)) return null;
      const keys: string[] = [];
      for (const v of value) {
        const key = scalarKey(v);
        if (key !== null) keys.push(key);
      }
      return { kind: 'eq', field, keys };
    }
    case 'contains':
    case 'startswith':
    case 'endswith':
      if (typeof value !== 'string' || value.length === 0 || field.path || !TEXT_FIELDS.has(field.name)) return null;
      return { kind: 'text', field: field.name, literals: [value], folded: false };
    case 'matches': {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || field.path || !TEXT_FIELDS.has(field.name)) return null;
      const options = requiredLiteralOptions(value.regex, value.flags);
      const best = options[0];
      if (best === undefined) return null;
      const t: Trigger = { kind: 'text', field: field.name, literals: best.literals, folded: best.folded };
      if (options.length > 1) t.options = options;
      return t;
    }
    default:
      return null;
  }
}

/** An `or` has a trigger when every branch has one of the same kind (and field): their union. */
function unionOf(ts: (Trigger | null)[]): Trigger | null {
  if (ts.length === 0 || ts.some((t) => t === null)) return null;
  const all = ts as Trigger[];
  const first = all[0]!;
  switch (first.kind) {
    case 'word':
    case 'domain':
    case 'ran': {
      if (!all.every((t) => t.kind === first.kind)) return null;
      return { kind: first.kind, keys: all.flatMap((t) => (t as { keys: string[] }).keys) };
    }
    case 'eq': {
      const key = fieldKey(first.field);
      if (!all.every((t) => t.kind === 'eq' && fieldKey(t.field) === key)) return null;
      return { kind: 'eq', field: first.field, keys: all.flatMap((t) => (t as { keys: string[] }).keys) };
    }
    case 'path': {
      if (!all.every((t) => t.kind === 'path')) return null;
      const ps = all as Extract<Trigger, { kind: 'path' }>[];
      return { kind: 'path', segments: ps.flatMap((t) => t.segments), suffixes: ps.flatMap((t) => t.suffixes) };
    }
    case 'text': {
      if (!all.every((t) => t.kind === 'text' && t.field === first.field && t.folded === first.folded)) return null;
      return { kind: 'text', field: first.field, literals: all.flatMap((t) => (t as { literals: string[] }).literals), folded: first.folded };
    }
  }
}

/** The most selective trigger of a compiled rule, or null when it has none. */
export function ruleTrigger(cr: CompiledRule): Trigger | null {
  let best: Trigger | null = null;
  for (const s of cr.rule.selectors ?? []) best = better(best, selectorTrigger(s));
  if (cr.rule.when) best = better(best, exprTrigger(cr.rule.when));
  return best;
}

// ---------------------------------------------------------------------------------------------

function push<K>(map: Map<K, CompiledRule[]>, key: K, cr: CompiledRule): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [cr]);
  else if (list[list.length - 1] !== cr) list.push(cr);
}

interface TextGroup {
  field: string;
  folded: boolean;
  literals: string[];
  rules: CompiledRule[][];
  scanner: LiteralScanner | null;
}

function literalKey(field: string, folded: boolean, literal: string): string {
  return `${folded ? 'f' : 'c'}${field}\u0000${literal}`;
}

/** How many regex rules could look for each literal, over every choice each one has. */
function literalCounts(triggers: readonly (Trigger | null)[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of triggers) {
    if (t?.kind !== 'text' || !t.options) continue;
    for (const o of t.options) for (const l of o.literals) {
      const k = literalKey(t.field, o.folded, l);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  return counts;
}

/** A regex trigger with several choices takes the one whose literals the fewest rules share. */
function rarest(t: Trigger | null, counts: Map<string, number>): Trigger | null {
  if (t?.kind !== 'text' || !t.options || counts.size === 0) return t;
  let best = t.options[0]!;
  let bestCost = Infinity;
  for (const o of t.options) {
    let cost = 0;
    for (const l of o.literals) cost += counts.get(literalKey(t.field, o.folded, l)) ?? 0;
    if (cost < bestCost) {
      best = o;
      bestCost = cost;
    }
  }
  return { kind: 'text', field: t.field, literals: best.literals, folded: best.folded };
}

/** Lookups so far; lookups never overlap (they are synchronous), so one counter serves every index. */
let lookups = 0;

/** Rules of one (seam, tool) list, indexed by trigger. */
export class RuleIndex {
  /** Rules without a trigger: candidates for every event. */
  readonly always: CompiledRule[] = [];
  private readonly words = new Map<string, CompiledRule[]>();
  private readonly ranWords = new Map<string, CompiledRule[]>();
  /** Programs with a two-word key (`git` for `git\0push`) in `words` and `ranWords`, with the rules of those keys. */
  private readonly wordPairs = new Map<string, CompiledRule[]>();
  private readonly ranPairs = new Map<string, CompiledRule[]>();
  /** Every rule `words` and `ranWords` hold, for a part whose program is computed when it runs (`$x -rf /`). */
  private readonly wordRules: CompiledRule[] = [];
  private readonly ranRules: CompiledRule[] = [];
  private readonly segments = new Map<string, CompiledRule[]>();
  private readonly suffixes = new Map<string, CompiledRule[]>();
  /** The rules `segments` and `suffixes` hold, in IR order, for calls whose paths give no keys (searches, opaque paths). */
  private readonly pathRules: CompiledRule[] = [];
  private readonly domains = new Map<string, CompiledRule[]>();
  private readonly eq = new Map<string, { field: FieldRef; map: Map<string, CompiledRule[]> }>();
  private readonly texts = new Map<string, TextGroup>();
  /** The strictest decision a deny or ask rule here can give (`deny`, `ask`), or null when there is none. */
  readonly strictest: 'deny' | 'ask' | null;

  constructor(rules: readonly CompiledRule[]) {
    let strictest: 'deny' | 'ask' | null = null;
    for (const cr of rules) {
      if (cr.rule.effect === 'deny') strictest = 'deny';
      else if (cr.rule.effect === 'ask' && strictest === null) strictest = 'ask';
    }
    this.strictest = strictest;
    const triggers = rules.map((cr) => (cr.trigger === undefined ? (cr.trigger = ruleTrigger(cr)) : cr.trigger));
    const common = literalCounts(triggers);
    rules.forEach((cr, i) => this.add(cr, rarest(triggers[i]!, common)));
    for (const g of this.texts.values()) g.scanner = new LiteralScanner(g.literals, { asciiCaseInsensitive: g.folded });
  }

  private add(cr: CompiledRule, t: Trigger | null): void {
    if (t === null) {
      this.always.push(cr);
      return;
    }
    switch (t.kind) {
      case 'word':
        for (const k of t.keys) pushWord(this.words, this.wordPairs, k, cr);
        this.wordRules.push(cr);
        return;
      case 'ran':
        for (const k of t.keys) pushWord(this.ranWords, this.ranPairs, k, cr);
        this.ranRules.push(cr);
        return;
      case 'domain':
        for (const k of t.keys) push(this.domains, k, cr);
        return;
      case 'path':
        for (const k of t.segments) push(this.segments, k, cr);
        for (const k of t.suffixes) push(this.suffixes, k, cr);
        this.pathRules.push(cr);
        return;
      case 'eq': {
        const fk = fieldKey(t.field);
        let group = this.eq.get(fk);
        if (group === undefined) this.eq.set(fk, (group = { field: t.field, map: new Map() }));
        for (const k of t.keys) push(group.map, k, cr);
        return;
      }
      case 'text': {
        const gk = `${t.folded ? 'f' : 'c'}${t.field}`;
        let group = this.texts.get(gk);
        if (group === undefined) this.texts.set(gk, (group = { field: t.field, folded: t.folded, literals: [], rules: [], scanner: null }));
        for (const lit of t.literals) {
          group.literals.push(lit);
          group.rules.push([cr]);
        }
        return;
      }
    }
  }

  /** The rules that may match the event, in IR order. */
  lookup(view: EventView): CompiledRule[] {
    // Each lookup stamps the rules it takes, so a rule named by several keys is taken once.
    const stamp = ++lookups;
    const out: CompiledRule[] = [];
    if (this.words.size > 0) {
      const analysis = view.commandAnalysis();
      if (analysis) for (const part of analysis.parts) partKeys(part, this.words, this.wordPairs, this.wordRules, out, stamp);
    }
    if (this.ranWords.size > 0) {
      for (const v of view.turnViews()) {
        const analysis = v.commandAnalysis();
        if (analysis) for (const part of analysis.parts) partKeys(part, this.ranWords, this.ranPairs, this.ranRules, out, stamp);
      }
    }
    if (this.segments.size > 0 || this.suffixes.size > 0) {
      // every folded reading of every file of the call; a search or an opaque path may match any rule
      const readings = view.pathKeyReadings();
      if (readings === null) take(out, this.pathRules, stamp);
      else if (readings !== undefined) {
        for (const segs of readings) {
          if (segs.length === 0) continue;
          if (this.segments.size > 0) for (const s of segs) take(out, this.segments.get(s), stamp);
          if (this.suffixes.size > 0) {
            const last = segs[segs.length - 1]!;
            for (let i = last.indexOf('.'); i >= 0; i = last.indexOf('.', i + 1)) take(out, this.suffixes.get(last.slice(i)), stamp);
          }
        }
      }
    }
    if (this.domains.size > 0) {
      const host = view.matchHost();
      if (host !== undefined) {
        take(out, this.domains.get(host), stamp);
        for (let i = host.indexOf('.'); i >= 0; i = host.indexOf('.', i + 1)) take(out, this.domains.get(host.slice(i + 1)), stamp);
      }
    }
    if (this.eq.size > 0) {
      for (const g of this.eq.values()) {
        const key = scalarKey(view.field(g.field));
        if (key !== null) take(out, g.map.get(key), stamp);
      }
    }
    if (this.texts.size > 0) {
      for (const g of this.texts.values()) {
        const raw = asText(view.field({ name: g.field }));
        if (raw === undefined) continue;
        g.scanner!.scan(raw, (i) => take(out, g.rules[i], stamp));
      }
    }
    if (out.length === 0) return this.always;
    take(out, this.always, stamp);
    if (out.length > 1) out.sort((a, b) => a.index - b.index);
    return out;
  }
}

/** Appends the rules of `list` that this lookup (`stamp`) has not taken yet. */
function take(out: CompiledRule[], list: readonly CompiledRule[] | undefined, stamp: number): void {
  if (list === undefined) return;
  for (const cr of list) {
    if (cr.stamp === stamp) continue;
    cr.stamp = stamp;
    out.push(cr);
  }
}

/**
 * Takes the rules `index` names by the keys of a command part: each view's program (and its base
 * name), alone and with the word it pairs with (keyWord: the next word, or for a program of the
 * options table with subcommands the subcommand after its global options). A view whose program
 * is computed may run any program: it takes `all`, every rule the index holds.
 */
function partKeys(part: CommandPart, index: Map<string, CompiledRule[]>, pairs: Map<string, CompiledRule[]>, all: readonly CompiledRule[], out: CompiledRule[], stamp: number): void {
  const views = part.views.length > 0 ? part.views : [{ words: part.words }];
  for (const v of views) {
    const w0 = v.words[0];
    if (w0 === undefined) continue;
    if (w0.dynamic) {
      take(out, all, stamp);
      continue;
    }
    const program = w0.value;
    const slash = program.lastIndexOf('/');
    const base = slash >= 0 && slash < program.length - 1 ? program.slice(slash + 1) : null;
    take(out, index.get(program), stamp);
    if (base !== null) take(out, index.get(base), stamp);
    // The two-word key is made only for a program that has one.
    const pairProgram = pairs.has(program);
    const pairBase = base !== null && pairs.has(base);
    if (!pairProgram && !pairBase) continue;
    const second = keyWord(v.words);
    if (second === null) continue;
    if (second === undefined) {
      // a computed word may be any subcommand or operand: every pair of the program
      if (pairProgram) take(out, pairs.get(program), stamp);
      if (pairBase) take(out, pairs.get(base!), stamp);
      continue;
    }
    if (pairProgram) take(out, index.get(`${program}\u0000${second}`), stamp);
    if (pairBase) take(out, index.get(`${base}\u0000${second}`), stamp);
  }
}

function pushWord(index: Map<string, CompiledRule[]>, pairs: Map<string, CompiledRule[]>, key: string, cr: CompiledRule): void {
  push(index, key, cr);
  const nul = key.indexOf('\u0000');
  if (nul >= 0) push(pairs, key.slice(0, nul), cr);
}
