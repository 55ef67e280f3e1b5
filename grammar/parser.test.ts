import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extentOf, MAX_DIAGNOSTICS, MAX_NESTING, parse, type Diagnostic, type ItemCst, type OnBlockCst, type RuleCst } from './index.js';

const EXAMPLE = readFileSync(new URL('./testdata/language-example.dshpolicy', import.meta.url), 'utf8');

function at(d: Diagnostic): string {
  return `${d.code}@${d.span?.start.line}:${d.span?.start.column}`;
}
const at_ = at;

/** `code@line:column` of every diagnostic of `text`. */
function errors(text: string): string[] {
  return parse(text, 'p.dshpolicy').diagnostics.map(at);
}

function only(text: string): Diagnostic {
  const { diagnostics } = parse(text, 'p.dshpolicy');
  expect(diagnostics.map(at)).toHaveLength(1);
  return diagnostics[0] as Diagnostic;
}

function items(text: string): ItemCst[] {
  const r = parse(text, 'p.dshpolicy');
  return r.cst?.children.item ?? [];
}

function firstRule(text: string): RuleCst {
  const on = items(text)[0]?.children.onBlock?.[0] as OnBlockCst;
  return on.children.rule?.[0] as RuleCst;
}

describe('parse: the language example', () => {
  it('parses the example of the language description without a diagnostic', () => {
    const r = parse(EXAMPLE, 'example.dshpolicy');
    expect(r.diagnostics).toEqual([]);
    const kinds = (r.cst?.children.item ?? []).map((i) => Object.keys(i.children)[0]);
    expect(kinds).toEqual([
      'policyDecl', 'includeDecl', 'importDecl', 'importDecl', 'letDecl', 'letDecl',
      'onBlock', 'onBlock', 'onBlock', 'onBlock', 'onBlock', 'testBlock',
    ]);
  });

  it('keeps the comments', () => {
    const r = parse(EXAMPLE, 'example.dshpolicy');
    expect(r.comments[0]?.image).toBe('# optional name, shown in explanations');
    expect(r.comments.length).toBe(6);
  });
});

describe('parse: constructs', () => {
  it('reads a rule with tools and clauses in any order', () => {
    const rule = firstRule('on pre-tool { deny Read, Edit because "b" path secrets when x exists command "a", "c" }');
    expect(rule.children.effect?.[0]?.image).toBe('deny');
    expect(rule.children.toolList?.[0]?.children.tool?.map((t) => t.image)).toEqual(['Read', 'Edit']);
    expect(rule.children.selector?.map((s) => s.children.kind?.[0]?.image)).toEqual(['path', 'command']);
    expect(rule.children.selector?.[1]?.children.value).toHaveLength(2);
    expect(rule.children.becauseClause).toHaveLength(1);
    expect(rule.children.whenClause).toHaveLength(1);
  });

  it('reads `unprotect` with its groups, the keyword `policy` among them', () => {
    const [item] = items('unprotect policy, claude,\n  *');
    const decl = item?.children.unprotectDecl?.[0];
    expect(decl?.children.keyword?.[0]?.image).toBe('unprotect');
    expect(decl?.children.target?.map((t) => t.image)).toEqual(['policy', 'claude', '*']);
    expect(errors('unprotect claude\non pre-tool {}')).toEqual([]);
  });

  it('reports an `unprotect` without a group, or with a string for one', () => {
    expect(errors('unprotect')).toEqual(['parse/unexpected-token@1:10']);
    expect(errors('unprotect "claude"')).toEqual(['parse/unexpected-token@1:11']);
    expect(errors('unprotect claude,')).toEqual(['parse/unexpected-token@1:18']);
  });

  it('ends a selector at a string not preceded by a comma: that string is the text', () => {
    const rule = firstRule('on post-tool { context Edit, Write path "**/*.ts" "Run the typecheck." }');
    expect(rule.children.selector?.[0]?.children.value).toHaveLength(1);
    expect(rule.children.text?.map((t) => t.image)).toEqual(['"Run the typecheck."']);
  });

  it('reads keyword-named fields in conditions', () => {
    for (const field of ['command', 'path', 'url', 'domain', 'prompt', 'input.deny', 'deny']) {
      expect(errors(`on prompt { block when ${field} matches /x/ }`), field).toEqual([]);
    }
  });

  it('takes keywords and strings as object keys', () => {
    expect(errors('let o = { command: 1, "quoted key": 2, on: 3, test: 4, deny: 5, in: 6, }')).toEqual([]);
  });

  it('reads every test case form', () => {
    const text = `test "t" {
      pre-tool Bash { command: "sudo rm -rf /" } => deny
      pre-tool Read { file_path: "config/.env" } with { cwd: "/repo" } => deny because /secret/
      prompt "here: -----BEGIN RSA PRIVATE KEY-----" => block because "key"
      post-tool Bash { command: "npm i" } with { output: "npm ERR! x" } => block
      stop { turn: [] } => continue
      session-start with { cwd: "/" } => none
      pre-tool Bash => allow
      event { hook_event_name: "PreToolUse", tool_input: { command: "ls" } } => halt
    }`;
    const r = parse(text, 't');
    expect(r.diagnostics).toEqual([]);
    const cases = r.cst?.children.item?.[0]?.children.testBlock?.[0]?.children.testCase ?? [];
    expect(cases.map((c) => c.children.expect?.[0]?.image)).toEqual(['deny', 'deny', 'block', 'block', 'continue', 'none', 'allow', 'halt']);
  });

  it('accepts trailing commas in lists and objects, and empty ones', () => {
    expect(errors('let a = [1, 2,] let b = {a: 1,} let c = [] let d = {}')).toEqual([]);
  });

  it('accepts an empty file, a file of comments, and empty blocks', () => {
    expect(errors('')).toEqual([]);
    expect(errors('# only a comment')).toEqual([]);
    expect(errors('on pre-tool { } test "t" { }')).toEqual([]);
  });

  it('lets `ran` take the selectors that follow it', () => {
    const rule = firstRule('on stop { continue when ran Bash command "npm test" because "x" }');
    expect(rule.children.selector).toBeUndefined();
    const ran = rule.children.whenClause?.[0]?.children.orExpr?.[0]?.children.andExpr?.[0]?.children.notExpr?.[0]?.children.primary?.[0]
      ?.children.ranExpr?.[0];
    expect(ran?.children.selector).toHaveLength(1);
  });

  it('reads `with { ... }` as a clause of a rule, in any order with the others', () => {
    const rule = firstRule('on pre-tool { run hook "node" with {args: ["a.js", "--x"], if: "Bash(git *)"} dialect claude matcher "Bash" }');
    expect(rule.children.withClause).toHaveLength(1);
    const options = rule.children.withClause?.[0]?.children.options?.[0];
    expect(options?.children.entry?.map((e) => e.children.key?.[0]?.image)).toEqual(['args', 'if']);
    expect(rule.children.dialectClause).toHaveLength(1);
    expect(rule.children.matcherClause).toHaveLength(1);
    expect(errors('on stop { run hook "x" with {} matcher * with {shell: "bash"} }')).toEqual([]);
  });

  it('parses several times with the same results', () => {
    expect(errors('on x { deny ) }')).toEqual(errors('on x { deny ) }'));
    expect(parse(EXAMPLE, 'a').diagnostics).toEqual([]);
  });
});

describe('parse: errors and their places', () => {
  it('reports an unexpected token with what was expected and found', () => {
    const d = only('let x 5');
    expect(at(d)).toBe('parse/unexpected-token@1:7');
    expect(d.message).toBe('expected `=` after `x`, found `5`');
  });

  it('names the block a missing `}` would close, found at the next item', () => {
    const d = only('on pre-tool {\n  deny Bash\non stop { limit 3 }');
    expect(at(d)).toBe('parse/unexpected-token@3:1');
    expect(d.message).toBe('expected `}` to close the `on pre-tool` block, found `on`');
    expect(d.help).toContain('1:13');
  });

  it('places an error at the end of the file just after the last token', () => {
    const d = only('on pre-tool {\n  deny Bash command "rm -rf /"\n');
    expect(at(d)).toBe('parse/unexpected-token@2:31');
    expect(d.message).toContain('found end of file');
    expect(d.span?.start).toEqual(d.span?.end);
  });

  it('reports stray tokens in a block once and goes on with the next rule', () => {
    const r = parse('on pre-tool {\n  deny Bash ) ( ] "x"\n  allow Read\n}', 'p');
    expect(r.diagnostics.map(at)).toEqual(['parse/unexpected-token@2:13']);
    expect(r.diagnostics[0]?.message).toBe('expected a clause, the next rule or `}`, found `)`');
    const rules = r.cst?.children.item?.[0]?.children.onBlock?.[0]?.children.rule ?? [];
    expect(rules.map((x) => x.children.effect?.[0]?.image)).toEqual(['deny', 'allow']);
  });

  it('reports a `with` without its object once and goes on with the rule and the next one', () => {
    for (const [after, at] of [['deny Bash', '3:3'], ['"text"', '2:21'], ['timeout 5s', '2:21']] as const) {
      const text = `on pre-tool {\n  run hook "x" with ${after === 'deny Bash' ? '\n  ' : ''}${after}\n  allow Read\n}`;
      const r = parse(text, 'p');
      expect(r.diagnostics.map(at_), after).toEqual([`parse/unexpected-token@${at}`]);
      expect(r.diagnostics[0]?.message).toMatch(/^expected `\{` after `with`, found /);
      expect(r.diagnostics[0]?.help).toContain('with {args: ');
      const rules = r.cst?.children.item?.[0]?.children.onBlock?.[0]?.children.rule ?? [];
      expect(rules.map((x) => x.children.effect?.[0]?.image)).toEqual(after === 'deny Bash' ? ['run', 'deny', 'allow'] : ['run', 'allow']);
    }
    expect(only('on pre-tool {\n  run hook "x" with "a"\n}').message).toBe('expected `{` after `with`, found the string `"a"`');
  });

  it('places a `with` cut short by the end of the file at the `with`', () => {
    expect(errors('on pre-tool {\n  run hook "x" with')).toEqual(['parse/unexpected-token@2:16', 'parse/unexpected-token@2:20']);
    expect(parse('on pre-tool {\n  run hook "x" with', 'p').diagnostics[0]?.message).toBe('expected `{` after `with`, found end of file');
  });

  it('recovers from a broken `with` object at the next rule', () => {
    const cases: [string, string, string][] = [
      ['with {args: ["a"}', 'parse/unexpected-token@2:32', 'expected `,` or `]` in the list, found `}`'],
      ['with {args: ["a"]', 'parse/unexpected-token@3:3', 'expected `,` or `}` in the object, found `deny`'],
      ['with {args ["a"]}', 'parse/unexpected-token@2:27', 'expected `:` after `args`, found `[`'],
      ['with {args: ["a"]} )', 'parse/unexpected-token@2:35', 'expected a clause, the next rule or `}`, found `)`'],
    ];
    for (const [clause, where, message] of cases) {
      const r = parse(`on pre-tool {\n  run hook "x" ${clause}\n  deny Bash\n}`, 'p');
      expect(r.diagnostics.map(at_), clause).toEqual([where]);
      expect(r.diagnostics[0]?.message).toBe(message);
      const rules = r.cst?.children.item?.[0]?.children.onBlock?.[0]?.children.rule ?? [];
      expect(rules.map((x) => x.children.effect?.[0]?.image), clause).toEqual(['run', 'deny']);
    }
  });

  it('ends stray tokens in a rule at a `with`', () => {
    const r = parse('on pre-tool {\n  run hook "x" ) ] with {shell: "bash"}\n}', 'p');
    expect(r.diagnostics.map(at_)).toEqual(['parse/unexpected-token@2:16']);
    const rule = r.cst?.children.item?.[0]?.children.onBlock?.[0]?.children.rule?.[0];
    expect(rule?.children.withClause?.[0]?.children.options).toHaveLength(1);
  });

  it('suggests a comma between tool names', () => {
    const d = only('on pre-tool {\n  allow Read Glob\n}');
    expect(at(d)).toBe('parse/unexpected-token@2:14');
    expect(d.help).toBe('separate tool names with commas: `Read, Glob`');
  });

  it('skips a test case written inside an `on` block as one error', () => {
    expect(errors('on pre-tool {\n  pre-tool Bash { command: "ls" } => allow\n}')).toEqual(['parse/unexpected-token@2:3']);
  });

  it('skips a broken test case up to the next one', () => {
    const r = parse('test "t" {\n  deny Bash { x: 1 } => deny because "x"\n  stop => continue\n}', 'p');
    expect(r.diagnostics.map(at)).toEqual(['parse/unexpected-token@2:3']);
    expect(r.diagnostics[0]?.message).toBe('expected a test case or `}` to close the `test "t"` block, found `deny`');
    const cases = r.cst?.children.item?.[0]?.children.testBlock?.[0]?.children.testCase ?? [];
    expect(cases.map((c) => c.children.seam?.[0]?.image)).toEqual(['stop']);
  });

  it('reports a rule outside a block and a `}` without its `{`', () => {
    expect(errors('deny Bash')).toEqual(['parse/unexpected-token@1:1']);
    const d = only('on x { }\n}');
    expect(at(d)).toBe('parse/unexpected-token@2:1');
    expect(d.help).toBe('this `}` has no matching `{`');
  });

  it('reads `=` for `==` as one error', () => {
    const d = only('on session-start { context "Hi." when source = "startup" }');
    expect(at(d)).toBe('parse/unexpected-token@1:46');
    expect(d.help).toBe('compare with `==`');
  });

  it('names a keyword used where a name belongs', () => {
    const d = only('let deny = "x"');
    expect(d.message).toBe('expected a name after `let`, found the keyword `deny`');
  });

  it('names the `(` a missing `)` would close', () => {
    const d = only('on pre-tool { deny Bash when (cwd == "/" because "root" }');
    expect(d.message).toBe('expected `and`, `or` or `)` to close the `(` at 1:30, found `because`');
  });

  it('reports a lexer error at its place, with the characters in backticks', () => {
    const d = only('on pre-tool {\n  deny Bash @@\n}');
    expect(at(d)).toBe('parse/lex-error@2:13');
    expect(d.message).toBe('unexpected characters `@@`');
  });

  it('escapes control characters in messages', () => {
    const d = only('\u0000');
    expect(d.message).toBe('unexpected character `\\u{0}`');
    expect(d.help).toContain('control characters');
  });

  it('reports an unterminated string at its opening quote, once', () => {
    expect(errors('on pre-tool {\n  deny Bash because "never delete a root\n}')).toEqual(['parse/unterminated-string@2:21']);
    expect(errors('policy "acme')).toEqual(['parse/unterminated-string@1:8']);
  });

  it('reports an unterminated regex at its start, once', () => {
    expect(errors('on pre-tool {\n  deny Bash when command matches /rm -rf\n}')).toEqual(['parse/unterminated-regex@2:34']);
  });

  it('reports an empty regex', () => {
    const d = only('let r = //');
    expect(at(d)).toBe('parse/empty-regex@1:9');
    expect(d.help).toContain('comments start with `#`');
  });

  it('reports an invalid escape at the escape', () => {
    const d = only('on pre-tool {\n  deny Bash because "C:\\windows"\n}');
    expect(at(d)).toBe('parse/invalid-escape@2:24');
    expect(d.span?.end.column).toBe(26);
  });

  it('reports a malformed number or duration once', () => {
    expect(errors('on pre-tool { run Bash hook "x" timeout 10sec }')).toEqual(['parse/invalid-number@1:41']);
    expect(errors('on pre-tool { run Bash hook "x" timeout 10 }')).toEqual(['parse/unexpected-token@1:41']);
  });

  it('reports every error of a file in one run', () => {
    const text = [
      'let = "no name"',
      'on pre-tool {',
      '  deny Bash when cwd = "/"',
      '}',
      'on prompt {',
      '  block when prompt contains "x" because "unterminated',
      '}',
      'test "t" {',
      '  pre-tool Bash { command: "ls" } allow',
      '}',
    ].join('\n');
    expect(errors(text)).toEqual([
      'parse/unexpected-token@1:5',
      'parse/unexpected-token@3:22',
      'parse/unterminated-string@6:42',
      'parse/unexpected-token@9:35',
    ]);
  });
});

describe('parse: depth and size limits', () => {
  it('accepts brackets nested exactly as deep as allowed', () => {
    const n = MAX_NESTING - 1;
    expect(errors(`on pre-tool { deny when ${'('.repeat(n)}a == 1${')'.repeat(n)} }`)).toEqual([]);
    expect(errors(`let x = ${'['.repeat(MAX_NESTING)}${']'.repeat(MAX_NESTING)}`)).toEqual([]);
  });

  // the `{` of the block counts as one level: the first `(` is at 2:18
  it('reports parentheses nested too deep once, at the first one too many', () => {
    const text = `on pre-tool {\n  deny Bash when ${'('.repeat(100)}cwd == "/"${')'.repeat(100)}\n}\non stop { limit 3 }`;
    const r = parse(text, 'p');
    expect(r.diagnostics.map(at)).toEqual([`parse/too-deep@2:${18 + MAX_NESTING - 1}`]);
    expect(r.cst?.children.item).toHaveLength(2);
  });

  it('reports one error for deep nesting even when the brackets do not balance', () => {
    expect(errors(`on pre-tool {\n  deny Bash when ${'('.repeat(98)}cwd == "/"${')'.repeat(100)}\n}`)).toEqual([
      `parse/too-deep@2:${18 + MAX_NESTING - 1}`,
    ]);
  });

  it('reports lists and objects nested too deep', () => {
    expect(errors(`let deep = ${'['.repeat(100)}${']'.repeat(100)}`)).toEqual([`parse/too-deep@1:${12 + MAX_NESTING}`]);
    expect(errors(`let deep = ${'{a:'.repeat(100)}1${'}'.repeat(100)}`)).toEqual([`parse/too-deep@1:${12 + 3 * MAX_NESTING}`]);
  });

  it('reports a long run of `not` once', () => {
    expect(errors(`on pre-tool { deny when ${'not '.repeat(200)}a exists }`)).toEqual([`parse/too-deep@1:${25 + 4 * MAX_NESTING}`]);
  });

  it('counts the nesting of each item afresh', () => {
    const open = `let a = ${'['.repeat(60)}\n`;
    const r = parse(open + open + `on pre-tool { deny when ${'('.repeat(20)}x exists${')'.repeat(20)} }`, 'p');
    expect(r.diagnostics.map((d) => d.code)).not.toContain('parse/too-deep');
    expect(r.cst?.children.item).toHaveLength(3);
  });

  it('reads the items after brackets nested too deep and never closed', () => {
    const r = parse(`let a = ${'['.repeat(100)}\non pre-tool { allow Read }`, 'p');
    // the list is never closed: that is reported where the next item starts
    expect(r.diagnostics.map(at)).toEqual([`parse/too-deep@1:${9 + MAX_NESTING}`, 'parse/unexpected-token@2:1']);
    expect(r.cst?.children.item?.map((i) => Object.keys(i.children)[0])).toEqual(['letDecl', 'onBlock']);
  });

  it('survives 100,000 unclosed parentheses', () => {
    const r = parse('('.repeat(100_000), 'p');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['parse/unexpected-token', 'parse/too-deep']);
  });

  it(`caps the diagnostics at ${MAX_DIAGNOSTICS}, then says so once`, () => {
    const r = parse('@ '.repeat(500), 'p');
    expect(r.diagnostics).toHaveLength(MAX_DIAGNOSTICS + 1);
    expect(r.diagnostics.filter((d) => d.code === 'parse/too-many-errors')).toHaveLength(1);
    expect(r.diagnostics[MAX_DIAGNOSTICS]?.code).toBe('parse/too-many-errors');
  });

  it('stops parsing a file with too many syntax errors', () => {
    const r = parse('on x {\n' + '  deny when because ]\n'.repeat(5000) + '}', 'p');
    const last = r.diagnostics[r.diagnostics.length - 1];
    expect(last?.code).toBe('parse/too-many-errors');
    expect(last?.message).toContain('the rest of the file was not read');
  });

  it('reads binary garbage into diagnostics', () => {
    let seed = 7;
    let text = '';
    for (let i = 0; i < 50_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      text += String.fromCharCode((seed >> 16) & 0xff);
    }
    const r = parse(text, 'p');
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.every((d) => d.span && Number.isFinite(d.span.start.line))).toBe(true);
  });

  it('turns an exception inside the parse into a `parse/internal` diagnostic', () => {
    const r = parse('let x = 1', 'p', {
      onItem: () => {
        throw new Error('boom');
      },
    });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['parse/internal']);
    expect(r.cst).toBeUndefined();
    // and the parser is still usable afterwards
    expect(parse(EXAMPLE, 'e').diagnostics).toEqual([]);
  });
});

describe('parse: items one by one', () => {
  it('hands over each item in order and releases it', () => {
    const seen: string[] = [];
    const r = parse(EXAMPLE, 'e', { onItem: (item) => seen.push(Object.keys(item.children)[0] ?? '') });
    expect(seen).toHaveLength(12);
    expect(seen[0]).toBe('policyDecl');
    expect(seen[11]).toBe('testBlock');
    expect(r.cst?.children.item ?? []).toEqual([]);
  });

  it('hands over the rules of a block before the block, and releases them', () => {
    const seen: string[] = [];
    const r = parse('on pre-tool {\n  deny Bash\n  allow Read\n}\nlet a = 1', 'p', {
      onRule: (rule) => seen.push(`rule ${rule.children.effect?.[0]?.image}`),
      onItem: (item) => seen.push(Object.keys(item.children)[0] ?? ''),
    });
    expect(seen).toEqual(['rule deny', 'rule allow', 'onBlock', 'letDecl']);
    expect(r.diagnostics).toEqual([]);
    const kept = parse('on pre-tool { deny Bash allow Read }', 'p', { onRule: () => undefined });
    const rules = kept.cst?.children.item?.[0]?.children.onBlock?.[0]?.children.rule ?? [];
    expect(rules.map((rule) => rule.children)).toEqual([{}, {}]);
  });

  it('keeps a rule cut short by an error that reached its block in the block', () => {
    const seen: string[] = [];
    let block: OnBlockCst | undefined;
    parse('on pre-tool {\n  deny Bash\n  allow Read when (\n', 'p', {
      onRule: (rule) => seen.push(`rule ${rule.children.effect?.[0]?.image}`),
      onItem: (item) => (block = item.children.onBlock?.[0]),
    });
    expect(seen).toEqual(['rule deny']);
    expect(block?.children.rule?.map((rule) => rule.children.effect?.[0]?.image)).toEqual([undefined, 'allow']);
  });

  it('hands over an item cut short by an error too', () => {
    const seen: string[] = [];
    parse('let a = 1\non pre-tool { deny when ( ', 'p', { onItem: (item) => seen.push(Object.keys(item.children)[0] ?? '') });
    expect(seen).toEqual(['letDecl', 'onBlock']);
  });
});

describe('parse: extents', () => {
  it('gives the offsets of the text a node was read from', () => {
    const text = 'let a = 1\non pre-tool {\n  deny Bash when (x == 1)\n}\n';
    const [first, second] = items(text);
    expect(extentOf(first as ItemCst)).toEqual({ start: 0, end: 9 });
    expect(extentOf(second as ItemCst)).toEqual({ start: 10, end: text.length - 1 });
    const rule = (second as ItemCst).children.onBlock?.[0]?.children.rule?.[0] as RuleCst;
    expect(text.slice(extentOf(rule)?.start, extentOf(rule)?.end)).toBe('deny Bash when (x == 1)');
  });

  it('leaves out tokens inserted by recovery', () => {
    const [item] = items('let x 5');
    expect(extentOf(item as ItemCst)).toEqual({ start: 0, end: 7 });
  });
});

describe('parse: nested parses', () => {
  it('can parse another text while handing over items', () => {
    const inner: string[] = [];
    const r = parse('let a = 1\nlet b = 2', 'outer', {
      onItem: () => inner.push(...parse('on x { deny ) }', 'inner').diagnostics.map(at)),
    });
    expect(r.diagnostics).toEqual([]);
    expect(inner).toEqual(['parse/unexpected-token@1:13', 'parse/unexpected-token@1:13']);
  });
});

describe('parse: never throws', () => {
  const pieces = [
    'policy', 'include', 'import', 'let', 'on', 'test', 'unprotect', 'when', 'because', 'hook', 'timeout', 'dialect', 'matcher', 'and', 'or', 'not',
    'in', 'matches', 'glob', 'exists', 'ran', 'with', 'true', 'null', 'deny', 'allow', 'context', 'limit', 'run', 'command',
    'path', 'url', 'domain', 'pre-tool', 'Bash', 'x.y', '*', '"s"', '"\\q"', '"open', '/re/i', '/open', '//', '3', '1.5',
    '10s', '10sec', '{', '}', '[', ']', '(', ')', ',', '=', '==', '!=', '=>', ':', '#c\n', '\n', '@', '\u0000',
  ];

  it('on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const r = parse(text, 'p');
        for (const d of r.diagnostics) {
          expect(Number.isFinite(d.span?.start.offset)).toBe(true);
          expect(Number.isFinite(d.span?.end.line)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('on text made of the language’s own tokens', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 80 }), (parts) => {
        const text = parts.join(' ');
        const r = parse(text, 'p');
        expect(r.cst).toBeDefined();
        for (const d of r.diagnostics) {
          expect(d.code).toMatch(/^parse\/[a-z-]+$/);
          expect(d.span?.start.offset).toBeGreaterThanOrEqual(0);
          expect(d.span?.end.offset).toBeLessThanOrEqual(text.length);
          expect(d.message).not.toMatch(/\.$/);
          expect(d.message).not.toMatch(/undefined|NaN|\[object/);
        }
      }),
      { numRuns: 500 },
    );
  });
});
