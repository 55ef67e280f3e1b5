/**
 * Dead `allow` rules: an `allow` that a stricter rule of the same seam always outranks.
 *
 * A `deny` or `ask` with no `when` outranks an `allow` when it applies to at least the same calls:
 * its tools cover the allow's (it has none, or a glob of its matches each of the allow's tools) and each
 * of its selectors is also one of the allow's (same kind, same patterns). Whatever else the allow
 * requires only narrows it further. Rules in every loaded file count: order never matters.
 */
import { SEAM_EFFECTS, SEAMS, compileToolGlob, diagnostic, type Diagnostic, type Seam } from '../engine/index.js';
import type { RuleNode } from './ast.js';
import { lowerSelectors } from './lower-expr.js';
import type { ScopedFile } from './scope.js';
import { an } from './suggest.js';

interface Summary {
  rule: RuleNode;
  effect: string;
  tools: readonly string[];
  /** Canonical keys of the selectors. */
  selectors: readonly string[];
}

const OUTRANKS_ALLOW = ['deny', 'ask'];

export function checkDeadAllows(files: readonly ScopedFile[]): Diagnostic[] {
  return findDeadAllows(files).map(({ allow, winner }) => {
    const at = winner.rule.effect.span;
    return diagnostic('check/dead-allow', 'warning', `this \`allow\` never takes effect: ${an(winner.effect)} \`${winner.effect}\` always outranks it`, {
      span: allow.rule.span,
      help: `the \`${winner.effect}\` at \`${at.file}:${at.start.line}\` applies to every call this \`allow\` matches; narrow one of them or remove this \`allow\``,
    });
  });
}

/** The `allow` rules that `check/dead-allow` reports. */
export function deadAllowRules(files: readonly ScopedFile[]): Set<RuleNode> {
  return new Set(findDeadAllows(files).map((d) => d.allow.rule));
}

function findDeadAllows(files: readonly ScopedFile[]): { allow: Summary; winner: Summary }[] {
  const bySeam = new Map<Seam, Summary[]>();
  for (const file of files) {
    for (const item of file.ast.items) {
      if (item.kind !== 'on' || !(SEAMS as readonly string[]).includes(item.seam.name)) continue;
      const seam = item.seam.name as Seam;
      for (const rule of item.rules) {
        const effect = rule.effect.name;
        if (!(SEAM_EFFECTS[seam] as readonly string[]).includes(effect)) continue;
        const selectors = lowerSelectors(rule.selectors, file.scope);
        if (!selectors) continue;
        const keys = selectors.map((s) => {
          const values = s.kind === 'command' ? s.patterns : s.globs;
          return `${s.kind}:${JSON.stringify([...new Set(values)].sort())}`;
        });
        const list = bySeam.get(seam) ?? [];
        list.push({ rule, effect, tools: rule.tools.map((t) => t.name), selectors: keys });
        bySeam.set(seam, list);
      }
    }
  }

  const out: { allow: Summary; winner: Summary }[] = [];
  for (const rules of bySeam.values()) {
    // Strict rules are looked up by the tool they name exactly (a strict rule covers an allow only
    // if it names the allow's first tool), or, with a glob or no tool list, tried for every allow:
    // a large policy is not compared pair by pair.
    const general: Summary[] = [];
    const byTool = new Map<string, Summary[]>();
    rules.forEach((r) => {
      if (!OUTRANKS_ALLOW.includes(r.effect) || r.rule.when) return;
      if (r.tools.length === 0 || r.tools.some((t) => /[*?[]/.test(t))) general.push(r);
      else {
        for (const t of new Set(r.tools)) {
          const list = byTool.get(t);
          if (list) list.push(r);
          else byTool.set(t, [r]);
        }
      }
    });
    const order = new Map(rules.map((r, i) => [r, i]));
    for (const allow of rules) {
      if (allow.effect !== 'allow') continue;
      const exact = allow.tools.length > 0 && !allow.tools.includes('*') ? (byTool.get(allow.tools[0]!) ?? []) : [];
      const candidates = exact.length === 0 ? general : [...general, ...exact].sort((a, b) => order.get(a)! - order.get(b)!);
      const winner = candidates.find((r) => outranks(r, allow));
      if (winner) out.push({ allow, winner });
    }
  }
  return out;
}

function outranks(strict: Summary, allow: Summary): boolean {
  // A strict glob that matches the allow's tool text covers every name that tool names: tool names
  // cannot contain `*`, so each `*` of an allow glob falls inside a `*` of the strict glob.
  const globs = strict.tools.map(compileToolGlob);
  const toolsCovered =
    strict.tools.length === 0 ||
    strict.tools.includes('*') ||
    (allow.tools.length > 0 && allow.tools.every((t) => globs.some((g) => g.test(t))));
  return toolsCovered && strict.selectors.every((s) => allow.selectors.includes(s));
}
