import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../engine/index.js';
import { compileWith } from './compile.js';
import { fakeSources, type AstBuilder, type FakeSource } from './compile-testkit.js';
import { compileSources } from './index.js';
import { decodeSource, invalidUtf8At, loadSources, resolveInclude, type SourceHost } from './load.js';

/** A file that includes `includes` (paths as written) and has one rule, so its order shows. */
function includer(...includes: string[]): FakeSource {
  const lines = includes.map((p) => `include "${p}"`);
  return {
    text: `${lines.join('\n')}\non prompt {\n  block\n}\n`,
    build: (b: AstBuilder) => [
      ...includes.map((p) => b.include(b.str(`"${p}"`))),
      b.on(b.ident('prompt'), [b.rule(b.ident('block'))]),
    ],
  };
}

const at = (d: Diagnostic): string => `${d.span?.file}:${d.span?.start.line}:${d.span?.start.column}`;

describe('resolveInclude', () => {
  it('is relative to the including file', () => {
    expect(resolveInclude('a.dshpolicy', './b.dshpolicy')).toBe('b.dshpolicy');
    expect(resolveInclude('dir/a.dshpolicy', 'b.dshpolicy')).toBe('dir/b.dshpolicy');
    expect(resolveInclude('dir/sub/a.dshpolicy', '../b.dshpolicy')).toBe('dir/b.dshpolicy');
    expect(resolveInclude('/etc/p/a.dshpolicy', './x/../b.dshpolicy')).toBe('/etc/p/b.dshpolicy');
  });

  it('takes an absolute path as is', () => {
    expect(resolveInclude('dir/a.dshpolicy', '/abs/b.dshpolicy')).toBe('/abs/b.dshpolicy');
  });
});

describe('loading', () => {
  it('loads a diamond once, in depth-first order', () => {
    const { host, parse } = fakeSources({
      'a.dshpolicy': includer('./b.dshpolicy', './c.dshpolicy'),
      'b.dshpolicy': includer('./d.dshpolicy'),
      'c.dshpolicy': includer('./d.dshpolicy'),
      'd.dshpolicy': includer(),
    });
    const r = compileWith(['a.dshpolicy'], host, parse);
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.sources).toEqual(['a.dshpolicy', 'b.dshpolicy', 'd.dshpolicy', 'c.dshpolicy']);
    expect(r.ir?.rules.map((x) => x.id)).toEqual([
      'a.dshpolicy:4:3',
      'b.dshpolicy:3:3',
      'd.dshpolicy:3:3',
      'c.dshpolicy:3:3',
    ]);
  });

  it('follows includes relative to the including file', () => {
    const { host, parse } = fakeSources({
      'top/a.dshpolicy': includer('./sub/b.dshpolicy'),
      'top/sub/b.dshpolicy': includer('../c.dshpolicy'),
      'top/c.dshpolicy': includer(),
    });
    const r = compileWith(['top/a.dshpolicy'], host, parse);
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.sources).toEqual(['top/a.dshpolicy', 'top/sub/b.dshpolicy', 'top/c.dshpolicy']);
  });

  it('reports a cycle at the include that closes it, with the chain', () => {
    const { host, parse } = fakeSources({
      'a.dshpolicy': includer('./b.dshpolicy'),
      'b.dshpolicy': includer('./c.dshpolicy'),
      'c.dshpolicy': includer('./a.dshpolicy'),
    });
    const r = compileWith(['a.dshpolicy'], host, parse);
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0]!;
    expect(d.code).toBe('check/include-cycle');
    expect(d.severity).toBe('error');
    expect(d.message).toBe('include cycle: `a.dshpolicy -> b.dshpolicy -> c.dshpolicy -> a.dshpolicy`');
    expect(at(d)).toBe('c.dshpolicy:1:1');
  });

  it('reports a file including itself', () => {
    const { host, parse } = fakeSources({ 'a.dshpolicy': includer('a.dshpolicy') });
    const r = compileWith(['a.dshpolicy'], host, parse);
    expect(r.diagnostics.map((d) => d.message)).toEqual(['include cycle: `a.dshpolicy -> a.dshpolicy`']);
  });

  it('does not take a diamond for a cycle', () => {
    const { host, parse } = fakeSources({
      'a.dshpolicy': includer('b.dshpolicy', 'c.dshpolicy'),
      'b.dshpolicy': includer('c.dshpolicy'),
      'c.dshpolicy': includer(),
    });
    expect(compileWith(['a.dshpolicy'], host, parse).diagnostics).toEqual([]);
  });

  it('reports a missing include at its span', () => {
    const { host, parse } = fakeSources({ 'dir/a.dshpolicy': includer('./ok.dshpolicy', './gone.dshpolicy'), 'dir/ok.dshpolicy': includer() });
    const r = compileWith(['dir/a.dshpolicy'], host, parse);
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({
      code: 'check/include-not-found',
      severity: 'error',
      message: 'cannot read included file `./gone.dshpolicy` (resolved to `dir/gone.dshpolicy`)',
    });
    expect(at(r.diagnostics[0]!)).toBe('dir/a.dshpolicy:2:1');
    expect(r.diagnostics[0]!.span?.end.column).toBe(`include "./gone.dshpolicy"`.length + 1);
  });

  it('reports an unreadable entry without a span', () => {
    const { host, parse } = fakeSources({});
    const r = compileWith(['nope.dshpolicy'], host, parse);
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics).toEqual([{ code: 'check/file-not-found', severity: 'error', message: 'cannot read policy file `nope.dshpolicy`' }]);
  });

  it('concatenates several entries and loads a shared file once', () => {
    const { host, parse } = fakeSources({
      'a.dshpolicy': includer('shared.dshpolicy'),
      'b.dshpolicy': includer('shared.dshpolicy'),
      'shared.dshpolicy': includer(),
    });
    const r = compileWith(['a.dshpolicy', 'b.dshpolicy', './a.dshpolicy'], host, parse);
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.sources).toEqual(['a.dshpolicy', 'shared.dshpolicy', 'b.dshpolicy']);
    expect(r.ir?.rules).toHaveLength(3);
  });

  it('passes parse diagnostics through and leaves broken files out of the checks', () => {
    const files: Record<string, FakeSource> = { 'a.dshpolicy': { text: 'on nowhere {}', build: (b) => [b.on(b.ident('nowhere'), [])] } };
    const { host } = fakeSources(files);
    const parseError: Diagnostic = { code: 'parse/unexpected-token', severity: 'error', message: 'unexpected `}`' };
    const r = compileWith(['a.dshpolicy'], host, (text, file) => {
      const { parse } = fakeSources(files);
      return { ast: parse(text, file).ast, diagnostics: [parseError] };
    });
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics).toEqual([parseError]);
  });
});

describe('imports', () => {
  const importing = (agent: string, what: string): FakeSource => ({
    text: `import ${agent} ${what} "./hooks.json"\n`,
    build: (b) => [b.import(b.ident(agent), b.ident(what, agent === what ? 1 : 0), b.str('"./hooks.json"'))],
  });

  it('recognises claude and codex hooks but does not support them', () => {
    for (const agent of ['claude', 'codex']) {
      const { host, parse } = fakeSources({ 'a.dshpolicy': importing(agent, 'hooks') });
      const r = compileWith(['a.dshpolicy'], host, parse);
      expect(r.ir).toBeUndefined();
      expect(r.diagnostics).toHaveLength(1);
      expect(r.diagnostics[0]).toMatchObject({
        code: 'check/import-unsupported',
        severity: 'error',
        message: `importing \`${agent} hooks\` is not supported by this version`,
      });
      expect(r.diagnostics[0]!.help).toContain(`dialect ${agent}`);
      expect(at(r.diagnostics[0]!)).toBe('a.dshpolicy:1:1');
    }
  });

  it('reports anything else as an unknown import, listing what exists', () => {
    for (const [agent, what] of [
      ['cursor', 'hooks'],
      ['claude', 'settings'],
    ] as const) {
      const { host, parse } = fakeSources({ 'a.dshpolicy': importing(agent, what) });
      const r = compileWith(['a.dshpolicy'], host, parse);
      expect(r.diagnostics).toHaveLength(1);
      expect(r.diagnostics[0]).toMatchObject({
        code: 'check/unknown-import',
        message: `\`${agent} ${what}\` is not something that can be imported`,
        help: 'known imports: `claude hooks`, `codex hooks`, `claude permissions`, `codex rules`, `gemini policy`',
      });
    }
  });
});

describe('loadSources', () => {
  it('marks files whose parse failed', () => {
    const { host } = fakeSources({ 'a.dshpolicy': includer() });
    const r = loadSources(['a.dshpolicy'], host, (_text, file) => ({
      ast: { kind: 'file', file, items: [], span: { file, start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } } },
      diagnostics: [{ code: 'parse/x', severity: 'error', message: 'x' }],
    }));
    expect(r.files.map((f) => [f.file, f.parsed])).toEqual([['a.dshpolicy', false]]);
  });
});

describe('strict UTF-8', () => {
  const bytes = (...b: (number | string)[]) => Buffer.concat(b.map((x) => (typeof x === 'string' ? Buffer.from(x, 'utf8') : Buffer.from([x]))));

  it('finds the first byte of the first ill-formed sequence', () => {
    expect(invalidUtf8At(bytes('plain ascii'))).toBe(-1);
    expect(invalidUtf8At(bytes('é € 😀 \u{10FFFF}'))).toBe(-1);
    expect(invalidUtf8At(bytes('a', 0xe9, 'b'))).toBe(1); // Latin-1 é
    expect(invalidUtf8At(bytes(0xc0, 0x80))).toBe(0); // an overlong NUL
    expect(invalidUtf8At(bytes('a', 0xe0, 0x80, 0x80))).toBe(1); // an overlong three-byte form
    expect(invalidUtf8At(bytes(0xed, 0xa0, 0x80))).toBe(0); // a surrogate
    expect(invalidUtf8At(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // past U+10FFFF
    expect(invalidUtf8At(bytes('ab', 0xe2, 0x82))).toBe(2); // cut short at the end
    expect(invalidUtf8At(bytes('😀', 0xff))).toBe(4);
    expect(invalidUtf8At(bytes(0x80))).toBe(0); // a continuation byte alone
  });

  it('agrees with a fatal TextDecoder on random bytes', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let n = 0; n < 3000; n++) {
      const b = Buffer.from(Array.from({ length: next() % 8 }, () => (next() % 3 === 0 ? next() % 128 : 0x80 + (next() % 128))));
      let ok = true;
      try {
        fatal.decode(b);
      } catch {
        ok = false;
      }
      expect(invalidUtf8At(b) === -1, b.toString('hex')).toBe(ok);
    }
  });

  it('reports parse/invalid-utf8 at the line and column of the first bad byte', () => {
    // `€` is three bytes but one UTF-16 unit: the message counts bytes, the span characters.
    const r = decodeSource(bytes('on prompt {\n  block because "€caf', 0xe9, '"\n}\n'), 'p.dshpolicy');
    expect(r.text).toBe('on prompt {\n  block because "€caf\uFFFD"\n}\n');
    expect(r.diagnostic).toMatchObject({
      code: 'parse/invalid-utf8',
      severity: 'error',
      message: 'invalid UTF-8: the byte `0xE9` at byte offset 35 is not part of a UTF-8 character',
      span: { file: 'p.dshpolicy', start: { line: 2, column: 22, offset: 33 }, end: { line: 2, column: 23, offset: 34 } },
    });
    expect(decodeSource(bytes('€ ok'), 'p')).toEqual({ text: '€ ok' });
  });

  it('refuses a policy file or an included file that is not UTF-8, and parses neither', () => {
    const files: Record<string, Buffer> = {
      'a.dshpolicy': bytes('include "b.dshpolicy"\non prompt {\n  block because "\u20AC"\n}\n'),
      'b.dshpolicy': bytes('on prompt {\n  block because "x', 0xff, '"\n}\n'),
      'c.dshpolicy': bytes(0xfe, 'on prompt {\n  block\n}\n'),
    };
    const host: SourceHost = { readFile: (path) => files[path] };
    const r = compileSources(['a.dshpolicy', 'c.dshpolicy'], host);
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, at(d)])).toEqual([
      ['parse/invalid-utf8', 'b.dshpolicy:2:19'],
      ['parse/invalid-utf8', 'c.dshpolicy:1:1'],
    ]);
    // Without the bad byte, the same files compile: the error is the byte, nothing else.
    files['b.dshpolicy'] = bytes('on prompt {\n  block because "x"\n}\n');
    files['c.dshpolicy'] = bytes('on prompt {\n  block\n}\n');
    expect(compileSources(['a.dshpolicy', 'c.dshpolicy'], host).diagnostics).toEqual([]);
  });
});
