import { describe, expect, it } from 'vitest';
import { scriptIsHarmless, scriptShellCommands } from './scripts.js';

describe('sed scripts', () => {
  it('reads printing, deleting and substituting scripts as harmless', () => {
    for (const s of ['1,5p', '10,20p', '$p', '$=', '/start/,/end/p', 's/a/b/', 's/a/b/g', 's|/usr|/opt|g', 's/x/y/2p', '/^$/d',
      '1!G;h;$!d', '0,/re/s//x/', 'y/abc/xyz/', '/x/{s/a/b/;p}', '1~3p', '5,+2d', '3q', 'n;d', '#n\np', ':a;N;$!ba;s/\\n/ /g',
      's/\\//_/g', 'a\\\nmore text', '1i header', '$a footer', 'r other.txt', '/x/Id', 's/a/b/I', '', '  p  ', 'l 40', 's/a\\/b/c/'])
      expect(scriptIsHarmless('sed', s), s).toBe(true);
  });

  it('reads scripts that can run or write as harmful', () => {
    for (const s of ['1e rm -rf /', 'e', 's/x/rm -rf \\//e', 'w out.txt', '1w ~/.bashrc', 's/a/b/w /tmp/x', 'W out', '$!N;w x',
      '/x/{w y\n}', 's/a/b/gw f', 'p;e date', 'q;s/x/y/e', 'Z', 's/a/b', 's/a/b/k', 'y/ab/c', '/unterminated', 'p x'])
      expect(scriptIsHarmless('sed', s), s).toBe(false);
  });
});

describe('awk programs', () => {
  it('reads programs that only print to the standard output as harmless', () => {
    for (const s of ['{print $1}', 'NR>1', '$3 > 100 {print}', '{s += $1} END {print s}', 'BEGIN{FS=":"} {print $1}',
      '{if ($1 > 2) print $2}', '{print "a > b"}', '/x/{n++} END{printf "%d\\n", n}', '{ x = $1 > 2; print x }', 'length > 72'])
      expect(scriptIsHarmless('awk', s), s).toBe(true);
  });

  it('reads programs that run commands or write files as harmful', () => {
    for (const s of ['{system("rm -rf /")}', 'BEGIN{system ("x")}', '{print | "sh"}', '{"date" | getline d}', '{print > "out"}',
      '{print $1 >> "/tmp/x"}', '{printf("%s", $0) > "f"}', '@load "filefuncs"', '@include "x.awk"', 'BEGIN{cmd="x"; cmd |& getline}',
      '$1 > 0 || $2 > 0', '{print "unterminated}'])
      expect(scriptIsHarmless('awk', s), s).toBe(false);
  });
});

describe('the commands of less +CMD', () => {
  it('reads moving, searching and quitting as harmless', () => {
    for (const s of ['G', 'g', '10g', '50%', 'F', '+G', '/pattern', '?back', '/a!b', '/x\nG', '&filter', 'n', 'q', '', 'R'])
      expect(scriptIsHarmless('less', s), s).toBe(true);
  });

  it('reads shell commands, pipes, the editor, saving and option changes as harmful', () => {
    for (const s of ['!rm -rf /', '+!id', '#id', '|aid', 'v', 'sout.txt', '-o log', 'G!id', ':e x', 'E', '/x\n!id', 'h', 'm'])
      expect(scriptIsHarmless('less', s), s).toBe(false);
  });

  it('gives the shell commands it runs', () => {
    expect(scriptShellCommands('less', '!rm -rf /')).toEqual(['rm -rf /']);
    expect(scriptShellCommands('less', '++!rm -rf /')).toEqual(['rm -rf /']);
    expect(scriptShellCommands('less', 'G!date\n#id')).toEqual(['date', 'id']);
    expect(scriptShellCommands('less', '|aid')).toEqual(['id']);
    expect(scriptShellCommands('less', '/a!b')).toEqual([]);
    // after a command the reader does not know, any `!` may start one
    expect(scriptShellCommands('less', ':x!id')).toEqual(['id']);
    expect(scriptShellCommands('sed', '1e id')).toEqual([]);
  });
});
