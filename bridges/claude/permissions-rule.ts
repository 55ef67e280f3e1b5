/**
 * One Claude Code permission rule string (`Bash(npm run test:*)`, `Read(./.env)`,
 * `WebFetch(domain:*.example.com)`, `mcp__github`, `Agent(Explore)`) as the parts of a dshpolicy
 * `pre-tool` rule: tools, selectors and a condition, with what changes in the translation.
 * Claude Code's reading of a rule is permission-rule.ts; each kind is translated here:
 *
 * | rule | tools | selector or condition |
 * |---|---|---|
 * | `Tool`, `Tool(*)`, `Tool()` | the tool (`Task` and `Agent` both) | none |
 * | `mcp__server` | `mcp__server`, `mcp__server__*` | none |
 * | `mcp__server__*`, `*` (tool globs) | the glob; in allow only after a literal `mcp__server__` | none |
 * | `Bash(p)`, `Monitor(p)` | `Bash`, `Monitor` | `command` (permissions-bash.ts) |
 * | `PowerShell(p)` | `PowerShell` | `command`, reported |
 * | `Read(p)` | Read, Grep, Glob, LSP, NotebookRead; in deny also Edit, Write, MultiEdit | `path` (permissions-path.ts) |
 * | `Edit(p)` | Edit, Write, NotebookEdit, MultiEdit; in allow also the Read tools | `path` |
 * | `WebFetch(domain:d)` | `WebFetch` | `domain`, or `when domain matches` for a `*` inside a label |
 * | `Agent(t)`, `Task(t)` | `Agent`, `Task` | `when input.subagent_type glob` (absent: `general-purpose`) |
 * | `Skill(name)`, `Skill(name args *)` | `Skill` | `when input.skill` / `input.args` regexes |
 * | `Tool(param:value)` | the tool | `when input.param glob`; deny and ask only |
 *
 * Rules Claude Code accepts but never applies (path rules for `Write`, `WebFetch(https://…)`,
 * allow rules with a tool glob or a `param:value`) are not imported.
 */
import { domainToASCII } from 'node:url';
import { checkGlob, compileToolGlob, type Expr, type Selector } from '../../engine/index.js';
import { KNOWN_PARAMS, PARAM_RULE, PRIMARY_FIELDS, UNCONSULTED_PATH_TOOLS, type ClaudeRule, type ClaudeRuleMode } from './permission-rule.js';
import { translateBash, translatePowerShell } from './permissions-bash.js';
import { translatePath } from './permissions-path.js';

export interface RuleTranslation {
  tools?: string[];
  selectors?: Selector[];
  when?: Expr;
  /** How the imported rule differs from Claude Code's. */
  differences: string[];
  /** Why it is not imported (then there are no tools). */
  dropped?: { message: string; help?: string };
  /** The family the rule belongs to, for the notes that hold for every rule of a family. */
  family?: 'bash' | 'path';
}

export interface TranslateOptions {
  baseDir: string;
  home?: string | undefined;
}

export const READ_TOOLS = ['Read', 'Grep', 'Glob', 'LSP', 'NotebookRead'];
export const EDIT_TOOLS = ['Edit', 'Write', 'NotebookEdit', 'MultiEdit'];
const READ_DENY_EXTRA = ['Edit', 'Write', 'MultiEdit'];
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/u;

function drop(message: string, help?: string): RuleTranslation {
  return { differences: [], dropped: help === undefined ? { message } : { message, help } };
}

/** The tools a rule's tool part names, or null for a glob Claude Code skips in allow rules. */
function toolsOf(name: string, mode: ClaudeRuleMode): string[] | null {
  if (name.includes('*')) {
    const allowable = /^mcp__[^*]+?__/u.test(name) && !name.slice(5).split('__')[0]!.includes('*');
    return mode === 'allow' && !allowable ? null : [name];
  }
  if (name.startsWith('mcp__') && name.length > 5 && !name.slice(5).includes('__')) return [name, `${name}__*`];
  if (name === 'Task' || name === 'Agent') return ['Agent', 'Task'];
  return [name];
}

/** `Tool(param:value)`: a top-level scalar field, `*` a wildcard; Claude Code ignores such rules in allow. */
function paramRule(tools: string[], name: string, value: string, mode: ClaudeRuleMode, text: string): RuleTranslation {
  if (PRIMARY_FIELDS.has(name)) {
    return drop(`\`${text}\` never matches in claude code: \`${name}\` is the tool's primary field, which a \`param:value\` rule cannot name; not imported`);
  }
  if (mode === 'allow') return drop(`\`${text}\` never matches in claude code: \`param:value\` rules apply in deny and ask only; not imported`);
  if (!FIELD_NAME.test(name)) return drop(`\`${text}\` names the parameter \`${name}\`, which a condition here cannot name; not imported`);
  const differences: string[] = [];
  if (/^[*[{]/u.test(value)) {
    differences.push(`claude code compares only a text, number or boolean \`${name}\`; here \`${value}\` also matches a list or an object written as json`);
  }
  return { tools, when: { op: 'compare', cmp: 'glob', field: { name: 'input', path: [name] }, value }, differences };
}

function agentRule(tools: string[], spec: string): RuleTranslation {
  const field = { name: 'input', path: ['subagent_type'] };
  const glob: Expr = { op: 'compare', cmp: 'glob', field, value: spec };
  if (!compileToolGlob(spec).test('general-purpose')) return { tools, when: glob, differences: [] };
  // Claude Code reads a missing, null or empty `subagent_type` as `general-purpose`.
  return {
    tools,
    when: { op: 'or', args: [glob, { op: 'not', arg: { op: 'exists', field } }, { op: 'compare', cmp: '==', field, value: '' }] },
    differences: [],
  };
}

function regexEscape(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/gu, '\\$&');
}

/**
 * `Skill(name)`, `Skill(name args)`, with an optional final ` *` or `:*`; other shapes are not
 * imported. Claude Code compares `name args` (the skill without a leading `/`, then the trimmed
 * arguments); its legacy `command` input (the old SlashCommand shape) is not read here.
 */
function skillRule(spec: string, text: string): RuleTranslation {
  const trimmed = spec.trim();
  const open = trimmed.endsWith(':*') || / \*$/u.test(trimmed);
  const words = (open ? trimmed.replace(/(?::| )\*$/u, '') : trimmed).replace(/^\//u, '').split(/\s+/u).filter((w) => w !== '');
  if (words.length === 0 || words.some((w) => w.includes('*'))) {
    return drop(`\`${text}\` has a \`*\` where a condition here cannot follow claude code's reading of skill calls; not imported`);
  }
  const [name, ...args] = words;
  const skill: Expr = { op: 'compare', cmp: 'matches', field: { name: 'input', path: ['skill'] }, value: { regex: `^/?${regexEscape(name!)}$`, flags: '' } };
  const argsField = { name: 'input', path: ['args'] };
  let argsCond: Expr;
  if (args.length === 0) {
    argsCond = open ? { op: 'const', value: true } : { op: 'not', arg: { op: 'compare', cmp: 'matches', field: argsField, value: { regex: '\\S', flags: '' } } };
  } else {
    const tail = open ? '(?: [\\s\\S]*)?' : '';
    argsCond = { op: 'compare', cmp: 'matches', field: argsField, value: { regex: `^\\s*${regexEscape(args.join(' '))}${tail}\\s*$`, flags: '' } };
  }
  const when: Expr = argsCond.op === 'const' ? skill : { op: 'and', args: [skill, argsCond] };
  return { tools: ['Skill'], when, differences: [] };
}

/** `WebFetch(domain:…)`: a domain glob when the dshpolicy syntax can say it, else a regex over the host. */
function domainRule(spec: string, text: string): RuleTranslation {
  const raw = spec.trim();
  if (raw === '') return drop(`\`${text}\` names no host, so claude code never matches it; not imported`);
  if (raw === '*') return { tools: ['WebFetch'], differences: [] };
  const glob = raw.toLowerCase().replace(/\.$/u, '');
  const labels = glob.split('.').map((l) => (/^[\x00-\x7f]*$/u.test(l) || l.includes('*') ? l : domainToASCII(l) || l));
  if (labels.some((l) => l.includes(':') || l.includes('/'))) {
    return drop(`\`${text}\` never matches in claude code: a host has no port or path; not imported`, 'write the host alone, as in `domain:example.com`');
  }
  const ascii = labels.join('.');
  if (checkGlob(ascii, 'domain') === null) return { tools: ['WebFetch'], selectors: [{ kind: 'domain', globs: [ascii] }], differences: [] };
  const label = (l: string): string => l.split('*').map(regexEscape).join('[^.]*');
  const any = labels[0] === '*' && labels.length > 1;
  const regex = `^${any ? '.+\\.' : ''}${(any ? labels.slice(1) : labels).map(label).join('\\.')}\\.?$`;
  return { tools: ['WebFetch'], when: { op: 'compare', cmp: 'matches', field: { name: 'domain' }, value: { regex, flags: '' } }, differences: [] };
}

/** Translates one parsed rule for one list (`mode`). */
export function translateRule(rule: ClaudeRule, mode: ClaudeRuleMode, opts: TranslateOptions): RuleTranslation {
  const text = rule.source;
  const tools = toolsOf(rule.tool, mode);
  if (tools === null) {
    return drop(
      `claude code skips the allow rule \`${text}\`: a tool glob is honoured in allow rules only after a literal \`mcp__<server>__\`; not imported`,
      'name the tools, or write `mcp__<server>__*`',
    );
  }
  const spec = rule.specifier;
  if (spec === null) return { tools, differences: [] };
  const literal = rule.tool.includes('*') || (rule.tool.startsWith('mcp__') && !rule.tool.slice(5).includes('__')) ? '' : rule.tool === 'Task' ? 'Agent' : rule.tool;
  const param = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//u.test(spec) ? null : PARAM_RULE.exec(spec);
  const known = KNOWN_PARAMS[literal];
  const asParam = (): RuleTranslation => paramRule(tools, param![1]!, param![2]!, mode, text);

  if (literal === 'Bash' || literal === 'Monitor' || literal === 'PowerShell') {
    if (param !== null && known?.has(param[1]!) && !(param[1] === 'timeout' && param[2] === '*')) return asParam();
    const ps = literal === 'PowerShell';
    const t = ps ? translatePowerShell(spec, mode, text) : translateBash(spec, mode, text);
    if (t.dropped !== undefined) return { differences: t.differences, dropped: { message: `\`${text}\`: ${t.dropped}` }, family: 'bash' };
    const selectors: Selector[] = [{ kind: 'command', patterns: t.patterns }];
    return { tools: ps ? ['PowerShell'] : ['Bash', 'Monitor'], selectors, differences: t.differences, ...(ps ? {} : { family: 'bash' as const }) };
  }
  if (literal === 'Read' || literal === 'Edit') {
    if (param !== null && known?.has(param[1]!)) return asParam();
    const t = translatePath(spec, mode, opts);
    if (t.dropped !== undefined) return drop(`\`${text}\`: ${t.dropped}; not imported`);
    const family = literal === 'Read' ? (mode === 'deny' ? [...READ_TOOLS, ...READ_DENY_EXTRA] : READ_TOOLS) : mode === 'allow' ? [...EDIT_TOOLS, ...READ_TOOLS] : EDIT_TOOLS;
    return { tools: [...family], selectors: [{ kind: 'path', globs: t.globs }], differences: t.differences ?? [], family: 'path' };
  }
  if (UNCONSULTED_PATH_TOOLS.has(literal)) {
    if (param !== null && !PRIMARY_FIELDS.has(param[1]!)) return asParam();
    const instead = READ_TOOLS.includes(literal) ? 'Read' : 'Edit';
    return drop(`claude code never consults path rules written for \`${literal}\`, so \`${text}\` never matches; not imported`, `write \`${instead}(${spec})\`, which covers ${literal}`);
  }
  if (literal === 'WebFetch') {
    if (param !== null && param[1] === 'domain') return domainRule(param[2]!, text);
    if (param !== null) return asParam();
    return drop(`\`${text}\` never matches in claude code: WebFetch rules take \`domain:<host>\`; not imported`, 'write `WebFetch(domain:example.com)`');
  }
  if (literal === 'Agent') {
    if (param !== null && known?.has(param[1]!)) return asParam();
    return agentRule(tools, spec);
  }
  if (literal === 'Skill') return skillRule(spec, text);
  if (param !== null) return asParam();
  return drop(`\`${text}\` never matches in claude code: \`${literal || rule.tool}\` rules take no specifier other than \`param:value\`; not imported`);
}
