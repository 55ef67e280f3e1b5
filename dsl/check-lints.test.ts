import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicy, evaluate, normalizeEvent, regexMatches, type Diagnostic } from '../engine/index.js';
import { unsatisfiable } from './lint-regex.js';
import { patternCovers } from './lint-shadowed.js';
import { codesAt } from './compile-testkit.js';
import { compileText } from './index.js';

const LINTS = [
  'check/shadowed-rule',
  'check/dead-rule',
  'check/allow-any-command',
  'check/command-never-allowed',
  'check/regex-never-matches',
  'check/unknown-tool-glob',
  'check/path-glob-never-matches',
  'check/unknown-command-option',
];

const block = (seam: string, lines: string[]): string => `on ${seam} {\n${lines.map((l) => `  ${l}\n`).join('')}}\n`;
const preTool = (...lines: string[]) => compileText(block('pre-tool', lines));
const lints = (text: string): string[] => codesAt(compileText(text)).filter((c) => LINTS.some((l) => c.startsWith(`${l}@`)));
const pre = (...lines: string[]) => lints(block('pre-tool', lines));
const only = (r: { diagnostics: Diagnostic[] }, code: string): Diagnostic => {
  const found = r.diagnostics.filter((d) => d.code === code);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('shadowed rules', () => {
  it('names the covering rule by file, line and column', () => {
    const r = preTool('deny Bash', 'deny Bash command "rm *"', 'ask Bash command "git push *" because "push"');
    expect(codesAt(r)).toEqual(['check/shadowed-rule@3:3', 'check/shadowed-rule@4:3']);
    expect(r.diagnostics[0]).toMatchObject({
      severity: 'warning',
      message: 'this `deny` is redundant: the `deny` at `policy.dshpolicy:2:3` fires whenever it does',
      help: 'remove this `deny`: it changes neither the decision nor its reasons',
    });
    expect(r.diagnostics[1]).toMatchObject({
      message: 'this `ask` never takes effect: the `deny` at `policy.dshpolicy:2:3` fires whenever it does and outranks it',
      help: 'remove this `ask`, or narrow the `deny` so that it no longer fires whenever this rule does',
    });
    // the whole rule
    expect(r.diagnostics[1]!.span).toMatchObject({ start: { line: 4, column: 3 }, end: { line: 4, column: 47 } });
    expect(r.ir).toBeDefined();
  });

  it('leaves to check/dead-allow the allows it reports, and reports the ones it misses', () => {
    expect(codesAt(preTool('deny Bash', 'allow Bash command "ls"'))).toEqual(['check/dead-allow@3:3']);
    expect(codesAt(preTool('deny Bash command "npm test *"', 'allow Bash command "npm test"'))).toEqual(['check/shadowed-rule@3:3']);
  });

  it('prefers the strictest covering rule, then the first', () => {
    const r = preTool('ask Bash command "ls"', 'deny Bash because "x"', 'deny *', 'allow Read when cwd == "/"', 'allow Read');
    expect(codesAt(r)).toEqual(['check/shadowed-rule@2:3', 'check/dead-allow@5:3', 'check/dead-allow@6:3']);
    expect(only(r, 'check/shadowed-rule').message).toContain('the `deny` at `policy.dshpolicy:3:3`');
  });

  it('needs the covering rule\'s condition to be part of the rule\'s', () => {
    expect(pre('deny Bash when cwd == "/"', 'ask Bash when cwd == "/"')).toEqual(['check/shadowed-rule@3:3']);
    expect(pre('deny Bash when cwd == "/"', 'ask Bash when cwd == "/" and session == "s"')).toEqual(['check/shadowed-rule@3:3']);
    expect(pre('deny Bash when cwd == "/"', 'ask Bash when cwd == "/" or session == "s"')).toEqual([]);
    expect(pre('deny Bash when cwd == "/" and session == "s"', 'ask Bash when cwd == "/"')).toEqual([]);
    expect(pre('deny Bash when cwd == "/"', 'ask Bash')).toEqual([]);
  });

  it('compares conditions after names are resolved', () => {
    expect(lints('let root = "/"\n' + block('pre-tool', ['deny Bash when cwd == root', 'ask Bash when cwd == "/"']))).toEqual(['check/shadowed-rule@4:3']);
  });

  it('needs each selector of the covering rule to match a superset of one of the rule\'s', () => {
    expect(pre('deny Bash command "git *"', 'ask Bash command "git push", "git status *"')).toEqual(['check/shadowed-rule@3:3']);
    expect(pre('deny Bash command "git *"', 'ask Bash command "git push", "npm test"')).toEqual([]);
    expect(pre('deny Read path "**/.env"', 'ask Read path "**/.env" when cwd == "/"')).toEqual(['check/shadowed-rule@3:3']);
    expect(pre('deny Read path "**/.env"', 'ask Read path ".env"')).toEqual([]);
    expect(pre('deny Read path "**/.env"', 'ask Read')).toEqual([]);
    expect(pre('deny WebFetch domain "*"', 'ask WebFetch domain "a.example.com"')).toEqual(['check/shadowed-rule@3:3']);
    expect(pre('deny WebFetch domain "example.com"', 'ask WebFetch domain "*.example.com"')).toEqual([]);
  });

  it('keeps rules of one level that show different reasons', () => {
    expect(pre('deny Bash because "a"', 'deny Bash command "rm *" because "b"')).toEqual([]);
    expect(pre('deny Bash', 'deny Bash command "rm *" because "b"')).toEqual([]);
    expect(pre('deny Bash because "a"', 'deny Bash command "rm *"')).toEqual(['check/shadowed-rule@3:3']);
    // an allow shows no reason: its `because` does not count
    expect(lints(block('pre-tool', ['allow Read', 'allow Read path "x" because "y"']))).toEqual(['check/shadowed-rule@3:3']);
  });

  it('reports the later of two equal rules only', () => {
    expect(pre('deny Bash command "rm *"', 'deny Bash command "rm *"', 'deny Bash command "rm *"')).toEqual([
      'check/shadowed-rule@3:3',
      'check/shadowed-rule@4:3',
    ]);
  });

  it('does not report a rule of another file at its level, but does across levels', () => {
    const files = { 'base.dshpolicy': block('pre-tool', ['deny Bash command "rm *"']) };
    const same = compileText(`include "./base.dshpolicy"\n${block('pre-tool', ['deny Bash command "rm -rf /"'])}`, 'main.dshpolicy', files);
    expect(same.diagnostics).toEqual([]);
    const across = compileText(`include "./base.dshpolicy"\n${block('pre-tool', ['ask Bash command "rm -rf /"'])}`, 'main.dshpolicy', files);
    expect(codesAt(across)).toEqual(['check/shadowed-rule@3:3']);
    expect(across.diagnostics[0]!.message).toContain('`base.dshpolicy:2:3`');
  });

  it('covers the other seams\' decisions, not context, hooks or limits', () => {
    expect(lints(block('stop', ['halt', 'continue when stop_hook_active == true']))).toEqual(['check/shadowed-rule@3:3']);
    expect(lints(block('prompt', ['block', 'block when prompt contains "x"']))).toEqual(['check/shadowed-rule@3:3']);
    expect(lints(block('prompt', ['context "a"', 'context "a"', 'block when prompt contains "x"']))).toEqual([]);
    expect(lints(block('pre-tool', ['deny Bash', 'run Bash hook "./x.sh"']))).toEqual([]);
    expect(lints(block('stop', ['limit 3', 'limit 4']))).toEqual([]);
  });
});

describe('command pattern coverage', () => {
  it.each([
    ['*', 'rm -rf /'],
    ['rm *', 'rm'],
    ['rm *', 'rm -rf *'],
    ['git *', 'git push *'],
    ['git push', 'git push'],
    ['npm run *', 'npm run lint*'],
    ['*.sh', './x.sh'],
  ])('`%s` covers `%s`', (p, q) => expect(patternCovers(p, q)).toBe(true));

  // rm's options are read as options: `rm -rf /` also matches `rm -fr /` and `rm / -rf`, which
  // these patterns, compared word by word or with one more operand, do not
  it.each([
    ['rm * /', 'rm -rf /'],
    ['rm -r* *', 'rm -rf /'],
    ['rm -*f /', 'rm -rf /'],
    ['git push*', 'git push-all*'],
  ])('`%s` does not cover `%s` where options are read', (p, q) => expect(patternCovers(p, q)).toBe(false));

  it.each([
    ['rm -rf /', 'rm *'],
    ['rm *', 'git *'],
    ['git push', 'git push *'],
    ['git push *', 'git *'],
    ['rm -rf', 'rm -rf /'],
    ['rm x*', 'rm *'],
    ['rm a*b', 'rm a*'],
    ['rm * /', 'rm *'],
    ['rm *.txt', 'rm a*'],
  ])('`%s` does not cover `%s`', (p, q) => expect(patternCovers(p, q)).toBe(false));
});

describe('dead rules', () => {
  it('reports a condition that is always false at its false part', () => {
    const r = preTool('deny Bash when cwd == "/x" and false');
    expect(codesAt(r)).toEqual(['check/dead-rule@2:34']);
    expect(r.diagnostics[0]).toMatchObject({
      message: 'this `deny` never fires: its `when` condition is always false',
      help: '`false` is never true; remove the rule or fix its condition',
    });
  });

  it('folds `not`, `and` and `or`', () => {
    expect(pre('deny Bash when not true')).toEqual(['check/dead-rule@2:18']);
    expect(pre('deny Bash when false or not true')).toEqual(['check/dead-rule@2:18']);
    expect(pre('deny Bash when not false')).toEqual([]);
    expect(pre('deny Bash when false or cwd == "/"')).toEqual([]);
    expect(pre('deny Bash when not (tool == "Read")')).toEqual([]);
  });

  it('finds comparisons of one field that no value satisfies together', () => {
    expect(pre('deny Bash when cwd == "/a" and cwd == "/b"')).toEqual(['check/dead-rule@2:34']);
    expect(pre('deny Bash when input.n == 1 and input.n == "1"')).toEqual(['check/dead-rule@2:35']);
    expect(pre('deny Bash when cwd in ["/a", "/b"] and cwd != "/a" and cwd != "/b"')).toEqual(['check/dead-rule@2:58']);
    expect(pre('deny Bash when input.x == null and input.x exists')).toEqual(['check/dead-rule@2:38']);
    expect(pre('deny Bash when not input.x exists and input.x == 1')).toEqual(['check/dead-rule@2:41']);
    expect(pre('deny Bash when cwd startswith "/a" and not cwd startswith "/a"')).toEqual(['check/dead-rule@2:42']);
    expect(pre('deny Bash when cwd in ["/a", "/b"] and cwd != "/a"')).toEqual([]);
    expect(pre('deny Bash when not input.x exists and input.x == null')).toEqual([]);
    expect(pre('deny Bash when cwd == "/a" and session == "/b"')).toEqual([]);
  });

  it('knows the tool of a rule that names its tools', () => {
    const r = preTool('deny Bash, Read when tool == "Edit"');
    expect(codesAt(r)).toEqual(['check/dead-rule@2:24']);
    expect(r.diagnostics[0]!.help).toBe('the rule applies only to `Bash`, `Read`, so this comparison of `tool` is never true; remove the rule or fix its condition');
    expect(pre('deny Bash, Read when tool == "Read"')).toEqual([]);
    expect(pre('deny Ba* when tool == "Read"')).toEqual([]);
    expect(pre('deny when tool == "Read"')).toEqual([]);
  });

  it('is not a shadowed rule as well', () => {
    expect(pre('deny Bash', 'ask Bash when false')).toEqual(['check/dead-rule@3:17']);
  });
});

describe('an allow of every command', () => {
  it('warns at the shell tool, with a `command` example', () => {
    const r = preTool('allow Read, PowerShell');
    expect(codesAt(r)).toEqual(['check/allow-any-command@2:15']);
    expect(r.diagnostics[0]).toMatchObject({
      message: '`allow PowerShell` with no selector or condition allows every command',
      help: 'name the commands it allows with a `command` selector, e.g. `allow PowerShell command "npm test", "git status"`',
    });
  });

  it('warns at a glob matching a shell tool, and at an allow of every tool', () => {
    expect(pre('allow *')).toEqual(['check/allow-any-command@2:9']);
    expect(pre('allow Ba*')).toEqual(['check/allow-any-command@2:9']);
    expect(pre('allow')).toEqual(['check/allow-any-command@2:3']);
  });

  it('says nothing with a selector, a condition, other tools, or Codex shell tools', () => {
    expect(pre('allow Bash command "ls *"')).toEqual([]);
    expect(pre('allow Bash path "/tmp/**"')).toEqual([]);
    expect(pre('allow Bash when permission_mode == "plan"')).toEqual([]);
    expect(pre('allow Read, Glob, mcp__*, Web*')).toEqual([]);
    expect(pre('allow shell, local_shell, exec_command, unified_exec')).toEqual([]);
  });

  it('is not reported on an allow already reported as dead', () => {
    expect(pre('deny Bash', 'allow Bash')).toEqual([]);
    expect(pre('allow *', 'allow Bash')).toEqual(['check/allow-any-command@2:9', 'check/shadowed-rule@3:3']);
  });
});

describe('allow patterns that never match', () => {
  it('reports an unknowable command at its pattern', () => {
    const r = preTool('allow Bash command "ls", "eval *"');
    expect(codesAt(r)).toEqual(['check/command-never-allowed@2:28']);
    expect(r.diagnostics[0]).toMatchObject({
      message: 'an `allow` never matches `eval *`: `eval` runs its arguments as shell code, so the command is unknowable',
    });
  });

  it('reports a shell script, whose commands take its place', () => {
    const r = preTool('allow Bash command "sh -c \'npm test && npm run lint\'"');
    expect(codesAt(r)).toEqual(['check/command-never-allowed@2:22']);
    expect(r.diagnostics[0]!.help).toBe('a `sh` script\'s commands are parts of their own; allow those instead (here `npm test`, `npm run lint`)');
  });

  it('sees the patterns of a `let`', () => {
    expect(lints('let cmds = ["git status", "bash -lc ls"]\n' + block('pre-tool', ['allow Bash command cmds']))).toEqual([
      'check/command-never-allowed@1:27',
    ]);
  });

  it('says nothing where an allow can match, or the rule is not an allow', () => {
    expect(pre('allow Bash command "bash -c *", "/tmp/bash -c ls", "sudo bash -c ls", "nice -n 5 git status"')).toEqual([]);
    // a shell with no script reads its commands from its input: never allowed
    expect(pre('allow Bash command "bash"')).toEqual(['check/command-never-allowed@2:22']);
    expect(pre('allow Bash command "bash -c -x"')).toEqual([]);
    expect(pre('ask Bash command "eval *", "bash -c ls"')).toEqual([]);
  });
});

describe('regexes that never match', () => {
  it('reports the anchor at fault, with the flag to add', () => {
    const r = compileText(block('prompt', ['block when prompt matches /^done$.+/']));
    expect(codesAt(r)).toEqual(['check/regex-never-matches@2:35']);
    expect(r.diagnostics[0]).toMatchObject({
      message: '`/^done$.+/` never matches: `$` is the end of the text, but text must follow it',
      help: 'without the `m` flag, `$` matches only at the end of the text; add `m` to match at the end of each line',
    });
    expect(r.diagnostics[0]!.span).toMatchObject({ start: { column: 35 }, end: { column: 36 } });
  });

  it('spans the whole class of no character', () => {
    const r = compileText(block('prompt', ['block when prompt matches /a[^\\d\\D]/']));
    expect(r.diagnostics[0]!.span).toMatchObject({ start: { column: 31 }, end: { column: 38 } });
    expect(r.diagnostics[0]!.message).toContain('`[^\\d\\D]` matches no character');
  });

  it('reports a regex in a `let` once, where it is written', () => {
    const r = compileText('let re = /x\\z./\n' + block('prompt', ['block when prompt matches re', 'context "c" when prompt matches re']));
    expect(codesAt(r)).toEqual(['check/regex-never-matches@1:12']);
  });

  it.each([
    ['a$b', ''],
    ['a^b', ''],
    ['a^b', 'm'],
    ['a$b', 'm'],
    ['x\\Ay', ''],
    ['\\z.', 'ms'],
    ['[^\\s\\S]', ''],
    ['[^\\w\\W]+', 'i'],
    ['[^\\x00-\\x{10FFFF}]', ''],
    ['[^[:ascii:][:^ascii:]]', ''],
    ['a\\bb', ''],
    ['a\\B ', ''],
    ['(a|b)$(c|d)', ''],
    ['(?m:a)$b', ''],
    ['(?-m)a$\\n', 'm'],
    ['foo$\\s+bar', ''],
  ])('`/%s/%s` never matches', (source, flags) => expect(unsatisfiable(source, flags)).toBeDefined());

  it.each([
    ['$^', ''],
    ['^$', ''],
    ['a$\\nb', 'm'],
    ['\\n^b', 'm'],
    ['(?m)a$\\n^b', ''],
    ['x[^\\s\\S]*', ''],
    ['foo$|^bar', ''],
    ['$a?', ''],
    ['a\\b-', ''],
    ['\\bk', 'i'],
    ['(?i)a\\Bk', ''],
    ['\\pL\\b\\pL', ''],
    ['a{0}$', ''],
    ['\\Q$\\Ex', ''],
    ['[^a]', 'i'],
    ['.', 's'],
    ['(?s:.)\\n', ''],
  ])('`/%s/%s` may match', (source, flags) => expect(unsatisfiable(source, flags)).toBeUndefined());

  it('never claims a regex RE2 can match never matches', () => {
    const atoms = ['a', 'K', '_', ' ', '\\n', '.', '^', '$', '\\b', '\\B', '\\A', '\\z', '[^\\s\\S]', '\\w', '\\W', '\\s', '[a-c]', '(?i)', '(?m)', '(?s)', '\\x{212A}'];
    const regex: fc.Arbitrary<string> = fc.letrec<{ re: string }>((tie) => ({
      re: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom(...atoms),
        fc.tuple(tie('re'), tie('re')).map(([a, b]) => a + b),
        fc.tuple(tie('re'), tie('re')).map(([a, b]) => `(${a}|${b})`),
        fc.tuple(tie('re'), fc.constantFrom('*', '+', '?', '{2}')).map(([a, q]) => `(?:${a})${q}`),
      ),
    })).re;
    const alphabet = ['a', 'K', '\u212A', 'k', '_', ' ', '\n', 'é'];
    const texts = [''];
    for (const a of alphabet) for (const b of ['', ...alphabet]) texts.push(a + b);
    fc.assert(
      fc.property(regex, fc.constantFrom('', 'i', 'm', 's'), (source, flags) => {
        if (unsatisfiable(source, flags) === undefined) return;
        expect(texts.filter((t) => regexMatches(source, flags, t))).toEqual([]);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe('tool and path globs', () => {
  it('reports a tool glob that matches no known tool', () => {
    const r = preTool('deny read*');
    expect(codesAt(r)).toEqual(['check/unknown-tool-glob@2:8']);
    expect(r.diagnostics[0]).toMatchObject({
      message: '`read*` matches no tool of any known agent',
      help: 'tool names are case-sensitive; ignoring case it would match `Read`, `ReadMcpResourceTool`',
    });
    expect(pre('deny Web*, mcp__*, m*, *Edit, Notebook*')).toEqual([]);
  });

  it('checks the tools of `ran` too', () => {
    expect(lints(block('stop', ['continue when not ran Tst* because "x"']))).toEqual(['check/unknown-tool-glob@2:25']);
  });

  it('reports a path glob with an escaped `/` or an escaped dot segment', () => {
    expect(pre('deny Read path "a\\\\/b"')).toEqual(['check/path-glob-never-matches@2:18']);
    expect(pre('deny Read path "src/\\\\./x"')).toEqual(['check/path-glob-never-matches@2:18']);
    expect(pre('deny Read path "src/./x", "src/\\\\.x", "\\\\*.txt"')).toEqual([]);
    expect(lints(block('pre-tool', ['deny Read when path glob "a\\\\/b"']))).toEqual(['check/path-glob-never-matches@2:28']);
  });
});

describe('when lints run', () => {
  it('not while the policy has errors', () => {
    const r = compileText(block('pre-tool', ['deny Bash', 'deny Bash', 'deny Bsh*', 'allow Bash', 'deny Read when false', 'ask Bash when nope == 1']));
    expect(codesAt(r)).toEqual(['check/dead-allow@5:3', 'check/unknown-field@7:17']);
  });

  it('not on the example policy', () => {
    // `examples/guardrails.dshpolicy`'s rules, which all matter
    const r = compileText(
      block('pre-tool', [
        'allow Read, Glob, Grep',
        'deny  Read, Edit, Write path "**/.env"',
        'deny  Bash command "rm -rf /", "rm -rf ~"       because "never delete a root"',
        'ask   Bash command "git push *"                 because "pushing needs a human"',
        'deny  Bash when command matches /git\\s+push\\b.*\\s(-f|--force)\\b/ because "no force pushes"',
        'allow Bash command "npm test", "npm run lint *", "git status", "git diff *"',
      ]),
    );
    expect(r.diagnostics).toEqual([]);
  });
});

// ---------------------------------------------------------------- the promise: reported rules change nothing

const EVENTS = (() => {
  const out: unknown[] = [];
  for (const cwd of ['/', '/repo']) {
    for (const session of ['s', 't']) {
      for (const command of ['rm -rf /', 'rm x', 'git push', 'git status', 'sudo rm -rf /', 'git push && ls', 'eval rm', '']) {
        out.push({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd, session });
      }
      for (const file_path of ['.env', 'src/a.ts']) out.push({ seam: 'pre-tool', tool: 'Read', input: { file_path }, cwd, session });
      out.push({ seam: 'pre-tool', tool: 'Edit', input: { file_path: 'x' }, cwd, session });
    }
  }
  return out.map((e) => normalizeEvent(e).event!);
})();

async function decisions(text: string): Promise<string[]> {
  const r = compileText(text);
  expect(r.ir).toBeDefined();
  const policy = compilePolicy(r.ir!);
  const out: string[] = [];
  for (const e of EVENTS) {
    const d = await evaluate(policy, e);
    out.push(`${d.decision} ${JSON.stringify(d.reasons)}`);
  }
  return out;
}

describe('a rule the lints call useless', () => {
  it('changes no decision and no reason when it is removed', async () => {
    const rule = fc
      .record({
        effect: fc.constantFrom('deny', 'ask', 'allow'),
        tools: fc.constantFrom('', 'Bash', 'Read', '*', 'Ba*', 'Bash, Read'),
        selector: fc.constantFrom('', 'command "rm *"', 'command "rm -rf /"', 'command "git *"', 'command "git push *"', 'command "*"', 'path "**/.env"', 'path ".env"'),
        when: fc.constantFrom('', 'when cwd == "/"', 'when cwd == "/" and session == "s"', 'when tool == "Read"', 'when cwd == "/" and cwd == "/repo"'),
        because: fc.constantFrom('', 'because "x"', 'because "y"'),
      })
      .map((r) => [r.effect, r.tools, r.selector, r.when, r.effect === 'allow' ? '' : r.because].filter((s) => s !== '').join(' '));
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { minLength: 2, maxLength: 4 }), async (rules) => {
        const text = block('pre-tool', rules);
        const r = compileText(text);
        const useless = r.diagnostics
          .filter((d) => ['check/shadowed-rule', 'check/dead-allow', 'check/dead-rule'].includes(d.code))
          .map((d) => d.span!.start.line - 2);
        if (useless.length === 0) return;
        const before = await decisions(text);
        // all at once: the rules they name stay
        const after = await decisions(block('pre-tool', rules.filter((_, i) => !useless.includes(i))));
        expect(after).toEqual(before);
      }),
      { numRuns: 120, seed: 11 },
    );
  });
});
