import { describe, expect, it } from 'vitest';
import { codesAt } from './compile-testkit.js';
import { compileText } from './index.js';

const preTool = (...lines: string[]) => compileText(`on pre-tool {\n${lines.map((l) => `  ${l}\n`).join('')}}\n`);
const dead = (...lines: string[]) => codesAt(preTool(...lines)).filter((c) => c.startsWith('check/dead-allow'));

describe('dead allow rules', () => {
  it('warns at an allow that an unconditional deny of the same tools outranks', () => {
    const r = preTool('allow Bash command "npm test"', 'deny Bash');
    expect(codesAt(r)).toEqual(['check/dead-allow@2:3']);
    expect(r.diagnostics[0]).toMatchObject({
      severity: 'warning',
      message: 'this `allow` never takes effect: a `deny` always outranks it',
      help: 'the `deny` at `policy.dshpolicy:3` applies to every call this `allow` matches; narrow one of them or remove this `allow`',
    });
    expect(r.ir).toBeDefined();
  });

  it('counts an ask as outranking too', () => {
    expect(dead('allow Read', 'ask Read, Edit')).toEqual(['check/dead-allow@2:3']);
  });

  it('counts a deny with no tools or with `*` as covering every tool', () => {
    expect(dead('allow Read', 'deny')).toEqual(['check/dead-allow@2:3']);
    expect(dead('allow Read', 'deny *')).toEqual(['check/dead-allow@2:3']);
    expect(dead('allow', 'deny *')).toEqual(['check/dead-allow@2:3']);
  });

  it('counts a deny whose tool glob matches each of the allow\'s tools', () => {
    expect(dead('allow mcp__db__query', 'deny mcp__db__*')).toEqual(['check/dead-allow@2:3']);
    expect(dead('allow mcp__db__*', 'deny mcp__*')).toEqual(['check/dead-allow@2:3']);
    expect(dead('allow mcp__*', 'deny mcp__db__*')).toEqual([]);
  });

  it('counts equal selectors, in any order', () => {
    expect(dead('allow Bash command "a", "b"', 'deny Bash command "b", "a"')).toEqual(['check/dead-allow@2:3']);
  });

  it('still warns when the allow has a condition of its own', () => {
    expect(dead('allow Read when cwd == "/x"', 'deny Read')).toEqual(['check/dead-allow@2:3']);
  });

  it('does not warn when the deny has a condition', () => {
    expect(dead('allow Bash', 'deny Bash when command contains "rm"')).toEqual([]);
  });

  it('does not warn when the deny misses some tool of the allow', () => {
    expect(dead('allow Read, Grep', 'deny Read')).toEqual([]);
    expect(dead('allow', 'deny Read')).toEqual([]);
  });

  it('does not warn when the deny has a selector the allow lacks or that differs', () => {
    expect(dead('allow Read', 'deny Read path "**/.env"')).toEqual([]);
    expect(dead('allow Bash command "npm test"', 'deny Bash command "npm test *"')).toEqual([]);
  });

  it('does not warn about rules on other seams', () => {
    const r = compileText('on pre-tool {\n  allow Bash command "ls"\n}\non post-tool {\n  block Bash\n}\n');
    expect(r.diagnostics).toEqual([]);
  });

  it('sees a deny in another file and names it', () => {
    const r = compileText('include "./strict.dshpolicy"\non pre-tool {\n  allow Read\n}\n', 'main.dshpolicy', {
      'strict.dshpolicy': '\n\non pre-tool {\n  deny Read\n}\n',
    });
    expect(codesAt(r)).toEqual(['check/dead-allow@3:3']);
    expect(r.diagnostics[0]!.help).toContain('`strict.dshpolicy:4`');
  });

  it('compares selectors after names are resolved', () => {
    const r = compileText('let cmds = ["a", "b"]\non pre-tool {\n  allow Bash command cmds\n  deny Bash command "a", "b"\n}\n');
    expect(codesAt(r)).toEqual(['check/dead-allow@3:3']);
  });
});
