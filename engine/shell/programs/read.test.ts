import { describe, expect, it } from 'vitest';
import type { ShellWord } from '../types.js';
import { programGrammar } from './grammar.js';
import { readWords, staticPrefix, type Reading } from './read.js';

function words(...values: string[]): ShellWord[] {
  return values.map((v) => ({ value: v, dynamic: v.includes('$') }));
}

/** A reading in short: the subcommands, each option as `name` or `name=value`, and the operands. */
function read(...values: string[]): { subs: string[]; options: string[]; operands: string[]; unsure: boolean[] } {
  const w = words(...values);
  const r: Reading = readWords(programGrammar(values[0]!)!, w);
  return {
    subs: r.levels.slice(1).map((l) => l.name),
    options: r.options.map((u) => {
      const name = u.unsure ? `?${u.name}` : u.def !== null ? u.def.name : u.name;
      if (u.valueAt >= 0) return `${name}=${w.slice(u.valueAt, u.valueEnd).map((x) => x.value).join(' ')}`;
      if (u.offset >= 0) return `${name}=${w[u.at]!.value.slice(u.offset)}`;
      return name;
    }),
    operands: r.operands.map((k) => w[k]!.value),
    unsure: r.unsure,
  };
}

describe('reading words with a grammar', () => {
  it('splits bundles and reads long options and their prefixes', () => {
    expect(read('rm', '-rvf', 'x').options).toEqual(['-r', '-v', '-f']);
    expect(read('rm', '--rec', '--for', 'x')).toMatchObject({ options: ['-r', '-f'], operands: ['x'] });
    expect(read('rm', 'x', '-R', 'y').options).toEqual(['-r']);
    expect(read('rm', '--', '-rf').operands).toEqual(['-rf']);
    expect(read('rm', '-Q', 'x').options).toEqual(['-Q']);
  });

  it('reads values attached and separate, short and long', () => {
    for (const spelling of [['-ofile'], ['-o', 'file'], ['--output=file'], ['--output', 'file'], ['--out=file']])
      expect(read('sort', ...spelling, 'f').options, spelling.join(' ')).toEqual(['-o=file']);
    expect(read('sort', '-uo', 'out', 'f')).toMatchObject({ options: ['-u', '-o=out'], operands: ['f'] });
    expect(read('sed', '-i.bak', 's/a/b/', 'f')).toMatchObject({ options: ['-i=.bak'], operands: ['s/a/b/', 'f'] });
    expect(read('sed', '-i', 's/a/b/', 'f').operands).toEqual(['s/a/b/', 'f']);
    expect(read('make', '-j', '4', 'test')).toMatchObject({ options: ['-j=4'], operands: ['test'] });
    expect(read('make', '-j', 'test')).toMatchObject({ options: ['-j'], operands: ['test'] });
  });

  it('looks through global options to the subcommand', () => {
    expect(read('git', '-C', 'x', '--no-pager', '-c', 'k=v', 'push', 'origin')).toEqual({
      subs: ['push'],
      options: ['-C=x', '-P', '-c=k=v'],
      operands: ['origin'],
      unsure: [false],
    });
    expect(read('git', '--git-dir=.git', 'push').subs).toEqual(['push']);
    expect(read('git', 'log', '--grep', 'push')).toMatchObject({ subs: ['log'], options: ['--grep=push'], operands: [] });
    expect(read('git', 'stash', 'push', '-m', 'x')).toMatchObject({ subs: ['stash', 'push'], options: ['-m=x'] });
    expect(read('git', '-C', 'push', 'status').subs).toEqual(['status']);
    expect(read('npm', 'test', '--script-shell=x')).toMatchObject({ subs: ['test'], options: ['--script-shell=x'] });
    expect(read('npm', 't').subs).toEqual(['test']);
    expect(read('kubectl', 'get', 'pods', '-n', 'prod')).toMatchObject({ subs: ['get'], options: ['-n=prod'], operands: ['pods'] });
    expect(read('cargo', '+nightly', 'build', '--release')).toMatchObject({ subs: ['build'], options: ['+=nightly', '-r'] });
    expect(read('docker', '-H', 'x', 'run', 'img', '-v', 'y')).toMatchObject({ subs: ['run'], options: ['-H=x'], operands: ['img', '-v', 'y'] });
  });

  it('stops at an unknown subcommand of a program that stops at its first operand', () => {
    expect(read('git', 'frob', '-c', 'x')).toMatchObject({ subs: [], options: [], operands: ['frob', '-c', 'x'] });
  });

  it('reads options after operands only where the program does', () => {
    expect(read('ssh', 'host', '-o', 'X=y', 'ls', '-la')).toMatchObject({ options: ['-o=X=y'], operands: ['host', 'ls', '-la'] });
    expect(read('docker', 'run', 'img', '--rm')).toMatchObject({ options: [], operands: ['img', '--rm'] });
  });

  it('reads whole-word options, keywords, the + option and old-style bundles', () => {
    expect(read('find', '.', '-name', 'x', '-delete')).toMatchObject({ options: ['-name=x', '-delete'], operands: ['.'] });
    expect(read('find', '.', '-exec', 'rm', '{}', ';', '-print')).toMatchObject({ options: ['-exec=rm {}', '-print'], operands: ['.'] });
    expect(read('find', '.', '-fprintf', 'out', '%p', 'x').options).toEqual(['-fprintf=out %p']);
    expect(read('find', '.', '!', '-name', 'x').options).toEqual(['!', '-name=x']);
    expect(read('dd', 'if=a', 'of=b')).toMatchObject({ options: ['if==a', 'of==b'], operands: [] });
    expect(read('vim', '+10', 'f')).toMatchObject({ options: ['+=10'], operands: ['f'] });
    expect(read('tar', 'czf', 'a.tgz', 'dir')).toMatchObject({ options: ['-c', '-z', '-f=a.tgz'], operands: ['dir'] });
    expect(read('head', '-5', 'f').options).toEqual(['-n=5']);
    expect(read('go', 'build', '-o', 'bin', './...')).toMatchObject({ options: ['-o=bin'], operands: ['./...'] });
    expect(read('go', 'test', '--run=X', './...').options).toEqual(['-run=X']);
  });

  it('reads computed words by the text they surely start with', () => {
    expect(read('curl', '--output=$F', 'url').options).toEqual(['-o=$F']);
    expect(read('curl', '-o$F', 'url').options).toEqual(['-o=$F']);
    expect(read('rm', '$FLAGS', 'x')).toMatchObject({ options: [], operands: ['$FLAGS', 'x'], unsure: [true, false] });
    expect(read('rm', 'dir/$X')).toMatchObject({ operands: ['dir/$X'], unsure: [false] });
    expect(read('rm', '-$X', 'x').options).toEqual(['?']);
    expect(read('git', '$CMD', 'x')).toMatchObject({ subs: [], operands: ['$CMD', 'x'], unsure: [true, false] });
    expect(read('git', 'push$X')).toMatchObject({ subs: [], unsure: [true] });
    // the `{}` of find -exec, a computed path that starts with a starting point
    const found = readWords(programGrammar('rg')!, [{ value: 'rg', dynamic: false }, { value: 'foo', dynamic: false }, { value: '{}', dynamic: true }]);
    expect(found.unsure).toEqual([false, false]);
  });

  it('marks an ambiguous abbreviation with what it may stand for', () => {
    const r = readWords(programGrammar('git')!, words('git', 'push', '--forc'));
    expect(r.options[0]!.unsure).toBe(true);
    expect(r.options[0]!.candidates!.map((d) => d.name).sort()).toEqual(['--force-if-includes', '--force-with-lease', '-f']);
  });

  it('knows the static prefix of a computed word', () => {
    expect(staticPrefix('--output=$F')).toBe('--output=');
    expect(staticPrefix('$X')).toBe('');
    expect(staticPrefix('a`b`')).toBe('a');
    expect(staticPrefix('-{r,f}')).toBe('-');
    expect(staticPrefix('<(x)')).toBe('');
  });
});
