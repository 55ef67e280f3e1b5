import { describe, it, expect } from 'vitest';
import { LiteralScanner } from './literal-scanner.js';

describe('LiteralScanner', () => {
  it('finds overlapping literals, each index once', () => {
    const scanner = new LiteralScanner(['he', 'she', 'his', 'hers']);
    expect(scanner.findAll('ushers')).toEqual([0, 1, 3]);
    expect(scanner.findAll('he he he')).toEqual([0]);
    expect(scanner.findAll('xyz')).toEqual([]);
    expect(scanner.has('ahisb')).toBe(true);
    expect(scanner.has('hi')).toBe(false);
  });

  it('reports every index of a duplicated literal', () => {
    expect(new LiteralScanner(['ab', 'x', 'ab']).findAll('zab')).toEqual([0, 2]);
  });

  it('finds literals that are suffixes of others', () => {
    expect(new LiteralScanner(['abcd', 'bc', 'c']).findAll('abcd')).toEqual([0, 1, 2]);
    expect(new LiteralScanner(['abcd', 'bcx']).findAll('abcx')).toEqual([1]);
  });

  it('handles no literals and empty literals', () => {
    const none = new LiteralScanner([]);
    expect(none.findAll('anything')).toEqual([]);
    expect(none.has('anything')).toBe(false);
    const empty = new LiteralScanner(['', 'zz']);
    expect(empty.findAll('')).toEqual([0]);
    expect(empty.findAll('azz')).toEqual([0, 1]);
    expect(empty.has('')).toBe(true);
  });

  it('stops when the callback returns true', () => {
    const seen: number[] = [];
    new LiteralScanner(['a', 'b', 'c']).scan('abc', (i) => {
      seen.push(i);
      return true;
    });
    expect(seen).toEqual([0]);
  });

  it('compares UTF-16 code units, surrogate halves included', () => {
    const scanner = new LiteralScanner(['😀', '\ud83d', 'é', '\udc00x']);
    expect(scanner.findAll('a😀b')).toEqual([0, 1]);
    expect(scanner.findAll('\ud83d')).toEqual([1]);
    expect(scanner.findAll('e\u0301')).toEqual([]);
    expect(scanner.findAll('\ud800\udc00x')).toEqual([3]);
  });

  it('optionally compares ASCII letters without case, and only those', () => {
    const scanner = new LiteralScanner(['token', 'ÉTÉ', 'Key'], { asciiCaseInsensitive: true });
    expect(scanner.findAll('MY_TOKEN=1')).toEqual([0]);
    expect(scanner.findAll('KEY')).toEqual([2]);
    expect(scanner.findAll('été')).toEqual([]);
    expect(scanner.findAll('ÉtÉ')).toEqual([1]);
    expect(scanner.findAll('\u212aey')).toEqual([]);
    expect(new LiteralScanner(['token']).findAll('TOKEN')).toEqual([]);
  });

  it('falls back to failure links when the table would be too large, with the same results', () => {
    // 3000 literals over 6000 distinct code units: about 36 million table cells
    const literals = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + 2 * i, 0x4e01 + 2 * i, 0x41 + (i % 26)));
    const scanner = new LiteralScanner(literals);
    expect(scanner.dense).toBe(false);
    const text = `xx${literals[7]}yy${literals[2999]!.slice(0, 2)}${literals[123]}`;
    expect(scanner.findAll(text)).toEqual([7, 123]);
    expect(scanner.has('nothing here')).toBe(false);
    expect(new LiteralScanner(literals.slice(0, 10)).dense).toBe(true);
  }, 30_000);

  it('scans megabytes in linear time', () => {
    const literals = Array.from({ length: 300 }, (_, i) => 'a'.repeat(1 + (i % 40)) + 'b' + i);
    const scanner = new LiteralScanner(literals);
    const text = 'a'.repeat(4_000_000) + 'b7';
    const started = Date.now();
    expect(scanner.findAll(text)).toEqual([7]);
    expect(Date.now() - started).toBeLessThan(5000);
  }, 30_000);
});
