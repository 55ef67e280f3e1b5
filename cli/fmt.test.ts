import { chmodSync, readdirSync, readFileSync, statSync, symlinkSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Rule } from '../engine/index.js';
import { formatPolicy } from '../dsl/index.js';
import { UsageError } from './args.js';
import { checkDiff, fmtCommand } from './fmt.js';
import { printHooks } from '../dsl/index.js';
import { runCommand, scratch, type CliRun } from './testkit.js';

/** Runs `dshpolicy fmt <argv>` in this process, with `stdin` as its standard input. */
const run = (argv: string[], stdin = ''): Promise<CliRun> => runCommand(fmtCommand, argv, stdin);

const MESSY = 'on pre-tool {\n    deny  Bash   because "no"  command "rm -rf /"   # keep me\n}\n\n\n\nlet x=["a","b"]\n';
const TIDY = 'on pre-tool {\n  deny Bash command "rm -rf /" because "no"  # keep me\n}\n\nlet x = ["a", "b"]\n';
const BROKEN = 'on pre-tool {\n  deny Bash because\n}\n';

describe('dshpolicy fmt: in place', () => {
  it('rewrites a file that changes, and reports it', async () => {
    const { file } = scratch('dshpolicy-fmt-');
    const p = file('a.dshpolicy', MESSY);
    const r = await run([p]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toBe(`formatted ${p}\n`);
    expect(readFileSync(p, 'utf8')).toBe(TIDY);
  });

  it('leaves a formatted file alone: not written again, nothing printed', async () => {
    const { file } = scratch('dshpolicy-fmt-');
    const p = file('a.dshpolicy', TIDY);
    const before = statSync(p);
    const r = await run([p]);
    expect(r).toEqual({ code: 0, out: '', err: '' });
    expect(statSync(p).ino).toBe(before.ino);
    expect(statSync(p).mtimeMs).toBe(before.mtimeMs);
  });

  it('writes through a temporary file: the mode is kept and nothing is left behind', async () => {
    const { dir, file } = scratch('dshpolicy-fmt-');
    const p = file('a.dshpolicy', MESSY);
    chmodSync(p, 0o640);
    expect((await run([p])).code).toBe(0);
    expect(statSync(p).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['a.dshpolicy']);
  });

  it('follows a symbolic link: the file it points to is formatted, the link stays', async () => {
    const { dir, file } = scratch('dshpolicy-fmt-');
    const target = file('real.dshpolicy', MESSY);
    const link = `${dir}/link.dshpolicy`;
    symlinkSync(target, link);
    expect((await run([link])).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(TIDY);
  });

  it('leaves a file with syntax errors untouched, reports them at file:line:col, and still formats the others', async () => {
    const { file } = scratch('dshpolicy-fmt-');
    const bad = file('bad.dshpolicy', BROKEN);
    const good = file('good.dshpolicy', MESSY);
    const r = await run([bad, good]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('error[parse/');
    expect(r.err).toMatch(new RegExp(`--> ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:1`));
    expect(r.out).toBe(`formatted ${good}\n`);
    expect(readFileSync(bad, 'utf8')).toBe(BROKEN);
    expect(readFileSync(good, 'utf8')).toBe(TIDY);
  });

  it('reports a file that cannot be read', async () => {
    const { dir } = scratch('dshpolicy-fmt-');
    const r = await run([`${dir}/missing.dshpolicy`]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('error[cli/unreadable]');
    expect(r.err).toContain('no such file');
  });
});

describe('dshpolicy fmt --check', () => {
  it('changes nothing, exits 1 and lists each file that would change with the start of a diff', async () => {
    const { file } = scratch('dshpolicy-fmt-');
    const messy = file('messy.dshpolicy', MESSY);
    const tidy = file('tidy.dshpolicy', TIDY);
    const r = await run(['--check', messy, tidy]);
    expect(r.code).toBe(1);
    expect(readFileSync(messy, 'utf8')).toBe(MESSY);
    expect(r.out).toContain(`${messy}: not formatted\n--- ${messy}\n+++ ${messy} (formatted)\n@@ -1,7 +1,5 @@\n`);
    expect(r.out).toContain('-    deny  Bash   because "no"  command "rm -rf /"   # keep me\n+  deny Bash command "rm -rf /" because "no"  # keep me\n');
    expect(r.out).not.toContain(`${tidy}:`);
    expect(r.out).toMatch(/failed: 1 file would be reformatted\n$/);
  });

  it('exits 0 when every file is formatted', async () => {
    const { file } = scratch('dshpolicy-fmt-');
    const r = await run(['--check', file('a.dshpolicy', TIDY), file('b.dshpolicy', '')]);
    expect(r).toEqual({ code: 0, out: 'ok: 2 files formatted\n', err: '' });
  });

  it('counts a file with syntax errors as a failure', async () => {
    const { file } = scratch('dshpolicy-fmt-');
    const r = await run(['--check', file('bad.dshpolicy', BROKEN)]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('failed: 1 file could not be formatted');
  });

  it('finds the bundled example in the canonical layout, and --check changes nothing', async () => {
    const path = new URL('../examples/guardrails.dshpolicy', import.meta.url).pathname;
    const before = readFileSync(path, 'utf8');
    const r = await run(['--check', path]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });
});

describe('dshpolicy fmt -', () => {
  it('reads stdin and prints the formatted text, and nothing else, on stdout', async () => {
    expect(await run(['-'], MESSY)).toEqual({ code: 0, out: TIDY, err: '' });
  });

  it('prints nothing on stdout and the errors on stderr when stdin has syntax errors', async () => {
    const r = await run(['-'], BROKEN);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('--> <stdin>:3:1');
    expect(r.err).toContain('3 | }');
  });

  it('with --check, prints the diff instead', async () => {
    const r = await run(['--check', '-'], MESSY);
    expect(r.code).toBe(1);
    expect(r.out).toContain('<stdin>: not formatted');
    expect((await run(['--check', '-'], TIDY)).code).toBe(0);
  });
});

describe('dshpolicy fmt --format json', () => {
  it('prints every file with whether it changed and its diagnostics', async () => {
    const { file } = scratch('dshpolicy-fmt-');
    const messy = file('messy.dshpolicy', MESSY);
    const bad = file('bad.dshpolicy', BROKEN);
    const r = await run(['--format', 'json', '--check', messy, bad]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.out) as { ok: boolean; files: { file: string; changed: boolean; diagnostics: { code: string; span?: { start: { line: number } } }[] }[] };
    expect(out.ok).toBe(false);
    expect(out.files.map((f) => [f.file, f.changed, f.diagnostics.length > 0])).toEqual([
      [messy, true, false],
      [bad, false, true],
    ]);
    expect(out.files[1]!.diagnostics[0]!.span!.start.line).toBe(3);
    expect(out.files[0]).not.toHaveProperty('text');
    expect(readFileSync(messy, 'utf8')).toBe(MESSY);
  });

  it('gives the formatted text of stdin', async () => {
    const r = await run(['--format', 'json', '-'], MESSY);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ ok: true, files: [{ file: '<stdin>', changed: true, diagnostics: [], text: TIDY }] });
  });
});

describe('dshpolicy fmt: bytes that are not UTF-8', () => {
  const latin1 = Buffer.concat([Buffer.from('on pre-tool {\n    deny  Bash   because "d'), Buffer.from([0xe9]), Buffer.from('fense"\n}\n')]);

  it('refuses to rewrite the file, saying where the bad byte is', async () => {
    const { dir } = scratch('dshpolicy-fmt-');
    const p = join(dir, 'a.dshpolicy');
    writeFileSync(p, latin1);
    for (const argv of [[p], ['--check', p]]) {
      const r = await run(argv);
      expect(r.code).toBe(1);
      expect(r.out).not.toContain(`formatted ${p}`);
      expect(r.err).toContain(`error[parse/invalid-utf8]: invalid UTF-8: the byte \`0xE9\` at byte offset 41 is not part of a UTF-8 character\n  --> ${p}:2:28\n`);
      expect(readFileSync(p).equals(latin1)).toBe(true);
    }
    const json = JSON.parse((await run(['--format', 'json', p])).out);
    expect(json).toMatchObject({ ok: false, files: [{ file: p, changed: false, diagnostics: [{ code: 'parse/invalid-utf8', span: { start: { line: 2, column: 28 } } }] }] });
  });

  it('refuses such bytes on stdin, and prints nothing formatted', async () => {
    const r = await runCommand(fmtCommand, ['-'], [latin1]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('error[parse/invalid-utf8]');
  });

  it('reads a character split across two chunks of stdin as one', async () => {
    const text = Buffer.from('on pre-tool {\n  deny Bash because "d\u00e9fense"\n}\n');
    const cut = text.indexOf(0xc3) + 1;
    const r = await runCommand(fmtCommand, ['-'], [text.subarray(0, cut), text.subarray(cut)]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toBe(text.toString('utf8'));
  });
});


describe('dshpolicy fmt: usage', () => {
  it('needs a file or -, and - alone', async () => {
    await expect(run([])).rejects.toThrow(UsageError);
    await expect(run(['-', 'a.dshpolicy'])).rejects.toThrow(UsageError);
    await expect(run(['--format', 'table', '-'])).rejects.toThrow(UsageError);
    await expect(run(['--nope', '-'])).rejects.toThrow(UsageError);
  });

  it('prints its help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('usage: dshpolicy fmt');
  });
});

describe('checkDiff', () => {
  it('shows hunks with three lines of context, and cuts a long diff short', () => {
    const a = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    const b = a.map((l, i) => (i === 5 || i === 30 ? `${l}!` : l));
    const d = checkDiff(`${a.join('\n')}\n`, `${b.join('\n')}\n`, 'f');
    expect(d).toBe(
      [
        '--- f',
        '+++ f (formatted)',
        '@@ -3,7 +3,7 @@',
        ' line 2',
        ' line 3',
        ' line 4',
        '-line 5',
        '+line 5!',
        ' line 6',
        ' line 7',
        ' line 8',
        '@@ -28,7 +28,7 @@',
        ' line 27',
        ' line 28',
        ' line 29',
        '-line 30',
        '+line 30!',
        ' line 31',
        ' line 32',
        ' line 33',
      ].join('\n'),
    );
    const many = checkDiff(a.join('\n'), a.map((l) => `${l}!`).join('\n'), 'f');
    expect(many.split('\n')).toHaveLength(2 + 30 + 1);
    expect(many.endsWith('\n...')).toBe(true);
  });

  it('says when only line breaks change', () => {
    expect(checkDiff('a\r\nb\r\n', 'a\nb\n', 'f')).toContain('only line breaks');
  });
});

describe('the imported-hooks printer writes the canonical layout', () => {
  it('formats the text of `dshpolicy import` to itself', () => {
    const rules: Rule[] = [
      { id: 'h#1', seam: 'pre-tool', effect: 'run', hook: { command: './guard.sh "$1"', dialect: 'claude', matcher: 'Bash|Edit', timeoutMs: 30_000, args: ['--strict', 'x'] } },
      { id: 'h#2', seam: 'pre-tool', effect: 'run', hook: { command: 'https://example.com/h', dialect: 'claude', http: { headers: { 'X-Token': '$T' }, allowedEnvVars: ['T'] } } },
      { id: 'h#3', seam: 'session-start', effect: 'run', hook: { command: 'echo hi', dialect: 'codex', matcher: 'startup' } },
    ];
    const { text } = printHooks(rules, ['claude hooks imported from .claude/settings.json']);
    const r = formatPolicy(text, 'imported.dshpolicy');
    expect(r.ok && r.text).toBe(text);
  });
});
