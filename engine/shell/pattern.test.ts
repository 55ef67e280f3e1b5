import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../compile.js';
import { explain } from '../explain.js';
import { IR_VERSION, type PolicyIR } from '../ir.js';
import { analyzeCommand, checkCommandPattern, compileCommandPattern, matchCommandPart } from './index.js';
import {
  commandPatternOptionWarning,
  keyWord,
  optionPatternCovers,
  patternKeyWord,
  readingText,
  uncoveredWord,
  unknownPatternOptions,
  type PatternWord,
} from './pattern.js';

/** What a deny/ask rule sees: some part of the command matches in `any` mode. */
function hits(pattern: string, command: string): boolean {
  const p = compileCommandPattern(pattern);
  return analyzeCommand(command).parts.some((part) => matchCommandPart(p, part, 'any'));
}

/** What an allow rule needs: every part of the command is matched by one of the patterns in `allow` mode. */
function allowed(patterns: string[], command: string): boolean {
  const ps = patterns.map(compileCommandPattern);
  const parts = analyzeCommand(command).parts;
  // a part that runs only the parts after it (`bash -c '...'`) needs no allow of its own
  return parts.length > 0 && parts.every((part) => part.transparent === true || ps.some((p) => matchCommandPart(p, part, 'allow')));
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

  it('reads a computed word at its worst for deny and ask: it may hold any text', () => {
    expect(hits('rm *', 'rm $X')).toBe(true);
    expect(hits('rm * x', 'rm $X x')).toBe(true);
    expect(hits('rm -rf /', 'rm -rf "$ROOT"')).toBe(true);
    expect(hits('cat *.txt', 'cat $F.txt')).toBe(true);
    expect(hits('frob a b', 'frob $X b')).toBe(true);
    expect(hits('frob a b', 'frob $X c')).toBe(false);
    // but never for an allow
    expect(allowed(['rm -rf /tmp/x'], 'rm -rf "$ROOT"')).toBe(false);
    expect(allowed(['cat a.txt'], 'cat $F')).toBe(false);
  });

  it('reads a computed word where an option may stand as an operand or as options', () => {
    // quoted, it is one word: an option or an operand, not both
    expect(hits('rm -rf /', 'rm "$F"')).toBe(false);
    expect(hits('rm -rf /', 'rm "$F" /')).toBe(true);
    expect(hits('git push --force *', 'git push origin "$B"')).toBe(true);
    // unquoted, it may split into both
    expect(hits('rm -rf /', 'rm $F')).toBe(true);
    // after `--` it is an operand
    expect(hits('rm -rf /', 'rm -- $F')).toBe(false);
    // where the pattern names a subcommand, it may be that subcommand
    expect(hits('git push --force *', 'git $S --force')).toBe(true);
    expect(hits('git push --force *', 'git -C . $S --force')).toBe(true);
    expect(hits('git push --force *', 'git status')).toBe(false);
  });

  it('reads a computed program word as any program for deny and ask', () => {
    expect(hits('rm -rf /', '$X -rf /')).toBe(true);
    expect(hits('rm -rf /', 'r$(:)m -rf /')).toBe(true);
    expect(hits('rm -rf /', '"$X" -rf /')).toBe(true);
    expect(hits('rm -rf /', '"$X" foo')).toBe(false);
    expect(hits('frob -x *', '"$X" -x y')).toBe(true);
    expect(hits('frob -x *', '"$X" y')).toBe(false);
    // unquoted it may hold the next words too, and alone any command at all
    expect(hits('frob -x *', '$X y')).toBe(true);
    expect(hits('rm -rf /', '$(printf "rm -rf") /')).toBe(true);
    expect(hits('git push --force *', '$X --force')).toBe(true);
    expect(hits('rm -rf /', 'rm${IFS}-rf${IFS}/')).toBe(true);
    expect(hits('anything at all', '$X')).toBe(true);
    expect(hits('anything at all', '"$X"')).toBe(false);
    expect(allowed(['*'], '$X')).toBe(false);
  });

  it('lets * alone match any command', () => {
    expect(hits('*', 'anything at all')).toBe(true);
    expect(allowed(['*'], 'ls; rm x')).toBe(true);
    expect(allowed(['*'], 'eval x')).toBe(false);
  });

  it('compares the words of a program outside the options table literally', () => {
    expect(hits('frob -rf /', 'frob -fr /')).toBe(false);
    expect(hits('frob -rf /', 'frob -r -f /')).toBe(false);
    expect(hits('frob -rf /', 'frob -rf /')).toBe(true);
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
    // `$X` may be `rm -rf` (unquoted, it may split), and quoted it may be `rm`
    expect(hits('rm *', '$X rm')).toBe(true);
    expect(hits('rm *', '"$X" rm')).toBe(true);
    expect(hits('rm -rf *', '"$X" rm')).toBe(false);
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
    expect(allowed(['npm test', 'curl *', 'grep *'], 'npm test && curl x | grep y')).toBe(true);
  });

  it('normalises system bin directories only', () => {
    expect(allowed(['git status'], '/usr/bin/git status')).toBe(true);
    expect(allowed(['git status'], '/opt/homebrew/bin/git status')).toBe(true);
    expect(allowed(['git status'], '/usr/local/bin/git status')).toBe(true);
    expect(allowed(['git status'], './git status')).toBe(false);
    expect(allowed(['git status'], '/tmp/git status')).toBe(false);
    expect(allowed(['git status'], '/usr/bin/../../tmp/git status')).toBe(false);
  });

  it('normalises repeated slashes and dot segments of a program path, but never `..`', () => {
    expect(allowed(['git status'], '/usr/bin/./git status')).toBe(true);
    expect(allowed(['git status'], '/usr/bin//git status')).toBe(true);
    expect(allowed(['git status'], '//usr//bin//git status')).toBe(true);
    expect(allowed(['git status'], '/usr/./bin/git status')).toBe(true);
    expect(allowed(['git status'], '/usr/local/../bin/git status')).toBe(false);
    expect(allowed(['git status'], '/usr/bin/../bin/git status')).toBe(false);
    expect(allowed(['git status'], 'usr/bin/git status')).toBe(false);
    expect(allowed(['git status'], './usr/bin/git status')).toBe(false);
    expect(allowed(['nohup'], '/usr/bin/./nohup')).toBe(true);
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

// ---------------------------------------------------------------------------------------------
// Option-aware patterns (programs of programs/options.json)

describe('option words of a program in the options table', () => {
  it('match every spelling that sets the options', () => {
    for (const c of ['rm -rf x', 'rm -fr x', 'rm -r -f x', 'rm -f -r x', 'rm -rvf x', 'rm -Rf x', 'rm -R -f x', 'rm --recursive --force x',
      'rm --rec --for x', 'rm --recursive -f x', 'rm x -rf', 'rm x y -r -f', 'rm -rf -- x', 'rm -r -v -f x', 'rm -rf', '/bin/rm -fr x',
      'sudo rm -fr x', 'rm -rff x'])
      expect(hits('rm -rf *', c), c).toBe(true);
  });

  it('do not match what does not set them all', () => {
    for (const c of ['rm -r x', 'rm -f x', 'rm x', 'rm -- -rf', 'rm ./-rf', 'rm -- -r -f', 'echo rm -rf x', 'rm --force x', 'rm -i -r x'])
      expect(hits('rm -rf *', c), c).toBe(false);
  });

  it('match an option with a value in any spelling of the value', () => {
    for (const c of ['curl -oout.txt u', 'curl -o out.txt u', 'curl --output=out.txt u', 'curl --output out.txt u', 'curl u -o out.txt',
      'curl -so out.txt u', 'curl --out=out.txt u'])
      expect(hits('curl -o out.txt *', c), c).toBe(true);
    for (const c of ['curl -o other u', 'curl out.txt', 'curl -O u', 'curl --output-dir out.txt u'])
      expect(hits('curl -o out.txt *', c), c).toBe(false);
    expect(hits('curl -o * *', 'curl --output=$F u')).toBe(true);
    expect(hits('curl --data=* *', 'curl --data=abc http://x')).toBe(true);
    expect(hits('curl -o *.txt *', 'curl -o a.txt u')).toBe(true);
    expect(hits('curl -o *.txt *', 'curl -o a.md u')).toBe(false);
  });

  it('read a final `*` after an option that takes a value as its value, and as more words', () => {
    expect(hits('sort -o *', 'sort -o out f g')).toBe(true);
    expect(hits('sort -o *', 'sort f')).toBe(false);
  });

  it('match the operands in order, and a closed pattern only when nothing else is set', () => {
    expect(hits('rm -rf /', 'rm -fr /')).toBe(true);
    expect(hits('rm -rf /', 'rm / -r -f')).toBe(true);
    expect(hits('rm -rf /', 'rm -rfv /')).toBe(false);
    expect(hits('rm -rf /', 'rm -rf / x')).toBe(false);
    expect(hits('rm -rf /', 'rm -rf /tmp')).toBe(false);
    expect(hits('rm -rf / *', 'rm -rfv / x')).toBe(true);
    expect(hits('rm * /', 'rm x /')).toBe(true);
    expect(hits('rm * /', 'rm -rf /')).toBe(false);
  });

  it('compare the operands of a program of paths without repeated slashes and dot segments', () => {
    for (const c of ['rm -rf //', 'rm -rf ///', 'rm -rf /.', 'rm -rf /./', 'rm -rf -- /']) expect(hits('rm -rf /', c), c).toBe(true);
    expect(hits('rm -rf /tmp/x', 'rm -rf /tmp//x')).toBe(true);
    expect(hits('rm -rf build', 'rm -rf ./build')).toBe(true);
    expect(hits('rm -rf link', 'rm -rf link/')).toBe(false);
    expect(hits('rm -rf /', 'rm -rf /..')).toBe(false);
    expect(hits('git push origin main', 'git push origin ./main')).toBe(false);
  });

  it('look through the global options of a multi-command program', () => {
    for (const c of ['git push', 'git -C . push', 'git --no-pager push', 'git -c k=v push', 'git --git-dir=.git push', 'git --git-dir .git push',
      'git -P push', 'git -C x --no-pager push origin', 'git -p push', 'git --work-tree=. push -f', 'sudo git -C x push'])
      expect(hits('git push *', c), c).toBe(true);
    for (const c of ['git log --grep push', 'git stash push', 'git -C push status', 'git pull', 'echo git push', 'git commit -m push'])
      expect(hits('git push *', c), c).toBe(false);
    expect(hits('git push', 'git --no-pager push')).toBe(true);
    expect(hits('git push', 'git push -f')).toBe(false);
    expect(hits('npm test *', 'npm --prefix x test')).toBe(true);
    expect(hits('npm test *', 'npm t')).toBe(true);
    expect(hits('kubectl delete *', 'kubectl --context prod -n x delete pod y')).toBe(true);
    expect(hits('docker run *', 'docker -H tcp://x --context c run img')).toBe(true);
    expect(hits('cargo build *', 'cargo +nightly build --release')).toBe(true);
    expect(hits('make test *', 'make -C dir test')).toBe(true);
    expect(hits('terraform apply *', 'terraform -chdir=infra apply -auto-approve')).toBe(true);
  });

  it('read subcommand options with the subcommand', () => {
    // a `+` refspec forces too: the part has a view with `--force` (wrappers.ts)
    for (const c of ['git push --force', 'git push -f origin', 'git push origin main -f', 'git -C . push --force', 'git push -fu origin', 'git push --for', 'git push origin +main'])
      expect(hits('git push --force *', c), c).toBe(true);
    for (const c of ['git push', 'git push --force-with-lease', 'git -c x=--force push'])
      expect(hits('git push --force *', c), c).toBe(false);
    for (const c of ['git reset --hard', 'git reset HEAD~1 --hard', 'git reset --har', 'git -C . reset -q --hard'])
      expect(hits('git reset --hard *', c), c).toBe(true);
  });

  it('match a `*` or glob subcommand, and the words after it, word by word', () => {
    expect(hits('git * --force', 'git push --force')).toBe(true);
    expect(hits('git * --force', 'git --force')).toBe(false);
    expect(hits('git * main', 'git push main')).toBe(true);
    expect(hits('git pu* *', 'git push x')).toBe(true);
  });

  it('match quoted option words, and every word after a quoted program name, as written', () => {
    expect(hits("rm '-rf' *", 'rm -rf x')).toBe(true);
    expect(hits("rm '-rf' *", 'rm -fr x')).toBe(false);
    expect(hits('rm \\-rf *', 'rm -r -f x')).toBe(false);
    expect(hits("'git' push *", 'git push x')).toBe(true);
    expect(hits("'git' push *", 'git -C x push')).toBe(false);
    expect(hits('rm -r* *', 'rm -rf x')).toBe(true);
    expect(hits('rm -r* *', 'rm -f -r x')).toBe(false);
    expect(hits('rm "x y"', 'rm "x y"')).toBe(true);
  });

  it('treat an option the table does not know as a flag of its own', () => {
    expect(hits('rm -Q *', 'rm -Qr x')).toBe(true);
    expect(hits('rm -Q *', 'rm -r x')).toBe(false);
    expect(hits('rm --frob *', 'rm x --frob')).toBe(true);
  });
});

describe('allow and options that run code or write files', () => {
  it('never lets a `*` cover such an option unless the pattern names it', () => {
    expect(allowed(['rg *'], "rg --pre 'sh -c x' foo")).toBe(false);
    expect(allowed(['rg *'], 'rg --pre=x foo')).toBe(false);
    expect(allowed(['rg *'], 'rg --hidden foo')).toBe(true);
    expect(allowed(['rg *'], 'rg --pre-glob *.pdf foo')).toBe(true);
    expect(allowed(['rg --pre pdftotext *'], 'rg --pre pdftotext foo')).toBe(true);
    expect(allowed(['rg --pre pdftotext *'], 'rg --pre other foo')).toBe(false);
    expect(allowed(['sort *'], 'sort --compress-program=x f')).toBe(false);
    expect(allowed(['sort *'], 'sort -o ~/.bashrc f')).toBe(false);
    expect(allowed(['sort *'], 'sort -ro ~/.bashrc f')).toBe(false);
    expect(allowed(['sort -o out.txt *'], 'sort -o out.txt f')).toBe(true);
    expect(allowed(['sort -o out.txt *'], 'sort --output=out.txt f')).toBe(true);
    expect(allowed(['sort -o out.txt *'], 'sort -o out.txt -o x f')).toBe(false);
    expect(allowed(['find *'], 'find . -delete')).toBe(false);
    expect(allowed(['find *'], 'find . -fprint ~/.bashrc')).toBe(false);
    expect(allowed(['find *'], 'find . -name "*.ts"')).toBe(true);
    expect(allowed(['git diff *'], 'git diff --output=~/.bashrc')).toBe(false);
    expect(allowed(['git diff *'], 'git diff --ext-diff')).toBe(false);
    expect(allowed(['git diff *'], 'git diff --stat HEAD~1')).toBe(true);
    expect(allowed(['npm test *'], 'npm test --script-shell=x')).toBe(false);
    expect(allowed(['npm test *'], 'npm test -- --script-shell=x')).toBe(true);
  });

  it('never lets a `*` cover a global option that runs code', () => {
    expect(allowed(['git push *'], 'git -c core.sshCommand=x push')).toBe(false);
    expect(allowed(['git status'], 'git -c core.fsmonitor=x status')).toBe(false);
    expect(allowed(['git status'], 'git --exec-path=/tmp status')).toBe(false);
    expect(allowed(['git status'], 'git --no-pager status')).toBe(true);
    expect(allowed(['git -c color.ui=never status'], 'git -c color.ui=never status')).toBe(true);
    expect(allowed(['git *'], 'git -c x=y status')).toBe(false);
    expect(allowed(['git *'], 'git status')).toBe(true);
  });

  it('still lets deny and ask fire (any mode is unchanged)', () => {
    expect(hits('rg *', 'rg --pre x foo')).toBe(true);
    expect(hits('git push *', 'git -c a=b push')).toBe(true);
  });

  it('checks operands that run or write, and scripts', () => {
    expect(allowed(['tee *'], 'tee out.log')).toBe(false);
    expect(allowed(['tee *.log'], 'tee out.log')).toBe(true);
    expect(allowed(['tee *'], 'echo x | tee')).toBe(false);
    expect(allowed(['tee', 'echo *'], 'echo x | tee')).toBe(true);
    expect(allowed(['cp *'], 'cp a b')).toBe(false);
    expect(allowed(['cp * /tmp/*'], 'cp a /tmp/b')).toBe(true);
    expect(allowed(['sed -n *'], "sed -n '1,20p' f")).toBe(true);
    expect(allowed(['sed -n *'], "sed -n '1e id' f")).toBe(false);
    expect(allowed(['sed -n *'], "sed -n 'w out' f")).toBe(false);
    expect(allowed(['sed *'], "sed --sandbox '1e id' f")).toBe(true);
    expect(allowed(['sed *'], "sed -i 's/a/b/' f")).toBe(false);
    expect(allowed(['sed *'], "sed -e 's/a/b/' -e 'w x' f")).toBe(false);
    expect(allowed(['awk *'], "awk '{print $1}' f")).toBe(true);
    expect(allowed(['awk *'], 'awk \'{system("x")}\' f')).toBe(false);
    expect(allowed(['awk *'], 'awk -f prog.awk f')).toBe(false);
    expect(allowed(['dd *'], 'dd if=a of=b')).toBe(false);
    expect(allowed(['dd if=* of=/dev/null *'], 'dd if=a of=/dev/null bs=1M')).toBe(true);
    expect(allowed(['make *'], 'make test CC=x')).toBe(false);
    expect(allowed(['make *'], 'make -j4 test')).toBe(true);
  });

  it('reads `*` alone as covering no option or operand that runs or writes', () => {
    expect(allowed(['*'], 'ls; rm x')).toBe(true);
    expect(allowed(['*'], 'rg --pre x y')).toBe(false);
  });

  it('does not let a `*` cover a computed word where a program reads such options', () => {
    expect(allowed(['rg *'], 'rg $OPT foo')).toBe(false);
    expect(allowed(['rg *'], 'rg foo -- $X')).toBe(true);
    expect(allowed(['cat *'], 'cat "$f"')).toBe(true);
    expect(allowed(['git *'], 'git $CMD')).toBe(false);
    expect(allowed(['git -C * status'], 'git -C "$REPO" status')).toBe(true);
  });

  it('checks words matched word by word the same way', () => {
    expect(allowed(["'rg' *"], 'rg --pre x y')).toBe(false);
    expect(allowed(["'rg' --pre x *"], 'rg --pre x y')).toBe(true);
    expect(allowed(['rg * y'], 'rg --pre=x y')).toBe(false);
  });
});

describe('helpers for the index, the checker and explanations', () => {
  const words = (p: string) => compileCommandPattern(p).words as readonly PatternWord[];
  const view = (c: string) => analyzeCommand(c).parts[0]!.views[0]!.words;

  it('pair a program with its subcommand after the global options, or with nothing for other table programs', () => {
    expect(patternKeyWord(words('git push *'))).toBe('push');
    expect(patternKeyWord(words('git -C * push *'))).toBe('push');
    expect(patternKeyWord(words('git *'))).toBeNull();
    expect(patternKeyWord(words('npm t *'))).toBe('test');
    expect(patternKeyWord(words('rm -rf *'))).toBeNull();
    expect(patternKeyWord(words('rm foo'))).toBeNull();
    expect(patternKeyWord(words('echo foo'))).toBe('foo');
    expect(keyWord(view('git -C x --no-pager push origin'))).toBe('push');
    expect(keyWord(view('npm test'))).toBe('test');
    expect(keyWord(view('git frob x'))).toBe('frob');
    expect(patternKeyWord(words('git frob *'))).toBe('frob');
    expect(keyWord(view('echo foo'))).toBe('foo');
  });

  it('warn about option words the program does not have', () => {
    expect(commandPatternOptionWarning('rm -Q *')).toEqual({
      message: '`rm` has no option `-Q`, so this pattern matches only commands that write `-Q` as it is',
      help: "`rm` has the options `-f`, `-r`, `-i`, `-I`, `--interactive`, `-d`, `-v`, `--one-file-system`, `--no-preserve-root`, `--preserve-root`, `--help` and `--version`; to match the word `-Q` exactly, quote it (`'-Q'`), which compares the pattern word by word",
    });
    expect(commandPatternOptionWarning('git push --forc *')).toEqual({
      message: '`--forc` abbreviates several options of `git push` (`--force`, `--force-with-lease` and `--force-if-includes`), so this pattern matches only commands that write `--forc` as it is',
      help: 'write the option in full, as `--force`',
    });
    expect(commandPatternOptionWarning('git push --frobnicate *')?.message).toBe('`git push` has no option `--frobnicate`, so this pattern matches only commands that write `--frobnicate` as it is');
    expect(commandPatternOptionWarning('git push --frobnicate *')?.help).toMatch(/^`git push` has the options `--receive-pack`, .* and [0-9]+ more; /);
    for (const p of ['rm -rf *', "rm '-Q' *", 'frob -Q', 'rm --rec *', 'git push --force *', 'a && b', 'curl -o x *'])
      expect(commandPatternOptionWarning(p), p).toBeNull();
  });

  it('name the options a pattern gives that the program does not have', () => {
    expect(unknownPatternOptions(words('rm -Q *'))?.names).toEqual(['-Q']);
    expect(unknownPatternOptions(words('git push --frobnicate *'))?.level.path).toBe('git push');
    expect(unknownPatternOptions(words('rm -rf *'))).toBeNull();
    expect(unknownPatternOptions(words('frob -Q *'))).toBeNull();
  });

  it('say which word an allow does not cover', () => {
    expect(uncoveredWord(words('rg *'), view('rg --pre x foo'))).toEqual({ word: '--pre', kind: 'option', effect: 'runs' });
    expect(uncoveredWord(words('sort *'), view('sort -ro x f'))).toEqual({ word: '-ro', kind: 'option', effect: 'writes' });
    expect(uncoveredWord(words('tee *'), view('tee out'))).toEqual({ word: 'out', kind: 'operand', effect: 'writes' });
    expect(uncoveredWord(words('rg *'), view('rg $X foo'))).toEqual({ word: '$X', kind: 'operand', effect: 'unknown' });
    expect(uncoveredWord(words('rg *'), view('rg foo'))).toBeNull();
    expect(uncoveredWord(words('ls *'), view('rg --pre x foo'))).toBeNull();
  });

  it('print how a command reads', () => {
    expect(readingText(view('rm -fr x'))).toBe('rm -f -r x');
    expect(readingText(view('git -C . --no-pager push -fu origin'))).toBe('git -C . -P push -f -u origin');
    expect(readingText(view('curl -ofile u'))).toBe('curl -o file u');
    expect(readingText(view('echo x'))).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Property: for random spellings of a set of options, the option-aware match is the match of
// the canonical option set, computed here from what was generated.

interface Spelled {
  /** The command's words. */
  words: string[];
  /** The canonical options set (`name` or `name=value`), and the operands in order. */
  options: Set<string>;
  operands: string[];
}

const pick = <T>(items: readonly T[]) => fc.constantFrom(...items);

/** rm: flags among -r -f -v -i -d, each in one of its spellings, bundled or not, around the operands. */
const RM_SPELLINGS: Record<string, string[]> = {
  r: ['-r', '-R', '--recursive', '--rec', '--recur'],
  f: ['-f', '--force', '--for'],
  v: ['-v', '--verbose', '--verb'],
  d: ['-d', '--dir'],
};

const rmCommand = fc
  .record({
    flags: fc.subarray(['r', 'f', 'v', 'd']),
    extra: fc.subarray(['r', 'f']),
    spell: fc.array(fc.nat(4), { minLength: 6, maxLength: 6 }),
    bundle: fc.boolean(),
    operands: fc.subarray(['x', 'y', '/']),
    dashes: fc.boolean(),
    order: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
  })
  .map(({ flags, extra, spell, bundle, operands, dashes, order }): Spelled => {
    const all = [...flags, ...extra.filter((f) => !flags.includes(f))];
    const tokens: string[] = [];
    if (bundle && all.length > 1) tokens.push('-' + all.join(''));
    else all.forEach((f, i) => tokens.push(RM_SPELLINGS[f]![spell[i]! % RM_SPELLINGS[f]!.length]!));
    let words: string[];
    if (dashes) {
      words = ['rm', ...tokens, '--', ...operands];
    } else {
      // rm reads options after operands: interleave them in a random order
      const items = [...tokens.map((t) => ({ t, o: false })), ...operands.map((t) => ({ t, o: true }))];
      const keyed = items.map((it, i) => ({ ...it, k: order[i] ?? 0 }));
      const opsInOrder = keyed.filter((i) => i.o);
      keyed.sort((a, b) => a.k - b.k);
      let next = 0;
      words = ['rm', ...keyed.map((i) => (i.o ? opsInOrder[next++]!.t : i.t))];
    }
    return { words, options: new Set(all.map((f) => '-' + f)), operands };
  });

const rmPattern = fc.record({
  flags: fc.subarray(['r', 'f', 'v']),
  spell: fc.array(fc.nat(4), { minLength: 3, maxLength: 3 }),
  operands: fc.subarray(['x', '/']),
  open: fc.boolean(),
});

function rmPatternText(p: { flags: string[]; spell: number[]; operands: string[]; open: boolean }): string {
  const flags = p.flags.map((f, i) => RM_SPELLINGS[f]![p.spell[i]! % RM_SPELLINGS[f]!.length]!);
  return ['rm', ...flags, ...p.operands, ...(p.open ? ['*'] : [])].join(' ');
}

function canonicalMatch(want: Set<string>, operands: string[], open: boolean, got: Spelled, ignore: (o: string) => boolean = () => false): boolean {
  for (const o of want) if (!got.options.has(o)) return false;
  if (!open) for (const o of got.options) if (!want.has(o) && !ignore(o)) return false;
  if (open ? got.operands.length < operands.length : got.operands.length !== operands.length) return false;
  return operands.every((o, i) => got.operands[i] === o);
}

/** git: global options, then push with its flags and operands. */
const GIT_GLOBALS: string[][] = [['-C', '.'], ['--no-pager'], ['-P'], ['-c', 'k=v'], ['--git-dir=.git'], ['--git-dir', '.git'], ['-p'], ['--work-tree=.']];
const GIT_PUSH: Record<string, string[]> = { f: ['-f', '--force'], u: ['-u', '--set-upstream'], n: ['-n', '--dry-run'], q: ['-q', '--quiet'] };

const gitCommand = fc
  .record({
    globals: fc.subarray(GIT_GLOBALS.map((_, i) => i)),
    sub: pick(['push', 'pull', 'status']),
    flags: fc.subarray(['f', 'u', 'n', 'q']),
    spell: fc.array(fc.nat(1), { minLength: 4, maxLength: 4 }),
    bundle: fc.boolean(),
    operands: fc.subarray(['origin', 'main']),
    before: fc.boolean(),
  })
  .map(({ globals, sub, flags, spell, bundle, operands, before }) => {
    const g = globals.flatMap((i) => GIT_GLOBALS[i]!);
    const f = bundle && flags.length > 1 ? ['-' + flags.join('')] : flags.map((x, i) => GIT_PUSH[x]![spell[i]!]!);
    const words = ['git', ...g, sub, ...(before ? [...f, ...operands] : [...operands, ...f])];
    return { sub, spelled: { words, options: new Set(flags.map((x) => '-' + x)), operands } };
  });

const gitPattern = fc.record({
  flags: fc.subarray(['f', 'u', 'n']),
  spell: fc.array(fc.nat(1), { minLength: 3, maxLength: 3 }),
  operands: fc.subarray(['origin', 'main']),
  open: fc.boolean(),
});

/** curl: -o FILE and -H VALUE in their spellings, -s and -L, around a URL. */
const curlCommand = fc
  .record({
    output: fc.option(pick(['out.txt', 'other.txt']), { nil: undefined }),
    outputSpelling: fc.nat(4),
    header: fc.option(pick(['a:b', 'c:d']), { nil: undefined }),
    headerSpelling: fc.nat(3),
    silent: fc.boolean(),
    location: fc.boolean(),
    urlFirst: fc.boolean(),
  })
  .map(({ output, outputSpelling, header, headerSpelling, silent, location, urlFirst }): Spelled => {
    const opts: string[] = [];
    const options = new Set<string>();
    if (silent) (opts.push('-s'), options.add('-s'));
    if (location) (opts.push('--location'), options.add('-L'));
    if (output !== undefined) {
      opts.push(...[['-o' + output], ['-o', output], ['--output=' + output], ['--output', output], ['--out=' + output]][outputSpelling % 5]!);
      options.add('-o=' + output);
    }
    if (header !== undefined) {
      opts.push(...[['-H', header], ['-H' + header], ['--header=' + header], ['--header', header]][headerSpelling % 4]!);
      options.add('-H=' + header);
    }
    const words = urlFirst ? ['curl', 'http://x', ...opts] : ['curl', ...opts, 'http://x'];
    return { words, options, operands: ['http://x'] };
  });

const curlPattern = fc.record({
  output: fc.option(pick(['out.txt', 'other.txt']), { nil: undefined }),
  silent: fc.boolean(),
  open: fc.boolean(),
});

describe('property: option-aware matching is matching the canonical option set', () => {
  it('for rm', () => {
    fc.assert(
      fc.property(rmCommand, rmPattern, (cmd, pat) => {
        const want = new Set(pat.flags.map((f) => '-' + f));
        const expected = canonicalMatch(want, pat.operands, pat.open, cmd);
        expect(hits(rmPatternText(pat), cmd.words.join(' '))).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('for git, through its global options', () => {
    fc.assert(
      fc.property(gitCommand, gitPattern, ({ sub, spelled }, pat) => {
        const flags = pat.flags.map((f, i) => GIT_PUSH[f]![pat.spell[i]!]!);
        const pattern = ['git', 'push', ...flags, ...pat.operands, ...(pat.open ? ['*'] : [])].join(' ');
        const want = new Set(pat.flags.map((f) => '-' + f));
        const expected = sub === 'push' && canonicalMatch(want, pat.operands, pat.open, spelled);
        expect(hits(pattern, spelled.words.join(' '))).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('for curl, with values, in any mode and in allow mode', () => {
    fc.assert(
      fc.property(curlCommand, curlPattern, (cmd, pat) => {
        const want = new Set<string>();
        const words = ['curl'];
        if (pat.silent) (words.push('-s'), want.add('-s'));
        if (pat.output !== undefined) (words.push('-o', pat.output), want.add('-o=' + pat.output));
        words.push(pat.open ? '*' : 'http://x');
        const expected = canonicalMatch(want, pat.open ? [] : ['http://x'], pat.open, cmd);
        const command = cmd.words.join(' ');
        expect(hits(words.join(' '), command)).toBe(expected);
        // -o writes a file: an allow covers it only when the pattern names it with its value
        const writes = [...cmd.options].some((o) => o.startsWith('-o=') && !want.has(o));
        expect(allowed([words.join(' ')], command)).toBe(expected && !writes);
      }),
      { numRuns: 3000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// How explanations show option-aware patterns (engine/explain.ts)

describe('explanations of option-aware patterns', () => {
  const policyOf = (rules: { effect: 'allow' | 'deny'; patterns: string[] }[]) =>
    compilePolicy({
      version: IR_VERSION,
      sources: ['p.dshpolicy'],
      rules: rules.map((r, i) => ({ id: `p.dshpolicy:${i + 1}:3`, seam: 'pre-tool', effect: r.effect, tools: ['Bash'], selectors: [{ kind: 'command', patterns: r.patterns }] })),
      tests: [],
    } as PolicyIR);
  const explainCommand = async (rules: { effect: 'allow' | 'deny'; patterns: string[] }[], command: string) =>
    (await explain(policyOf(rules), { seam: 'pre-tool', tool: 'Bash', input: { command }, cwd: '/repo' })).explanation;

  it('say which option a `*` of an allow does not cover', async () => {
    const x = await explainCommand([{ effect: 'allow', patterns: ['rg *'] }], "rg --pre 'sh -c x' foo");
    expect(x.skipped[0]?.why).toBe(
      "`rg --pre 'sh -c x' foo` matches `rg *`, but its `--pre` runs code, which a `*` of an allow pattern does not cover; name it in the pattern to allow it",
    );
    const y = await explainCommand([{ effect: 'allow', patterns: ['tee *'] }], 'tee out.txt');
    expect(y.skipped[0]?.why).toContain('but its operand `out.txt` is a file it writes');
  });

  it('keep the pattern as written', async () => {
    const x = await explainCommand([{ effect: 'deny', patterns: ['rm -rf *'] }, { effect: 'allow', patterns: ['git status'] }], 'rm -fr x && git status');
    expect(x.decision).toBe('deny');
    expect(x.parts?.[0]).toMatchObject({ text: 'rm -fr x', rules: [{ rule: 'p.dshpolicy:1:3', effect: 'deny' }] });
    const skipped = await explainCommand([{ effect: 'deny', patterns: ['rm -rf *'] }], 'rm -r x');
    expect(skipped.skipped[0]?.why).toBe('no part of the command matches `rm -rf *`');
  });
});

// ---------------------------------------------------------------------------------------------
// Property: when optionPatternCovers says a pattern covers another, it does, in both modes.

const COVER_PATTERNS = [
  'rm *', 'rm -rf *', 'rm -r *', 'rm -rf /', 'rm * /', 'rm -f /', 'rm /', 'rm -rf / *', "rm '-rf' *", 'rm --recursive *',
  'git *', 'git push *', 'git push', 'git push --force *', 'git -C * push *', 'git -c * push *', 'git status', 'git -C * *',
  'rg *', 'rg --pre x *', 'rg --pre * *', 'tee *', 'tee out', 'tee *.log', 'cp *', 'cp * /tmp/*', 'cp a b', 'sort -o * *', 'sort *',
  "'rg' *", "'rg' --pre x *", '*', 'frob *', 'frob -x *',
];
const COVER_COMMANDS = [
  'rm -rf /', 'rm -fr x', 'rm -f /', 'rm x /', 'rm -r x', 'rm /', 'rm -rfv / x', 'git push', 'git -C x push -f', 'git -c k=v push',
  'git --no-pager push', 'git status', 'git -C x status', 'git push origin --force', 'rg --pre x y', 'rg y', 'rg --pre z y',
  'tee out', 'tee a.log', 'cp a b', 'cp a /tmp/b', 'sort -o f g', 'sort g', 'frob -x y', 'rm $X', 'git $X', 'rg $X',
];

describe('property: optionPatternCovers is sound', () => {
  it('when it says p covers q, every command q matches, p matches (any and allow mode)', () => {
    const compiled = new Map(COVER_PATTERNS.map((p) => [p, compileCommandPattern(p)]));
    const parts = COVER_COMMANDS.flatMap((c) => analyzeCommand(c).parts);
    let claims = 0;
    for (const p of COVER_PATTERNS) {
      for (const q of COVER_PATTERNS) {
        const verdict = optionPatternCovers(compiled.get(p)!.words as readonly PatternWord[], compiled.get(q)!.words as readonly PatternWord[]);
        if (verdict !== true) continue;
        claims++;
        for (const part of parts) {
          for (const mode of ['any', 'allow'] as const) {
            if (matchCommandPart(compiled.get(q)!, part, mode)) expect(matchCommandPart(compiled.get(p)!, part, mode), `${p} covers ${q}, on ${part.text} (${mode})`).toBe(true);
          }
        }
      }
    }
    expect(claims).toBeGreaterThan(COVER_PATTERNS.length);
  });

  it('refuses the covers word-by-word comparison would wrongly claim', () => {
    const w = (p: string) => compileCommandPattern(p).words as readonly PatternWord[];
    expect(optionPatternCovers(w('rm * /'), w('rm -f /'))).toBe(false);
    expect(optionPatternCovers(w('rg *'), w('rg --pre x *'))).toBe(false);
    expect(optionPatternCovers(w('tee *'), w('tee out'))).toBe(false);
    expect(optionPatternCovers(w("'rg' *"), w("'rg' --pre x *"))).toBe(false);
    expect(optionPatternCovers(w('rm *'), w('rm -rf /'))).toBe(true);
    expect(optionPatternCovers(w('rm -r *'), w('rm -rf *'))).toBe(true);
    expect(optionPatternCovers(w('git push *'), w('git -C * push --force *'))).toBe(false);
    expect(optionPatternCovers(w('git push *'), w('git push --force *'))).toBe(true);
    expect(optionPatternCovers(w('frob *'), w('frob -x *'))).toBeUndefined();
  });
});
