import { describe, it, expect } from 'vitest';
import { checkGlob, compilePathGlob, resolveToolPath, type PathContext } from './index.js';

const ctx: PathContext = { cwd: '/repo', home: '/home/u' };

function matches(glob: string, path: string, context: PathContext = ctx): boolean {
  return compilePathGlob(glob).test(resolveToolPath(path, context), context);
}

describe('resolveToolPath', () => {
  it('joins relative paths to cwd', () => {
    expect(resolveToolPath('src/a.ts', ctx)).toBe('/repo/src/a.ts');
    expect(resolveToolPath('', ctx)).toBe('/repo');
  });

  it('expands ~ and ~/', () => {
    expect(resolveToolPath('~', ctx)).toBe('/home/u');
    expect(resolveToolPath('~/.ssh/id_rsa', ctx)).toBe('/home/u/.ssh/id_rsa');
    expect(resolveToolPath('~user/x', ctx)).toBe('/repo/~user/x');
  });

  it('normalises dot segments, duplicate and trailing slashes', () => {
    expect(resolveToolPath('/repo/a/../.env', ctx)).toBe('/repo/.env');
    expect(resolveToolPath('./a//b/./c/', ctx)).toBe('/repo/a/b/c');
    expect(resolveToolPath('../../../../etc/passwd', ctx)).toBe('/etc/passwd');
    expect(resolveToolPath('/', ctx)).toBe('/');
  });

  it('normalises a sloppy cwd or home', () => {
    expect(resolveToolPath('x', { cwd: '/repo/', home: '/h' })).toBe('/repo/x');
    expect(resolveToolPath('~/x', { cwd: '/', home: 'h//u/' })).toBe('/h/u/x');
  });
});

describe('path globs: anchoring', () => {
  it('a glob with no slash matches at any depth anywhere', () => {
    expect(matches('.env', '/repo/config/.env')).toBe(true);
    expect(matches('.env', '/home/u/.env')).toBe(true);
    expect(matches('.env', '/repo/.env.local')).toBe(false);
    expect(matches('.env', '/repo/x.env')).toBe(false);
  });

  it('`*.pem` matches anywhere', () => {
    expect(matches('*.pem', '/etc/ssl/private/server.pem')).toBe(true);
    expect(matches('*.pem', 'certs/a.pem')).toBe(true);
    expect(matches('*.pem', '/etc/ssl/server.pem.bak')).toBe(false);
  });

  it('`**/.env` matches at any depth, including after `..` resolution', () => {
    const m = compilePathGlob('**/.env');
    expect(m.test('/repo/config/.env', ctx)).toBe(true);
    expect(m.test(resolveToolPath('/repo/a/../.env', ctx), ctx)).toBe(true);
    expect(m.test('/.env', ctx)).toBe(true);
    expect(m.test('/repo/.envrc', ctx)).toBe(false);
  });

  it('resolves an unnormalised path given to test() too', () => {
    expect(compilePathGlob('**/.env').test('/repo/a/../.env', ctx)).toBe(true);
    expect(compilePathGlob('/repo/.env').test('/repo/a/../.env', ctx)).toBe(true);
    expect(compilePathGlob('/repo/.env').test('a/../.env', ctx)).toBe(true);
  });

  it('a glob with an inner slash is anchored at cwd', () => {
    expect(matches('src/*.ts', '/repo/src/x.ts')).toBe(true);
    expect(matches('src/*.ts', 'src/x.ts')).toBe(true);
    expect(matches('src/*.ts', '/other/src/x.ts')).toBe(false);
    expect(matches('src/*.ts', '/repo/lib/src/x.ts')).toBe(false);
  });

  it('`./x` is anchored at cwd', () => {
    expect(matches('./secrets.json', '/repo/secrets.json')).toBe(true);
    expect(matches('./secrets.json', '/repo/sub/secrets.json')).toBe(false);
  });

  it('`../x` is resolved against cwd', () => {
    expect(matches('../shared/*', '/shared/a')).toBe(true);
    expect(matches('../shared/*', '/repo/shared/a')).toBe(false);
  });

  it('an absolute glob is anchored at the root', () => {
    expect(matches('/etc/*', '/etc/passwd')).toBe(true);
    expect(matches('/etc/*', '/repo/etc/passwd')).toBe(false);
  });

  it('`~/.ssh/**` is anchored at home', () => {
    const m = compilePathGlob('~/.ssh/**');
    expect(m.test('/home/u/.ssh/id_rsa', ctx)).toBe(true);
    expect(m.test('/home/u/.ssh/keys/deploy', ctx)).toBe(true);
    expect(m.test(resolveToolPath('~/.ssh/config', ctx), ctx)).toBe(true);
    expect(m.test('/home/other/.ssh/id_rsa', ctx)).toBe(false);
    expect(m.test('/home/u/.ssh', ctx)).toBe(false);
  });

  it('follows the context: the same glob under another cwd and home', () => {
    const m = compilePathGlob('src/**');
    expect(m.test('/repo/src/a', ctx)).toBe(true);
    expect(m.test('/repo/src/a', { cwd: '/work', home: '/h' })).toBe(false);
    expect(m.test('/work/src/a', { cwd: '/work', home: '/h' })).toBe(true);
    const home = compilePathGlob('~/.aws/*');
    expect(home.test('/h/.aws/credentials', { cwd: '/work', home: '/h' })).toBe(true);
  });

  it('`~` alone is the home directory itself', () => {
    expect(matches('~', '/home/u')).toBe(true);
    expect(matches('~', '/home/u/x')).toBe(false);
    expect(matches('~/', '/home/u/x')).toBe(true);
  });

  it('cwd with glob characters is taken literally', () => {
    const context = { cwd: '/we*rd', home: '/h' };
    expect(compilePathGlob('a/b').test('/we*rd/a/b', context)).toBe(true);
    expect(compilePathGlob('a/b').test('/weXrd/a/b', context)).toBe(false);
  });
});

describe('path globs: wildcards', () => {
  it('`*` stays within one segment', () => {
    expect(matches('/a/*', '/a/b')).toBe(true);
    expect(matches('/a/*', '/a/b/c')).toBe(false);
    expect(matches('/a/*/c', '/a/b/c')).toBe(true);
  });

  it('`*` matches dotfiles', () => {
    expect(matches('/repo/*', '/repo/.git')).toBe(true);
    expect(matches('*', '/repo/.env')).toBe(true);
  });

  it('`?` matches exactly one character', () => {
    expect(matches('/x/file?.txt', '/x/file1.txt')).toBe(true);
    expect(matches('/x/file?.txt', '/x/file.txt')).toBe(false);
    expect(matches('/x/file?.txt', '/x/file12.txt')).toBe(false);
  });

  it('character classes', () => {
    expect(matches('/x/[abc].md', '/x/b.md')).toBe(true);
    expect(matches('/x/[abc].md', '/x/d.md')).toBe(false);
    expect(matches('/x/v[0-9]', '/x/v7')).toBe(true);
    expect(matches('/x/[!.]*', '/x/.hidden')).toBe(false);
    expect(matches('/x/[!.]*', '/x/visible')).toBe(true);
  });

  it('`\\` escapes wildcards', () => {
    expect(matches('/x/\\*', '/x/*')).toBe(true);
    expect(matches('/x/\\*', '/x/a')).toBe(false);
    expect(matches('/x/a\\?', '/x/a?')).toBe(true);
    expect(matches('/x/\\[a]', '/x/[a]')).toBe(true);
  });

  it('is case-sensitive', () => {
    expect(matches('*.PEM', '/a/b.pem')).toBe(false);
    expect(matches('/Repo/*', '/repo/a')).toBe(false);
  });

  it('`**` in the middle matches zero or more segments', () => {
    expect(matches('src/**/*.ts', '/repo/src/a.ts')).toBe(true);
    expect(matches('src/**/*.ts', '/repo/src/x/y/a.ts')).toBe(true);
    expect(matches('src/**/*.ts', '/repo/src/x/y/a.js')).toBe(false);
    expect(matches('/a/**/b/**/c', '/a/b/c')).toBe(true);
    expect(matches('/a/**/b/**/c', '/a/x/b/y/z/c')).toBe(true);
    expect(matches('/a/**/b/**/c', '/a/x/c')).toBe(false);
  });

  it('a trailing `/**` matches everything inside but not the directory', () => {
    expect(matches('config/**', '/repo/config/a')).toBe(true);
    expect(matches('config/**', '/repo/config/a/b/c')).toBe(true);
    expect(matches('config/**', '/repo/config')).toBe(false);
    expect(matches('config/**', '/repo/configs/a')).toBe(false);
  });

  it('a trailing `/` means the directory and everything in it', () => {
    expect(matches('node_modules/', '/repo/node_modules')).toBe(true);
    expect(matches('node_modules/', '/repo/pkg/node_modules/x/y.js')).toBe(true);
    expect(matches('node_modules/', '/repo/node_modules_old/x')).toBe(false);
    expect(matches('build/out/', '/repo/build/out/a')).toBe(true);
    expect(matches('build/out/', '/elsewhere/build/out/a')).toBe(false);
  });

  it('a plain glob does not cover the contents of a matching directory', () => {
    expect(matches('.env', '/repo/.env/x')).toBe(false);
    expect(matches('.env/', '/repo/.env/x')).toBe(true);
  });

  it('`/` alone and `**` alone', () => {
    expect(matches('/', '/anything/at/all')).toBe(true);
    expect(matches('/', '/')).toBe(true);
    expect(matches('**', '/a')).toBe(true);
    expect(matches('**', '/')).toBe(false);
  });

  it('duplicate slashes and `.` segments in the glob are ignored', () => {
    expect(matches('/a//./b', '/a/b')).toBe(true);
    expect(matches('/a/x/../b', '/a/b')).toBe(true);
  });

  it('never matches for an empty glob or non-string input', () => {
    expect(compilePathGlob('').test('/a', ctx)).toBe(false);
    expect(compilePathGlob('*').test(undefined as unknown as string, ctx)).toBe(false);
  });

  it('stays fast on star-heavy globs and deep paths', () => {
    const glob = '**/a/**/a/**/a/**/a/**/a/**/b';
    const path = '/' + Array.from({ length: 5000 }, () => 'a').join('/');
    const started = Date.now();
    expect(matches(glob, path)).toBe(false);
    expect(matches('*a*a*a*a*a*a*a*a*b', '/' + 'a'.repeat(20_000))).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('checkGlob path', () => {
  it('accepts ordinary globs', () => {
    for (const glob of ['.env', '**/.env', '~/.ssh/**', 'src/*.ts', '/etc/[a-z]*', 'build/', '\\[x\\]', '/a/**/b']) {
      expect(checkGlob(glob, 'path')).toBeNull();
    }
  });

  it('rejects an empty glob', () => {
    expect(checkGlob('', 'path')).toEqual({ message: 'empty path glob', offset: 0 });
  });

  it('rejects an unterminated class at the `[`', () => {
    const error = checkGlob('src/[ab', 'path');
    expect(error?.offset).toBe(4);
    expect(error?.message).toMatch(/^unterminated character class/u);
  });

  it('rejects a trailing lone backslash', () => {
    expect(checkGlob('a/b\\', 'path')?.offset).toBe(3);
    expect(checkGlob('a/b\\\\', 'path')).toBeNull();
  });

  it('rejects `**` glued to other characters', () => {
    const error = checkGlob('src/a**b', 'path');
    expect(error?.offset).toBe(5);
    expect(error?.message).toMatch(/^`\*\*` only has meaning as a whole path segment/u);
    expect(checkGlob('**.js', 'path')?.offset).toBe(0);
  });

  it('rejects a null character', () => {
    expect(checkGlob('a\u0000b', 'path')).toEqual({ message: 'null character in path glob', offset: 1 });
  });

  it('rejects a reversed range', () => {
    expect(checkGlob('/x/[z-a]', 'path')?.offset).toBe(4);
  });

  it('offsets account for the `/` and `~/` prefixes', () => {
    expect(checkGlob('/ab/c[', 'path')?.offset).toBe(5);
    expect(checkGlob('~/c[', 'path')?.offset).toBe(3);
  });
});
