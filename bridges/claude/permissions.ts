/**
 * Claude Code's `permissions` (`allow`, `ask`, `deny` lists of rule strings in a settings file) as
 * dshpolicy `pre-tool` rules: deny→deny, ask→ask, allow→allow. Both sides merge most restrictive
 * first (Claude Code: deny, then ask, then allow), and both split a Bash command into its
 * subcommands, which an allow must all cover and a deny or ask need only touch one of.
 *
 * The file is read as Claude Code reads it (strict JSON, json.ts). What Claude Code rejects is
 * reported as it treats it: a `permissions` that breaks the settings schema (a list that is not an
 * array, an unknown `defaultMode`, `additionalDirectories` not an array of strings) makes it ignore the whole
 * file, an error here with nothing imported; an entry that is not a string or not a rule is
 * skipped, a warning here. Each rule becomes one IR rule whose id is `file:line:col` of its string
 * and whose span is the string; the translation of each kind is in permissions-rule.ts.
 *
 * Diagnostics (all at the string or key concerned, with its JSON pointer):
 * - `import/approximate`: the imported rule decides some calls differently; the message names
 *   those calls (checked against permission-rule.ts, the reading of Claude Code's matcher).
 * - `import/command-reading` (Bash deny and ask rules, Bash allow rules) and `import/path-reading`
 *   (Read and Edit rules): once per file and family, at its first rule, the cases in which every
 *   rule of the family differs, whatever it says (permissions-notes.ts).
 * - `import/never-matches`: Claude Code accepts the rule but never applies it; not imported.
 * - `import/unsayable`: a rule Claude Code applies that no rule here can say (an invalid glob, a
 *   `Skill(...)` pattern with a `*` in a word); not imported.
 * - `import/invalid-rule`: Claude Code skips the entry; so does the importer.
 * - `import/not-imported`: a setting that changes decisions and that no rule can say
 *   (`defaultMode`, `additionalDirectories`, `sandbox`, ...).
 * - `import/invalid-settings` (error): Claude Code ignores the whole file; nothing is imported.
 */
import path from 'node:path';
import { parseClaudeRule } from './permission-rule.js';
import { diagnostic, sortDiagnostics, type Diagnostic, type Rule, type Span } from '../../engine/index.js';
import type { ImportedPolicy, PermissionImportOptions } from '../permissions.js';
import { keyOf, members, shadowed, type Prop, type ValueNode } from '../common/tree.js';
import { parseJson, type JsonDoc } from './json.js';
import { generalNote, type Family } from './permissions-notes.js';
import { translateRule } from './permissions-rule.js';

type ListName = 'allow' | 'ask' | 'deny';
const LISTS: readonly string[] = ['allow', 'ask', 'deny'];

const MODES = new Set(['default', 'manual', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions']);
const SCHEMA_HELP = 'claude code ignores the whole settings file (its permissions and hooks) when it breaks the settings schema';
const APPROX_HELP = 'the printed policy shows what was imported; change it where these cases matter';

const MODE_NOTES: Record<string, string> = {
  acceptEdits:
    'in `acceptEdits` claude code also allows file edits and file system commands in the working directories without asking',
  plan: 'in `plan` claude code runs no tool that changes anything',
  auto: 'in `auto` a classifier decides what would ask (claude code does not take `auto` from project or local settings)',
  dontAsk: 'in `dontAsk` claude code denies every call that would ask',
  bypassPermissions:
    'in `bypassPermissions` claude code allows every call that no deny or ask rule stops (from a project settings file it needs the mode enabled at launch)',
};

/** The directory `/path` rules are relative to: above the file's `.claude/`, else the file's own. */
function defaultBaseDir(file: string): string {
  const dir = path.dirname(file);
  return path.basename(dir) === '.claude' ? path.dirname(dir) : dir;
}

/** The source offset of the `index`-th UTF-16 unit of a JSON string node's value. */
function sourceOffset(doc: JsonDoc, node: ValueNode, index: number): number {
  const text = doc.text;
  let i = node.span!.start.offset + 1;
  let k = 0;
  const end = node.span!.end.offset - 1;
  while (i < end && k < index) {
    if (text[i] === '\\') {
      i += text[i + 1] === 'u' ? 6 : 2;
    } else {
      i += 1;
    }
    k += 1;
  }
  return Math.min(i, end);
}

class Importer {
  readonly out: ImportedPolicy = { rules: [], tests: [], diagnostics: [], comments: new Map() };
  private readonly baseDir: string;
  private readonly home: string | undefined;
  /** The rules of each family, in file order, for the notes that hold for all of them. */
  private readonly families = new Map<Family, { rule: Rule; node: ValueNode; pointer: string; text: string; spec: string | null }[]>();
  private doc!: JsonDoc;

  constructor(
    private readonly text: string,
    private readonly file: string,
    opts: PermissionImportOptions,
  ) {
    this.baseDir = path.resolve(opts.baseDir ?? defaultBaseDir(file));
    this.home = opts.home === undefined ? undefined : path.resolve(opts.home);
  }

  /** A diagnostic at a value, or at a member's key (`keyOf`), under `pointer`. */
  private report(code: string, severity: Diagnostic['severity'], message: string, at: { span?: Span } | undefined, pointer: string, help?: string): void {
    this.out.diagnostics.push(diagnostic(code, severity, message, { span: at?.span, pointer, help }));
  }

  run(): ImportedPolicy {
    const parsed = parseJson(this.text, this.file);
    this.doc = parsed.doc;
    this.out.diagnostics.push(...parsed.diagnostics);
    const root = parsed.doc.root;
    if (!parsed.ok || root === undefined) return this.out;
    if (root.kind !== 'object') {
      this.report('import/invalid-settings', 'error', 'a settings file is a json object', root, '', SCHEMA_HELP);
      return this.out;
    }
    const props = members(root);
    for (const earlier of shadowed(root).filter((p) => p.key === 'permissions')) {
      this.report('import/duplicate-key', 'warning', '`permissions` is given again later in the file; claude code reads only the last', keyOf(earlier.node), '/permissions');
    }
    this.otherSettings(props);
    const perms = props.get('permissions');
    if (perms === undefined) return this.out;
    if (perms.node.kind !== 'object') {
      this.report('import/invalid-settings', 'error', '`permissions` must be an object', perms.node, '/permissions', SCHEMA_HELP);
      return this.out;
    }
    if (!this.validate(perms.node)) return this.out;
    const lists = members(perms.node);
    for (const [key, prop] of lists) {
      if (LISTS.includes(key)) this.list(key as ListName, prop);
      else this.setting(key, prop);
    }
    this.notes();
    return this.out;
  }

  /** The shapes Claude Code's settings schema insists on; false when the file would be ignored. */
  private validate(perms: ValueNode): boolean {
    let ok = true;
    for (const earlier of shadowed(perms)) {
      this.report('import/duplicate-key', 'warning', `\`${earlier.key}\` is given again later in \`permissions\`; claude code reads only the last`, keyOf(earlier.node), `/permissions/${earlier.key}`);
    }
    for (const [key, prop] of members(perms)) {
      const pointer = `/permissions/${key}`;
      if ((LISTS.includes(key) || key === 'additionalDirectories') && prop.node.kind !== 'array') {
        this.report('import/invalid-settings', 'error', `\`permissions.${key}\` must be an array`, prop.node, pointer, SCHEMA_HELP);
        ok = false;
      }
      if (key === 'additionalDirectories' && prop.node.kind === 'array') {
        for (const [k, entry] of (prop.node.items ?? []).entries()) {
          if (entry.kind === 'string') continue;
          this.report('import/invalid-settings', 'error', `\`permissions.additionalDirectories[${k}]\` must be a string`, entry, `${pointer}/${k}`, SCHEMA_HELP);
          ok = false;
        }
      }
      if (key === 'defaultMode' && (prop.node.kind !== 'string' || !MODES.has(String(prop.node.value)))) {
        this.report('import/invalid-settings', 'error', `\`permissions.defaultMode\` must be one of ${[...MODES].map((m) => `\`${m}\``).join(', ')}`, prop.node, pointer, SCHEMA_HELP);
        ok = false;
      }
    }
    return ok;
  }

  /** Settings of `permissions` other than the lists. */
  private setting(key: string, prop: Prop): void {
    const pointer = `/permissions/${key}`;
    if (key === 'defaultMode') {
      const mode = String(prop.node.value);
      const note = MODE_NOTES[mode];
      if (note !== undefined) {
        this.report('import/not-imported', 'warning', `\`defaultMode\` \`${mode}\` is not imported: ${note}; the imported rules leave such calls to the host (\`none\`)`, prop.node, pointer, 'set the mode in claude code itself, or write rules for the calls it would decide');
      }
      return;
    }
    if (key === 'additionalDirectories') {
      const dirs = (prop.node.items ?? []).filter((n) => n.kind === 'string').map((n) => `\`${String(n.value)}\``);
      if (dirs.length === 0) return;
      this.report(
        'import/not-imported',
        'warning',
        `\`additionalDirectories\` (${dirs.join(', ')}) is not imported: claude code treats them as working directories, where reads need no approval and \`acceptEdits\` allows edits`,
        prop.node,
        pointer,
        'add `allow Read path "<dir>/**"` where reads there should be allowed',
      );
      return;
    }
    if (key === 'disableBypassPermissionsMode' || key === 'disableAutoMode' || key === 'allowManagedPermissionRulesOnly') {
      this.report('import/not-imported', 'warning', `\`${key}\` is not imported: it changes which permission modes and rules claude code uses, which the imported rules cannot say`, keyOf(prop.node), pointer);
      return;
    }
    this.report('import/not-imported', 'warning', `\`permissions.${key}\` is not a permission setting; claude code ignores it, and so does the import`, keyOf(prop.node), pointer);
  }

  /** Top-level settings besides `permissions` that change what a tool call gets. */
  private otherSettings(props: Map<string, Prop>): void {
    const sandbox = props.get('sandbox');
    if (sandbox?.node.kind === 'object' && members(sandbox.node).get('enabled')?.node.value === true) {
      this.report(
        'import/not-imported',
        'warning',
        '`sandbox` is not imported: with the sandbox enabled claude code runs bash commands in it and, unless `autoAllowBashIfSandboxed` is `false`, allows them without asking',
        keyOf(sandbox.node),
        '/sandbox',
      );
    }
    const hooks = props.get('hooks');
    if (hooks !== undefined) {
      this.report('import/hooks-not-imported', 'info', 'the file\'s `hooks` also decide tool calls; they are not part of `permissions`', keyOf(hooks.node), '/hooks', 'import them too, with `import claude hooks`');
    }
  }

  private list(name: ListName, prop: Prop): void {
    const mode = name;
    for (const [index, node] of (prop.node.items ?? []).entries()) {
      const pointer = `/permissions/${name}/${index}`;
      const where = `permissions.${name}[${index}]`;
      if (node.kind !== 'string' || typeof node.value !== 'string') {
        this.report('import/invalid-rule', 'warning', `\`${where}\` is not a string; claude code skips it`, node, pointer, 'a rule is a string such as `Bash(npm test)`');
        continue;
      }
      this.entry(mode, node, node.value, pointer, where);
    }
  }

  private entry(mode: ListName, node: ValueNode, text: string, pointer: string, where: string): void {
    const parsed = parseClaudeRule(text);
    if (parsed.rule === undefined) {
      const error = parsed.error ?? { message: 'not a rule', offset: 0 };
      const at = sourceOffset(this.doc, node, error.offset);
      this.out.diagnostics.push(
        diagnostic('import/invalid-rule', 'warning', `\`${text}\` is not a permission rule: ${error.message}; claude code skips it`, {
          span: this.doc.lines.span(this.doc.file, at, at + 1),
          pointer,
          help: 'a rule is `Tool` or `Tool(specifier)`, as in `Bash(npm run test *)` or `Read(./.env)`',
        }),
      );
      return;
    }
    const t = translateRule(parsed.rule, mode, { baseDir: this.baseDir, home: this.home });
    if (t.dropped !== undefined || t.tools === undefined) {
      const code = t.dropped?.message.includes('never matches') || t.dropped?.message.startsWith('claude code skips') ? 'import/never-matches' : 'import/unsayable';
      this.report(code, 'warning', t.dropped?.message ?? `\`${text}\` is not imported`, node, pointer, t.dropped?.help);
      return;
    }
    const start = node.span!;
    const rule: Rule = {
      id: `${this.file}:${start.start.line}:${start.start.column}`,
      seam: 'pre-tool',
      effect: mode,
      tools: t.tools,
    };
    if (t.selectors !== undefined) rule.selectors = t.selectors;
    if (t.when !== undefined) rule.when = t.when;
    if (mode === 'deny') rule.reason = `denied by the Claude Code permission rule \`${parsed.rule.source}\``;
    if (mode === 'ask') rule.reason = `the Claude Code permission rule \`${parsed.rule.source}\` asks for approval`;
    rule.span = start;
    this.out.rules.push(rule);
    const comments = [`${where}: ${JSON.stringify(text)}`];
    if (t.differences.length > 0) {
      this.report('import/approximate', 'warning', `\`${parsed.rule.source}\`: ${t.differences.join('; also, ')}`, node, pointer, APPROX_HELP);
      for (const d of t.differences) comments.push(`differs from claude code: ${d}`);
    }
    this.out.comments.set(rule, comments);
    if (t.family !== undefined) {
      const family: Family = t.family === 'path' ? 'path' : mode === 'allow' ? 'bash-allow' : 'bash-deny';
      const list = this.families.get(family) ?? [];
      list.push({ rule, node, pointer, text: parsed.rule.source, spec: parsed.rule.specifier });
      this.families.set(family, list);
    }
  }

  /** One note per family, at its first rule. */
  private notes(): void {
    for (const [family, rules] of this.families) {
      const first = rules[0]!;
      const note = generalNote(family, first.text, family === 'path' ? null : first.spec, rules.length - 1);
      this.report(family === 'path' ? 'import/path-reading' : 'import/command-reading', 'warning', note.message, first.node, first.pointer, note.help);
      for (const r of rules) this.out.comments.get(r.rule)?.push(note.comment);
    }
  }
}

/** Imports the permission rules of one Claude Code settings file. Never throws. */
export function importClaudePermissions(text: string, file: string, opts: PermissionImportOptions = {}): ImportedPolicy {
  const importer = new Importer(text, file, opts);
  let out: ImportedPolicy;
  try {
    out = importer.run();
  } catch (e) {
    out = importer.out;
    out.diagnostics.push(diagnostic('import/internal', 'error', `internal error while importing the file: ${e instanceof Error ? e.message : String(e)}`, { pointer: '' }));
  }
  sortDiagnostics(out.diagnostics);
  return out;
}
