import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateIR } from '../engine/index.js';
import { runCli, scratch } from './testkit.js';

const { dir, file } = scratch('dshpolicy-cli-');
const run = runCli;

const good = file(
  'good.dshpolicy',
  `on pre-tool {
  deny Bash command "rm -rf /" because "never delete a root"
  allow Bash command "npm test"
}
on prompt {
  block when prompt contains "secret" because "no secrets"
}
`,
);
const bad = file('bad.dshpolicy', 'on pre-tool {\n  deny Bash when output matches /x/\n}\n');

describe('dshpolicy check', () => {
  it('exits 0 on a clean policy', async () => {
    const r = await run(['check', good]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('ok: 1 file, 3 rules');
  });

  it('exits 1 and prints a code frame per error', async () => {
    const r = await run(['check', bad]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('error[check/unknown-field]');
    expect(r.out).toContain(`--> ${bad}:2:18`);
    expect(r.out).toContain('2 |   deny Bash when output matches /x/');
    expect(r.out).toMatch(/\| {18}\^{6}/);
  });

  it('prints JSON diagnostics with --format json', async () => {
    const r = await run(['check', bad, '--format', 'json']);
    const json = JSON.parse(r.out);
    expect(json.ok).toBe(false);
    expect(json.diagnostics[0]).toMatchObject({ code: 'check/unknown-field', severity: 'error', span: { file: bad, start: { line: 2, column: 18 } } });
  });

  it('reports a missing file as a diagnostic, not a crash', async () => {
    const r = await run(['check', join(dir, 'nope.dshpolicy')]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('nope.dshpolicy');
  });

  it('survives binary garbage', async () => {
    const g = file('garbage.dshpolicy', Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256)).toString('latin1'));
    const r = await run(['check', g, '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).diagnostics.length).toBeGreaterThan(0);
  });
});

describe('dshpolicy compile', () => {
  it('prints IR that validates against the schema', async () => {
    const r = await run(['compile', good]);
    expect(r.code).toBe(0);
    expect(validateIR(JSON.parse(r.out)).diagnostics).toEqual([]);
  });

  it('writes to -o', async () => {
    const out = join(dir, 'out.json');
    expect((await run(['compile', good, '-o', out])).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).version).toBe(1);
  });

  it('fails with diagnostics on a bad policy', async () => {
    const r = await run(['compile', bad, '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, ir: null });
  });
});

describe('dshpolicy eval', () => {
  const fixtures = file(
    'events.jsonl',
    [
      '{"seam":"pre-tool","tool":"Bash","input":{"command":"sudo rm -rf /"}}',
      '',
      'not json',
      '{"seam":"pre-tool","tool":"Bash","input":{"command":"npm test"}}',
      '{"seam":"bogus"}',
      '{"seam":"prompt","prompt":"my secret"}',
      '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}',
    ].join('\n'),
  );

  it('prints one JSON line per fixture line, errors included, and exits 1 on a bad line', async () => {
    const r = await run(['eval', '--policy', good, '--fixtures', fixtures, '--format', 'json']);
    expect(r.code).toBe(1);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.line, l.decision])).toEqual([
      [1, 'deny'],
      [3, null],
      [4, 'allow'],
      [5, null],
      [6, 'block'],
      [7, 'none'],
    ]);
    expect(lines[0]).toMatchObject({ seam: 'pre-tool', reasons: ['never delete a root'], context: [], rules: [`${good}:2:3`] });
    expect(lines[1].error).toMatchObject({ code: 'fixture/json', span: { start: { line: 3 } } });
    expect(lines[3].error).toMatchObject({ code: 'event/invalid', pointer: '/seam' });
  });

  it('prints a readable table', async () => {
    const r = await run(['eval', '--policy', good, '--fixtures', fixtures]);
    expect(r.out).toMatch(/line +seam +event +decision +why/);
    expect(r.out).toMatch(/1 +pre-tool +Bash sudo rm -rf \/ +deny +never delete a root/);
    expect(r.out).toMatch(/3 +- +invalid event +error/);
  });

  it('reads fixtures from stdin with -', async () => {
    const r = await run(['eval', '--policy', good, '--fixtures', '-', '--format', 'json'], '{"seam":"pre-tool","tool":"Bash","input":{"command":"rm -rf /"}}\n');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).decision).toBe('deny');
  });

  it('accepts compiled IR as the policy', async () => {
    const ir = join(dir, 'good.json');
    await run(['compile', good, '-o', ir]);
    const r = await run(['eval', '--policy', ir, '--fixtures', '-', '--format', 'json'], '{"seam":"pre-tool","tool":"Bash","input":{"command":"rm -rf /"}}\n');
    expect(JSON.parse(r.out).decision).toBe('deny');
  });

  it('refuses to evaluate a policy that does not compile', async () => {
    const r = await run(['eval', '--policy', bad, '--fixtures', fixtures, '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false });
  });

  it('says what is missing on a usage error, with exit 2', async () => {
    expect((await run(['eval', '--fixtures', fixtures])).code).toBe(2);
    expect((await run(['eval', '--policy', good])).err).toContain('--fixtures');
    expect((await run(['eval', '--bogus'])).err).toContain('error: unknown option');
    expect((await run(['frobnicate'])).code).toBe(2);
    const missing = await run(['eval', '--policy', good, '--fixtures', join(dir, 'missing.jsonl')]);
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.err).toContain('cannot read fixtures');
    const missingJson = await run(['eval', '--policy', good, '--fixtures', join(dir, 'missing.jsonl'), '--format', 'json']);
    expect(JSON.parse(missingJson.out).diagnostics[0]).toMatchObject({ code: 'fixture/unreadable' });
  });
});

describe('hooks configurations beside a policy', () => {
  const settings = file(
    'settings.json',
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "hook says no" >&2; exit 2' }] }] } }),
  );
  const broken = file('broken.json', '{"hooks": {"PreToolUse": [ { "matcher": 1 } ]}');

  it('eval runs imported hooks and merges them with the policy', async () => {
    const r = await run(['eval', '--policy', good, '--claude-hooks', settings, '--fixtures', '-', '--format', 'json'], '{"seam":"pre-tool","tool":"Bash","input":{"command":"npm test"}}\n');
    expect(JSON.parse(r.out)).toMatchObject({ decision: 'deny', reasons: ['hook says no'] });
  });

  it('eval takes hooks alone, without a policy', async () => {
    const r = await run(['eval', '--claude-hooks', settings, '--fixtures', '-', '--format', 'json'], '{"seam":"pre-tool","tool":"Read","input":{}}\n');
    expect(JSON.parse(r.out).decision).toBe('none');
  });

  it('check reports a broken hooks file at file:line:col', async () => {
    const r = await run(['check', '--claude-hooks', broken, '--format', 'json']);
    expect(r.code).toBe(1);
    const d = JSON.parse(r.out).diagnostics.find((x: { severity: string }) => x.severity === 'error');
    expect(d.span.file).toBe(broken);
    expect(d.span.start.line).toBe(1);
  });
});

