/**
 * Reading tool paths: case folding, the event's directories, POSIX and Windows readings, the
 * kernel's magic links and the paths that cannot be known.
 */
import { describe, expect, it } from 'vitest';
import { foldReading, foldSegment, pathEnv, readToolPath, renderReading, type PathReading } from './path-read.js';

const posix = pathEnv('/repo', '/home/u');
const windows = pathEnv('C:\\repo', 'C:\\Users\\u');

function texts(r: PathReading, which: 'all' | 'real' | 'folded' = 'all'): string[] {
  const list = which === 'folded' ? r.folded : which === 'real' ? r.all.slice(0, r.real) : r.all;
  return list.map(renderReading);
}

describe('foldSegment', () => {
  it('lower-cases ASCII and returns the same string when nothing changes', () => {
    expect(foldSegment('.ENV')).toBe('.env');
    const plain = 'already.lower';
    expect(foldSegment(plain)).toBe(plain);
  });

  it('folds what case-insensitive file systems treat as one letter', () => {
    expect(foldSegment('STRAẞE')).toBe(foldSegment('straße'));
    expect(foldSegment('\u212a')).toBe('k'); // KELVIN SIGN
    expect(foldSegment('\u017f')).toBe('s'); // LONG S
    expect(foldSegment('ΣΑΣ')).toBe(foldSegment('σας'));
  });

  it('puts text in NFC and drops the code points HFS+ ignores', () => {
    expect(foldSegment('cafe\u0301')).toBe(foldSegment('café'));
    expect(foldSegment('.e\u200cnv')).toBe('.env');
    expect(foldSegment('\ufeff.ssh')).toBe('.ssh');
  });
});

describe('foldReading and renderReading', () => {
  it('drops a drive root and folds each segment', () => {
    expect(foldReading(['//C:', 'Repo', '.Env'])).toEqual(['repo', '.env']);
    const same = ['repo', 'a'];
    expect(foldReading(same)).toBe(same);
  });

  it('renders POSIX, drive and UNC readings', () => {
    expect(renderReading([])).toBe('/');
    expect(renderReading(['repo', 'a'])).toBe('/repo/a');
    expect(renderReading(['//C:', 'repo'])).toBe('C:/repo');
    expect(renderReading(['//C:'])).toBe('C:/');
    expect(renderReading(['//server/share', 'x'])).toBe('//server/share/x');
  });
});

describe('pathEnv', () => {
  it('tells a Windows working directory from a POSIX one', () => {
    expect(posix.windows).toBe(false);
    expect(posix.cwdSegments).toEqual(['repo']);
    expect(windows.windows).toBe(true);
    expect(windows.cwdSegments).toEqual(['//C:', 'repo']);
    expect(windows.drive).toBe('//C:');
    expect(windows.cwdFolded).toEqual(['repo']);
    expect(windows.homeFolded).toEqual(['users', 'u']);
    expect(pathEnv('\\\\srv\\share\\w', '/h').cwdSegments).toEqual(['//srv/share', 'w']);
  });

  it('reads a missing or empty working directory as the root', () => {
    expect(pathEnv(undefined, '/h').cwdSegments).toEqual([]);
    expect(pathEnv('', '/h').cwd).toBe('/');
  });
});

describe('readToolPath: POSIX', () => {
  it('resolves relative paths, ~, dot segments and doubled slashes', () => {
    expect(texts(readToolPath('src/a.ts', posix))).toEqual(['/repo/src/a.ts']);
    expect(texts(readToolPath('~/.ssh/id_rsa', posix))).toEqual(['/home/u/.ssh/id_rsa']);
    expect(texts(readToolPath('~', posix))).toEqual(['/home/u']);
    expect(texts(readToolPath('~user/x', posix))).toEqual(['/repo/~user/x']);
    expect(texts(readToolPath('//repo//./a/../.env', posix))).toEqual(['/repo/.env']);
    expect(texts(readToolPath('../../../../etc/passwd', posix))).toEqual(['/etc/passwd']);
    expect(readToolPath('/repo/.env', posix).real).toBe(1);
  });

  it('follows /proc/<self>/root and /proc/self/cwd as the kernel does', () => {
    expect(texts(readToolPath('/proc/self/root/home/u/.ssh/config', posix), 'real')).toEqual(['/home/u/.ssh/config']);
    expect(texts(readToolPath('/proc/thread-self/root/etc/hosts', posix), 'real')).toEqual(['/etc/hosts']);
    expect(texts(readToolPath('/proc/self/task/12/root/etc/hosts', posix), 'real')).toEqual(['/etc/hosts']);
    expect(texts(readToolPath('/proc/self/cwd/.env', posix), 'real')).toEqual(['/repo/.env']);
    expect(texts(readToolPath('/proc/self/cwd/../x', posix), 'real')).toEqual(['/x']);
    // the root's parent is the root: `..` applies after the link is followed, not lexically
    expect(texts(readToolPath('/proc/self/root/../../etc/shadow', posix), 'real')).toEqual(['/etc/shadow']);
    expect(texts(readToolPath('/proc/self/root/proc/self/root/x', posix), 'real')).toEqual(['/x']);
  });

  it('keeps the written path too: a deny reading, and a real one for another process', () => {
    const self = readToolPath('/proc/self/root/etc/hosts', posix);
    expect(texts(self)).toEqual(['/etc/hosts', '/proc/self/root/etc/hosts']);
    expect(self.real).toBe(1);
    const other = readToolPath('/proc/4242/root/etc/hosts', posix);
    expect(texts(other)).toEqual(['/etc/hosts', '/proc/4242/root/etc/hosts']);
    expect(other.real).toBe(2);
  });

  it('makes open file descriptors and other processes\' directories opaque', () => {
    for (const p of ['/dev/fd/3', '/proc/self/fd/3', '/proc/thread-self/fd/9', '/proc/77/fd/1', '/proc/77/cwd/x', '/proc/self/exe', '/proc/self/map_files/1-2', 'a\u0000b']) {
      expect(readToolPath(p, posix).opaque, p).toBe(true);
    }
    // the standard streams are not files a policy names
    for (const p of ['/dev/fd', '/dev/fd/2', '/proc/self/fd/1', '/dev/stdin', '/dev/stderr', '/proc/self', '/proc/self/environ', '/proc/cpuinfo', '/dev/null']) {
      expect(readToolPath(p, posix).opaque, p).toBe(false);
    }
  });

  it('adds the Windows reading of a segment Windows reads otherwise, for deny only', () => {
    const dot = readToolPath('/repo/.env.', posix);
    expect(texts(dot)).toEqual(['/repo/.env.', '/repo/.env']);
    expect(dot.real).toBe(1);
    expect(texts(readToolPath('/repo/.env::$DATA', posix))).toEqual(['/repo/.env::$DATA', '/repo/.env']);
  });
});

describe('readToolPath: Windows', () => {
  it('reads drive paths with either separator, beside the POSIX reading on a POSIX host', () => {
    const r = readToolPath('C:\\repo\\.env', posix);
    expect(texts(r)).toEqual(['/repo/C:\\repo\\.env', 'C:/repo/.env']);
    expect(r.real).toBe(2);
    expect(texts(r, 'folded')).toEqual(['/repo/c:\\repo\\.env', '/repo/.env']);
    expect(texts(readToolPath('c:/repo/.env', windows))).toEqual(['C:/repo/.env']);
  });

  it('reads relative, root-relative and ~ paths on a Windows host', () => {
    expect(texts(readToolPath('src\\..\\.env', windows))).toEqual(['C:/repo/.env']);
    expect(texts(readToolPath('\\Windows\\x', windows))).toEqual(['C:/Windows/x']);
    expect(texts(readToolPath('~\\.ssh\\id_rsa', windows))).toEqual(['C:/Users/u/.ssh/id_rsa']);
    expect(texts(readToolPath('C:.env', windows))).toEqual(['C:/repo/.env']);
    expect(texts(readToolPath('D:x', windows))).toEqual(['D:/x']);
    expect(texts(readToolPath('D:\\..\\..\\x', windows))).toEqual(['D:/x']);
  });

  it('drops streams and trailing dots and spaces as Win32 does', () => {
    expect(texts(readToolPath('C:\\repo\\.env::$DATA', windows))).toEqual(['C:/repo/.env']);
    expect(texts(readToolPath('C:\\repo\\.env:secret', windows))).toEqual(['C:/repo/.env']);
    expect(texts(readToolPath('C:\\repo\\.env. . ', windows))).toEqual(['C:/repo/.env']);
    expect(texts(readToolPath('C:\\repo\\src\\.. \\.env', windows))).toEqual(['C:/repo/.env']);
  });

  it('reads UNC and device paths', () => {
    const unc = readToolPath('\\\\Server\\Share\\x\\.env', windows);
    expect(texts(unc)).toEqual(['//server/share/x/.env', '/share/x/.env']);
    expect(unc.real).toBe(1);
    expect(texts(readToolPath('\\\\?\\C:\\repo\\.env', windows))).toEqual(['C:/repo/.env']);
    expect(texts(readToolPath('\\\\.\\c:\\repo\\.env', windows))).toEqual(['C:/repo/.env']);
    expect(texts(readToolPath('\\\\?\\UNC\\srv\\sh\\.env', windows))).toEqual(['//srv/sh/.env', '/sh/.env']);
    expect(texts(readToolPath('\\\\localhost\\c$\\repo\\.env', windows))).toEqual(['C:/repo/.env']);
    expect(texts(readToolPath('\\\\other\\C$\\repo\\.env', windows))).toEqual(['//other/c$/repo/.env', 'C:/repo/.env']);
    expect(texts(readToolPath('\\\\wsl$\\Ubuntu\\home\\u\\.ssh\\id', windows))).toEqual(['//wsl$/ubuntu/home/u/.ssh/id', '/home/u/.ssh/id']);
    expect(texts(readToolPath('\\\\srv\\share\\..\\..\\x', windows))).toEqual(['//srv/share/x', '/share/x']);
    expect(readToolPath('\\\\.\\pipe\\x', windows).opaque).toBe(true);
    expect(readToolPath('\\\\?\\GLOBALROOT\\Device\\x', windows).opaque).toBe(true);
  });

  it('reads a POSIX-looking path on a Windows host the Windows way', () => {
    expect(texts(readToolPath('/repo/.env', windows))).toEqual(['C:/repo/.env']);
    expect(readToolPath('/dev/fd/3', windows).opaque).toBe(false);
  });
});

describe('readToolPath: other names of the same place', () => {
  it('reads macOS aliases as further readings for a deny', () => {
    const etc = readToolPath('/private/etc/sudoers', posix);
    expect(texts(etc)).toEqual(['/private/etc/sudoers', '/etc/sudoers']);
    expect(etc.real).toBe(1);
    expect(texts(readToolPath('/System/Volumes/Data/Users/a/.ssh/id', posix))).toEqual(['/System/Volumes/Data/Users/a/.ssh/id', '/Users/a/.ssh/id']);
    expect(texts(readToolPath('/Volumes/Macintosh HD/private/var/x', posix))).toEqual(['/Volumes/Macintosh HD/private/var/x', '/private/var/x', '/var/x']);
    expect(texts(readToolPath('/private/other', posix))).toEqual(['/private/other']);
  });

  it('reads an MSYS drive path on a Windows host as the drive too', () => {
    expect(texts(readToolPath('/c/Users/u/.ssh/id_rsa', windows))).toEqual(['C:/c/Users/u/.ssh/id_rsa', 'C:/Users/u/.ssh/id_rsa']);
  });
});
