import { describe, expect, it } from 'vitest';
import { analyzeCommand, MAX_SHELL_WRAPPERS, type CommandPart } from './index.js';

function only(command: string): CommandPart {
  const parts = analyzeCommand(command).parts;
  expect(parts).toHaveLength(1);
  return parts[0]!;
}

/** The views of a one-part command as `wrappers|neutral|words`. */
function views(command: string): string[] {
  return only(command).views.map(
    (v) => `${v.wrappers.join('+')}|${v.neutral ? 'neutral' : 'privileged'}|${v.words.map((w) => (w.dynamic ? '~' : '') + w.value).join(' ')}`,
  );
}

/** The words of the innermost view. */
function inner(command: string): string {
  const v = only(command).views;
  return v[v.length - 1]!.words.map((w) => w.value).join(' ');
}

describe('views', () => {
  it('has the as-written view first', () => {
    expect(views('ls -la')).toEqual(['|neutral|ls -la']);
  });

  it('strips one wrapper per view and tracks neutrality', () => {
    expect(views('sudo nice -n 5 timeout 10 rm x')).toEqual([
      '|neutral|sudo nice -n 5 timeout 10 rm x',
      'sudo|privileged|nice -n 5 timeout 10 rm x',
      'sudo+nice|privileged|timeout 10 rm x',
      'sudo+nice+timeout|privileged|rm x',
    ]);
  });

  it('stays neutral until a privileged wrapper is stripped', () => {
    expect(views('nice sudo rm')).toEqual(['|neutral|nice sudo rm', 'nice|neutral|sudo rm', 'nice+sudo|privileged|rm']);
  });

  it('recognises wrappers in system directories', () => {
    expect(views('/usr/bin/sudo rm x')).toEqual(['|neutral|/usr/bin/sudo rm x', 'sudo|privileged|rm x']);
    expect(views('/usr/bin/nohup rm x')[1]).toBe('nohup|neutral|rm x');
  });

  it('never treats a wrapper from an arbitrary path as neutral', () => {
    expect(views('./nohup rm x')[1]).toBe('nohup|privileged|rm x');
  });

  it('makes too many nested wrappers unknowable', () => {
    const part = only('nohup '.repeat(MAX_SHELL_WRAPPERS + 4) + 'rm x');
    expect(part.unknowable).toBe('too many nested wrappers');
    expect(part.views.length).toBeLessThanOrEqual(MAX_SHELL_WRAPPERS + 1);
  });

  it('makes a computed program behind a wrapper unknowable', () => {
    expect(only('sudo $X -rf /').unknowable).toBe('the program name is computed when the command runs');
  });

  it('keeps a wrapper with nothing to run as one view', () => {
    for (const c of ['sudo', 'nohup', 'env', 'env -i', 'timeout 5', 'nice -n 5', 'exec', 'stdbuf -oL']) expect(views(c)).toHaveLength(1);
  });
});

describe('sudo and doas', () => {
  it('skips sudo options and their arguments', () => {
    expect(inner('sudo -u root -g wheel -E -H rm x')).toBe('rm x');
    expect(inner('sudo -uroot -C 3 -D /tmp -h host -p pw -r role -t type -T 5 -U bob rm x')).toBe('rm x');
    expect(inner('sudo -Eu root rm x')).toBe('rm x');
  });

  it('skips long sudo options, -- and assignments', () => {
    expect(inner('sudo --user=root --preserve-env rm x')).toBe('rm x');
    expect(inner('sudo --user root -- rm x')).toBe('rm x');
    expect(inner('sudo FOO=1 BAR=2 rm x')).toBe('rm x');
  });

  it('has no inner view when sudo runs no command', () => {
    expect(views('sudo -l rm x')).toHaveLength(1);
    expect(views('sudo -e /etc/hosts')).toHaveLength(1);
    expect(views('sudo -v')).toHaveLength(1);
  });

  it('skips doas options', () => {
    expect(views('doas -n -u bob rm x')).toEqual(['|neutral|doas -n -u bob rm x', 'doas|privileged|rm x']);
    expect(views('doas -C /etc/doas.conf rm x')).toHaveLength(1);
  });
});

describe('env', () => {
  it('skips options, unsets, directories and assignments', () => {
    expect(inner('env -i FOO=1 rm x')).toBe('rm x');
    expect(inner('env -u HOME -uPATH --unset=X --unset Y rm x')).toBe('rm x');
    expect(inner('env -C /tmp --chdir=/ - -- rm x')).toBe('rm x');
    expect(views('env FOO=1 rm x')[1]).toBe('env|neutral|rm x');
  });

  it('makes env -S unknowable', () => {
    expect(only("env -S 'rm x' y").unknowable).toBe('`env -S` splits a string into a command');
    expect(only("env -vS'rm x'").unknowable).toBe('`env -S` splits a string into a command');
    expect(only("env --split-string='rm x'").unknowable).toBe('`env -S` splits a string into a command');
  });

  it('has no inner view for env alone or with only assignments', () => {
    expect(views('env FOO=1')).toHaveLength(1);
  });
});

describe('neutral wrappers', () => {
  it('reads nice', () => {
    expect(inner('nice -n 10 rm x')).toBe('rm x');
    expect(inner('nice -n10 rm x')).toBe('rm x');
    expect(inner('nice -10 rm x')).toBe('rm x');
    expect(inner('nice --adjustment=5 rm x')).toBe('rm x');
    expect(views('nice rm x')[1]).toBe('nice|neutral|rm x');
  });

  it('reads nohup', () => {
    expect(views('nohup rm x')).toEqual(['|neutral|nohup rm x', 'nohup|neutral|rm x']);
  });

  it('reads timeout and its duration', () => {
    expect(inner('timeout 5 rm x')).toBe('rm x');
    expect(inner('timeout -s KILL -k 1 5s rm x')).toBe('rm x');
    expect(inner('timeout --signal=TERM --kill-after=2 --preserve-status --foreground -v 5 rm x')).toBe('rm x');
    expect(inner('timeout --signal TERM 5 rm x')).toBe('rm x');
    expect(inner('timeout $T rm x')).toBe('rm x');
  });

  it('reads time', () => {
    expect(views('time -p rm x')).toEqual(['|neutral|time -p rm x', 'time|neutral|rm x']);
    expect(inner('/usr/bin/time -f %e -o out -a rm x')).toBe('rm x');
  });

  it('reads command, but not command -v', () => {
    expect(views('command -p rm x')).toEqual(['|neutral|command -p rm x', 'command|neutral|rm x']);
    expect(views('command -v rm')).toHaveLength(1);
    expect(views('command -V rm')).toHaveLength(1);
  });

  it('reads exec', () => {
    expect(inner('exec -a name rm x')).toBe('rm x');
    expect(inner('exec -cl rm x')).toBe('rm x');
    expect(views('exec rm x')[1]).toBe('exec|neutral|rm x');
  });

  it('reads builtin', () => {
    expect(views('builtin cd x')).toEqual(['|neutral|builtin cd x', 'builtin|neutral|cd x']);
  });

  it('reads stdbuf', () => {
    expect(inner('stdbuf -oL -e 0 --input=0 rm x')).toBe('rm x');
    expect(views('stdbuf -oL rm x')[1]).toBe('stdbuf|neutral|rm x');
  });

  it('reads ionice, but not ionice -p', () => {
    expect(inner('ionice -c 3 -n7 -t rm x')).toBe('rm x');
    expect(views('ionice -c2 rm x')[1]).toBe('ionice|neutral|rm x');
    expect(views('ionice -p 123')).toHaveLength(1);
  });

  it('reads chrt and its priority, but not chrt -p', () => {
    expect(inner('chrt -f 10 rm x')).toBe('rm x');
    expect(inner('chrt 0 rm x')).toBe('rm x');
    expect(views('chrt -b 0 rm x')[1]).toBe('chrt|neutral|rm x');
    expect(views('chrt -p 10 123')).toHaveLength(1);
  });
});

describe('xargs', () => {
  it('is not neutral', () => {
    // the words xargs reads are appended to its command: known only when it runs
    expect(views('xargs rm')).toEqual(['|neutral|xargs rm', 'xargs|privileged|rm', 'xargs|privileged|rm ~<input>']);
  });

  it('skips options with arguments', () => {
    expect(inner('xargs -I {} rm {}')).toBe('rm {}');
    expect(inner('xargs -I{} -n 1 -L 2 -P 4 -d , -E END -s 100 -a file -0 -r -t rm x')).toBe('rm x');
    expect(inner('xargs -i rm {}')).toBe('rm {}');
    expect(inner('xargs -J % rm % x')).toBe('rm % x');
    expect(inner('xargs --replace=@ rm @')).toBe('rm @');
    expect(inner('xargs --max-args=1 --max-procs 4 --null rm x')).toBe('rm x <input>');
    expect(views('xargs nice rm')).toEqual(['|neutral|xargs nice rm', 'xargs|privileged|nice rm', 'xargs|privileged|nice rm ~<input>', 'xargs+nice|privileged|rm', 'xargs+nice|privileged|rm ~<input>']);
  });

  it('runs echo when no command is given', () => {
    expect(views('xargs -0')).toEqual(['|neutral|xargs -0', 'xargs|privileged|echo']);
  });
});

describe('commands run by other commands', () => {
  it('replaces a neutrally wrapped bash -c with its script parts', () => {
    const parts = analyzeCommand('nohup bash -c "npm test"').parts;
    expect(parts.map((p) => p.text)).toEqual(['nohup bash -c "npm test"', 'npm test']);
    expect(parts.map((p) => p.transparent === true)).toEqual([true, false]);
  });

  it('keeps sudo bash -c and adds the script parts', () => {
    const parts = analyzeCommand('sudo -u root bash -lc "rm x"').parts;
    expect(parts.map((p) => p.words.map((w) => w.value).join(' '))).toEqual(['sudo -u root bash -lc rm x', 'rm x']);
  });

  it('reads the script of xargs sh -c', () => {
    const parts = analyzeCommand(`xargs sh -c 'rm "$1"' _`).parts;
    expect(parts.map((p) => p.words.map((w) => w.value).join(' '))).toEqual([`xargs sh -c rm "$1" _`, 'rm $1']);
  });

  it('adds the commands of find -exec, -execdir, -ok and -okdir', () => {
    const parts = analyzeCommand('find . -name x -exec rm -f {} + -execdir sh -c "ls y" \\; -ok mv {} z ;').parts;
    expect(parts.map((p) => p.words.map((w) => (w.dynamic ? '~' : '') + w.value).join(' '))).toEqual([
      'find . -name x -exec rm -f {} + -execdir sh -c ls y ; -ok mv {} z',
      'rm -f ~{}',
      'sh -c ls y',
      'ls y',
      'mv ~{} z',
    ]);
  });
});
