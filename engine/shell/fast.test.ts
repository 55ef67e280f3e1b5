import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSimpleCommands } from './fast.js';
import { MAX_SHELL_DEPTH } from './lexer.js';
import { Parser, parseCommands, withoutFastPath } from './parser.js';
import type { CommandPart } from './types.js';

/** Pieces of command lines: what the fast path reads, and what makes it hand over to the parser. */
const WORDS = [
  'git', 'ls', '-la', 'a', 'x', 'status', 'FOO=1', 'a=b', '=x', 'a[1]=x', 'A+=b', '--opt=v', 'x=(1 2)', 'é', '日本', '😀',
  '\u0000', '\r', 'a.b', 'a,b', '{a,b}', '{x}', '{}', 'x{1..3}', '{a', '}', '{', '!', '!(a|b)', '[[', '[', ']]', 'if', 'then',
  'fi', 'time', 'time -p', 'do', 'done', 'esac', 'in', 'for', 'case', 'function', 'coproc', 'f()', 'sudo', 'sudo -u root',
  'sudo -l', 'doas', 'env', 'env -S', 'env A=1', 'env -i', 'timeout 5', 'nice -10', 'nohup', 'xargs', 'xargs -I{}',
  'command -v', 'command', 'exec', '/usr/bin/sudo', './env', '/bin/bash', 'bash', 'bash -c', 'sh -lc', 'zsh -c', 'eval',
  'find . -exec', '-execdir', '-ok', '\\;', ';', '+', '#', 'a#b', '#c', "'a b'", "'x", "''", '""', '"a b"', '"a\\"b"',
  '"\\$x"', '"a\\\\"', '"x\\\ny"', '"$HOME"', '"${x}"', '"$(id)"', '"`id`"', '"$\'x"', '"$"', '"a', "$'a\\tb'", '$"x"',
  '$x', '$HOME/bin', '${PATH}', '${x:-y}', '${x', '${a"b}', '${a$b}', '$1', '$?', '$$', '$@', '$', '$(id)', '`id`',
  '${ id; }', '${|id;}', '${\tid;}', '"${ id; }"', '${ x',
  '$((1+2))', '\\ ', '\\n', '\\', '\\\n', 'a\\\nb', '>', '>>', '<', '2>&1', '2>', '&>', '&>>', '>|', '<>', '<&', '>&',
  '<<<', '<<EOF', '<<-X', "<<'Q'", '{fd}>', '3<', '<(x)', '>(y)', '2', '10', 'EOF', 'Q', '[[ x', '[[ a ]]', '(( x',
  '((1))', 'case x in', 'a)', ';;', 'select', 'while', 'until', 'elif', 'else',
];
const SEPARATORS = [' ', ' ', ' ', '', '  ', '\t', '\n', ';', ';;', '&', '&&', '|', '||', '|&', '(', ')', '( ', ' )', ' # c\n'];

/** Ways to nest a command line in another one. */
const NESTINGS: ((inner: string) => string)[] = [
  (s) => `bash -c '${s.replace(/'/g, "'\\''")}'`,
  (s) => `sh -c "${s.replace(/["\\$`]/g, '\\$&')}"`,
  (s) => `sudo bash -c '${s.replace(/'/g, "'\\''")}'`,
  (s) => `bash -c ${s}`,
  (s) => `eval ${s}`,
  (s) => `eval '${s.replace(/'/g, "'\\''")}'`,
  (s) => `$(${s})`,
  (s) => `"$(${s})"`,
  (s) => `\`${s.replace(/[`\\]/g, '\\$&')}\``,
  (s) => `(${s})`,
  (s) => `{ ${s}; }`,
  (s) => `find . -exec ${s} \\;`,
  (s) => `cat <<EOF\n${s}\nEOF\n`,
  (s) => `x=$(${s}) y`,
];

const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 1, arbitrary: fc.constantFrom(...SEPARATORS) },
);
const { commandLine } = fc.letrec<{ commandLine: string; nested: string }>((tie) => ({
  commandLine: fc
    .array(
      fc.tuple(
        fc.oneof({ maxDepth: 2 }, { weight: 6, arbitrary: piece }, { weight: 1, arbitrary: tie('nested') }),
        fc.constantFrom(' ', '', ' ', '\t'),
      ),
      { maxLength: 20 },
    )
    .map((pieces) => pieces.map(([p, s]) => p + s).join('')),
  nested: fc.tuple(fc.constantFrom(...NESTINGS), tie('commandLine')).map(([nest, inner]) => nest(inner)),
}));

function same(text: string, depth: number): void {
  const fast = JSON.stringify(parseCommands(text, depth));
  const slow = JSON.stringify(withoutFastPath(() => parseCommands(text, depth)));
  expect(fast, JSON.stringify(text)).toBe(slow);
}

describe('fast path', () => {
  it('gives what the parser gives on command lines', () => {
    fc.assert(
      fc.property(commandLine, (text) => same(text, 0)),
      { numRuns: 6000 },
    );
  }, 60_000);

  it('gives what the parser gives near the depth limit', () => {
    fc.assert(
      fc.property(commandLine, fc.constantFrom(MAX_SHELL_DEPTH - 1, MAX_SHELL_DEPTH, MAX_SHELL_DEPTH + 1), (text, depth) =>
        same(text, depth),
      ),
      { numRuns: 1000 },
    );
  }, 60_000);

  it('gives what the parser gives on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: fc.constantFrom(...'ab =${}()<>|&;\'"`\\#\n\t-!.,0'.split('')) }), (text) =>
        same(text, 0),
      ),
      { numRuns: 3000 },
    );
  }, 60_000);

  it('hands over to the parser inside lists it reads', () => {
    for (const text of [
      'a && b "$(c d; e)" f; g | h',
      'x $(a; b | c) y && z',
      'if a; then b "$x"; else c; fi; d',
      'cat <<EOF; x\nbody $(y)\nEOF\nz',
      '(a; b) && { c; d; } | e',
      'a |&>f b',
      'a &&>f b',
      'bash -c "a && b $(c)" && sudo sh -c \'d; e\'',
      'a "$(b)"; bash -c \'[[ x\'; c "$(d)"',
      'a "$(b)"; bash -c \'if\'; c "$(d)"; e',
    ])
      same(text, 0);
  });

  it('hands function substitutions over to the parser', () => {
    const scripts = { parseScript: (script: string) => parseCommands(script, 1) };
    for (const text of ['echo ${ rm -rf /; }', 'echo ${|rm -rf /;}', 'a; echo "x${\trm -rf /;}"', 'a && echo ${\nrm -rf /\n}', 'echo ${\\\n rm -rf /; }']) {
      const read: CommandPart[] = [];
      expect(readSimpleCommands(text, 0, 0, scripts, read), JSON.stringify(text)).toBe(text.indexOf('echo'));
      // the parser's lists take the fast path too, whatever parseCommands does before them
      const parsed = new Parser(text, 0).run();
      expect(JSON.stringify(parsed), JSON.stringify(text)).toBe(JSON.stringify(withoutFastPath(() => new Parser(text, 0).run())));
      expect(parsed.map((p) => p.text)).toContain('rm -rf /');
    }
  });
});
