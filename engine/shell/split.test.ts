import { describe, expect, it } from 'vitest';
import { analyzeCommand, type CommandPart } from './index.js';

/**
 * Each part as its words; dynamic words are prefixed with `~`, unknowable parts end with
 * `!reason`, and a part that runs only the parts after it (`bash -c '...'`) ends with `^`.
 */
function words(part: CommandPart): string[] {
  const out = part.words.map((w) => (w.dynamic ? '~' + w.value : w.value));
  if (part.unknowable !== null) out.push('!' + part.unknowable);
  if (part.transparent) out.push('^');
  return out;
}

function parts(command: string): string[][] {
  return analyzeCommand(command).parts.map(words);
}

function texts(command: string): string[] {
  return analyzeCommand(command).parts.map((p) => p.text);
}

describe('lists, pipes and groups', () => {
  it('splits && || ; and newlines', () => {
    expect(parts('a 1 && b 2 || c; d\ne')).toEqual([['a', '1'], ['b', '2'], ['c'], ['d'], ['e']]);
  });

  it('splits pipes, |& and background &', () => {
    expect(parts('a | b |& c & d')).toEqual([['a'], ['b'], ['c'], ['d']]);
  });

  it('reads subshells and nested subshells', () => {
    expect(parts('(cd x; rm y) && ((a); (b))')).toEqual([['cd', 'x'], ['rm', 'y'], ['a'], ['b']]);
  });

  it('reads brace groups, and the redirection after them as a part that writes', () => {
    expect(parts('{ a; b; } > out')).toEqual([['a'], ['b'], []]);
    expect(analyzeCommand('{ a; b; } > out').parts[2]!.writes).toEqual([{ value: 'out', dynamic: false }]);
  });

  it('keeps a closing brace that is an argument', () => {
    expect(parts('echo { }')).toEqual([['echo', '{', '}']]);
  });

  it('gives no parts for empty text, blanks and comments', () => {
    expect(parts('')).toEqual([]);
    expect(parts('  \n\t ')).toEqual([]);
    expect(parts('# rm -rf /\n  # another')).toEqual([]);
  });

  it('records the source text of each part', () => {
    expect(texts('FOO=1 npm test > log && git status')).toEqual(['FOO=1 npm test > log', 'git status']);
  });

  it('ignores stray separators', () => {
    expect(parts('a;;b ; ; c')).toEqual([['a'], ['b'], ['c']]);
  });
});

describe('substitutions', () => {
  it('makes $( ) its own part and the word dynamic', () => {
    expect(parts('echo $(rm -rf /)')).toEqual([['echo', '~$(rm -rf /)'], ['rm', '-rf', '/']]);
  });

  it('reads nested $( )', () => {
    expect(parts('a $(b $(c d))')).toEqual([['a', '~$(b $(c d))'], ['b', '~$(c d)'], ['c', 'd']]);
  });

  it('reads backticks, including escaped nested backticks', () => {
    expect(parts('echo `ls \\`pwd\\``')).toEqual([['echo', '~`ls \\`pwd\\``'], ['ls', '~`pwd`'], ['pwd']]);
  });

  it('splits commands inside a substitution', () => {
    expect(parts('x $(a && b | c)')).toEqual([['x', '~$(a && b | c)'], ['a'], ['b'], ['c']]);
  });

  it('reads process substitutions <( ) and >( )', () => {
    expect(parts('diff <(ls a) >(cat b)')).toEqual([['diff', '~<(ls a)', '~>(cat b)'], ['ls', 'a'], ['cat', 'b']]);
  });

  it('does not treat $(( )) as a command but reads $( ) inside it', () => {
    expect(parts('echo $((1 + 2))')).toEqual([['echo', '~$((1 + 2))']]);
    expect(parts('echo $((1 + $(rm x)))')).toEqual([['echo', '~$((1 + $(rm x)))'], ['rm', 'x']]);
  });

  it('reads $( (subshell) ) when $(( is not arithmetic', () => {
    expect(parts('echo $((a) | b)')).toEqual([['echo', '~$((a) | b)'], ['a'], ['b']]);
  });

  it('reads substitutions inside ${ }', () => {
    expect(parts('echo ${x:-$(rm y)}')).toEqual([['echo', '~${x:-$(rm y)}'], ['rm', 'y']]);
  });

  it('reads a case statement inside $( ) without closing it early', () => {
    expect(parts('x=$(case $y in a) rm z;; esac); ls')).toEqual([['rm', 'z'], ['ls']]);
  });

  it('makes a variable word dynamic', () => {
    expect(parts('echo $HOME ${PATH} $1 $? x$y')).toEqual([['echo', '~$HOME', '~${PATH}', '~$1', '~$?', '~x$y']]);
  });

  it('keeps a lone $ literal', () => {
    expect(parts('echo $ a$')).toEqual([['echo', '$', 'a$']]);
  });
});

describe('quoting', () => {
  it('groups single-quoted text literally', () => {
    expect(parts("echo 'a b' '$(rm x)'")).toEqual([['echo', 'a b', '$(rm x)']]);
  });

  it('handles double-quote escapes', () => {
    expect(parts('echo "a\\"b\\\\c\\$d\\`e\\x"')).toEqual([['echo', 'a"b\\c$d`e\\x']]);
  });

  it('reads substitutions inside double quotes', () => {
    expect(parts('echo "x $(rm -rf /) y"')).toEqual([['echo', '~x $(rm -rf /) y'], ['rm', '-rf', '/']]);
    expect(parts('echo "$(echo "in")"')).toEqual([['echo', '~$(echo "in")'], ['echo', 'in']]);
  });

  it('decodes $\'...\' ANSI-C strings', () => {
    expect(parts("echo $'a\\tb' $'it\\'s' $'\\x41\\101\\u00e9'")).toEqual([['echo', 'a\tb', "it's", 'AAé']]);
  });

  it('reads $"..." as a double-quoted string', () => {
    expect(parts('echo $"hello world"')).toEqual([['echo', 'hello world']]);
  });

  it('removes backslash escapes and line continuations', () => {
    expect(parts('echo a\\ b \\$x')).toEqual([['echo', 'a b', '$x']]);
    expect(parts('ls \\\n -la')).toEqual([['ls', '-la']]);
    expect(parts('r\\\nm x')).toEqual([['rm', 'x']]);
  });

  it('joins adjacent quoted pieces into one word', () => {
    expect(parts(`r"m" -'rf' "/"`)).toEqual([['rm', '-rf', '/']]);
  });

  it('marks brace expansion dynamic but not a lone {}', () => {
    expect(parts('echo f{,.bak} {} x{1..3}')).toEqual([['echo', '~f{,.bak}', '{}', '~x{1..3}']]);
  });

  it('keeps extended globs in one word', () => {
    expect(parts('rm !(keep|this)')).toEqual([['rm', '!(keep|this)']]);
  });
});

describe('comments', () => {
  it('drops a comment after a command', () => {
    expect(parts('ls # ; rm -rf /')).toEqual([['ls']]);
  });

  it('keeps # inside a word', () => {
    expect(parts('echo a#b #c')).toEqual([['echo', 'a#b']]);
  });

  it('reads the line after a comment', () => {
    expect(parts('ls # x\nrm y')).toEqual([['ls'], ['rm', 'y']]);
  });

  it('treats # after ; as a comment', () => {
    expect(parts('a;# b')).toEqual([['a']]);
  });
});

describe('redirections', () => {
  it('removes every redirection form with its target', () => {
    expect(parts('cmd a >f b >>g <h 2>e 2>&1 &>x &>>y >|z <>w 3<&0 {fd}>v c')).toEqual([['cmd', 'a', 'b', 'c']]);
  });

  it('reads substitutions in a redirection target', () => {
    // the file written is named when the command runs: the part is unknowable
    expect(parts('cat < $(rm x) > "$(ls)"')).toEqual([['cat', '!a redirection writes to `$(ls)`, a file named when the command runs'], ['rm', 'x'], ['ls']]);
  });

  it('gives a part that writes for a redirection alone, and none when it writes no file', () => {
    expect(parts('> out')).toEqual([[]]);
    expect(analyzeCommand('> out').parts[0]!.writes).toEqual([{ value: 'out', dynamic: false }]);
    expect(parts('> /dev/null')).toEqual([]);
  });

  it('records the files output redirections write, in every form, and not descriptors or /dev/null', () => {
    const writes = (c: string) => analyzeCommand(c).parts.map((p) => (p.writes ?? []).map((w) => w.value));
    expect(writes('echo x > a >> b >| c &> d &>> e 2> f 1<> g')).toEqual([['a', 'b', 'c', 'd', 'e', 'f', 'g']]);
    expect(writes('echo x >&2 2>&1 >&- > /dev/null 2>/dev/stderr < in <&3')).toEqual([[]]);
    expect(writes('echo x >& out')).toEqual([['out']]);
    expect(writes('echo x > ~/".ssh"/authorized_keys')).toEqual([['~/.ssh/authorized_keys']]);
    expect(writes('a > x | b > y')).toEqual([['x'], ['y']]);
  });

  it('reads here-strings and their substitutions', () => {
    expect(parts('cat <<< "$(rm x)" -n')).toEqual([['cat', '-n'], ['rm', 'x']]);
  });

  it('keeps a number that is not a redirection', () => {
    expect(parts('echo 2 > f')).toEqual([['echo', '2']]);
  });
});

describe('here-documents', () => {
  it('skips the body', () => {
    expect(parts("cat <<EOF\nrm -rf /\nEOF\necho done")).toEqual([['cat'], ['echo', 'done']]);
  });

  it('reads $( ) and backticks in an unquoted body', () => {
    expect(parts('cat <<EOF\n$(whoami) `id`\nEOF')).toEqual([['cat'], ['whoami'], ['id']]);
  });

  it('does not read substitutions in a quoted body', () => {
    expect(parts("cat <<'EOF'\n$(whoami)\nEOF")).toEqual([['cat']]);
    expect(parts('cat <<"EOF"\n$(whoami)\nEOF')).toEqual([['cat']]);
    expect(parts('cat <<\\EOF\n$(whoami)\nEOF')).toEqual([['cat']]);
  });

  it('strips tabs before the delimiter with <<-', () => {
    expect(parts('cat <<-EOF\n\tx\n\tEOF\nls')).toEqual([['cat'], ['ls']]);
  });

  it('does not strip tabs with <<', () => {
    expect(parts('cat <<EOF\n\tEOF\nEOF\nls')).toEqual([['cat'], ['ls']]);
  });

  it('reads several here-documents on one line, and commands after the operator', () => {
    expect(parts('cat <<A <<B | grep x\n$(p)\nA\n`q`\nB\nz')).toEqual([['cat'], ['grep', 'x'], ['p'], ['q'], ['z']]);
  });

  it('reads a here-document inside $( )', () => {
    expect(parts('x=$(cat <<EOF\n)\nEOF\n); rm q')).toEqual([['cat'], ['rm', 'q']]);
  });

  it('makes an unterminated here-document unknowable', () => {
    expect(parts('cat <<EOF\nno end')).toEqual([['cat'], ['!unterminated here-document `EOF`']]);
  });
});

describe('assignments', () => {
  it('removes leading assignments', () => {
    expect(parts('FOO=1 BAR+=2 arr[0]=x npm test')).toEqual([['npm', 'test']]);
  });

  it('gives no part for assignments alone, but keeps their substitutions', () => {
    expect(parts('FOO=1')).toEqual([]);
    expect(parts('FOO=$(rm x) BAR=`id`')).toEqual([['rm', 'x'], ['id']]);
  });

  it('keeps assignment-like arguments after the program', () => {
    expect(parts('echo FOO=1')).toEqual([['echo', 'FOO=1']]);
  });

  it('does not take a quoted name as an assignment', () => {
    expect(parts('"FOO"=1 x')).toEqual([['FOO=1', 'x']]);
  });

  it('reads array assignments and their substitutions', () => {
    expect(parts('a=(1 $(b) "c d") c')).toEqual([['c'], ['b']]);
  });
});

describe('keywords and control flow', () => {
  it('reads if/elif/else branches', () => {
    expect(parts('if true; then rm x; elif y; then z; else w; fi')).toEqual([['true'], ['rm', 'x'], ['y'], ['z'], ['w']]);
  });

  it('reads while and until loops', () => {
    expect(parts('while read l; do echo; done < <(ls); until a; do b; done')).toEqual([
      ['read', 'l'],
      ['echo'],
      ['ls'],
      ['a'],
      ['b'],
    ]);
  });

  it('skips the for header but reads its substitutions', () => {
    expect(parts('for x in a $(ls) b; do echo $x; done')).toEqual([['ls'], ['echo', '~$x']]);
    expect(parts('for x\ndo echo; done')).toEqual([['echo']]);
    expect(parts('for x in a b\ndo echo; done')).toEqual([['echo']]);
  });

  it('skips arithmetic for headers', () => {
    expect(parts('for ((i=0; i<3; i++)); do echo $i; done')).toEqual([['echo', '~$i']]);
  });

  it('reads select loops', () => {
    expect(parts('select x in a b; do rm $x; done')).toEqual([['rm', '~$x']]);
  });

  it('reads case items but not the patterns', () => {
    expect(parts('case $a in x|rm) rm y;; (b) ls;& *) c;;& esac; d')).toEqual([['rm', 'y'], ['ls'], ['c'], ['d']]);
  });

  it('reads the last case item without ;;', () => {
    expect(parts('case x in a) b; esac')).toEqual([['b']]);
  });

  it('reads function definitions as their bodies', () => {
    expect(parts('f() { rm a; }; f')).toEqual([['rm', 'a'], ['f']]);
    expect(parts('function g { rm b; }')).toEqual([['rm', 'b']]);
    expect(parts('function h() ( ls )')).toEqual([['ls']]);
    expect(parts('k ()\n{\n  c\n}')).toEqual([['c']]);
  });

  it('reads commands after ! and time', () => {
    expect(parts('! rm x')).toEqual([['rm', 'x']]);
    expect(parts('time (make)')).toEqual([['make']]);
    expect(parts('time ! rm x')).toEqual([['rm', 'x']]);
  });

  it('treats [[ ]] and (( )) as tests but reads substitutions inside', () => {
    expect(parts('[[ -f x && $y == z ]] && a')).toEqual([['a']]);
    expect(parts('[[ -f $(c) ]] || (( n = $(d) + 1 ))')).toEqual([['c'], ['d']]);
    expect(parts('((i++))')).toEqual([]);
  });

  it('keeps keywords that are arguments', () => {
    expect(parts('echo if then done fi')).toEqual([['echo', 'if', 'then', 'done', 'fi']]);
  });

  it('reads a [ test as a command', () => {
    expect(parts('[ -f x ] && rm x')).toEqual([['[', '-f', 'x', ']'], ['rm', 'x']]);
  });

  it('reads commands after coproc', () => {
    expect(parts('coproc cat')).toEqual([['cat']]);
  });
});

describe('bash -c and other shells', () => {
  it('replaces bash -c with the parts of its script', () => {
    // the shell's own part stays for deny and ask to see, marked as running only its script
    expect(parts("bash -c 'rm -rf / && ls'")).toEqual([['bash', '-c', 'rm -rf / && ls', '^'], ['rm', '-rf', '/'], ['ls']]);
  });

  it('reads sh, zsh, dash and ksh, and option clusters', () => {
    expect(parts('sh -c "a"; zsh -lc "b"; dash -ec "c"; ksh -xc "d"; bash -o pipefail -c "e"').filter((p) => p.at(-1) !== '^')).toEqual([
      ['a'],
      ['b'],
      ['c'],
      ['d'],
      ['e'],
    ]);
  });

  it('reads a shell in a system directory', () => {
    expect(parts('/bin/bash -c "rm x"; /usr/bin/env bash -c "ls"')).toEqual([['/bin/bash', '-c', 'rm x', '^'], ['rm', 'x'], ['/usr/bin/env', 'bash', '-c', 'ls', '^'], ['ls']]);
  });

  it('keeps quoting inside the script', () => {
    expect(parts(`bash -c 'echo "a b" '"'"'c d'"'"''`).slice(1)).toEqual([['echo', 'a b', 'c d']]);
    expect(parts(`bash -c 'echo "a b"'`).slice(1)).toEqual([['echo', 'a b']]);
  });

  it('recurses into nested scripts', () => {
    expect(parts('bash -c "bash -c \\"rm x\\""')).toEqual([['bash', '-c', 'bash -c "rm x"', '^'], ['bash', '-c', 'rm x', '^'], ['rm', 'x']]);
  });

  it('reads substitutions in the script', () => {
    expect(parts("sh -c 'echo $(rm y)'")).toEqual([['sh', '-c', 'echo $(rm y)', '^'], ['echo', '~$(rm y)'], ['rm', 'y']]);
  });

  it('makes a dynamic script unknowable, with a part that may be any command', () => {
    const why = '!`bash -c` runs a script computed when the command runs';
    expect(parts('bash -c "$X"')).toEqual([['bash', '-c', '~$X', why], ['~$X', why, '^']]);
  });

  it('leaves shells without -c as programs, and a shell reading its input unknowable', () => {
    expect(parts('bash script.sh; sh; bash -c')).toEqual([['bash', 'script.sh'], ['sh', '!`sh` reads its commands from its input'], ['bash', '-c']]);
  });

  it('keeps a shell from an arbitrary path next to its script parts', () => {
    expect(parts('./bash -c "npm test"')).toEqual([['./bash', '-c', 'npm test'], ['npm', 'test']]);
  });

  it('gives no parts for an empty script', () => {
    expect(parts("bash -c ''")).toEqual([['bash', '-c', '', '^']]);
  });
});

describe('unknowable parts', () => {
  it('makes eval unknowable and still reads static arguments', () => {
    expect(parts('eval "rm -rf /"')).toEqual([['eval', 'rm -rf /', '!`eval` runs its arguments as shell code'], ['rm', '-rf', '/']]);
  });

  it('does not read dynamic eval arguments: they may be any command', () => {
    const why = '!`eval` runs its arguments as shell code';
    expect(parts('eval "$X"')).toEqual([['eval', '~$X', why], ['~$X', why, '^']]);
  });

  it('makes a dynamic program unknowable', () => {
    expect(parts('$CMD x')).toEqual([['~$CMD', 'x', '!the program name is computed when the command runs']]);
    expect(parts('$(which rm) -rf /')).toEqual([
      ['~$(which rm)', '-rf', '/', '!the program name is computed when the command runs'],
      ['which', 'rm'],
    ]);
  });

  it('treats source and . as knowable programs', () => {
    expect(parts('source x.sh; . y.sh')).toEqual([['source', 'x.sh'], ['.', 'y.sh']]);
  });
});

describe('unterminated input', () => {
  it('keeps the words read so far in an unknowable part', () => {
    expect(parts('ls && rm -rf / "x')).toEqual([['ls'], ['rm', '-rf', '/', '!unterminated double quote']]);
  });

  it('reports each construct', () => {
    expect(parts("echo 'x")).toEqual([['echo', '!unterminated single quote']]);
    expect(parts('echo $(ls')).toEqual([['echo', '!unterminated command substitution'], ['ls']]);
    expect(parts('echo `x')).toEqual([['echo', '!unterminated backtick']]);
    expect(parts('echo ${x')).toEqual([['echo', '!unterminated `${`']]);
    expect(parts("echo $'x")).toEqual([["echo", "!unterminated `$'` string"]]);
    expect(parts('a && (b')).toEqual([['a'], ['b'], ['!unterminated subshell']]);
    expect(parts('[[ a')).toEqual([['!unterminated `[[`']]);
    expect(parts('case x in a) b')).toEqual([['b'], ['!unterminated `case`']]);
  });

  it('covers the rest of the text', () => {
    const a = analyzeCommand('ok; "open ; rm x');
    expect(a.parts.map((p) => p.text)).toEqual(['ok', '"open ; rm x']);
    expect(a.parts[1]!.unknowable).toBe('unterminated double quote');
  });

  it('keeps an outer command whose substitution is cut short', () => {
    expect(parts('rm -rf / $(echo "x')).toEqual([
      ['rm', '-rf', '/', '!unterminated double quote'],
      ['echo', '!unterminated double quote'],
    ]);
  });

  it('contains an error inside a backtick body to that body', () => {
    expect(parts('echo `echo "x`; ls')).toEqual([['echo', '~`echo "x`'], ['echo', '!unterminated double quote'], ['ls']]);
  });
});
