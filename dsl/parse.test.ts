import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { positionAt, type Diagnostic, type Span } from '../engine/index.js';
import { capDiagnostics, decodeRegex, decodeString, numberValue, parse } from '../grammar/index.js';
import type * as A from './ast.js';
import { cstToAst } from './cst-to-ast.js';
import { parsePolicy } from './parse.js';

const EXAMPLE = readFileSync(new URL('../grammar/testdata/language-example.dshpolicy', import.meta.url), 'utf8');

/** One of each construct of the language, each item valid on its own. */
const ITEMS = [
  'policy "p"',
  'include "other.dshpolicy"',
  'import claude hooks "settings.json"',
  'import gemini policy "policy.toml"',
  'unprotect claude',
  'unprotect policy, codex,\n  *',
  'let cmds = ["git *", "rm -rf *",]',
  'let opts = {shell: "bash", "args": ["-x"], on: 1, "a\\"b": null}',
  'on pre-tool {\n  deny Bash command "rm -rf *" because "no"\n  allow Read, Edit path "src/**"\n}',
  'on pre-tool {\n  ask WebFetch domain "*.example.com", "x.org" when input.mode == "a" and not (cwd startswith "/srv" or tool in ["Read"]) because why\n}',
  'on pre-tool {\n  deny Bash when command matches /\\bgit\\s+push\\b/i and not not true\n  allow mcp__x__* when input.flag exists\n}',
  'on post-tool {\n  context Edit, Write path "**/*.md" "a note \\u{1F600}"\n  block Bash command cmds when output contains "x" because "y"\n}',
  'on stop {\n  continue when ran Bash command "deploy *" and not ran Bash command "verify *" because "verify"\n  halt when last_message contains "give up" because "stop"\n}',
  'on prompt {\n  block when prompt matches /a\\/b/ because "s"\n  context "note" when (false or true)\n}',
  'on session-start {\n  run hook "./x.sh" timeout 5s with {args: ["a"], shell: "bash"}\n}',
  'on pre-tool {\n  run Bash hook "./y.sh" dialect codex matcher "Bash" timeout 500ms 3\n  ask when input.n == 2.5 # why\n}',
  'test "t" {\n  pre-tool Bash {command: "rm -rf /"} => deny because /no/\n  prompt "hello" => allow\n  stop with {last_message: "x"} => continue because "verify"\n}',
];

/** Pieces that make a text near-valid: a token in the wrong place, a clause twice, a bad literal. */
const NOISE = [
  '{', '}', '[', ']', '(', ')', ',', ':', '=', '==', '!=', '=>', '!', 'and', 'or', 'not', 'when', 'because', 'deny', 'allow',
  'on', 'let', 'test', 'policy', 'unprotect', 'command', 'path', 'x', 'Bash', '"s"', '"a\\qb"', '"open', '/r/', '//', '/open', '1', '5s',
  '10sec', '1.', 'true', 'null', 'exists', 'ran', 'with', 'hook', 'timeout', 'matcher', 'in', 'a..b', '*', 'é', '#c\n', '\n',
];

/** Files of valid items, in any order and number. */
const valid = fc.array(fc.constantFrom(...ITEMS, EXAMPLE), { minLength: 1, maxLength: 5 }).map((items) => items.join('\n'));

/** Valid files with a few pieces of noise put in or written over. */
const mutated = fc
  .tuple(valid, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...NOISE), fc.boolean()), { maxLength: 3 }))
  .map(([text, edits]) => {
    for (const [at, piece, replace] of edits) {
      const i = at % (text.length + 1);
      text = text.slice(0, i) + ` ${piece} ` + text.slice(replace ? Math.min(text.length, i + 3) : i);
    }
    return text;
  });

function at(d: Diagnostic): string {
  return `${d.code}@${d.span?.start.line}:${d.span?.start.column}`;
}

/** Every position in a value (AST or diagnostics) is a finite number inside the text. */
function positionsOk(value: unknown, text: string): boolean {
  let ok = true;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if ('line' in o && 'column' in o && 'offset' in o) {
        const { line, column, offset } = o as { line: number; column: number; offset: number };
        if (![line, column, offset].every(Number.isFinite) || line < 1 || column < 1 || offset < 0 || offset > text.length) ok = false;
      } else Object.values(o).forEach(walk);
    }
  };
  walk(value);
  return ok;
}

describe('parsePolicy: the language example', () => {
  it('parses every example of the language description without a diagnostic', () => {
    const { ast, diagnostics } = parsePolicy(EXAMPLE, 'example.dshpolicy');
    expect(diagnostics).toEqual([]);
    expect(ast.items.map((i) => i.kind)).toEqual(['policy', 'include', 'import', 'import', 'let', 'let', 'on', 'on', 'on', 'on', 'on', 'test']);
    const seams = ast.items.filter((i): i is A.OnBlock => i.kind === 'on').map((o) => `${o.seam.name}:${o.rules.map((r) => r.effect.name).join(',')}`);
    expect(seams).toEqual([
      'pre-tool:allow,deny,deny,ask,deny,allow,deny,deny,run',
      'prompt:block,context,context',
      'post-tool:block,context',
      'stop:continue,limit',
      'session-start:context',
    ]);
    const test = ast.items[11] as A.TestBlock;
    expect(test.cases.map((c) => `${c.seam.name} ${c.tool?.name ?? '-'} => ${c.expect.name}`)).toEqual([
      'pre-tool Bash => deny',
      'pre-tool Bash => ask',
      'pre-tool Bash => none',
      'pre-tool Read => deny',
      'prompt - => block',
      'stop - => continue',
    ]);
  });

  it('places the rules of the example where they are written', () => {
    const { ast } = parsePolicy(EXAMPLE, 'example.dshpolicy');
    const pre = ast.items[6] as A.OnBlock;
    expect(pre.rules.map((r) => `${r.span.start.line}:${r.span.start.column}`)).toEqual([
      '11:3', '12:3', '13:3', '14:3', '15:3', '16:3', '17:3', '18:3', '19:3',
    ]);
    expect(pre.span.file).toBe('example.dshpolicy');
  });
});

describe('parsePolicy: line endings', () => {
  it('reads a file with CRLF line endings the same way', () => {
    const lf = parsePolicy(EXAMPLE, 'p');
    const crlf = parsePolicy(EXAMPLE.replace(/\n/g, '\r\n'), 'p');
    expect(crlf.diagnostics).toEqual([]);
    const starts = (r: typeof lf) => r.ast.items.map((i) => `${i.span.start.line}:${i.span.start.column}`);
    expect(starts(crlf)).toEqual(starts(lf));
    const text = (r: typeof lf) => ((r.ast.items[7] as A.OnBlock).rules[1]?.text as A.StringLit).value;
    expect(text(crlf)).toBe(text(lf));
  });
});

describe('parsePolicy: syntax errors', () => {
  const cases: [string, string, string[], string?][] = [
    ['an unterminated string', 'on pre-tool {\n  deny Bash because "never delete a root\n}', ['parse/unterminated-string@2:21'], 'unterminated string'],
    ['an unterminated string at the end of the file', 'policy "acme', ['parse/unterminated-string@1:8']],
    ['an unterminated regex', 'on pre-tool {\n  deny Bash when command matches /rm -rf\n}', ['parse/unterminated-regex@2:34'], 'unterminated regex'],
    ['an escaped slash does not close a regex', 'on pre-tool {\n  deny Bash when command matches /usr\\/bin\\/\n}', ['parse/unterminated-regex@2:34']],
    ['an empty regex', 'on pre-tool {\n  deny Bash when command matches //\n}', ['parse/empty-regex@2:34']],
    ['an unknown escape', 'on pre-tool {\n  deny Bash because "C:\\windows"\n}', ['parse/invalid-escape@2:24'], '`\\w`'],
    ['a missing `}` at the end of the file', 'on pre-tool {\n  deny Bash command "rm -rf /"\n', ['parse/unexpected-token@2:31'], '`}`'],
    ['a missing `}` before the next block', 'on pre-tool {\n  deny Bash command "rm -rf /"\non stop {\n  halt when stop_hook_active == true\n}\n', ['parse/unexpected-token@3:1'], '`on pre-tool`'],
    ['a stray token inside a block', 'on pre-tool {\n  deny Bash )\n  allow Read\n}', ['parse/unexpected-token@2:13'], '`)`'],
    ['a rule outside any block', 'deny Bash command "rm -rf /"\n', ['parse/unexpected-token@1:1'], '`deny`'],
    ['a `}` without its `{`', 'on pre-tool {\n  allow Read\n}\n}\n', ['parse/unexpected-token@4:1'], '`}`'],
    ['tool names without a comma', 'on pre-tool {\n  allow Read Glob\n}', ['parse/unexpected-token@2:14'], '`Glob`'],
    ['`=` where a comparison is expected', 'on session-start {\n  context "Hi." when source = "startup"\n}', ['parse/unexpected-token@2:29'], '`=`'],
    ['a `(` never closed', 'on pre-tool {\n  deny Bash when (cwd == "/" because "root"\n}', ['parse/unexpected-token@2:30'], '`)`'],
    ['a keyword as a `let` name', 'let deny = "x"', ['parse/unexpected-token@1:5'], '`deny`'],
    ['a duration without a unit', 'on pre-tool {\n  run Bash hook "./guard.sh" timeout 10\n}', ['parse/unexpected-token@2:38']],
    ['a malformed duration', 'on pre-tool {\n  run Bash hook "./guard.sh" timeout 10sec\n}', ['parse/invalid-number@2:38'], '`10sec`'],
    ['a test case without `=>`', 'test "t" {\n  pre-tool Bash { command: "ls" } allow\n}', ['parse/unexpected-token@2:35'], '`=>`'],
    ['an object entry without `:`', 'test "t" {\n  pre-tool Bash { command "ls" } => allow\n}', ['parse/unexpected-token@2:27'], '`:`'],
    ['a clause given twice', 'on pre-tool {\n  deny Bash because "one" command "rm *" because "two"\n}', ['parse/duplicate-clause@2:42'], '`because`'],
    ['two texts', 'on prompt {\n  context "one" "two"\n}', ['parse/duplicate-clause@2:17']],
    ['characters that start no token', 'on pre-tool {\n  deny Bash @@ \u0000\u0001\n}\n', ['parse/lex-error@2:13', 'parse/lex-error@2:16'], '`@@`'],
    ['single quotes', "on pre-tool {\n  deny Bash command 'ls'\n}", ['parse/lex-error@2:21', 'parse/lex-error@2:24'], "`'`"],
    ['a key given twice', 'test "t" {\n  pre-tool Bash { command: "ls", command: "pwd" } => none\n}', ['parse/duplicate-key@2:34'], '`command`'],
    ['a unicode escape that is no code point', 'on pre-tool {\n  deny Bash because "bad \\u{D800} escape"\n}', ['parse/invalid-escape@2:26'], '`\\u{D800}`'],
    ['a test case inside an `on` block', 'on pre-tool {\n  pre-tool Bash { command: "ls" } => allow\n}', ['parse/unexpected-token@2:3'], '`pre-tool`'],
    ['`when` followed by a clause keyword', 'on pre-tool {\n  deny Bash when because "x"\n}', ['parse/unexpected-token@2:18'], '`because`'],
    ['an import without its path', 'import claude hooks\non pre-tool { allow Read }', ['parse/unexpected-token@2:1'], 'a string'],
  ];

  it.each(cases)('%s', (_, text, want, message) => {
    const { diagnostics } = parsePolicy(text, 'policy.dshpolicy');
    expect(diagnostics.map(at)).toEqual(want);
    if (message) expect(diagnostics[0]?.message).toContain(message);
    for (const d of diagnostics) {
      expect(d.severity).toBe('error');
      expect(d.message).toMatch(/^[a-z`]/);
      expect(d.message).not.toMatch(/\.$/);
      expect(d.span?.file).toBe('policy.dshpolicy');
    }
  });

  it('reports errors in separate places in one run', () => {
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
    const { diagnostics, ast } = parsePolicy(text, 'p');
    expect(diagnostics.map(at)).toEqual([
      'parse/unexpected-token@1:5',
      'parse/unexpected-token@3:22',
      'parse/unterminated-string@6:42',
      'parse/unexpected-token@9:35',
    ]);
    expect(ast.items.map((i) => i.kind)).toEqual(['on', 'on', 'test']);
  });

  it('reports `when`, `hook` and `timeout` given twice', () => {
    const text = 'on pre-tool {\n  deny Bash when cwd == "/" when cwd == "/tmp"\n  run Bash hook "./a.sh" timeout 1s hook "./b.sh" timeout 2s\n}';
    const { diagnostics } = parsePolicy(text, 'p');
    expect(diagnostics.map((d) => `${at(d)} ${d.message}`)).toEqual([
      'parse/duplicate-clause@2:29 duplicate `when` clause in a `deny` rule',
      'parse/duplicate-clause@3:37 duplicate `hook` clause in a `run` rule',
      'parse/duplicate-clause@3:51 duplicate `timeout` clause in a `run` rule',
    ]);
  });

  it('reports nesting too deep once, not a crash', () => {
    const parens = `on pre-tool {\n  deny Bash when ${'('.repeat(100)}cwd == "/"${')'.repeat(100)}\n}`;
    const lists = `let deep = ${'['.repeat(100)}${']'.repeat(100)}`;
    const nots = `on pre-tool {\n  deny Bash when ${'not '.repeat(130)}cwd == "/"\n}`;
    for (const text of [parens, lists, nots]) {
      expect(parsePolicy(text, 'p').diagnostics.map((d) => d.code)).toEqual(['parse/too-deep']);
    }
  });

  it('caps the diagnostics, counting those of the tree too', () => {
    const text = 'on prompt {\n' + '  context "a" "b"\n'.repeat(150) + '}';
    const { diagnostics } = parsePolicy(text, 'p');
    expect(diagnostics).toHaveLength(101);
    expect(diagnostics.slice(0, 100).every((d) => d.code === 'parse/duplicate-clause')).toBe(true);
    expect(diagnostics[100]?.code).toBe('parse/too-many-errors');
  });
});

describe('parsePolicy: never throws', () => {
  it('on any text, and gives positions that are numbers inside the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const r = parsePolicy(text, 'p');
        expect(r.ast.kind).toBe('file');
        expect(positionsOk(r, text)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('on text assembled from the language’s tokens', () => {
    const pieces = [
      'policy "p"', 'include "i"', 'import claude hooks "h"', 'let', 'x', '=', 'on', 'pre-tool', 'stop', 'test "t"', '{', '}', '[',
      ']', '(', ')', ',', ':', '=>', '==', '!=', 'deny', 'ask', 'allow', 'block', 'context', 'continue', 'halt', 'run', 'limit',
      'Bash', 'Read', 'mcp__x__*', '*', 'command', 'path', 'url', 'domain', 'when', 'because', 'hook', 'timeout', 'dialect', 'matcher',
      'with', 'and', 'or', 'not', 'ran', 'in', 'matches', 'glob', 'startswith', 'endswith', 'contains', 'exists', 'true',
      'false', 'null', '"s"', '"a\\qb"', '"open', '/r/i', '/open', '//', '3', '2.5', '10s', '10sec', 'input.sql', 'a..b', '#c\n',
      '\n', '@', "'",
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 120 }), (parts) => {
        const text = parts.join(' ');
        const r = parsePolicy(text, 'p');
        expect(positionsOk(r, text)).toBe(true);
        for (const d of r.diagnostics) expect(d.code).toMatch(/^parse\/[a-z-]+$/);
      }),
      { numRuns: 500 },
    );
  });

  it('on mutations of the language example', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: EXAMPLE.length }), fc.integer({ min: 0, max: 40 }), fc.string({ maxLength: 5 }), (from, cut, insert) => {
        const text = EXAMPLE.slice(0, from) + insert + EXAMPLE.slice(from + cut);
        const r = parsePolicy(text, 'p');
        expect(positionsOk(r, text)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

/** The AST and diagnostics built from the parse's whole tree, without rules and items handed over one by one. */
function fromWholeTree(text: string, file: string): ReturnType<typeof parsePolicy> {
  const parsed = parse(text, file);
  const { ast, diagnostics } = cstToAst(parsed.cst, parsed.source);
  return { ast, diagnostics: capDiagnostics([...parsed.diagnostics, ...diagnostics]) };
}

interface Spanned {
  kind?: string;
  span: Span;
}

/** Calls `visit` on every node of an AST (each object with a span) with the node it belongs to. */
function walk(value: unknown, visit: (node: Spanned, parent: Spanned | undefined) => void, parent?: Spanned): void {
  if (Array.isArray(value)) {
    for (const v of value) walk(v, visit, parent);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const node = 'span' in value ? (value as Spanned) : undefined;
  if (node) visit(node, parent);
  for (const [key, v] of Object.entries(value)) if (!key.endsWith('pan')) walk(v, visit, node ?? parent);
}

/** What the text of a node's span means for a node of its kind; undefined for nodes made of parts. */
function readAs(node: Spanned, written: string): unknown {
  switch (node.kind) {
    case 'ident':
    case 'ref':
    case 'tool':
    case 'field':
    case 'duration':
    case 'bool':
    case 'boolexpr':
    case 'null':
      return written;
    case 'string':
      return written.startsWith('"') ? decodeString(written).value : `not a string: ${written}`;
    case 'regex': {
      const { source, flags } = decodeRegex(written);
      return `/${source}/${flags}`;
    }
    case 'number':
      return numberValue(written);
    default:
      return undefined;
  }
}

/** What `readAs` should give for a node: its own value, as written. */
function valueOf(node: Spanned): unknown {
  const n = node as A.ValueNode | A.Ident | A.ToolPattern | A.FieldNode | A.BoolExpr;
  switch (n.kind) {
    case 'ident':
    case 'ref':
    case 'tool':
      return n.name;
    case 'field':
      return n.path.join('.');
    case 'duration':
      return n.text;
    case 'bool':
    case 'boolexpr':
      return String(n.value);
    case 'null':
      return 'null';
    case 'string':
    case 'number':
      return n.value;
    case 'regex':
      return `/${n.source}/${n.flags}`;
    default:
      return undefined;
  }
}

describe('parsePolicy: spans', () => {
  it('gives every node the span of the text it was read from, inside the span of what it belongs to', () => {
    fc.assert(
      fc.property(valid, (text) => {
        const { ast, diagnostics } = parsePolicy(text, 'p');
        expect(diagnostics).toEqual([]);
        const positioned = (span: Span): void => {
          expect(span.file).toBe('p');
          expect(span.start).toEqual(positionAt(text, span.start.offset));
          expect(span.end).toEqual(positionAt(text, span.end.offset));
          expect(span.start.offset).toBeLessThanOrEqual(span.end.offset);
        };
        walk(ast, (node, parent) => {
          positioned(node.span);
          const written = text.slice(node.span.start.offset, node.span.end.offset);
          expect(readAs(node, written), `${node.kind} \`${written}\``).toEqual(valueOf(node));
          if (node.kind === 'regex') expect((node as A.RegexLit).sourceOffset).toBe(node.span.start.offset + 1);
          if (parent) {
            expect(node.span.start.offset).toBeGreaterThanOrEqual(parent.span.start.offset);
            expect(node.span.end.offset).toBeLessThanOrEqual(parent.span.end.offset);
          }
          const entry = node as Partial<A.ObjectEntry & A.CompareExpr>;
          if (entry.keySpan) {
            positioned(entry.keySpan);
            const key = text.slice(entry.keySpan.start.offset, entry.keySpan.end.offset);
            expect(key.startsWith('"') ? decodeString(key).value : key).toBe(entry.key);
          }
          if (entry.opSpan) expect(text.slice(entry.opSpan.start.offset, entry.opSpan.end.offset)).toBe(entry.op);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('moves every span with the text when lines are put before it', () => {
    const before = '# a comment\n\n';
    // messages may name positions too (`the block that opens at 1:6`)
    const spans = (r: ReturnType<typeof parsePolicy>) => ({ items: r.ast.items, diagnostics: r.diagnostics.map((d) => [d.code, d.span]) });
    const shift = (r: ReturnType<typeof parsePolicy>): unknown =>
      JSON.parse(JSON.stringify(spans(r)), (key, v: unknown) => {
        if (key === 'sourceOffset') return (v as number) + before.length;
        if (v && typeof v === 'object' && 'line' in v && 'column' in v && 'offset' in v) {
          const p = v as { line: number; column: number; offset: number };
          return { line: p.line + 2, column: p.column, offset: p.offset + before.length };
        }
        return v;
      });
    fc.assert(
      fc.property(mutated, (text) => {
        expect(spans(parsePolicy(before + text, 'p'))).toEqual(shift(parsePolicy(text, 'p')));
      }),
      { numRuns: 300 },
    );
  });
});

describe('parsePolicy: one parser for every text', () => {
  it('gives what building the AST from the whole tree gives, errors or not', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        expect(parsePolicy(text, 'p')).toEqual(fromWholeTree(text, 'p'));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a text the same whatever was parsed before it', () => {
    fc.assert(
      fc.property(mutated, mutated, (first, second) => {
        const alone = parsePolicy(second, 'p');
        parsePolicy(first, 'p');
        expect(parsePolicy(second, 'p')).toEqual(alone);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parsePolicy: large input', () => {
  const rule = [
    'on pre-tool {',
    '  deny Bash command "rm -rf /", "rm -rf ~" when input.x matches /a+b/ and not (tool in ["A", "B"]) because "no"',
    '  allow Read, Glob path ["**/*.ts"]',
    '}',
    '',
  ].join('\n');

  function generated(size: number): string {
    return rule.repeat(Math.ceil(size / rule.length));
  }

  it('parses a 1 MB policy', { timeout: 60_000 }, () => {
    const text = generated(1_000_000);
    const started = Date.now();
    const { ast, diagnostics } = parsePolicy(text, 'big');
    expect(diagnostics).toEqual([]);
    expect(ast.items.length).toBe(Math.ceil(1_000_000 / rule.length));
    const last = ast.items[ast.items.length - 1] as A.OnBlock;
    expect(last.rules[1]?.span.start.line).toBe(4 * ast.items.length - 1);
    // a generous bound: it takes well under a second on an idle machine
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('parses 1 MB of garbage into at most 101 diagnostics', { timeout: 60_000 }, () => {
    let seed = 11;
    const chars: string[] = [];
    for (let i = 0; i < 1_000_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      chars.push(String.fromCharCode((seed >> 16) & 0xff));
    }
    const { diagnostics } = parsePolicy(chars.join(''), 'garbage');
    expect(diagnostics.length).toBeLessThanOrEqual(101);
    expect(diagnostics[diagnostics.length - 1]?.code).toBe('parse/too-many-errors');
  });

  it('parses a 1 MB unterminated string and a line of 100,000 `(`', () => {
    expect(parsePolicy('let s = "' + 'x'.repeat(1_000_000), 'p').diagnostics.map((d) => d.code)).toEqual(['parse/unterminated-string']);
    expect(parsePolicy('('.repeat(100_000), 'p').diagnostics.map((d) => d.code)).toEqual(['parse/unexpected-token', 'parse/too-deep']);
  });

  // about ten seconds: run with DSHPOLICY_LARGE_TESTS=1
  it.runIf(process.env['DSHPOLICY_LARGE_TESTS'])('parses a 10 MB policy', { timeout: 300_000 }, () => {
    const text = generated(10_000_000);
    const { ast, diagnostics } = parsePolicy(text, 'big');
    expect(diagnostics).toEqual([]);
    expect(ast.items.length).toBe(Math.ceil(10_000_000 / rule.length));
  });
});
