import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { compilePolicy, type CompiledPolicy } from '../compile.js';
import type { HookRunner } from '../evaluate.js';
import { IR_VERSION, type Rule, type TestCase } from '../ir.js';
import { evaluateFixtures, FixtureReadError, readFixtures, type FixtureItem } from './fixtures.js';
import { parseExpectReason, runPolicyTests } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-testing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const span = (line: number) => ({ file: 'p.dshpolicy', start: { line, column: 3, offset: line * 10 }, end: { line, column: 4, offset: line * 10 + 1 } });

const RULES: Rule[] = [
  { id: 'p.dshpolicy:2:3', seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm -rf *'] }], reason: 'never delete a tree' },
  { id: 'p.dshpolicy:3:3', seam: 'pre-tool', effect: 'run', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['git push *'] }], hook: { command: './check.sh', dialect: 'claude' } },
  { id: 'p.dshpolicy:4:3', seam: 'pre-tool', effect: 'allow', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['npm test'] }] },
];

const TESTS: TestCase[] = [
  { name: 'deletes', event: { seam: 'pre-tool', tool: 'Bash', input: { command: 'rm -rf build' } }, expect: 'deny', because: { regex: 'delete', flags: '' }, span: span(7) },
  { name: 'tests', event: { seam: 'pre-tool', tool: 'Bash', input: { command: 'npm test' } }, expect: 'ask' },
  { name: 'pushes', event: { seam: 'pre-tool', tool: 'Bash', input: { command: 'git push' } }, expect: 'allow', span: span(9) },
];

function policy(tests: TestCase[] = TESTS): CompiledPolicy {
  return compilePolicy({ version: IR_VERSION, sources: ['p.dshpolicy'], rules: RULES, tests });
}

const bash = (command: string, extra: Record<string, unknown> = {}) => JSON.stringify({ seam: 'pre-tool', tool: 'Bash', input: { command }, ...extra });

/** A hook that allows whatever it is asked about. */
const allowing: HookRunner = async () => ({ effect: 'allow', exitCode: 0, timedOut: false, summary: 'exit 0' });

describe('parseExpectReason', () => {
  it('reads a regex source, or /source/flags', () => {
    expect(parseExpectReason('needs a human')).toEqual({ regex: 'needs a human', flags: '' });
    expect(parseExpectReason('/PUSH/i')).toEqual({ regex: 'PUSH', flags: 'i' });
    expect(parseExpectReason('/etc/passwd')).toEqual({ regex: '/etc/passwd', flags: '' });
  });
});

describe('runPolicyTests', () => {
  it('runs the test cases, then the fixture lines with `expect`, and counts them', async () => {
    const fixtures = write('a.jsonl', [
      bash('rm -rf /', { expect: 'deny', name: 'root' }),
      bash('ls'),
      '',
      bash('npm test', { expect: 'allow', expect_reason: '/tested/i', id: 7 }),
      '{ not json',
      bash('ls', { expect: 'block' }),
      bash('ls', { expect_reason: 'x' }),
    ].join('\n'));
    const run = await runPolicyTests(policy(), { fixtures: [fixtures] });
    expect(run.results.map((r) => [r.kind, r.name, r.at, r.status])).toEqual([
      ['test', 'deletes', 'p.dshpolicy:7:3', 'passed'],
      // a case without a span is said to be in the policy's first source
      ['test', 'tests', 'p.dshpolicy', 'failed'],
      ['test', 'pushes', 'p.dshpolicy:9:3', 'skipped'],
      ['fixture', 'line 1: root', `${fixtures}:1`, 'passed'],
      ['fixture', 'line 4: 7', `${fixtures}:4`, 'failed'],
      ['fixture', 'line 5', `${fixtures}:5`, 'error'],
      ['fixture', 'line 6', `${fixtures}:6`, 'error'],
      ['fixture', 'line 7', `${fixtures}:7`, 'error'],
    ]);
    expect(run.counts).toEqual({ passed: 2, failed: 2, errors: 3, skippedCases: 1, skipped: 1 });
    const [, tests, pushes, , reason, json, word, orphan] = run.results;
    expect(tests).toMatchObject({ expect: 'ask', message: 'expected `ask`, got `allow`', decision: { decision: 'allow' } });
    // A skipped case says which hooks it waits on, and carries no message or decision.
    expect(pushes).toMatchObject({ hooks: ['p.dshpolicy:3:3'] });
    expect(pushes!.message).toBeUndefined();
    expect(pushes!.decision).toBeUndefined();
    expect(reason).toMatchObject({ expectReason: '/tested/i', message: 'got `allow` as expected, but no reason or context matches `/tested/i`' });
    expect(json!.errors![0]).toMatchObject({ code: 'fixture/json', span: { file: fixtures, start: { line: 5 } } });
    expect(word!.errors![0]).toMatchObject({ code: 'fixture/bad-expect', pointer: '/expect', message: '`expect` must be a decision of the `pre-tool` seam, found `block`' });
    expect(orphan!.errors![0]).toMatchObject({ code: 'fixture/bad-expect', pointer: '/expect_reason', message: '`expect_reason` without `expect`' });
  });

  it('decides every case with its hooks when given a runner', async () => {
    const run = await runPolicyTests(policy(), { runner: allowing });
    expect(run.results.map((r) => r.status)).toEqual(['passed', 'failed', 'passed']);
    expect(run.counts.skippedCases).toBe(0);
  });

  it('reads `-` from the stream given, and names a test case without a span by `file`', async () => {
    const stdin = Readable.from([`${bash('rm -rf x', { expect: 'deny' })}\n`]);
    const run = await runPolicyTests(policy([TESTS[1]!]), { fixtures: ['-'], stdin, file: 'other.dshpolicy' });
    expect(run.results.map((r) => [r.file, r.at, r.status])).toEqual([
      ['other.dshpolicy', 'other.dshpolicy', 'failed'],
      ['-', '-:1', 'passed'],
    ]);
  });

  it('makes an unreadable fixture file one erring case, and runs the other files', async () => {
    const missing = join(dir, 'missing.jsonl');
    const ok = write('b.jsonl', bash('rm -rf x', { expect: 'deny' }));
    const run = await runPolicyTests(policy([]), { fixtures: [missing, ok] });
    expect(run.results.map((r) => [r.name, r.status])).toEqual([['the fixture file', 'error'], ['line 1', 'passed']]);
    expect(run.results[0]!.errors![0]).toMatchObject({ code: 'fixture/unreadable', message: `cannot read fixtures \`${missing}\`: ENOENT` });
  });
});

describe('readFixtures', () => {
  it('passes over blank lines and reports a bad line at its line and column', async () => {
    const file = write('c.jsonl', '{"a":1}\n\n{"a":1 x}\n');
    const items: FixtureItem[] = [];
    for await (const item of readFixtures(file)) items.push(item);
    expect(items.map((i) => [i.line, i.offset])).toEqual([[1, 0], [3, 9]]);
    expect(items[0]!.value).toEqual({ a: 1 });
    expect(items[1]!.errors![0]).toMatchObject({ code: 'fixture/json', span: { file, start: { line: 3, column: 8, offset: 16 } } });
  });

  it('throws FixtureReadError for a file that cannot be read', async () => {
    const read = async () => {
      for await (const _ of readFixtures(dir)) void _;
    };
    await expect(read()).rejects.toBeInstanceOf(FixtureReadError);
  });
});

describe('evaluateFixtures', () => {
  it('yields a decision per event line and the errors of the others', async () => {
    const file = write('d.jsonl', [bash('rm -rf x'), '{"seam":"nowhere"}', bash('npm test')].join('\n'));
    const out = [];
    for await (const r of evaluateFixtures(policy([]), file)) out.push([r.line, r.decision?.decision ?? r.errors?.[0]?.span?.start.line]);
    expect(out).toEqual([[1, 'deny'], [2, 2], [3, 'allow']]);
  });
});
