import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lexPolicy, SourceText, type Diagnostic } from '../grammar/index.js';
import { lexFast } from './lex-fast.js';
import { parseFast } from './parse-fast.js';
import { parsePolicy, parseWithParser } from './parse.js';

const EXAMPLE = readFileSync(new URL('../grammar/testdata/language-example.dshpolicy', import.meta.url), 'utf8');

const RULES = [
  'policy "p"',
  'include "other.dshpolicy"',
  'import claude hooks "settings.json"',
  'import gemini policy "policy.toml"',
  'unprotect claude',
  'unprotect policy, codex,\n  *',
  'let cmds = ["git *", "rm -rf *",]',
  'let opts = {shell: "bash", "args": ["-x"], on: 1}',
  'on pre-tool {\n  deny Bash command "rm -rf *" because "no"\n  allow Read, Edit path "src/**"\n}',
  'on pre-tool {\n  ask WebFetch domain "*.example.com", "x.org" when input.mode == "a" and not (cwd startswith "/srv" or tool in ["Read"]) because why\n}',
  'on pre-tool {\n  deny Bash when command matches /\\bgit\\s+push\\b/i\n  allow mcp__x__* when input.flag exists\n}',
  'on post-tool {\n  context Edit, Write path "**/*.md" "a note"\n  block Bash command cmds when output contains "x" because "y"\n}',
  'on stop {\n  continue when ran Bash command "deploy *" and not ran Bash command "verify *" because "verify"\n  halt when last_message contains "give up" because "stop"\n}',
  'on prompt {\n  block when prompt matches /secret/ because "s"\n  context "note" when true\n}',
  'on session-start {\n  run hook "./x.sh" timeout 5s with {args: ["a"], shell: "bash"}\n}',
  'on pre-tool {\n  run Bash hook "./y.sh" dialect codex matcher "Bash" timeout 500ms 3\n}',
  'test "t" {\n  pre-tool Bash {command: "rm -rf /"} => deny because /no/\n  prompt "hello" => allow\n  stop with {last_message: "x"} => continue because "verify"\n}',
];

/** Pieces that make the text near-valid: a token in the wrong place, a clause twice, a bad literal. */
const NOISE = [
  '{', '}', '[', ']', '(', ')', ',', ':', '=', '==', '!=', '=>', '!', 'and', 'or', 'not', 'when', 'because', 'deny', 'allow',
  'on', 'let', 'test', 'policy', 'unprotect', 'command', 'path', 'x', 'Bash', '"s"', '"a\\qb"', '"open', '/r/', '//', '/open', '1', '5s',
  '10sec', '1.', 'true', 'null', 'exists', 'ran', 'with', 'hook', 'timeout', 'matcher', 'in', 'a..b', '*', 'é', '#c\n', '\n',
];

const mutated = fc
  .tuple(
    fc.array(fc.constantFrom(...RULES, EXAMPLE), { minLength: 1, maxLength: 4 }),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom(...NOISE), fc.boolean()), { maxLength: 3 }),
  )
  .map(([items, edits]) => {
    let text = items.join('\n');
    for (const [at, piece, replace] of edits) {
      const i = at % (text.length + 1);
      text = text.slice(0, i) + ` ${piece} ` + text.slice(replace ? Math.min(text.length, i + 3) : i);
    }
    return text;
  });

function tokensOf(text: string): { tokens: string[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const { tokens } = lexPolicy(text, new SourceText(text, 'f'), diagnostics);
  return { tokens: tokens.map((t) => `${t.tokenType.name}@${t.startOffset}+${t.image.length}`), diagnostics };
}

describe('the fast parse path', () => {
  it('reads valid files', () => {
    for (const text of [EXAMPLE, ...RULES, RULES.join('\n')]) expect(parseFast(text, 'f.dshpolicy'), text).toBeDefined();
  });

  it('gives exactly what the parser gives, whenever it reads a file', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        const fast = parseFast(text, 'f.dshpolicy');
        if (fast === undefined) return;
        expect(parseWithParser(text, 'f.dshpolicy')).toEqual({ ast: fast, diagnostics: [] });
      }),
      { numRuns: 1500 },
    );
  });

  it('leaves files with errors to the parser', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        expect(parsePolicy(text, 'f.dshpolicy')).toEqual(parseWithParser(text, 'f.dshpolicy'));
      }),
      { numRuns: 500 },
    );
  });

  it('lexes as the grammar lexes, whenever it lexes a text', () => {
    const chars = [...'aZ_*.-0959 \t\n\r\v\f\ufeff"/\\#{}[](),:=!>mshé\u0000@?\''];
    const words = ['on', 'deny', 'in', 'include', 'not', 'ms', '1.5', '1.', '10sec', '"a\\"b"', '"\\q"', '/x\\/y/gi', '//', '""'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars, ...words), { maxLength: 16 }), (pieces) => {
        const text = pieces.join('');
        const fast = lexFast(text);
        if (fast === undefined) return;
        const want = tokensOf(text);
        expect(want.diagnostics).toEqual([]);
        expect(fast.types.map((t, i) => `${t.name}@${fast.starts[i]}+${fast.ends[i]! - fast.starts[i]!}`)).toEqual(want.tokens);
      }),
      { numRuns: 5000 },
    );
  });
});
