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

describe("zsh's precommand modifier -", () => {
  it('is looked through, but not neutrally: in bash `- cmd` runs a program named `-`', () => {
    expect(views('- rm -rf /')).toEqual(['|neutral|- rm -rf /', '-|privileged|rm -rf /']);
    expect(views('noglob - git status')).toEqual(['|neutral|noglob - git status', 'noglob|privileged|- git status', 'noglob+-|privileged|git status']);
  });

  it('reads a -c script that starts with it, which the shell would refuse as options', () => {
    const parts = analyzeCommand("zsh -c '- rm -rf /'").parts;
    expect(parts.map((p) => p.text)).toEqual(["zsh -c '- rm -rf /'", '- rm -rf /']);
    expect(parts[1]!.views.map((v) => v.words.map((w) => w.value).join(' '))).toEqual(['- rm -rf /', 'rm -rf /']);
    // options after -c are still options
    expect(analyzeCommand("bash -c -x 'rm -rf /'").parts.map((p) => p.text)).toEqual(["bash -c -x 'rm -rf /'", 'rm -rf /']);
  });
});

describe('git', () => {
  /** The alternate views of a git command's part, as `wrappers|words` (option values that run code are parts after it). */
  function alternates(command: string): string[] {
    return analyzeCommand(command)
      .parts[0]!.views.filter((v) => v.alternate === true)
      .map((v) => `${v.wrappers.join('+')}|${v.words.map((w) => (w.dynamic ? '~' : '') + w.value).join(' ')}`);
  }

  it('sees a push of a + refspec as a push with --force', () => {
    expect(alternates('git push origin +main')).toEqual(['+refspec|git push --force origin +main']);
    expect(alternates('git -C . push -u origin +HEAD:main')).toEqual(['+refspec|git -C . push --force -u origin +HEAD:main']);
    expect(alternates('git push origin "+$B"')).toEqual(['+refspec|git push --force origin ~+$B']);
    expect(alternates('sudo git push origin +main')).toEqual(['sudo++refspec|git push --force origin +main']);
    for (const c of ['git push origin main', 'git push origin main:a+b', 'git push -o +x origin main', 'git log +x', 'git push origin $B'])
      expect(alternates(c), c).toEqual([]);
    expect(only('git push origin +main').views.every((v) => v.alternate !== true || !v.neutral)).toBe(true);
  });

  it('expands an alias set with -c, also in chains and in capitals, but never one that hides a git command', () => {
    expect(alternates('git -c alias.p=push p')).toEqual(['alias|git -c alias.p=push push']);
    expect(alternates("git -c alias.p='push --force' p origin")).toEqual(['alias|git -c alias.p=push --force push --force origin']);
    expect(alternates('git -c alias.a=b -c alias.b=push a x')).toEqual(['alias|git -c alias.a=b -c alias.b=push b x', 'alias|git -c alias.a=b -c alias.b=push push x']);
    expect(alternates('git -c Alias.P=push p')).toEqual(['alias|git -c Alias.P=push push']);
    expect(alternates(`git -c 'alias.p=push "a b"' p`)).toEqual(['alias|git -c alias.p=push "a b" push a b']);
    expect(alternates('git -c alias.p=push -c alias.p=pull p')).toEqual(['alias|git -c alias.p=push -c alias.p=pull pull']);
    expect(alternates('git -c alias.p=push p origin +main')).toEqual(['alias|git -c alias.p=push push origin +main', '+refspec|git -c alias.p=push push --force origin +main']);
    expect(alternates('git -c alias.status=push status')).toEqual([]);
    expect(alternates('git -c alias.p=push q')).toEqual([]);
  });

  it('reads a shell alias as a script with the words after it, and makes a computed alias unknowable', () => {
    const parts = analyzeCommand("git -c 'alias.x=!rm -rf' x / 'a b'").parts;
    expect(parts.map((p) => p.text)).toEqual(["git -c 'alias.x=!rm -rf' x / 'a b'", 'rm -rf', "rm -rf / 'a b'"]);
    const first = (c: string) => analyzeCommand(c).parts[0]!;
    expect(first('git -c "alias.p=$X" p').unknowable).toBe('`git` runs the alias `p`, whose value is known only when the command runs');
    expect(first('git --config-env alias.p=V p').unknowable).toBe('`git` runs the alias `p`, whose value is known only when the command runs');
    expect(first("git -c 'alias.p=push \"x' p").unknowable).toBe('`git` cannot split the alias `p`');
    expect(first('git -c "alias.p=$X" status').unknowable).toBeNull();
  });
});

describe('less +CMD', () => {
  it('reads the shell commands among its commands as scripts whose parts follow', () => {
    for (const c of ["less '+!rm -rf /' f", "less '++!rm -rf /' f", "less '+G!rm -rf /' f", "less '+#rm -rf /' f", "less '+|arm -rf /' f"]) {
      const parts = analyzeCommand(c).parts;
      expect(parts.map((p) => p.text), c).toEqual([c, 'rm -rf /']);
      expect(parts[1]!.transparent, c).toBe(true);
    }
    expect(analyzeCommand('less +G f').parts).toHaveLength(1);
    expect(analyzeCommand("less '+/!rm -rf' f").parts).toHaveLength(1);
  });
});

describe('builtins that evaluate their arguments or set variables from input', () => {
  /** The words of the parts an allow does not need, computed words prefixed with `~`. */
  const code = (c: string) =>
    analyzeCommand(c)
      .parts.filter((p) => p.transparent === true)
      .map((p) => p.words.map((w) => (w.dynamic ? '~' : '') + w.value).join(' '));
  const opaque = (c: string) => analyzeCommand(c).parts.some((p) => p.unknowable !== null);

  it("evaluates the arguments of printf's numeric conversions, as zsh's printf does", () => {
    for (const format of ['%d', '%i', '%o', '%u', '%x', '%X', '%e', '%f', '%g', "'%5.2f\\n'", "'%-3d|'", '%*s']) {
      const c = `x='a[$(rm -rf /)]'; printf ${format} "$x"`;
      expect(code(c), c).toEqual(['rm -rf /']);
    }
    expect(code("printf '%d\\n' 'a[$(rm -rf /)1]'")).toEqual(['rm -rf /']);
    expect(code("printf -v out %d 'a[$(rm -rf /)1]'")).toEqual(['rm -rf /']);
    expect(code("x='a[$(rm -rf /)]'; printf \"$fmt\" \"$x\"")).toEqual(['rm -rf /']);
  });

  it('leaves the arguments of the other conversions, and numbers, alone', () => {
    for (const c of ["x='a[$(rm -rf /)]'; printf '%s\\n' \"$x\"", "x='a[$(rm -rf /)]'; printf %c \"$x\"", "x='a[$(rm -rf /)]'; printf %q \"$x\"", "x='a[$(rm -rf /)]'; printf %b \"$x\"", 'printf %d 5', 'printf "%s %d\\n" "a[$(id)]" 3', "printf '%%d %s' 'a[$(id)]'"]) {
      expect(code(c), c).toEqual([]);
    }
    expect(opaque('printf "%s %d\\n" "$name" 3')).toBe(false);
    expect(opaque('printf $((1+2)) x')).toBe(false);
  });

  it('cycles the format over the arguments', () => {
    expect(code("printf '%s=%d\\n' a 1 'a[$(rm -rf /)1]' 2")).toEqual([]);
    expect(code("printf '%s=%d\\n' a 1 b 'a[$(rm -rf /)1]'")).toEqual(['rm -rf /']);
  });

  it('evaluates the arguments of let and the values of integer variables', () => {
    expect(code("let 'y=a[$(rm -rf /)]'")).toEqual(['rm -rf /']);
    expect(code("x='a[$(rm -rf /)]'; let 'y = x + 1'")).toEqual(['rm -rf /']);
    expect(code("declare -i n; n='a[$(rm -rf /)]'")).toEqual(['rm -rf /']);
    expect(code("typeset -i n='a[$(rm -rf /)]'")).toEqual(['rm -rf /']);
    expect(code("declare n='a[$(rm -rf /)]'")).toEqual([]);
  });

  it('sets the variables read reads from its input, and those of mapfile, getopts and printf -v', () => {
    for (const c of ['read -r line; echo $((line))', 'read; echo $((REPLY))', 'mapfile -t lines < f; echo $((lines))', 'readarray; echo $((MAPFILE))', 'getopts ab opt; echo $((OPTARG))', 'printf -v n %s "$1"; echo $((n))', 'printf -vn %s "$1"; echo $((n))']) {
      const parts = code(c);
      expect(parts, c).toHaveLength(1);
      expect(parts[0]!.startsWith('~'), c).toBe(true);
    }
    expect(code('read -r line; echo "$line"')).toEqual([]);
  });
});
