/**
 * Checks of `on <seam> { ... }` blocks: the seam, each rule's form and clauses, its tools and
 * selectors. Conditions are checked in check-when.ts.
 */
import { SEAM_EFFECTS, SEAMS, TOOL_SEAMS, SEAM_OF_AGENT_EVENT, agentEventInfo, dialectsOfAgentEvent, type Effect, type HookDialect, type Seam, type Span } from '../engine/index.js';
import type { OnBlock, Ref, RuleNode, StringLit } from './ast.js';
import { error, joinSpans, resolve, warning, type CheckContext } from './check-context.js';
import { checkSelectors, checkTools } from './check-selectors.js';
import { checkExpr } from './check-when.js';
import { describeUse } from './scope.js';
import { an, codeAlternatives, codeList, didYouMean } from './suggest.js';

export const EFFECTS: readonly Effect[] = ['deny', 'ask', 'allow', 'block', 'context', 'continue', 'halt', 'run', 'limit'];
/** Rule forms whose decision carries a reason. */
export const REASON_EFFECTS: readonly Effect[] = ['deny', 'ask', 'block', 'continue', 'halt'];
export const HOOK_DIALECTS = ['claude', 'codex'] as const;
export const MIN_TIMEOUT_MS = 1;
export const MAX_TIMEOUT_MS = 60 * 60 * 1000;
export const MAX_LIMIT = 1000;

export function asSeam(word: string): Seam | undefined {
  return (SEAMS as readonly string[]).includes(word) ? (word as Seam) : undefined;
}

export function unknownSeam(ctx: CheckContext, word: { name: string; span: Span }): void {
  const candidates = SEAMS;
  const seamOfEvent = SEAM_OF_AGENT_EVENT[word.name];
  error(
    ctx,
    'check/unknown-seam',
    `\`${word.name}\` is not a seam`,
    word.span,
    seamOfEvent
      ? `the agents' \`${word.name}\` event is the \`${seamOfEvent}\` seam`
      : (didYouMean(word.name, candidates) ?? `seams are ${codeList(candidates)}; an agent event without a seam (\`Notification\`, \`PreCompact\`, ...) takes \`run\` rules`),
  );
}

export function checkOnBlock(ctx: CheckContext, block: OnBlock): void {
  const seam = asSeam(block.seam.name);
  if (!seam) {
    if (dialectsOfAgentEvent(block.seam.name).length > 0) {
      for (const rule of block.rules) checkAgentEventRule(ctx, block.seam.name, rule);
      return;
    }
    unknownSeam(ctx, block.seam);
    return;
  }
  for (const rule of block.rules) checkRule(ctx, seam, rule);
}

/**
 * Rules of an `on <AgentEvent>` block (an agent event without a seam): only `run` rules, each an
 * agent's hook handler for the event, in a dialect whose agent has the event.
 */
function checkAgentEventRule(ctx: CheckContext, event: string, rule: RuleNode): void {
  const word = rule.effect.name;
  if (word !== 'run') {
    error(
      ctx,
      (EFFECTS as readonly string[]).includes(word) ? 'check/effect-not-allowed' : 'check/unknown-effect',
      `\`${word}\` is not a rule of the agent event \`${event}\``,
      rule.effect.span,
      'an agent event without a seam takes only `run` rules: the hooks its agent runs there',
    );
    return;
  }
  const first = rule.tools[0];
  const last = rule.tools[rule.tools.length - 1];
  if (first && last) {
    error(ctx, 'check/tools-not-allowed', `the agent event \`${event}\` takes no tool list`, joinSpans(first.span, last.span), 'use `matcher "<pattern>"` to select what the hook runs on');
  }
  for (const s of rule.selectors) {
    error(ctx, 'check/selector-not-allowed', `the agent event \`${event}\` takes no \`${s.selector.name}\` selector`, s.span);
  }
  if (rule.when) error(ctx, 'check/clause-not-allowed', `a rule of the agent event \`${event}\` takes no \`when\` condition`, rule.when.span, 'use `matcher "<pattern>"` to select what the hook runs on');
  checkClauses(ctx, 'run', rule);
  const dialect = rule.dialect?.name ?? 'claude';
  if (!(HOOK_DIALECTS as readonly string[]).includes(dialect)) return;
  const info = agentEventInfo(dialect as HookDialect, event);
  if (!info) {
    const other = dialectsOfAgentEvent(event)[0];
    error(
      ctx,
      'check/event-not-in-dialect',
      `${dialect === 'claude' ? 'Claude Code' : 'Codex'} has no \`${event}\` event`,
      rule.dialect?.span ?? rule.effect.span,
      other ? `write \`dialect ${other}\`` : undefined,
    );
    return;
  }
  const m = rule.matcher;
  if (m && !rule.hook) error(ctx, 'check/clause-not-allowed', '`matcher` only goes with a `hook`', m.span);
  else if (m?.kind === 'ident' && m.name !== '*') {
    error(ctx, 'check/bad-matcher', `\`${m.name}\` is not a matcher`, m.span, 'write the matcher as a string, or `matcher *` for every value');
  } else if (m?.kind === 'string' && info.matchField === undefined) {
    error(ctx, 'check/clause-not-allowed', `\`${event}\` has nothing to match, so no \`matcher\` pattern`, m.span, 'write `matcher *`, or leave it out: the hook runs on every event');
  }
}

function checkRule(ctx: CheckContext, seam: Seam, rule: RuleNode): void {
  const word = rule.effect.name;
  const forms = SEAM_EFFECTS[seam];
  if (!(EFFECTS as readonly string[]).includes(word)) {
    error(
      ctx,
      'check/unknown-effect',
      `\`${word}\` is not a rule form`,
      rule.effect.span,
      didYouMean(word, forms) ?? `the \`${seam}\` seam takes ${codeAlternatives(forms)}`,
    );
    return;
  }
  const effect = word as Effect;
  if (!forms.includes(effect)) {
    error(
      ctx,
      'check/effect-not-allowed',
      `\`${effect}\` is not a rule of the \`${seam}\` seam`,
      rule.effect.span,
      `the \`${seam}\` seam takes ${codeAlternatives(forms)}`,
    );
    return;
  }

  if (TOOL_SEAMS.includes(seam)) {
    checkTools(ctx, rule.tools);
    checkSelectors(ctx, rule.selectors, rule.tools);
  } else {
    const first = rule.tools[0];
    const last = rule.tools[rule.tools.length - 1];
    if (first && last) {
      error(
        ctx,
        'check/tools-not-allowed',
        `the \`${seam}\` seam has no tools`,
        joinSpans(first.span, last.span),
        `remove the tool list: \`${seam}\` rules apply to every \`${seam}\` event`,
      );
    }
    for (const s of rule.selectors) {
      error(
        ctx,
        'check/selector-not-allowed',
        `the \`${seam}\` seam has no tools, so no \`${s.selector.name}\` selector`,
        s.span,
        'use a `when` condition on the fields of the seam instead',
      );
    }
  }

  checkClauses(ctx, effect, rule);
  checkMatcher(ctx, seam, rule);
  if (rule.when) {
    if (effect === 'limit') {
      error(ctx, 'check/clause-not-allowed', 'a `limit` rule takes no `when` condition', rule.when.span, 'the limit applies to every forced continuation');
    } else {
      checkExpr(ctx, seam, rule.when);
    }
  }
}

function checkClauses(ctx: CheckContext, effect: Effect, rule: RuleNode): void {
  // Text: `context` only, and required there.
  if (effect === 'context') {
    if (!rule.text) {
      error(ctx, 'check/missing-clause', 'a `context` rule needs its text', rule.span, 'add the text, e.g. `context "Run the tests first."`');
    } else {
      checkStringValue(ctx, rule.text, 'the text of a `context` rule');
    }
  } else if (rule.text) {
    error(ctx, 'check/clause-not-allowed', `${an(effect)} \`${effect}\` rule takes no text`, rule.text.span, 'only `context` rules add text');
  }

  // Hook, timeout and dialect: `run` only.
  if (effect === 'run') {
    if (!rule.hook) {
      error(ctx, 'check/missing-clause', 'a `run` rule needs a `hook`', rule.span, 'name the command to run, e.g. `run Bash hook "./scripts/guard.sh"`');
    } else if (rule.hook.command.value.trim() === '') {
      error(ctx, 'check/empty-hook', 'the hook command is empty', rule.hook.command.span);
    }
  } else if (rule.hook) {
    error(ctx, 'check/clause-not-allowed', `${an(effect)} \`${effect}\` rule takes no \`hook\``, rule.hook.span, 'only `run` rules run a command hook');
  }
  if (rule.timeout) {
    if (!rule.hook) {
      error(ctx, 'check/clause-not-allowed', '`timeout` only goes with a `hook`', rule.timeout.span);
    } else if (!(rule.timeout.ms >= MIN_TIMEOUT_MS && rule.timeout.ms <= MAX_TIMEOUT_MS)) {
      error(ctx, 'check/bad-timeout', `timeout \`${rule.timeout.text}\` is out of range`, rule.timeout.span, 'use a timeout between `1ms` and `1h`');
    }
  }
  if (rule.dialect) {
    if (!rule.hook) {
      error(ctx, 'check/clause-not-allowed', '`dialect` only goes with a `hook`', rule.dialect.span);
    } else if (!(HOOK_DIALECTS as readonly string[]).includes(rule.dialect.name)) {
      error(
        ctx,
        'check/unknown-dialect',
        `\`${rule.dialect.name}\` is not a hook dialect`,
        rule.dialect.span,
        `${didYouMean(rule.dialect.name, HOOK_DIALECTS) ?? `dialects are ${codeAlternatives(HOOK_DIALECTS)}`}`,
      );
    }
  }

  // The count: `limit` only, and required there.
  if (effect === 'limit') {
    if (!rule.limit) {
      error(ctx, 'check/missing-clause', 'a `limit` rule needs a count', rule.span, 'e.g. `limit 3`: at most 3 forced continuations in a row');
    } else if (!Number.isInteger(rule.limit.value) || rule.limit.value < 1 || rule.limit.value > MAX_LIMIT) {
      error(ctx, 'check/bad-limit', `\`${rule.limit.value}\` is not a valid limit`, rule.limit.span, `use a whole number from 1 to ${MAX_LIMIT}`);
    }
  } else if (rule.limit) {
    error(ctx, 'check/clause-not-allowed', `${an(effect)} \`${effect}\` rule takes no count`, rule.limit.span, 'only `limit` rules take a count');
  }

  // The reason.
  if (rule.because) {
    if (REASON_EFFECTS.includes(effect)) {
      checkStringValue(ctx, rule.because, 'a reason');
    } else {
      warning(
        ctx,
        'check/unused-reason',
        `${an(effect)} \`${effect}\` rule shows no reason, so \`because\` has no effect`,
        rule.because.span,
        `only ${codeAlternatives(REASON_EFFECTS)} rules show a reason; use a comment to explain this one`,
      );
    }
  }
}

/** Seams whose agent events have no value for a matcher to test (the agents ignore it there). */
const MATCHERLESS_SEAMS: readonly Seam[] = ['prompt', 'stop'];

/** `matcher`: with a `hook` only, instead of a tool list; a string, or `*` for every value. */
function checkMatcher(ctx: CheckContext, seam: Seam, rule: RuleNode): void {
  const m = rule.matcher;
  if (!m) return;
  if (!rule.hook) {
    error(ctx, 'check/clause-not-allowed', '`matcher` only goes with a `hook`', m.span);
    return;
  }
  if (m.kind === 'ident' && m.name !== '*') {
    error(ctx, 'check/bad-matcher', `\`${m.name}\` is not a matcher`, m.span, 'write the matcher as a string, e.g. `matcher "Edit|Write"`, or `matcher *` for every value');
    return;
  }
  const first = rule.tools[0];
  const last = rule.tools[rule.tools.length - 1];
  if (first && last) {
    error(
      ctx,
      'check/matcher-and-tools',
      'a rule takes a tool list or a `matcher`, not both',
      joinSpans(first.span, last.span),
      'the matcher already selects the tools; remove the tool list',
    );
  }
  if (m.kind === 'string' && MATCHERLESS_SEAMS.includes(seam)) {
    error(
      ctx,
      'check/clause-not-allowed',
      `the \`${seam}\` seam has nothing to match, so no \`matcher\` pattern`,
      m.span,
      'write `matcher *`: the hook runs on every event',
    );
  }
}

function checkStringValue(ctx: CheckContext, node: StringLit | Ref, what: string): void {
  const value = resolve(ctx, node);
  if (value === null || value.kind === 'string') return;
  error(ctx, 'check/bad-value', `${what} must be a string, but ${describeUse(node, value)}`, node.span);
}
