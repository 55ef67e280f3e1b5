/**
 * What the analysis reads beyond plain commands: scripts fed to shells through here-documents and
 * here-strings, `trap` actions, brace-expanded program words, shells reading their input,
 * variables that change what runs, and the files redirections write.
 */
import { describe, expect, it } from 'vitest';
import { analyzeCommand, opaqueReason } from './index.js';
import { commandPaths } from './paths.js';

/** Each part as its words (views beyond the first as `=> words`), dynamic words prefixed with `~`, unknowable parts ending with `!`. */
function shape(command: string): string[] {
  return analyzeCommand(command).parts.map((p) => {
    const text = p.words.map((w) => (w.dynamic ? '~' : '') + w.value).join(' ');
    const views = p.views.slice(1).map((v) => ' => ' + v.words.map((w) => w.value).join(' ')).join('');
    return text + views + (p.unknowable !== null ? ' !' : '');
  });
}

/** True when some view of some part is exactly `words`. */
function runs(command: string, words: string): boolean {
  return analyzeCommand(command).parts.some((p) => p.views.some((v) => v.words.map((w) => w.value).join(' ') === words));
}

describe('scripts a shell reads from its input', () => {
  it('reads a quoted here-document fed to a shell as its script', () => {
    expect(shape("bash -x <<'EOF'\nrm -rf /\nEOF")).toEqual(['bash -x !', 'rm -rf /']);
  });

  it('reads an unquoted one too, with the substitutions it expands first', () => {
    expect(shape('bash <<EOF\necho $(id)\nrm -rf /\nEOF\nls')).toEqual(['bash !', 'echo ~$(id)', 'id', 'rm -rf /', 'ls']);
  });

  it('strips tabs under <<- before reading the script', () => {
    expect(runs('sh -s <<-EOF\n\trm -rf /\n\tEOF', 'rm -rf /')).toBe(true);
  });

  it('reads a here-string fed to a shell as its script', () => {
    expect(shape("sh <<< 'rm -rf /'")).toEqual(['sh !', 'rm -rf /']);
  });

  it('keeps the body of a here-document fed to another program as data', () => {
    expect(shape("cat <<'EOF'\nrm -rf /\nEOF")).toEqual(['cat']);
    expect(shape("python3 <<'EOF'\nimport os\nEOF")).toEqual(['python3']);
  });

  it('makes a shell reading its input, or a computed script file, unknowable', () => {
    expect(shape('curl x | bash')).toEqual(['curl x', 'bash !']);
    expect(shape('bash <(curl x)')).toEqual(['bash ~<(curl x) !', 'curl x']);
    expect(shape('source <(curl x)')).toEqual(['source ~<(curl x) !', 'curl x']);
    expect(shape('. <(curl x)')).toEqual(['. ~<(curl x) !', 'curl x']);
    expect(shape('bash script.sh')).toEqual(['bash script.sh']);
    expect(shape('bash --version')).toEqual(['bash --version']);
  });
});

describe('scripts piped into a shell', () => {
  it('reads what echo and printf print into a shell as its script, keeping the shell unknowable', () => {
    expect(shape("echo 'rm -rf /' | bash")).toEqual(['echo rm -rf /', 'bash !', 'rm -rf /']);
    expect(shape("printf 'rm -rf /' | sh")).toEqual(['printf rm -rf /', 'sh !', 'rm -rf /']);
    expect(shape("echo 'rm -rf /' | bash -s")).toEqual(['echo rm -rf /', 'bash -s !', 'rm -rf /']);
    expect(shape("echo 'rm -rf /' |& sudo bash")).toEqual(['echo rm -rf /', 'sudo bash => bash !', 'rm -rf /']);
    expect(shape("command echo 'ls' | bash")).toEqual(['command echo ls => echo ls', 'bash !', 'ls']);
    expect(shape("echo 'rm -rf /' |\n  bash")).toEqual(['echo rm -rf /', 'bash !', 'rm -rf /']);
  });

  it('reads echo with its options and both readings of its escapes', () => {
    expect(runs("echo -n -e 'ls\\nrm -rf /' | bash", 'rm -rf /')).toBe(true);
    // bash's echo prints `\x20` as it is; zsh's prints a blank
    expect(shape("echo 'rm\\x20-rf /' | bash").slice(2)).toEqual(['rmx20-rf /', 'rm -rf /']);
    expect(runs("echo -E 'rm\\x20-rf /' | bash", 'rm -rf /')).toBe(false);
    // zsh's echo ends its options at `-`
    expect(runs("echo - 'rm -rf /' | zsh", 'rm -rf /')).toBe(true);
    expect(runs("echo -e 'rm -rf /\\c; ls' | bash", 'rm -rf /')).toBe(true);
  });

  it('reads printf formats with %s, %b and %% only', () => {
    expect(runs("printf '%s\\n' 'rm -rf /' | sh", 'rm -rf /')).toBe(true);
    expect(runs("printf 'rm -rf %s\\n' / | sh", 'rm -rf /')).toBe(true);
    expect(runs("printf '%s %s\\n' ls x rm '-rf /' | sh", 'rm -rf /')).toBe(true);
    expect(runs("printf '%s %s\\n' ls rm '-rf /' | sh", 'rm -rf /')).toBe(false);
    expect(runs("printf '%b' 'rm\\040-rf /' | sh", 'rm -rf /')).toBe(true);
    expect(runs("printf '\\162m -rf /' | sh", 'rm -rf /')).toBe(true);
    expect(runs("printf -- 'rm -rf /' | sh", 'rm -rf /')).toBe(true);
    expect(shape("printf '%d' 1 | sh")).toEqual(['printf %d 1', 'sh !']);
    expect(shape("printf -v x 'rm -rf /' | sh")).toEqual(['printf -v x rm -rf /', 'sh !']);
    expect(shape('echo "rm -rf $D" | sh')).toEqual(['echo ~rm -rf $D', 'sh !']);
  });

  it('reads a here-document or here-string that cat copies into a shell', () => {
    expect(shape("cat <<'EOF' | bash\nrm -rf /\nEOF")).toEqual(['cat', 'bash !', 'rm -rf /']);
    expect(shape('cat - <<EOF | sh\necho $(id)\nEOF')).toEqual(['cat -', 'sh !', 'echo ~$(id)', 'id']);
    expect(shape("cat <<< 'rm -rf /' | bash")).toEqual(['cat', 'bash !', 'rm -rf /']);
    expect(shape("cat <<'EOF' | grep x\nrm -rf /\nEOF")).toEqual(['cat', 'grep x']);
    expect(shape('cat f | bash')).toEqual(['cat f', 'bash !']);
    expect(shape("cat f <<'EOF' | bash\nrm -rf /\nEOF")).toEqual(['cat f', 'bash !']);
  });

  it('reads what a process substitution on its input prints', () => {
    expect(shape("bash < <(echo 'rm -rf /')")).toEqual(['bash !', 'rm -rf /', 'echo rm -rf /']);
    expect(shape('bash < <(curl x)')).toEqual(['bash !', 'curl x']);
  });

  it('reads the script of a shell that is unknowable for another reason too, but not through xargs', () => {
    expect(shape("echo 'rm -rf /' | PATH=/x bash")).toEqual(['echo rm -rf /', 'bash !', 'rm -rf /']);
    expect(shape("PATH=/x bash <<< 'rm -rf /'")).toEqual(['bash !', 'rm -rf /']);
    expect(runs("echo 'rm -rf /' | xargs bash", 'rm -rf /')).toBe(false);
    expect(shape("echo 'rm -rf /' | bash script.sh")).toEqual(['echo rm -rf /', 'bash script.sh']);
  });

  it('reads only a command that the pipe feeds at once', () => {
    expect(shape("echo 'rm -rf /'; bash")).toEqual(['echo rm -rf /', 'bash !']);
    expect(shape("echo 'rm -rf /' || bash")).toEqual(['echo rm -rf /', 'bash !']);
    expect(shape("(echo 'rm -rf /') | bash")).toEqual(['echo rm -rf /', 'bash !']);
    expect(shape("echo 'rm -rf /' | tee f | bash")).toEqual(['echo rm -rf /', 'tee f', 'bash !']);
    expect(shape("echo 'rm -rf /' | grep x")).toEqual(['echo rm -rf /', 'grep x']);
  });

  it('reads the script whatever nests the pipe', () => {
    expect(runs(`bash -c "echo 'rm -rf /' | bash"`, 'rm -rf /')).toBe(true);
    expect(runs(`ls; x=$(echo 'rm -rf /' | sh)`, 'rm -rf /')).toBe(true);
  });
});

describe('function substitutions', () => {
  it('reads the list of ${ list; } and ${| list; } as commands, and the word as computed', () => {
    expect(shape('echo ${ rm -rf /; }')).toEqual(['echo ~${ rm -rf /; }', 'rm -rf /']);
    expect(shape('echo ${| REPLY=x; rm -rf /; }')).toEqual(['echo ~${| REPLY=x; rm -rf /; }', 'rm -rf /']);
    expect(shape('echo ${\trm -rf /;}x')).toEqual(['echo ~${\trm -rf /;}x', 'rm -rf /']);
    expect(shape('echo ${\nrm -rf /\n}')).toEqual(['echo ~${\nrm -rf /\n}', 'rm -rf /']);
    expect(shape('echo "${ rm -rf /; }"; ls')).toEqual(['echo ~${ rm -rf /; }', 'rm -rf /', 'ls']);
    expect(shape("ksh -c 'echo ${ touch p; }'")).toEqual(['ksh -c echo ${ touch p; }', 'echo ~${ touch p; }', 'touch p']);
  });

  it('ends the substitution at a } that starts a word, as ksh and mksh do, outside the groups in it', () => {
    expect(shape('echo ${ echo a } b')).toEqual(['echo ~${ echo a } b', 'echo a']);
    expect(shape('echo ${ { echo a; }; rm -rf /; }')).toEqual(['echo ~${ { echo a; }; rm -rf /; }', 'echo a', 'rm -rf /']);
    expect(shape('echo ${ echo $(echo }) ; }')).toEqual(['echo ~${ echo $(echo }) ; }', 'echo ~$(echo })', 'echo }']);
    expect(shape('echo ${ echo a}b; }')).toEqual(['echo ~${ echo a}b; }', 'echo a}b']);
  });

  it('makes an unterminated one unknowable', () => {
    expect(opaqueReason(analyzeCommand('echo ${ rm -rf /'))).toBe('unterminated `${ ...; }` substitution');
    expect(runs('echo ${ rm -rf /', 'rm -rf /')).toBe(true);
  });

  it('leaves parameter expansions alone', () => {
    expect(shape('echo ${x} ${x:-a b} ${#x}')).toEqual(['echo ~${x} ~${x:-a b} ~${#x}']);
  });
});

describe('commands run later or spelt by expansion', () => {
  it('reads a trap action as a script', () => {
    expect(shape('trap "rm -rf /" EXIT')).toEqual(['trap rm -rf / EXIT', 'rm -rf /']);
    expect(shape('trap -- "rm -rf /" INT TERM')).toEqual(['trap -- rm -rf / INT TERM', 'rm -rf /']);
    expect(shape('trap - EXIT')).toEqual(['trap - EXIT']);
    expect(shape('trap -p')).toEqual(['trap -p']);
    // a computed action may be any command: its part stands alone for deny and ask
    expect(shape('trap "$X" EXIT')).toEqual(['trap ~$X EXIT !', '~$X !']);
  });

  it('sees the command a brace-expanded program word spells', () => {
    expect(runs('{rm,-rf,/}', 'rm -rf /')).toBe(true);
    expect(runs('{sudo,rm,-rf,/}', 'rm -rf /')).toBe(true);
    expect(runs('{rm,-rf} /', 'rm -rf /')).toBe(true);
    expect(analyzeCommand('{rm,-rf,/}').parts[0]!.unknowable).not.toBeNull();
  });

  it('skips the name of a coprocess', () => {
    expect(shape('coproc X { rm -rf /; }')).toEqual(['rm -rf /']);
    expect(shape('coproc rm -rf /')).toEqual(['rm -rf /']);
  });
});

describe('variables that change what runs', () => {
  it('makes risky leading assignments, statements and env settings unknowable, and keeps harmless ones', () => {
    for (const c of ['PATH=/tmp/evil:$PATH git status', 'LD_PRELOAD=x.so ls', 'PATH=/x; git status', 'export PATH=/x; git status', 'env PATH=/x git status', 'GIT_SSH_COMMAND=x git fetch', 'PATH+=:/x ls', 'unset IFS; ls']) {
      expect(opaqueReason(analyzeCommand(c)), c).toBeDefined();
    }
    for (const c of ['FOO=1 git status', 'LANG=C ls', 'x=1; echo $x', 'env LC_ALL=C git status', 'local x=$(date)', 'export FOO=1']) {
      expect(opaqueReason(analyzeCommand(c)), c).toBeUndefined();
    }
  });

  it('names the variable in the reason', () => {
    expect(opaqueReason(analyzeCommand('PATH=/x git status'))).toBe('setting `PATH` changes what the command runs');
  });

  it('makes subscripts evaluated by builtins unknowable', () => {
    for (const c of ["printf -v 'a[$(touch p)]' x", "read -a 'a[$(touch p)]'", "declare 'a[$(touch p)]=1'", 'declare -n r=PATH']) {
      expect(opaqueReason(analyzeCommand(c)), c).toBeDefined();
    }
    expect(opaqueReason(analyzeCommand('printf "%s\\n" x'))).toBeUndefined();
  });
});

describe('the files redirections write', () => {
  it('gives an unknowable part for a computed target, and none for a harmless one', () => {
    expect(opaqueReason(analyzeCommand('echo x > "$F"'))).toContain('a file named when the command runs');
    expect(opaqueReason(analyzeCommand('echo x > /dev/null 2>&1'))).toBeUndefined();
  });

  it('records writes whether the fast path or the parser reads the command', () => {
    const writes = (c: string) => analyzeCommand(c).parts.map((p) => (p.writes ?? []).map((w) => w.value));
    expect(writes('echo x > a; echo $(echo y > b)')).toEqual([['a'], [], ['b']]);
    expect(writes('a && b >> log')).toEqual([[], ['log']]);
  });
});

describe('arithmetic, subscripts and prompts that evaluate values the command set', () => {
  const opaque = (c: string) => opaqueReason(analyzeCommand(c));

  it('makes the call opaque when it evaluates a variable it set to a value that may hold code', () => {
    for (const c of [
      "x='a[$(touch p)]'; echo $((x))",
      "x='a[$(touch p)]'; ((x))",
      "x='a[$(touch p)]'; [[ $x -eq 0 ]]",
      'x=$(cat f); echo ${s:x}',
      'x=$(cat f); echo ${arr[x]}',
      'x=$(cat f); echo ${x@P}',
      'read x; echo $((x))',
      'x=$(cat f); let x',
      "x='a[$(touch p)]'; [[ -v x ]]",
      'for x in $(cat f); do echo $((x)); done',
      "bash -c 'x=$(cat f); echo $((x))'",
      "declare x='a[$(touch p)]'; echo $((x))",
      'x=$(cat f); arr[x]=1',
      'mapfile -t a < f; echo $((a))',
    ]) {
      expect(opaque(c), c).toContain('evaluates variables');
    }
  });

  it('keeps arithmetic on numbers and on variables set only to numbers readable', () => {
    for (const c of [
      'echo $((1+2))',
      'for ((i=0;i<3;i++)); do echo $i; done',
      'n=3; echo $((n*2))',
      'x=$(date); echo ${x:-none}',
      'echo ${#x}',
      'x=$(cat f); echo $x',
      'echo $((0x1f + 2#101))',
    ]) {
      expect(opaque(c), c).toBeUndefined();
    }
  });
});

describe('the code that evaluations run, for deny and ask to see', () => {
  const opaque = (c: string) => opaqueReason(analyzeCommand(c));
  /** The words of the parts an allow does not need (the code read from evaluated text), computed words prefixed with `~`. */
  const code = (c: string) =>
    analyzeCommand(c)
      .parts.filter((p) => p.transparent === true)
      .map((p) => p.words.map((w) => (w.dynamic ? '~' : '') + w.value).join(' '));

  it('reads the substitutions of a static value that arithmetic, a subscript or a prompt evaluates', () => {
    for (const c of [
      "x='a[$(rm -rf /)]'; echo $((x))",
      "x='a[`rm -rf /`]'; echo $((x))",
      "x='a[$(rm -rf /)]'; echo ${!x}",
      "x='a[$(rm -rf /)]'; echo ${s:x}",
      "x='a[$(rm -rf /)]'; echo ${arr[x]}",
      "x='a[$(rm -rf /)]'; [[ 1 -lt x ]]",
      "x='a[$(rm -rf /)]'; (( x > 1 ))",
      "x='a[$(rm -rf /)]'; arr[x]=1",
      "x='a[$(rm -rf /)]'; let y=x",
      "declare -i n; n='a[$(rm -rf /)]'",
      "for x in 'a[$(rm -rf /)]'; do echo $((x)); done",
      "x='$(rm -rf /)'; echo ${x@P}",
      "x='`rm -rf /`'; echo \"${x@P}\"",
    ]) {
      expect(code(c), c).toEqual(['rm -rf /']);
      expect(opaque(c), c).toBeDefined();
    }
  });

  it('follows the names a value holds, whatever the order of the text', () => {
    expect(code("x='a[$(rm -rf /)]'; y=x; echo $((y))")).toEqual(['rm -rf /']);
    expect(code("f() { echo $((x)); }; x='a[$(rm -rf /)]'; f")).toEqual(['rm -rf /']);
    expect(code("export x='a[$(rm -rf /)]'; bash -c 'echo $((x))'")).toContain('rm -rf /');
    // a value that sets and evaluates another one
    expect(code("x='a[$(y=\"a[\\$(rm -rf /)]\"; echo $((y)))]'; echo $((x))")).toContain('rm -rf /');
  });

  it('reads a literal text that is evaluated as it is written', () => {
    expect(code("let 'y=a[$(rm -rf /)]'")).toEqual(['rm -rf /']);
    expect(opaque("let 'y=a[$(rm -rf /)]'")).toContain('subscript');
    expect(code("[[ 'a[$(rm -rf /)]' -eq 0 ]]")).toEqual(['rm -rf /']);
  });

  it('stands a value computed when the command runs for any command, when it is evaluated', () => {
    for (const c of ['x=$(cat f); echo $((x))', 'read x; echo $((x))', 'for x in $(cat f); do echo $((x)); done', 'x=$(cat f); echo ${x@P}', 'a=($(ls)); echo $((a))', 'for x; do echo $((x)); done', 'declare -i n; n=$(cat f)']) {
      const parts = analyzeCommand(c).parts.filter((p) => p.transparent === true);
      expect(parts, c).toHaveLength(1);
      expect(parts[0]!.words[0], c).toMatchObject({ dynamic: true, splits: true });
      expect(parts[0]!.unknowable, c).toContain('evaluates variables');
    }
  });

  it('does not when the computed variable is not the one evaluated, or only a number', () => {
    for (const c of [
      'x=$(cat f); y=5; echo $((y))',
      'x=$(cat f); echo "$x" ${x:-none} ${#x}',
      'n=$((n+1)); echo $((n))',
      'n=$#; echo $((n + 1))',
      'for i in {1..3}; do echo $((i * 2)); done',
      'n=0; for f in $(ls); do n=$((n+1)); done',
      '(( i = $(p=$(cat f) wc -l) + 1 ))',
    ]) {
      expect(code(c), c).toEqual([]);
    }
    for (const c of ['n=$((n+1)); echo $((n))', 'n=$#; echo $((n + 1))', 'for i in {1..3}; do echo $((i * 2)); done']) {
      expect(opaque(c), c).toBeUndefined();
    }
  });

  it('reads the code of zsh expansions and glob qualifiers', () => {
    expect(code('echo ${(e):-\\$(rm -rf /)}')).toEqual(['rm -rf /']);
    expect(code("echo ${(e):-'$(rm -rf /)'}")).toEqual(['rm -rf /']);
    expect(code("x='$(rm -rf /)'; echo ${(e)x}")).toEqual(['rm -rf /']);
    expect(code("a[1]=1; x='a[$(rm -rf /)1]'; echo ${(P)x}")).toEqual(['rm -rf /']);
    expect(code('echo *(e:"rm -rf /":)')).toEqual(['rm -rf /']);
    expect(code("ls *(.e:'rm -rf /':)")).toEqual(['rm -rf /']);
    expect(code("ls *(e['rm -rf /'])")).toEqual(['rm -rf /']);
    expect(code('ls *(+curl)')).toEqual(['curl']);
    expect(code("zsh -c 'echo *(e:\"rm -rf /\":)'")).toEqual(['rm -rf /']);
    // what a substitution prints, expanded again, may be any command
    expect(code('echo ${(e)"$(cat f)"}')).toEqual(['~${(e)"$(cat f)"}']);
  });

  it('reads a subscript that quotes or escapes hide in arithmetic, which zsh runs', () => {
    expect(code('echo $(( a[\\$(rm -rf /)1] ))')).toEqual(['rm -rf /']);
    expect(code("(( a[\\`rm -rf /\\`1] ))")).toEqual(['rm -rf /']);
    expect(opaque('echo $(( a[\\$(rm -rf /)1] ))')).toContain('zsh');
    // a substitution of the arithmetic's own runs as it is read: nothing is hidden
    expect(opaque('echo $(( $(wc -l < "f") + 1 ))')).toBeUndefined();
  });

  it('leaves values that are never evaluated alone', () => {
    for (const c of ["x='$(rm -rf /)'; printf '%s\\n' \"$x\"", "x='$(rm -rf /)'; echo ${x@Q}", "x='a[$(rm -rf /)]'; echo \"$x\"", 'x=5; echo $((x+1))']) {
      expect(code(c), c).toEqual([]);
      expect(opaque(c), c).toBeUndefined();
    }
  });

  it('caps the texts it reads', () => {
    const command = Array.from({ length: 300 }, (_, i) => `x='a[$(ls ${i})]'`).join('; ') + '; echo $((x))';
    expect(analyzeCommand(command).capped).toBe('too complex to analyse');
  });
});

describe('zsh syntax at the top level (the command may run in the user’s zsh)', () => {
  const opaque = (c: string) => opaqueReason(analyzeCommand(c));

  it('makes zsh expansions that run code opaque wherever they appear', () => {
    expect(opaque('echo ${(e)x}')).toContain('zsh parameter flags');
    expect(opaque('echo ${(e):-$(touch p)}')).toContain('zsh parameter flags');
    expect(opaque('echo *(e:"touch p":)')).toContain('zsh glob qualifiers');
    expect(opaque("ls *(.e'touch p')")).toContain('zsh glob qualifiers');
    expect(opaque('ls *(+fn)')).toContain('zsh glob qualifiers');
  });

  it('leaves bash extended globs and quoted parentheses alone', () => {
    expect(opaque('ls !(a|b)')).toBeUndefined();
    expect(opaque('ls *(x|y)')).toBeUndefined();
    expect(opaque('git commit -m "fix (e.g. this)"')).toBeUndefined();
    expect(opaque("echo '${(e)x}'")).toBeUndefined();
  });
});

describe('the paths a command may touch', () => {
  const paths = (c: string) => commandPaths(analyzeCommand(c));

  it('lists operands, option values, redirection targets and $HOME paths, each once', () => {
    expect(paths('cat .e\'n\'v && cp ~/.ssh/id_rsa /tmp/k').paths).toEqual(['cat', '.env', '&&', 'cp', '~/.ssh/id_rsa', '/tmp/k'].filter((p) => p !== '&&'));
    expect(paths('head $HOME/.aws/credential"s"').paths).toEqual(['head', '~/.aws/credentials']);
    expect(paths('git diff --output=~/.bashrc').paths).toEqual(['git', 'diff', '~/.bashrc']);
    expect(paths('dd if=/dev/sda of=disk.img').paths).toEqual(['dd', '/dev/sda', 'disk.img']);
    expect(paths('echo x >> ~/.bashrc < in.txt').paths).toEqual(['echo', 'x', '~/.bashrc', 'in.txt']);
    expect(paths('echo $(< .env)').paths).toContain('.env');
    expect(paths('cat a a a').paths).toEqual(['cat', 'a']);
  });

  it('skips options and URLs, and counts computed words as unknown', () => {
    expect(paths('rm -rf build').paths).toEqual(['rm', 'build']);
    expect(paths('curl https://x.example/a').paths).toEqual(['curl']);
    expect(paths('cat "$F" $(ls)')).toEqual({ paths: ['cat', 'ls'], unknown: 2 });
  });
});
