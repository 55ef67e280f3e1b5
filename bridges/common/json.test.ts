import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../engine/index.js';
import { nestingTooDeep, readJson, type JsonLimits } from './json.js';
import { lastProp, members, prop, shadowed } from './tree.js';

const LIMITS: JsonLimits = { maxDepth: 128, depthInComments: false };
const read = (text: string, limits = LIMITS) => readJson(text, { file: 'f.json', lines: new LineIndex(text) }, limits);

describe('common json: the tree', () => {
  it('gives every value its pointer, its kind as written, its span and its key span', () => {
    const root = read('{"a": [1, 1.0, "x", true, null], "b/c": {}}').root!;
    const a = prop(root, 'a')!;
    expect(a.items!.map((n) => [n.pointer, n.kind, n.value])).toEqual([
      ['/a/0', 'integer', 1n],
      ['/a/1', 'float', 1],
      ['/a/2', 'string', 'x'],
      ['/a/3', 'boolean', true],
      ['/a/4', 'null', null],
    ]);
    expect(a.items![2]!.raw).toBe('"x"');
    expect(a.keySpan).toMatchObject({ start: { column: 2 }, end: { column: 5 } });
    expect(a.span).toMatchObject({ start: { column: 7 }, end: { column: 32 } });
    expect(prop(root, 'b/c')!.pointer).toBe('/b~1c');
  });

  it('keeps both of two equal keys: the first for serde, the last for JSON.parse, the earlier one shadowed', () => {
    const root = read('{"a": 1, "b": 2, "a": 3}').root!;
    expect(root.props!.map((p) => p.key)).toEqual(['a', 'b', 'a']);
    expect(prop(root, 'a')!.value).toBe(1n);
    expect(lastProp(root, 'a')!.value).toBe(3n);
    expect([...members(root).keys()]).toEqual(['b', 'a']);
    expect(shadowed(root).map((p) => p.node.span!.start.column)).toEqual([7]);
  });

  it('reads a byte-order mark as a space, so offsets stay those of the text', () => {
    const r = read('\uFEFF{"a": 1}');
    expect(r.bom).toBe(true);
    expect(r.source).toBe(' {"a": 1}');
    expect(prop(r.root!, 'a')!.span!.start.offset).toBe(7);
  });

  it('returns the parser\'s errors and no tree when the text is not strict JSON', () => {
    for (const text of ['', '{"a": 1,}', '// c\n{}', '{"a" 1}', '[1] [2]']) {
      const r = read(text);
      expect(r.root, text).toBeUndefined();
      expect(r.errors.length, text).toBeGreaterThan(0);
    }
  });
});

describe('common json: depth', () => {
  it('measures nesting outside strings only', () => {
    expect(nestingTooDeep('[[["[[[[["]]]', 3, true)).toBeUndefined();
    expect(nestingTooDeep('[[[[', 3, true)).toBe(3);
    expect(nestingTooDeep('{"a\\"[[[[": 1}', 2, true)).toBeUndefined();
  });

  it('skips comments unless they count', () => {
    expect(nestingTooDeep('[ // [[[[\n]', 2, false)).toBeUndefined();
    expect(nestingTooDeep('[ /* [[[[ */ ]', 2, false)).toBeUndefined();
    expect(nestingTooDeep('[ // [[[[\n]', 2, true)).toBe(6);
  });

  it('refuses deep nesting before the parser recurses', () => {
    const r = read('['.repeat(200_000) + ']'.repeat(200_000));
    expect(r).toMatchObject({ tooDeep: 128, errors: [] });
    expect(r.root).toBeUndefined();
  });
});
