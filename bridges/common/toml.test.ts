import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../engine/index.js';
import { placeSpan, readToml, scanToml, tomlPlaces, tomlTree } from './toml.js';
import { nodeAt } from './tree.js';

const src = (text: string) => ({ file: 'c.toml', lines: new LineIndex(text) });

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
});
