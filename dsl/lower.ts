/**
 * Stage 4, lowering: checked files to the IR. Runs only when no stage reported an error.
 *
 * Rules keep the order of the files (load order) and of the rules within each file; a rule's id is
 * `file:line:column` of its rule word. The output depends only on the input: the same files give
 * a deep-equal IR.
 */
import { AGENT_EVENT_SEAM, IR_VERSION, PROTECTED_GROUPS, SEAM_HOOK_EVENTS, SEAMS, type HookSpec, type PolicyIR, type ProtectedGroup, type Rule, type Seam, type TestCase } from '../engine/index.js';
import type { ValueNode, RuleNode, WithClause } from './ast.js';
import { DEFAULT_DIALECT, REASON_EFFECTS } from './check-rules.js';
import { lowerExpr, lowerSelectors, lowerTools } from './lower-expr.js';
import { lowerTestBlock } from './lower-tests.js';
import { deref, type FileScope, type ScopedFile } from './scope.js';

export function lowerProgram(files: readonly ScopedFile[]): PolicyIR {
  const rules: Rule[] = [];
  const tests: TestCase[] = [];
  const testNames = new Set<string>();
  const unprotected = new Set<ProtectedGroup>();
  for (const file of files) {
    for (const item of file.ast.items) {
      if (item.kind === 'on') {
        if ((SEAMS as readonly string[]).includes(item.seam.name)) {
          const seam = item.seam.name as Seam;
          for (const rule of item.rules) rules.push(lowerRule(rule, seam, file.scope));
        } else {
          // An agent event without a seam: its `run` rules are that agent's hook handlers.
          for (const rule of item.rules) rules.push(lowerAgentEventRule(rule, item.seam.name, file.scope));
        }
      } else if (item.kind === 'test') {
        tests.push(...lowerTestBlock(item, file.scope, testNames));
      } else if (item.kind === 'unprotect') {
        for (const t of item.targets) for (const g of PROTECTED_GROUPS) if (t.name === g || t.name === '*') unprotected.add(g);
      }
    }
  }
  const name = policyName(files[0]);
  const ir: PolicyIR = {
    version: IR_VERSION,
    ...(name !== undefined ? { name } : {}),
    sources: files.map((f) => f.file),
    rules,
    tests,
  };
  // `unprotect` in any file (included ones too) opts the whole policy out, in the groups' own order
  if (unprotected.size > 0) ir.unprotected = PROTECTED_GROUPS.filter((g) => unprotected.has(g));
  return ir;
}

/** The first `policy "..."` of a file. */
export function policyName(file: ScopedFile | undefined): string | undefined {
  for (const item of file?.ast.items ?? []) if (item.kind === 'policy') return item.name.value;
  return undefined;
}

export function ruleId(rule: RuleNode): string {
  const { file, start } = rule.effect.span;
  return `${file}:${start.line}:${start.column}`;
}

function stringOf(node: RuleNode['text'], scope: FileScope): string | undefined {
  if (!node) return undefined;
  const value = deref(node, scope);
  return value?.kind === 'string' ? value.value : undefined;
}

/** The agent event each seam's hooks run on (the same name in both dialects). */
export const SEAM_EVENTS = SEAM_HOOK_EVENTS;

export function lowerRule(node: RuleNode, seam: Seam, scope: FileScope): Rule {
  const rule: Rule = { id: ruleId(node), seam, effect: node.effect.name as Rule['effect'] };
  if (node.tools.length > 0) rule.tools = lowerTools(node.tools);
  if (node.selectors.length > 0) {
    const selectors = lowerSelectors(node.selectors, scope);
    if (selectors) rule.selectors = selectors;
  }
  if (node.when) {
    const when = lowerExpr(node.when, scope);
    if (when) rule.when = when;
  }
  // Only the forms whose decision carries a reason keep it (elsewhere the checks warn).
  const reason = REASON_EFFECTS.includes(rule.effect) ? stringOf(node.because, scope) : undefined;
  if (reason !== undefined) rule.reason = reason;
  const text = stringOf(node.text, scope);
  if (text !== undefined) rule.text = text;
  if (node.limit) rule.limit = node.limit.value;
  if (node.hook) {
    const dialect = node.dialect?.name ?? DEFAULT_DIALECT;
    rule.hook = node.timeout
      ? { command: node.hook.command.value, timeoutMs: node.timeout.ms, dialect }
      : { command: node.hook.command.value, dialect };
    if (node.matcher) {
      // a matcher makes the rule an agent's hook handler: it runs on the seam's agent event
      rule.hook.event = SEAM_EVENTS[seam];
      if (node.matcher.kind === 'string') rule.hook.matcher = node.matcher.value;
    }
    if (node.with) lowerWith(node.with, rule.hook, scope);
  }
  rule.span = node.span;
  return rule;
}

/** `with { ... }` (checked): `args`, `shell`, `plugin_root`, `if`, `on_deadline` and the http options of the hook. */
function lowerWith(clause: WithClause, hook: HookSpec, scope: FileScope): void {
  const strings = (v: ValueNode): string[] => (v.kind === 'list' ? v.items.flatMap((item) => (item.kind === 'string' ? [item.value] : [])) : []);
  const http = clause.options.entries.some((e) => e.key === 'http' && deref(e.value, scope)?.kind === 'bool' && (deref(e.value, scope) as { value: boolean }).value);
  if (http) hook.http = {};
  for (const entry of clause.options.entries) {
    const value = deref(entry.value, scope);
    if (value === null) continue;
    if (entry.key === 'args' && value.kind === 'list') {
      hook.args = strings(value);
    } else if (entry.key === 'headers' && value.kind === 'object' && hook.http) {
      hook.http.headers = Object.fromEntries(value.entries.flatMap((e) => (e.value.kind === 'string' ? [[e.key, e.value.value]] : [])));
    } else if (entry.key === 'allowed_env_vars' && value.kind === 'list' && hook.http) {
      hook.http.allowedEnvVars = strings(value);
    } else if (value.kind === 'string') {
      if (entry.key === 'shell' && value.value === 'bash') hook.shell = 'bash';
      else if (entry.key === 'plugin_root') hook.pluginRoot = value.value;
      else if (entry.key === 'if') hook.if = value.value;
      else if (entry.key === 'on_deadline' && (value.value === 'fail-closed' || value.value === 'none')) hook.onDeadline = value.value;
    }
  }
}

/** A `run` rule of an `on <AgentEvent>` block: a hook handler on the `agent-event` pseudo-seam. */
export function lowerAgentEventRule(node: RuleNode, event: string, scope: FileScope): Rule {
  const rule = lowerRule(node, 'stop', scope);
  rule.seam = AGENT_EVENT_SEAM;
  if (rule.hook) {
    rule.hook.event = event;
    if (node.matcher?.kind === 'string') rule.hook.matcher = node.matcher.value;
    else delete rule.hook.matcher;
  }
  return rule;
}
