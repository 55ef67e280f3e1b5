/**
 * A Gemini CLI policy file read as Gemini CLI reads it (policy/toml-loader.ts): the TOML, the
 * schema of a `[[rule]]` table (any break of it makes Gemini CLI skip the whole file), the checks
 * it reports per rule, and how it compiles `commandPrefix`, `commandRegex` and `argsPattern` into
 * the one regex it tests against the call's arguments (policy/utils.ts, `buildArgsPatterns`).
 */
import { diagnostic, LineIndex, type Diagnostic, type Span } from '../../engine/index.js';
import { placeSpan, readToml, tomlPlaces } from '../common/toml.js';
import { childPointer } from '../common/tree.js';
import { checkJsRegex, isSafeForGemini } from './jsregex.js';
import { DSH_TO_GEMINI, editDistance, GEMINI_BUILTIN_TOOLS, GEMINI_SHELL_TOOL, mapToolName } from './tools.js';

export type GeminiDecision = 'allow' | 'deny' | 'ask_user';
export const GEMINI_MODES = ['default', 'autoEdit', 'yolo', 'plan'] as const;
export type GeminiMode = (typeof GEMINI_MODES)[number];

/** One `[[rule]]` table as Gemini CLI loads it. */
export interface GeminiRule {
  /** 0-based position among the file's rules. */
  index: number;
  /** `file:line:col` of the `[[rule]]` header. */
  id: string;
  span: Span;
  line: number;
  /** The tool names (`toolName`, one or a list); `['*']` when only `mcpName` is given. */
  toolNames: string[];
  mcpName?: string;
  subagent?: string;
  argsPattern?: string;
  /** The prefixes in effect (`commandPrefix = ""` is ignored by Gemini CLI and absent here). */
  commandPrefix?: string[];
  /** The regex in effect (ignored when `commandPrefix` is in effect, or empty). */
  commandRegex?: string;
  decision: GeminiDecision;
  priority: number;
  modes?: GeminiMode[];
  interactive?: boolean;
  toolAnnotations?: Record<string, unknown>;
  allowRedirection?: boolean;
  denyMessage?: string;
  /**
   * The regexes Gemini CLI tests against the stable JSON of the arguments, one rule each (`[]`:
   * the rule makes none; `[undefined]`: one rule without a regex).
   */
  patterns: (string | undefined)[];
  /** Where each key is written. */
  keySpans: Map<string, Span>;
  /** Where each key's value is written. */
  valueSpans: Map<string, Span>;
}

export interface ReadPolicy {
  rules: GeminiRule[];
  diagnostics: Diagnostic[];
  /** Gemini CLI would load none of the file's rules (a TOML or schema error). */
  rejected: boolean;
}

const RULE_KEYS = [
  'toolName', 'subagent', 'mcpName', 'argsPattern', 'commandPrefix', 'commandRegex', 'decision', 'priority', 'modes',
  'interactive', 'toolAnnotations', 'allowRedirection', 'allow_redirection', 'denyMessage', 'deny_message',
];

/** JavaScript's RegExp escaping as Gemini CLI's `escapeRegex` does it. */
export function escapeForGemini(text: string): string {
  return text.replace(/[-[\]{}()*+?.,\\^$|#\s"]/g, '\\$&');
}

/** `buildArgsPatterns`: `commandPrefix` (when truthy) wins over `commandRegex`, which wins over `argsPattern`. */
export function buildArgsPatterns(argsPattern?: string, commandPrefix?: string[] | string, commandRegex?: string): (string | undefined)[] {
  if (commandPrefix !== undefined && commandPrefix !== '') {
    const prefixes = Array.isArray(commandPrefix) ? commandPrefix : [commandPrefix];
    return prefixes.map((p) => `"command":"${escapeForGemini(JSON.stringify(p).slice(1, -1))}(?:[\\s"]|\\\\")`);
  }
  if (commandRegex) return [`"command":"${commandRegex}`];
  return [argsPattern || undefined];
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a date';
  if (v !== null && typeof v === 'object') return 'a table';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  return `a ${typeof v}`;
}

export function readGeminiPolicy(text: string, file: string): ReadPolicy {
  const src = { file, lines: new LineIndex(text) };
  const diagnostics: Diagnostic[] = [];
  // The values as smol-toml reads them by default (integers as JavaScript numbers, dates as
  // `Date`s), for the checks below and the evaluator to compare as Gemini CLI's JavaScript does.
  const read = readToml(text, src, { integersAsBigInt: false });
  if (read.error) {
    diagnostics.push(
      diagnostic('import/toml-syntax', 'error', `invalid TOML: ${read.error.message}`, {
        span: read.error.span,
        help: 'gemini cli cannot read this file, so it loads none of its rules',
      }),
    );
    return { rules: [], diagnostics, rejected: true };
  }
  const doc = read.value;
  // Without the places of the values, diagnostics point at the file's start.
  const places = tomlPlaces(text);
  const spanOf = (pointer: string, key = false): Span => placeSpan(places, src, pointer, key) ?? src.lines.span(file, 0, 0);

  let schemaBroken = false;
  const schema = (pointer: string, message: string, help?: string, key = false) => {
    schemaBroken = true;
    diagnostics.push(
      diagnostic('import/invalid-rule', 'error', message, {
        span: spanOf(pointer, key),
        help: help ?? 'gemini cli rejects the whole file when a rule breaks its schema, so it loads none of its rules',
      }),
    );
  };

  const root = doc as Record<string, unknown>;
  for (const key of Object.keys(root)) {
    if (key === 'rule' || key === 'safety_checker') continue;
    diagnostics.push(
      diagnostic('import/unknown-key', 'warning', `gemini cli ignores the top-level key \`${key}\``, {
        span: spanOf(childPointer('', key), true),
        help: key === 'rules' ? 'rules are written as `[[rule]]` tables' : 'a policy file holds `[[rule]]` and `[[safety_checker]]` tables',
      }),
    );
  }
  const checkers = root['safety_checker'];
  if (Array.isArray(checkers)) {
    checkers.forEach((_c, i) => {
      diagnostics.push(
        diagnostic('import/unsupported-checker', 'warning', 'a `[[safety_checker]]` runs a checker program, which dshpolicy cannot say in a rule; it is not imported', {
          span: spanOf(childPointer('/safety_checker', i)),
          help: 'a dshpolicy `run` rule with a hook can call the same checker',
        }),
      );
    });
  } else if (checkers !== undefined) {
    schema('/safety_checker', `\`safety_checker\` must be an array of tables, found ${typeName(checkers)}`, undefined, true);
  }

  const rawRules = root['rule'];
  const rules: GeminiRule[] = [];
  if (rawRules === undefined) return { rules, diagnostics, rejected: false };
  if (!Array.isArray(rawRules)) {
    schema('/rule', `\`rule\` must be an array of tables (\`[[rule]]\`), found ${typeName(rawRules)}`, undefined, true);
    return { rules, diagnostics, rejected: true };
  }

  rawRules.forEach((raw, index) => {
    const at = childPointer('/rule', index);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || raw instanceof Date) {
      schema(at, `a rule must be a table, found ${typeName(raw)}`);
      return;
    }
    const r = raw as Record<string, unknown>;
    const header = spanOf(at);
    const keySpans = new Map<string, Span>();
    const valueSpans = new Map<string, Span>();
    for (const k of Object.keys(r)) {
      keySpans.set(k, spanOf(childPointer(at, k), true));
      valueSpans.set(k, spanOf(childPointer(at, k)));
    }
    const keyAt = (k: string) => childPointer(at, k);
    for (const k of Object.keys(r)) {
      if (RULE_KEYS.includes(k)) continue;
      const near = RULE_KEYS.find((known) => known.toLowerCase() === k.toLowerCase() || editDistance(known, k) <= 2);
      diagnostics.push(
        diagnostic('import/unknown-key', 'warning', `gemini cli ignores the key \`${k}\``, {
          span: keySpans.get(k),
          help: near ? `did you mean \`${near}\`?` : `a rule's keys are ${RULE_KEYS.filter((x) => !x.includes('_')).map((x) => `\`${x}\``).join(', ')}`,
        }),
      );
    }
    const str = (k: string): string | undefined => {
      const v = r[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'string') {
        schema(keyAt(k), `\`${k}\` must be a string, found ${typeName(v)}`);
        return undefined;
      }
      return v;
    };
    const strOrList = (k: string): string[] | undefined => {
      const v = r[k];
      if (v === undefined) return undefined;
      if (typeof v === 'string') return [v];
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
      schema(keyAt(k), `\`${k}\` must be a string or an array of strings, found ${typeName(v)}`);
      return undefined;
    };
    const bool = (k: string): boolean | undefined => {
      const v = r[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'boolean') {
        schema(keyAt(k), `\`${k}\` must be true or false, found ${typeName(v)}`);
        return undefined;
      }
      return v;
    };

    const toolNamesRaw = strOrList('toolName');
    const mcpName = str('mcpName');
    const subagent = str('subagent');
    const argsPattern = str('argsPattern');
    const prefixRaw = r['commandPrefix'];
    const commandPrefix = strOrList('commandPrefix');
    const commandRegex = str('commandRegex');
    const interactive = bool('interactive');
    const allowRedirection = bool('allowRedirection') ?? bool('allow_redirection');
    const denyMessage = str('denyMessage') ?? str('deny_message');

    const decisionRaw = r['decision'];
    let decision: GeminiDecision = 'deny';
    if (decisionRaw === undefined) schema(at, 'a rule needs a `decision`', 'write `decision = "allow"`, `"deny"` or `"ask_user"`; gemini cli rejects the whole file without it');
    else if (decisionRaw === 'allow' || decisionRaw === 'deny' || decisionRaw === 'ask_user') decision = decisionRaw;
    else {
      const shown = typeof decisionRaw === 'string' ? `\`${decisionRaw}\`` : typeName(decisionRaw);
      schema(keyAt('decision'), `\`decision\` must be \`allow\`, \`deny\` or \`ask_user\`, found ${shown}`, decisionRaw === 'ask' ? 'gemini cli spells it `ask_user`; it rejects the whole file otherwise' : undefined);
    }

    const prio = r['priority'];
    let priority = 0;
    if (prio === undefined) schema(at, 'a rule needs a `priority`', 'write a whole number from 0 to 999; gemini cli rejects the whole file without it');
    else if (typeof prio !== 'number') schema(keyAt('priority'), `\`priority\` must be a number, found ${typeName(prio)}`);
    else if (!Number.isInteger(prio)) schema(keyAt('priority'), `\`priority\` must be a whole number, found \`${prio}\``);
    else if (prio < 0 || prio > 999) schema(keyAt('priority'), `\`priority\` must be from 0 to 999, found \`${prio}\``, 'gemini cli adds the file\'s tier to `priority / 1000`, so 1000 would reach the next tier; it rejects the whole file');
    else priority = prio;

    let modes: GeminiMode[] | undefined;
    const modesRaw = r['modes'];
    if (modesRaw !== undefined) {
      if (!Array.isArray(modesRaw)) schema(keyAt('modes'), `\`modes\` must be an array, found ${typeName(modesRaw)}`);
      else {
        const bad = modesRaw.find((m) => !(GEMINI_MODES as readonly unknown[]).includes(m));
        if (bad !== undefined) {
          const i = modesRaw.indexOf(bad);
          schema(childPointer(keyAt('modes'), i), `\`${String(bad)}\` is not an approval mode`, `the modes are ${GEMINI_MODES.map((m) => `\`${m}\``).join(', ')}; gemini cli rejects the whole file otherwise`);
        } else modes = modesRaw as GeminiMode[];
      }
    }
    let toolAnnotations: Record<string, unknown> | undefined;
    const ann = r['toolAnnotations'];
    if (ann !== undefined) {
      if (ann === null || typeof ann !== 'object' || Array.isArray(ann) || ann instanceof Date) schema(keyAt('toolAnnotations'), `\`toolAnnotations\` must be a table, found ${typeName(ann)}`);
      else toolAnnotations = ann as Record<string, unknown>;
    }
    if (toolNamesRaw === undefined && mcpName === undefined && r['toolName'] === undefined) {
      diagnostics.push(
        diagnostic('import/missing-tool-name', 'warning', 'a rule without `toolName` applies to every tool', {
          span: header,
          help: 'older gemini cli versions read it so (its own plan-mode policy did); newer ones reject the whole file: write `toolName = "*"`',
        }),
      );
    }
    const toolNames = toolNamesRaw ?? ['*'];

    // Per-rule checks Gemini CLI reports without rejecting the file.
    const ruleError = (k: string | undefined, message: string, help: string) =>
      diagnostics.push(diagnostic('import/invalid-rule', 'error', message, { span: k ? (valueSpans.get(k) ?? header) : header, help }));
    if (commandPrefix !== undefined || commandRegex !== undefined) {
      if (toolNamesRaw === undefined || Array.isArray(r['toolName']) || toolNamesRaw[0] !== GEMINI_SHELL_TOOL) {
        ruleError(commandPrefix !== undefined ? 'commandPrefix' : 'commandRegex', `\`${commandPrefix !== undefined ? 'commandPrefix' : 'commandRegex'}\` needs \`toolName = "${GEMINI_SHELL_TOOL}"\``, `gemini cli reports this and still loads the rule, testing the command against ${toolNames.map((t) => `\`${t}\``).join(', ')}`);
      }
      if (argsPattern !== undefined) ruleError('argsPattern', '`argsPattern` cannot go with `commandPrefix` or `commandRegex`', 'gemini cli reports this and ignores `argsPattern`');
      if (commandPrefix !== undefined && commandRegex !== undefined) ruleError('commandRegex', '`commandPrefix` and `commandRegex` cannot go together', 'gemini cli reports this and ignores `commandRegex`');
    }
    if (toolNames.some((t) => t === '')) {
      ruleError('toolName', 'a tool name cannot be empty', 'write `"*"` for every tool; gemini cli drops this rule');
      return;
    }
    if (mcpName === '') {
      ruleError('mcpName', '`mcpName` cannot be empty', 'gemini cli cannot use this rule');
      return;
    }
    for (const name of toolNamesRaw ?? []) {
      const mapped = mapToolName(name, mcpName);
      if (mapped.form === 'foreign') {
        diagnostics.push(
          diagnostic('import/unknown-tool', 'warning', `\`${name}\` is not a tool of gemini cli`, {
            span: valueSpans.get('toolName') ?? header,
            help: `gemini cli calls that tool \`${DSH_TO_GEMINI[name]}\`; as written, the name matches no call and is not imported`,
          }),
        );
        continue;
      }
      if (mapped.form !== 'other' || name.startsWith('discovered_tool_')) continue;
      const best = GEMINI_BUILTIN_TOOLS.map((b) => [b, editDistance(name, b)] as const).sort((a, b) => a[1] - b[1])[0];
      if (best && best[1] <= 3) {
        diagnostics.push(
          diagnostic('import/unknown-tool', 'warning', `\`${name}\` is not a tool of gemini cli`, {
            span: valueSpans.get('toolName') ?? header,
            help: `did you mean \`${best[0]}\`? (gemini cli warns about it too)`,
          }),
        );
      }
    }
    const patterns = buildArgsPatterns(argsPattern, prefixRaw === '' ? '' : commandPrefix, commandRegex);
    for (const p of patterns) {
      if (p === undefined) continue;
      const check = checkJsRegex(p);
      const field = commandPrefix !== undefined && prefixRaw !== '' ? 'commandPrefix' : commandRegex ? 'commandRegex' : 'argsPattern';
      if (!check.ok) {
        ruleError(field, `invalid regex \`${p}\`: ${check.message}`, 'gemini cli drops this rule');
        return;
      }
      if (!isSafeForGemini(p)) {
        ruleError(field, `gemini cli refuses the regex \`${p}\` as unsafe`, 'it rejects a regex longer than 2048 characters or one with a quantified group that holds a quantifier, such as `(a+)+`; it drops this rule');
        return;
      }
    }
    const prefixInEffect = commandPrefix !== undefined && prefixRaw !== '';
    const regexInEffect = !prefixInEffect && commandRegex !== undefined && commandRegex !== '';
    for (const k of ['commandPrefix', 'commandRegex'] as const) {
      if (r[k] !== '' || (k === 'commandRegex' && prefixInEffect)) continue;
      diagnostics.push(
        diagnostic('import/ignored-field', 'warning', `gemini cli ignores an empty \`${k}\``, {
          span: valueSpans.get(k) ?? header,
          help: 'it reads the rule as if the key were not there',
        }),
      );
    }
    const pos = header.start;
    rules.push({
      index,
      id: `${file}:${pos.line}:${pos.column}`,
      span: header,
      line: pos.line,
      toolNames,
      ...(mcpName !== undefined ? { mcpName } : {}),
      ...(subagent !== undefined ? { subagent } : {}),
      ...(argsPattern !== undefined ? { argsPattern } : {}),
      ...(prefixInEffect ? { commandPrefix } : {}),
      ...(regexInEffect ? { commandRegex } : {}),
      decision,
      priority,
      ...(modes !== undefined ? { modes } : {}),
      ...(interactive !== undefined ? { interactive } : {}),
      ...(toolAnnotations !== undefined ? { toolAnnotations } : {}),
      ...(allowRedirection !== undefined ? { allowRedirection } : {}),
      ...(denyMessage !== undefined ? { denyMessage } : {}),
      patterns,
      keySpans,
      valueSpans,
    });
  });
  return { rules: schemaBroken ? [] : rules, diagnostics, rejected: schemaBroken };
}

/** The rules in the order Gemini CLI tries them: higher priority first, then file order. */
export function geminiOrder(rules: readonly GeminiRule[]): GeminiRule[] {
  return [...rules].sort((a, b) => b.priority - a.priority || a.index - b.index);
}
