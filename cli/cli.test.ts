import { readFileSync, writeFileSync } from 'node:fs';
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

  it('every command that reads it reaches check\'s verdict on a broken hooks file', async () => {
    const truncated = file('truncated.json', '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./x.sh"');
    const codex = file('codex-hooks.json', '{"hooks":{"pre_tool_use":[{"matcher":"shell","hooks":[{"type":"command","command":"./x.sh"}]}');
    const events = file('one.jsonl', '{"seam":"pre-tool","tool":"Bash","input":{"command":"npm test"},"expect":"none"}\n');
    for (const [flag, hooksFile] of [['--claude-hooks', broken], ['--claude-hooks', truncated], ['--codex-hooks', codex]] as const) {
      const checked = await run(['check', good, flag, hooksFile, '--format', 'json']);
      expect(checked.code).toBe(1);
      const codes = (out: string) => (JSON.parse(out) as { diagnostics: { code: string; severity: string }[] }).diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);
      const want = codes(checked.out);
      expect(want.length).toBeGreaterThan(0);
      const runs = [
        ['eval', '-p', good, flag, hooksFile, '-f', events, '--format', 'json'],
        ['test', good, events, flag, hooksFile, '--format', 'json'],
        ['explain', '-p', good, flag, hooksFile, '-f', events, '--format', 'json'],
        ['replay', '-p', good, flag, hooksFile, join(dir, 'no-such-session.jsonl'), '--format', 'json'],
      ];
      for (const argv of runs) {
        const r = await run(argv);
        expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
        expect(codes(r.out)).toEqual(want);
      }
    }
  });
});

describe('policy files that are not UTF-8', () => {
  const latin1 = join(dir, 'latin1.dshpolicy');
  writeFileSync(latin1, Buffer.concat([Buffer.from('on pre-tool {\n  deny Bash command "rm *" because "d'), Buffer.from([0xe9]), Buffer.from('fense"\n}\n')]));
  const events = file('rm.jsonl', '{"seam":"pre-tool","tool":"Bash","input":{"command":"rm x"},"expect":"deny"}\n');
  const where = { code: 'parse/invalid-utf8', severity: 'error', span: { file: latin1, start: { line: 2, column: 38 }, end: { line: 2, column: 39 } } };

  it('check reports the first bad byte with a span, and exits 1', async () => {
    const r = await run(['check', latin1, '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, rules: null, diagnostics: [where] });
    const human = await run(['check', latin1]);
    expect(human.out).toContain(`error[parse/invalid-utf8]: invalid UTF-8: the byte \`0xE9\` at byte offset 51 is not part of a UTF-8 character\n  --> ${latin1}:2:38\n`);
  });

  it('every command that loads the policy refuses it', async () => {
    for (const argv of [
      ['eval', '-p', latin1, '-f', events, '--format', 'json'],
      ['test', latin1, events, '--format', 'json'],
      ['explain', '-p', latin1, '-f', events, '--format', 'json'],
      ['compile', latin1, '--format', 'json'],
    ]) {
      const r = await run(argv);
      expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
      expect(JSON.parse(r.out).diagnostics).toMatchObject([where]);
    }
  });

  it('an include that is not UTF-8 is refused at its own byte', async () => {
    const top = file('top.dshpolicy', 'include "latin1.dshpolicy"\n');
    const r = await run(['check', top, '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).diagnostics).toMatchObject([where]);
  });

  it('an IR file that is not UTF-8 is refused too', async () => {
    const ir = join(dir, 'latin1.json');
    const compiled = await run(['compile', good]);
    writeFileSync(ir, Buffer.from(compiled.out.replace('never delete a root', 'never delete a r\u00f6ot'), 'latin1'));
    const r = await run(['eval', '-p', ir, '-f', events, '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).diagnostics).toMatchObject([{ code: 'parse/invalid-utf8', span: { file: ir } }]);
  });
});

