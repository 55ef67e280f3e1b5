/**
 * Path globs: the lexical API (anchoring, wildcards, checks), folded globs, drive roots, and
 * globs against searches (reaches, coversTree, filters).
 */
import { describe, it, expect } from 'vitest';
import { checkGlob, compilePathGlob, resolveToolPath, type PathContext } from './index.js';
import { compileSearchFilter, expandBraces, requiredPathKey, segmentsMayMeet, splitSearchPattern } from './path.js';
import { pathEnv, readToolPath, type PathEnv } from './path-read.js';

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
    expect(matches('../common/*', '/common/a')).toBe(true);
    expect(matches('../common/*', '/repo/common/a')).toBe(false);
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

// ---------------------------------------------------------------------------------------------
// Folded globs, drive roots, searches

const env = pathEnv('/repo', '/home/u');
const winEnv = pathEnv('C:\\repo', 'C:\\Users\\u');

/** Whether the glob matches some reading of the path (folded readings for a folded glob). */
function readsAs(glob: string, path: string, fold: boolean, e: PathEnv = env): boolean {
  const g = compilePathGlob(glob, { fold });
  const r = readToolPath(path, e);
  return (fold ? r.folded : r.all).some((segments) => g.matches(segments, e));
}

function segs(path: string, e: PathEnv = env, fold = true): readonly string[] {
  const r = readToolPath(path, e);
  return fold ? r.folded[0]! : r.all[0]!;
}

describe('folded path globs', () => {
  it('match any case of the text, exact globs only the text itself', () => {
    expect(readsAs('**/.env', '/repo/.ENV', true)).toBe(true);
    expect(readsAs('~/.ssh/**', '~/.SSH/config', true)).toBe(true);
    expect(readsAs('*.PEM', '/a/b.pem', true)).toBe(true);
    expect(readsAs('**/.env', '/repo/.ENV', false)).toBe(false);
    expect(readsAs('src/**', '/repo/SRC/x', false)).toBe(false);
  });

  it('fold character classes, negated ones too', () => {
    expect(readsAs('/x/[A-C].md', '/x/b.md', true)).toBe(true);
    expect(readsAs('/x/[!a]bc', '/x/Abc', true)).toBe(false);
    expect(readsAs('/x/[!a]bc', '/x/xbc', true)).toBe(true);
  });

  it('fold the working and home directories they are anchored at', () => {
    const mac = pathEnv('/Users/Alice/Repo', '/Users/Alice');
    expect(readsAs('src/**', '/users/alice/repo/SRC/a.ts', true, mac)).toBe(true);
    expect(readsAs('~/.aws/*', '/USERS/alice/.aws/credentials', true, mac)).toBe(true);
    expect(readsAs('src/**', '/users/alice/repo/src/a.ts', false, mac)).toBe(false);
  });

  it('match Windows spellings of the same path', () => {
    expect(readsAs('**/.env', 'C:\\repo\\.env', true)).toBe(true);
    expect(readsAs('**/.env', 'c:/repo/.ENV.', true)).toBe(true);
    expect(readsAs('**/.env', '\\\\server\\share\\app\\.env', true, winEnv)).toBe(true);
    expect(readsAs('/repo/.env', 'C:\\repo\\.env', true)).toBe(true);
    expect(readsAs('src/*.ts', 'src\\a.ts', true, winEnv)).toBe(true);
    expect(readsAs('~/.ssh/**', 'C:\\Users\\U\\.ssh\\id_rsa', true, winEnv)).toBe(true);
  });
});

describe('drive globs', () => {
  it('`C:/...` is anchored at that drive; exact globs keep the drive apart', () => {
    expect(readsAs('C:/Users/**', 'C:\\Users\\u\\x', false, winEnv)).toBe(true);
    expect(readsAs('C:/Users/**', 'D:\\Users\\u\\x', false, winEnv)).toBe(false);
    expect(readsAs('C:/Users/**', 'c:\\users\\u\\x', true, winEnv)).toBe(true);
  });

  it('a `/` glob is anchored at the working directory\'s drive on a Windows host', () => {
    expect(readsAs('/repo/**', 'C:\\repo\\x', false, winEnv)).toBe(true);
    expect(readsAs('/repo/**', 'D:\\repo\\x', false, winEnv)).toBe(false);
    // on a POSIX host a drive is not the root
    expect(compilePathGlob('/repo/**').matches(['//C:', 'repo', 'x'], env)).toBe(false);
  });

  it('`..` in a glob does not climb above a drive', () => {
    expect(readsAs('C:/../../x', 'C:\\x', false, winEnv)).toBe(true);
  });
});

describe('requiredPathKey', () => {
  it('gives folded keys, which folded readings of every match hold', () => {
    expect(requiredPathKey('**/.ENV')).toEqual({ kind: 'segment', value: '.env' });
    expect(requiredPathKey('**/*.PEM')).toEqual({ kind: 'suffix', value: '.pem' });
    expect(requiredPathKey('C:/Users/**')).toEqual({ kind: 'segment', value: 'users' });
  });
});

describe('reaches: a search of a directory', () => {
  const reaches = (glob: string, dir: string, filters: string[] = [], depth = Infinity) =>
    compilePathGlob(glob, { fold: true }).reaches(segs(dir), compileSearchFilter(filters, true), depth, env);

  it('is reached when the glob matches the directory itself (it may be a file)', () => {
    expect(reaches('**/.env', '/repo/.env')).toBe(true);
    expect(reaches('**/.env', '/repo/.env', ['*.ts'])).toBe(true);
  });

  it('unfiltered: by a glob that names a fixed place below it, or covers everything below it', () => {
    expect(reaches('~/.ssh/**', '~')).toBe(true);
    expect(reaches('~/.ssh/**', '/')).toBe(true);
    expect(reaches('~/.ssh/**', '~/.ssh')).toBe(true);
    expect(reaches('~/.ssh/**', '~/.ssh/keys')).toBe(true);
    expect(reaches('./.env', '/repo')).toBe(true);
    expect(reaches('config/*.json', '/repo')).toBe(true);
    expect(reaches('**/.ssh/**', '~/.ssh')).toBe(true);
    expect(reaches('secrets/', '/repo/a/secrets')).toBe(true);
  });

  it('unfiltered: not by a glob that finds its file at any depth below it', () => {
    expect(reaches('**/.env', '/repo')).toBe(false);
    expect(reaches('*.pem', '/repo')).toBe(false);
    expect(reaches('/repo/**/.env', '/repo')).toBe(false);
    expect(reaches('/repo/**/.env', '/')).toBe(false);
    expect(reaches('**/.ssh/**', '~')).toBe(false);
    expect(reaches('~/.ssh/**', '/repo')).toBe(false);
    expect(reaches('./.env', '/repo/src')).toBe(false);
  });

  it('a listing looks one level down', () => {
    expect(reaches('~/.ssh/**', '~', [], 1)).toBe(false);
    expect(reaches('~/.ssh/**', '~/.ssh', [], 1)).toBe(true);
    expect(reaches('./.env', '/repo', [], 1)).toBe(true);
    expect(reaches('config/*.json', '/repo', [], 1)).toBe(false);
  });

  it('filtered: when a path below it matches both the glob and the filter', () => {
    expect(reaches('**/.env', '/repo', ['.env'])).toBe(true);
    expect(reaches('**/.env', '/repo', ['**/.env'])).toBe(true);
    expect(reaches('**/.env', '/repo', ['*.env'])).toBe(true);
    expect(reaches('**/.env', '/repo', ['.ENV'])).toBe(true);
    expect(reaches('**/.env', '/repo', ['*.{ts,env}'])).toBe(true);
    expect(reaches('**/.env', '/repo', ['*.ts *.env'])).toBe(true);
    expect(reaches('**/.env', '/repo', ['[.]env'])).toBe(true);
    expect(reaches('**/*.pem', '/repo', ['key*'])).toBe(true);
    expect(reaches('~/.ssh/**', '~', ['id_*'])).toBe(true);
  });

  it('filtered: not when the filter cannot select a path the glob matches', () => {
    expect(reaches('**/.env', '/repo/src', ['*.ts'])).toBe(false);
    expect(reaches('**/.env', '/repo', ['*.{ts,tsx}'])).toBe(false);
    expect(reaches('**/.env', '/repo', ['/.env/x'])).toBe(false);
    expect(reaches('**/*.pem', '/repo', ['*.[tj]s'])).toBe(false);
    expect(reaches('~/.ssh/**', '/repo', ['*'])).toBe(false);
  });

  it('a filter that selects every file is no filter', () => {
    for (const f of ['*', '**', '**/*', '!*.md', '{*,x}']) expect(compileSearchFilter([f], true), f).toBeNull();
    expect(reaches('**/.env', '/repo', ['*'])).toBe(false);
    expect(reaches('~/.ssh/**', '~', ['**/*'])).toBe(true);
    expect(compileSearchFilter(['*.*'], true)).not.toBeNull();
  });
});

describe('coversTree: an allow of a search', () => {
  const covers = (glob: string, dir: string) => compilePathGlob(glob).coversTree(segs(dir, env, false), env);

  it('needs the directory and everything below it', () => {
    expect(covers('src/', '/repo/src')).toBe(true);
    expect(covers('src/', '/repo/src/deep')).toBe(true);
    expect(covers('**', '/repo')).toBe(true);
    expect(covers('src/**', '/repo/src')).toBe(false);
    expect(covers('src/**', '/repo/src/a')).toBe(true);
    expect(covers('src/*.ts', '/repo/src')).toBe(false);
    expect(covers('**', '/')).toBe(false);
  });
});

describe('search filters and patterns', () => {
  it('expands braces, nested and escaped, up to a limit', () => {
    expect(expandBraces('*.{ts,tsx}')).toEqual(['*.ts', '*.tsx']);
    expect(expandBraces('{a,{b,c}}x')).toEqual(['ax', 'bx', 'cx']);
    expect(expandBraces('\\{a,b}')).toEqual(['\\{a,b}']);
    expect(expandBraces('{a}')).toEqual(['{a}']);
    expect(expandBraces('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')).toBeNull();
  });

  it('splits a pattern into the directories it names and the filter below them', () => {
    expect(splitSearchPattern('src/**/*.ts')).toEqual({ dir: 'src', filter: '/**/*.ts' });
    expect(splitSearchPattern('*.ts')).toEqual({ dir: null, filter: '*.ts' });
    expect(splitSearchPattern('**/*.ts')).toEqual({ dir: null, filter: '/**/*.ts' });
    expect(splitSearchPattern('/home/u/.ssh/*')).toEqual({ dir: '/home/u/.ssh', filter: '/*' });
    expect(splitSearchPattern('../../etc/*')).toEqual({ dir: '../../etc', filter: '/*' });
    expect(splitSearchPattern('docs/')).toEqual({ dir: 'docs', filter: '' });
    expect(splitSearchPattern('.env')).toEqual({ dir: null, filter: '.env' });
    expect(splitSearchPattern('/*')).toEqual({ dir: '/', filter: '/*' });
  });

  it('a segment pattern meets another when one name can match both', () => {
    const tokens = (t: string) => compileSearchFilter([`/${t}`], false)![0]![0]!.tokens;
    expect(segmentsMayMeet(tokens('.env'), tokens('*.ts'))).toBe(false);
    expect(segmentsMayMeet(tokens('*.pem'), tokens('key*'))).toBe(true);
    expect(segmentsMayMeet(tokens('[a-c]x'), tokens('[d-f]x'))).toBe(false);
    expect(segmentsMayMeet(tokens('[!a]'), tokens('a'))).toBe(false);
    expect(segmentsMayMeet(tokens('a?c'), tokens('*b*'))).toBe(true);
    expect(segmentsMayMeet(tokens('a*'), tokens('*b'))).toBe(true);
  });
});

describe('searches stay fast', () => {
  it('on long filters and deep directories', () => {
    const started = Date.now();
    const filter = compileSearchFilter(['*a'.repeat(500) + '{b,c}'], true);
    const deep = Array.from({ length: 2000 }, (_, i) => `d${i}`);
    for (const glob of ['**/a/**/b/**/*.pem', '~/.ssh/**', '**/' + 'a*'.repeat(100)]) {
      const g = compilePathGlob(glob, { fold: true });
      g.reaches(deep, filter, Infinity, env);
      g.reaches(deep, null, Infinity, env);
    }
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
