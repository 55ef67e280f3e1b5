import fc from 'fast-check';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../engine/index.js';
import { placeSpan, readToml, scanToml, tomlPlaces, tomlStatements, tomlTree } from './toml.js';
import { childPointer, nodeAt } from './tree.js';

const src = (text: string) => ({ file: 'c.toml', lines: new LineIndex(text) });

// TOML documents as they are written by hand: tables and arrays of tables, dotted and quoted keys,
// strings of all four kinds, arrays and inline tables across lines, comments everywhere, LF or
// CRLF. Some are not TOML (a key defined twice, say); the property skips what smol-toml refuses.
const keySegment = fc.oneof(
  fc.constantFrom('a', 'b', 'key', 'x-y', 'x_y', '0', '12', 'true', 'inf', 'A9'),
  fc.constantFrom('"a"', '"a.b"', '"x y"', '""', '"q\\"q"', '"\\u00e9\\t"', '"#"', '"[x]"', "'lit'", "'a.b'", "''", "'say \"hi\"'", "'='", "'\\n'"),
);
const dotted = (n: number) =>
  fc.tuple(fc.array(keySegment, { minLength: 1, maxLength: n }), fc.constantFrom('.', ' . ', '.\t')).map(([segs, dot]) => segs.join(dot));
const stringBody = (pieces: string[]) => fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((p) => p.join(''));
const stringValue = fc.oneof(
  fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
  stringBody(['a', ' ', '\\"', "'", '#', '[', ']', '=', '\\\\', '\\n', '{', '\\u0041']).map((b) => `"${b}"`),
  stringBody(['a', ' ', '"', '#', '[', ']', '=', '\\', ',', '}']).map((b) => `'${b}'`),
  stringBody(['a', ' ', '"', '""', '\\"""', '#', '[x]', 'k = 1', '\\\\', '\\n', '\\\n   ', '\n', "'''"]).map((b) => `"""${b}"""`),
  stringBody(['a', ' ', '"', '\\', "'", "''", '#', '[[x]]', 'k = "v"', '\n', '"""']).map((b) => `'''${b}'''`),
  fc.constantFrom('"""\nfirst newline trimmed"""', '""""quoted""""', "''''''", '""""""', '"""ends in two quotes"""""', "'''\n'''"),
);
const scalarValue = fc.oneof(
  stringValue,
  fc.integer().map(String),
  fc.constantFrom('0x1F', '0o17', '0b101', '+7', '-0', '1_000', '1.5', '-0.0', '6.02e23', '1e-3', 'inf', '-inf', 'nan', 'true', 'false'),
  fc.constantFrom('1979-05-27T07:32:00Z', '1979-05-27 07:32:00.999-07:00', '1979-05-27', '07:32:00', '1979-05-27T07:32:00'),
);
const separator = fc.constantFrom(', ', ',', ' , ', ',\n  ', ',\n  # between elements [x]\n  ', '\n, ');
const { value: tomlValue } = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarValue,
    fc
      .tuple(fc.array(tie('value'), { maxLength: 4 }), separator, fc.constantFrom('', ',', ' ,\n'), fc.constantFrom('', '\n  ', ' # open\n  '))
      .map(([items, sep, trail, open]) => `[${open}${items.join(sep)}${items.length > 0 ? trail : ''}]`),
    fc.array(fc.tuple(dotted(2), tie('value')), { maxLength: 3 }).map((pairs) => `{${pairs.map(([k, v]) => ` ${k} = ${v}`).join(',')} }`),
  ),
}));
const comment = fc.constantFrom('', '', ' # note', '\t#[not] = "a table"', '#');
const statement = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom('', '  ', '\t'), dotted(3), fc.constantFrom(' = ', '=', ' =\t'), tomlValue, comment)
      .map(([indent, k, eq, v, c]) => `${indent}${k}${eq}${v}${c}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.boolean(),
        fc.constantFrom('t', 'arr', 'arr.sub', 'arr.inner', 't."q.k"', "'t'.u", 'arr.inner.deep'),
        fc.option(dotted(1), { nil: undefined }),
        fc.constantFrom('', ' '),
        comment,
      )
      .map(([array, head, more, pad, c]) => {
        const name = more === undefined ? head : `${head}.${more}`;
        return array ? `[[${pad}${name}${pad}]]${c}` : `[${pad}${name}${pad}]${c}`;
      }),
  },
  { weight: 1, arbitrary: fc.constantFrom('', '# a comment line', '   ', '#[[arr]]', '  # k = 1') },
);
const tomlDocument = fc
  .tuple(fc.array(statement, { maxLength: 10 }), fc.boolean(), fc.constantFrom('\n', '\r\n'))
  .map(([lines, finalNewline, eol]) => (lines.join('\n') + (finalNewline ? '\n' : '')).replace(/\n/g, eol));

/** The value at `path` (member names and array indices) of a parsed document. */
function valueAt(doc: unknown, path: (string | number)[]): unknown {
  let v = doc;
  for (const seg of path) v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[seg] : undefined;
  return v;
}

/** Every JSON pointer of a parsed document but the root's. */
function pointers(v: unknown, at = '', out: string[] = []): string[] {
  if (v === null || typeof v !== 'object' || v instanceof Date) return out;
  for (const [k, x] of Object.entries(v)) {
    const p = childPointer(at, Array.isArray(v) ? Number(k) : k);
    out.push(p);
    pointers(x, p, out);
  }
  return out;
}

describe('common toml', () => {
  it('reads integers as bigints or as numbers, as the caller asks', () => {
    const text = 'a = 5\nb = 5.0\nbig = 99999999999999999999\n';
    expect(readToml(text, src(text), { integersAsBigInt: true }).value).toEqual({ a: 5n, b: 5, big: 99999999999999999999n });
    const asNumbers = readToml(text, src(text), { integersAsBigInt: false });
    expect(asNumbers.value).toBeUndefined();
    expect(asNumbers.error).toMatchObject({ message: 'integer value cannot be represented losslessly', span: { start: { line: 3, column: 7 } } });
  });

  it('gives a syntax error in one lowercase line, at smol-toml\'s line and column', () => {
    const text = 'a = 1\nb = [1,\n2';
    const { error } = readToml(text, src(text), { integersAsBigInt: true });
    expect(error!.message).toMatch(/^[a-z][^\n]*[^.]$/);
    expect(error!.span).toMatchObject({ start: { line: 3, column: 2 } });
  });

  it('places values and keys, and builds the tree from the places', () => {
    const text = '[t]\nk = "v"\n';
    const places = tomlPlaces(text);
    expect(placeSpan(places, src(text), '/t/k', true)).toMatchObject({ start: { line: 2, column: 1 }, end: { line: 2, column: 2 } });
    expect(placeSpan(places, src(text), '/t/k')).toMatchObject({ start: { line: 2, column: 5 }, end: { line: 2, column: 8 } });
    expect(placeSpan(places, src(text), '/t/nothing')).toBeUndefined();
    const root = tomlTree(readToml(text, src(text), { integersAsBigInt: true }).value, text, src(text), places);
    expect(nodeAt(root, '/t/k')).toMatchObject({ kind: 'string', value: 'v', raw: '"v"', keySpan: { start: { line: 2 } } });
  });

  it('ends on text it did not expect', () => {
    // The scanner only ever sees text smol-toml accepted; on anything else it may give up, but it ends.
    for (const text of ['a = [', 'a = [}', 'a = {,', '[x', '"unterminated = 1', 'a = """x', "k = '''x", '[[a]]\n[a.b]\n[[a]]', 'a = {b = [1, {c = 2}]}', '= = =', ']]]']) {
      try {
        scanToml(text);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
        expect(err).not.toBeInstanceOf(TypeError);
      }
      expect(tomlPlaces(text)).toBeInstanceOf(Map);
    }
  });

  it('splits generated documents into statements whose keys and values read back as smol-toml reads them', () => {
    let read = 0;
    fc.assert(
      fc.property(tomlDocument, (text) => {
        let doc: unknown;
        try {
          doc = parse(text);
        } catch {
          return;
        }
        read++;
        const { places, statements } = scanToml(text);
        expect(tomlStatements(text)).toEqual(statements);
        let lineEnd = 0;
        for (const s of statements) {
          // Only blank lines and comments between statements; a statement's line ends after it.
          expect(text.slice(lineEnd, s.lineStart)).toMatch(/^([ \t]*(#[^\n]*)?\r?\n)*$/);
          expect(s.lineStart <= s.start && s.start < s.end && s.end <= s.lineEnd).toBe(true);
          expect(text.slice(s.end, s.lineEnd)).toMatch(/^[ \t]*(#[^\n]*)?(\r?\n)?$/);
          lineEnd = s.lineEnd;
          for (const k of s.keys) expect(Object.keys(parse(`${text.slice(k.start, k.end)} = 0`))).toEqual([k.value]);
          expect(s.path.slice(0, s.table.length)).toEqual(s.table);
          const value = valueAt(doc, s.path);
          if (s.kind === 'pair') {
            expect(s.path.slice(s.table.length)).toEqual(s.keys.map((k) => k.value));
            const written = text.slice(s.valueStart, s.valueEnd);
            expect(written.trim()).toBe(written);
            expect((parse(`v = ${written}`) as { v: unknown }).v, written).toEqual(value);
            const place = { keyStart: s.start, keyEnd: s.keys[s.keys.length - 1]!.end, start: s.valueStart, end: s.valueEnd };
            expect(places.get(s.path.reduce<string>(childPointer, ''))).toEqual(place);
          } else {
            expect(s.path.filter((x) => typeof x === 'string')).toEqual(s.keys.map((k) => k.value));
            expect(s.kind === 'array-table' ? Array.isArray(value) : value !== null && typeof value === 'object' && !Array.isArray(value), s.kind).toBe(true);
          }
        }
        expect(text.slice(lineEnd)).toMatch(/^([ \t]*(#[^\n]*)?(\r?\n|$))*$/);
        // Every value has a place.
        for (const p of pointers(doc)) expect(places.has(p), p).toBe(true);
      }),
      { numRuns: 400 },
    );
    // Most generated documents are TOML, so the property says something.
    expect(read).toBeGreaterThan(150);
  });
});
