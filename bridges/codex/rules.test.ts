import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeCommand, compilePolicy, evaluateSync, normalizeEvent, IR_VERSION, type Rule } from '../../engine/index.js';
import { importPermissions } from '../permissions.js';
import { importCodexRules } from './rules.js';
import { CodexPolicy, absolutePath, decisionWord, pathFileName, quoteArgv, shlexSplit, type CodexDecision } from './rules-codex.js';
import { parseStarlark, StarlarkError } from './rules-starlark.js';

const HOME = '/home/me';

function imported(text: string, file = 'test.rules') {
  return importCodexRules(text, file, { home: HOME });
}

function codes(text: string): string[] {
  return imported(text).diagnostics.map((d) => `${d.severity} ${d.code} ${d.span?.start.line}:${d.span?.start.column}`);
}

function patterns(r: Rule): string[] {
  const s = r.selectors?.[0];
  return s?.kind === 'command' ? s.patterns : [];
}

const STRICTNESS: Record<string, number> = { allow: 0, none: 1, ask: 2, deny: 3 };

function decide(rules: Rule[], command: string): string {
  const policy = compilePolicy({ version: IR_VERSION, sources: ['test.rules'], rules, tests: [] });
  return evaluateSync(policy, normalizeEvent({ seam: 'pre-tool', tool: 'Bash', input: { command } }).event!).decision;
}

describe('reading the starlark of a rules file', () => {
  it('decodes strings as starlark does', () => {
    const r = imported(String.raw`prefix_rule(pattern = ["a\tb", "\x41\101\u00e9\U0001F600", "\d", r"\n\"", '''x
y''', "c\
d"])`);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(patterns(r.rules[0]!)).toEqual([`'a\tb' 'AA\u00e9\u{1F600}' '\\d' '\\n"' 'x\ny' cd *`]);
  });

  it('evaluates variables, `+`, `+=`, f-strings and positional arguments', () => {
    const r = imported('P = "git"\nALTS = ["status"]\nALTS += ["log"]\nprefix_rule([f"{P}", ALTS] + ["-n"], "prompt")\n');
    expect(patterns(r.rules[0]!)).toEqual(["'git' status -n *", "'git' log -n *"]);
    expect(r.rules[0]!.effect).toBe('ask');
  });

  it('reports a syntax error at its line, column and offset, and stops', () => {
    const r = imported('prefix_rule(pattern = ["a"])\nprefix_rule(pattern = ["b" "c"])\n');
    expect(r.rules).toEqual([]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'import/syntax', severity: 'error', span: { file: 'test.rules', start: { line: 2, column: 28, offset: 56 } } });
    expect(r.diagnostics[0]!.message).toBe('expected `,` or `]`, found a string');
  });

  it('reports the first problem in source order, whether lexical or not', () => {
    expect(() => parseStarlark('def f():\n\tpass\n')).toThrow(/`def` statement/);
    expect(() => parseStarlark('x = 1\n\tx = 2\n')).toThrow(/tabs are not allowed/);
    expect(() => parseStarlark('x = 01\n')).toThrow(StarlarkError);
    expect(parseStarlark('\t# a comment may follow a tab\nx = 1\n')).toHaveLength(1);
  });

  it('reads `None` as an absent optional argument and rejects it for `pattern`', () => {
    expect(imported('prefix_rule(pattern = ["a"], decision = None, match = None)').rules[0]!.effect).toBe('allow');
    expect(codes('prefix_rule(pattern = None)')).toEqual(['error import/invalid-rule 1:1']);
  });

  it('reports several evaluation errors, without a second one for a variable whose value failed', () => {
    expect(codes('X = [1 + "a"]\nprefix_rule(pattern = X)\nprefix_rule(pattern = [1])\n')).toEqual([
      'error import/invalid-rule 1:6',
      'error import/invalid-rule 3:24',
    ]);
  });

  it('reports values nested past its limit instead of running out of stack', () => {
    expect(codes(`prefix_rule(pattern = ${'['.repeat(150)}"a"${']'.repeat(150)})`)).toEqual(['error import/unsupported 1:122']);
  });

  it('never throws, and gives every diagnostic a span, on arbitrary text', () => {
    const piece = fc.constantFrom(
      'prefix_rule(', 'pattern', '=', '[', ']', '(', ')', ',', '"git"', "'x'", '"""', 'r"\\', 'f"{a}"', '\\\n', '#', '\n', '\t', ' ',
      'match', 'decision', '"allow"', 'x', '+', '1', '"\\x4', 'def', 'None', 'host_executable(', 'network_rule(',
    );
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.array(piece, { maxLength: 30 }).map((a) => a.join('')));
    fc.assert(
      fc.property(text, (t) => {
        const r = importCodexRules(t, 'fuzz.rules');
        for (const d of r.diagnostics) expect(d.span?.file).toBe('fuzz.rules');
      }),
      { numRuns: 400 },
    );
  });

  it('suggests the argument a misspelt one was meant to be', () => {
    const d = imported('prefix_rule(pattern = ["a"], not_matches = ["b"])').diagnostics[0]!;
    expect(d.message).toBe('`not_matches` is not an argument of `prefix_rule`');
    expect(d.help).toBe('did you mean `not_match`?');
  });
});

describe('codex semantics', () => {
  it('splits string examples as the shlex crate does', () => {
    expect(shlexSplit(`a 'b c' "d \\" \\x" e\\ f # gone`)).toEqual(['a', 'b c', 'd " \\x', 'e f']);
    expect(shlexSplit('a#b "#c"')).toEqual(['a#b', '#c']);
    expect(shlexSplit(`Remove-Item .\\dist`)).toEqual(['Remove-Item', '.dist']);
    expect(shlexSplit('"open')).toBeNull();
    expect(shlexSplit('trailing\\')).toBeNull();
    expect(shlexSplit('  ')).toEqual([]);
  });

  it('resolves program paths as AbsolutePathBuf and Path::file_name do', () => {
    expect(absolutePath('~/bin/../tools/git', HOME)).toBe('/home/me/tools/git');
    expect(absolutePath('./git', HOME)).toBeNull();
    expect(pathFileName('/usr/bin/git/')).toBe('git');
    expect(pathFileName('/usr/..')).toBeNull();
  });

  // The concrete cases of codex-rs/execpolicy/tests/basic.rs (reference §2.5), without heuristics.
  it('decides as codex execpolicy does', () => {
    const p = new CodexPolicy(HOME);
    const add = (first: string, rest: string[][], decision: CodexDecision): void => p.add({ first, rest, decision, id: first });
    add('git', [], 'prompt');
    add('git', [['commit']], 'forbidden');
    add('bash', [['-c', '-l']], 'allow');
    add('sh', [['-c', '-l']], 'allow');
    add('npm', [['i', 'install'], ['--legacy-peer-deps', '--no-save']], 'allow');
    expect(p.decide(['git', 'status'])).toBe('prompt');
    expect(p.decide(['git', 'commit', '-m', 'hi'])).toBe('forbidden');
    expect(p.matches(['git', 'commit', '-m', 'hi']).map((r) => r.decision)).toEqual(['prompt', 'forbidden']);
    expect(p.decide(['sh', '-l', 'echo', 'hi'])).toBe('allow');
    expect(p.decide(['npm', 'install', '--no-save', 'leftpad'])).toBe('allow');
    expect(p.decide(['npm', 'install'])).toBe('none');
    expect(p.decide(['gitk'])).toBe('none');
    expect(p.decide(['/usr/bin/git', 'status'])).toBe('prompt');
    expect(p.decide(['./git', 'status'])).toBe('none');
    p.setHostExecutable('git', ['/usr/bin/git']);
    expect(p.decide(['/usr/bin/git', 'status'])).toBe('prompt');
    expect(p.decide(['/opt/homebrew/bin/git', 'status'])).toBe('none');
    p.setHostExecutable('git', []);
    expect(p.decide(['/usr/bin/git', 'status'])).toBe('none');
    add('/usr/bin/git', [], 'allow');
    expect(p.decide(['/usr/bin/git', 'status'])).toBe('allow');
    expect(decisionWord('forbidden')).toBe('deny');
  });

  it('quotes an argv so that shlex and bash read back the same words', () => {
    const word = fc.string({ unit: 'binary', maxLength: 8 }).filter((w) => !w.includes('\0'));
    fc.assert(
      fc.property(fc.constantFrom('git', 'if', 'FOO=1', 'a b', '*', "it's"), fc.array(word, { maxLength: 5 }), (program, args) => {
        const argv = [program, ...args];
        expect(shlexSplit(quoteArgv(argv))).toEqual(argv);
        const parts = analyzeCommand(quoteArgv(argv)).parts;
        expect(parts.map((p) => p.words.map((w) => [w.value, w.dynamic]))).toEqual([argv.map((w) => [w, false])]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('translation', () => {
  it('gives one rule per call, with an id and span at the call, and comments naming its origin', () => {
    const r = imported('\n  # x\nprefix_rule(\n  pattern = [["npm", "pnpm"], "run"],\n  decision = "forbidden",\n  justification = "no scripts",\n)\n');
    expect(r.rules).toHaveLength(1);
    const rule = r.rules[0]!;
    expect(rule).toMatchObject({ id: 'test.rules:3:1', seam: 'pre-tool', effect: 'deny', tools: ['Bash'], reason: 'no scripts' });
    expect(rule.span).toEqual({ file: 'test.rules', start: { line: 3, column: 1, offset: 7 }, end: { line: 7, column: 2, offset: 117 } });
    expect(patterns(rule)).toEqual(["'npm' run *", "'pnpm' run *"]);
    expect(r.comments.get(rule)).toEqual(['codex rule at test.rules:3:1: prefix_rule(pattern=[["npm", "pnpm"], "run"], decision="forbidden")']);
  });

  it('is reached through importPermissions', () => {
    expect(importPermissions('codex', 'rules', 'prefix_rule(pattern = ["ls"])', 'a.rules')?.rules).toHaveLength(1);
  });

  it('names each test case by its rule and example, expecting the whole file\'s decision', () => {
    const r = imported('prefix_rule(pattern = ["git"], decision = "prompt")\nprefix_rule(pattern = ["git", "status"], match = [["git", "status", "-s"]], not_match = ["ls"])\n');
    expect(r.tests.map((t) => [t.name, t.expect, (t.event['input'] as { command: string }).command])).toEqual([
      ['test.rules:2:1 match `git status -s`', 'ask', 'git status -s'],
      ['test.rules:2:1 not_match `ls`', 'none', 'ls'],
    ]);
    expect(r.tests[0]!.span?.start).toEqual({ line: 2, column: 51, offset: 102 });
  });

  it('imports nothing and says nothing for an empty file', () => {
    expect(imported('')).toMatchObject({ rules: [], tests: [], diagnostics: [] });
    expect(imported('# only a comment\n\n').diagnostics).toEqual([]);
  });

  it('refuses a pattern of more than MAX_PATTERNS combinations', () => {
    const alts = JSON.stringify(Array.from({ length: 11 }, (_, i) => `w${i}`));
    expect(codes(`prefix_rule(pattern = ["x", ${alts}, ${alts}, ${alts}])`)).toEqual(['error import/too-large 1:1']);
  });
});

describe('differences from codex', () => {
  const approximate = (text: string): string[] => imported(text).diagnostics.filter((d) => d.code === 'import/approximate').map((d) => d.message);

  it('reports nothing at rules of plain programs, and the file-wide reading once', () => {
    const r = imported('prefix_rule(pattern = ["cat", "x"], decision = "forbidden")\nprefix_rule(pattern = ["cat"], decision = "prompt")\nprefix_rule(pattern = ["ls"])\n');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['import/command-reading']);
    expect(r.diagnostics[0]!.help).toContain('`sudo cat x`');
    expect(r.diagnostics[0]!.help).toContain('`nice ls`');
  });

  it('reports a stricter rule that reaches a command run by an option (`git -c alias.x=!CMD`)', () => {
    const r = imported('prefix_rule(pattern = ["git", "push"], decision = "forbidden")\nprefix_rule(pattern = ["git"], decision = "prompt")\n');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['import/approximate', 'import/command-reading']);
    expect(r.diagnostics[0]!.message).toContain('inside `git -c CMD`');
  });

  it('reports nothing for a shell rule, whose part deny and ask see beside its script', () => {
    expect(approximate('prefix_rule(pattern = [["bash", "zsh"], "-lc"], decision = "prompt")')).toEqual([]);
  });

  it('reports a wrapper rule only when a stricter rule could apply to what it runs', () => {
    expect(approximate('prefix_rule(pattern = ["sudo", "ls"], decision = "prompt")\nprefix_rule(pattern = ["rm"], decision = "forbidden")')).toEqual([]);
    const help = imported('prefix_rule(pattern = ["sudo"], decision = "prompt")\nprefix_rule(pattern = ["rm"], decision = "forbidden")').diagnostics[0]!;
    expect(help.message).toBe('the stricter rule `test.rules:2:1` (`deny`) also applies here to the command run inside `sudo CMD`, where codex matches only the argv as a whole');
    expect(approximate('prefix_rule(pattern = ["sudo"], decision = "forbidden")\nprefix_rule(pattern = ["rm"], decision = "forbidden")')).toEqual([]);
  });

  it('reports allow rules whose commands run other commands', () => {
    expect(approximate('prefix_rule(pattern = ["xargs"])')[0]).toBe('this `allow` allows `xargs bash -c CMD` here only when the commands it runs are allowed too');
    expect(approximate('prefix_rule(pattern = ["eval"])')[0]).toMatch(/^this `allow` never allows `eval` here: `eval` runs its arguments as shell code/);
  });
});

describe('a rule set without reported differences decides as codex does', () => {
  const PLAIN = ['git', 'rm', 'ls'];
  const SPECIAL = ['sudo', 'env', 'bash', 'sh', 'find', 'eval', 'nice', 'timeout', 'xargs', 'time', 'command', '/usr/bin/git', 'bin/rm', '~/bin/ls', 'doas', 'fish'];
  const ARGS = ['status', 'push', '-rf', '-c', '-lc', '-exec', ';', 'x', '-S', '--', '*', 'a b', "it's", '', 'FOO=1', 'if', '&&', '|', '$HOME', '$(x)', '-u', '5', 'git', 'rm', 'sudo', 'bash', '{}', '-n'];
  const program = fc.oneof({ arbitrary: fc.constantFrom(...PLAIN), weight: 3 }, { arbitrary: fc.constantFrom(...SPECIAL), weight: 2 });
  const word = fc.constantFrom(...ARGS);
  const position = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T[]> =>
    fc.oneof({ arbitrary: a.map((x) => [x]), weight: 3 }, { arbitrary: fc.uniqueArray(a, { minLength: 2, maxLength: 2 }), weight: 1 });
  const rule = fc.record({
    pattern: fc.tuple(position(program), fc.array(position(word), { maxLength: 2 })).map(([first, rest]) => [first, ...rest]),
    decision: fc.constantFrom<CodexDecision>('allow', 'prompt', 'forbidden'),
  });
  const command = fc.record({ own: fc.boolean(), pick: fc.nat(), args: fc.array(fc.oneof(word, program), { maxLength: 4 }) });

  // The commands compared: each rule's own commands (its pattern and any words after), and commands
  // that dshpolicy reads as exactly their argv (a program that is no wrapper, shell, `eval`, `find`
  // or path). What dshpolicy reads otherwise is the file-wide difference it reports.
  it('agrees with its own codex matcher on random commands', () => {
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 4 }), fc.array(command, { minLength: 10, maxLength: 10 }), (rules, commands) => {
        const text = rules.map((r) => `prefix_rule(pattern = ${JSON.stringify(r.pattern.map((p) => (p.length === 1 ? p[0] : p)))}, decision = "${r.decision}")`).join('\n');
        const r = importCodexRules(text, 'p.rules', { home: HOME });
        expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        if (r.diagnostics.some((d) => d.code === 'import/approximate')) return;
        const codex = new CodexPolicy(HOME);
        rules.forEach((x, i) => {
          for (const first of x.pattern[0]!) codex.add({ first, rest: x.pattern.slice(1), decision: x.decision, id: String(i) });
        });
        const programs = [...new Set([...rules.flatMap((x) => x.pattern[0]!), 'git', 'ls', 'cat'])];
        const isOwn = (argv: string[]): boolean => rules.some((x) => x.pattern.length <= argv.length && x.pattern.every((alts, i) => alts.includes(argv[i]!)));
        const readAsArgv = (argv: string[]): boolean => {
          const parts = analyzeCommand(quoteArgv(argv)).parts;
          const p = parts[0];
          return parts.length === 1 && p !== undefined && p.unknowable === null && p.views.length === 1 && !argv[0]!.includes('/') && p.words.map((w) => w.value).join('\0') === argv.join('\0');
        };
        for (const c of commands) {
          const x = rules[c.pick % rules.length]!;
          const argv = c.own ? [...x.pattern.map((alts, i) => alts[(c.pick + i) % alts.length]!), ...c.args] : [programs[c.pick % programs.length]!, ...c.args];
          const asArgv = readAsArgv(argv);
          if (!isOwn(argv) && !asArgv) continue;
          const [ours, theirs] = [decide(r.rules, quoteArgv(argv)), decisionWord(codex.decide(argv))];
          // a rule's own command that dshpolicy reads further than its argv (`bash -c '$(x)'`, whose
          // script may run anything) may be judged more strictly than codex's argv match, never less
          if (asArgv) expect(ours, `${text}\n${quoteArgv(argv)}`).toBe(theirs);
          else expect(STRICTNESS[ours]! >= STRICTNESS[theirs]!, `${text}\n${quoteArgv(argv)}: ${ours} against codex's ${theirs}`).toBe(true);
        }
      }),
      { numRuns: 250 },
    );
  }, 120_000);
});
