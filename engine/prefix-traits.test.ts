import { describe, expect, it } from 'vitest';
import { prefixMayMatch, prefixTraits } from './prefix-traits.js';

describe('prefixTraits', () => {
  it.each([
    // [prefix, runs, writes, reads]
    ['ls', false, false, false],
    ['echo hi', false, false, false],
    ['cat', false, false, true],
    ['git status', false, true, true], // git changes files through `rm` and `mv` anywhere in its words
    ['git', true, true, true], // `git -c alias.x=!cmd x`
    ['find', true, true, false], // `-exec`, `-delete`, `-fprint`: it names files, it reads none
    ['let', true, false, false], // `let 'a[$(cmd)]'` runs cmd
    ['printf', true, false, false], // `printf -v 'a[$(cmd)]'`
    ['sudo', true, false, true],
    ['bash', true, false, true],
    ['npm test', true, false, true], // `--script-shell`
    ['npm', true, true, true], // `npm exec`, `npm pack --pack-destination`
    ['npm exec', true, false, true],
    ['eval', true, false, true],
    ['rm', false, true, false],
    ['cp', false, true, true],
    ['$x', true, true, true],
    ['ls *.txt', true, true, true],
  ])('`%s`: runs %s, writes %s, reads %s', (prefix, runs, writes, reads) => {
    expect(prefixTraits(prefix.split(' '))).toEqual({ runs, writes, reads });
  });

  it('knows a wrapper reached through a path', () => {
    expect(prefixTraits(['/usr/bin/sudo']).runs).toBe(true);
  });
});

describe('prefixMayMatch', () => {
  it.each([
    // [prefix, pattern, may match]
    ['git status', 'git push *', false],
    ['git', 'git push *', true],
    ['git push origin', 'git push --force *', true], // options may stand anywhere
    ['git push', 'git push *', true],
    ['npm test', 'rm *', false],
    ['/bin/rm -f', 'rm *', true],
    ['ls', '* --force', true],
    ['git status', 'git *', true],
    ['npm test', 'npm t *', true], // another spelling of the subcommand
  ])('`%s` against `%s`: %s', (prefix, pattern, want) => {
    expect(prefixMayMatch(prefix.split(' '), pattern.split(' '))).toBe(want);
  });
});
