import { describe, expect, it } from 'vitest';
import { codesAt, compileFake } from './compile-testkit.js';

describe('let names', () => {
  it('resolves a name used before its definition and through other names', () => {
    const text = `on pre-tool {\n  deny Read path all\n}\nlet all = [secrets, "*.key"]\nlet secrets = ["**/.env"]\n`;
    const r = compileFake(text, (b) => [
      b.on(b.ident('pre-tool'), [b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.ref('all')])] })]),
      b.let('all', b.list([b.ref('secrets', 1), b.str('"*.key"')])),
      b.let('secrets', b.list([b.str('"**/.env"')], 1), 1),
    ]);
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.rules[0]?.selectors).toEqual([{ kind: 'path', globs: ['**/.env', '*.key'] }]);
  });

  it('reports a name defined twice, at the second definition', () => {
    const text = `let x = "a"\nlet x = "b"\n`;
    const r = compileFake(text, (b) => [b.let('x', b.str('"a"')), b.let('x', b.str('"b"'), 1)]);
    expect(r.ir).toBeUndefined();
    expect(codesAt(r)).toEqual(['check/duplicate-let@2:5']);
    expect(r.diagnostics[0]!.message).toBe('`x` is already defined');
    expect(r.diagnostics[0]!.help).toContain('line 1');
  });

  it('reports a cycle once, at the reference that closes it', () => {
    const text = `let a = b\nlet b = [c]\nlet c = a\non prompt {\n  context a\n}\n`;
    const r = compileFake(text, (b) => [
      b.let('a', b.ref('b', 1)),
      b.let('b', b.list([b.ref('c', 1)]), 1),
      b.let('c', b.ref('a', 1), 1),
      b.on(b.ident('prompt'), [b.rule(b.ident('context'), { text: b.ref('a', 2) })]),
    ]);
    expect(r.ir).toBeUndefined();
    expect(codesAt(r)).toEqual(['check/let-cycle@3:9']);
    expect(r.diagnostics[0]!.message).toBe('`a` refers to itself: `a -> b -> c -> a`');
  });

  it('reports a let that refers to itself', () => {
    const text = `let a = [a]\n`;
    const r = compileFake(text, (b) => [b.let('a', b.list([b.ref('a', 1)]))]);
    expect(codesAt(r)).toEqual(['check/let-cycle@1:10']);
  });

  it('reports an unknown name with a suggestion when one is close', () => {
    const text = `let secrets = ["**/.env"]\non pre-tool {\n  deny Read path secret\n}\n`;
    const r = compileFake(text, (b) => [
      b.let('secrets', b.list([b.str('"**/.env"')])),
      b.on(b.ident('pre-tool'), [b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.ref('secret')])] })]),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-name@3:18']);
    expect(r.diagnostics[0]).toMatchObject({ message: '`secret` is not defined', help: 'did you mean `secrets`?' });
  });

  it('explains that names are per file when nothing is close', () => {
    const text = `on pre-tool {\n  deny Read path elsewhere\n}\n`;
    const r = compileFake(text, (b) => [
      b.on(b.ident('pre-tool'), [b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.ref('elsewhere')])] })]),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-name@2:18']);
    expect(r.diagnostics[0]!.help).toContain('names are not shared between files');
  });

  it('reports an unknown name inside a let once, and not again where the let is used', () => {
    const text = `let a = [nope]\non pre-tool {\n  deny Read path a\n  deny Edit path a\n}\n`;
    const r = compileFake(text, (b) => [
      b.let('a', b.list([b.ref('nope')])),
      b.on(b.ident('pre-tool'), [
        b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.ref('a', 1)])] }),
        b.rule(b.ident('deny', 1), { tools: [b.tool('Edit')], selectors: [b.sel('path', [b.ref('a', 2)], 1)] }),
      ]),
    ]);
    expect(codesAt(r)).toEqual(['check/unknown-name@1:10']);
  });

  it('does not share names between files', () => {
    const text = `include "./lib.dshpolicy"\non pre-tool {\n  deny Read path secrets\n}\n`;
    const r = compileFake(
      text,
      (b) => [
        b.include(b.str('"./lib.dshpolicy"')),
        b.on(b.ident('pre-tool'), [b.rule(b.ident('deny'), { tools: [b.tool('Read')], selectors: [b.sel('path', [b.ref('secrets')])] })]),
      ],
      { 'lib.dshpolicy': { text: `let secrets = ["a"]\n`, build: (b) => [b.let('secrets', b.list([b.str('"a"')]))] } },
    );
    expect(codesAt(r)).toEqual(['check/unknown-name@3:18']);
  });

  it('resolves names inside test payloads', () => {
    const text = `let cmd = "ls"\ntest "t" {\n  pre-tool Bash { command: cmd } => none\n}\n`;
    const r = compileFake(text, (b) => [
      b.let('cmd', b.str('"ls"')),
      b.test(b.str('"t"'), [b.kase(b.ident('pre-tool'), b.ident('none'), { tool: b.tool('Bash'), payload: b.obj({ command: b.ref('cmd', 1) }, 1) })]),
    ]);
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.tests[0]?.event).toEqual({ seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' } });
  });
});
