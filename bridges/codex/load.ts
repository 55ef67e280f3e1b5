/**
 * One Codex hooks file (hooks.json, or the `[hooks]` table of a config.toml) into matcher groups,
 * keeping what Codex would run and saying why anything else is left out.
 *
 * Severity: an error is something Codex cannot read (so hooks written there do not run) or a hook
 * that is certainly broken (an invalid matcher, an empty command); a warning is something Codex
 * reads but ignores or runs differently from how it is written; info is a note.
 */
import type { ErrorObject } from 'ajv';
import { checkRegex, diagnostic, LineIndex, type Diagnostic, type Span } from '../../engine/index.js';
import type { HookHandler, HooksConfig, Layer, MatcherGroup } from '../config.js';
import { nodeAt, prop, type ValueNode } from '../common/tree.js';
import { CLAUDE_ONLY_EVENTS, CLAUDE_ONLY_TOOLS, CODEX_EVENTS, codexEvent, codexMatcherKind, suggestEvent } from './events.js';
import { parseJson } from './json.js';
import { COMMAND_KEYS, GROUP_KEYS, validateCodexHooks } from './schema.js';
import { parseToml } from './toml.js';
import { kindWords, plain, plainAt, pointerPath } from './tree.js';
import { readHookStates, type CodexHookStates } from './trust.js';

export type CodexFormat = 'json' | 'toml' | 'rules';

export interface CodexFileOptions {
  layer?: Layer;
  pluginRoot?: string;
}

/** What one file holds, with what a project load needs beyond the groups. */
export interface CodexFile {
  format: CodexFormat;
  config: HooksConfig;
  /** Codex cannot read the file (JSON) or its `[hooks]` table (TOML): none of its hooks run. */
  rejected: boolean;
  /** Groups written in known events (before anything is skipped): Codex calls a source with none empty. */
  groupCount: number;
  /** config.toml only: `[hooks.state]`. */
  states: CodexHookStates;
  /** config.toml only: `features.hooks` (or its old name `codex_hooks`), when set. */
  hooksFeature?: { enabled: boolean; span?: Span; pointer: string };
  /** config.toml only: `[projects."<path>"] trust_level` values. */
  projectTrust: Map<string, string>;
}

const RULES_CALL = /^[ \t]*(prefix_rule|host_executable|network_rule)[ \t]*\(/m;

/** JSON for `*.json`, TOML for `*.toml`, a rules file for `*.rules`; otherwise judged by the content. */
export function detectFormat(text: string, file: string): CodexFormat {
  const lower = file.toLowerCase();
  if (lower.endsWith('.rules') || lower.endsWith('.codexpolicy')) return 'rules';
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.toml')) return 'toml';
  if (RULES_CALL.test(text)) return 'rules';
  return /^\s*\{/.test(text) ? 'json' : 'toml';
}

function baseName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] || file;
}

function rulesDiagnostic(text: string, file: string, lines: LineIndex): Diagnostic {
  const m = RULES_CALL.exec(text);
  const start = m ? m.index + (m[0].length - m[0].trimStart().length) : 0;
  return diagnostic(
    'codex/rules-file',
    'error',
    `\`${baseName(file)}\` is a codex rules file (starlark \`prefix_rule\` calls), not a hooks configuration`,
    {
      span: lines.span(file, start, m ? start + m[1]!.length : 0),
      pointer: '',
      help: '`import codex rules` reads rules files; codex hooks live in `hooks.json` or in the `[hooks]` table of `config.toml`',
    },
  );
}

export function loadCodexFile(text: string, file: string, opts: CodexFileOptions = {}): CodexFile {
  const lines = new LineIndex(text);
  const result: CodexFile = {
    format: detectFormat(text, file),
    config: { agent: 'codex', groups: [], disabled: false, files: [file], diagnostics: [] },
    rejected: false,
    groupCount: 0,
    states: new Map(),
    projectTrust: new Map(),
  };
  const diags = result.config.diagnostics;
  if (result.format === 'rules') {
    diags.push(rulesDiagnostic(text, file, lines));
    result.rejected = true;
    return result;
  }
  const parsed = result.format === 'json' ? parseJson(text, file, lines) : parseToml(text, file, lines);
  if (!parsed.root) {
    if (RULES_CALL.test(text)) diags.push(rulesDiagnostic(text, file, lines));
    else diags.push(...parsed.diagnostics);
    result.rejected = true;
    return result;
  }
  const walk = new Walk(file, result.format, parsed.root, opts, diags);
  walk.run();
  result.rejected = walk.rejected;
  result.groupCount = walk.groupCount;
  result.config.groups = walk.rejected ? [] : walk.groups;
  if (result.format === 'toml') {
    result.states = readHookStates(parsed.root, diags);
    readProjects(parsed.root, result.projectTrust);
    const feature = walk.hooksFeature();
    if (feature) {
      result.hooksFeature = feature;
      result.config.disabled = !feature.enabled;
    }
  }
  return result;
}

function readProjects(root: ValueNode, out: Map<string, string>): void {
  const projects = prop(root, 'projects');
  for (const { key, node } of projects?.props ?? []) {
    const level = prop(node, 'trust_level');
    if (level?.kind === 'string') out.set(key, level.value as string);
  }
}

const CLAUDE_HANDLER_FIELDS = new Set(['if', 'shell', 'args', 'once', 'asyncRewake', 'url', 'headers', 'allowedEnvVars', 'model', 'prompt']);

/** Top-level keys of hooks.json that Codex ignores and that are commonly there on purpose. */
const QUIET_TOP_LEVEL = new Set(['description', '$schema']);

const U64_MAX = 18446744073709551615n;

/** Set by other agents (or by nobody) but never by Codex. */
const UNSET_VARIABLES = new Set(['CLAUDE_PROJECT_DIR', 'CODEX_PROJECT_DIR', 'CODEX_PLUGIN_ROOT', 'CODEX_PLUGIN_DATA', 'CODEX_SESSION_ID', 'CLAUDE_SESSION_ID']);
/** Codex sets these only for hooks that come from a plugin. */
const PLUGIN_VARIABLES = new Set(['PLUGIN_ROOT', 'PLUGIN_DATA', 'CLAUDE_PLUGIN_ROOT', 'CLAUDE_PLUGIN_DATA']);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

class Walk {
  readonly groups: MatcherGroup[] = [];
  rejected = false;
  groupCount = 0;
  /** The plain document the schema saw; handlers' `raw` values are taken from it. */
  private doc: unknown;
  private readonly hooks: ValueNode | undefined;

  constructor(
    private readonly file: string,
    private readonly format: 'json' | 'toml',
    private readonly root: ValueNode,
    private readonly opts: CodexFileOptions,
    private readonly diags: Diagnostic[],
  ) {
    this.hooks = root.kind === 'object' ? prop(root, 'hooks') : undefined;
  }

  private get rejectHelp(): string {
    return this.format === 'json'
      ? 'codex cannot read this file, so none of its hooks run'
      : 'codex cannot read the `[hooks]` table, so none of its hooks run';
  }

  private where(node: ValueNode, key = false): { span?: Span; pointer: string } {
    return { span: (key ? node.keySpan : undefined) ?? node.span, pointer: node.pointer };
  }

  private fatal(code: string, message: string, node: ValueNode, help?: string): void {
    this.rejected = true;
    this.diags.push(diagnostic(code, 'error', message, { ...this.where(node), help: help ? `${help}; ${this.rejectHelp}` : this.rejectHelp }));
  }

  private warn(code: string, message: string, node: ValueNode, opts: { key?: boolean; help?: string; span?: Span } = {}): void {
    this.diags.push(diagnostic(code, 'warning', message, { ...this.where(node, opts.key), ...(opts.span ? { span: opts.span } : {}), help: opts.help }));
  }

  private info(code: string, message: string, node: ValueNode, opts: { key?: boolean; help?: string } = {}): void {
    this.diags.push(diagnostic(code, 'info', message, { ...this.where(node, opts.key), help: opts.help }));
  }

  run(): void {
    this.checkShape();
    if (this.format === 'json') this.checkTopLevel();
    else if (!this.hooks) {
      this.diags.push(diagnostic('codex/no-hooks', 'info', 'this config.toml has no `[hooks]` table', { span: this.root.span, pointer: '' }));
    }
    if (this.hooks?.kind === 'object') this.walkEvents(this.hooks);
  }

  /** The shape Codex insists on (see schema.ts), plus what a JSON Schema cannot see. */
  private checkShape(): void {
    const value = this.format === 'json' ? plain(this.root) : { hooks: this.hooks ? plain(this.hooks) : undefined };
    this.doc = value;
    const seen = new Set<string>();
    for (const e of validateCodexHooks(value)) {
      const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.reportSchemaError(e);
    }
    if (this.format === 'json') this.checkDuplicates();
    this.checkNumbersAndStrings();
  }

  private reportSchemaError(e: ErrorObject): void {
    const node = nodeAt(this.root, e.instancePath) ?? this.root;
    const params = e.params as Record<string, unknown>;
    const path = pointerPath(node.pointer);
    switch (e.keyword) {
      case 'type': {
        const types = String(params['type']).split(',');
        const last = node.pointer.split('/').pop();
        let expected = 'valid';
        if (types.includes('integer')) expected = last === 'timeout' ? 'a whole number of seconds' : 'a whole number';
        else if (types.includes('string')) expected = 'a string';
        else if (types.includes('array')) expected = 'an array';
        else if (types.includes('object')) expected = 'an object';
        else if (types.includes('boolean')) expected = '`true` or `false`';
        const subject = node.pointer === '' ? 'the top level' : `\`${path}\``;
        this.fatal('codex/invalid-type', `${subject} must be ${expected}, not ${kindWords(node.kind)}`, node);
        return;
      }
      case 'required': {
        const missing = String(params['missingProperty']);
        if (missing === 'type') {
          this.fatal('codex/missing-field', `the hook at \`${path}\` has no \`type\``, node, 'add `"type": "command"`');
        } else {
          this.fatal('codex/missing-field', `the command hook at \`${path}\` has no \`${missing}\``, node);
        }
        return;
      }
      case 'enum': {
        const shown = node.kind === 'string' ? `\`${String(node.value)}\`` : kindWords(node.kind);
        const hint = node.kind === 'string' && ['http', 'mcp_tool'].includes(String(node.value)) ? ` (a claude code hook type)` : '';
        this.fatal('codex/unknown-handler-type', `unknown hook type ${shown}${hint}: codex knows \`command\`, \`prompt\` and \`agent\``, node);
        return;
      }
      case 'minimum':
        this.fatal('codex/invalid-number', `\`${path}\` must not be negative`, node);
        return;
      default:
        this.fatal('codex/invalid-value', `\`${path}\` ${(e.message ?? 'is invalid').toLowerCase()}`, node);
    }
  }

  /** serde rejects a struct field written twice, even in JSON where the last one would otherwise win. */
  private checkDuplicates(): void {
    const check = (node: ValueNode | undefined, keys: (k: string) => boolean) => {
      if (node?.kind !== 'object') return;
      const seen = new Set<string>();
      for (const p of node.props ?? []) {
        if (!keys(p.key)) continue;
        if (seen.has(p.key)) this.fatal('codex/duplicate-key', `\`${p.key}\` is written twice in \`${pointerPath(node.pointer)}\``, { ...p.node, span: p.node.keySpan ?? p.node.span });
        seen.add(p.key);
      }
    };
    check(this.root, (k) => k === 'hooks');
    check(this.hooks, (k) => codexEvent(k) !== undefined);
    for (const eventProp of this.hooks?.props ?? []) {
      if (!codexEvent(eventProp.key)) continue;
      for (const group of eventProp.node.items ?? []) {
        check(group, (k) => GROUP_KEYS.has(k));
        for (const handler of prop(group, 'hooks')?.items ?? []) {
          const type = prop(handler, 'type')?.value;
          check(handler, (k) => k === 'type' || (type === 'command' && COMMAND_KEYS.has(k) && k !== 'timeoutSec'));
        }
      }
    }
  }

  /** Integral values written as floats, integers past 64 bits, and strings Codex cannot decode. */
  private checkNumbersAndStrings(): void {
    for (const eventProp of this.hooks?.kind === 'object' ? this.hooks.props ?? [] : []) {
      if (!codexEvent(eventProp.key) || eventProp.node.kind !== 'array') continue;
      for (const group of eventProp.node.items ?? []) {
        if (group.kind !== 'object') continue;
        this.checkString(prop(group, 'matcher'));
        const handlers = prop(group, 'hooks');
        for (const handler of handlers?.kind === 'array' ? handlers.items ?? [] : []) {
          if (handler.kind !== 'object') continue;
          this.checkString(prop(handler, 'type'));
          if (prop(handler, 'type')?.value !== 'command') continue;
          for (const k of ['command', 'commandWindows', 'command_windows', 'statusMessage']) this.checkString(prop(handler, k));
          for (const k of ['timeout', 'additionalContextLimit']) {
            const n = prop(handler, k);
            if (n?.kind === 'float' && Number.isInteger(n.value)) {
              this.fatal('codex/invalid-type', `\`${pointerPath(n.pointer)}\` must be a whole number, not \`${n.raw ?? String(n.value)}\``, n, `write \`${String(n.value)}\``);
            } else if (n?.kind === 'integer' && (n.value as bigint) > U64_MAX) {
              this.fatal('codex/invalid-number', `\`${pointerPath(n.pointer)}\` is too large`, n);
            }
          }
        }
      }
    }
  }

  private checkString(node: ValueNode | undefined): void {
    if (node?.kind === 'string' && LONE_SURROGATE.test(node.value as string)) {
      this.fatal('codex/invalid-string', `\`${pointerPath(node.pointer)}\` contains an unpaired surrogate escape, which codex's JSON reader rejects`, node);
    }
  }

  private checkTopLevel(): void {
    if (this.root.kind !== 'object') return; // reported by the schema
    if (!this.hooks) {
      this.diags.push(
        diagnostic('codex/no-hooks', 'warning', 'the file has no `hooks` object, so codex finds no hooks in it', {
          span: this.root.span,
          pointer: '',
          help: 'codex reads `{"hooks": {"PreToolUse": [...], ...}}`',
        }),
      );
    }
    for (const { key, node } of this.root.props ?? []) {
      if (key === 'hooks' || QUIET_TOP_LEVEL.has(key)) continue;
      this.warn('codex/unknown-key', `unknown top-level key \`${key}\`: codex ignores it`, node, { key: true });
    }
  }

  private walkEvents(hooks: ValueNode): void {
    for (const { key, node } of hooks.props ?? []) {
      if (this.format === 'toml' && key === 'state') continue; // trust state, read separately
      const info = codexEvent(key);
      if (!info) {
        this.unknownEvent(key, node);
        continue;
      }
      if (node.kind !== 'array') continue; // reported by the schema
      if (info.era === 'later' && (node.items?.length ?? 0) > 0) {
        this.info('codex/later-event', `\`${key}\` hooks need a recent codex release; older releases ignore them`, node, { key: true });
      }
      this.groupCount += node.items?.length ?? 0;
      for (const group of node.items ?? []) this.walkGroup(key, group);
    }
  }

  private unknownEvent(key: string, node: ValueNode): void {
    if (CLAUDE_ONLY_EVENTS.has(key)) {
      this.warn('codex/unknown-event', `\`${key}\` is a claude code event: codex has no such hook and ignores these groups`, node, { key: true });
      return;
    }
    const suggestion = suggestEvent(key);
    this.warn('codex/unknown-event', `unknown event \`${key}\`: codex ignores it`, node, {
      key: true,
      help: suggestion ? `did you mean \`${suggestion}\`?` : `codex's events are ${CODEX_EVENTS.map((e) => `\`${e.name}\``).join(', ')}`,
    });
  }

  private walkGroup(event: string, group: ValueNode): void {
    if (group.kind !== 'object') return; // reported by the schema
    for (const { key, node } of group.props ?? []) {
      if (!GROUP_KEYS.has(key)) this.warn('codex/unknown-key', `unknown key \`${key}\` in a matcher group: codex ignores it`, node, { key: true });
    }
    const matcherNode = prop(group, 'matcher');
    const matcher = matcherNode?.kind === 'string' ? (matcherNode.value as string) : undefined;
    const info = codexEvent(event)!;
    if (matcherNode && matcher !== undefined) {
      if (info.matcherInput === undefined) {
        if (matcher !== '' && matcher !== '*') {
          this.warn('codex/matcher-ignored', `codex ignores matchers on \`${event}\` hooks: this group runs for every \`${event}\` event`, matcherNode, {
            help: 'remove the `matcher`',
          });
        }
      } else if (!this.checkMatcher(event, matcher, matcherNode)) {
        return; // Codex drops the whole group
      }
    }
    const handlers = prop(group, 'hooks');
    const items = handlers?.kind === 'array' ? handlers.items ?? [] : [];
    const kept: HookHandler[] = [];
    for (const h of items) {
      const handler = this.walkHandler(event, h);
      if (handler) kept.push(handler);
    }
    if (items.length === 0) {
      this.warn('codex/empty-group', 'this matcher group has no hooks: codex runs nothing for it', handlers ?? group, { key: handlers !== undefined });
      return;
    }
    if (kept.length === 0) return;
    const out: MatcherGroup = {
      agent: 'codex',
      event,
      hooks: kept,
      layer: this.opts.layer ?? 'file',
      source: { file: this.file, pointer: group.pointer, ...(group.span ? { span: group.span } : {}) },
    };
    if (matcher !== undefined) out.matcher = matcher;
    if (this.opts.pluginRoot !== undefined) out.pluginRoot = this.opts.pluginRoot;
    this.groups.push(out);
  }

  /** False when Codex would drop the group (the matcher does not compile). */
  private checkMatcher(event: string, matcher: string, node: ValueNode): boolean {
    const kind = codexMatcherKind(matcher);
    if (kind === 'regex') {
      const err = checkRegex(matcher, '');
      if (err) {
        this.diags.push(
          diagnostic('codex/invalid-matcher', 'error', `invalid matcher \`${matcher}\`: ${err.message}`, {
            span: this.spanInString(node, err.offset) ?? node.span,
            pointer: node.pointer,
            help: 'codex drops this whole group; a matcher with characters other than letters, digits, `_` and `|` is a (rust) regex',
          }),
        );
        return false;
      }
      return true;
    }
    if (kind !== 'exact') return true;
    const info = codexEvent(event)!;
    const alternatives = matcher.split('|');
    const dead: string[] = [];
    let hint = '';
    if (info.matcherValues) {
      for (const a of alternatives) if (!info.matcherValues.includes(a)) dead.push(a);
      hint = `${info.matcherInput} is one of ${info.matcherValues.map((v) => `\`${v}\``).join(', ')}`;
    } else if (info.matcherInput === 'the tool name') {
      const codexTools = ['Bash', 'apply_patch', 'Write', 'Edit', 'spawn_agent', 'Agent'];
      for (const a of alternatives) {
        const caseTwin = codexTools.find((t) => t !== a && t.toLowerCase() === a.toLowerCase());
        if (CLAUDE_ONLY_TOOLS.has(a) || caseTwin !== undefined || a === '') dead.push(a);
        if (caseTwin !== undefined) hint = `names match exactly: did you mean \`${caseTwin}\`?`;
      }
      if (hint === '') hint = 'codex reports `Bash`, `apply_patch` (also matched as `Write` and `Edit`), `spawn_agent` (also `Agent`) and `mcp__<server>__<tool>`';
    }
    if (dead.length === 0) return true;
    const all = dead.length === alternatives.length;
    const list = dead.map((d) => `\`${d}\``).join(', ');
    this.diags.push(
      diagnostic(
        'codex/matcher-never-matches',
        all ? 'warning' : 'info',
        all ? `matcher \`${matcher}\` never matches on \`${event}\`: this group never runs` : `${list} in matcher \`${matcher}\` never ${dead.length === 1 ? 'matches' : 'match'} on \`${event}\``,
        { span: node.span, pointer: node.pointer, help: hint },
      ),
    );
    return true;
  }

  /** The span of one character of a string value, when the written string has no escapes. */
  private spanInString(node: ValueNode, offset: number): Span | undefined {
    const raw = node.raw;
    const value = node.value as string;
    if (!raw || !node.span || raw.length !== value.length + 2 || raw.slice(1, -1) !== value) return undefined;
    if (offset < 0 || offset >= value.length) return undefined;
    const start = node.span.start.offset + 1 + offset;
    const { start: s } = node.span;
    // Same line: the string has no line breaks (it has no escapes and JSON/TOML basic strings cannot hold raw ones).
    return {
      file: node.span.file,
      start: { line: s.line, column: s.column + 1 + offset, offset: start },
      end: { line: s.line, column: s.column + 2 + offset, offset: start + 1 },
    };
  }

  private walkHandler(event: string, h: ValueNode): HookHandler | undefined {
    if (h.kind !== 'object') return undefined;
    const type = prop(h, 'type')?.value;
    if (type === 'prompt' || type === 'agent') {
      this.warn('codex/unsupported-handler', `codex skips \`${type}\` hooks: they are not supported yet`, prop(h, 'type')!, {
        help: 'use a `command` hook',
      });
      return undefined;
    }
    if (type !== 'command') return undefined; // reported by the schema
    for (const { key, node } of h.props ?? []) {
      if (COMMAND_KEYS.has(key)) continue;
      const message = CLAUDE_HANDLER_FIELDS.has(key)
        ? `\`${key}\` is a claude code hook field: codex ignores it`
        : `unknown key \`${key}\` in a command hook: codex ignores it`;
      this.warn('codex/unknown-key', message, node, { key: true });
    }
    const commandNode = prop(h, 'command');
    if (commandNode?.kind !== 'string') return undefined; // reported by the schema
    const command = commandNode.value as string;
    if (command.trim() === '') {
      this.diags.push(
        diagnostic('codex/empty-command', 'error', 'empty hook command: codex skips this hook', {
          ...this.where(commandNode),
          help: 'write the command to run, or remove the hook',
        }),
      );
      return undefined;
    }
    const handler: HookHandler = {
      type: 'command',
      command,
      raw: (plainAt(this.doc, h.pointer) ?? plain(h)) as Record<string, unknown>,
      source: { file: this.file, pointer: h.pointer, ...(h.span ? { span: h.span } : {}) },
    };
    this.checkVariables(command, commandNode);
    const timeout = this.timeoutOf(event, h);
    if (timeout !== undefined) handler.timeoutSec = timeout;
    if (prop(h, 'async')?.value === true) {
      handler.async = true;
      this.info('codex/async-hook', 'async hooks run in the background: they cannot block, and codex keeps only their `additionalContext`', prop(h, 'async')!);
    }
    const status = prop(h, 'statusMessage');
    if (status?.kind === 'string') handler.statusMessage = status.value as string;
    return handler;
  }

  /** Variables other agents set for hooks that Codex leaves to the shell (usually unset, so empty). */
  private checkVariables(command: string, node: ValueNode): void {
    const plugin = this.opts.layer === 'plugin' || this.opts.pluginRoot !== undefined;
    const names = new Set<string>();
    for (const m of command.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)) {
      const name = m[1]!;
      if (UNSET_VARIABLES.has(name) || (!plugin && PLUGIN_VARIABLES.has(name))) names.add(name);
    }
    if (names.size === 0) return;
    const list = [...names].map((n) => `\`${n}\``).join(', ');
    this.warn('codex/unset-variable', `codex does not set ${list} for hooks: the shell expands ${names.size === 1 ? 'it' : 'them'} to an empty string unless already in the environment`, node, {
      help: 'codex runs hooks in the session\'s working directory: use a path relative to it, or an absolute one',
    });
  }

  /** The timeout Codex applies, in seconds: `SessionEnd` 1..3 (default 1), others at least 1 (default: absent = 600). */
  private timeoutOf(event: string, h: ValueNode): number | undefined {
    const timeout = prop(h, 'timeout');
    const alias = prop(h, 'timeoutSec');
    let written: ValueNode | undefined = timeout?.kind === 'integer' ? timeout : undefined;
    if (alias) {
      if (timeout && timeout.kind !== 'null') {
        this.warn('codex/timeout-alias', '`timeoutSec` is ignored: `timeout` is set', alias, { key: true, help: 'remove `timeoutSec`' });
      } else if (alias.kind === 'integer' && (alias.value as bigint) >= 0n) {
        written = alias;
        this.warn('codex/timeout-alias', '`timeoutSec` is the early name of `timeout`: current codex releases ignore it and wait the default 600 seconds', alias, {
          key: true,
          help: 'rename it to `timeout`',
        });
      } else {
        this.warn('codex/timeout-alias', '`timeoutSec` must be a whole number of seconds (and is better written `timeout`): codex ignores it', alias, { key: true });
      }
    }
    if (!written) return event === 'SessionEnd' ? 1 : undefined;
    const big = written.value as bigint;
    const n = big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
    if (event === 'SessionEnd' && n > 3) {
      this.warn('codex/timeout-adjusted', `codex caps \`SessionEnd\` hooks at 3 seconds: this \`timeout\` of ${n} becomes 3`, written);
      return 3;
    }
    if (n < 1) {
      this.warn('codex/timeout-adjusted', 'a `timeout` of 0 is raised to 1 second', written);
      return 1;
    }
    return n;
  }

  /** `features.hooks` (or `features.codex_hooks`) of a config.toml. */
  hooksFeature(): { enabled: boolean; span?: Span; pointer: string } | undefined {
    const features = prop(this.root, 'features');
    if (!features || features.kind !== 'object') return undefined;
    const current = prop(features, 'hooks');
    const old = prop(features, 'codex_hooks');
    for (const n of [current, old]) {
      if (n && n.kind !== 'boolean') {
        this.diags.push(
          diagnostic('codex/invalid-type', 'error', `\`${pointerPath(n.pointer)}\` must be \`true\` or \`false\`, not ${kindWords(n.kind)}`, {
            ...this.where(n),
            help: 'codex refuses a config.toml with a feature flag of another type',
          }),
        );
      }
    }
    if (old && current) {
      this.warn('codex/deprecated-key', '`features.codex_hooks` is the old name of `features.hooks`, which is also set and wins', old, { key: true, help: 'remove `codex_hooks`' });
    } else if (old) {
      this.warn('codex/deprecated-key', '`features.codex_hooks` is the old name of `features.hooks`', old, { key: true, help: 'rename it to `hooks`' });
    }
    const chosen = current?.kind === 'boolean' ? current : old?.kind === 'boolean' ? old : undefined;
    if (!chosen) return undefined;
    const enabled = chosen.value as boolean;
    if (!enabled) {
      this.warn('codex/hooks-disabled', `\`${pointerPath(chosen.pointer)} = false\` turns hooks off: codex runs none of them`, chosen);
    }
    return { enabled, pointer: chosen.pointer, ...(chosen.span ? { span: chosen.span } : {}) };
  }
}
