/**
 * Checks of `on <seam> { ... }` blocks: the seam, each rule's form and clauses, its tools and
 * selectors. Conditions are checked in check-when.ts.
 */
import {
  HOOK_EVENT_SEAMS,
  isHttpUrl,
  SEAM_EFFECTS,
  SEAM_HOOK_EVENTS,
  SEAMS,
  TOOL_SEAMS,
  agentEventInfo,
  dialectTitle,
  dialectsOfAgentEvent,
  hookProtocol,
  hookProtocols,
  type Effect,
  type HookProtocol,
  type Seam,
  type Span,
} from '../engine/index.js';
import { quote } from '../grammar/index.js';
import type { ObjectEntry, OnBlock, Ref, RuleNode, StringLit, ValueNode } from './ast.js';
import { error, joinSpans, resolve, spanInString, warning, type CheckContext } from './check-context.js';
import { checkSelectors, checkTools } from './check-selectors.js';
import { checkExpr } from './check-when.js';
import { describeUse, describeValue } from './scope.js';
import { an, codeAlternatives, codeList, didYouMean } from './suggest.js';

export const EFFECTS: readonly Effect[] = ['deny', 'ask', 'allow', 'block', 'context', 'continue', 'halt', 'run', 'limit'];
/** Rule forms whose decision carries a reason. */
export const REASON_EFFECTS: readonly Effect[] = ['deny', 'ask', 'block', 'continue', 'halt'];
/**
 * The hook dialect of a `run` rule that names none: the language reads such a hook as a Claude Code
 * command hook (the dialects themselves are the agents' protocols registered with the engine).
 */
export const DEFAULT_DIALECT = 'claude';

/** The hook dialects a `run` rule may name: one per registered agent protocol. */
export function hookDialects(): string[] {
  return hookProtocols().map((p) => p.dialect);
}
export const MIN_TIMEOUT_MS = 1;
export const MAX_TIMEOUT_MS = 60 * 60 * 1000;
export const MAX_LIMIT = 1000;

export function asSeam(word: string): Seam | undefined {
  return (SEAMS as readonly string[]).includes(word) ? (word as Seam) : undefined;
}

export function unknownSeam(ctx: CheckContext, word: { name: string; span: Span }): void {
  const candidates = SEAMS;
  const seamOfEvent = HOOK_EVENT_SEAMS[word.name];
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
  checkWith(ctx, rule, { event });
  const dialect = rule.dialect?.name ?? DEFAULT_DIALECT;
  if (!hookProtocol(dialect)) return;
  const info = agentEventInfo(dialect, event);
  if (!info) {
    const other = dialectsOfAgentEvent(event)[0];
    error(
      ctx,
      'check/event-not-in-dialect',
      `${dialectTitle(dialect)} has no \`${event}\` event`,
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
  checkWith(ctx, rule, { seam });
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
    } else if (!hookProtocol(rule.dialect.name)) {
      error(
        ctx,
        'check/unknown-dialect',
        `\`${rule.dialect.name}\` is not a hook dialect`,
        rule.dialect.span,
        `${didYouMean(rule.dialect.name, hookDialects()) ?? `dialects are ${codeAlternatives(hookDialects())}`}`,
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

// ---------------------------------------------------------------- `with { ... }`

/** The keys of a hook's `with` object, in the order the printer writes them. */
export const HOOK_OPTIONS = ['args', 'shell', 'plugin_root', 'if', 'http', 'headers', 'allowed_env_vars', 'on_deadline'] as const;

/** Whether a dialect's agent evaluates a handler's `if` on a seam's event or an agent event. */
export function evaluatesIf(place: { seam: Seam } | { event: string }, dialect: string = DEFAULT_DIALECT): boolean {
  const events = hookProtocol(dialect)?.conditionEvents ?? [];
  return events.includes('seam' in place ? SEAM_HOOK_EVENTS[place.seam as Exclude<Seam, 'agent-event'>] : place.event);
}

/** Where a rule is: a seam's block, or the block of an agent event without one. */
type Place = { seam: Seam } | { event: string };

/**
 * `with { ... }`: only with a `hook`; known keys, each with a value of its type (a `let` name
 * of that type will do), and each allowed in the rule's dialect and place.
 */
function checkWith(ctx: CheckContext, rule: RuleNode, place: Place): void {
  const clause = rule.with;
  if (!clause) return;
  if (!rule.hook) {
    error(ctx, 'check/clause-not-allowed', '`with` only goes with a `hook`', clause.span, 'the options of `with` are those of a `run` rule\'s command hook');
    return;
  }
  // an unknown dialect has been reported: what it allows is unknown
  const dialect = hookProtocol(rule.dialect?.name ?? DEFAULT_DIALECT);
  const seen = new Set<string>();
  let args: ObjectEntry | undefined;
  let shell: ObjectEntry | undefined;
  let http: ObjectEntry | undefined;
  let headers: ObjectEntry | undefined;
  let envVars: ObjectEntry | undefined;
  for (const entry of clause.options.entries) {
    // a key given twice is a syntax error (`parse/duplicate-key`)
    if (seen.has(entry.key)) continue;
    seen.add(entry.key);
    switch (entry.key) {
      case 'args':
        if (notInDialect(ctx, dialect, entry)) break;
        args = entry;
        checkArgs(ctx, entry);
        break;
      case 'shell':
        if (notInDialect(ctx, dialect, entry)) break;
        shell = entry;
        checkShell(ctx, entry);
        break;
      case 'plugin_root':
        optionString(ctx, entry);
        break;
      case 'if':
        if (notInDialect(ctx, dialect, entry)) break;
        checkIf(ctx, entry, place, dialect);
        break;
      case 'http':
        if (notInDialect(ctx, dialect, entry)) break;
        if (optionBool(ctx, entry) === true) http = entry;
        break;
      case 'headers':
        headers = entry;
        checkHeaders(ctx, entry);
        break;
      case 'allowed_env_vars':
        envVars = entry;
        checkStringList(ctx, entry, 'e.g. `allowed_env_vars: ["API_TOKEN"]`: the variables a header may name');
        break;
      case 'on_deadline':
        checkOnDeadline(ctx, entry);
        break;
      default:
        error(
          ctx,
          'check/unknown-hook-option',
          `${quote(entry.key)} is not a hook option`,
          entry.keySpan,
          suggestOption(entry.key) ?? `a hook's options are ${codeAlternatives(HOOK_OPTIONS)}`,
        );
    }
  }
  for (const entry of [headers, envVars]) {
    if (entry && !http) error(ctx, 'check/http-option', `\`${entry.key}\` goes only with \`http: true\``, entry.keySpan, 'an http hook POSTs the payload to the URL in `hook`; add `http: true`');
  }
  if (http && (args || shell)) {
    error(ctx, 'check/http-option', `an http hook takes no \`${args ? 'args' : 'shell'}\``, (args ?? shell)!.keySpan, 'an http hook POSTs the payload to the URL in `hook`; it runs no program');
  }
  if (http && rule.hook) {
    const url = rule.hook.command.value;
    if (!isHttpUrl(url)) error(ctx, 'check/bad-url', `\`${url}\` is not an http or https url`, rule.hook.command.span, 'with `http: true`, `hook` holds the URL the payload is POSTed to');
  }
  if (args && shell) {
    error(
      ctx,
      'check/shell-and-args',
      'a hook with `args` runs without a shell, so it takes no `shell`',
      shell.keySpan,
      'remove `shell`; or remove `args` and write the whole command in `hook`',
    );
  }
}

/** `on_deadline`: what a hook that has not answered by the hook's deadline counts as. */
function checkOnDeadline(ctx: CheckContext, entry: ObjectEntry): void {
  const value = optionString(ctx, entry);
  if (value !== undefined && value !== 'fail-closed' && value !== 'none') {
    error(ctx, 'check/bad-hook-option', `\`on_deadline\` must be \`"fail-closed"\` or \`"none"\`, not ${quote(value)}`, entry.value.span, STRING_OPTION_HELP['on_deadline']);
  }
}

/** "did you mean `plugin_root`?" for a misspelt key, also for `pluginRoot` and `plugin-root`. */
function suggestOption(key: string): string | undefined {
  const plain = (k: string): string => k.toLowerCase().replace(/[_-]/g, '');
  const same = HOOK_OPTIONS.find((o) => plain(o) === plain(key));
  return same ? `did you mean \`${same}\`?` : didYouMean(key, HOOK_OPTIONS);
}

/** Reports an option the dialect's hooks do not have; true when it did. */
function notInDialect(ctx: CheckContext, dialect: HookProtocol | undefined, entry: ObjectEntry): boolean {
  const no = dialect?.unsupportedOption?.(entry.key);
  if (!no) return false;
  const other = hookProtocols().find((p) => !p.unsupportedOption?.(entry.key));
  error(ctx, 'check/option-not-in-dialect', no.message, entry.keySpan, other ? `${no.help}, or write \`dialect ${other.dialect}\`` : no.help);
  return true;
}

const STRING_OPTION_HELP: Readonly<Record<string, string>> = {
  shell: 'write `shell: "bash"`',
  plugin_root: 'the plugin\'s directory, e.g. `plugin_root: "/home/me/.claude/plugins/x"`',
  if: 'one permission rule, e.g. `if: "Bash(git push *)"`',
  on_deadline: 'write `on_deadline: "none"` to leave a late hook out of the decision (`"fail-closed"`, the default, denies or blocks)',
};

/** The string an option holds; reported when it holds something else; undefined then or when unknown. */
function optionString(ctx: CheckContext, entry: ObjectEntry): string | undefined {
  const value = resolve(ctx, entry.value);
  if (value === null) return undefined;
  if (value.kind === 'string') return value.value;
  error(ctx, 'check/bad-hook-option', `\`${entry.key}\` must be a string, but ${describeUse(entry.value, value)}`, entry.value.span, STRING_OPTION_HELP[entry.key]);
  return undefined;
}

/** `args`: a list of strings, written out or the name of a `let`. */
function checkArgs(ctx: CheckContext, entry: ObjectEntry): void {
  const written = entry.value;
  const value = resolve(ctx, written);
  if (value === null) return;
  const help = 'e.g. `args: ["./hooks/guard.js", "--strict"]`: the `hook` is the program, these are its arguments';
  if (value.kind !== 'list') {
    error(ctx, 'check/bad-hook-option', `\`args\` must be a list of strings, but ${describeUse(written, value)}`, written.span, help);
    return;
  }
  if (written.kind === 'list') {
    // written out: each item is reported where it stands
    for (const item of written.items) {
      const v = resolve(ctx, item);
      if (v !== null && v.kind !== 'string') {
        error(ctx, 'check/bad-hook-option', `\`args\` must be a list of strings, but ${describeUse(item, v)}`, item.span, help);
      }
    }
    return;
  }
  // a `let` name: the first item that is not a string is reported at the name
  const bad = value.items.findIndex((item) => item.kind !== 'string');
  if (bad >= 0) {
    const what = describeValue(value.items[bad] as ValueNode);
    error(ctx, 'check/bad-hook-option', `\`args\` must be a list of strings, but item ${bad + 1} of ${describeValue(written)} is ${what}`, written.span, help);
  }
}

/** A boolean option; reported when it holds something else. */
function optionBool(ctx: CheckContext, entry: ObjectEntry): boolean | undefined {
  const value = resolve(ctx, entry.value);
  if (value === null) return undefined;
  if (value.kind === 'bool') return value.value;
  error(ctx, 'check/bad-hook-option', `\`${entry.key}\` must be true or false, but ${describeUse(entry.value, value)}`, entry.value.span, 'write `http: true`');
  return undefined;
}

/** A list of strings (`allowed_env_vars`). */
function checkStringList(ctx: CheckContext, entry: ObjectEntry, help: string): void {
  const value = resolve(ctx, entry.value);
  if (value === null) return;
  if (value.kind !== 'list' || value.items.some((i) => i.kind !== 'string')) {
    error(ctx, 'check/bad-hook-option', `\`${entry.key}\` must be a list of strings, but ${describeUse(entry.value, value)}`, entry.value.span, help);
  }
}

/** `headers`: an object of strings. */
function checkHeaders(ctx: CheckContext, entry: ObjectEntry): void {
  const value = resolve(ctx, entry.value);
  if (value === null) return;
  if (value.kind !== 'object' || value.entries.some((e) => e.value.kind !== 'string')) {
    error(ctx, 'check/bad-hook-option', `\`headers\` must be an object of strings, but ${describeUse(entry.value, value)}`, entry.value.span, 'e.g. `headers: {Authorization: "Bearer $API_TOKEN"}`');
  }
}

/** `shell`: `"bash"`, the one shell Claude Code names. */
function checkShell(ctx: CheckContext, entry: ObjectEntry): void {
  const shell = optionString(ctx, entry);
  if (shell === undefined || shell === 'bash') return;
  error(
    ctx,
    'check/unknown-shell',
    `${quote(shell)} is not a hook shell`,
    entry.value.span,
    'the only one is `"bash"`; without `shell` the command runs with `sh`',
  );
}

/** `if`: one Claude Code permission rule, where Claude Code evaluates it. */
function checkIf(ctx: CheckContext, entry: ObjectEntry, place: Place, dialect: HookProtocol | undefined): void {
  const rule = optionString(ctx, entry);
  if (rule === undefined || !dialect) return;
  const runs = evaluatesIf(place, dialect.dialect);
  if (!runs) {
    const where = 'seam' in place ? `the \`${place.seam}\` seam` : `\`${place.event}\``;
    error(
      ctx,
      'check/if-never-runs',
      `${dialect.title} evaluates \`if\` only on tool events: a handler with \`if\` never runs on ${where}`,
      entry.keySpan,
      'remove `if`, or move the hook to `pre-tool`, `post-tool`, or an `on PostToolUseFailure`, `on PermissionRequest` or `on PermissionDenied` block',
    );
    return;
  }
  const problem = dialect.checkCondition?.(rule) ?? null;
  if (!problem) return;
  const written = entry.value;
  const span = written.kind === 'string' ? spanInString(ctx, written, problem.offset) : written.span;
  error(
    ctx,
    'check/invalid-permission-rule',
    `invalid \`if\` rule: ${problem.message}`,
    span,
    `\`if\` holds one ${dialect.title} permission rule, such as \`Bash(git push *)\` or \`Edit(*.ts)\``,
  );
}


function checkStringValue(ctx: CheckContext, node: StringLit | Ref, what: string): void {
  const value = resolve(ctx, node);
  if (value === null || value.kind === 'string') return;
  error(ctx, 'check/bad-value', `${what} must be a string, but ${describeUse(node, value)}`, node.span);
}
