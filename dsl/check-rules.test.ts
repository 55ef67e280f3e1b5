import { describe, expect, it } from 'vitest';
import type { Item, ObjectLit, RuleNode } from './ast.js';
import { codesAt, compileFake, type AstBuilder } from './compile-testkit.js';

/** `on <seam> {` on line 1, the rules from line 2 (each indented by two spaces). */
function onSeam(seam: string, lines: string[], rules: (b: AstBuilder) => RuleNode[], extra: (b: AstBuilder) => Item[] = () => []) {
  const text = `on ${seam} {\n${lines.map((l) => `  ${l}\n`).join('')}}\n`;
  return compileFake(text, (b) => [b.on(b.ident(seam), rules(b)), ...extra(b)]);
}

describe('seams and rule forms', () => {
  it('reports an unknown seam with a suggestion', () => {
    const r = onSeam('pretool', ['deny Bash'], (b) => [b.rule(b.ident('deny'), { tools: [b.tool('Bash')] })]);
    expect(codesAt(r)).toEqual(['check/unknown-seam@1:4']);
    expect(r.diagnostics[0]).toMatchObject({ severity: 'error', message: '`pretool` is not a seam', help: 'did you mean `pre-tool`?' });
  });

  it('lists the seams when nothing is close', () => {
    const r = onSeam('whenever', [], () => []);
    expect(r.diagnostics[0]!.help).toBe(
      'seams are `pre-tool`, `prompt`, `post-tool`, `stop`, `session-start`; an agent event without a seam (`Notification`, `PreCompact`, ...) takes `run` rules',
    );
  });

  it('reports a rule form the seam does not take', () => {
    const r = onSeam('stop', ['deny'], (b) => [b.rule(b.ident('deny'))]);
    expect(codesAt(r)).toEqual(['check/effect-not-allowed@2:3']);
    expect(r.diagnostics[0]).toMatchObject({
      message: '`deny` is not a rule of the `stop` seam',
      help: 'the `stop` seam takes `continue`, `halt`, `limit` or `run`',
    });
  });

  it('accepts every form on the seams that take it', () => {
    const r = onSeam('stop', ['continue', 'halt', 'limit 3'], (b) => [
      b.rule(b.ident('continue')),
      b.rule(b.ident('halt')),
      b.rule(b.ident('limit'), { limit: b.num('3') }),
    ]);
    // (the lints add that this `continue` never takes effect beside an unconditional `halt`)
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('reports an unknown rule word', () => {
    const r = onSeam('pre-tool', ['denny Bash'], (b) => [b.rule(b.ident('denny'), { tools: [b.tool('Bash')] })]);
    expect(codesAt(r)).toEqual(['check/unknown-effect@2:3']);
    expect(r.diagnostics[0]).toMatchObject({ message: '`denny` is not a rule form', help: 'did you mean `deny`?' });
  });
});

describe('tools and selectors', () => {
  it('reports tools on a seam without tools', () => {
    const r = onSeam('prompt', ['block Bash, Read'], (b) => [b.rule(b.ident('block'), { tools: [b.tool('Bash'), b.tool('Read')] })]);
    expect(codesAt(r)).toEqual(['check/tools-not-allowed@2:9']);
    expect(r.diagnostics[0]!.message).toBe('the `prompt` seam has no tools');
    expect(r.diagnostics[0]!.span?.end.column).toBe(19);
  });

  it('reports selectors on a seam without tools', () => {
    const r = onSeam('session-start', ['context path "x" "hi"'], (b) => [
      b.rule(b.ident('context'), { selectors: [b.sel('path', [b.str('"x"')])], text: b.str('"hi"') }),
    ]);
    expect(codesAt(r)).toEqual(['check/selector-not-allowed@2:11']);
  });

  it('reports an unknown selector word', () => {
    const r = onSeam('pre-tool', ['deny Read paths "x"'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('paths', [b.str('"x"')])] }),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-selector@2:13']);
    expect(r.diagnostics[0]).toMatchObject({ message: '`paths` is not a selector', help: 'did you mean `path`?' });
  });

  it('reports a selector value that is not a string', () => {
    const r = onSeam('pre-tool', ['deny Read path /x/'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.re('/x/')])] }),
    ]);
    expect(codesAt(r)).toEqual(['check/bad-selector-value@2:18']);
    expect(r.diagnostics[0]!.message).toBe('`path` takes strings or lists of strings, but this is a regex');
  });

  it('reports a let of the wrong kind where it is used', () => {
    const text = `let n = [1]\non pre-tool {\n  deny Read path n\n}\n`;
    const r = compileFake(text, (b) => [
      b.let('n', b.list([b.num('1')])),
      b.on(b.ident('pre-tool'), [b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.ref('n', 1)])] })]),
    ]);
    expect(codesAt(r)).toEqual(['check/bad-selector-value@3:18']);
    expect(r.diagnostics[0]!.message).toBe('`path` takes strings or lists of strings, but `n` holds a number');
  });

  it('accepts nested lists of strings', () => {
    const text = `let a = ["x"]\non pre-tool {\n  deny Read path [a, "y"]\n}\n`;
    const r = compileFake(text, (b) => [
      b.let('a', b.list([b.str('"x"')])),
      b.on(b.ident('pre-tool'), [b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.list([b.ref('a', 1), b.str('"y"')], 1)])] })]),
    ]);
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.rules[0]?.selectors).toEqual([{ kind: 'path', globs: ['x', 'y'] }]);
  });

  it('reports an empty selector', () => {
    const r = onSeam('pre-tool', ['deny Read path []'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.list([])])] }),
    ]);
    expect(codesAt(r)).toEqual(['check/empty-selector@2:13']);
    expect(r.diagnostics[0]!.severity).toBe('error');
  });

  it('places an invalid glob at the offending character', () => {
    const r = onSeam('pre-tool', ['deny Read path "src/a[b"'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.str('"src/a[b"')])] }),
    ]);
    expect(codesAt(r)).toEqual(['check/invalid-glob@2:24']);
    expect(r.diagnostics[0]!.span?.end.column).toBe(25);
    expect(r.diagnostics[0]!.message).toContain('missing `]`');
  });

  it('points at the whole string when it has escapes', () => {
    const r = onSeam('pre-tool', ['deny Read path "\\u0061[b"'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.str('"\\u0061[b"')])] }),
    ]);
    expect(codesAt(r)).toEqual(['check/invalid-glob@2:18']);
    expect(r.diagnostics[0]!.span?.end.column).toBe(28);
  });

  it('checks url and domain globs with their own syntax', () => {
    const r = onSeam('pre-tool', ['deny WebFetch domain "a b.com"'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('WebFetch')], selectors: [b.sel('domain', [b.str('"a b.com"')])] }),
    ]);
    expect(codesAt(r)).toEqual(['check/invalid-glob@2:26']);
  });

  it('places an invalid glob in a let at the let', () => {
    const text = `let bad = "a["\non pre-tool {\n  deny Read path bad\n  deny Edit path bad\n}\n`;
    const r = compileFake(text, (b) => [
      b.let('bad', b.str('"a["')),
      b.on(b.ident('pre-tool'), [
        b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.ref('bad', 1)])] }),
        b.rule(b.ident('deny', 1), { tools: [b.tool('Edit')], selectors: [b.sel('path', [b.ref('bad', 2)], 1)] }),
      ]),
    ]);
    expect(codesAt(r)).toEqual(['check/invalid-glob@1:13']);
  });

  it('warns about an unknown tool, suggesting a close name', () => {
    const r = onSeam('pre-tool', ['deny bash, Raed, Frobnicator'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('bash'), b.tool('Raed'), b.tool('Frobnicator')] }),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-tool@2:8', 'check/unknown-tool@2:14', 'check/unknown-tool@2:20']);
    expect(r.diagnostics.map((d) => d.help)).toEqual([
      'did you mean `Bash`?',
      'did you mean `Read`?',
      'tool names are case-sensitive; MCP tools are named `mcp__<server>__<tool>`',
    ]);
    expect(r.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
    expect(r.ir).toBeDefined();
  });

  it('knows the tools of every agent, MCP tools and globs', () => {
    const r = onSeam('pre-tool', ['deny Bash, apply_patch, mcp__db__query, mcp__github__*, *'], (b) => [
      b.rule(b.ident('deny'), {
        tools: [b.tool('Bash'), b.tool('apply_patch'), b.tool('mcp__db__query'), b.tool('mcp__github__*'), b.tool('*')],
      }),
    ]);
    expect(r.diagnostics).toEqual([]);
  });

  it('reports an invalid tool glob', () => {
    const r = onSeam('pre-tool', ['deny Ba[sh'], (b) => [b.rule(b.ident('deny'), { tools: [b.tool('Ba[sh')] })]);
    expect(codesAt(r)).toEqual(['check/invalid-glob@2:10']);
  });

  it('warns about a command selector on tools that are not shells', () => {
    const r = onSeam('pre-tool', ['deny Read, Edit command "rm *"'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('Read'), b.tool('Edit')], selectors: [b.sel('command', [b.str('"rm *"')])] }),
    ]);
    expect(codesAt(r).filter((c) => !c.startsWith('check/invalid-glob'))).toEqual(['check/command-on-non-shell-tool@2:19']);
    expect(r.diagnostics.find((d) => d.code === 'check/command-on-non-shell-tool')!.message).toBe(
      'a `command` selector only matches shell tools, and `Read`, `Edit` are not',
    );
  });

  it('takes a command selector on a shell tool, a glob, or all tools', () => {
    const r = onSeam('pre-tool', ['deny Bash command "rm *"', 'deny mcp__* command "rm *"', 'deny command "rm *"'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('Bash')], selectors: [b.sel('command', [b.str('"rm *"')])] }),
      b.rule(b.ident('deny', 1), { tools: [b.tool('mcp__*')], selectors: [b.sel('command', [b.str('"rm *"', 1)], 1)] }),
      b.rule(b.ident('deny', 2), { selectors: [b.sel('command', [b.str('"rm *"', 2)], 2)] }),
    ]);
    expect(r.diagnostics.filter((d) => d.code === 'check/command-on-non-shell-tool')).toEqual([]);
  });
});

describe('clauses', () => {
  it('requires text on context and refuses it elsewhere', () => {
    const r = onSeam('prompt', ['context', 'block "text"'], (b) => [b.rule(b.ident('context')), b.rule(b.ident('block'), { text: b.str('"text"') })]);
    expect(codesAt(r)).toEqual(['check/missing-clause@2:3', 'check/clause-not-allowed@3:9']);
    expect(r.diagnostics.map((d) => d.message)).toEqual(['a `context` rule needs its text', 'a `block` rule takes no text']);
  });

  it('requires the text of a context rule to be a string', () => {
    const text = `let t = ["a"]\non prompt {\n  context t\n}\n`;
    const r = compileFake(text, (b) => [b.let('t', b.list([b.str('"a"')])), b.on(b.ident('prompt'), [b.rule(b.ident('context'), { text: b.ref('t', 1) })])]);
    expect(codesAt(r)).toEqual(['check/bad-value@3:11']);
    expect(r.diagnostics[0]!.message).toBe('the text of a `context` rule must be a string, but `t` is a list');
  });

  it('requires a hook on run and refuses it elsewhere', () => {
    const r = onSeam('pre-tool', ['run Bash', 'deny Bash hook "x"'], (b) => [
      b.rule(b.ident('run'), { tools: [b.tool('Bash')] }),
      b.rule(b.ident('deny'), { tools: [b.tool('Bash', 1)], hook: b.hook(b.str('"x"')) }),
    ]);
    expect(codesAt(r)).toEqual(['check/missing-clause@2:3', 'check/clause-not-allowed@3:13']);
  });

  it('takes timeout and dialect only with a hook', () => {
    const r = onSeam('pre-tool', ['deny Bash timeout 5s dialect codex'], (b) => [
      b.rule(b.ident('deny'), { tools: [b.tool('Bash')], timeout: b.dur('5s', 5000), dialect: b.ident('codex') }),
    ]);
    expect(codesAt(r)).toEqual(['check/clause-not-allowed@2:21', 'check/clause-not-allowed@2:32']);
  });

  it('checks the dialect and the timeout range', () => {
    const r = onSeam('pre-tool', ['run Bash hook "a" dialect cursor', 'run Bash hook "b" timeout 0ms', 'run Bash hook "c" timeout 2h', 'run Bash hook " "'], (b) => [
      b.rule(b.ident('run'), { tools: [b.tool('Bash')], hook: b.hook(b.str('"a"')), dialect: b.ident('cursor') }),
      b.rule(b.ident('run', 1), { tools: [b.tool('Bash', 1)], hook: b.hook(b.str('"b"')), timeout: b.dur('0ms', 0) }),
      b.rule(b.ident('run', 2), { tools: [b.tool('Bash', 2)], hook: b.hook(b.str('"c"')), timeout: b.dur('2h', 7_200_000) }),
      b.rule(b.ident('run', 3), { tools: [b.tool('Bash', 3)], hook: b.hook(b.str('" "')) }),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-dialect@2:29', 'check/bad-timeout@3:29', 'check/bad-timeout@4:29', 'check/empty-hook@5:17']);
    expect(r.diagnostics[0]!.help).toBe('dialects are `claude` or `codex`');
    expect(r.diagnostics[1]!.help).toBe('use a timeout between `1ms` and `1h`');
  });

  it('accepts the timeout bounds', () => {
    const r = onSeam('pre-tool', ['run Bash hook "a" timeout 1ms', 'run Bash hook "b" timeout 1h'], (b) => [
      b.rule(b.ident('run'), { tools: [b.tool('Bash')], hook: b.hook(b.str('"a"')), timeout: b.dur('1ms', 1) }),
      b.rule(b.ident('run', 1), { tools: [b.tool('Bash', 1)], hook: b.hook(b.str('"b"')), timeout: b.dur('1h', 3_600_000) }),
    ]);
    expect(r.diagnostics).toEqual([]);
  });

  it('requires a valid count on limit and refuses it elsewhere', () => {
    const r = onSeam('stop', ['limit', 'limit 0', 'limit 1001', 'limit 2.5', 'halt 3', 'limit 1000'], (b) => [
      b.rule(b.ident('limit')),
      b.rule(b.ident('limit', 1), { limit: b.num('0') }),
      b.rule(b.ident('limit', 2), { limit: b.num('1001') }),
      b.rule(b.ident('limit', 3), { limit: b.num('2.5') }),
      b.rule(b.ident('halt'), { limit: b.num('3') }),
      b.rule(b.ident('limit', 4), { limit: b.num('1000') }),
    ]);
    expect(codesAt(r)).toEqual(['check/missing-clause@2:3', 'check/bad-limit@3:9', 'check/bad-limit@4:9', 'check/bad-limit@5:9', 'check/clause-not-allowed@6:8']);
  });

  it('refuses a condition on limit', () => {
    const r = onSeam('stop', ['limit 2 when stop_hook_active == true'], (b) => [
      b.rule(b.ident('limit'), { limit: b.num('2'), when: b.cmp(b.field('stop_hook_active'), '==', b.bool('true')) }),
    ]);
    expect(codesAt(r)).toEqual(['check/clause-not-allowed@2:16']);
  });

  it('warns about a reason on a rule that shows none', () => {
    const r = onSeam('pre-tool', ['allow Read because "fine"', 'deny Bash because "no"'], (b) => [
      b.rule(b.ident('allow'), { tools: [b.tool('Read')], because: b.str('"fine"') }),
      b.rule(b.ident('deny'), { tools: [b.tool('Bash')], because: b.str('"no"') }),
    ]);
    expect(codesAt(r)).toEqual(['check/unused-reason@2:22']);
    expect(r.diagnostics[0]!.severity).toBe('warning');
    expect(r.ir?.rules[0]?.reason).toBeUndefined();
    expect(r.ir?.rules[1]?.reason).toBe('no');
  });

  it('requires a reason to be a string', () => {
    const r = onSeam('pre-tool', ['deny Bash because /no/'], (b) => [b.rule(b.ident('deny'), { tools: [b.tool('Bash')], because: b.re('/no/') as never })]);
    expect(codesAt(r)).toEqual(['check/bad-value@2:21']);
  });

  it('reports a second policy declaration in a file', () => {
    const text = `policy "a"\npolicy "b"\n`;
    const r = compileFake(text, (b) => [b.policy(b.str('"a"')), b.policy(b.str('"b"'))]);
    expect(codesAt(r)).toEqual(['check/duplicate-policy@2:1']);
  });
});

describe('selector values through names', () => {
  it('says when a named list holds a value of the wrong kind', () => {
    const text = `let dirs = ["a", 2]\non pre-tool {\n  deny Read path dirs\n}\n`;
    const r = compileFake(text, (b) => [
      b.let('dirs', b.list([b.str('"a"'), b.num('2')])),
      b.on(b.ident('pre-tool'), [b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.ref('dirs', 1)])] })]),
    ]);
    expect(codesAt(r)).toEqual(['check/bad-selector-value@3:18']);
    expect(r.diagnostics[0]!.message).toBe('`path` takes strings or lists of strings, but `dirs` holds a number');
  });
});

describe('`with` options of a hook', () => {
  /** Gives `rule` the `with` clause whose keyword is the `n`th `with` of the text. */
  function withOptions(b: AstBuilder, rule: RuleNode, options: ObjectLit, n = 0): RuleNode {
    const at = b.findWord('with', n);
    rule.with = { kind: 'with', options, span: b.span(at, options.span.end.offset) };
    rule.span = b.cover([rule, rule.with]);
    return rule;
  }

  it('accepts each option, written out or through a name, where Claude Code takes it', () => {
    const text = [
      'let a = ["--x"]',
      'let r = "Bash(git *)"',
      'on pre-tool {',
      '  run hook "node" with {args: a, plugin_root: "/p", if: r}',
      '}',
      'on post-tool {',
      '  run hook "fmt" with {shell: "bash", if: "Edit(*.ts)"}',
      '}',
      'on PermissionDenied {',
      '  run hook "d" with {if: "Bash"}',
      '}',
      '',
    ].join('\n');
    const r = compileFake(text, (b) => [
      b.let('a', b.list([b.str('"--x"')])),
      b.let('r', b.str('"Bash(git *)"')),
      b.on(b.ident('pre-tool'), [
        withOptions(b, b.rule(b.ident('run'), { hook: b.hook(b.str('"node"')) }), b.obj({ args: b.ref('a', 1), plugin_root: b.str('"/p"'), if: b.ref('r', 1) }, 1)),
      ]),
      b.on(b.ident('post-tool'), [
        withOptions(b, b.rule(b.ident('run', 1), { hook: b.hook(b.str('"fmt"')) }), b.obj({ shell: b.str('"bash"'), if: b.str('"Edit(*.ts)"') }, 3), 1),
      ]),
      b.on(b.ident('PermissionDenied'), [withOptions(b, b.rule(b.ident('run', 2), { hook: b.hook(b.str('"d"')) }), b.obj({ if: b.str('"Bash"') }, 5), 2)]),
    ]);
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.rules.map((x) => x.hook)).toEqual([
      { command: 'node', dialect: 'claude', args: ['--x'], pluginRoot: '/p', if: 'Bash(git *)' },
      { command: 'fmt', dialect: 'claude', shell: 'bash', if: 'Edit(*.ts)' },
      { command: 'd', dialect: 'claude', event: 'PermissionDenied', if: 'Bash' },
    ]);
  });

  it('takes `with` only with a hook', () => {
    const r = onSeam('pre-tool', ['deny Bash with {shell: "bash"}'], (b) => [
      withOptions(b, b.rule(b.ident('deny'), { tools: [b.tool('Bash')] }), b.obj({ shell: b.str('"bash"') }, 1)),
    ]);
    expect(codesAt(r)).toEqual(['check/clause-not-allowed@2:13']);
    expect(r.diagnostics[0]!.message).toBe('`with` only goes with a `hook`');
    expect(r.diagnostics[0]!.span?.end.column).toBe(33);
  });

  it('reports an unknown option at its key, with a suggestion or the list', () => {
    const r = onSeam('pre-tool', ['run hook "x" with {pluginRoot: "/p", arg: [], env: 1}'], (b) => [
      withOptions(b, b.rule(b.ident('run'), { hook: b.hook(b.str('"x"')) }), b.obj({ pluginRoot: b.str('"/p"'), arg: b.list([]), env: b.num('1') }, 1)),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-hook-option@2:22', 'check/unknown-hook-option@2:40', 'check/unknown-hook-option@2:49']);
    expect(r.diagnostics.map((d) => [d.message, d.help])).toEqual([
      ['`pluginRoot` is not a hook option', 'did you mean `plugin_root`?'],
      ['`arg` is not a hook option', 'did you mean `args`?'],
      ['`env` is not a hook option', "a hook's options are `args`, `shell`, `plugin_root`, `if`, `http`, `headers`, `allowed_env_vars` or `on_deadline`"],
    ]);
    expect(r.diagnostics[0]!.span?.end.column).toBe(32);
  });

  it('reports a value of the wrong type where it is written', () => {
    const text = 'let n = ["a", 2]\non pre-tool {\n  run hook "x" with {args: ["a", 1, true], plugin_root: [], if: n}\n  run hook "y" with {args: "a b"}\n  run hook "z" with {args: n, shell: 2}\n}\n';
    const r = compileFake(text, (b) => [
      b.let('n', b.list([b.str('"a"'), b.num('2')])),
      b.on(b.ident('pre-tool'), [
        withOptions(
          b,
          b.rule(b.ident('run'), { hook: b.hook(b.str('"x"')) }),
          b.obj({ args: b.list([b.str('"a"', 1), b.num('1'), b.bool('true')], 1), plugin_root: b.list([], 2), if: b.ref('n', 1) }, 1),
        ),
        withOptions(b, b.rule(b.ident('run', 1), { hook: b.hook(b.str('"y"')) }), b.obj({ args: b.str('"a b"') }, 2), 1),
        withOptions(b, b.rule(b.ident('run', 2), { hook: b.hook(b.str('"z"')) }), b.obj({ args: b.ref('n', 2), shell: b.num('2', 1) }, 3), 2),
      ]),
    ]);
    expect(codesAt(r)).toEqual([
      'check/bad-hook-option@3:34',
      'check/bad-hook-option@3:37',
      'check/bad-hook-option@3:57',
      'check/bad-hook-option@3:65',
      'check/bad-hook-option@4:28',
      'check/bad-hook-option@5:28',
      'check/shell-and-args@5:31',
      'check/bad-hook-option@5:38',
    ]);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      '`args` must be a list of strings, but this is a number',
      '`args` must be a list of strings, but this is a boolean',
      '`plugin_root` must be a string, but this is a list',
      '`if` must be a string, but `n` is a list',
      '`args` must be a list of strings, but this is a string',
      '`args` must be a list of strings, but item 2 of `n` is a number',
      'a hook with `args` runs without a shell, so it takes no `shell`',
      '`shell` must be a string, but this is a number',
    ]);
  });

  it('takes only `"bash"` as the shell, and no shell with `args`', () => {
    const r = onSeam('pre-tool', ['run hook "x" with {shell: "zsh"}', 'run hook "y" with {args: [], shell: "bash"}'], (b) => [
      withOptions(b, b.rule(b.ident('run'), { hook: b.hook(b.str('"x"')) }), b.obj({ shell: b.str('"zsh"') }, 1)),
      withOptions(b, b.rule(b.ident('run', 1), { hook: b.hook(b.str('"y"')) }), b.obj({ args: b.list([]), shell: b.str('"bash"') }, 2), 1),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-shell@2:29', 'check/shell-and-args@3:32']);
    expect(r.diagnostics.map((d) => d.message)).toEqual(['`zsh` is not a hook shell', 'a hook with `args` runs without a shell, so it takes no `shell`']);
  });

  it('refuses the options Codex does not have, and takes its plugin root', () => {
    const r = onSeam('pre-tool', ['run hook "x" dialect codex with {args: [], shell: "bash", if: "Bash", plugin_root: "/p"}'], (b) => [
      withOptions(
        b,
        b.rule(b.ident('run'), { hook: b.hook(b.str('"x"')), dialect: b.ident('codex') }),
        b.obj({ args: b.list([]), shell: b.str('"bash"'), if: b.str('"Bash"'), plugin_root: b.str('"/p"') }, 1),
      ),
    ]);
    expect(codesAt(r)).toEqual(['check/option-not-in-dialect@2:36', 'check/option-not-in-dialect@2:46', 'check/option-not-in-dialect@2:61']);
    expect(r.diagnostics.map((d) => d.message)).toEqual(['Codex has no exec form, so no `args`', 'Codex hooks take no `shell`', 'Codex hooks have no `if`']);
  });

  it('takes `if` only where Claude Code evaluates it', () => {
    for (const [seam, ok] of [['pre-tool', true], ['post-tool', true], ['prompt', false], ['stop', false], ['session-start', false], ['PostToolUseFailure', true], ['PermissionRequest', true], ['Notification', false], ['SubagentStop', false]] as const) {
      const r = onSeam(seam, ['run hook "x" with {if: "Bash"}'], (b) => [
        withOptions(b, b.rule(b.ident('run'), { hook: b.hook(b.str('"x"')) }), b.obj({ if: b.str('"Bash"') }, 1)),
      ]);
      expect(codesAt(r), seam).toEqual(ok ? [] : ['check/if-never-runs@2:22']);
      if (!ok) expect(r.diagnostics[0]!.message).toContain(`a handler with \`if\` never runs on ${seam.includes('-') || seam === 'prompt' || seam === 'stop' ? `the \`${seam}\` seam` : `\`${seam}\``}`);
    }
  });

  it('reports an `if` that is not a permission rule at the place the rule breaks', () => {
    const r = onSeam('pre-tool', ['run hook "x" with {if: "Bash(git"}', 'run hook "y" with {if: ""}'], (b) => [
      withOptions(b, b.rule(b.ident('run'), { hook: b.hook(b.str('"x"')) }), b.obj({ if: b.str('"Bash(git"') }, 1)),
      withOptions(b, b.rule(b.ident('run', 1), { hook: b.hook(b.str('"y"')) }), b.obj({ if: b.str('""') }, 2), 1),
    ]);
    expect(codesAt(r)).toEqual(['check/invalid-permission-rule@2:35', 'check/invalid-permission-rule@3:27']);
    expect(r.diagnostics[0]!.message).toBe('invalid `if` rule: unbalanced parentheses: the rule must end with `)`');
    expect(r.diagnostics[1]!.message).toBe('invalid `if` rule: empty rule');
    expect(r.diagnostics[0]!.help).toContain('`Bash(git push *)`');
  });

  it('reports a name no `let` defines', () => {
    const r = onSeam('pre-tool', ['run hook "x" with {args: [argz], if: rulez}'], (b) => [
      withOptions(b, b.rule(b.ident('run'), { hook: b.hook(b.str('"x"')) }), b.obj({ args: b.list([b.ref('argz')]), if: b.ref('rulez') }, 1)),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-name@2:29', 'check/unknown-name@2:40']);
    expect(r.diagnostics[0]!.message).toBe('`argz` is not defined');
  });
});
