import { describe, expect, it } from 'vitest';
import type { Span } from '../engine/index.js';
import { parse } from '../grammar/index.js';
import type * as A from './ast.js';
import { cstToAst } from './cst-to-ast.js';

/** The AST of `text`, which must parse without a syntax error. */
function ast(text: string): A.PolicyFile {
  const parsed = parse(text, 'p.dshpolicy');
  expect(parsed.diagnostics).toEqual([]);
  const { ast, diagnostics } = cstToAst(parsed.cst, parsed.source);
  expect(diagnostics).toEqual([]);
  return ast;
}

/** `line:column-line:column` of a span. */
function where(span: Span): string {
  return `${span.start.line}:${span.start.column}-${span.end.line}:${span.end.column}`;
}

function rules(text: string): A.RuleNode[] {
  const on = ast(text).items[0] as A.OnBlock;
  expect(on.kind).toBe('on');
  return on.rules;
}

function rule(text: string): A.RuleNode {
  return rules(text)[0] as A.RuleNode;
}

function when(condition: string): A.ExprNode {
  return rule(`on pre-tool { deny when ${condition} }`).when as A.ExprNode;
}

/** A compact text of a condition, to compare trees at a glance. */
function show(e: A.ExprNode): string {
  switch (e.kind) {
    case 'or':
    case 'and':
      return `(${e.args.map(show).join(` ${e.kind} `)})`;
    case 'not':
      return `not ${show(e.arg)}`;
    case 'compare':
      return `${e.field.path.join('.')} ${e.op} ${JSON.stringify(value(e.value))}`;
    case 'exists':
      return `${e.field.path.join('.')} exists`;
    case 'ran':
      return `ran ${e.tools.map((t) => t.name).join(',')}${e.selectors.map((s) => ` ${s.selector.name} ${JSON.stringify(s.values.map(value))}`).join('')}`;
    case 'boolexpr':
      return String(e.value);
  }
}

/** A value as plain data. */
function value(v: A.ValueNode): unknown {
  switch (v.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return v.value;
    case 'null':
      return null;
    case 'regex':
      return `/${v.source}/${v.flags}`;
    case 'duration':
      return `${v.ms}ms`;
    case 'ref':
      return `@${v.name}`;
    case 'list':
      return v.items.map(value);
    case 'object':
      return Object.fromEntries(v.entries.map((e) => [e.key, value(e.value)]));
  }
}

function textOf(r: A.RuleNode): unknown {
  return r.text && value(r.text);
}

describe('items', () => {
  it('builds every kind of item, with its span', () => {
    const file = ast(
      [
        'policy "acme/guardrails"',
        'include "./base.dshpolicy"',
        'import claude hooks "./.claude/settings.json"',
        'let secrets = ["**/.env", "~/.ssh/**"]',
        'on pre-tool {',
        '  allow Read',
        '}',
        'test "t" {',
        '  stop => continue',
        '}',
      ].join('\n'),
    );
    expect(file.items.map((i) => `${i.kind} ${where(i.span)}`)).toEqual([
      'policy 1:1-1:25',
      'include 2:1-2:27',
      'import 3:1-3:46',
      'let 4:1-4:39',
      'on 5:1-7:2',
      'test 8:1-10:2',
    ]);
    const [policy, include, imp, let_] = file.items as [A.PolicyDecl, A.IncludeDecl, A.ImportDecl, A.LetDecl];
    expect(policy.name.value).toBe('acme/guardrails');
    expect(include.path.value).toBe('./base.dshpolicy');
    expect([imp.agent.name, imp.what.name, imp.path.value, where(imp.agent.span)]).toEqual(['claude', 'hooks', './.claude/settings.json', '3:8-3:14']);
    expect([let_.name.name, value(let_.value), where(let_.value.span)]).toEqual(['secrets', ['**/.env', '~/.ssh/**'], '4:15-4:39']);
    expect(file.span.file).toBe('p.dshpolicy');
  });

  it('spans the whole text with the file node', () => {
    const file = ast('\n\nlet a = 1\n');
    expect(where(file.span)).toBe('1:1-4:1');
    expect(file.file).toBe('p.dshpolicy');
  });
});

describe('values', () => {
  it('builds every kind of value', () => {
    const file = ast(
      'let v = ["s\\n", /a\\/b/i, 42, 1.5, 250ms, 10s, 2m, 1h, true, false, null, other, [], {}, { key: 1, "quoted key": [2], deny: { in: null }, }]',
    );
    const v = (file.items[0] as A.LetDecl).value;
    expect(value(v)).toEqual([
      's\n', '/a/b/i', 42, 1.5, '250ms', '10000ms', '120000ms', '3600000ms', true, false, null, '@other', [], {},
      { key: 1, 'quoted key': [2], deny: { in: null } },
    ]);
  });

  it('keeps a regex’s pattern offset and a duration’s text', () => {
    const file = ast('let r = /x+/m\nlet d = 500ms');
    const r = (file.items[0] as A.LetDecl).value as A.RegexLit;
    expect([r.source, r.flags, r.sourceOffset, where(r.span)]).toEqual(['x+', 'm', 9, '1:9-1:14']);
    const d = (file.items[1] as A.LetDecl).value as A.DurationLit;
    expect([d.ms, d.text, where(d.span)]).toEqual([500, '500ms', '2:9-2:14']);
  });

  it('spans a list and an object from bracket to bracket, and each entry', () => {
    const file = ast('let o = { a: [1, 2],\n  b: "x" }');
    const o = (file.items[0] as A.LetDecl).value as A.ObjectLit;
    expect(where(o.span)).toBe('1:9-2:11');
    expect(o.entries.map((e) => `${e.key} ${where(e.keySpan)} ${where(e.span)}`)).toEqual(['a 1:11-1:12 1:11-1:20', 'b 2:3-2:4 2:3-2:9']);
    expect(where((o.entries[0]?.value as A.ListLit).span)).toBe('1:14-1:20');
  });
});

describe('rules', () => {
  it('builds a rule with every clause', () => {
    const r = rule(
      'on pre-tool {\n  run Bash, mcp__db__* hook "./guard.sh" timeout 10s dialect codex when input.sql exists because why\n}',
    );
    expect(r.effect.name).toBe('run');
    expect(r.tools.map((t) => `${t.name} ${where(t.span)}`)).toEqual(['Bash 2:7-2:11', 'mcp__db__* 2:13-2:23']);
    expect(r.hook?.command.value).toBe('./guard.sh');
    expect(where(r.hook?.span as Span)).toBe('2:24-2:41');
    expect([r.timeout?.ms, r.timeout?.text]).toEqual([10_000, '10s']);
    expect(r.dialect?.name).toBe('codex');
    expect(show(r.when as A.ExprNode)).toBe('input.sql exists');
    expect(r.because).toMatchObject({ kind: 'ref', name: 'why' });
    expect(where(r.span)).toBe('2:3-2:101');
  });

  it('builds the matcher clause, as a string or `*`', () => {
    const r = rule('on pre-tool {\n  run hook "./g.sh" matcher "Edit|Write" dialect codex\n}');
    expect(r.matcher).toMatchObject({ kind: 'string', value: 'Edit|Write' });
    expect(where(r.span)).toBe('2:3-2:55');
    expect(rule('on stop { run hook "x" matcher * }').matcher).toMatchObject({ kind: 'ident', name: '*' });
    expect(rule('on stop { run hook "x" when input == { matcher: 1 } }').matcher).toBeUndefined();
  });

  it('collects selectors of every kind, each with its values', () => {
    const r = rule('on pre-tool { deny Bash command "rm -rf /", "rm -rf ~" path secrets url "https://x/**" domain ["a", "b"] }');
    expect(r.selectors.map((s) => `${s.selector.name}=${JSON.stringify(s.values.map(value))}`)).toEqual([
      'command=["rm -rf /","rm -rf ~"]',
      'path=["@secrets"]',
      'url=["https://x/**"]',
      'domain=[["a","b"]]',
    ]);
    expect(where(r.selectors[0]?.span as Span)).toBe('1:25-1:55');
  });

  it('keeps a rule’s text, its count, and a text after a path selector', () => {
    expect(textOf(rule('on prompt { context "Use pnpm." }'))).toBe('Use pnpm.');
    expect(rule('on stop { limit 3 }').limit).toMatchObject({ kind: 'number', value: 3 });
    const r = rule('on post-tool { context Edit, Write path "**/*.ts" "Run the typecheck." }');
    expect(r.selectors[0]?.values.map(value)).toEqual(['**/*.ts']);
    expect(textOf(r)).toBe('Run the typecheck.');
  });

  it('reads the clauses in any order to the same rule', () => {
    const texts = [
      'deny Bash command "rm *" when cwd == "/" because "no"',
      'deny Bash because "no" when cwd == "/" command "rm *"',
      'deny Bash when cwd == "/" because "no" command "rm *"',
    ];
    const shapes = texts.map((t) => {
      const r = rule(`on pre-tool { ${t} }`);
      return [r.selectors.map((s) => s.values.map(value)), show(r.when as A.ExprNode), (r.because as A.StringLit).value];
    });
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[2]).toEqual(shapes[0]);
  });

  it('starts each rule at its effect', () => {
    const rs = rules('on pre-tool { deny Bash command "rm -rf /" allow Read, Glob }\n');
    expect(rs.map((r) => `${r.effect.name} ${where(r.span)}`)).toEqual(['deny 1:15-1:43', 'allow 1:44-1:60']);
  });

  it('reports a clause given twice', () => {
    const parsed = parse('on pre-tool {\n  deny Bash because "one" command "rm *" because "two"\n  run Bash hook "a" timeout 1s hook "b" timeout 2s\n}', 'p');
    const { diagnostics, ast: file } = cstToAst(parsed.cst, parsed.source);
    expect(diagnostics.map((d) => `${d.code}@${d.span?.start.line}:${d.span?.start.column} ${d.message}`)).toEqual([
      'parse/duplicate-clause@2:42 duplicate `because` clause in a `deny` rule',
      'parse/duplicate-clause@3:32 duplicate `hook` clause in a `run` rule',
      'parse/duplicate-clause@3:41 duplicate `timeout` clause in a `run` rule',
    ]);
    // the first of each is kept
    const [deny, run] = (file.items[0] as A.OnBlock).rules;
    expect((deny?.because as A.StringLit).value).toBe('one');
    expect(run?.hook?.command.value).toBe('a');
  });

  it('reports two texts, and two counts', () => {
    const parsed = parse('on prompt { context "one" "two" }\non stop { limit 1 2 }', 'p');
    const { diagnostics } = cstToAst(parsed.cst, parsed.source);
    expect(diagnostics.map((d) => `${d.code}@${d.span?.start.line}:${d.span?.start.column}`)).toEqual([
      'parse/duplicate-clause@1:27',
      'parse/duplicate-clause@2:19',
    ]);
  });
});

describe('conditions', () => {
  it('binds `not` tighter than `and`, and `and` tighter than `or`', () => {
    expect(show(when('a == 1 or b == 2 and not c == 3'))).toBe('(a == 1 or (b == 2 and not c == 3))');
  });

  it('groups with parentheses', () => {
    expect(show(when('(a == 1 or b == 2) and not (c == 3 or d exists)'))).toBe('((a == 1 or b == 2) and not (c == 3 or d exists))');
  });

  it('keeps long chains flat', () => {
    const e = when('a exists or b exists or c exists or d exists');
    expect(e.kind === 'or' && e.args.length).toBe(4);
  });

  it('nests repeated `not`s, each spanning to the end of what it negates', () => {
    const e = when('not not (a == 1)');
    expect(show(e)).toBe('not not a == 1');
    expect(where(e.span)).toBe('1:25-1:41');
    expect(e.kind === 'not' && where(e.arg.span)).toBe('1:29-1:41');
  });

  it('reads every operator, with the operator’s own span', () => {
    const ops = ['==', '!=', 'in', 'matches', 'glob', 'startswith', 'endswith', 'contains'];
    for (const op of ops) {
      const e = when(`tool ${op} "x"`) as A.CompareExpr;
      expect(e.kind).toBe('compare');
      expect(e.op).toBe(op);
      expect(where(e.opSpan)).toBe(`1:30-1:${30 + op.length}`);
      expect(where(e.span)).toBe(`1:25-1:${34 + op.length}`);
    }
  });

  it('splits dotted fields and reads keyword fields', () => {
    expect((when('input.edits.0.new_string contains "x"') as A.CompareExpr).field.path).toEqual(['input', 'edits', '0', 'new_string']);
    expect((when('command matches /x/') as A.CompareExpr).field.path).toEqual(['command']);
    expect((when('path glob "*.ts"') as A.CompareExpr).field.path).toEqual(['path']);
  });

  it('reports a field with an empty part', () => {
    const parsed = parse('on pre-tool { deny when input..x exists }', 'p');
    const { diagnostics } = cstToAst(parsed.cst, parsed.source);
    expect(diagnostics.map((d) => `${d.code}@${d.span?.start.column} ${d.message}`)).toEqual(['parse/invalid-field@25 invalid field `input..x`']);
  });

  it('reads `ran` with tools and selectors, `true` and `false`', () => {
    expect(show(when('ran Edit, Write path "src/**" and not ran Bash command "npm test *"'))).toBe(
      '(ran Edit,Write path ["src/**"] and not ran Bash command ["npm test *"])',
    );
    expect(show(when('true or false'))).toBe('(true or false)');
    expect(where(when('ran Bash command "x"').span)).toBe('1:25-1:45');
  });

  it('reads values of every kind in comparisons', () => {
    expect(show(when('a == 2 or b != 1.5 or c == false or d != null or e in ["x", y]'))).toBe(
      '(a == 2 or b != 1.5 or c == false or d != null or e in ["x","@y"])',
    );
  });
});

describe('test cases', () => {
  it('builds every case form', () => {
    const file = ast(
      [
        'test "every form" {',
        '  pre-tool Bash { command: "rm -rf /" } => deny',
        '  pre-tool Read { file_path: ".env" } with { cwd: "/repo" } => deny because /secret/i',
        '  prompt "tell me" => block because "no"',
        '  stop { turn: [] } => continue',
        '  session-start with { cwd: "/" } => none',
        '  event { hook_event_name: "PreToolUse" } => allow',
        '}',
      ].join('\n'),
    );
    const t = file.items[0] as A.TestBlock;
    expect(t.name.value).toBe('every form');
    const cases = t.cases.map((c) => ({
      seam: c.seam.name,
      tool: c.tool?.name,
      payload: c.payload && value(c.payload),
      extra: c.extra && value(c.extra),
      expect: c.expect.name,
      because: c.because && value(c.because),
      at: where(c.span),
    }));
    expect(cases).toEqual([
      { seam: 'pre-tool', tool: 'Bash', payload: { command: 'rm -rf /' }, extra: undefined, expect: 'deny', because: undefined, at: '2:3-2:48' },
      { seam: 'pre-tool', tool: 'Read', payload: { file_path: '.env' }, extra: { cwd: '/repo' }, expect: 'deny', because: '/secret/i', at: '3:3-3:86' },
      { seam: 'prompt', tool: undefined, payload: 'tell me', extra: undefined, expect: 'block', because: 'no', at: '4:3-4:41' },
      { seam: 'stop', tool: undefined, payload: { turn: [] }, extra: undefined, expect: 'continue', because: undefined, at: '5:3-5:32' },
      { seam: 'session-start', tool: undefined, payload: undefined, extra: { cwd: '/' }, expect: 'none', because: undefined, at: '6:3-6:42' },
      { seam: 'event', tool: undefined, payload: { hook_event_name: 'PreToolUse' }, extra: undefined, expect: 'allow', because: undefined, at: '7:3-7:51' },
    ]);
  });

  it('reports a key given twice', () => {
    const parsed = parse('test "t" {\n  pre-tool Bash { command: "ls", command: "pwd" } => none\n}', 'p');
    const { diagnostics } = cstToAst(parsed.cst, parsed.source);
    expect(diagnostics.map((d) => `${d.code}@${d.span?.start.line}:${d.span?.start.column} ${d.message}`)).toEqual([
      'parse/duplicate-key@2:34 duplicate key `command` in an object',
    ]);
  });
});

describe('after syntax errors', () => {
  it('keeps what could be read, and leaves out what could not', () => {
    const parsed = parse('let = 1\nlet ok = 2\non pre-tool {\n  deny Bash command ]\n  allow Read\n}', 'p');
    expect(parsed.diagnostics.length).toBe(2);
    const { ast: file } = cstToAst(parsed.cst, parsed.source);
    expect(file.items.map((i) => i.kind)).toEqual(['let', 'on']);
    expect((file.items[0] as A.LetDecl).name.name).toBe('ok');
    expect((file.items[1] as A.OnBlock).rules.map((r) => r.effect.name)).toEqual(['deny', 'allow']);
  });

  it('never gives a position that is not a number', () => {
    const texts = ['on pre-tool { deny Bash when ( }', 'let x = [1, 2', 'test "t" { pre-tool Bash { a: } => }', 'on { deny }', 'import claude'];
    for (const text of texts) {
      const parsed = parse(text, 'p');
      const { ast: file } = cstToAst(parsed.cst, parsed.source);
      const json = JSON.stringify(file);
      expect(json, text).not.toMatch(/null|NaN/);
    }
  });

  it('reads `=` for `==` after reporting it', () => {
    const parsed = parse('on session-start { context "Hi." when source = "startup" }', 'p');
    const { ast: file, diagnostics } = cstToAst(parsed.cst, parsed.source);
    expect(diagnostics).toEqual([]);
    const r = (file.items[0] as A.OnBlock).rules[0] as A.RuleNode;
    expect(show(r.when as A.ExprNode)).toBe('source == "startup"');
    expect(textOf(r)).toBe('Hi.');
  });
});
