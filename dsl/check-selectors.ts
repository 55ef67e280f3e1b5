/**
 * Checks of tool lists and selectors, shared by rules, `ran` conditions and test cases.
 */
import { CLAUDE_CODE_TOOLS, CODEX_TOOLS, SHELL_TOOLS, isKnownTool, type SelectorKind } from '../engine/index.js';
import type { SelectorNode, StringLit, ToolPattern } from './ast.js';
import { error, resolve, validateCommandPattern, validateGlob, validateToolGlob, warning, type CheckContext } from './check-context.js';
import { describeValue } from './scope.js';
import { codeList, didYouMean } from './suggest.js';

export const SELECTOR_KINDS: readonly SelectorKind[] = ['command', 'path', 'url', 'domain'];

const AGENT_TOOLS: readonly string[] = [...CLAUDE_CODE_TOOLS, ...CODEX_TOOLS];

export function checkTools(ctx: CheckContext, tools: readonly ToolPattern[]): void {
  for (const tool of tools) checkTool(ctx, tool);
}

export function checkTool(ctx: CheckContext, tool: ToolPattern): void {
  if (!validateToolGlob(ctx, tool)) return;
  if (tool.name.includes('*') || isKnownTool(tool.name)) return;
  warning(
    ctx,
    'check/unknown-tool',
    `\`${tool.name}\` is not a tool of any known agent`,
    tool.span,
    didYouMean(tool.name, AGENT_TOOLS) ?? 'tool names are case-sensitive; MCP tools are named `mcp__<server>__<tool>`',
  );
}

/**
 * Checks selectors (of a rule or of `ran`): the selector word, its values (strings or lists of
 * strings, through `let` names), and each pattern's syntax.
 */
export function checkSelectors(ctx: CheckContext, selectors: readonly SelectorNode[], tools: readonly ToolPattern[]): void {
  for (const s of selectors) {
    const kind = s.selector.name;
    if (!(SELECTOR_KINDS as readonly string[]).includes(kind)) {
      error(
        ctx,
        'check/unknown-selector',
        `\`${kind}\` is not a selector`,
        s.selector.span,
        didYouMean(kind, SELECTOR_KINDS) ?? `selectors are ${codeList(SELECTOR_KINDS)}`,
      );
      continue;
    }
    const strings = selectorStrings(ctx, s);
    if (strings === null) continue;
    let valid = true;
    for (const str of strings) {
      const ok = kind === 'command' ? validateCommandPattern(ctx, str) : validateGlob(ctx, str, kind as Exclude<SelectorKind, 'command'>);
      valid &&= ok;
    }
    if (valid && strings.length === 0) {
      error(ctx, 'check/empty-selector', `this \`${kind}\` selector has no patterns`, s.span, 'give at least one pattern, or remove the selector');
    }
    if (kind === 'command' && tools.length > 0 && !tools.some((t) => SHELL_TOOLS.includes(t.name) || t.name.includes('*'))) {
      warning(
        ctx,
        'check/command-on-non-shell-tool',
        `a \`command\` selector only matches shell tools, and ${codeList(tools.map((t) => t.name))} ${tools.length === 1 ? 'is not one' : 'are not'}`,
        s.selector.span,
        `shell tools are ${codeList(SHELL_TOOLS)}`,
      );
    }
  }
}

/**
 * The string literals a selector's values come to, with lists (also lists in `let` values)
 * flattened. Values of another kind are reported; null when any value is unusable.
 */
export function selectorStrings(ctx: CheckContext, s: SelectorNode): StringLit[] | null {
  const out: StringLit[] = [];
  let ok = true;
  for (const written of s.values) {
    // A string as written resolves to itself (the common case).
    if (written.kind === 'string') {
      out.push(written);
      continue;
    }
    const value = resolve(ctx, written);
    if (value === null) {
      ok = false;
      continue;
    }
    const walk = (node: typeof value): void => {
      if (node.kind === 'string') out.push(node);
      else if (node.kind === 'list') node.items.forEach(walk);
      else {
        ok = false;
        const what =
          written.kind !== 'ref'
            ? `this is ${describeValue(node)}`
            : node === value
              ? `\`${written.name}\` is ${describeValue(node)}`
              : `\`${written.name}\` holds ${describeValue(node)}`;
        error(
          ctx,
          'check/bad-selector-value',
          `\`${s.selector.name}\` takes strings or lists of strings, but ${what}`,
          written.kind === 'ref' ? written.span : node.span,
        );
      }
    };
    walk(value);
  }
  return ok ? out : null;
}
