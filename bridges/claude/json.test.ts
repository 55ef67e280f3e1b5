import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyOf, lastProp, members, nodeAt } from '../common/tree.js';
import { MAX_DEPTH, parseJson, valueOf } from './json.js';

describe('claude json: positions and pointers', () => {
  it('computes 1-based line and column from offsets', () => {
    const { doc } = parseJson('{\n  "a": 1,\n  "b": [true]\n}', 'f.json');
    expect(doc.lines.position(0)).toEqual({ line: 1, column: 1, offset: 0 });
    expect(doc.lines.position(4)).toEqual({ line: 2, column: 3, offset: 4 });
    expect(doc.lines.position(17)).toEqual({ line: 3, column: 6, offset: 17 });
    expect(doc.lines.position(999).line).toBe(4);
  });

  it('agrees with a naive line count everywhere', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\n', '\r', ' ', '{') }), fc.nat(), (text, n) => {
        const { doc } = parseJson(text, 'f');
        const off = text.length === 0 ? 0 : n % (text.length + 1);
        const before = text.slice(0, off);
        const line = before.split('\n').length;
        const column = off - (before.lastIndexOf('\n') + 1) + 1;
        expect(doc.lines.position(off)).toEqual({ line, column, offset: off });
      }),
    );
  });

  it('escapes pointer segments', () => {
    const { doc } = parseJson('{"a/b": {"c~d": [1, {"e": 2}]}}', 'f');
    const e = nodeAt(doc.root!, '/a~1b/c~0d/1/e', lastProp)!;
    expect(e.pointer).toBe('/a~1b/c~0d/1/e');
    expect(keyOf(e)).toMatchObject({ pointer: '/a~1b/c~0d/1/e', span: { start: { column: 22 } } }); // the key stands for its value
    expect(doc.root!.pointer).toBe('');
  });

  it('keeps the last of repeated keys, as JSON.parse does', () => {
    const text = '{"a": 1, "b": 2, "a": 3}';
    const { doc } = parseJson(text, 'f');
    expect([...members(doc.root!).keys()]).toEqual(['b', 'a']);
    expect(valueOf(doc.root!)).toEqual(JSON.parse(text));
    expect(valueOf(lastProp(doc.root!, 'a')!)).toBe(3);
  });

  it('gives __proto__ its own property instead of a prototype', () => {
    const v = valueOf(parseJson('{"__proto__": {"polluted": true}}', 'f').doc.root!) as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });
});

describe('claude json: strictness', () => {
  it('rejects exactly what JSON.parse rejects', () => {
    const text = fc.oneof(
      fc.json(),
      fc.string(),
      fc.tuple(fc.json(), fc.nat(), fc.constantFrom(',', '}', ']', '//', '/*', "'", '"', ':', ' ', '\t', '0', '-', 'e', '\\')).map(([j, i, ins]) => {
        const at = i % (j.length + 1);
        return j.slice(0, at) + ins + j.slice(at);
      }),
    );
    fc.assert(
      fc.property(text, (s) => {
        fc.pre(s.charCodeAt(0) !== 0xfeff);
        let ok = true;
        try {
          JSON.parse(s);
        } catch {
          ok = false;
        }
        const parsed = parseJson(s, 'f');
        expect(parsed.ok).toBe(ok);
        if (ok) expect(valueOf(parsed.doc.root!)).toEqual(JSON.parse(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts brackets in comments toward the depth (the comment is an error either way)', () => {
    const r = parseJson('{} // ' + '['.repeat(MAX_DEPTH + 1), 'f');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['claude/too-deep']);
  });

  it('refuses deep nesting before the parser recurses', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const r = parseJson(deep, 'f');
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'claude/too-deep', severity: 'error' })]);
    expect(r.diagnostics[0]!.span!.start.column).toBe(MAX_DEPTH + 1);
  });

  it('caps the syntax errors of a binary file', () => {
    const bytes = Array.from({ length: 5000 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join('');
    const r = parseJson(bytes, 'f');
    expect(r.ok).toBe(false);
    expect(r.diagnostics.length).toBeLessThanOrEqual(52);
  });

  it('notes a byte order mark and reads past it', () => {
    const r = parseJson('\uFEFF{"hooks": {}}', 'f');
    expect(r.ok).toBe(true);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'claude/byte-order-mark', severity: 'info' })]);
  });
});
