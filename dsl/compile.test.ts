import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from '../engine/index.js';
import { finishDiagnostics } from './compile.js';
import { codesAt } from './compile-testkit.js';
import { MAX_DIAGNOSTICS, STAGES, compileFiles, compileSources, compileText, parsePolicy } from './index.js';

describe('the pipeline', () => {
  it('runs its stages in order', () => {
    expect(STAGES.map((s) => s.name)).toEqual(['load', 'resolve', 'check', 'lower']);
  });

  it('exposes the parser', () => {
    const { ast, diagnostics } = parsePolicy('policy "x"\n', 'a.dshpolicy');
    expect(diagnostics).toEqual([]);
    expect(ast.items[0]?.kind).toBe('policy');
  });

  it('stops at parse errors without cascading checks', () => {
    const r = compileText('on pretool {\n  deny Bash when\n}\n');
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.every((d) => d.code.startsWith('parse/'))).toBe(true);
  });

  it('still checks the files that parsed', () => {
    const r = compileText('include "bad.dshpolicy"\non pretool {}\n', 'a.dshpolicy', { 'bad.dshpolicy': 'on {' });
    const codes = r.diagnostics.map((d) => d.code);
    expect(codes).toContain('check/unknown-seam');
    expect(codes.some((c) => c.startsWith('parse/'))).toBe(true);
  });
});

describe('compileText', () => {
  it('names the file policy.dshpolicy by default', () => {
    expect(compileText('on prompt {\n  block\n}\n').ir?.rules[0]?.id).toBe('policy.dshpolicy:2:3');
  });

  it('reads includes from the extra files', () => {
    const r = compileText('include "./lib/base.dshpolicy"\n', 'root/main.dshpolicy', { 'root/lib/base.dshpolicy': 'on prompt {\n  block\n}\n' });
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.sources).toEqual(['root/main.dshpolicy', 'root/lib/base.dshpolicy']);
    expect(r.ir?.rules[0]?.id).toBe('root/lib/base.dshpolicy:2:3');
  });

  it('takes the policy name from the first file only', () => {
    const r = compileText('include "b.dshpolicy"\n', 'a.dshpolicy', { 'b.dshpolicy': 'policy "b"\n' });
    expect(r.ir).toBeDefined();
    expect(r.ir?.name).toBeUndefined();
    const named = compileText('policy "a"\ninclude "b.dshpolicy"\n', 'a.dshpolicy', { 'b.dshpolicy': 'policy "b"\n' });
    expect(named.ir?.name).toBe('a');
  });
});

describe('compileSources', () => {
  it('concatenates entries in order', () => {
    const files: Record<string, string> = {
      'a.dshpolicy': 'policy "first"\non prompt {\n  block\n}\n',
      'b.dshpolicy': 'policy "second"\non stop {\n  halt\n}\n',
    };
    const r = compileSources(['a.dshpolicy', 'b.dshpolicy'], { readFile: (p) => files[p] });
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.name).toBe('first');
    expect(r.ir?.sources).toEqual(['a.dshpolicy', 'b.dshpolicy']);
    expect(r.ir?.rules.map((x) => x.id)).toEqual(['a.dshpolicy:3:3', 'b.dshpolicy:3:3']);
  });
});

describe('compileFiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-dsl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads files and their includes from disk', () => {
    mkdirSync(join(dir, 'lib'));
    writeFileSync(join(dir, 'main.dshpolicy'), 'include "./lib/base.dshpolicy"\non prompt {\n  block\n}\n');
    writeFileSync(join(dir, 'lib', 'base.dshpolicy'), 'on stop {\n  halt\n}\n');
    const r = compileFiles([join(dir, 'main.dshpolicy')]);
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.sources).toEqual([join(dir, 'main.dshpolicy'), join(dir, 'lib', 'base.dshpolicy')]);
  });

  it('reports a missing file, and a directory, as unreadable', () => {
    expect(compileFiles([join(dir, 'nope.dshpolicy')]).diagnostics.map((d) => d.code)).toEqual(['check/file-not-found']);
    expect(compileFiles([dir]).diagnostics.map((d) => d.code)).toEqual(['check/file-not-found']);
  });
});

describe('diagnostics', () => {
  it('come sorted by file and position', () => {
    const r = compileText('on pre-tool {\n  deny Bsh\n}\non stop {\n  deny\n}\non pretool {}\n');
    expect(codesAt(r)).toEqual(['check/unknown-tool@2:8', 'check/effect-not-allowed@5:3', 'check/unknown-seam@7:4']);
  });

  it('are capped, keeping errors first', () => {
    const lines = Array.from({ length: 150 }, () => '  deny Bsh\n  block').join('\n');
    const r = compileText(`on pre-tool {\n${lines}\n}\n`);
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics).toHaveLength(MAX_DIAGNOSTICS);
    const last = r.diagnostics[MAX_DIAGNOSTICS - 1]!;
    expect(last).toEqual({ code: 'check/too-many-diagnostics', severity: 'info', message: '101 more diagnostics not shown' });
    expect(r.diagnostics.filter((d) => d.code === 'check/effect-not-allowed')).toHaveLength(150);
    expect(r.diagnostics.filter((d) => d.code === 'check/unknown-tool')).toHaveLength(49);
  });

  it('are not capped at the limit itself', () => {
    const many: Diagnostic[] = Array.from({ length: MAX_DIAGNOSTICS }, (_, i) => ({ code: 'check/x', severity: 'warning', message: `m${i}` }));
    expect(finishDiagnostics(many)).toHaveLength(MAX_DIAGNOSTICS);
    expect(finishDiagnostics([...many, { code: 'check/x', severity: 'warning', message: 'more' }]).at(-1)?.code).toBe('check/too-many-diagnostics');
  });

  it('drop exact repeats', () => {
    const d: Diagnostic = { code: 'check/x', severity: 'error', message: 'm' };
    expect(finishDiagnostics([d, { ...d }])).toEqual([d]);
  });

  it('follow the message style: lowercase start, no trailing period', () => {
    const r = compileText(
      'let a = b\nlet b = a\non pre-tool {\n  deny Bsh path /x/ when output == 1 because "r"\n  allow Read because "x"\n  run Bash\n}\non stop {\n  limit 0\n}\ntest "t" {\n  prompt "x" => deny\n}\n',
    );
    expect(r.diagnostics.length).toBeGreaterThan(5);
    for (const d of r.diagnostics) {
      expect(d.message).toMatch(/^[a-z`]/);
      expect(d.message).not.toMatch(/\.$/);
      expect(d.code).toMatch(/^check\/[a-z]+(-[a-z]+)*$/);
      expect(d.span).toBeDefined();
    }
  });
});
