/**
 * The matchers' fast paths against the general forms they stand in for: `*`-only globs against
 * the code-point automaton, path resolution against `posix.normalize`, host extraction against
 * `new URL`, and the pre-split / pre-parsed entry points against the string ones.
 */
import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePoints, nfaRunner, starPieces, tokenizeGlob, tokensToSteps } from './glob.js';
import { compilePathGlob, requiredPathKey, resolveToolPath, resolveToolPathSegments } from './path.js';
import { compileDomainGlob, compileUrlGlob, fastHostname, hostOfValue, requiredDomainKey } from './url.js';

const RUNS = { numRuns: 400 };

/** Strings over a small alphabet (with a surrogate pair and a lone surrogate) so pieces recur. */
const text = fc.array(fc.constantFrom('a', 'b', 'ab', '.', '/', '😀', '\ud83d', '\ude00', 'é', '*'), { maxLength: 8 }).map((xs) => xs.join(''));

function automaton(glob: string): (value: string) => boolean {
  const steps = tokensToSteps(tokenizeGlob(glob, { wildcards: false }).tokens);
  const run = nfaRunner(steps);
  return (value) => run(codePoints(value));
}

describe('star-only globs', () => {
  it('agree with the code-point automaton', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 2, maxLength: 4 }), text, (pieces, value) => {
        const clean = pieces.map((p) => p.replace(/\*/gu, ''));
        const fast = starPieces(clean);
        fc.pre(fast !== null);
        expect(fast!(value)).toBe(automaton(clean.join('*'))(value));
      }),
      RUNS,
    );
  });

  it('refuses pieces that begin or end inside a surrogate pair', () => {
    expect(starPieces(['\ude00x', ''])).toBeNull();
    expect(starPieces(['', 'x\ud83d'])).toBeNull();
    expect(starPieces(['a', 'b'])).not.toBeNull();
  });
});

const segment = fc.constantFrom('a', 'b', '.', '..', '', 'x.pem', '.env', 'src', '~', 'é');
const relPath = fc.array(segment, { maxLength: 6 }).map((xs) => xs.join('/'));
const anyPath = fc.oneof(relPath, relPath.map((p) => '/' + p), relPath.map((p) => '~/' + p), fc.constant('~'));
const ctx = fc.record({ cwd: relPath.map((p) => '/' + p), home: relPath.map((p) => '/' + p) });

describe('path resolution', () => {
  it('matches posix.normalize of the joined path', () => {
    fc.assert(
      fc.property(anyPath, ctx, (p, c) => {
        let joined: string;
        if (p === '~') joined = '/' + c.home;
        else if (p.startsWith('~/')) joined = '/' + c.home + p.slice(1);
        else if (p.startsWith('/')) joined = p;
        else joined = '/' + c.cwd + '/' + p;
        const normal = posix.normalize('/' + joined);
        const expected = normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
        expect(resolveToolPath(p, c)).toBe(expected);
        expect('/' + resolveToolPathSegments(p, c).join('/')).toBe(expected);
      }),
      RUNS,
    );
  });

  const glob = fc.oneof(
    fc.constantFrom('secrets/**', '**/*.pem', '.env', '/etc/**', '~/.ssh/**', 'src/*.ts', 'a/**/b', '**', 'dir/', '*.x.pem', 'a/../b', '**/a/**/b/**'),
    fc.array(fc.constantFrom('a', '*', '**', 'x.pem', '*.pem', '?', '[ab]', '..', '.'), { minLength: 1, maxLength: 4 }).map((xs) => xs.join('/')),
  );

  it('testSegments agrees with test, and a required key is present whenever a glob matches', () => {
    fc.assert(
      fc.property(glob, anyPath, ctx, (g, p, c) => {
        const m = compilePathGlob(g);
        const resolved = resolveToolPath(p, c);
        const segments = resolveToolPathSegments(p, c);
        const hit = m.test(resolved, c);
        expect(m.testSegments(segments, c)).toBe(hit);
        const key = requiredPathKey(g);
        if (hit && key !== null) {
          if (key.kind === 'segment') expect(segments).toContain(key.value);
          else expect(segments[segments.length - 1]?.endsWith(key.value)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('finds keys in common globs', () => {
    expect(requiredPathKey('secrets12/**')).toEqual({ kind: 'segment', value: 'secrets12' });
    expect(requiredPathKey('**/*.gen12')).toEqual({ kind: 'suffix', value: '.gen12' });
    expect(requiredPathKey('**/*x.min.js')).toEqual({ kind: 'suffix', value: '.min.js' });
    expect(requiredPathKey('a/../b')).toBeNull();
    expect(requiredPathKey('**/*')).toBeNull();
  });
});

const label = fc.constantFrom('a', 'B', 'x-y', '0', '12', '0x1f', 'xn--abc', 'example', 'com', '', 'ab_c', 'é');
const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((xs) => xs.join('.'));
const url = fc
  .tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', 'http:/', 'foo://'), host, fc.constantFrom('', '/', '/p?q', '#f', ':8080/', '\\x', '@h/'))
  .map(([a, b, c]) => a + b + c);

describe('host extraction', () => {
  it('fastHostname is new URL(...).hostname, lowercased, whenever it answers', () => {
    fc.assert(
      fc.property(url, (u) => {
        const fast = fastHostname(u);
        if (fast === null) return;
        expect(fast).toBe(new URL(u).hostname.toLowerCase());
      }),
      RUNS,
    );
  });

  it('answers for plain URLs', () => {
    expect(fastHostname('https://API.Site12.example/v1?q=1')).toBe('api.site12.example');
    expect(fastHostname('http://127.0.0.1/')).toBeNull();
    expect(fastHostname('http://host:8080/')).toBeNull();
  });

  it('domain globs: testHost on the normalised host agrees with test, and the key is a label suffix', () => {
    const glob = fc.constantFrom('*.example.com', 'example.com', '*', '*.a', 'a.b', 'EXAMPLE.com.', '*.0x1f');
    fc.assert(
      fc.property(glob, url, (g, u) => {
        const m = compileDomainGlob(g);
        const h = hostOfValue(u);
        const hit = m.test(u);
        expect(h !== null && m.testHost(h)).toBe(hit);
        const key = requiredDomainKey(g);
        if (hit && key !== null) expect(h === key || h!.endsWith('.' + key)).toBe(true);
      }),
      RUNS,
    );
  });

  it('url globs: testUrl on a parsed URL agrees with test', () => {
    const glob = fc.constantFrom('https://example.com/**', '*://*.a/*', 'a.b/p', 'http://x:8080/**');
    fc.assert(
      fc.property(glob, url, (g, u) => {
        const m = compileUrlGlob(g);
        let parsed: URL | null = null;
        try {
          parsed = new URL(u);
        } catch {
          parsed = null;
        }
        expect(parsed !== null && m.testUrl(parsed)).toBe(m.test(u));
      }),
      RUNS,
    );
  });
});
