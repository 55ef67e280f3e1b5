/**
 * Deterministic generator of shell command lines for the golden test of analyzeCommand: typical
 * agent commands (lists, pipes, quotes, redirections, wrappers, `bash -c`) and hostile ones
 * (unterminated constructs, deep nesting, here-documents, ANSI-C strings, unicode, long inputs).
 */

/** Small seeded PRNG (mulberry32). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

const PROGRAMS = [
  'git', 'npm', 'npx', 'pnpm', 'yarn', 'ls', 'cd', 'rm', 'cp', 'mv', 'mkdir', 'cat', 'echo', 'printf', 'grep', 'rg', 'sed',
  'awk', 'find', 'python3', 'python', 'node', 'pytest', 'cargo', 'go', 'make', 'docker', 'kubectl', 'curl', 'wget', 'jq',
  'tar', 'chmod', 'chown', 'head', 'tail', 'wc', 'sort', 'uniq', 'xxd', 'tool123', 'tsc', 'vitest', 'eslint', 'prettier',
  '/usr/bin/git', '/bin/rm', './script.sh', '../bin/run', '/tmp/x/rm', 'bin/dev', '~/bin/tool', 'test', '[', 'true', 'false',
  'source', '.', 'export', 'unset', 'read', 'set', 'trap', 'kill', 'sleep', 'wait', 'true',
];

const SUBCOMMANDS = [
  'status', 'diff', 'log', 'push', 'pull', 'commit', 'add', 'checkout', 'run', 'test', 'install', 'build', 'exec', 'ps',
  'apply', 'get', 'rebase', 'reset', 'clean', 'fmt', 'lint', 'start', 'stop', 'rm',
];

const ARGS = [
  '-x', '-la', '-rf', '-n', '5', '--force', '--x', '--oneline', '--name=value', '--dry-run', '-m', '"fix: the bug"',
  "'single quoted'", '.', '..', '/', '/etc/passwd', 'src/', '*.ts', '**/*.js', '~', '~/x', 'file.txt', 'a\\ b', '"$HOME"',
  '$HOME', '${PATH}', '$1', '$?', '$@', '"$@"', '${x:-default}', '${#arr[@]}', '$(pwd)', '`date`', '"$(git rev-parse HEAD)"',
  '$((1+2))', '{a,b}', 'x{1..3}', '{}', '\\;', '+', '-', '--', 'origin', 'main', 'HEAD~1', 'a=b', 'key=val', "$'a\\tb'",
  '$"msg"', '"a\\"b"', "'it'\\''s'", '"x y z"', '-p', '8080:80', 'http://example.com/a?b=c&d', "'http://x/?a=1&b=2'", '!(a|b)',
  '@(x)', '?(y)', 'é', '日本語', '"ü\\n"', '#notcomment', 'a#b', '=', 'x=', '=y', '-10', '-n10', '-uroot', '\\$x', '""', "''",
];

const REDIRECTS = [
  '> out', '>out.log', '2>&1', '>> log', '< in', '&>/dev/null', '2>/dev/null', '&>> all', '>| f', '<> rw', '3<&0', '{fd}>v',
  '1>&2', '<<< "here"', "<<<'x y'", '> "$(mktemp)"', '< $(ls)', '>&2', '2>>err', '0<in',
];

const ASSIGNMENTS = ['FOO=1', 'A+=b', 'arr[1]=x', 'a=(1 2 3)', 'X="a b"', "Y='c'", 'Z=$(id)', 'NODE_ENV=production', 'p=$PWD'];

const WRAPPERS = [
  'sudo', 'sudo -u root', 'sudo -E', 'sudo -uroot', 'sudo --user=x', 'sudo -l', 'sudo -e', 'sudo A=1', 'doas', 'doas -u x',
  'env', 'env -i', 'env A=b', 'env -u X', 'env -S', 'env --split-string', 'env -', 'env --chdir /', 'timeout 5', 'timeout -s KILL 10',
  'timeout --signal=TERM 3', 'nice', 'nice -n 5', 'nice -10', 'nohup', 'time', 'time -p', 'command', 'command -v', 'command -p',
  'builtin', 'exec', 'exec -a name', 'stdbuf -oL', 'ionice -c2', 'ionice -p', 'chrt 5', 'chrt -p', 'xargs', 'xargs -0', 'xargs -I{}',
  'xargs -n 1', 'xargs -i', '/usr/bin/sudo', './nohup', '/opt/x/env', '/usr/bin/env', 'sudo --', 'env --', '"sudo"', '$WRAP',
];

const SHELLS = ['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', '/bin/bash', '/usr/local/bin/zsh', './bash', 'rbash', 'mksh', 'ash'];

const SHELL_OPTS = ['-c', '-lc', '-ec', '-xc', '-o pipefail -c', '-c --', '+x -c', '--norc -c', '--rcfile x -c', '--command', '-l', '-O extglob -c'];

const OPERATORS = [' && ', ' || ', '; ', ' | ', ' |& ', ' & ', '\n', ' ;\n', '&&', '||', ';', '|', ' && \\\n  '];

const PIECES = [
  ' ', '\t', '\n', ';', ';;', ';&', ';;&', '&', '&&', '|', '||', '|&', '(', ')', '((', '))', '{', '}', '[[', ']]', '<', '>',
  '>>', '<<', '<<-', '<<<', '2>&1', '&>', '<(', '>(', '$(', '$((', '${', '`', "'", '"', "$'", '$"', '\\', '\\\n', '#', '=',
  'x=', 'a=(', '*', '?', '!', '!(', '@(', ',', '..', 'EOF', '\nEOF\n', 'if ', 'then ', 'elif ', 'else ', 'fi', 'for ', 'in ',
  'do ', 'done', 'while ', 'until ', 'case ', 'esac', ') ', 'function ', 'time ', 'coproc ', 'select ', 'sudo ', 'env -S ',
  'xargs ', 'nohup ', 'timeout 5 ', 'bash -c ', 'sh -lc ', 'eval ', 'find . -exec ', 'rm', ' -rf /', '$X', 'command -v ',
  '\\;', '+', '{}', 'git', ' status', 'echo', ' a', 'é', '\u0000', '\r', '\u00a0', '😀', '\ud800', '$1', '$?', '${x}', '}',
  '{fd}>', '3>', '-p ', 'f() ', '[[ -f x ]]', '(( i++ ))', ' in ', 'x', 'y', '0', '\\"', "\\'", '$\'\\x41', '\\u00e9',
];

function word(r: Rng): string {
  return r.pick(ARGS);
}

/** A simple command: optional assignments, wrappers, the program, arguments and redirections. */
function simple(r: Rng, depth: number): string {
  const out: string[] = [];
  if (r.chance(0.12)) out.push(r.pick(ASSIGNMENTS));
  if (r.chance(0.04)) out.push(r.pick(ASSIGNMENTS));
  let wrappers = r.chance(0.25) ? 1 + r.int(r.chance(0.2) ? 4 : 2) : 0;
  while (wrappers-- > 0) out.push(r.pick(WRAPPERS));
  if (depth < 3 && r.chance(0.08)) {
    out.push(shellCommand(r, depth + 1));
  } else if (depth < 3 && r.chance(0.04)) {
    out.push('eval', r.chance(0.5) ? quoteSingle(compound(r, depth + 1)) : compound(r, depth + 1).replace(/[;&|\n]/g, ' '));
  } else if (r.chance(0.04)) {
    out.push('find', r.pick(['.', 'src', '/']), r.pick(['-name', '-type']), r.pick(['"*.log"', 'f', 'd']));
    out.push(r.pick(['-exec', '-execdir', '-ok', '-okdir']), r.pick(['rm', 'grep -l x', 'sudo rm -f', 'bash -c "ls"']));
    out.push(r.pick(['{}', '{} +', '{} \\;', "{} ';'", '\\;', '']));
  } else {
    out.push(r.pick(PROGRAMS));
    if (r.chance(0.5)) out.push(r.pick(SUBCOMMANDS));
  }
  const n = r.int(r.chance(0.9) ? 4 : 12);
  for (let i = 0; i < n; i++) {
    if (r.chance(0.12)) out.push(r.pick(REDIRECTS));
    else out.push(word(r));
  }
  if (r.chance(0.1)) out.push(r.pick(REDIRECTS));
  const sep = r.chance(0.05) ? '\t' : r.chance(0.05) ? '  ' : ' ';
  return out.join(sep);
}

function quoteSingle(text: string): string {
  return "'" + text.replace(/'/g, "'\\''") + "'";
}

function quoteDouble(text: string): string {
  return '"' + text.replace(/[\\"$`]/g, (c) => '\\' + c) + '"';
}

function shellCommand(r: Rng, depth: number): string {
  const script = compound(r, depth);
  const opts = r.pick(SHELL_OPTS);
  const quoted = r.chance(0.5) ? quoteSingle(script) : r.chance(0.8) ? quoteDouble(script) : '"$SCRIPT"';
  const prefix = r.chance(0.3) ? r.pick(WRAPPERS) + ' ' : '';
  return `${prefix}${r.pick(SHELLS)} ${opts} ${quoted}${r.chance(0.2) ? ' arg0 arg1' : ''}`;
}

/** A command with structure: a simple command or a compound construct. */
function command(r: Rng, depth: number): string {
  if (depth >= 4) return simple(r, depth);
  const k = r.int(40);
  switch (k) {
    case 0:
      return `(${compound(r, depth + 1)})`;
    case 1:
      return `{ ${compound(r, depth + 1)}; }`;
    case 2:
      return `echo "$(${compound(r, depth + 1)})"`;
    case 3:
      return `x=$(${compound(r, depth + 1)})`;
    case 4:
      return `echo \`${simple(r, depth + 1)}\``;
    case 5:
      return `if ${simple(r, depth + 1)}; then ${compound(r, depth + 1)}; ${r.chance(0.3) ? `else ${simple(r, depth + 1)}; ` : ''}fi`;
    case 6:
      return `for f in ${word(r)} ${word(r)}; do ${compound(r, depth + 1)}; done`;
    case 7:
      return `while ${simple(r, depth + 1)}; do ${simple(r, depth + 1)}; done`;
    case 8:
      return `case ${word(r)} in a|b) ${simple(r, depth + 1)};; (*) ${simple(r, depth + 1)};& x) ;;& esac`;
    case 9:
      return `f() { ${compound(r, depth + 1)}; }`;
    case 10:
      return `function g { ${simple(r, depth + 1)}; }`;
    case 11:
      return `[[ -f ${word(r)} && $(${simple(r, depth + 1)}) == x ]]`;
    case 12:
      return `(( i = $(${simple(r, depth + 1)}) + 1 ))`;
    case 13: {
      const head = simple(r, depth + 1);
      const operator = r.pick(['EOF', "'EOF'", '"EOF"', '-EOF', '\\EOF', ' END']);
      const body = r.pick(['$(whoami)', 'text `id`', 'plain', '\t$x', '']);
      const end = r.pick(['EOF', '\tEOF', 'END', 'EOFX']);
      return `${head} <<${operator}\n${body}\n${end}\n${simple(r, depth + 1)}`;
    }
    case 14:
      return `diff <(${simple(r, depth + 1)}) >(${simple(r, depth + 1)})`;
    case 15:
      return `${simple(r, depth + 1)} # ${simple(r, depth + 1)}`;
    case 16:
      return `time ${r.chance(0.5) ? '-p ' : ''}${r.chance(0.5) ? '{ ' + simple(r, depth + 1) + '; }' : simple(r, depth + 1)}`;
    case 17:
      return `! ${simple(r, depth + 1)}`;
    case 18:
      return `for (( i=0; i<$(${simple(r, depth + 1)}); i++ )); do ${simple(r, depth + 1)}; done`;
    case 19:
      return `echo $'${r.pick(['\\x41\\101\\u00e9', '\\cA\\e[0m', "it\\'s", '\\U0001F600', '\\uD800', '\\777', '\\xZZ', '\\c', '\\q'])}'`;
    case 20:
      return `echo "\${x:-$(${simple(r, depth + 1)})}" \${y/a/b}`;
    case 21:
      return `coproc ${simple(r, depth + 1)}`;
    case 22:
      return `select x in a b; do ${simple(r, depth + 1)}; done`;
    case 23:
      return `arr=(${word(r)} $(${simple(r, depth + 1)}) ${word(r)}) ${simple(r, depth + 1)}`;
    default:
      return simple(r, depth);
  }
}

function compound(r: Rng, depth: number): string {
  const n = 1 + r.int(depth === 0 ? 4 : 2);
  let text = command(r, depth);
  for (let i = 1; i < n; i++) text += r.pick(OPERATORS) + command(r, depth);
  if (r.chance(0.05)) text = '  ' + text + ' ';
  return text;
}

function hostile(r: Rng): string {
  const n = r.int(40);
  let text = '';
  for (let i = 0; i < n; i++) text += r.pick(PIECES);
  return text;
}

function randomChars(r: Rng): string {
  const alphabet = 'ab $\'"`\\(){}[]<>|&;#=*?!~,.-+/\n\t0123456789xé😀';
  const n = r.int(30);
  let text = '';
  for (let i = 0; i < n; i++) text += r.pick(alphabet.split(''));
  return text;
}

function nested(r: Rng): string {
  const depth = 1 + r.int(20);
  const kind = r.int(6);
  const core = simple(r, 3);
  switch (kind) {
    case 0:
      return '$('.repeat(depth) + core + ')'.repeat(depth);
    case 1:
      return '('.repeat(depth) + core + ')'.repeat(depth);
    case 2: {
      let s = core;
      for (let i = 0; i < depth; i++) s = `bash -c ${JSON.stringify(s)}`;
      return s;
    }
    case 3: {
      let s = core;
      for (let i = 0; i < depth; i++) s = `sudo ${s}`;
      return s;
    }
    case 4:
      return '"$('.repeat(depth) + core + ')"'.repeat(depth);
    default:
      return '{ '.repeat(depth) + core + '; }'.repeat(depth);
  }
}

/** Commands that the fast path gives up on, at their start or part way through. */
const STOPPERS = [
  'if a; then b; fi', 'for f in *; do echo "$f"; done', 'case $x in a) b;; esac', '[[ -f x ]]', '[[ x', '(( i++ ))', '(a; b)',
  '{ a; b; }', 'echo "$(date)"', 'x=$(pwd) y', 'echo `id`', 'cat <<EOF\nbody $(id)\nEOF', "cat <<'Q'\n$(no)\nQ", 'f() { g; }',
  'diff <(a) <(b)', "echo $'a\\tb'", 'echo $"m"', 'a \\\n b', 'echo ${x:-"$(y)"}', '{fd}>out cmd', 'time ls', '! true',
  'while read l; do :; done < f', 'coproc x', 'select v in a; do b; done', 'if', 'case', 'echo "unterminated', "echo 'open",
  '$(', '`', '((', 'a=(1 2) b', 'echo !(x)', 'echo @(a|b)',
];

/** Lists that mix commands the fast path reads with ones it hands over to the parser, nested too. */
function mixed(r: Rng, depth: number): string {
  const n = 1 + r.int(5);
  let text = '';
  for (let i = 0; i < n; i++) {
    if (i > 0) text += r.pick(OPERATORS);
    const k = r.int(10);
    if (k < 4) text += simple(r, 3);
    else if (k < 7) text += r.pick(STOPPERS);
    else if (depth < 2) {
      const inner = mixed(r, depth + 1);
      const cut = r.chance(0.3) ? inner.slice(0, r.int(inner.length + 1)) : inner;
      text += r.pick([
        (x: string) => `bash -c ${quoteSingle(x)}`,
        (x: string) => `sh -c ${quoteDouble(x)}`,
        (x: string) => `sudo bash -c ${quoteSingle(x)}`,
        (x: string) => `eval ${quoteSingle(x)}`,
        (x: string) => `echo "$(${x})"`,
        (x: string) => `(${x})`,
        (x: string) => `{ ${x}; }`,
        (x: string) => `cat <<EOF\n${x}\nEOF`,
      ])(cut);
    } else {
      text += simple(r, 3);
    }
  }
  return text;
}

/** A few thousand command lines, always the same for the same seed. */
export function generateCorpus(seed = 20240611): string[] {
  const r = new Rng(seed);
  const out: string[] = [];
  // typical short agent commands
  for (let i = 0; i < 2500; i++) out.push(compound(r, 0));
  for (let i = 0; i < 500; i++) out.push(simple(r, 0));
  // hostile ones
  for (let i = 0; i < 800; i++) out.push(hostile(r));
  for (let i = 0; i < 500; i++) out.push(randomChars(r));
  for (let i = 0; i < 200; i++) out.push(nested(r));
  // cut short at a random point: unterminated constructs
  for (let i = 0; i < 600; i++) {
    const full = compound(r, 0);
    out.push(full.slice(0, r.int(full.length + 1)));
  }
  // spliced: a typical command with a hostile piece inserted
  for (let i = 0; i < 400; i++) {
    const full = compound(r, 0);
    const at = r.int(full.length + 1);
    out.push(full.slice(0, at) + r.pick(PIECES) + full.slice(at));
  }
  // the fast path and the parser taking turns
  for (let i = 0; i < 2000; i++) out.push(mixed(r, 0));
  // long inputs
  for (let i = 0; i < 3; i++) {
    const parts: string[] = [];
    let len = 0;
    const target = 2000 << (i * 2);
    while (len < target) {
      const c = compound(r, 0);
      parts.push(c);
      len += c.length + 4;
    }
    out.push(parts.join(r.pick([' && ', '\n', '; ', ' | '])));
  }
  out.push((compound(r, 0) + ' && ').repeat(2000));
  out.push('echo ' + 'x'.repeat(100_000));
  out.push('echo "' + 'a b '.repeat(20_000) + '"');
  out.push("echo '" + 'q'.repeat(50_000));
  out.push('a && '.repeat(10_000));
  out.push('ls && ' + 'x'.repeat((1 << 20) + 10));
  out.push('sudo '.repeat(40) + 'rm x');
  out.push('`'.repeat(101));
  out.push('cat <<EOF\n'.repeat(50));
  return out;
}
