/**
 * Loading one Claude Code configuration file: a settings file (`hooks` among other settings), a
 * plugin's `hooks/hooks.json` (`{description?, hooks}`) or a plugin's `.claude-plugin/plugin.json`
 * (`hooks` inline, or paths of more hooks files). Claude Code skips an unknown event or a bad entry
 * and keeps the rest of the file, so this loader does the same: every problem becomes a diagnostic
 * at the offending node and the valid groups and handlers are still returned.
 *
 * Severities: `error` when Claude Code rejects or skips the thing (the whole file on a syntax
 * error; a group or handler that breaks the schema); `warning` when it loads but is ignored or
 * cannot work as written (unknown events and fields, a matcher on an event without matchers, `if`
 * off the tool events); `info` for harmless notes.
 */
import { basename, posix } from 'node:path';
import { CLAUDE_CODE_TOOLS, diagnostic, isHttpUrl, sortDiagnostics, type Diagnostic, type Severity, type Span } from '../../engine/index.js';
import type { HookHandler, HooksConfig, Layer, MatcherGroup, SourceRef } from '../config.js';
import { keyOf, lastProp, members, nodeAt, pointerSegments, setOwn, shadowed, type Prop, type ValueNode } from '../common/tree.js';
import { claudeDedupKey } from './dedup.js';
import {
  allowedHandlerTypes, CLAUDE_EVENTS, CLAUDE_SDK_ONLY_EVENTS, closest, HANDLER_TYPES, isClaudeEvent, NO_MATCHER_EVENTS, TOOL_EVENTS,
} from './events.js';
import { append, jsonType, parseJson, valueOf, type JsonDoc } from './json.js';
import {
  describeSchemaError, GROUP_FIELDS, handlerFields, UNDOCUMENTED_HANDLER_FIELDS, validateGroup, validateHandler, validateHandlerBase,
} from './schema.js';

export type ClaudeFileKind = 'settings' | 'plugin-hooks' | 'plugin-manifest';

export interface ClaudeLoadOptions {
  /** The layer the groups are tagged with; default `file` for settings, `plugin` for plugin files. */
  layer?: Layer;
  /** The plugin's root directory; default: inferred from `<root>/hooks/hooks.json` or `<root>/.claude-plugin/plugin.json`. */
  pluginRoot?: string;
  /** What the file is; default: detected from its content, then its name. */
  kind?: ClaudeFileKind;
  /** Reads the extra hooks files a plugin.json lists (`undefined` when missing); without it they are not read. */
  readFile?: (path: string) => string | undefined;
}

/** The settings besides `hooks` that decide which hooks run, for the project loader. */
export interface FileSettings {
  disableAllHooks?: { value: boolean; source: SourceRef };
  allowManagedHooksOnly?: { value: boolean; source: SourceRef };
  enabledPlugins: { id: string; enabled: boolean; source: SourceRef }[];
  /** URL patterns (`*` matches anything) that HTTP handlers must match; lists merge across layers. */
  allowedHttpHookUrls?: { patterns: string[]; source: SourceRef };
}

export interface LoadedFile {
  config: HooksConfig;
  kind?: ClaudeFileKind;
  settings: FileSettings;
}

/** Diagnostics kept per file; a generated file with thousands of bad entries would drown the rest. */
export const MAX_DIAGNOSTICS = 500;

const IGNORED_GROUP_FIELDS = new Set(['description', 'id']);
const HOOKS_FILE_FIELDS = new Set(['hooks', 'description', '$schema']);
const MANIFEST_KEYS = [
  'version', 'author', 'homepage', 'repository', 'license', 'keywords', 'commands', 'agents', 'skills',
  'outputStyles', 'mcpServers', 'lspServers', 'userConfig',
];
const SETTINGS_KEYS = new Set([
  'permissions', 'env', 'model', 'statusLine', 'disableAllHooks', 'enabledPlugins', 'allowManagedHooksOnly',
  'apiKeyHelper', 'cleanupPeriodDays', 'includeCoAuthoredBy', 'outputStyle', 'sandbox', 'forceLoginMethod',
  'extraKnownMarketplaces', 'allowedHttpHookUrls', 'httpHookAllowedEnvVars', 'fileSuggestion', 'theme',
  'alwaysThinkingEnabled', 'enableAllProjectMcpServers', 'enabledMcpjsonServers', 'disabledMcpjsonServers',
  'attribution', 'companyAnnouncements', 'awsAuthRefresh', 'otelHeadersHelper', 'spinnerTipsEnabled',
  'strictPluginOnlyCustomization', 'allowManagedPermissionRulesOnly',
]);
/** `Tool` or `Tool(specifier)`: the one permission rule an `if` holds (the specifier may nest parentheses). */
export function isOnePermissionRule(rule: string): boolean {
  const name = /^[A-Za-z0-9_*-]+/.exec(rule);
  if (!name) return false;
  const rest = rule.slice(name[0].length);
  if (rest === '') return true;
  if (!rest.startsWith('(') || !rest.endsWith(')')) return false;
  let depth = 0;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '(') depth++;
    else if (rest[i] === ')' && --depth === 0 && i !== rest.length - 1) return false;
  }
  return depth === 0;
}
/** Characters that make a matcher a list of exact names rather than a regular expression. */
const EXACT_MATCHER = /^[A-Za-z0-9_\-, |]+$/;

function slashes(file: string): string {
  return file.replace(/\\/g, '/');
}

/** What kind of file this is: by content first, by name when the content fits more than one kind. */
export function detectKind(props: Map<string, Prop>, file: string): ClaudeFileKind {
  const base = basename(slashes(file));
  const name = props.get('name')?.node;
  const hooks = props.get('hooks')?.node;
  const hooksIsPath = hooks !== undefined && (hooks.kind === 'string' || hooks.kind === 'array');
  if (name?.kind === 'string' && (hooksIsPath || MANIFEST_KEYS.some((k) => props.has(k)))) return 'plugin-manifest';
  const keys = [...props.keys()];
  const onlyHooksFileKeys = keys.every((k) => HOOKS_FILE_FIELDS.has(k));
  if (!onlyHooksFileKeys) {
    if (base === 'plugin.json') return 'plugin-manifest';
    if (/hooks\.json$/i.test(base) && !keys.some((k) => SETTINGS_KEYS.has(k))) return 'plugin-hooks';
    return 'settings';
  }
  if (/settings/i.test(base)) return 'settings';
  if (base === 'plugin.json') return 'plugin-manifest';
  if (/hooks\.json$/i.test(base) || props.has('description')) return 'plugin-hooks';
  return 'settings';
}

/** `<root>/hooks/hooks.json` and `<root>/.claude-plugin/plugin.json` name their plugin root. */
export function inferPluginRoot(file: string): string | undefined {
  const f = slashes(file);
  for (const tail of ['hooks/hooks.json', '.claude-plugin/plugin.json']) {
    if (f === tail) return '.';
    if (f.endsWith('/' + tail)) return file.slice(0, file.length - tail.length - 1) || '/';
  }
  return undefined;
}

function normMatcher(m: string | undefined): string {
  return m === undefined || m === '' || m === '*' ? '*' : m;
}

class FileLoader {
  readonly diagnostics: Diagnostic[] = [];
  readonly groups: MatcherGroup[] = [];
  readonly files: string[];
  readonly settings: FileSettings = { enabledPlugins: [] };
  private dropped = 0;
  layer: Layer = 'file';
  pluginRoot: string | undefined;

  constructor(
    readonly doc: JsonDoc,
    readonly opts: ClaudeLoadOptions,
  ) {
    this.files = [doc.file];
  }

  /** A diagnostic at a value, or at a member's key (`keyOf`), with its pointer. */
  report(code: string, severity: Severity, message: string, at: { span?: Span; pointer: string } | undefined, help?: string): void {
    if (this.diagnostics.length >= MAX_DIAGNOSTICS) {
      this.dropped++;
      return;
    }
    this.diagnostics.push(
      diagnostic(code, severity, message, at ? { span: at.span, pointer: at.pointer, help } : { help }),
    );
  }

  /** The note that some diagnostics were left out, if any were. */
  finish(): Diagnostic[] {
    if (this.dropped === 0) return [];
    return [diagnostic('claude/too-many-diagnostics', 'info', `${this.dropped} more diagnostics in this file are not shown`, { span: this.doc.lines.span(this.doc.file, 0, 0), pointer: '' })];
  }

  ref(node: ValueNode): SourceRef {
    return { file: this.doc.file, pointer: node.pointer, span: node.span };
  }

  /** Keys that appear twice in one object: `JSON.parse` keeps the last, so the earlier ones do nothing. */
  reportShadowedKeys(root: ValueNode): void {
    const stack: ValueNode[] = [root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.kind === 'object') {
        for (const p of shadowed(n)) {
          const later = members(n).get(p.key)!;
          this.report('claude/duplicate-key', 'warning', `key \`${p.key}\` appears again at line ${later.node.keySpan!.start.line}; only the last one counts`, keyOf(p.node));
        }
      }
      for (const p of n.props ?? []) stack.push(p.node);
      for (const c of n.items ?? []) stack.push(c);
    }
  }

  load(root: ValueNode): ClaudeFileKind | undefined {
    this.reportShadowedKeys(root);
    if (root.kind !== 'object') {
      this.report('claude/root-not-object', 'error', `the top level must be an object, found ${jsonType(root)}`, root,
        'a hooks configuration is an object such as `{"hooks": {"PreToolUse": [...]}}`');
      return undefined;
    }
    const props = members(root);
    const kind = this.opts.kind ?? detectKind(props, this.doc.file);
    this.layer = this.opts.layer ?? (kind === 'settings' ? 'file' : 'plugin');
    this.pluginRoot = this.opts.pluginRoot ?? (kind === 'settings' ? undefined : inferPluginRoot(this.doc.file));
    if (kind === 'settings') this.loadSettings(props);
    else if (kind === 'plugin-hooks') this.loadHooksFile(root, props);
    else this.loadManifest(props);
    return kind;
  }

  private loadSettings(props: Map<string, Prop>): void {
    for (const p of props.values()) {
      if (isClaudeEvent(p.key)) {
        this.report('claude/misplaced-event', 'warning', `\`${p.key}\` at the top level is not a setting; claude code ignores it`, keyOf(p.node),
          'hook events go inside `"hooks": {...}`');
      }
    }
    const hooks = props.get('hooks');
    if (hooks) this.readEventMap(hooks.node, '`hooks`');
    const disable = props.get('disableAllHooks');
    if (disable) {
      if (disable.node.kind === 'boolean') this.settings.disableAllHooks = { value: disable.node.value as boolean, source: this.ref(disable.node) };
      else this.report('claude/bad-setting', 'warning', `\`disableAllHooks\` must be \`true\` or \`false\`, found ${jsonType(disable.node)}; it is ignored`, disable.node);
    }
    const managedOnly = props.get('allowManagedHooksOnly');
    if (managedOnly) {
      const managed = this.layer === 'managed' || /^managed-settings/.test(basename(slashes(this.doc.file)));
      if (!managed) {
        this.report('claude/managed-only', 'warning', '`allowManagedHooksOnly` is honoured only in managed settings; here it is ignored', keyOf(managedOnly.node));
      } else if (managedOnly.node.kind === 'boolean') {
        this.settings.allowManagedHooksOnly = { value: managedOnly.node.value as boolean, source: this.ref(managedOnly.node) };
      } else {
        this.report('claude/bad-setting', 'warning', `\`allowManagedHooksOnly\` must be \`true\` or \`false\`, found ${jsonType(managedOnly.node)}; claude code treats an invalid value as \`true\``, managedOnly.node);
        this.settings.allowManagedHooksOnly = { value: true, source: this.ref(managedOnly.node) };
      }
    }
    const urls = props.get('allowedHttpHookUrls');
    if (urls) {
      const items = urls.node.kind === 'array' ? (urls.node.items ?? []) : [];
      if (urls.node.kind !== 'array' || items.some((i) => i.kind !== 'string')) {
        this.report('claude/bad-setting', 'warning', '`allowedHttpHookUrls` must be a list of url patterns; it is ignored', urls.node);
      } else {
        this.settings.allowedHttpHookUrls = { patterns: items.map((i) => i.value as string), source: this.ref(urls.node) };
      }
    }
    const plugins = props.get('enabledPlugins');
    if (plugins?.node.kind === 'object') {
      for (const p of members(plugins.node).values()) {
        if (p.node.kind === 'boolean') this.settings.enabledPlugins.push({ id: p.key, enabled: p.node.value as boolean, source: this.ref(p.node) });
      }
    }
  }

  private loadHooksFile(root: ValueNode, props: Map<string, Prop>): void {
    const hooks = props.get('hooks');
    for (const p of props.values()) {
      if (p.key === 'hooks' || p.key === '$schema') continue;
      if (p.key === 'description') {
        if (p.node.kind !== 'string') this.report('claude/schema', 'warning', `\`description\` must be a string, found ${jsonType(p.node)}`, p.node);
      } else if (p.key === 'disableAllHooks') {
        this.report('claude/not-a-setting', 'warning', '`disableAllHooks` has no effect in a plugin hooks file; it is a setting', keyOf(p.node),
          'put it in a settings file, or disable the plugin');
      } else if (!isClaudeEvent(p.key)) {
        this.report('claude/unknown-field', 'warning', `unknown top-level field \`${p.key}\` in a plugin hooks file; claude code ignores it`, keyOf(p.node));
      } else if (hooks) {
        this.report('claude/misplaced-event', 'warning', `\`${p.key}\` at the top level is ignored`, keyOf(p.node), 'hook events go inside `"hooks": {...}`');
      }
    }
    if (!hooks) {
      const bare = [...props.keys()].filter(isClaudeEvent);
      this.report('claude/missing-hooks', 'error', 'a plugin hooks file needs a top-level `hooks` object', root,
        bare.length > 0
          ? `the events (${bare.map((e) => `\`${e}\``).join(', ')}) must be inside \`{"hooks": {...}}\``
          : 'write `{"hooks": {"PreToolUse": [...]}}`');
      return;
    }
    this.readEventMap(hooks.node, '`hooks`');
  }

  private loadManifest(props: Map<string, Prop>): void {
    const hooks = props.get('hooks');
    if (!hooks) return;
    const v = hooks.node;
    if (v.kind === 'object') this.readEventMap(v, '`hooks` in plugin.json');
    else if (v.kind === 'string') this.readHooksPath(v);
    else if (v.kind === 'array') {
      for (const item of v.items ?? []) {
        if (item.kind === 'string') this.readHooksPath(item);
        else this.report('claude/schema', 'error', `a hooks path must be a string, found ${jsonType(item)}`, item);
      }
    } else {
      this.report('claude/schema', 'error', `\`hooks\` in plugin.json must be a path, a list of paths or an object of events, found ${jsonType(v)}`, v);
    }
  }

  /** A hooks file named in plugin.json, relative to the plugin root. */
  private readHooksPath(node: ValueNode): void {
    const path = node.value as string;
    if (!path.startsWith('./')) {
      this.report('claude/bad-hooks-path', 'error', `hooks path \`${path}\` must be relative to the plugin root and start with \`./\``, node);
      return;
    }
    const rel = posix.normalize(slashes(path));
    if (rel === '..' || rel.startsWith('../')) {
      this.report('claude/bad-hooks-path', 'error', `hooks path \`${path}\` points outside the plugin`, node);
      return;
    }
    if (rel === 'hooks/hooks.json') {
      this.report('claude/duplicate-hooks-file', 'error', `\`${path}\` is loaded automatically, so listing it in plugin.json is a duplicate hooks file`, node,
        'list only additional hooks files in `hooks`');
      return;
    }
    if (this.pluginRoot === undefined || !this.opts.readFile) {
      this.report('claude/hooks-file-not-read', 'info', `hooks file \`${path}\` is not read here`, node, 'load the plugin directory to include its hooks');
      return;
    }
    const full = this.pluginRoot === '.' ? rel : posix.join(slashes(this.pluginRoot), rel);
    let text: string | undefined;
    try {
      text = this.opts.readFile(full);
    } catch {
      text = undefined;
    }
    if (text === undefined) {
      this.report('claude/hooks-file-missing', 'error', `hooks file \`${path}\` does not exist`, node);
      return;
    }
    const sub = loadFile(text, full, { kind: 'plugin-hooks', layer: this.layer, pluginRoot: this.pluginRoot });
    append(this.groups, sub.config.groups);
    append(this.diagnostics, sub.config.diagnostics);
    append(this.files, sub.config.files);
  }

  private readEventMap(node: ValueNode, what: string): void {
    if (node.kind !== 'object') {
      this.report('claude/schema', 'error', `${what} must be an object of events, found ${jsonType(node)}`, node,
        'write `"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [...]}]}`');
      return;
    }
    for (const p of members(node).values()) {
      if (!isClaudeEvent(p.key)) {
        const near = closest(p.key, [...CLAUDE_EVENTS, ...CLAUDE_SDK_ONLY_EVENTS]);
        const help = p.key === 'hooks'
          ? 'the events go directly in this object, without another `hooks` level'
          : near ? `did you mean \`${near}\`?` : 'event names are case-sensitive; see the list of hook events in the claude code reference';
        this.report('claude/unknown-event', 'warning', `unknown event \`${p.key}\`; claude code ignores its hooks`, keyOf(p.node), help);
        continue;
      }
      if (p.node.kind !== 'array') {
        this.report('claude/schema', 'error', `\`${p.key}\` must be an array of matcher groups, found ${jsonType(p.node)}`, p.node,
          `write \`"${p.key}": [{"hooks": [...]}]\``);
        continue;
      }
      for (const g of p.node.items ?? []) this.readGroup(p.key, g);
    }
  }

  private readGroup(event: string, node: ValueNode): void {
    if (node.kind !== 'object') {
      this.report('claude/schema', 'error', `a matcher group must be an object, found ${jsonType(node)}`, node, 'write `{"matcher": "...", "hooks": [...]}`');
      return;
    }
    const props = members(node);
    // The handlers are checked one by one below; the group's own check needs only their array.
    const value: Record<string, unknown> = {};
    for (const p of props.values()) setOwn(value, p.key, p.key === 'hooks' && p.node.kind === 'array' ? [] : valueOf(p.node));
    for (const p of props.values()) {
      if (GROUP_FIELDS.includes(p.key)) continue;
      if (IGNORED_GROUP_FIELDS.has(p.key)) this.report('claude/ignored-field', 'info', `\`${p.key}\` is not part of a matcher group; claude code ignores it`, keyOf(p.node));
      else this.report('claude/unknown-field', 'warning', `unknown field \`${p.key}\` in a matcher group; claude code ignores it`, keyOf(p.node));
    }
    const errors = validateGroup(value);
    if (errors.length > 0) {
      for (const e of errors) {
        const at = nodeAt(node, e.instancePath, lastProp) ?? node;
        const help = e.keyword === 'required' && props.has('type') ? 'handler fields go inside the group\'s `hooks` array: `{"hooks": [{"type": "command", ...}]}`' : undefined;
        this.report('claude/schema', 'error', describeSchemaError(e, value, 'the matcher group'), at, help);
      }
      return;
    }
    const matcherProp = props.get('matcher');
    const matcher = matcherProp?.node.value as string | undefined;
    if (matcherProp && matcher !== undefined) this.checkMatcher(event, matcher, matcherProp.node);
    const list = props.get('hooks')!.node;
    if ((list.items ?? []).length === 0) this.report('claude/empty-group', 'warning', 'the matcher group has no handlers', list);
    const hooks: HookHandler[] = [];
    for (const h of list.items ?? []) {
      const handler = this.readHandler(event, h);
      if (handler) hooks.push(handler);
    }
    const group: MatcherGroup = { agent: 'claude', event, hooks, layer: this.layer, source: this.ref(node) };
    if (matcher !== undefined) group.matcher = matcher;
    if (this.layer === 'plugin' && this.pluginRoot !== undefined) group.pluginRoot = this.pluginRoot;
    this.groups.push(group);
  }

  private checkMatcher(event: string, m: string, node: ValueNode): void {
    const matchesAll = m === '' || m === '*';
    if (NO_MATCHER_EVENTS.has(event)) {
      if (matchesAll) this.report('claude/matcher-ignored', 'info', `\`${event}\` has no matcher, so \`matcher\` is ignored`, node);
      else {
        this.report('claude/matcher-ignored', 'warning', `\`${event}\` has no matcher: \`${m}\` is ignored and the group runs on every \`${event}\``, node,
          'remove `matcher`, or filter inside the handler');
      }
      return;
    }
    if (matchesAll) return;
    if (!EXACT_MATCHER.test(m)) {
      try {
        new RegExp(m);
      } catch {
        this.report('claude/bad-matcher-regex', 'warning', `matcher \`${m}\` is not a valid javascript regular expression, so it never matches`, node,
          'claude code tests a matcher with `new RegExp(matcher)`: no inline flags such as `(?i)`');
        return;
      }
      if (TOOL_EVENTS.has(event) && /^[A-Za-z_]\w*\([\s\S]*\)$/.test(m)) {
        this.report('claude/argument-matcher', 'warning', `a matcher sees only the tool name, so \`${m}\` never matches`, node,
          `to filter by arguments, put \`"if": "${m}"\` on the handler and match the tool name`);
      }
      return;
    }
    if (m.includes(',')) {
      this.report('claude/matcher-version', 'info', `a comma-separated matcher \`${m}\` needs claude code 2.1.191 or later; earlier versions never fire it`, node,
        'write `|` between names to support every version');
    }
    if (!TOOL_EVENTS.has(event)) return;
    for (const part of m.split(/[|,]/).map((s) => s.trim()).filter((s) => s !== '')) {
      if (part === 'Task') {
        this.report('claude/renamed-tool', 'warning', 'the `Task` tool was renamed to `Agent`, so a matcher on `Task` never fires', node, 'write `Agent`');
      } else if (part.startsWith('mcp__')) {
        if (!part.slice(5).includes('__')) {
          this.report('claude/mcp-matcher', 'warning', `\`${part}\` names an mcp server, not a tool, so it matches nothing`, node,
            `write \`${part}__.*\` to match every tool of that server`);
        }
      } else if (!CLAUDE_CODE_TOOLS.includes(part)) {
        const same = CLAUDE_CODE_TOOLS.find((t) => t.toLowerCase() === part.toLowerCase());
        if (same) this.report('claude/matcher-case', 'warning', `matchers are case-sensitive: \`${part}\` never matches \`${same}\``, node, `write \`${same}\``);
        else this.report('claude/unknown-tool', 'info', `no claude code tool is named \`${part}\``, node);
      }
    }
  }

  private readHandler(event: string, node: ValueNode): HookHandler | undefined {
    if (node.kind !== 'object') {
      this.report('claude/schema', 'error', `a handler must be an object, found ${jsonType(node)}`, node, 'write `{"type": "command", "command": "..."}`');
      return undefined;
    }
    const value = valueOf(node) as Record<string, unknown>;
    const props = members(node);
    const typeList = HANDLER_TYPES.map((t) => `\`${t}\``).join(', ');
    if (validateHandlerBase(value).length > 0) {
      const t = props.get('type');
      if (!t) this.report('claude/schema', 'error', 'the handler is missing `type`', node, `set \`type\` to one of ${typeList}`);
      else {
        const shown = t.node.kind === 'string' ? String(t.node.value) : JSON.stringify(valueOf(t.node));
        const near = typeof t.node.value === 'string' ? closest(t.node.value, HANDLER_TYPES) : undefined;
        this.report('claude/unknown-handler-type', 'error', `unknown handler type \`${shown}\``, t.node,
          near ? `did you mean \`${near}\`?` : `\`type\` is one of ${typeList}`);
      }
      return undefined;
    }
    const type = value['type'] as string;
    const what = `the \`${type}\` handler`;
    const own = handlerFields(type);
    for (const p of props.values()) {
      if (own.includes(p.key)) continue;
      if (UNDOCUMENTED_HANDLER_FIELDS[type]?.includes(p.key)) {
        this.report('claude/undocumented-field', 'info', `\`${p.key}\` is not documented; claude code may ignore it`, keyOf(p.node));
        continue;
      }
      const owner = HANDLER_TYPES.find((t) => t !== type && handlerFields(t).includes(p.key));
      if (owner) this.report('claude/unknown-field', 'warning', `\`${p.key}\` does not apply to \`${type}\` handlers; claude code ignores it`, keyOf(p.node));
      else this.report('claude/unknown-field', 'warning', `unknown field \`${p.key}\` in a \`${type}\` handler; claude code ignores it`, keyOf(p.node));
    }
    const errors = validateHandler(type, value);
    for (const e of errors) {
      const at = nodeAt(node, e.instancePath, lastProp) ?? node;
      const timeout = pointerSegments(e.instancePath)[0] === 'timeout';
      this.report(timeout ? 'claude/bad-timeout' : 'claude/schema', 'error', describeSchemaError(e, value, what), at,
        timeout ? '`timeout` is a number of seconds greater than 0' : undefined);
    }
    if (errors.length > 0) return undefined;

    const allowed = allowedHandlerTypes(event);
    if (!allowed.includes(type)) {
      this.report('claude/handler-type-not-allowed', 'error', `\`${type}\` handlers do not run on \`${event}\``, props.get('type')!.node,
        `\`${event}\` runs ${allowed.map((t) => `\`${t}\``).join(', ')} handlers`);
      return undefined;
    }
    const ifRule = value['if'] as string | undefined;
    if (ifRule !== undefined) {
      if (!TOOL_EVENTS.has(event)) {
        this.report('claude/if-never-runs', 'warning', `\`if\` is evaluated only on tool events; on \`${event}\` (as on any other event) a handler with \`if\` never runs`,
          keyOf(props.get('if')!.node), 'remove `if`, or move the handler to PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest or PermissionDenied');
        return undefined;
      }
      if (!isOnePermissionRule(ifRule.trim())) {
        this.report('claude/bad-if', 'warning', `\`if\` holds one permission rule such as \`Bash(git *)\`, not \`${ifRule}\``, props.get('if')!.node,
          'there is no `&&`, `||` or list syntax; use one handler per rule');
      }
    }
    this.lintHandler(type, value, props);
    return this.buildHandler(type, value, node);
  }

  private lintHandler(type: string, v: Record<string, unknown>, props: Map<string, Prop>): void {
    const timeout = v['timeout'];
    if (typeof timeout === 'number' && timeout >= 1000 && timeout % 1000 === 0) {
      this.report('claude/timeout-looks-like-ms', 'warning', `\`timeout\` is in seconds: \`${timeout}\` is ${Math.round(timeout / 60)} minutes`, props.get('timeout')!.node,
        `if you meant milliseconds, write \`${timeout / 1000}\``);
    }
    if (v['once'] !== undefined) {
      this.report('claude/once-ignored', 'warning', '`once` is honoured only in skill frontmatter; here claude code ignores it', keyOf(props.get('once')!.node));
    }
    if (type === 'command') {
      const command = v['command'] as string;
      if (command.trim() === '') this.report('claude/empty-command', 'warning', 'the command is empty', props.get('command')!.node);
      if (v['args'] !== undefined && v['shell'] !== undefined) {
        this.report('claude/shell-ignored', 'warning', '`shell` is ignored when `args` is set: the command runs without a shell', keyOf(props.get('shell')!.node));
      }
      if (v['args'] === undefined && /\$\{user_config\.[^}]*\}/.test(command)) {
        this.report('claude/user-config-shell-form', 'warning', '`${user_config...}` is substituted only in exec form (with `args`), not in a shell command', props.get('command')!.node,
          'use `$CLAUDE_PLUGIN_OPTION_<KEY>` in the shell command, or split it into `command` and `args`');
      }
    }
    if (type === 'http') {
      const url = v['url'] as string;
      if (!isHttpUrl(url)) this.report('claude/bad-url', 'warning', `\`${url}\` is not an http or https url`, props.get('url')!.node);
      const allowedVars = new Set((v['allowedEnvVars'] as string[] | undefined) ?? []);
      const headers = (v['headers'] as Record<string, string> | undefined) ?? {};
      for (const [name, hv] of Object.entries(headers)) {
        for (const m of hv.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g)) {
          if (!allowedVars.has(m[1]!)) {
            const at = lastProp(props.get('headers')!.node, name);
            this.report('claude/header-env-not-allowed', 'warning', `header \`${name}\` uses \`$${m[1]}\`, which is not in \`allowedEnvVars\`, so it is not substituted`, at,
              `add \`"${m[1]}"\` to \`allowedEnvVars\``);
          }
        }
      }
    }
  }

  private buildHandler(type: string, v: Record<string, unknown>, node: ValueNode): HookHandler {
    const h: HookHandler = { type, raw: v, source: this.ref(node) };
    if (typeof v['command'] === 'string') h.command = v['command'];
    if (Array.isArray(v['args'])) h.args = v['args'] as string[];
    if (typeof v['shell'] === 'string') h.shell = v['shell'];
    if (typeof v['url'] === 'string') h.url = v['url'];
    if (v['headers'] && typeof v['headers'] === 'object') h.headers = v['headers'] as Record<string, string>;
    if (Array.isArray(v['allowedEnvVars'])) h.allowedEnvVars = v['allowedEnvVars'] as string[];
    if (typeof v['timeout'] === 'number') h.timeoutSec = v['timeout'];
    if (typeof v['if'] === 'string') h.if = v['if'];
    if (typeof v['async'] === 'boolean') h.async = v['async'];
    if (typeof v['asyncRewake'] === 'boolean') h.asyncRewake = v['asyncRewake'];
    if (typeof v['statusMessage'] === 'string') h.statusMessage = v['statusMessage'];
    if (typeof v['once'] === 'boolean') h.once = v['once'];
    return h;
  }
}

/** Loads one file, keeping `disableAllHooks` and friends aside for the caller to apply. Never throws. */
export function loadFile(text: string, file: string, opts: ClaudeLoadOptions = {}): LoadedFile {
  const empty = (diagnostics: Diagnostic[], kind?: ClaudeFileKind): LoadedFile => ({
    config: { agent: 'claude', groups: [], disabled: false, files: [file], diagnostics },
    kind,
    settings: { enabledPlugins: [] },
  });
  try {
    const parsed = parseJson(typeof text === 'string' ? text : String(text), file);
    if (!parsed.ok || !parsed.doc.root) return empty(parsed.diagnostics);
    const loader = new FileLoader(parsed.doc, opts);
    append(loader.diagnostics, parsed.diagnostics);
    const kind = loader.load(parsed.doc.root);
    const dropped = loader.finish();
    // Claude Code (2.1.328, seen running) runs none of a settings file's hooks when any handler in it
    // has a type it does not know; the file's other hooks are reported as not running.
    const unknownType = loader.diagnostics.find((d) => d.code === 'claude/unknown-handler-type');
    if (unknownType && kind === 'settings' && loader.groups.length > 0) {
      loader.diagnostics.push(
        diagnostic('claude/file-hooks-void', 'warning', `claude code runs none of the ${loader.groups.length} hook groups of this file, because a handler has an unknown type`, {
          ...(unknownType.span ? { span: unknownType.span } : {}),
          pointer: unknownType.pointer ?? '',
          help: 'fix or remove the handler with the unknown type; until then no hook of this settings file runs',
        }),
      );
      loader.groups.length = 0;
    }
    // In file order (diagnostics of hooks files a plugin.json names come after its own).
    const own = sortDiagnostics(loader.diagnostics.filter((d) => d.span?.file === file || d.span === undefined));
    const others = loader.diagnostics.filter((d) => d.span !== undefined && d.span.file !== file);
    return {
      config: { agent: 'claude', groups: loader.groups, disabled: false, files: loader.files, diagnostics: append(append(own, others), dropped) },
      kind,
      settings: loader.settings,
    };
  } catch (e) {
    return empty([diagnostic('claude/internal', 'error', `internal error while loading the file: ${e instanceof Error ? e.message : String(e)}`, { pointer: '' })]);
  }
}

/** The handlers that run once because an identical one is already in the same event and matcher. */
export function noteDuplicateHandlers(groups: readonly MatcherGroup[]): Diagnostic[] {
  const first = new Map<string, HookHandler>();
  const out: Diagnostic[] = [];
  for (const g of groups) {
    for (const h of g.hooks) {
      const id = claudeDedupKey(g, h);
      if (id === undefined) continue;
      const key = JSON.stringify([g.event, normMatcher(g.matcher), h.if ?? null, id]);
      const seen = first.get(key);
      if (!seen) {
        first.set(key, h);
        continue;
      }
      if (out.length === MAX_DIAGNOSTICS) {
        out.push(diagnostic('claude/too-many-diagnostics', 'info', 'more identical handlers are not listed', { pointer: '' }));
        return out;
      }
      const s = seen.source.span;
      const where = s ? `${s.file}:${s.start.line}:${s.start.column}` : `${seen.source.file}#${seen.source.pointer}`;
      out.push(diagnostic('claude/duplicate-handler', 'info', `identical to the handler at ${where}; claude code runs it once`, {
        span: h.source.span, pointer: h.source.pointer,
      }));
    }
  }
  return out;
}

function urlPattern(pattern: string): RegExp {
  return new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
}

/**
 * Drops the HTTP handlers no `allowedHttpHookUrls` pattern admits (when any layer sets the list:
 * an empty list blocks every HTTP handler), with a warning at each.
 */
export function applyHttpAllowlist(groups: MatcherGroup[], patterns: readonly string[] | undefined, diagnostics: Diagnostic[]): void {
  if (patterns === undefined) return;
  const res = patterns.map(urlPattern);
  for (const g of groups) {
    g.hooks = g.hooks.filter((h) => {
      if (h.type !== 'http' || h.url === undefined || res.some((r) => r.test(h.url!))) return true;
      diagnostics.push(diagnostic('claude/http-hook-blocked', 'warning', `\`${h.url}\` matches no pattern of \`allowedHttpHookUrls\`, so claude code does not call it`, {
        span: h.source.span,
        pointer: h.source.pointer,
      }));
      return false;
    });
  }
}
