import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  checkGlob,
  checkRegex,
  compileDomainGlob,
  compilePathGlob,
  compileRegex,
  compileToolGlob,
  compileUrlGlob,
  resolveToolPath,
  type GlobKind,
} from './index.js';

// Strings biased towards the characters that mean something to the parsers.
const special = fc.constantFrom(
  '*', '**', '?', '[', ']', '!', '^', '-', '\\', '/', '~', '.', '..', ':', '://', '@', '#', '%', '(', ')',
  '(?', '(?<', '{', '}', '|', '+', '$', 'a', 'Z', '0', ' ', '\u0000', '😀', '\ud800', 'é',
);
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.array(special, { maxLength: 24 }).map((parts) => parts.join('')));
const kinds: GlobKind[] = ['tool', 'path', 'url', 'domain'];

describe('no input makes a matcher throw', () => {
  it('globs of every kind: check, compile, test', () => {
    fc.assert(
      fc.property(text, text, text, text, (glob, value, cwd, home) => {
        for (const kind of kinds) {
          const error = checkGlob(glob, kind);
          if (error !== null) {
            expect(typeof error.message).toBe('string');
            expect(error.offset).toBeGreaterThanOrEqual(0);
            expect(error.offset).toBeLessThanOrEqual(glob.length);
          }
        }
        expect(typeof compileToolGlob(glob).test(value)).toBe('boolean');
        expect(typeof compileUrlGlob(glob).test(value)).toBe('boolean');
        expect(typeof compileDomainGlob(glob).test(value)).toBe('boolean');
        const ctx = { cwd, home };
        expect(typeof compilePathGlob(glob).test(value, ctx)).toBe('boolean');
        expect(resolveToolPath(value, ctx).startsWith('/')).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('regexes: check, compile, test', () => {
    const flags = fc.oneof(fc.constantFrom('', 'i', 'm', 's', 'ims'), fc.string({ maxLength: 4 }));
    fc.assert(
      fc.property(text, flags, text, (source, flagText, value) => {
        const error = checkRegex(source, flagText);
        if (error !== null) {
          expect(error.offset).toBeGreaterThanOrEqual(0);
          expect(error.offset).toBeLessThanOrEqual(source.length + 1 + flagText.length);
          expect(error.message).not.toMatch(/^Invalid regular expression/u);
        }
        const result = compileRegex(source, flagText).test(value);
        expect(typeof result).toBe('boolean');
        if (error !== null) expect(result).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('a path glob made of a literal absolute path matches exactly that path', () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/u).filter((s) => s !== '.' && s !== '..');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const path = '/' + segments.join('/');
        const ctx = { cwd: '/c', home: '/h' };
        expect(compilePathGlob(path).test(path, ctx)).toBe(true);
        expect(compilePathGlob(path).test(path + '/x', ctx)).toBe(false);
        expect(compilePathGlob(path + '/**').test(path + '/x', ctx)).toBe(true);
      }),
    );
  });

  it('a star-only tool glob agrees with a prefix/suffix check', () => {
    const part = fc.stringMatching(/^[a-z_]{0,5}$/u);
    fc.assert(
      fc.property(part, part, fc.stringMatching(/^[a-z_]{0,12}$/u), (prefix, suffix, name) => {
        const expected = name.length >= prefix.length + suffix.length && name.startsWith(prefix) && name.endsWith(suffix);
        expect(compileToolGlob(`${prefix}*${suffix}`).test(name)).toBe(expected);
      }),
    );
  });
});
