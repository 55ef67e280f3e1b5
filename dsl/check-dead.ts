/**
 * Dead `allow` rules: an `allow` that a stricter rule of the same seam always outranks.
 *
 * A `deny` or `ask` with no `when` outranks an `allow` when it applies to at least the same calls:
 * its tools cover the allow's (it has none, or a glob of its matches each of the allow's tools) and each
 * of its selectors is also one of the allow's (same kind, same patterns). Whatever else the allow
 * requires only narrows it further. Rules in every loaded file count: order never matters.
 */
import { SEAM_EFFECTS, SEAMS, diagnostic, type Diagnostic, type Seam } from '../engine/index.js';
import type { RuleNode } from './ast.js';
import { Lowered, toolGlob } from './memo.js';
import type { ScopedFile } from './scope.js';
import { an } from './suggest.js';

interface Summary {
  rule: RuleNode;
  effect: string;
  tools: readonly string[];
  /** Canonical keys of the selectors. */
  selectors: readonly string[];
  /** Position among the rules of its seam that take part. */
  order: number;
  /** The tool globs, compiled when first needed. */
  globs?: readonly { test(name: string): boolean }[];
}

const OUTRANKS_ALLOW = ['deny', 'ask'];

export function checkDeadAllows(files: readonly ScopedFile[]): Diagnostic[] {
  return deadAllowDiagnostics(findDeadAllows(files));
}

/** The `allow` rules that `check/dead-allow` reports. */
export function deadAllowRules(files: readonly ScopedFile[], lowered = new Lowered()): Set<RuleNode> {
  return new Set(findDeadAllows(files, lowered).map((d) => d.allow.rule));
}

/** A dead `allow`, and the first strict rule (in order) that always outranks it. */
export interface DeadAllow {
  readonly allow: { readonly rule: RuleNode };
  readonly winner: { readonly rule: RuleNode; readonly effect: string };
}

export function deadAllowDiagnostics(found: readonly DeadAllow[]): Diagnostic[] {
  return found.map(({ allow, winner }) => {
    const at = winner.rule.effect.span;
    return diagnostic('check/dead-allow', 'warning', `this \`allow\` never takes effect: ${an(winner.effect)} \`${winner.effect}\` always outranks it`, {
      span: allow.rule.span,
      help: `the \`${winner.effect}\` at \`${at.file}:${at.start.line}\` applies to every call this \`allow\` matches; narrow one of them or remove this \`allow\``,
    });
  });
}

export function findDeadAllows(files: readonly ScopedFile[], lowered = new Lowered()): DeadAllow[] {
  const bySeam = new Map<Seam, Summary[]>();
  for (const file of files) {
    for (const item of file.ast.items) {
      if (item.kind !== 'on' || !(SEAMS as readonly string[]).includes(item.seam.name)) continue;
      const seam = item.seam.name as Seam;
      // (indexed loops: see lint-shadowed.ts)
      for (let i = 0; i < item.rules.length; i++) {
        const rule = item.rules[i]!;
        const effect = rule.effect.name;
        if (!(SEAM_EFFECTS[seam] as readonly string[]).includes(effect)) continue;
        // Only `allow`s and the strict rules without a condition take part.
        if (effect !== 'allow' && (rule.when || !OUTRANKS_ALLOW.includes(effect))) continue;
        const selectors = lowered.selectorsOf(rule, file.scope);
        if (!selectors) continue;
        const keys = selectors.map((s) => {
          const values = s.kind === 'command' ? s.patterns : s.globs;
          return `${s.kind}:${JSON.stringify(values.length < 2 ? values : [...new Set(values)].sort())}`;
        });
        let list = bySeam.get(seam);
        if (!list) bySeam.set(seam, (list = []));
        list.push({ rule, effect, tools: rule.tools.map((t) => t.name), selectors: keys, order: list.length });
      }
    }
  }

  const out: { allow: Summary; winner: Summary }[] = [];
  for (const rules of bySeam.values()) {
    // A strict rule covers an allow only if it names the allow's first tool exactly (or has a glob
    // or no tool list), and only if its first selector is one of the allow's (or it has none). Strict
    // rules are looked up by those two keys, so a large policy is not compared pair by pair; each
    // bucket keeps the rules' order, and the first that outranks the allow, in order, wins.
    const buckets = new Map<string, Summary[]>();
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i]!;
      if (!OUTRANKS_ALLOW.includes(r.effect) || r.rule.when) continue;
      const sel = r.selectors[0] ?? '';
      const toolKeys = r.tools.length === 0 || r.tools.some((t) => /[*?[]/.test(t)) ? ['*'] : [...new Set(r.tools)].map((t) => `=${t}`);
      for (const t of toolKeys) {
        const key = `${t}\u0000${sel}`;
        const list = buckets.get(key);
        if (list) list.push(r);
        else buckets.set(key, [r]);
      }
    }
    if (buckets.size === 0) continue;
    for (let a = 0; a < rules.length; a++) {
      const allow = rules[a]!;
      if (allow.effect !== 'allow') continue;
      const exactTool = allow.tools.length > 0 && !allow.tools.includes('*') ? `=${allow.tools[0]!}` : undefined;
      let winner: Summary | undefined;
      for (let j = 0; j < 2; j++) {
        const t = j === 0 ? '*' : exactTool;
        if (t === undefined) break;
        // selector keys: none (''), then each of the allow's, each once
        for (let i = -1; i < allow.selectors.length; i++) {
          const s = i < 0 ? '' : allow.selectors[i]!;
          if (i >= 0 && allow.selectors.indexOf(s) !== i) continue;
          const list = buckets.get(`${t}\u0000${s}`);
          if (!list) continue;
          for (let k = 0; k < list.length; k++) {
            const r = list[k]!;
            if (winner && r.order >= winner.order) break;
            if (outranks(r, allow)) {
              winner = r;
              break;
            }
          }
        }
      }
      if (winner) out.push({ allow, winner });
    }
  }
  return out;
}

function outranks(strict: Summary, allow: Summary): boolean {
  // A strict glob that matches the allow's tool text covers every name that tool names: tool names
  // cannot contain `*`, so each `*` of an allow glob falls inside a `*` of the strict glob.
  if (!(strict.tools.length === 0 || strict.tools.includes('*'))) {
    if (allow.tools.length === 0) return false;
    const globs = (strict.globs ??= strict.tools.map(toolGlob));
    if (!allow.tools.every((t) => globs.some((g) => g.test(t)))) return false;
  }
  return strict.selectors.every((s) => allow.selectors.includes(s));
}
