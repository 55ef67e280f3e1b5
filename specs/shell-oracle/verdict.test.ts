/**
 * Unit tests of the oracle's check (oracle.ts), without a shell: which argv the engine's words
 * account for, and when a call counts as opaque.
 */
import { describe, expect, it } from 'vitest';
import { analyzeCommand, type ShellWord } from '../../engine/index.js';
import { oracleVerdict, wordsAccountFor } from './oracle.js';

const home = { home: '/home/u' };
const lit = (value: string): ShellWord => ({ value, dynamic: false });
const dyn = (value: string): ShellWord => ({ value, dynamic: true });

describe('wordsAccountFor', () => {
  it('compares the program by basename and the other words exactly', () => {
    expect(wordsAccountFor([lit('rm'), lit('-rf'), lit('/')], ['/usr/bin/rm', '-rf', '/'], home)).toBe(true);
    expect(wordsAccountFor([lit('/bin/rm'), lit('x')], ['/usr/local/bin/rm', 'x'], home)).toBe(true);
    expect(wordsAccountFor([lit('rm'), lit('-rf'), lit('/')], ['/usr/bin/rm', '-fr', '/'], home)).toBe(false);
    expect(wordsAccountFor([lit('rm'), lit('x')], ['/usr/bin/rm', 'x', 'y'], home)).toBe(false);
    expect(wordsAccountFor([lit('rmdir'), lit('x')], ['/usr/bin/rm', 'x'], home)).toBe(false);
  });

  it('lets a dynamic word stand for any number of words, none included', () => {
    const words = [lit('rm'), dyn('$X'), lit('/')];
    expect(wordsAccountFor(words, ['rm', '/'], home)).toBe(true);
    expect(wordsAccountFor(words, ['rm', '-r', '-f', '/'], home)).toBe(true);
    expect(wordsAccountFor(words, ['rm', '-rf'], home)).toBe(false);
    expect(wordsAccountFor([dyn('$CMD'), lit('x')], ['/usr/bin/git', 'status', 'x'], home)).toBe(true);
  });

  it('lets an argument glob stand for the names it matches, never the program', () => {
    expect(wordsAccountFor([lit('rm'), lit('/*')], ['rm', '/bin', '/usr'], home)).toBe(true);
    expect(wordsAccountFor([lit('rm'), lit('*.txt')], ['rm', '*.txt'], home)).toBe(true);
    expect(wordsAccountFor([lit('rm'), lit('*.txt')], ['rm', 'a.md'], home)).toBe(false);
    expect(wordsAccountFor([lit('rm'), lit('/*')], ['rm', '/usr/bin'], home)).toBe(false);
    expect(wordsAccountFor([lit('/usr/bin/r?'), lit('x')], ['/usr/bin/rm', 'x'], home)).toBe(false);
  });

  it('expands a leading ~ to the home folder', () => {
    expect(wordsAccountFor([lit('rm'), lit('~/.bashrc')], ['rm', '/home/u/.bashrc'], home)).toBe(true);
    expect(wordsAccountFor([lit('rm'), lit('~')], ['rm', '/home/u'], home)).toBe(true);
    expect(wordsAccountFor([lit('rm'), lit('a~')], ['rm', 'a/home/u'], home)).toBe(false);
  });
});

describe('oracleVerdict', () => {
  it('accounts for a program through a view', () => {
    const verdict = oracleVerdict(analyzeCommand('nice -n 5 rm -rf /'), [['/usr/bin/rm', '-rf', '/']], home);
    expect(verdict).toEqual({ opaque: false, misses: [] });
  });

  it('reports a program no view accounts for', () => {
    const verdict = oracleVerdict(analyzeCommand('echo hi'), [['/usr/bin/rm', '-rf', '/']], home);
    expect(verdict.misses).toEqual([['/usr/bin/rm', '-rf', '/']]);
  });

  it('accepts anything from a call the engine declares opaque', () => {
    const verdict = oracleVerdict(analyzeCommand('eval "$X"'), [['/usr/bin/rm', '-rf', '/']], home);
    expect(verdict).toEqual({ opaque: true, misses: [] });
  });

  it('never counts a part that did not run as a miss', () => {
    expect(oracleVerdict(analyzeCommand('false && rm -rf /'), [], home).misses).toEqual([]);
  });
});
