import { describe, expect, it } from 'vitest';
import { analyzeCommand, checkCommandPattern, compileCommandPattern, matchCommandPart } from './index.js';

/** What a deny/ask rule sees: some part of the command matches in `any` mode. */
function hits(pattern: string, command: string): boolean {
  const p = compileCommandPattern(pattern);
  return analyzeCommand(command).parts.some((part) => matchCommandPart(p, part, 'any'));
}

/** What an allow rule needs: every part of the command is matched by one of the patterns in `allow` mode. */
function allowed(patterns: string[], command: string): boolean {
  const ps = patterns.map(compileCommandPattern);
  const parts = analyzeCommand(command).parts;
  return parts.length > 0 && parts.every((part) => ps.some((p) => matchCommandPart(p, part, 'allow')));
}

describe('checkCommandPattern', () => {
  it('accepts ordinary patterns', () => {
    for (const p of ['git push *', 'rm -rf /', 'rm -rf ~', 'npm run lint *', 'echo "a b"', 'echo \\*', 'grep a#b', "echo '#'",
      'time make', 'echo $', 'echo a=b', "printf $'a\\nb'", 'git * --force', 'cp --file=* *.txt', "echo '$HOME' '>' '&&'", '*'])
      expect(checkCommandPattern(p), p).toBeNull();
  });

  it('reports an empty pattern', () => {
    expect(checkCommandPattern('')).toEqual({ message: 'empty command pattern', offset: 0 });
    expect(checkCommandPattern('   ')).toEqual({ message: 'empty command pattern', offset: 0 });
  });

  it('reports unterminated quotes at the quote', () => {
    expect(checkCommandPattern('echo "abc')).toEqual({ message: 'unterminated double quote', offset: 5 });
    expect(checkCommandPattern("echo x 'abc")).toEqual({ message: 'unterminated single quote', offset: 7 });
    expect(checkCommandPattern("echo $'abc")).toEqual({ message: "unterminated `$'` string", offset: 5 });
  });

  it('reports command separators at the operator', () => {
    expect(checkCommandPattern('git push && rm x')).toEqual({
      message: 'a command pattern names one simple command; `&&` splits commands',
      offset: 9,
    });
    expect(checkCommandPattern('a | b')).toEqual({ message: 'a command pattern names one simple command; `|` splits commands', offset: 2 });
    expect(checkCommandPattern('a;b')?.message).toBe('a command pattern names one simple command; `;` splits commands');
    expect(checkCommandPattern('a || b')?.offset).toBe(2);
    expect(checkCommandPattern('a |& b')?.message).toContain('`|&`');
    expect(checkCommandPattern('a &')?.message).toContain('`&` splits commands');
    expect(checkCommandPattern('a\nb')?.message).toBe('a command pattern names one simple command; a newline splits commands');
  });

  it('reports subshells and substitutions', () => {
    expect(checkCommandPattern('(a)')).toEqual({ message: 'a command pattern names one simple command; `(` starts a subshell', offset: 0 });
    expect(checkCommandPattern('echo $(x)')).toEqual({
      message: 'a command pattern names one simple command; `$(` starts a command substitution',
      offset: 5,
    });
    expect(checkCommandPattern('echo `x`')?.offset).toBe(5);
    expect(checkCommandPattern('diff <(a) b')?.message).toContain('`<(` starts a process substitution');
  });

  it('reports redirections, including their fd number', () => {
    expect(checkCommandPattern('echo x > f')).toEqual({
      message: 'redirections are removed before matching, so `>` never matches; quote it to match it literally',
      offset: 7,
    });
    expect(checkCommandPattern('ls 2>/dev/null')).toEqual({
      message: 'redirections are removed before matching, so `2>` never matches; quote it to match it literally',
      offset: 3,
    });
    expect(checkCommandPattern('ls &>f')?.message).toContain('`&>`');
    expect(checkCommandPattern('cat <<EOF')?.message).toContain('`<<`');
  });

  it('reports expansions that can never match written text', () => {
    expect(checkCommandPattern('rm -rf $HOME')).toEqual({
      message: '`$HOME` is expanded when the command runs, so it never matches written text; use `*` for a computed word',
      offset: 7,
    });
    expect(checkCommandPattern('rm "${DIR}/x"')?.message).toContain('`${DIR}`');
    expect(checkCommandPattern('echo $1')?.message).toContain('`$1`');
    expect(checkCommandPattern('echo $((1+2))')?.message).toContain('`$((`');
  });

  it('reports comments, keywords, leading assignments and brace expansion', () => {
    expect(checkCommandPattern('ls #x')).toEqual({ message: '`#` starts a comment; quote it to match a literal `#`', offset: 3 });
    expect(checkCommandPattern('if true')).toEqual({ message: '`if` is a shell keyword, not a command', offset: 0 });
    expect(checkCommandPattern('FOO=1 npm test')).toEqual({
      message: 'leading assignments are removed before matching, so `FOO=1` never matches',
      offset: 0,
    });
    expect(checkCommandPattern('cp f{,.bak}')).toEqual({
      message: '`{,.bak}` is brace-expanded by the shell, so it never matches written text; quote it to match it literally',
      offset: 4,
    });
  });

  it('writes messages in lowercase without a trailing period', () => {
    for (const p of ['', '"x', 'a && b', 'a > b', 'echo $X', '# c', 'then x', 'X=1 y', '(', 'a{b,c}']) {
      const e = checkCommandPattern(p);
      expect(e, p).not.toBeNull();
      expect(e!.message[0]).toBe(e!.message[0]!.toLowerCase());
      expect(e!.message.endsWith('.')).toBe(false);
    }
  });

  it('compiles an invalid pattern to one that never matches', () => {
    const p = compileCommandPattern('a && b');
    expect(p.words).toEqual([]);
    for (const part of analyzeCommand('a && b').parts) expect(matchCommandPart(p, part, 'any')).toBe(false);
  });
});

describe('pattern words', () => {
  it('matches equal words only', () => {
    expect(hits('git status', 'git status')).toBe(true);
    expect(hits('git status', 'git status -s')).toBe(false);
    expect(hits('git status', 'git')).toBe(false);
    expect(hits('git status', 'git stash')).toBe(false);
  });

  it('lets a final * match zero or more words', () => {
    expect(hits('git push *', 'git push')).toBe(true);
    expect(hits('git push *', 'git push origin main --force')).toBe(true);
    expect(hits('git push *', 'git pull')).toBe(false);
  });

  it('lets a * elsewhere match exactly one word', () => {
    expect(hits('git * --force', 'git push --force')).toBe(true);
    expect(hits('git * --force', 'git --force')).toBe(false);
    expect(hits('git * --force', 'git push origin --force')).toBe(false);
  });

  it('globs within a word', () => {
    expect(hits('curl --data=* *', 'curl --data=abc http://x')).toBe(true);
    expect(hits('cat *.txt', 'cat notes.txt')).toBe(true);
    expect(hits('cat *.txt', 'cat notes.md')).toBe(false);
    expect(hits('cat a*b*c', 'cat a-b-b-c')).toBe(true);
    expect(hits('cat a*b*c', 'cat abc')).toBe(true);
    expect(hits('cat a*b*c', 'cat ac')).toBe(false);
    expect(hits('cat a*a', 'cat a')).toBe(false);
  });

  it('treats \\* and quoted stars as literal', () => {
    expect(hits('rm \\*', "rm '*'")).toBe(true);
    expect(hits('rm \\*', 'rm x')).toBe(false);
    expect(hits('rm "*"', 'rm \\*')).toBe(true);
    expect(hits("rm 'a*'", 'rm abc')).toBe(false);
  });

  it('groups quoted words in patterns as the shell does', () => {
    expect(hits('git commit -m "fix bug"', "git commit -m 'fix bug'")).toBe(true);
    expect(hits('git commit -m "fix bug"', 'git commit -m fix bug')).toBe(false);
  });

  it('matches dynamic words only with a bare *', () => {
    expect(hits('rm *', 'rm $X')).toBe(true);
    expect(hits('rm * x', 'rm $X x')).toBe(true);
    expect(hits('rm -rf /', 'rm -rf "$ROOT"')).toBe(false);
    expect(hits('cat *.txt', 'cat $F.txt')).toBe(false);
    expect(hits('cat $F.txt', 'cat $F.txt')).toBe(false);
  });

  it('lets * alone match any command', () => {
    expect(hits('*', 'anything at all')).toBe(true);
    expect(allowed(['*'], 'ls; rm x')).toBe(true);
    expect(allowed(['*'], 'eval x')).toBe(false);
  });

  it('compares words literally: flags are not reordered', () => {
    expect(hits('rm -rf /', 'rm -fr /')).toBe(false);
    expect(hits('rm -rf /', 'rm -r -f /')).toBe(false);
  });
});

describe('deny and ask (any mode)', () => {
  it('finds a command anywhere in the line', () => {
    for (const c of ['rm -rf /', 'sudo rm -rf /', 'cd x && rm -rf /', "bash -c 'rm -rf /'", 'echo $(rm -rf /)', 'echo `rm -rf /`',
      '(rm -rf /)', '{ rm -rf /; }', 'if x; then rm -rf /; fi', 'ls | xargs rm -rf /', 'nohup rm -rf / &', 'FOO=1 rm -rf /',
      'rm -rf / 2>/dev/null', 'sudo -u root bash -c "rm -rf /"', 'eval "rm -rf /"', 'cat <<EOF\n$(rm -rf /)\nEOF',
      'f() { rm -rf /; }', 'env -i rm -rf /', 'timeout 5 nice -n 1 rm -rf /', '/bin/rm -rf /', './rm -rf /', '/tmp/x/rm -rf /',
      "r'm' -rf /", 'rm -rf / "unterminated', 'find / -exec rm -rf / \\;'])
      expect(hits('rm -rf /', c), c).toBe(true);
  });

  it('does not match what is not run', () => {
    for (const c of ["echo 'rm -rf /'", 'echo rm -rf /', '# rm -rf /', "cat <<'EOF'\n$(rm -rf /)\nEOF", 'sudo -l rm -rf /',
      'command -v rm', 'case x in rm) ls;; esac', 'rm -rf /tmp'])
      expect(hits('rm -rf /', c), c).toBe(false);
  });

  it('matches the as-written view too', () => {
    expect(hits('sudo *', 'sudo rm x')).toBe(true);
    expect(hits('xargs *', 'find . | xargs rm')).toBe(true);
  });

  it('matches the readable words of unknowable parts', () => {
    expect(hits('eval *', 'eval "$X"')).toBe(true);
    expect(hits('bash -c *', 'bash -c "$SCRIPT"')).toBe(true);
    expect(hits('rm *', '$X rm')).toBe(false);
  });

  it('keeps quoted arguments literal', () => {
    expect(hits('git push *', 'git "push" origin')).toBe(true);
    expect(hits('git push origin main', 'git push origin "main"')).toBe(true);
  });
});

describe('allow mode', () => {
  it('requires every part to be allowed', () => {
    expect(allowed(['npm test'], 'npm test')).toBe(true);
    expect(allowed(['npm test'], 'npm test && curl x | sh')).toBe(false);
    expect(allowed(['npm test', 'curl *', 'sh'], 'npm test && curl x | sh')).toBe(true);
  });

  it('normalises system bin directories only', () => {
    expect(allowed(['git status'], '/usr/bin/git status')).toBe(true);
    expect(allowed(['git status'], '/opt/homebrew/bin/git status')).toBe(true);
    expect(allowed(['git status'], '/usr/local/bin/git status')).toBe(true);
    expect(allowed(['git status'], './git status')).toBe(false);
    expect(allowed(['git status'], '/tmp/git status')).toBe(false);
    expect(allowed(['git status'], '/usr/bin/../../tmp/git status')).toBe(false);
  });

  it('looks through neutral wrappers only', () => {
    expect(allowed(['npm test'], 'nohup npm test')).toBe(true);
    expect(allowed(['npm test'], 'timeout 60 nice -n 5 npm test')).toBe(true);
    expect(allowed(['npm test'], 'env CI=1 npm test')).toBe(true);
    expect(allowed(['git status'], 'sudo git status')).toBe(false);
    expect(allowed(['git status'], 'doas git status')).toBe(false);
    expect(allowed(['rm *'], 'ls | xargs rm')).toBe(false);
    expect(allowed(['git status'], 'nice sudo git status')).toBe(false);
    expect(allowed(['npm test'], './nohup npm test')).toBe(false);
  });

  it('allows an explicitly allowed wrapper as written', () => {
    expect(allowed(['sudo apt update'], 'sudo apt update')).toBe(true);
  });

  it('never allows unknowable parts', () => {
    expect(allowed(['eval *'], 'eval ls')).toBe(false);
    expect(allowed(['*'], '$CMD x')).toBe(false);
    expect(allowed(['bash *'], 'bash -c "$X"')).toBe(false);
    expect(allowed(['env *'], "env -S 'ls'")).toBe(false);
    expect(allowed(['echo *'], 'echo "open')).toBe(false);
  });

  it('checks substitutions as parts of their own', () => {
    expect(allowed(['echo *'], 'echo $(rm -rf /)')).toBe(false);
    expect(allowed(['echo *', 'date'], 'echo "today is $(date)"')).toBe(true);
  });

  it('checks the script of bash -c', () => {
    expect(allowed(['npm test'], "bash -c 'npm test'")).toBe(true);
    expect(allowed(['npm test'], "bash -lc 'npm test; rm x'")).toBe(false);
    expect(allowed(['npm test'], "sudo bash -c 'npm test'")).toBe(false);
    expect(allowed(['npm test'], "./bash -c 'npm test'")).toBe(false);
  });

  it('checks find -exec commands', () => {
    expect(allowed(['find *'], 'find . -name x')).toBe(true);
    expect(allowed(['find *'], 'find . -exec rm {} \\;')).toBe(false);
  });

  it('allows nothing for an empty command', () => {
    expect(allowed(['*'], '')).toBe(false);
  });
});
