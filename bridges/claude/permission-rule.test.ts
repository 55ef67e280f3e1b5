import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  claudeRuleMatches,
  parseClaudeRule,
  type ClaudeRule,
  type ClaudeRuleContext,
  type ClaudeRuleMode,
} from './permission-rule.js';

const CWD = '/home/u/proj';
const HOME = '/home/u';

function rule(text: string): ClaudeRule {
  const parsed = parseClaudeRule(text);
  if (parsed.rule === undefined) throw new Error(`${text}: ${parsed.error?.message}`);
  return parsed.rule;
}

function call(
  text: string,
  tool: string,
  input: Record<string, unknown>,
  mode: ClaudeRuleMode = 'if',
  extra: Partial<ClaudeRuleContext> = {},
): boolean {
  return claudeRuleMatches(rule(text), { tool, input }, { cwd: CWD, home: HOME, mode, ...extra });
}

const bash = (text: string, command: string, mode: ClaudeRuleMode = 'if', extra: Partial<ClaudeRuleContext> = {}): boolean =>
  call(text, 'Bash', { command }, mode, extra);

const read = (text: string, path: string, mode: ClaudeRuleMode = 'if', tool = 'Read'): boolean =>
  call(text, tool, { file_path: path }, mode);

const fetchUrl = (text: string, url: string, mode: ClaudeRuleMode = 'deny'): boolean =>
  call(text, 'WebFetch', { url, prompt: 'x' }, mode);

describe('parseClaudeRule', () => {
  it('reads the tool name and specifier', () => {
    const r = rule('Bash(npm run test:*)');
    expect(r.tool).toBe('Bash');
    expect(r.specifier).toBe('npm run test:*');
    expect(r.kind).toBe('bash');
    expect(rule('  Read(./.env)  ').source).toBe('Read(./.env)');
    expect(rule('Read(./.env)').kind).toBe('path');
    expect(rule('WebFetch(domain:example.com)').kind).toBe('domain');
    expect(rule('Agent(Explore)').kind).toBe('agent');
    expect(rule('Skill(deploy *)').kind).toBe('skill');
    expect(rule('Agent(model:opus)').kind).toBe('param');
    expect(rule('Bash(run_in_background:true)').kind).toBe('param');
  });

  it('treats Tool, Tool(*) and Tool() alike', () => {
    expect(rule('Bash').kind).toBe('tool');
    expect(rule('Bash').specifier).toBeNull();
    expect(rule('Bash(*)').kind).toBe('tool');
    expect(rule('Bash(*)').specifier).toBeNull();
    expect(rule('Bash()').kind).toBe('tool');
    expect(rule('Bash()').warnings.length).toBe(1);
    expect(rule('WebFetch(domain:*)').kind).toBe('tool');
  });

  it('reports malformed rules without throwing', () => {
    expect(parseClaudeRule('Bash(ls').error?.message).toMatch(/unbalanced/);
    expect(parseClaudeRule('Bash(ls))').error?.message).toMatch(/unbalanced/);
    expect(parseClaudeRule('Bash((ls)').error?.message).toMatch(/never closed/);
    expect(parseClaudeRule('Bash ls)').error?.message).toMatch(/unbalanced/);
    expect(parseClaudeRule('Bash(ls) extra').error).toBeDefined();
    expect(parseClaudeRule('(ls)').error?.message).toMatch(/empty tool name/);
    expect(parseClaudeRule('').error?.message).toMatch(/empty rule/);
    expect(parseClaudeRule('   ').error).toBeDefined();
    expect(parseClaudeRule('Ba sh(ls)').error?.offset).toBe(2);
    expect(parseClaudeRule('Bash(ls').rule).toBeUndefined();
    expect(parseClaudeRule(42 as unknown as string).error).toBeDefined();
  });

  it('accepts balanced, escaped and quoted parentheses in the specifier', () => {
    expect(rule('Bash(echo $(date))').specifier).toBe('echo $(date)');
    expect(rule('Bash(echo \\(x)').specifier).toBe('echo (x');
    expect(rule('Bash(echo ")")').specifier).toBe('echo ")"');
  });

  it('warns about rules Claude Code accepts but never consults', () => {
    expect(rule('Write(src/**)').warnings.join()).toMatch(/never consulted/);
    expect(rule('WebFetch(https://example.com)').kind).toBe('inert');
    expect(rule('WebFetch(url:https://x)').kind).toBe('inert');
    expect(rule('WebSearch(cats)').kind).toBe('inert');
    expect(rule('WebFetch(domain:)').kind).toBe('inert');
    expect(rule('Read(a**b)').warnings.join()).toMatch(/\*\*/);
  });
});

describe('tool names', () => {
  it('matches exact names, case-sensitively', () => {
    expect(call('Bash', 'Bash', { command: 'ls' })).toBe(true);
    expect(call('Bash', 'bash', { command: 'ls' })).toBe(false);
    expect(call('Bash', 'Read', { file_path: '/x' })).toBe(false);
    expect(call('WebSearch', 'WebSearch', { query: 'x' }, 'allow')).toBe(true);
    expect(call('Edit', 'Write', { file_path: '/x' }, 'deny')).toBe(false);
  });

  it('treats Task and Agent as aliases', () => {
    expect(call('Task', 'Agent', { subagent_type: 'Explore' })).toBe(true);
    expect(call('Agent', 'Task', { subagent_type: 'Explore' })).toBe(true);
    expect(call('Task(Explore)', 'Agent', { subagent_type: 'Explore' }, 'deny')).toBe(true);
  });

  it('matches every tool of an MCP server', () => {
    expect(call('mcp__github', 'mcp__github__create_issue', {}, 'allow')).toBe(true);
    expect(call('mcp__github', 'mcp__github', {}, 'allow')).toBe(true);
    expect(call('mcp__github', 'mcp__githubx__create_issue', {}, 'allow')).toBe(false);
    expect(call('mcp__github', 'mcp__gitlab__create_issue', {}, 'allow')).toBe(false);
  });

  it('matches tool globs over the whole name', () => {
    expect(call('mcp__github__*', 'mcp__github__get_me', {}, 'allow')).toBe(true);
    expect(call('mcp__github__get_*', 'mcp__github__get_me', {}, 'allow')).toBe(true);
    expect(call('mcp__github__get_*', 'mcp__github__create_issue', {}, 'allow')).toBe(false);
    expect(call('mcp__*', 'mcp__github__get_me', {}, 'deny')).toBe(true);
    expect(call('mcp__*', 'Bash', { command: 'ls' }, 'deny')).toBe(false);
    expect(call('*', 'Bash', { command: 'ls' }, 'deny')).toBe(true);
    expect(call('*__get_me', 'xmcp__github__get_me', {}, 'deny')).toBe(true);
    expect(call('get_*', 'mcp__github__get_me', {}, 'deny')).toBe(false);
  });

  it('skips unanchored tool globs in allow rules', () => {
    expect(call('mcp__*', 'mcp__github__get_me', {}, 'allow')).toBe(false);
    expect(call('*', 'Bash', { command: 'ls' }, 'allow')).toBe(false);
    expect(call('mcp__*__get_me', 'mcp__github__get_me', {}, 'allow')).toBe(false);
    expect(call('mcp__*__get_me', 'mcp__github__get_me', {}, 'ask')).toBe(true);
  });
});

describe('Bash patterns', () => {
  it('matches exactly without a wildcard', () => {
    expect(bash('Bash(npm run build)', 'npm run build')).toBe(true);
    expect(bash('Bash(npm run build)', 'npm run build:prod')).toBe(false);
    expect(bash('Bash(npm run build)', 'npm run')).toBe(false);
  });

  it('treats a final ` *` as a word boundary', () => {
    expect(bash('Bash(ls *)', 'ls -la')).toBe(true);
    expect(bash('Bash(ls *)', 'ls')).toBe(true);
    expect(bash('Bash(ls *)', 'lsof')).toBe(false);
    expect(bash('Bash(ls*)', 'lsof')).toBe(true);
  });

  it('lets `*` match any characters, spaces included, anywhere', () => {
    expect(bash('Bash(* install)', 'npm install')).toBe(true);
    expect(bash('Bash(* install)', 'pip3 install')).toBe(true);
    expect(bash('Bash(* install)', 'npm install lodash')).toBe(false);
    expect(bash('Bash(git * main)', 'git push origin main')).toBe(true);
    expect(bash('Bash(git * main)', 'git checkout main')).toBe(true);
    expect(bash('Bash(git * main)', 'git push origin dev')).toBe(false);
  });

  it('reads a final `:*` as ` *`, and `:` elsewhere literally', () => {
    expect(bash('Bash(npm run test:*)', 'npm run test')).toBe(true);
    expect(bash('Bash(npm run test:*)', 'npm run test -- --watch')).toBe(true);
    expect(bash('Bash(npm run test:*)', 'npm run test:unit')).toBe(false);
    expect(bash('Bash(npm run test:*)', 'npm run testing')).toBe(false);
    expect(bash('Bash(git:* push)', 'git push')).toBe(false);
    expect(bash('Bash(git:* push)', 'git:x push')).toBe(true);
    expect(bash('Bash(git push:*)', 'git push --force origin main')).toBe(true);
  });

  it('compares words after quote removal and blank collapsing', () => {
    expect(bash('Bash(git commit -m "fix bug")', 'git commit -m "fix bug"')).toBe(true);
    expect(bash('Bash(git commit -m "fix bug")', "git commit -m 'fix bug'")).toBe(true);
    expect(bash('Bash(git commit *)', 'git   commit   -m  x')).toBe(true);
    expect(bash('Bash(git  status)', 'git status')).toBe(true);
    expect(bash('Bash(git commit -m "*")', 'git commit -m "anything at all"')).toBe(true);
    expect(bash('Bash(echo \\*)', 'echo "*"')).toBe(true);
    expect(bash('Bash(echo \\*)', 'echo hello')).toBe(false);
  });

  it('strips leading assignments (deny and ask match past any of them)', () => {
    expect(bash('Bash(rm *)', 'FOO=bar rm -rf tmp/', 'deny')).toBe(true);
    expect(bash('Bash(rm *)', 'FOO=bar rm -rf tmp/', 'ask')).toBe(true);
    expect(bash('Bash(rm *)', 'FOO=bar rm -rf tmp/', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'GIT_SSH_COMMAND="ssh -v" git push origin', 'if')).toBe(true);
  });

  it('allow looks past known-safe assignments only', () => {
    expect(bash('Bash(npm test)', 'NODE_ENV=test npm test', 'allow')).toBe(true);
    expect(bash('Bash(npm test)', 'LANG=C LC_ALL=C npm test', 'allow')).toBe(true);
    expect(bash('Bash(npm test)', 'FOO=bar npm test', 'allow')).toBe(false);
    expect(bash('Bash(npm test)', 'NODE_ENV=test FOO=1 npm test', 'allow')).toBe(false);
    expect(bash('Bash(npm test)', 'npm test', 'allow')).toBe(true);
  });

  it('splits compound commands: some subcommand for if/deny, every one for allow', () => {
    const cmd = 'npm test && git push origin main';
    expect(bash('Bash(git push *)', cmd, 'if')).toBe(true);
    expect(bash('Bash(git push *)', cmd, 'deny')).toBe(true);
    expect(bash('Bash(git push *)', cmd, 'allow')).toBe(false);
    expect(bash('Bash(npm test)', cmd, 'allow')).toBe(false);
    expect(bash('Bash(*)', cmd, 'allow')).toBe(true);
    expect(bash('Bash(git push *)', 'ls; git push', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'ls || git push', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'ls | git push', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'ls |& git push', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'sleep 1 & git push', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'ls\ngit push', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'ls && git status', 'if')).toBe(false);
    expect(bash('Bash(git push *)', 'echo "git push"', 'if')).toBe(false);
  });

  it('lets the compound mode be overridden', () => {
    expect(bash('Bash(npm test)', 'npm test && npm test', 'allow', { compound: 'every' })).toBe(true);
    expect(bash('Bash(npm test)', 'npm test && ls', 'deny', { compound: 'every' })).toBe(false);
    expect(bash('Bash(npm test)', 'npm test && ls', 'allow', { compound: 'any' })).toBe(true);
  });

  it('treats commands in $() and backticks as subcommands', () => {
    expect(bash('Bash(curl *)', 'echo $(curl http://x)', 'deny')).toBe(true);
    expect(bash('Bash(curl *)', 'echo `curl http://x`', 'deny')).toBe(true);
    expect(bash('Bash(echo *)', 'echo $(curl http://x)', 'allow')).toBe(false);
    expect(bash('Bash(echo *)', 'echo $(date)', 'allow')).toBe(false);
    expect(bash('Bash(rm *)', 'bash -c "rm -rf /tmp/x"', 'deny')).toBe(true);
  });

  it('fires `if` patterns beyond the command name on dynamic content', () => {
    expect(bash('Bash(git push *)', 'git $(echo push) origin', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'git "$SUBCMD" origin', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'git push $REMOTE', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'git status $X', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'git status', 'if')).toBe(false);
    expect(bash('Bash(git push *)', 'echo $HOME', 'if')).toBe(false);
    expect(bash('Bash(git push *)', 'git status $X', 'deny')).toBe(false);
    expect(bash('Bash(git push *)', 'git status $X', 'allow')).toBe(false);
  });

  it('fails open in `if` when the command cannot be analysed', () => {
    expect(bash('Bash(git push *)', 'echo "unterminated', 'if')).toBe(true);
    expect(bash('Bash(git push *)', '$CMD push', 'if')).toBe(true);
    expect(bash('Bash(git push *)', 'eval "$X"', 'if')).toBe(true);
    expect(bash('Bash(echo *)', 'echo "unterminated', 'allow')).toBe(false);
    expect(bash('Bash(git push *)', 'echo "unterminated', 'deny')).toBe(false);
    expect(call('Bash(git push *)', 'Bash', {}, 'if')).toBe(true);
    expect(call('Bash(git push *)', 'Bash', {}, 'deny')).toBe(false);
  });

  it('looks through the wrappers Claude Code strips', () => {
    expect(bash('Bash(npm test)', 'timeout 30 npm test', 'allow')).toBe(true);
    expect(bash('Bash(npm test)', 'time npm test', 'allow')).toBe(true);
    expect(bash('Bash(npm test)', 'nice -n 10 npm test', 'allow')).toBe(true);
    expect(bash('Bash(npm test)', 'nohup npm test', 'allow')).toBe(true);
    expect(bash('Bash(npm test)', 'stdbuf -oL npm test', 'allow')).toBe(true);
    expect(bash('Bash(npm test)', 'command npm test', 'allow')).toBe(true);
    expect(bash('Bash(ls *)', 'noglob ls *.txt', 'allow')).toBe(true);
    expect(bash('Bash(rm *)', 'xargs rm', 'deny')).toBe(true);
    expect(bash('Bash(rm *)', 'xargs rm', 'allow')).toBe(true);
    expect(bash('Bash(rm *)', 'xargs -0 rm', 'allow')).toBe(false);
    expect(bash('Bash(rm *)', 'xargs -0 rm', 'deny')).toBe(true);
    expect(bash('Bash(npm test)', 'sudo npm test', 'allow')).toBe(false);
    expect(bash('Bash(npm test)', 'env npm test', 'allow')).toBe(false);
    expect(bash('Bash(git *)', 'command -v git', 'allow')).toBe(false);
  });

  it('matches wrappers and absolute program paths more widely for deny', () => {
    expect(bash('Bash(rm *)', 'sudo rm -rf /', 'deny')).toBe(true);
    expect(bash('Bash(rm *)', '/bin/rm -rf /', 'deny')).toBe(true);
    expect(bash('Bash(rm *)', '/bin/rm -rf /', 'allow')).toBe(false);
    expect(bash('Bash(timeout *)', 'timeout 5 rm x', 'deny')).toBe(true);
    expect(bash('Bash(nice *)', 'nice rm -rf x', 'allow')).toBe(false);
  });

  it('refuses commands over 10,000 characters in allow', () => {
    expect(bash('Bash(echo *)', 'echo ' + 'a'.repeat(10_001), 'allow')).toBe(false);
    expect(bash('Bash(echo *)', 'echo ' + 'a'.repeat(10_001), 'deny')).toBe(true);
  });

  it('applies to Monitor but not to PowerShell', () => {
    expect(call('Bash(tail *)', 'Monitor', { command: 'tail -f log' })).toBe(true);
    expect(call('Bash(ls *)', 'PowerShell', { command: 'ls' })).toBe(false);
  });
});

describe('PowerShell patterns', () => {
  const ps = (text: string, command: string, mode: ClaudeRuleMode = 'deny'): boolean =>
    call(text, 'PowerShell', { command }, mode);
  it('is case-insensitive and canonicalises aliases', () => {
    expect(ps('PowerShell(Remove-Item *)', 'remove-item -Recurse x')).toBe(true);
    expect(ps('PowerShell(Remove-Item *)', 'rm -r x')).toBe(true);
    expect(ps('PowerShell(ls:*)', 'Get-ChildItem C:\\')).toBe(true);
    expect(ps('PowerShell(Get-ChildItem *)', 'Get-Content x')).toBe(false);
  });
  it('splits on pipes, semicolons, && and ||', () => {
    expect(ps('PowerShell(Remove-Item *)', 'Get-Date; ri x')).toBe(true);
    expect(ps('PowerShell(Get-Date)', 'Get-Date | ri x', 'allow')).toBe(false);
    expect(ps('PowerShell(Write-Output *)', "echo 'a;b'", 'allow')).toBe(true);
  });
});

describe('Read and Edit paths', () => {
  it('matches bare filenames at any depth under the cwd', () => {
    expect(read('Read(.env)', `${CWD}/.env`, 'deny')).toBe(true);
    expect(read('Read(.env)', `${CWD}/a/b/.env`, 'deny')).toBe(true);
    expect(read('Read(.env)', `${CWD}/.env.local`, 'deny')).toBe(false);
    expect(read('Read(.env)', '/etc/.env', 'deny')).toBe(false);
    expect(read('Read(*.pem)', `${CWD}/keys/server.pem`, 'deny')).toBe(true);
  });

  it('reads `./path` and `a/b` relative to the cwd', () => {
    expect(read('Read(./.env)', `${CWD}/.env`, 'deny')).toBe(true);
    expect(read('Read(./.env)', `${CWD}/sub/.env`, 'deny')).toBe(false);
    expect(read('Read(src/*.ts)', `${CWD}/src/a.ts`, 'allow')).toBe(true);
    expect(read('Read(src/*.ts)', `${CWD}/src/x/a.ts`, 'allow')).toBe(false);
    expect(read('Read(src/**/*.ts)', `${CWD}/src/x/y/a.ts`, 'allow')).toBe(true);
    expect(read('Read(./src/**)', 'src/a.ts', 'allow')).toBe(true);
  });

  it('anchors `//`, `~/` and `/`', () => {
    expect(read('Read(//etc/passwd)', '/etc/passwd', 'deny')).toBe(true);
    expect(read('Read(//Users/alice/secrets/**)', '/Users/alice/secrets/a/b', 'deny')).toBe(true);
    expect(read('Read(~/.zshrc)', `${HOME}/.zshrc`, 'deny')).toBe(true);
    expect(read('Read(~/.zshrc)', `${CWD}/.zshrc`, 'deny')).toBe(false);
    expect(read('Read(~/.zshrc)', '~/.zshrc', 'deny')).toBe(true);
    expect(read('Read(/docs/**)', `${CWD}/docs/a.md`, 'deny')).toBe(true);
    expect(read('Read(/docs/**)', '/docs/a.md', 'deny')).toBe(false);
    expect(
      claudeRuleMatches(rule('Read(/docs/**)'), { tool: 'Read', input: { file_path: '/cfg/docs/a.md' } }, { cwd: CWD, anchor: '/cfg', mode: 'deny' }),
    ).toBe(true);
    expect(
      claudeRuleMatches(rule('Read(~/.zshrc)'), { tool: 'Read', input: { file_path: '/home/u/.zshrc' } }, { cwd: CWD, mode: 'deny' }),
    ).toBe(false);
  });

  it('reads single-segment directory patterns by mode', () => {
    expect(call('Edit(src/**)', 'Edit', { file_path: `${CWD}/src/a.ts` }, 'if')).toBe(true);
    expect(call('Edit(src/**)', 'Edit', { file_path: `${CWD}/pkg/src/a.ts` }, 'if')).toBe(false);
    expect(call('Edit(src/**)', 'Edit', { file_path: `${CWD}/pkg/src/a.ts` }, 'allow')).toBe(false);
    expect(call('Edit(src/**)', 'Edit', { file_path: `${CWD}/pkg/src/a.ts` }, 'deny')).toBe(true);
    expect(call('Edit(src/**)', 'Edit', { file_path: `${CWD}/pkg/src/a.ts` }, 'ask')).toBe(true);
    expect(call('Edit(**/src/**)', 'Edit', { file_path: `${CWD}/pkg/src/a.ts` }, 'if')).toBe(true);
    expect(call('Edit(src/**)', 'Edit', { file_path: `${CWD}/src` }, 'allow')).toBe(false);
    expect(call('Edit(src/)', 'Edit', { file_path: `${CWD}/pkg/src/a.ts` }, 'deny')).toBe(true);
    expect(call('Edit(src/)', 'Edit', { file_path: `${CWD}/pkg/src/a.ts` }, 'if')).toBe(false);
  });

  it('lets a matched directory take its contents along, except in allow', () => {
    expect(read('Read(node_modules)', `${CWD}/node_modules/x/index.js`, 'deny')).toBe(true);
    expect(read('Read(node_modules)', `${CWD}/node_modules/x/index.js`, 'allow')).toBe(false);
    expect(read('Read(src/*)', `${CWD}/src/a/b.ts`, 'deny')).toBe(true);
  });

  it('covers the Read and Edit tool families', () => {
    expect(call('Read(.env)', 'Grep', { pattern: 'x', path: `${CWD}/.env` }, 'deny')).toBe(true);
    expect(call('Read(.env)', 'LSP', { file_path: `${CWD}/.env` }, 'deny')).toBe(true);
    expect(call('Read(src/**)', 'Glob', { pattern: '*.ts' }, 'deny')).toBe(false);
    expect(call('Read(./**)', 'Glob', { pattern: '*.ts' }, 'deny')).toBe(false);
    expect(call('Read(//home/u/**)', 'Grep', { pattern: 'x' }, 'deny')).toBe(true);
    expect(call('Edit(.env)', 'Write', { file_path: `${CWD}/.env`, content: '' }, 'deny')).toBe(true);
    expect(call('Edit(*.ipynb)', 'NotebookEdit', { notebook_path: `${CWD}/a.ipynb` }, 'deny')).toBe(true);
    expect(call('Edit(.env)', 'MultiEdit', { file_path: `${CWD}/.env` }, 'deny')).toBe(true);
    expect(call('Edit(.env)', 'Read', { file_path: `${CWD}/.env` }, 'deny')).toBe(false);
    expect(call('Edit(.env)', 'Bash', { command: 'cat .env' }, 'deny')).toBe(false);
  });

  it('Read deny blocks Edit and Write (not NotebookEdit); Edit allow grants Read', () => {
    expect(call('Read(.env)', 'Edit', { file_path: `${CWD}/.env` }, 'deny')).toBe(true);
    expect(call('Read(.env)', 'Write', { file_path: `${CWD}/.env` }, 'deny')).toBe(true);
    expect(call('Read(*.ipynb)', 'NotebookEdit', { notebook_path: `${CWD}/a.ipynb` }, 'deny')).toBe(false);
    expect(call('Read(.env)', 'Edit', { file_path: `${CWD}/.env` }, 'ask')).toBe(false);
    expect(call('Read(.env)', 'Edit', { file_path: `${CWD}/.env` }, 'if')).toBe(false);
    expect(call('Edit(src/**)', 'Read', { file_path: `${CWD}/src/a.ts` }, 'allow')).toBe(true);
    expect(call('Edit(src/**)', 'Read', { file_path: `${CWD}/src/a.ts` }, 'if')).toBe(false);
  });

  it('applies Write(...) path rules only in `if`', () => {
    expect(call('Write(src/**)', 'Write', { file_path: `${CWD}/src/a.ts` }, 'if')).toBe(true);
    expect(call('Write(src/**)', 'Edit', { file_path: `${CWD}/src/a.ts` }, 'if')).toBe(false);
    expect(call('Write(src/**)', 'Write', { file_path: `${CWD}/src/a.ts` }, 'deny')).toBe(false);
    expect(call('Write(src/**)', 'Write', { file_path: `${CWD}/src/a.ts` }, 'allow')).toBe(false);
  });

  it('normalises Windows paths and never matches without a path', () => {
    expect(
      claudeRuleMatches(rule('Read(//c/Users/**)'), { tool: 'Read', input: { file_path: 'C:\\Users\\me\\a.txt' } }, { cwd: 'C:\\work', mode: 'deny' }),
    ).toBe(true);
    expect(read('Read(//**/.env)', 'D:\\x\\.env', 'deny')).toBe(true);
    expect(call('Read(.env)', 'Read', {}, 'deny')).toBe(false);
    expect(call('Read(.env)', 'Read', { file_path: 42 }, 'deny')).toBe(false);
  });

  it('reads `offset:`-style specifiers as parameters', () => {
    expect(rule('Read(limit:*)').kind).toBe('param');
    expect(call('Read(limit:*)', 'Read', { file_path: '/x', limit: 10 }, 'deny')).toBe(true);
    expect(call('Read(limit:*)', 'Read', { file_path: '/x' }, 'deny')).toBe(false);
  });
});

describe('WebFetch domains', () => {
  it('matches hostnames case-insensitively, ignoring a trailing dot', () => {
    expect(fetchUrl('WebFetch(domain:example.com)', 'https://example.com/a')).toBe(true);
    expect(fetchUrl('WebFetch(domain:example.com)', 'https://EXAMPLE.com./a')).toBe(true);
    expect(fetchUrl('WebFetch(domain:Example.COM.)', 'http://example.com:8080/')).toBe(true);
    expect(fetchUrl('WebFetch(domain:example.com)', 'https://www.example.com/')).toBe(false);
    expect(fetchUrl('WebFetch(domain:example.com)', 'https://example.com.evil.net/')).toBe(false);
    expect(fetchUrl('WebFetch(domain:example.com)', 'https://evil.net/?u=example.com')).toBe(false);
  });

  it('reads `*.` as subdomains at any depth, not the apex', () => {
    expect(fetchUrl('WebFetch(domain:*.example.com)', 'https://a.example.com/')).toBe(true);
    expect(fetchUrl('WebFetch(domain:*.example.com)', 'https://a.b.example.com/')).toBe(true);
    expect(fetchUrl('WebFetch(domain:*.example.com)', 'https://example.com/')).toBe(false);
    expect(fetchUrl('WebFetch(domain:*.example.com)', 'https://notexample.com/')).toBe(false);
  });

  it('reads `*` elsewhere within one label', () => {
    expect(fetchUrl('WebFetch(domain:api-*.example.com)', 'https://api-eu.example.com/')).toBe(true);
    expect(fetchUrl('WebFetch(domain:api-*.example.com)', 'https://api-eu.x.example.com/')).toBe(false);
    expect(fetchUrl('WebFetch(domain:docs.*.com)', 'https://docs.python.com/')).toBe(true);
    expect(fetchUrl('WebFetch(domain:docs.*.com)', 'https://docs.a.b.com/')).toBe(false);
  });

  it('never matches without a usable URL, and `domain:*` is any URL', () => {
    expect(call('WebFetch(domain:example.com)', 'WebFetch', { prompt: 'x' }, 'deny')).toBe(false);
    expect(fetchUrl('WebFetch(domain:example.com)', 'not a url')).toBe(false);
    expect(fetchUrl('WebFetch(domain:*)', 'https://anything.org/')).toBe(true);
    expect(fetchUrl('WebFetch(domain:bücher.de)', 'https://xn--bcher-kva.de/')).toBe(true);
  });
});

describe('Agent, Skill and parameter rules', () => {
  it('matches the subagent type', () => {
    expect(call('Agent(Explore)', 'Agent', { subagent_type: 'Explore', prompt: 'p' }, 'deny')).toBe(true);
    expect(call('Agent(Explore)', 'Agent', { subagent_type: 'Plan', prompt: 'p' }, 'deny')).toBe(false);
    expect(call('Agent(my-plugin:*)', 'Agent', { subagent_type: 'my-plugin:reviewer' }, 'deny')).toBe(true);
    expect(call('Agent(general-purpose)', 'Agent', { prompt: 'p' }, 'deny')).toBe(true);
    expect(call('Agent(Explore)', 'Bash', { subagent_type: 'Explore' }, 'deny')).toBe(false);
  });

  it('matches scalar parameters, in deny, ask and if only', () => {
    expect(call('Agent(model:opus)', 'Agent', { subagent_type: 'Explore', model: 'opus' }, 'deny')).toBe(true);
    expect(call('Agent(model:opus)', 'Agent', { model: 'sonnet' }, 'deny')).toBe(false);
    expect(call('Agent(model:opus*)', 'Agent', { model: 'opus-4' }, 'ask')).toBe(true);
    expect(call('Agent(model:opus)', 'Agent', { model: 'opus' }, 'allow')).toBe(false);
    expect(call('Agent(model:opus)', 'Agent', { model: 'opus' }, 'if')).toBe(true);
    expect(call('Bash(run_in_background:true)', 'Bash', { command: 'sleep 9', run_in_background: true }, 'deny')).toBe(true);
    expect(call('Bash(run_in_background:true)', 'Bash', { command: 'sleep 9', run_in_background: false }, 'deny')).toBe(false);
    expect(call('mcp__github__*(owner:acme)', 'mcp__github__list', { owner: 'acme' }, 'deny')).toBe(true);
    expect(call('mcp__github__*(owner:acme)', 'mcp__github__list', { owner: { login: 'acme' } }, 'deny')).toBe(false);
    expect(call('mcp__x__y(constructor:*)', 'mcp__x__y', {}, 'deny')).toBe(false);
  });

  it('keeps `Bash(timeout:*)` a command prefix', () => {
    expect(rule('Bash(timeout:*)').kind).toBe('bash');
    expect(bash('Bash(timeout:*)', 'timeout 5 ls', 'deny')).toBe(true);
    expect(call('Bash(timeout:600000)', 'Bash', { command: 'ls', timeout: 600000 }, 'deny')).toBe(true);
  });

  it('matches skills by name and arguments', () => {
    expect(call('Skill(deploy *)', 'Skill', { skill: 'deploy', args: 'prod' }, 'deny')).toBe(true);
    expect(call('Skill(deploy *)', 'Skill', { skill: 'deploy' }, 'deny')).toBe(true);
    expect(call('Skill(deploy *)', 'Skill', { skill: 'deployer' }, 'deny')).toBe(false);
    expect(call('Skill(deploy prod)', 'Skill', { skill: 'deploy', args: 'staging' }, 'deny')).toBe(false);
    expect(call('Skill(deploy:*)', 'Skill', { command: '/deploy prod' }, 'deny')).toBe(true);
    expect(call('Skill(deploy)', 'Skill', {}, 'deny')).toBe(false);
  });

  it('never matches inert rules', () => {
    expect(call('WebSearch(cats)', 'WebSearch', { query: 'cats' }, 'deny')).toBe(false);
    expect(call('WebFetch(url:*)', 'WebFetch', { url: 'https://x' }, 'deny')).toBe(false);
  });
});

describe('robustness', () => {
  const MODES: ClaudeRuleMode[] = ['if', 'allow', 'deny', 'ask'];
  const RULE_PIECES = [
    'Bash', 'Read', 'Edit', 'Write', 'WebFetch', 'Agent', 'Skill', 'PowerShell', 'mcp__', 'mcp__x', '__', '*', '(', ')', ':',
    ':*', ' ', 'domain:', '//', '~/', '/', './', '**', '.env', '"', "'", '\\', '$(', '`', 'git push', '&&', 'model:', '[', ']',
  ];
  const ruleText = fc.oneof(fc.string(), fc.array(fc.constantFrom(...RULE_PIECES), { maxLength: 8 }).map((a) => a.join('')));
  const scalar = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
  const input = fc.dictionary(
    fc.constantFrom('command', 'file_path', 'path', 'url', 'subagent_type', 'model', 'skill', 'args', 'notebook_path', '__proto__'),
    fc.oneof(scalar, fc.array(scalar), fc.object()),
  );

  it('parse and match never throw', () => {
    fc.assert(
      fc.property(
        ruleText,
        fc.constantFrom('Bash', 'Read', 'Edit', 'Write', 'Grep', 'WebFetch', 'Agent', 'Skill', 'PowerShell', 'mcp__x__y', ''),
        input,
        fc.constantFrom(...MODES),
        fc.oneof(fc.constant(CWD), fc.string()),
        (text, tool, inp, mode, cwd) => {
          const parsed = parseClaudeRule(text);
          expect(parsed.rule !== undefined || parsed.error !== undefined).toBe(true);
          if (parsed.rule) {
            const r = claudeRuleMatches(parsed.rule, { tool, input: inp }, { cwd, home: HOME, mode });
            expect(typeof r).toBe('boolean');
          }
        },
      ),
      { numRuns: 800 },
    );
  });

  it('survives hostile arguments', () => {
    const r = rule('Bash(ls *)');
    const bad = [null, undefined, 42, 'x', [], { tool: 1 }, { tool: 'Bash', input: null }, { tool: 'Bash', input: [1] }];
    for (const c of bad) {
      expect(typeof claudeRuleMatches(r, c as never, { cwd: CWD, mode: 'deny' })).toBe('boolean');
    }
    expect(claudeRuleMatches(r, { tool: 'Bash', input: { command: 'ls' } }, null as never)).toBe(false);
    expect(claudeRuleMatches(null as never, { tool: 'Bash', input: {} }, { cwd: CWD, mode: 'if' })).toBe(false);
    const throwing = new Proxy({}, { get: () => { throw new Error('boom'); }, has: () => { throw new Error('boom'); }, getOwnPropertyDescriptor: () => { throw new Error('boom'); } });
    expect(claudeRuleMatches(r, { tool: 'Bash', input: throwing as never }, { cwd: CWD, mode: 'if' })).toBe(true);
    expect(claudeRuleMatches(r, { tool: 'Bash', input: throwing as never }, { cwd: CWD, mode: 'deny' })).toBe(false);
  });

  it('recompiles a rule object that was not built by parseClaudeRule', () => {
    const copy: ClaudeRule = { ...rule('Bash(ls *)') };
    expect(claudeRuleMatches(copy, { tool: 'Bash', input: { command: 'ls -la' } }, { cwd: CWD, mode: 'deny' })).toBe(true);
    expect(claudeRuleMatches(copy, { tool: 'Bash', input: { command: 'lsof' } }, { cwd: CWD, mode: 'deny' })).toBe(false);
  });

  it('stays fast on long inputs', () => {
    const long = 'echo ' + 'a* '.repeat(20_000);
    const start = Date.now();
    expect(bash('Bash(*a*a*a*a*a*b)', long, 'deny')).toBe(false);
    expect(call('WebFetch(domain:*.a.a.a.a.b)', 'WebFetch', { url: 'https://' + 'a.'.repeat(100) + 'com/' }, 'deny')).toBe(false);
    expect(Date.now() - start).toBeLessThan(3000);
  });
});
