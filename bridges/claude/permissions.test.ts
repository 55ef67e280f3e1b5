import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeRuleMatches, parseClaudeRule, type ClaudeRuleMode } from './permission-rule.js';
import {
  analyzeCommand,
  compilePolicy,
  evaluateSync,
  IR_VERSION,
  partReads,
  partWrites,
  type Diagnostic,
  type PolicyEvent,
  type Rule,
} from '../../engine/index.js';
import { compileText, printRule, printRules } from '../../dsl/index.js';
import { importClaudePermissions } from './permissions.js';
import { CLAUDE_STRIPPED_WRAPPERS } from './permissions-bash.js';

/** Whether a command reads some file, by the engine's reads (engine/reads.ts). */
function readsAFile(command: string): boolean {
  return analyzeCommand(command).parts.some((p) => {
    const r = partReads(p);
    return r.files.length > 0 || r.searches.length > 0 || r.globs.length > 0;
  });
}

const FILE = '/repo/.claude/settings.json';
const HOME = '/home/u';

function settings(permissions: unknown, extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ ...extra, permissions }, null, 2)}\n`;
}

function imported(permissions: unknown, opts: { baseDir?: string; home?: string } = { home: HOME }) {
  return importClaudePermissions(settings(permissions), FILE, opts);
}

function codes(ds: Diagnostic[]): string[] {
  return ds.map((d) => d.code);
}

/** The one rule a single-entry list gives, as a line of policy text. */
function line(list: 'allow' | 'ask' | 'deny', text: string): string {
  const r = imported({ [list]: [text] });
  expect(r.rules, JSON.stringify(r.diagnostics)).toHaveLength(1);
  return printRule({ ...r.rules[0]!, reason: undefined } as Rule).replace(/ because .*$/u, '');
}

describe('the translation of each rule form', () => {
  it.each([
    ['allow', 'Bash', 'allow Bash'],
    ['allow', 'Bash(*)', 'allow Bash'],
    ['deny', 'Bash()', 'deny Bash'],
    ['allow', 'Bash(npm run test:*)', `allow Bash, Monitor command "'npm' run test *"`],
    ['allow', 'Bash(git push *)', `allow Bash, Monitor command "'git' push *"`],
    ['allow', 'Bash(npm run test*)', `allow Bash, Monitor command "'npm' run test* *"`],
    ['allow', 'Bash(ls*)', 'allow Bash, Monitor command "ls* *"'],
    ['allow', 'Bash(git status)', `allow Bash, Monitor command "'git' status"`],
    ['deny', 'Bash(git * main)', `deny Bash, Monitor command "'git' * main", "'git' * * main", "'git' * * * main", "'git' * * * * main"`],
    ['deny', 'Bash(bash -c "npm test")', 'deny Bash, Monitor command "bash -c npm\\\\ test", "bash -c npm test"'],
    ['allow', 'Bash(bash -c "npm test")', 'allow Bash, Monitor command "bash -c npm\\\\ test"'],
    ['allow', 'Monitor(tail -f *)', `allow Bash, Monitor command "'tail' -f *"`],
    ['deny', 'Bash(:*)', 'deny Bash, Monitor command "*"'],
    ['deny', 'Bash(run_in_background:true)', 'deny Bash when input.run_in_background glob "true"'],
    ['deny', 'Bash(timeout:*)', 'deny Bash, Monitor command "timeout *"'],
    ['allow', 'Read', 'allow Read'],
    ['allow', 'Read(./.env)', 'allow Read, Grep, Glob, LSP, NotebookRead path "./.env"'],
    ['deny', 'Read(./.env)', 'deny Read, Grep, Glob, LSP, NotebookRead, Edit, Write, MultiEdit path "./.env", "./.env/**"'],
    ['ask', 'Read(.env)', 'ask Read, Grep, Glob, LSP, NotebookRead path "./**/.env", "./**/.env/**"'],
    ['allow', 'Read(src/**)', 'allow Read, Grep, Glob, LSP, NotebookRead path "./src/**"'],
    ['deny', 'Read(src/**)', 'deny Read, Grep, Glob, LSP, NotebookRead, Edit, Write, MultiEdit path "./**/src/**"'],
    ['allow', 'Read(src/)', 'allow Read, Grep, Glob, LSP, NotebookRead path "./src/"'],
    ['deny', 'Edit(src/)', 'deny Edit, Write, NotebookEdit, MultiEdit path "./**/src/"'],
    ['allow', 'Edit(/docs/*.md)', 'allow Edit, Write, NotebookEdit, MultiEdit, Read, Grep, Glob, LSP, NotebookRead path "/repo/docs/*.md"'],
    ['deny', 'Edit(//etc/**)', 'deny Edit, Write, NotebookEdit, MultiEdit path "/etc/**"'],
    ['deny', 'Read(~/.ssh/**)', 'deny Read, Grep, Glob, LSP, NotebookRead, Edit, Write, MultiEdit path "/home/u/.ssh/**"'],
    ['ask', 'Read(../common/*)', 'ask Read, Grep, Glob, LSP, NotebookRead path "../common/*", "../common/*/**"'],
    ['allow', 'Read(**/*.pem)', 'allow Read, Grep, Glob, LSP, NotebookRead path "./**/*.pem"'],
    ['deny', 'Read(offset:0)', 'deny Read when input.offset glob "0"'],
    ['allow', 'WebFetch', 'allow WebFetch'],
    ['allow', 'WebFetch(domain:*)', 'allow WebFetch'],
    ['allow', 'WebFetch(domain:Docs.Example.COM)', 'allow WebFetch domain "docs.example.com"'],
    ['deny', 'WebFetch(domain:*.example.com)', 'deny WebFetch domain "*.example.com"'],
    ['ask', 'WebFetch(domain:api.*.io)', 'ask WebFetch when domain matches /^api\\.[^.]*\\.io\\.?$/'],
    ['ask', 'WebFetch(domain:*.*.io)', 'ask WebFetch when domain matches /^.+\\.[^.]*\\.io\\.?$/'],
    ['allow', 'WebFetch(domain:bücher.de)', 'allow WebFetch domain "xn--bcher-kva.de"'],
    ['allow', 'mcp__github', 'allow mcp__github, mcp__github__*'],
    ['allow', 'mcp__github__get_issue', 'allow mcp__github__get_issue'],
    ['allow', 'mcp__github__*', 'allow mcp__github__*'],
    ['deny', 'mcp__*', 'deny mcp__*'],
    ['deny', '*', 'deny *'],
    ['allow', 'Task', 'allow Agent, Task'],
    ['allow', 'Agent(Explore)', 'allow Agent, Task when input.subagent_type glob "Explore"'],
    ['deny', 'Agent(general*)', 'deny Agent, Task when input.subagent_type glob "general*" or not input.subagent_type exists or input.subagent_type == ""'],
    ['deny', 'Agent(model:opus)', 'deny Agent, Task when input.model glob "opus"'],
    ['allow', 'Skill(deploy)', 'allow Skill when input.skill matches /^\\/?deploy$/ and not input.args matches /\\S/'],
    ['allow', 'Skill(deploy *)', 'allow Skill when input.skill matches /^\\/?deploy$/'],
    ['ask', 'Skill(/deploy prod:*)', 'ask Skill when input.skill matches /^\\/?deploy$/ and input.args matches /^\\s*prod(?: [\\s\\S]*)?\\s*$/'],
    ['deny', 'WebSearch', 'deny WebSearch'],
    ['deny', 'PowerShell(Remove-Item *)', 'deny PowerShell command "Remove-Item *"'],
  ] as const)('%s %s', (list, text, want) => {
    expect(line(list, text)).toBe(want);
  });

  it('resolves `~/` against the home only when one is given', () => {
    expect(importClaudePermissions(settings({ deny: ['Read(~/.aws/**)'] }), FILE).rules[0]!.selectors).toEqual([{ kind: 'path', globs: ['~/.aws/**'] }]);
  });

  it('resolves `/` against the directory above `.claude/`, or the one given, escaping glob characters', () => {
    expect(importClaudePermissions(settings({ allow: ['Edit(/src/**)'] }), 'proj/.claude/settings.local.json').rules[0]!.selectors).toEqual([
      { kind: 'path', globs: [`${process.cwd()}/proj/src/**`] },
    ]);
    expect(imported({ allow: ['Edit(/src/**)'] }, { baseDir: '/w/a[1]*' }).rules[0]!.selectors).toEqual([{ kind: 'path', globs: ['/w/a\\[1]\\*/src/**'] }]);
  });

  it('gives deny and ask rules a reason naming the rule, allow rules none', () => {
    const r = imported({ allow: ['Bash(ls)'], ask: ['Bash(git push *)'], deny: ['Read(.env)'] });
    expect(r.rules.map((x) => x.reason)).toEqual([
      undefined,
      'the Claude Code permission rule `Bash(git push *)` asks for approval',
      'denied by the Claude Code permission rule `Read(.env)`',
    ]);
  });
});

describe('what is not imported, and why', () => {
  it.each([
    ['deny', 'Write(src/**)', 'import/never-matches', 'never consults path rules written for `Write`'],
    ['deny', 'Glob(**/*.env)', 'import/never-matches', 'never consults path rules written for `Glob`'],
    ['allow', 'WebFetch(https://example.com)', 'import/never-matches', 'take `domain:<host>`'],
    ['deny', 'WebFetch(domain:)', 'import/never-matches', 'names no host'],
    ['deny', 'WebFetch(domain:localhost:3000)', 'import/never-matches', 'no port or path'],
    ['allow', 'mcp__*', 'import/never-matches', 'only after a literal `mcp__<server>__`'],
    ['allow', '*', 'import/never-matches', 'only after a literal `mcp__<server>__`'],
    ['allow', 'Bash(run_in_background:true)', 'import/never-matches', 'deny and ask only'],
    ['deny', 'WebSearch(url:x)', 'import/never-matches', 'primary field'],
    ['deny', 'WebSearch(query)', 'import/never-matches', 'no specifier other than `param:value`'],
    ['deny', 'Read([a-)', 'import/unsayable', 'not a valid glob'],
    ['deny', 'Skill(de* x)', 'import/unsayable', 'not imported'],
    ['deny', 'Bash(unclosed', 'import/invalid-rule', 'unbalanced parentheses'],
    ['deny', 'Bash(a) b', 'import/invalid-rule', 'unbalanced parentheses'],
    ['deny', '', 'import/invalid-rule', 'empty rule'],
    ['deny', 'Bad Tool', 'import/invalid-rule', 'a tool name has only'],
  ] as const)('%s `%s`: %s', (list, text, code, message) => {
    const r = imported({ [list]: [text] });
    expect(r.rules).toEqual([]);
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([[code, 'warning']]);
    expect(r.diagnostics[0]!.message).toContain(message);
    expect(r.diagnostics[0]!.pointer).toBe(`/permissions/${list}/0`);
  });

  it('skips entries that are not strings, and keeps the rest', () => {
    const r = imported({ allow: [5, 'Bash(ls)', null] });
    expect(r.rules).toHaveLength(1);
    expect(r.diagnostics.filter((d) => d.code === 'import/invalid-rule').map((d) => d.pointer)).toEqual(['/permissions/allow/0', '/permissions/allow/2']);
  });

  it('points an invalid rule at the place it breaks, through json escapes', () => {
    const text = '{"permissions": {"deny": ["B\\u0061sh(x))"]}}';
    const r = importClaudePermissions(text, 'x.json');
    const d = r.diagnostics.find((x) => x.code === 'import/invalid-rule')!;
    expect(d.message).toContain('closes the rule early');
    expect(text.slice(d.span!.start.offset, d.span!.start.offset + 2)).toBe('))');
  });

  it.each([
    ['{"permissions": {"allow": "Bash(ls)"}}', '`permissions.allow` must be an array'],
    ['{"permissions": {"allow": ["Bash(ls)"], "deny": "Bash(rm)"}}', '`permissions.deny` must be an array'],
    ['{"permissions": {"allow": ["Bash(ls)"], "defaultMode": "bogus"}}', '`permissions.defaultMode` must be one of'],
    ['{"permissions": {"allow": ["Bash(ls)"], "additionalDirectories": "x"}}', '`permissions.additionalDirectories` must be an array'],
    ['{"permissions": {"allow": ["Bash(ls)"], "additionalDirectories": [5]}}', '`permissions.additionalDirectories[0]` must be a string'],
    ['{"permissions": ["Bash(ls)"]}', '`permissions` must be an object'],
    ['["Bash(ls)"]', 'a settings file is a json object'],
  ])('a file claude code ignores imports nothing: %s', (text, message) => {
    const r = importClaudePermissions(text, 'settings.json');
    expect(r.rules).toEqual([]);
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([['import/invalid-settings', 'error']]);
    expect(r.diagnostics[0]!.message).toContain(message);
    expect(r.diagnostics[0]!.help).toContain('ignores the whole settings file');
  });

  it('reports json syntax errors as the settings reader does, and imports nothing', () => {
    const r = importClaudePermissions('{"permissions": {"allow": ["Bash(ls)",]}}', 'settings.json');
    expect(r.rules).toEqual([]);
    expect(codes(r.diagnostics)).toEqual(['claude/json-syntax']);
    expect(importClaudePermissions('// c\n{}', 'settings.json').diagnostics[0]!.message).toBe('comments are not allowed');
  });

  it('reports settings that change decisions but are not rules', () => {
    const text = settings({ allow: ['Bash(ls)'], defaultMode: 'dontAsk', additionalDirectories: ['../lib'], disableBypassPermissionsMode: 'disable', bogus: 1 }, { sandbox: { enabled: true }, hooks: {} });
    const r = importClaudePermissions(text, FILE);
    const notImported = r.diagnostics.filter((d) => d.code === 'import/not-imported');
    expect(notImported.map((d) => d.pointer)).toEqual(['/sandbox', '/permissions/defaultMode', '/permissions/additionalDirectories', '/permissions/disableBypassPermissionsMode', '/permissions/bogus']);
    expect(notImported[1]!.message).toContain('`dontAsk`');
    expect(notImported[2]!.message).toContain('`../lib`');
    expect(r.diagnostics.find((d) => d.code === 'import/hooks-not-imported')?.severity).toBe('info');
    expect(importClaudePermissions(settings({ defaultMode: 'default' }), FILE).diagnostics).toEqual([]);
  });

  it('warns when a key is given twice, and reads the last', () => {
    const r = importClaudePermissions('{"permissions": {"allow": ["Bash(ls)"], "allow": ["Bash(pwd)"]}}', 'settings.json', { baseDir: '/' });
    expect(r.rules.map((x) => x.selectors)).toEqual([[{ kind: 'command', patterns: ['pwd'] }]]);
    expect(r.diagnostics.filter((d) => d.code === 'import/duplicate-key').map((d) => d.span?.start.column)).toEqual([18]);
  });
});

describe('ids, spans, comments and diagnostics', () => {
  const text = settings({ allow: ['Bash(npm test)', 'Bash(git * main)'], deny: ['Read(.env)'] });
  const r = importClaudePermissions(text, FILE, { home: HOME });

  it('names each rule by the place of its string', () => {
    expect(r.rules.map((x) => x.id)).toEqual([`${FILE}:4:7`, `${FILE}:5:7`, `${FILE}:8:7`]);
    for (const rule of r.rules) expect(text.slice(rule.span!.start.offset, rule.span!.end.offset)).toMatch(/^"[^"]+"$/u);
  });

  it('comments each rule with its origin, then what differs', () => {
    expect(r.comments.get(r.rules[0]!)![0]).toBe('permissions.allow[0]: "Bash(npm test)"');
    expect(r.comments.get(r.rules[1]!)!.some((c) => c.startsWith('differs from claude code: each `*` in the middle'))).toBe(true);
    expect(r.comments.get(r.rules[2]!)![0]).toBe('permissions.deny[0]: "Read(.env)"');
  });

  it('says each general difference once per family, at its first rule', () => {
    const general = r.diagnostics.filter((d) => d.code === 'import/command-reading' || d.code === 'import/path-reading');
    expect(general.map((d) => [d.code, d.pointer])).toEqual([
      ['import/command-reading', '/permissions/allow/0'],
      ['import/path-reading', '/permissions/deny/0'],
    ]);
    expect(general[0]!.message).toContain('this rule and 1 more');
    expect(general[0]!.message).toContain('`env A=1 npm test`');
  });

  it('writes every diagnostic lowercase, with a span and a pointer', () => {
    for (const d of r.diagnostics) {
      expect(d.message).toMatch(/^[^A-Z]/u);
      expect(d.span?.file).toBe(FILE);
      expect(d.pointer).toMatch(/^\/permissions\//u);
    }
  });
});

describe('reported differences are real', () => {
  it('a middle `*` spanning more words than written: claude code matches, the import does not', () => {
    const r = imported({ deny: ['Bash(git * main)'] });
    const d = r.diagnostics.find((x) => x.code === 'import/approximate')!;
    expect(d.message).toContain('`git a b c d e main`');
    expect(decide(r.rules, bash('git a b c d e main'))).toBe('none');
    expect(decide(r.rules, bash('git push origin feature main'))).toBe('deny');
  });

  it('a `*` inside a word against a variable: both deny, a computed word being read at its worst', () => {
    const r = imported({ deny: ['Bash(rm *.tmp)'] });
    expect(r.diagnostics.find((x) => x.code === 'import/approximate')!.message).not.toContain('`rm $x.tmp`');
    expect(decide(r.rules, bash('rm $x.tmp'))).toBe('deny');
    expect(decide(r.rules, bash('rm a.tmp'))).toBe('deny');
  });

  it('the same in an allow rule is no difference: claude code asks about every variable', () => {
    expect(codes(imported({ allow: ['Bash(npm run test*)'] }).diagnostics)).toEqual(['import/command-reading']);
  });

  it('`$HOME` in a deny rule: claude code compares it as text; here the variable may hold `$HOME` too', () => {
    const r = imported({ deny: ['Bash(echo $HOME)'] });
    expect(r.diagnostics.find((x) => x.code === 'import/approximate')!.message).toContain('claude code compares `$`, backticks, braces and `<(` as written text');
    expect(decide(r.rules, bash("echo '$HOME'"))).toBe('deny');
    expect(decide(r.rules, bash('echo $HOME'))).toBe('deny');
  });

  it('allow rules for `find` and exec wrappers name what claude code asks about anyway', () => {
    expect(imported({ allow: ['Bash(find:*)'] }).diagnostics.find((d) => d.code === 'import/approximate')!.message).toContain('`find -exec CMD`');
    expect(imported({ allow: ['Bash(setsid *)'] }).diagnostics.find((d) => d.code === 'import/approximate')!.message).toContain('`setsid`');
    // `watch CMD` is read as the command it runs, which must be allowed itself: no difference to report
    expect(imported({ allow: ['Bash(watch *)'] }).diagnostics.some((d) => d.code === 'import/approximate' && d.message.includes('`watch`'))).toBe(false);
  });

  it('general differences: the examples behave as the note says here', () => {
    const allow = imported({ allow: ['Bash(make build)'] }).rules;
    for (const c of ['env A=1 make build', 'A=1 make build', '/usr/bin/make build', 'bash -c "make build"', '(make build)', "make 'build'"]) {
      expect(decide(allow, bash(c)), c).toBe('allow');
    }
    // a redirection into a file is a write no imported rule allows, as in claude code
    expect(decide(allow, bash('make build > out.txt'))).toBe('none');
    expect(imported({ allow: ['Bash(make build)'] }).diagnostics.some((d) => d.message.includes('redirected'))).toBe(false);
    expect(decide(allow, bash('noglob make build'))).toBe('none');
    const deny = imported({ deny: ['Bash(rm -rf:*)'] }).rules;
    // dshpolicy looks past zsh's `noglob` for deny and ask, as claude code does
    expect(decide(deny, bash('noglob rm -rf build'))).toBe('deny');
    expect(decide(deny, bash('rm "-rf build"'))).toBe('none');
    expect(decide(deny, bash('bash -c "rm -rf build"'))).toBe('deny');
  });
});

// ---------------------------------------------------------------------------------------------
// Agreement with permission-rule.ts, the reading of Claude Code's matcher

const BASE_DIR = '/repo';

function bash(command: string): { tool: string; input: Record<string, unknown> } {
  return { tool: 'Bash', input: { command } };
}

function decide(rules: Rule[], call: { tool: string; input: Record<string, unknown> }, cwd = '/repo'): string {
  const policy = compilePolicy({ version: IR_VERSION, sources: [], rules, tests: [] });
  const event = { seam: 'pre-tool', tool: call.tool, input: call.input, cwd, home: HOME } as PolicyEvent;
  return evaluateSync(policy, event).decision;
}

interface Lists {
  allow: string[];
  ask: string[];
  deny: string[];
}

/**
 * Claude Code's decision by the reference matcher: deny, then ask, then allow; a Bash command is
 * allowed when each of its subcommands is allowed by some rule.
 */
function reference(lists: Lists, call: { tool: string; input: Record<string, unknown> }, cwd: string): string {
  const parse = (xs: string[]) => xs.map((x) => parseClaudeRule(x).rule).filter((x) => x !== undefined);
  const ctx = (mode: ClaudeRuleMode) => ({ cwd, home: HOME, anchor: BASE_DIR, mode });
  if (parse(lists.deny).some((r) => claudeRuleMatches(r, call, ctx('deny')))) return 'deny';
  if (parse(lists.ask).some((r) => claudeRuleMatches(r, call, ctx('ask')))) return 'ask';
  const allow = parse(lists.allow);
  const command = call.input['command'];
  if ((call.tool === 'Bash' || call.tool === 'Monitor') && typeof command === 'string') {
    if (allow.some((r) => r.kind !== 'bash' && claudeRuleMatches(r, call, ctx('allow')))) return 'allow';
    const parts = analyzeCommand(command).parts;
    const each = parts.every((p) => allow.some((r) => r.kind === 'bash' && claudeRuleMatches(r, { tool: call.tool, input: { ...call.input, command: p.text } }, ctx('allow'))));
    return parts.length > 0 && each ? 'allow' : 'none';
  }
  return allow.some((r) => claudeRuleMatches(r, call, ctx('allow'))) ? 'allow' : 'none';
}

const isBashRule = (text: string): boolean => /^(Bash|Monitor)\(.*[^)*]|^(Bash|Monitor)\([^*)]/su.test(text) && !/^(Bash|Monitor)\(\*?\)$/u.test(text);

/**
 * Whether a command holds something the general notes report for the rule families present (so
 * the two sides may differ on it by design), or something the reference reads otherwise than
 * Claude Code 2.1.328 was seen to (then the importer follows the CLI; see the e2e test):
 * - allow rules: wrappers Claude Code does not look past (`env`, `exec`, `ionice`, `chrt`),
 *   assignments, absolute program paths and `noglob` (the general note); bare `xargs` (the
 *   reference looks past it, the CLI does not) and variables or substitutions (the reference
 *   compares them as text, the CLI asks about every one);
 * - every Bash rule: a word holding a blank, and `noglob` (the general notes).
 */
function setAside(command: string, lists: Lists): boolean {
  const allow = lists.allow.some(isBashRule);
  const denyAsk = [...lists.deny, ...lists.ask].some(isBashRule);
  if (!allow && !denyAsk) return false;
  const parts = analyzeCommand(command).parts;
  const words = parts.flatMap((p) => [p.words, ...p.views.map((v) => v.words)].flat());
  if (words.some((w) => /\s/u.test(w.value)) || /\bnoglob\b/u.test(command)) return true;
  // deny and ask rules see the words `xargs` appends, and read a computed word at its worst (the general note)
  if (/\bxargs\b/u.test(command) || words.some((w) => w.dynamic)) return true;
  if (!allow) return false;
  // the script of `bash -c` is allowed by its own commands here, where claude code asks (the general note)
  if (parts.some((p) => p.transparent === true)) return true;
  if (parts.some((p) => p.views.some((v) => v.wrappers.some((w) => ['env', 'exec', 'ionice', 'chrt', 'xargs'].includes(w.replace(/^.*\//u, '')))))) return true;
  if (parts.some((p) => /^\s*[A-Za-z_][A-Za-z0-9_]*\+?=/u.test(p.text) || p.views.some((v) => v.words[0]?.value.startsWith('/') ?? false))) return true;
  return /\bxargs\b/u.test(command) || words.some((w) => w.dynamic);
}

/**
 * Allow rules the reference reads otherwise than the CLI: one whose first word is a wrapper Claude
 * Code looks past (the reference compares only the command inside, the CLI also the command as
 * written, seen with `Bash(nice make y)`), and one with a quoted blank (the reference matches the
 * words it holds, the CLI compares it as written).
 */
function allowReadOtherwise(text: string): boolean {
  const m = /^(?:Bash|Monitor)\(\s*([^\s)]*)/u.exec(text);
  if (m === null) return false;
  const first = m[1]!.replace(/:\*$/u, '');
  const star = new RegExp(`^${first.replace(/[.+?^${}()|[\]\\]/gu, '\\$&').replace(/\*/gu, '.*')}$`, 'u');
  return [...CLAUDE_STRIPPED_WRAPPERS, 'xargs'].some((w) => star.test(w) || w === first) || /["'][^"']*\s[^"']*["']/u.test(text);
}

const WORDS = ['git', 'npm', 'rm', 'push', 'origin', 'main', 'run', 'test', 'test:unit', '-rf', 'dist', 'status', 'ls', 'echo', 'sudo', 'nice', 'timeout', '5', '/', 'x'];
const ARGS = ['push', 'origin', 'main', 'run', 'test', 'test:unit', '-rf', 'dist', '/', '--force', 'status', 'x', '$X', '"$X"', 'test$X', "'push'", 'te*', '5', '\\*', "'*'", '{a,b}', 'ma"in"', '"a b"'];
const WRAPS = ['', '', '', 'nice ', 'nice -n 5 ', 'timeout 5 ', 'nohup ', 'time ', 'command ', 'sudo ', 'sudo -u root ', 'stdbuf -o0 ', 'env A=1 ', 'exec ', 'noglob ', 'xargs ', 'A=1 ', 'NODE_ENV=test '];
const PROGS = ['git', 'npm', 'rm', 'ls', 'echo', 'make', './git', '/usr/bin/git'];
const PATHS = ['.env', '*.env', 'src/**', 'src/', 'src/*.ts', './src/a.ts', '../x/**', '//etc/**', '//repo/secret/**', '~/.ssh/**', '~', '/docs/**', '/docs/*.md', '**/secret/**', 'secret', 'sub/.env', '.', './', '*', '**', '//.', '..'];
const FILES = ['.env', 'src/a.ts', 'src/b/c.ts', '/repo/.env', '/repo/sub/.env', '/etc/hosts', '~/.ssh/id_rsa', '/home/u/.ssh/config', 'docs/x.md', '/repo/docs/x.md', '../x/y', 'secret/k', 'lib/src/a.ts', '/repo/lib/secret/k', '/repo/src', 'src', '.', '/repo', '/home/u', '/'];
const URLS = ['https://example.com/x', 'https://a.example.com/', 'https://api.x.io/', 'http://Example.COM./p', 'https://evil.net/?example.com', 'https://a.b.example.com', 'https://exa.com'];
const OTHER_RULES = ['Bash', 'Read', 'Edit', 'WebFetch', 'mcp__github', 'mcp__github__*', 'mcp__*', '*', 'Task', 'Agent', 'WebSearch', 'Bash(*)', 'Bash()', 'Agent(Explore)', 'Agent(gen*)', 'Agent(model:opus)', 'Task(*plore)', 'Bash(run_in_background:true)', 'Read(offset:1*)', 'Skill(deploy)', 'Skill(deploy *)', 'Skill(deploy prod)', 'mcp__github__get(x:1)', 'WebFetch(domain:example.com)', 'WebFetch(domain:*.example.com)', 'WebFetch(domain:api.*.io)', 'WebFetch(domain:ex*.com)', 'WebFetch(domain:EXAMPLE.com)'];
const OTHER_CALLS = [
  { tool: 'mcp__github__get', input: {} }, { tool: 'mcp__gitlab__x', input: {} }, { tool: 'WebSearch', input: {} }, { tool: 'Agent', input: { subagent_type: 'Explore', model: 'opus' } },
  { tool: 'Task', input: {} }, { tool: 'Agent', input: { subagent_type: '' } }, { tool: 'Skill', input: { skill: 'deploy', args: 'prod' } }, { tool: 'Skill', input: { skill: '/deploy' } },
  { tool: 'Bash', input: { command: 'ls', run_in_background: true } }, { tool: 'Read', input: { file_path: 'a', offset: 12 } }, { tool: 'mcp__github__get', input: { x: 1 } },
];

const simple = fc
  .tuple(fc.constantFrom(...WRAPS), fc.constantFrom(...PROGS), fc.array(fc.constantFrom(...ARGS), { maxLength: 3 }), fc.constantFrom('', '', ' > out', ' 2>&1', ' < in'))
  .map(([w, p, a, r]) => `${w}${[p, ...a].join(' ')}${r}`);
const part = fc.oneof(
  { weight: 12, arbitrary: simple },
  simple.map((s) => `bash -c "${s.replace(/"/gu, "'")}"`),
  simple.map((s) => `echo $(${s})`),
  fc.tuple(simple, simple).map(([a, b]) => `( ${a}; ${b} )`),
  simple.map((s) => `eval ${s}`),
  simple.map((s) => `find . -exec ${s} \\;`),
  fc.constantFrom(...ARGS).map((a) => `$CMD ${a}`),
);
const command = fc
  .tuple(part, fc.array(fc.tuple(fc.constantFrom(' && ', ' ; ', ' | ', ' || ', '\n'), part), { maxLength: 2 }))
  .map(([first, rest]) => first + rest.map(([sep, p]) => sep + p).join(''));
const call = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom('Bash', 'Bash', 'Monitor'), command).map(([tool, c]) => ({ tool, input: { command: c } as Record<string, unknown> })) },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom('Read', 'Edit', 'Write', 'Grep', 'Glob', 'NotebookEdit', 'MultiEdit', 'NotebookRead'), fc.constantFrom(...FILES)).map(([tool, f]) => ({
      tool,
      input: { [tool === 'Grep' || tool === 'Glob' ? 'path' : tool.startsWith('Notebook') ? 'notebook_path' : 'file_path']: f } as Record<string, unknown>,
    })),
  },
  { weight: 1, arbitrary: fc.constantFrom(...URLS).map((url) => ({ tool: 'WebFetch', input: { url } as Record<string, unknown> })) },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER_CALLS) },
);
const bashSpec = fc
  .tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }), fc.constantFrom('', '', ' *', ':*', '*'), fc.nat(20), fc.nat(20))
  .map(([words, tail, a, b]) => {
    const w = [...words];
    if (a % 7 === 0) w.splice(1 + (b % w.length), 0, '*');
    if (a % 7 === 1) w[b % w.length] = `${w[b % w.length]!.slice(0, 2)}*`;
    if (a % 7 === 2) w.push('"a b"');
    return w.join(' ') + tail;
  });
const listName = fc.constantFrom('allow', 'ask', 'deny') as fc.Arbitrary<keyof Lists>;
const freeRule = fc.oneof(
  { weight: 4, arbitrary: bashSpec.map((s) => `Bash(${s})`) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('Read', 'Edit', 'Read', 'Edit', 'Write', 'Glob'), fc.constantFrom(...PATHS)).map(([t, p]) => `${t}(${p})`) },
  { weight: 2, arbitrary: fc.constantFrom(...OTHER_RULES) },
);

/** A rule built from a call (so that rules and calls meet often): a prefix of a command's words, or a form of its path. */
function derived(c: { tool: string; input: Record<string, unknown> }, a: number, b: number): string {
  const cmd = c.input['command'];
  if (typeof cmd === 'string') {
    const parts = analyzeCommand(cmd).parts;
    const p = parts[a % Math.max(1, parts.length)];
    const views = p === undefined ? [] : p.views.length > 0 ? p.views : [{ words: p.words }];
    const words = (views[b % Math.max(1, views.length)]?.words ?? []).map((w) => w.value);
    if (words.length === 0) return 'Bash(ls)';
    const ws = words.slice(0, 1 + (b % words.length)).map((w) => (/[\s"'\\*$`{}()]/u.test(w) ? JSON.stringify(w) : w));
    if (a % 5 === 1 && ws.length > 2) ws[1] = '*';
    if (a % 5 === 2) ws[ws.length - 1] = `${ws[ws.length - 1]!.slice(0, 2)}*`;
    return `${['Bash', 'Monitor'][a % 2]}(${ws.join(' ')}${['', ' *', ':*', '*', ''][b % 5]})`;
  }
  const f = c.input['file_path'] ?? c.input['path'] ?? c.input['notebook_path'];
  if (typeof f !== 'string') return 'Read(.env)';
  const base = f.split('/').filter(Boolean).pop() ?? '.env';
  const forms = [base, `**/${base}`, f, `./${f}`, `//${f.replace(/^\//u, '')}`, f.startsWith('/repo/') ? f.slice(5) : f, f.replace(/\/[^/]*$/u, '/**'), f.replace(/\/[^/]*$/u, '/'), `~/${base}`, `${f.split('/')[0]}/**`];
  return `${['Read', 'Edit'][a % 2]}(${forms[b % forms.length]})`;
}

const scenario = fc
  .record({
    calls: fc.array(call, { minLength: 1, maxLength: 4 }),
    free: fc.array(fc.tuple(listName, freeRule), { maxLength: 3 }),
    near: fc.array(fc.tuple(listName, fc.nat(50), fc.nat(50), fc.nat(50)), { maxLength: 2 }),
    cwd: fc.constantFrom('/repo', '/repo/sub'),
  })
  .map(({ calls, free, near, cwd }) => {
    const lists: Lists = { allow: [], ask: [], deny: [] };
    for (const [l, r] of free) lists[l].push(r);
    for (const [l, i, a, b] of near) lists[l].push(derived(calls[i % calls.length]!, a, b));
    return { calls, lists, cwd };
  });

describe('agreement with the reference matcher', () => {
  it('decides as permission-rule.ts wherever no difference is reported', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(scenario, ({ calls, lists, cwd }) => {
        const r = importClaudePermissions(settings(lists), FILE, { baseDir: BASE_DIR, home: HOME });
        if (r.diagnostics.some((d) => d.code === 'import/approximate' || d.severity === 'error')) return;
        if (lists.allow.some(allowReadOtherwise)) return;
        for (const c of calls) {
          if (typeof c.input['command'] === 'string' && setAside(c.input['command'], lists)) continue;
          // dshpolicy judges a search by the paths it reaches, claude code by the directory it names
          if (c.tool === 'Grep' || c.tool === 'Glob') continue;
          // a redirection writes a file, which Read and Edit rules judge in dshpolicy and claude code, and the reference does not (the path note);
          // so do the files a command's programs write, remove or change (`tee f`, `rm f`), which the Edit rules judge here
          if (typeof c.input['command'] === 'string' && analyzeCommand(c.input['command']).parts.some((p) => p.writes !== undefined || partWrites(p).length > 0)) continue;
          // a file a command reads is judged by the Read rules here for every command, in claude code for those it recognises, and by the reference for none (the path note)
          if (typeof c.input['command'] === 'string' && readsAFile(c.input['command'])) continue;
          expect(decide(r.rules, c, cwd), `${JSON.stringify(lists)} ${JSON.stringify(c)} in ${cwd}`).toBe(reference(lists, c, cwd));
        }
      }),
      { numRuns: 600 },
    );
  });

  it('prints rules that compile back to the same rules', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(scenario, ({ lists }) => {
        const r = importClaudePermissions(settings(lists), FILE, { baseDir: BASE_DIR, home: HOME });
        const printed = printRules(r.rules, [], { comments: r.comments });
        expect(printed.unprinted).toEqual([]);
        const again = compileText(printed.text, 'imported.dshpolicy');
        expect(again.diagnostics.filter((d) => d.severity === 'error'), printed.text).toEqual([]);
        const shape = (x: Rule): unknown => ({ ...x, id: undefined, span: undefined });
        expect(again.ir!.rules.map(shape)).toEqual(r.rules.map(shape));
      }),
      { numRuns: 150 },
    );
  });
});
