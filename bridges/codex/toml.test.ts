import fc from 'fast-check';
import { stringify } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../engine/index.js';
import { nodeAt, type ValueNode } from '../common/tree.js';
import { parseToml } from './toml.js';

function lineOf(text: string, pointer: string): { line: number; column: number; key?: { line: number; column: number } } {
  const lines = new LineIndex(text);
  const parsed = parseToml(text, 'c.toml', lines);
  expect(parsed.diagnostics).toEqual([]);
  const node = nodeAt(parsed.root!, pointer);
  expect(node, pointer).toBeDefined();
  const out: { line: number; column: number; key?: { line: number; column: number } } = { line: node!.span!.start.line, column: node!.span!.start.column };
  if (node!.keySpan) out.key = { line: node!.keySpan.start.line, column: node!.keySpan.start.column };
  return out;
}

describe('toml positions', () => {
  const doc = [
    'title = "x"  # comment with [brackets] and key = "value"',
    '',
    '[[hooks.PreToolUse]]',
    'matcher = "Bash"',
    '',
    '[[hooks.PreToolUse.hooks]]',
    "type = 'command'",
    'command = """',
    'echo "[[hooks.Stop]]"',
    'timeout = 1',
    '"""',
    '  timeout = 5',
    '',
    '[[hooks.PreToolUse]]',
    'hooks = [',
    '  { type = "command", command = "a" },',
    '  # a comment between elements',
    '  { type = "command", "command" = "b", timeout = 2 },',
    ']',
    '',
    '[hooks.state."/h/.codex/hooks.json:stop:0:0"]',
    'trusted_hash = "sha256:x"',
    '',
    '[features]',
    'a.b."c.d" = true',
  ].join('\n');

  it('places array-of-table elements at their header', () => {
    expect(lineOf(doc, '/hooks/PreToolUse/0')).toMatchObject({ line: 3, column: 1 });
    expect(lineOf(doc, '/hooks/PreToolUse/0/hooks/0')).toMatchObject({ line: 6, column: 1 });
    expect(lineOf(doc, '/hooks/PreToolUse/1')).toMatchObject({ line: 14, column: 1 });
  });

  it('places keys and values, past multi-line strings and comments', () => {
    expect(lineOf(doc, '/hooks/PreToolUse/0/matcher')).toEqual({ line: 4, column: 11, key: { line: 4, column: 1 } });
    expect(lineOf(doc, '/hooks/PreToolUse/0/hooks/0/command')).toMatchObject({ line: 8, column: 11 });
    expect(lineOf(doc, '/hooks/PreToolUse/0/hooks/0/timeout')).toEqual({ line: 12, column: 13, key: { line: 12, column: 3 } });
  });

  it('places inline array elements and inline table members', () => {
    expect(lineOf(doc, '/hooks/PreToolUse/1/hooks/0')).toMatchObject({ line: 16, column: 3 });
    expect(lineOf(doc, '/hooks/PreToolUse/1/hooks/1')).toMatchObject({ line: 18, column: 3 });
    expect(lineOf(doc, '/hooks/PreToolUse/1/hooks/1/command')).toEqual({ line: 18, column: 35, key: { line: 18, column: 23 } });
    expect(lineOf(doc, '/hooks/PreToolUse/1/hooks/1/timeout')).toMatchObject({ line: 18, column: 50 });
  });

  it('decodes quoted keys and dotted keys', () => {
    expect(lineOf(doc, '/hooks/state/~1h~1.codex~1hooks.json:stop:0:0')).toMatchObject({ line: 21, column: 1 });
    expect(lineOf(doc, '/hooks/state/~1h~1.codex~1hooks.json:stop:0:0/trusted_hash')).toMatchObject({ line: 22, column: 16 });
    expect(lineOf(doc, '/features/a/b/c.d')).toMatchObject({ line: 25, column: 13, key: { line: 25, column: 1 } });
  });

  it('keeps integers and floats apart, and dates as dates', () => {
    const root = parseToml('a = 5\nb = 5.0\nc = 1979-05-27T07:32:00Z\nd = 0x10', 'c.toml', new LineIndex('')).root!;
    expect(root.props!.map((p) => [p.key, p.node.kind])).toEqual([
      ['a', 'integer'],
      ['b', 'float'],
      ['c', 'datetime'],
      ['d', 'integer'],
    ]);
    expect(root.props![3]!.node.value).toBe(16n);
  });

  it('reports syntax errors at smol-toml\'s line and column, in the house style', () => {
    const text = 'a = 1\nb = [1,\n2';
    const d = parseToml(text, 'c.toml', new LineIndex(text)).diagnostics[0]!;
    expect(d).toMatchObject({ code: 'codex/toml-syntax', severity: 'error', pointer: '', span: { start: { line: 3, column: 2 } } });
    expect(d.message).toMatch(/^invalid TOML: [a-z]/);
    expect(d.message).not.toMatch(/\.$/);
  });

  it('finds every key of any document smol-toml writes', () => {
    const key = fc.oneof(fc.constantFrom('hooks', 'Stop', 'matcher', 'a.b', 'x y', "it's", 'q"q', '', '0'), fc.string({ maxLength: 6 }));
    const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constantFrom('multi\nline', "'", '"""'));
    const { tree } = fc.letrec((tie) => ({
      tree: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, leaf, tie('tree'), fc.array(tie('tree'), { maxLength: 3 }), fc.array(leaf, { maxLength: 3 })), { maxKeys: 4 }),
    }));
    fc.assert(
      fc.property(tree, (doc) => {
        let text: string;
        try {
          text = stringify(doc);
        } catch {
          return;
        }
        const lines = new LineIndex(text);
        const parsed = parseToml(text, 'c.toml', lines);
        expect(parsed.diagnostics).toEqual([]);
        const check = (node: ValueNode, name?: string) => {
          if (name !== undefined && !node.props && !node.items) expect(node.keySpan, `key \`${name}\``).toBeDefined();
          if (name !== undefined && node.keySpan) {
            const written = text.slice(node.keySpan.start.offset, node.keySpan.end.offset);
            expect(written.includes(name) || written.includes(JSON.stringify(name).slice(1, -1)) || /["']/.test(written)).toBe(true);
          }
          for (const p of node.props ?? []) check(p.node, p.key);
          for (const i of node.items ?? []) check(i);
        };
        check(parsed.root!);
      }),
      { numRuns: 300 },
    );
  });
});
