import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from './args.js';
import { runCommand, scratch, type CliRun } from './testkit.js';
import { attr, testCommand, text, type TestOptions } from './test.js';

/** Runs `dshpolicy test <argv>` in this process (as runCli would, once `test` is wired into main). */
function run(argv: string[], opts: TestOptions = {}, stdin = ''): Promise<CliRun> {
  return runCommand((a, io) => testCommand(a, io, opts), argv, stdin);
}

const { dir, file } = scratch('dshpolicy-test-');

const RULES = `on pre-tool {
  deny Bash command "rm -rf *" because "never delete a tree"
  ask Bash command "git push *" because "pushing needs a human"
  allow Bash command "npm test", "git status"
  deny WebFetch because "no fetching"
}
on prompt {
  block when prompt contains "secret" because "no secrets"
}
`;

const passing = file(
  'passing.dshpolicy',
  `${RULES}
test "ok" {
  pre-tool Bash { command: "rm -rf build" } => deny because /delete/
  pre-tool Bash { command: "npm test" } => allow
}
`,
);

const failing = file(
  'failing.dshpolicy',
  `${RULES}
test "bad" {
  pre-tool Bash { command: "npm test" } => allow
  pre-tool Bash { command: "git push origin main" } => deny
  pre-tool Bash { command: "rm -rf x" } => deny because /pushing/
}
`,
);

const rules = file('rules.dshpolicy', RULES);

const lines = (...values: unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') + '\n';
const bash = (command: string, extra: Record<string, unknown> = {}) => ({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd: '/repo', ...extra });

const fixtures = file(
  'events.jsonl',
  lines(
    bash('npm test', { expect: 'allow' }),
    bash('git push origin main', { expect: 'ask', expect_reason: 'needs a human' }),
    bash('git push', { expect: 'ask', expect_reason: '/PUSHING/i', name: 'push, loud' }),
    bash('rm -rf /', { expect: 'ask', name: 'wrong decision' }),
    bash('git push', { expect: 'ask', expect_reason: 'deploy' }),
    bash('ls'),
    '',
    { hook_event_name: 'UserPromptSubmit', session_id: 's', cwd: '/repo', prompt: 'the secret is 42', expect: 'block', expect_reason: 'no secrets' },
  ),
);

// ---------------------------------------------------------------------------------------------
// A tiny XML reader, enough to check that the JUnit output is well-formed and to read it back.

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

function unescape(s: string): string {
  if (/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(s)) throw new Error(`bare & in ${JSON.stringify(s)}`);
  return s.replace(ENTITY, (e) => {
    const named: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };
    if (named[e]) return named[e];
    return String.fromCodePoint(e[2] === 'x' ? parseInt(e.slice(3, -1), 16) : Number(e.slice(2, -1)));
  });
}

function parseXml(xml: string): XmlElement {
  const decl = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/;
  if (!decl.test(xml)) throw new Error('no XML declaration');
  const body = xml.replace(decl, '');
  if (/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(body)) throw new Error('a character XML cannot carry');
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < body.length && (m = token.exec(body)) !== null) {
    at = token.lastIndex;
    const top = stack[stack.length - 1]!;
    if (m[5] !== undefined) {
      top.text += unescape(m[5]);
      continue;
    }
    const [, close, name, attrText, selfClose] = m;
    if (close) {
      if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of attrText!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]}`);
      attrs[a[1]!] = unescape(a[2]!);
    }
    const el: XmlElement = { name: name!, attrs, children: [], text: '' };
    top.children.push(el);
    if (!selfClose) stack.push(el);
  }
  if (at !== body.length) throw new Error(`cannot read the XML at ${JSON.stringify(body.slice(at, at + 40))}`);
  if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1]!.name}> is not closed`);
  if (root.children.length !== 1 || root.text.trim() !== '') throw new Error('not exactly one root element');
  return root.children[0]!;
}

// ---------------------------------------------------------------------------------------------

describe('dshpolicy test: test blocks', () => {
  it('passes when every case holds', async () => {
    const r = await run([passing]);
    expect(r.err).toBe('');
    expect(r.out).toBe('ok: 2 passed (2 test cases)\n');
    expect(r.code).toBe(0);
  });

  it('lists the cases that passed with --verbose', async () => {
    const r = await run([passing, '-v']);
    expect(r.out).toContain(`ok    ${passing}:12:3  ok: line 12\n`);
    expect(r.out).toContain(`ok    ${passing}:13:3  ok: line 13\n`);
  });

  it('reports a failing case with the event, the expected and actual decision, the rules and reasons', async () => {
    const r = await run([failing]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      [
        `FAIL  ${failing}:13:3  bad: line 13`,
        '      event     pre-tool Bash git push origin main',
        '      expected  deny',
        '      got       ask',
        `      rules     ${failing}:3:3 (ask)`,
        '      reason    pushing needs a human',
      ].join('\n'),
    );
    expect(r.out).toContain(
      [
        `FAIL  ${failing}:14:3  bad: line 14`,
        '      event     pre-tool Bash rm -rf x',
        '      expected  deny because /pushing/',
        '      got       deny, but no reason or context matches /pushing/',
        `      rules     ${failing}:2:3 (deny)`,
        '      reason    never delete a tree',
      ].join('\n'),
    );
    expect(r.out).not.toContain('line 12');
    expect(r.out.trimEnd().split('\n').pop()).toBe('failed: 1 passed, 2 failed (3 test cases)');
  });

  it('shows which part of a command no allow covered when no rule decided', async () => {
    const p = file('partial.dshpolicy', `${RULES}\ntest "t" {\n  pre-tool Bash { command: "npm test | tee log" } => allow\n}\n`);
    const r = await run([p]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('      got       none\n      rules     none decided\n');
    expect(r.out).toContain(`      note      ${p}:4:3: not every part is allowed: \`tee log\``);
  });
});

describe('dshpolicy test: fixture files', () => {
  it('runs the lines that carry expect, checks expect_reason, and skips the others', async () => {
    const r = await run([rules, fixtures]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      [
        `FAIL  ${fixtures}:4  line 4: wrong decision`,
        '      event     pre-tool Bash rm -rf /',
        '      expected  ask',
        '      got       deny',
        `      rules     ${rules}:2:3 (deny)`,
        '      reason    never delete a tree',
      ].join('\n'),
    );
    expect(r.out).toContain(`FAIL  ${fixtures}:5  line 5\n      event     pre-tool Bash git push\n      expected  ask because /deploy/\n      got       ask, but no reason or context matches /deploy/\n`);
    for (const ok of [':1 ', ':2 ', ':3 ', ':8 ']) expect(r.out).not.toContain(`${fixtures}${ok}`);
    expect(r.out.trimEnd().split('\n').pop()).toBe('failed: 4 passed, 2 failed (6 fixture lines; 1 line without `expect` skipped)');
  });

  it('runs test blocks and fixture files together, against every policy file given', async () => {
    const ok = file('ok.jsonl', lines(bash('git status', { expect: 'allow' }), { seam: 'prompt', prompt: 'hi', expect: 'allow' }));
    const r = await run([passing, ok]);
    expect(r.out).toBe('ok: 4 passed (2 test cases, 2 fixture lines)\n');
    expect(r.code).toBe(0);
    // --policy works the same as a positional policy file.
    const viaOption = await run([ok, '--policy', rules]);
    expect(viaOption.out).toBe('ok: 2 passed (2 fixture lines)\n');
    expect(viaOption.code).toBe(0);
  });

  it('reads fixtures from stdin with -', async () => {
    const r = await run([rules, '-'], {}, lines(bash('rm -rf /', { expect: 'deny' }), { event: 'Notification', agent: 'claude', message: 'hi', expect: 'none' }));
    expect(r.out).toBe('ok: 2 passed (2 fixture lines)\n');
  });

  it('reports bad lines as errors, counts them, and runs the other lines', async () => {
    const bad = file(
      'bad.jsonl',
      lines(
        '{"seam":"pre-tool"',
        bash('ls', { comand: 'x', expect: 'allow' }),
        bash('ls', { expect: 'block' }),
        bash('ls', { expect: 3 }),
        bash('ls', { expect: 'none', expect_reason: '(?<=x)y' }),
        bash('ls', { expect: 'none', expect_reason: 7 }),
        bash('ls', { expect_reason: 'x' }),
        bash('npm test', { expect: 'allow' }),
      ),
    );
    const r = await run([rules, bad]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`ERROR ${bad}:1  line 1\n      error[fixture/json]: not valid JSON`);
    expect(r.out).toContain(`ERROR ${bad}:2  line 2\n      error[event/invalid]: unknown field \`comand\` for a \`pre-tool\` event (at /comand)`);
    expect(r.out).toContain(`ERROR ${bad}:3  line 3\n      error[fixture/bad-expect]: \`expect\` must be a decision of the \`pre-tool\` seam, found \`block\` (at /expect)\n        = help: the decisions are \`deny\`, \`ask\`, \`allow\`, \`none\``);
    expect(r.out).toContain(`ERROR ${bad}:4  line 4\n      error[fixture/bad-expect]: \`expect\` must be a decision of the \`pre-tool\` seam, found 3`);
    expect(r.out).toContain(`ERROR ${bad}:5  line 5\n      error[fixture/bad-expect]: \`expect_reason\` is not a valid regex: lookbehind is not supported`);
    expect(r.out).toContain(`ERROR ${bad}:6  line 6\n      error[fixture/bad-expect]: \`expect_reason\` must be a string (a regex)`);
    expect(r.out).toContain(`ERROR ${bad}:7  line 7\n      error[fixture/bad-expect]: \`expect_reason\` without \`expect\``);
    expect(r.out.trimEnd().split('\n').pop()).toBe('failed: 1 passed, 7 errors (8 fixture lines)');
  });

  it('reports a fixture file that cannot be read and runs the others', async () => {
    const ok = file('ok2.jsonl', lines(bash('npm test', { expect: 'allow' })));
    const missing = join(dir, 'missing.jsonl');
    const r = await run([rules, missing, ok]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`ERROR ${missing}  the fixture file\n      error[fixture/unreadable]: cannot read fixtures \`${missing}\`: ENOENT`);
    expect(r.out.trimEnd().split('\n').pop()).toBe('failed: 1 passed, 1 error (2 fixture lines)');
  });

  it('says so when there is nothing to test', async () => {
    const r = await run([rules]);
    expect(r.out).toBe('ok: no test cases (no `test` block, and no fixture line with `expect`)\n');
    expect(r.code).toBe(0);
  });
});

describe('dshpolicy test --format json', () => {
  it('prints one object with the counts and every result', async () => {
    const r = await run([failing, fixtures, '--format', 'json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.out) as Record<string, unknown> & { results: Record<string, unknown>[] };
    expect(out).toMatchObject({ ok: false, passed: 5, failed: 4, errors: 0, skipped: 1, diagnostics: [] });
    expect(out.results).toHaveLength(9);
    expect(out.results[0]).toEqual({
      kind: 'test',
      file: failing,
      name: 'bad: line 12',
      at: `${failing}:12:3`,
      status: 'passed',
      seam: 'pre-tool',
      event: 'Bash npm test',
      expect: 'allow',
      decision: 'allow',
      rules: [`${failing}:4:3`],
      reasons: [],
      context: [],
    });
    expect(out.results[1]).toMatchObject({ status: 'failed', expect: 'deny', decision: 'ask', message: 'expected `deny`, got `ask`', rules: [`${failing}:3:3`], reasons: ['pushing needs a human'] });
    expect(out.results[1]!['trace']).toEqual([{ rule: `${failing}:3:3`, effect: 'ask', outcome: 'decided', reason: 'pushing needs a human', parts: ['git push origin main'] }]);
    expect(out.results[2]).toMatchObject({ status: 'failed', expect_reason: '/pushing/', message: 'got `deny` as expected, but no reason or context matches `/pushing/`' });
    expect(out.results[5]).toMatchObject({ kind: 'fixture', file: fixtures, name: 'line 3: push, loud', at: `${fixtures}:3`, status: 'passed', expect_reason: '/PUSHING/i' });
    expect(out.results[8]).toMatchObject({ kind: 'fixture', at: `${fixtures}:8`, seam: 'prompt', status: 'passed', decision: 'block' });
    expect(out).not.toHaveProperty('coverage');
  });

  it('reports bad lines with their diagnostics', async () => {
    const bad = file('bad2.jsonl', lines(bash('ls', { expect: 'block' })));
    const out = JSON.parse((await run([rules, bad, '--format', 'json'])).out) as { results: Record<string, unknown>[] };
    expect(out.results[0]).toMatchObject({ status: 'error', at: `${bad}:1`, errors: [{ code: 'fixture/bad-expect', pointer: '/expect', span: { file: bad, start: { line: 1 } } }] });
  });

  it('adds the coverage with --coverage', async () => {
    const out = JSON.parse((await run([passing, '--format', 'json', '--coverage'])).out) as Record<string, unknown>;
    expect(out['coverage']).toEqual([
      { rule: `${passing}:2:3`, seam: 'pre-tool', effect: 'deny', hits: 1, decided: 1, outranked: 0, partial: 0 },
      { rule: `${passing}:3:3`, seam: 'pre-tool', effect: 'ask', hits: 0, decided: 0, outranked: 0, partial: 0, why: 'its `command` selector never matched on the 2 cases for its tools (`Bash`)' },
      { rule: `${passing}:4:3`, seam: 'pre-tool', effect: 'allow', hits: 1, decided: 1, outranked: 0, partial: 0 },
      { rule: `${passing}:5:3`, seam: 'pre-tool', effect: 'deny', hits: 0, decided: 0, outranked: 0, partial: 0, why: 'no case has an event for its tools (`WebFetch`)' },
      { rule: `${passing}:8:3`, seam: 'prompt', effect: 'block', hits: 0, decided: 0, outranked: 0, partial: 0, why: 'no case has an event on its seam' },
    ]);
    expect(out['coverageSummary']).toEqual({ rules: 5, hit: 2, decided: 2, share: 0.4 });
  });
});

describe('dshpolicy test --format junit', () => {
  it('prints well-formed JUnit XML: a suite per file, a failure per failing case', async () => {
    const r = await run([failing, fixtures, '--format', 'junit']);
    expect(r.code).toBe(1);
    const root = parseXml(r.out);
    expect(root.name).toBe('testsuites');
    expect(root.attrs).toMatchObject({ tests: '9', failures: '4', errors: '0' });
    expect(root.children.map((s) => [s.name, s.attrs['name'], s.attrs['tests'], s.attrs['failures']])).toEqual([
      ['testsuite', failing, '3', '2'],
      ['testsuite', fixtures, '6', '2'],
    ]);
    const [blocks, lines6] = root.children;
    expect(blocks!.children.map((c) => c.attrs['name'])).toEqual(['bad: line 12', 'bad: line 13', 'bad: line 14']);
    expect(blocks!.children[0]!.children).toEqual([]);
    const failure = blocks!.children[1]!.children[0]!;
    expect(failure.name).toBe('failure');
    expect(failure.attrs).toEqual({ message: 'expected `deny`, got `ask`', type: 'decision' });
    expect(failure.text).toContain('expected  deny\ngot       ask\n');
    expect(blocks!.children[2]!.children[0]!.attrs['type']).toBe('reason');
    expect(lines6!.children[3]!.attrs).toMatchObject({ name: 'line 4: wrong decision', file: fixtures, line: '4' });
    expect(lines6!.children[3]!.children[0]!.text).toContain('got       deny');
  });

  it('escapes what XML cannot carry as it is', async () => {
    const nasty = file(
      'nasty.jsonl',
      lines(
        bash('rm -rf "a" && <b> & \'c\'', { expect: 'allow', name: 'a <b> & "c" \'d\'\u0001\ttab\nline' }),
        '{"seam": <',
      ),
    );
    const r = await run([rules, nasty, '--format', 'junit']);
    const root = parseXml(r.out);
    const suite = root.children[0]!;
    expect(suite.attrs).toMatchObject({ tests: '2', failures: '1', errors: '1' });
    const [failed, erred] = suite.children;
    expect(failed!.attrs['name']).toBe('line 1: a <b> & "c" \'d\'\uFFFD\ttab\nline');
    expect(failed!.children[0]!.text).toContain('pre-tool Bash rm -rf "a" && <b> & \'c\'');
    expect(erred!.children[0]!.name).toBe('error');
    expect(erred!.children[0]!.attrs['type']).toBe('fixture/json');
  });

  it('adds the coverage table as a suite of its own with --coverage', async () => {
    const root = parseXml((await run([passing, '--format', 'junit', '--coverage'])).out);
    const cov = root.children.find((s) => s.attrs['name'] === 'coverage')!;
    expect(cov.attrs['tests']).toBe('0');
    expect(cov.children[0]!.name).toBe('system-out');
    expect(cov.children[0]!.text).toContain('coverage: 2 of 5 rules hit (40%)');
  });

  it('escapes attributes and text', () => {
    expect(attr('a<b>&"c"\'d\'\n\t\u0000')).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;&#10;&#9;\uFFFD');
    expect(text('a<b>&\u{1F600}\uD800')).toBe('a&lt;b&gt;&amp;\u{1F600}\uFFFD');
  });
});

describe('dshpolicy test --coverage', () => {
  it('prints a table of rules with their hits, and the share hit', async () => {
    const r = await run([passing, fixtures, '--coverage']);
    const table = r.out.slice(r.out.indexOf('rule '));
    const rows = table.split('\n');
    expect(rows[0]).toMatch(/^rule +seam +effect +hits +decided +outranked +why not decided$/);
    expect(rows[2]).toMatch(new RegExp(`^${passing}:2:3 +pre-tool +deny +2 +2 +0$`));
    expect(rows[3]).toMatch(new RegExp(`^${passing}:3:3 +pre-tool +ask +3 +3 +0$`));
    expect(rows[5]).toMatch(/no case has an event for its tools \(`WebFetch`\)$/);
    expect(table).toContain('coverage: 4 of 5 rules hit (80%), 4 decided at least once\n');
  });
});

describe('dshpolicy test: the policy', () => {
  const broken = file('broken.dshpolicy', 'on pre-tool {\n  deny Bash when output matches /x/\n}\n');

  it('prints the diagnostics and exits 1 when the policy does not compile', async () => {
    const r = await run([broken, fixtures]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('error[check/unknown-field]');
    expect(r.out).toContain(`--> ${broken}:2:18`);
    expect(r.out).toContain('failed: the policy does not compile: 1 error\n');
    const json = JSON.parse((await run([broken, '--format', 'json'])).out) as Record<string, unknown>;
    expect(json).toMatchObject({ ok: false, passed: 0, failed: 0, results: [], diagnostics: [{ code: 'check/unknown-field' }] });
    const root = parseXml((await run([broken, '--format', 'junit'])).out);
    expect(root.attrs).toMatchObject({ tests: '1', errors: '1' });
    expect(root.children[0]!.children[0]!.children[0]!.text).toContain('error[check/unknown-field]');
  });

  it('mentions warnings on stderr', async () => {
    const warned = file('warned.dshpolicy', 'on pre-tool {\n  allow Glbo\n}\ntest "t" {\n  pre-tool Glob { pattern: "*" } => none\n}\n');
    const r = await run([warned]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('policy: 1 warning (run `dshpolicy check` to see them)\n');
  });

  it('with no files, tests the nearest .dshpolicy/ directory and its tests/*.jsonl', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, '.dshpolicy', 'tests'), { recursive: true });
    mkdirSync(join(project, 'src', 'deep'), { recursive: true });
    writeFileSync(join(project, '.dshpolicy', 'a.dshpolicy'), `${RULES}\ntest "t" {\n  pre-tool Bash { command: "npm test" } => allow\n}\n`);
    writeFileSync(join(project, '.dshpolicy', 'b.dshpolicy'), 'on prompt {\n  block when prompt contains "key" because "no keys"\n}\n');
    writeFileSync(join(project, '.dshpolicy', 'tests', 'events.jsonl'), lines({ seam: 'prompt', prompt: 'a key', expect: 'block', expect_reason: 'keys' }));
    writeFileSync(join(project, '.dshpolicy', 'tests', 'notes.txt'), 'not a fixture file');
    const r = await run([], { cwd: join(project, 'src', 'deep') });
    expect(r.out).toBe('ok: 2 passed (1 test case, 1 fixture line)\n');
    expect(r.code).toBe(0);
  });

  it('is a usage error when there is nothing to find, or nothing to test against', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    await expect(run([], { cwd: empty })).rejects.toThrow(/no `\.dshpolicy\/` directory was found/);
    await expect(run([fixtures])).rejects.toThrow(UsageError);
    await expect(run([rules, '--format', 'xml'])).rejects.toThrow('unknown format `xml`; use `human`, `json` or `junit`');
    await expect(run([rules, '--bogus'])).rejects.toThrow(UsageError);
  });

  it('prints its usage with --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: dshpolicy test /);
  });
});

describe('dshpolicy test: cases that depend on a hook', () => {
  const marker = join(dir, 'hook-ran');
  const hooked = file(
    'hooked.dshpolicy',
    `on pre-tool {
  deny Bash command "rm *" because "no rm"
  run Bash command "rm *", "git *" hook "touch ${marker}; echo 'from the hook' >&2; exit 2"
}
on prompt {
  block when prompt contains "key" because "no keys"
  run hook "touch ${marker}"
}
test "t" {
  pre-tool Bash { command: "rm x" } => deny because /no rm/
  pre-tool Bash { command: "rm x" } => deny because /from the hook/
  pre-tool Bash { command: "rm x" } => ask
  pre-tool Bash { command: "git push" } => deny
  pre-tool Bash { command: "ls" } => none
  prompt { prompt: "my key" } => block
  prompt { prompt: "hello" } => allow
}
`,
  );

  it('judges without the hooks what no hook can change, and skips the rest', async () => {
    const r = await run([hooked, '--format', 'json']);
    const out = JSON.parse(r.out) as { results: { name: string; status: string; hooks?: string[] }[]; skippedCases: number };
    expect(out.results.map((x) => [x.name, x.status])).toEqual([
      // a deny is final: its reasons can only grow, so a `because` that already matches holds
      ['t: line 10', 'passed'],
      // ... one that does not match may yet match the hook's reason
      ['t: line 11', 'skipped'],
      // ... and a case expecting anything else fails whatever the hook says
      ['t: line 12', 'failed'],
      ['t: line 13', 'skipped'],
      ['t: line 14', 'passed'],
      // a prompt `block` is final too
      ['t: line 15', 'passed'],
      ['t: line 16', 'skipped'],
    ]);
    expect(out.results[1]!.hooks).toEqual([`${hooked}:3:3`]);
    expect(out.skippedCases).toBe(3);
    expect(r.code).toBe(1);
    expect(existsSync(marker)).toBe(false);
  });

  it('runs the hooks with --run-hooks, and then skips nothing', async () => {
    const r = await run([hooked, '--run-hooks', '--format', 'json']);
    const out = JSON.parse(r.out) as { results: { name: string; status: string }[]; skippedCases: number };
    expect(out.skippedCases).toBe(0);
    expect(out.results.map((x) => x.status)).toEqual(['passed', 'passed', 'failed', 'passed', 'passed', 'passed', 'passed']);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });
});
