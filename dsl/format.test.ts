import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { PolicyIR } from '../engine/index.js';
import { decodeString, encodeString, tokens as T, type IToken } from '../grammar/index.js';
import { astShape, formatPolicy, FORMAT_WIDTH } from './format.js';
import { compileText, parsePolicy } from './index.js';

/** The formatted text; fails the test when the file is not formatted. */
function fmt(text: string): string {
  const r = formatPolicy(text, 'policy.dshpolicy');
  if (!r.ok) throw new Error(`not formatted: ${JSON.stringify(r.diagnostics)}\n--- text:\n${text}`);
  return r.text;
}

/** Lines written indented in a template, without the template's own indent, ending in one line break. */
function src(strings: TemplateStringsArray): string {
  const lines = strings.raw.join('').replace(/^\n/, '').replace(/\s+$/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length));
  return `${lines.map((l) => l.slice(indent)).join('\n')}\n`;
}

/**
 * The IR without what carries a position: spans, rule ids (`file:line:col`, replaced by the rule's
 * index) and the line in test names (`<block>: line <n>`, or `<block>: <file>:<line>...` when two
 * cases share a line).
 */
function irShape(ir: PolicyIR): string {
  const copy = JSON.parse(JSON.stringify(ir, (k, v: unknown) => (k === 'span' ? undefined : v))) as PolicyIR;
  copy.rules.forEach((r, i) => (r.id = `#${i}`));
  for (const t of copy.tests) t.name = t.name.replace(/: (line \d+|\S+:\d+(:\d+)?( #\d+)?)$/, '');
  return JSON.stringify(copy);
}

/** Formatting `text` is idempotent, keeps the AST and (when it compiles) the IR; returns whether it compiled. */
function checkInvariants(text: string, extra: Record<string, string> = {}): boolean {
  const once = fmt(text);
  expect(fmt(once)).toBe(once);
  expect(astShape(parsePolicy(once, 'policy.dshpolicy').ast)).toBe(astShape(parsePolicy(text, 'policy.dshpolicy').ast));
  const before = compileText(text, 'policy.dshpolicy', extra);
  if (!before.ir) return false;
  const formattedExtra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, formatPolicy(v, k).ok ? fmt(v) : v]));
  const after = compileText(once, 'policy.dshpolicy', formattedExtra);
  expect(after.ir, JSON.stringify(after.diagnostics)).toBeDefined();
  expect(irShape(after.ir!)).toBe(irShape(before.ir));
  return true;
}

// ---------------------------------------------------------------- items and layout

describe('formatPolicy: items and layout', () => {
  it('prints the items one per line, strings re-encoded, at most one blank line between them', () => {
    const text = '\n\n  policy   "acme/x"\ninclude "./a\\/b.dshpolicy"   import claude hooks "./h.json"\n\n\n\nlet a=[ "x" ,"y", ]\nlet  b  =  a\n\n';
    expect(fmt(text)).toBe(src`
      policy "acme/x"
      include "./a/b.dshpolicy"
      import claude hooks "./h.json"

      let a = ["x", "y"]
      let b = a
    `);
  });

  it('prints `unprotect` with its groups on one line, a comment inside it above it', () => {
    expect(fmt('unprotect   claude ,\n  policy,*')).toBe('unprotect claude, policy, *\n');
    expect(fmt('unprotect claude, # for the settings agent\n  codex\n')).toBe('# for the settings agent\nunprotect claude, codex\n');
    checkInvariants('unprotect gemini\non pre-tool {\n  allow Read\n}\n');
  });

  it('prints every kind of value, literals with a text of their own as written', () => {
    const text = 'let v = [ "tab\\there \\u{2014} \\u{7f}", /a\\/b\\s+/im, 007, 1.50, 1000ms, true, false, null, other ]\nlet w = [[], {}, {k: 1, "q k": [1], if: "x"} ]';
    expect(fmt(text)).toBe(`let v = ["tab\\there — \\u{7f}", /a\\/b\\s+/im, 007, 1.50, 1000ms, true, false, null, other]\nlet w = [[], {}, { k: 1, "q k": [1], if: "x" }]\n`);
  });

  it('normalises line breaks to \\n, drops a byte-order mark and ends the file with one line break', () => {
    expect(fmt('\uFEFFpolicy "x"\r\n\r\n\r\nlet a = 1\r\n')).toBe('policy "x"\n\nlet a = 1\n');
    expect(fmt('policy "x"')).toBe('policy "x"\n');
  });

  it('formats an empty file to nothing, and a file of comments to its comments', () => {
    expect(fmt('')).toBe('');
    expect(fmt('  \n\n ')).toBe('');
    expect(fmt('  # one   \n\n\n# two\n')).toBe('# one\n\n# two\n');
  });

  it('prints empty blocks as `{}`', () => {
    expect(fmt('on pre-tool {\n\n}\ntest "t" { }')).toBe('on pre-tool {}\ntest "t" {}\n');
  });

  it('indents rules by two spaces and puts each on its own line', () => {
    expect(fmt('on pre-tool { allow Read deny   Bash\n\n\n    ask Edit }')).toBe(src`
      on pre-tool {
        allow Read
        deny Bash

        ask Edit
      }
    `);
  });
});

// ---------------------------------------------------------------- rules

describe('formatPolicy: rules', () => {
  it('puts the clauses of a rule in one order', () => {
    expect(fmt('on pre-tool { deny Bash,Read because "r"   when tool=="x" path "a","b"   command "c" }')).toBe(src`
      on pre-tool {
        deny Bash, Read path "a", "b" command "c" when tool == "x" because "r"
      }
    `);
  });

  it('prints every rule form with its clauses', () => {
    const text = src`
      on pre-tool {
        allow Read, Glob
        ask * when permission_mode == "bypassPermissions" because "confirm"
        deny mcp__db__* when input.sql matches /(?i)drop/ because why
        run Bash timeout 10s with {args: ["-s"], if: "B"} matcher "Bash" dialect claude hook "./g.sh"
      }
      on prompt {
        context when prompt contains "deploy" "Deploys need a ticket."
        block when prompt matches /secret/i because "no"
        run hook "./p.sh" matcher * dialect codex
      }
      on post-tool {
        context Edit, Write path "**/*.ts" "Run the typecheck."
        block Bash command "npm i *" when output contains "ERR" because "fix it"
      }
      on stop {
        limit 3
        continue when not ran Bash command "npm test *" because "run the tests"
        halt when stop_hook_active == true because "enough"
      }
      on session-start {
        context "Read the docs." when source == "startup"
      }
    `;
    expect(fmt(text)).toBe(src`
      on pre-tool {
        allow Read, Glob
        ask * when permission_mode == "bypassPermissions" because "confirm"
        deny mcp__db__* when input.sql matches /(?i)drop/ because why
        run Bash hook "./g.sh" dialect claude matcher "Bash" timeout 10s with {args: ["-s"], if: "B"}
      }
      on prompt {
        context "Deploys need a ticket." when prompt contains "deploy"
        block when prompt matches /secret/i because "no"
        run hook "./p.sh" dialect codex matcher *
      }
      on post-tool {
        context Edit, Write path "**/*.ts" "Run the typecheck."
        block Bash command "npm i *" when output contains "ERR" because "fix it"
      }
      on stop {
        limit 3
        continue when not ran Bash command "npm test *" because "run the tests"
        halt when stop_hook_active == true because "enough"
      }
      on session-start {
        context "Read the docs." when source == "startup"
      }
    `);
  });

  it('puts a count right after the tools, even on rule forms that do not take one', () => {
    expect(fmt('on stop { limit because "x" 5 }\non pre-tool { ask Bash 3 }')).toBe('on stop {\n  limit 5 because "x"\n}\non pre-tool {\n  ask Bash 3\n}\n');
  });

  it('prints conditions with one space around operators and parentheses only where needed', () => {
    const cases: [string, string][] = [
      ['a==1', 'a == 1'],
      ['a!=1 and b in["x","y"]', 'a != 1 and b in ["x", "y"]'],
      ['((a == 1))', 'a == 1'],
      ['(a == 1 or b == 2) and c exists', '(a == 1 or b == 2) and c exists'],
      ['a == 1 or (b == 2 and c == 3)', 'a == 1 or b == 2 and c == 3'],
      ['a == 1 or (b == 2 or c == 3)', 'a == 1 or (b == 2 or c == 3)'],
      ['(a == 1 and b == 2) and c == 3', '(a == 1 and b == 2) and c == 3'],
      ['not (a == 1 and b == 2)', 'not (a == 1 and b == 2)'],
      ['not(not a exists)', 'not not a exists'],
      ['not ( true ) or false', 'not true or false'],
      ['ran Bash,Read command "x","y" path "p" and input.a.b glob "*.ts"', 'ran Bash, Read command "x", "y" path "p" and input.a.b glob "*.ts"'],
      ['tool startswith "a" or tool endswith "b" or tool contains "c"', 'tool startswith "a" or tool endswith "b" or tool contains "c"'],
    ];
    for (const [when, want] of cases) {
      expect(fmt(`on stop { halt when ${when} }`)).toBe(`on stop {\n  halt when ${want}\n}\n`);
    }
  });

  it('keeps a selector value that is a list, and selectors in their order', () => {
    expect(fmt('on pre-tool { deny Read path secrets , ["a" ,"b"] command "x" path "y" }')).toBe(
      'on pre-tool {\n  deny Read path secrets, ["a", "b"] command "x" path "y"\n}\n',
    );
  });

  it('leaves long rules on one line', () => {
    const long = `on pre-tool {\n  deny Bash command ${Array.from({ length: 12 }, (_, i) => `"command number ${i}"`).join(', ')} because "too many"\n}\n`;
    expect(fmt(long)).toBe(long);
  });
});

// ---------------------------------------------------------------- lists and objects

describe('formatPolicy: lists and objects', () => {
  it('breaks a list that does not fit in the width one element per line, with a final comma', () => {
    const items = Array.from({ length: 8 }, (_, i) => `"**/secret-file-number-${i}"`);
    expect(fmt(`let secrets = [${items.join(',')}]`)).toBe(`let secrets = [\n${items.map((i) => `  ${i},\n`).join('')}]\n`);
  });

  it('decides at each level whether a nested list fits', () => {
    const inner = `["${'a'.repeat(40)}", "${'b'.repeat(40)}"]`;
    const out = fmt(`let x = [${inner}, ${inner}, 1]`);
    expect(out).toBe(`let x = [\n  ${inner},\n  ${inner},\n  1,\n]\n`);
    for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(FORMAT_WIDTH);
  });

  it('fits a list to the width exactly', () => {
    const fill = (n: number) => `let x = [1, "${'a'.repeat(n)}"]`;
    const at = FORMAT_WIDTH - 'let x = [1, ""]'.length;
    expect(fmt(fill(at))).toBe(`${fill(at)}\n`);
    expect(fmt(fill(at + 1))).toBe(`let x = [\n  1,\n  "${'a'.repeat(at + 1)}",\n]\n`);
  });

  it('counts the comma after an element of a broken list', () => {
    const inner = (n: number) => `[1, "${'a'.repeat(n)}"]`;
    const at = FORMAT_WIDTH - '  [1, ""],'.length;
    expect(fmt(`let x = [0, ${inner(at)}]`)).toBe(`let x = [\n  0,\n  ${inner(at)},\n]\n`);
    expect(fmt(`let x = [0, ${inner(at + 1)}]`)).toBe(`let x = [\n  0,\n  [\n    1,\n    "${'a'.repeat(at + 1)}",\n  ],\n]\n`);
  });

  it('does not break a list or object of one scalar, however long the line', () => {
    const long = `let x = [{ k: ["${'x'.repeat(100)}"] }]\n`;
    expect(fmt(long)).toBe(long);
  });

  it('breaks the objects of test cases that are too long, but never a rule for its length', () => {
    const text = src`
      test "t" {
        event { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /", description: "x" } } => deny
      }
      on pre-tool {
        run hook "./h.sh" with {args: ["--one", "--two", "--three", "--four", "--five", "--six", "--seven"], shell: "bash"} when tool in ["Bash", "Edit", "Write", "Read", "Glob"]
      }
    `;
    expect(fmt(text)).toBe(src`
      test "t" {
        event {
          hook_event_name: "PreToolUse",
          tool_name: "Bash",
          tool_input: { command: "rm -rf /", description: "x" },
        } => deny
      }
      on pre-tool {
        run hook "./h.sh" with {args: ["--one", "--two", "--three", "--four", "--five", "--six", "--seven"], shell: "bash"} when tool in ["Bash", "Edit", "Write", "Read", "Glob"]
      }
    `);
  });

  it('keeps object keys as written: words bare, quoted keys quoted', () => {
    expect(fmt('let o = {"a": 1, b: 2, "with space": 3, on: 4, "\\u{41}": 5}')).toBe('let o = { "a": 1, b: 2, "with space": 3, on: 4, "A": 5 }\n');
  });
});

// ---------------------------------------------------------------- test blocks

describe('formatPolicy: test blocks', () => {
  it('prints every form of test case', () => {
    const text = src`
      test   "guardrails"{
        pre-tool Bash{command:"sudo rm -rf /"}=>deny
        pre-tool Read { file_path: "a" } with { cwd: "/repo" }   => allow because /read/i
        prompt "tell me" => block because "no"
        stop { turn: [ { tool: "Bash", input: { command: "npm test" } } ] } => stop
        session-start with {cwd: "/repo"} => none
        event { hook_event_name: "PreToolUse" } => deny prompt { prompt: "x" } => allow
      }
    `;
    expect(fmt(text)).toBe(src`
      test "guardrails" {
        pre-tool Bash { command: "sudo rm -rf /" } => deny
        pre-tool Read { file_path: "a" } with { cwd: "/repo" } => allow because /read/i
        prompt "tell me" => block because "no"
        stop { turn: [{ tool: "Bash", input: { command: "npm test" } }] } => stop
        session-start with { cwd: "/repo" } => none
        event { hook_event_name: "PreToolUse" } => deny
        prompt { prompt: "x" } => allow
      }
    `);
  });
});

// ---------------------------------------------------------------- comments

describe('formatPolicy: comments', () => {
  it('keeps comments on their own lines before what follows, and trailing comments after their code', () => {
    const text = src`
      # header
      #   indented inside

      policy "p"   # the name
      # about the let
      let a = 1 # one

      # about the block

      on pre-tool {   # opens the block
        # before the first rule
        allow Read    # reads are fine

        # before the second rule
        deny Bash # no shell
        # at the end of the block
      } # after the block
      # at the end of the file
    `;
    expect(fmt(text)).toBe(src`
      # header
      #   indented inside

      policy "p"  # the name
      # about the let
      let a = 1  # one

      # about the block

      on pre-tool {  # opens the block
        # before the first rule
        allow Read  # reads are fine

        # before the second rule
        deny Bash  # no shell
        # at the end of the block
      }  # after the block
      # at the end of the file
    `);
  });

  it('moves the comments inside a rule, a case or an item above it', () => {
    const text = src`
      on pre-tool {
        deny Read, Edit,         # the tool list goes on after a comma
             Write
             path "**/.env",
                  "**/*.pem"     # so does a selector's list of values
             because "secrets"   # trailing
      }
      on # between on
        stop # and the brace
      {
        continue when # the condition
          (a == 1 # first
           or b == 2) because "x"
      }
      let x = # the value
        "v"
      test "t" {
        prompt "x" # the prompt
          => block
      }
    `;
    expect(fmt(text)).toBe(src`
      on pre-tool {
        # the tool list goes on after a comma
        # so does a selector's list of values
        deny Read, Edit, Write path "**/.env", "**/*.pem" because "secrets"  # trailing
      }
      # between on
      # and the brace
      on stop {
        # the condition
        # first
        continue when a == 1 or b == 2 because "x"
      }
      # the value
      let x = "v"
      test "t" {
        # the prompt
        prompt "x" => block
      }
    `);
  });

  it('breaks a list or object that holds a comment, keeping the comment at its element', () => {
    const text = src`
      let secrets = [ # opening
        "**/.env", # env files
        # keys
        "**/*.pem",

        "~/.ssh/**"
        # nothing after
      ]
      let empty = [ # nothing here
      ]
      on pre-tool {
        run hook "./h.sh" with {args: ["a"], # the args
          shell: "bash"} because "x"
      }
      test "t" {
        pre-tool Bash { command: "ls", # the command
          description: { nested: 1, # inner
          } } => allow
      }
    `;
    expect(fmt(text)).toBe(src`
      let secrets = [  # opening
        "**/.env",  # env files
        # keys
        "**/*.pem",

        "~/.ssh/**",
        # nothing after
      ]
      let empty = [  # nothing here
      ]
      on pre-tool {
        run hook "./h.sh" with {
          args: ["a"],  # the args
          shell: "bash",
        } because "x"
      }
      test "t" {
        pre-tool Bash {
          command: "ls",  # the command
          description: {
            nested: 1,  # inner
          },
        } => allow
      }
    `);
  });

  it('keeps a comment in a list inside a rule with the list, and other comments above the rule', () => {
    const text = 'on pre-tool {\n  deny Read # above\n    path ["a", # at a\n    "b"] because "x"\n}\n';
    expect(fmt(text)).toBe('on pre-tool {\n  # above\n  deny Read path [\n    "a",  # at a\n    "b",\n  ] because "x"\n}\n');
  });

  it('keeps `#` inside strings and regexes, which are not comments', () => {
    const text = 'on pre-tool {\n  deny Bash when command matches /echo #x/ because "see #12"  # a comment\n}\n';
    expect(fmt(text)).toBe(text);
  });
});

// ---------------------------------------------------------------- files that are not formatted

describe('formatPolicy: files with syntax errors', () => {
  it('returns the syntax errors, with their places, and no text', () => {
    const r = formatPolicy('on pre-tool {\n  deny Bash because\n}\nlet x = "unterminated\n', 'bad.dshpolicy');
    expect(r.ok).toBe(false);
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.every((d) => d.severity === 'error' && d.span?.file === 'bad.dshpolicy')).toBe(true);
    expect(r.diagnostics.map((d) => d.code)).toContain('parse/unterminated-string');
    expect('text' in r).toBe(false);
  });

  it('does not format a rule with a repeated clause, a repeated key or a bad field (the AST would lose them)', () => {
    for (const text of ['on pre-tool { deny Bash because "a" because "b" }', 'let o = {a: 1, a: 2}', 'on stop { halt when input..x exists }']) {
      const r = formatPolicy(text);
      expect(r.ok, text).toBe(false);
      expect(r.diagnostics[0]?.code).toMatch(/^parse\//);
    }
  });

  it('formats a file whose errors are only errors of meaning', () => {
    expect(fmt('on nowhere { deny   Bash because undefined_name }')).toBe('on nowhere {\n  deny Bash because undefined_name\n}\n');
  });
});

// ---------------------------------------------------------------- the examples and the spec cases

/** Every policy text of the spec cases: `policy:` fields and the files of `files:`, with their case. */
function specPolicies(): { note: string; text: string; extra: Record<string, string> }[] {
  const dir = new URL('../specs/cases/', import.meta.url);
  const out: { note: string; text: string; extra: Record<string, string> }[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml')).sort()) {
    const doc = parseYaml(readFileSync(new URL(f, dir), 'utf8')) as { cases?: { note: string; policy?: string; files?: Record<string, string> }[] };
    for (const c of doc.cases ?? []) {
      if (typeof c.policy === 'string') out.push({ note: `${f}: ${c.note}`, text: c.policy, extra: {} });
      for (const [name, text] of Object.entries(c.files ?? {})) out.push({ note: `${f}: ${c.note} [${name}]`, text, extra: {} });
    }
  }
  return out;
}

describe('formatPolicy: the examples and every spec policy', () => {
  it('formats the example of docs/language.md as the section says', () => {
    const doc = readFileSync(new URL('../docs/language.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Canonical layout (`dshpolicy fmt`)'));
    const blocks = [...section.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(blocks).toHaveLength(2);
    expect(fmt(blocks[0]!)).toBe(blocks[1]);
  });


  it('formats the language example and examples/guardrails idempotently, keeping their IR', () => {
    for (const path of ['../grammar/testdata/language-example.dshpolicy', '../examples/guardrails.dshpolicy']) {
      const text = readFileSync(new URL(path, import.meta.url), 'utf8');
      checkInvariants(text);
    }
  }, 30_000);

  it('over every policy of specs/cases: idempotent, the AST kept, and the IR kept for those that compile', () => {
    const all = specPolicies();
    let formatted = 0;
    let compiled = 0;
    for (const { note, text } of all) {
      if (!formatPolicy(text).ok) continue; // the parse-error cases
      formatted++;
      try {
        if (checkInvariants(text)) compiled++;
      } catch (e) {
        throw new Error(`${note}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    // the corpus is large; make sure the test did look at it
    expect(all.length).toBeGreaterThanOrEqual(600);
    expect(formatted).toBeGreaterThanOrEqual(600);
    expect(compiled).toBeGreaterThanOrEqual(500);
  }, 120_000);
});

// ---------------------------------------------------------------- properties

/** A separator between two tokens: some whitespace, maybe blank lines and comments. */
const separator = fc
  .array(fc.constantFrom(' ', '  ', '\t', '\n', '\n\n', '\r\n', '\n\n\n', ' # note\n', '\n# own line\n', '#\n'), { minLength: 1, maxLength: 3 })
  .map((parts) => (parts[0] === '#\n' ? ' ' : '') + parts.join(''));
const plainSeparator = fc.array(fc.constantFrom(' ', '  ', '\t', '\n', '\n  ', '\r\n'), { minLength: 1, maxLength: 2 }).map((p) => p.join(''));

/** The tokens of a text (comments dropped), as written. */
function tokensOf(text: string): string[] {
  return (T.policyLexer.tokenize(text).tokens as IToken[]).map((t) => t.image);
}

/** Joins tokens with the separators (cycling through them). */
function relay(tokens: string[], seps: string[]): string {
  return tokens.map((t, i) => (i === 0 ? t : (seps[i % seps.length] as string) + t)).join('');
}

/** Blank lines aside, so that texts that differ only in them compare equal. */
const noBlank = (s: string) => s.split('\n').filter((l) => l !== '').join('\n');

const SPEC = specPolicies()
  .map((p) => p.text)
  .filter((t) => formatPolicy(t).ok);

describe('formatPolicy: properties over the spec policies, laid out anew', () => {
  it('the layout of the tokens does not matter: whitespace anywhere formats to the same lines', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SPEC), fc.array(plainSeparator, { minLength: 1, maxLength: 20 }), (text, seps) => {
        const tokens = tokensOf(text);
        const stripped = relay(tokens, [' ']);
        const moved = relay(tokens, seps);
        expect(noBlank(fmt(moved))).toBe(noBlank(fmt(stripped)));
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it('with comments and blank lines anywhere: idempotent, every comment kept, the AST and IR kept', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SPEC), fc.array(separator, { minLength: 1, maxLength: 20 }), (text, seps) => {
        const moved = relay(tokensOf(text), seps);
        checkInvariants(moved);
        const out = fmt(moved);
        const count = (s: string) => T.policyLexer.tokenize(s).groups['comments']?.length ?? 0;
        expect(count(out)).toBe(count(moved));
        expect(out).not.toMatch(/\n\n\n|[ \t]\n/);
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});

// ---------------------------------------------------------------- generated policies

/** A small generator of policy texts, as token lists: every form of the grammar, any clause order. */
const name = fc.constantFrom('secrets', 'why', 'a', 'b_2', 'list.v2', 'my-list');
const toolName = fc.constantFrom('Bash', 'Read', 'Edit', 'mcp__db__*', '*', 'Web*');
const fieldName = fc.constantFrom('command', 'path', 'input.sql', 'input.a-b', 'prompt', 'tool', 'cwd', 'output', 'source');
const stringLit = fc.oneof(
  fc.constantFrom('', 'rm -rf /', 'git push *', '**/.env', 'has # hash', 'quote " and \\ back', 'line\nbreak', 'é — 😀'),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
).map(encodeString);
const regexLit = fc.constantFrom('/a+/', '/x\\/y/i', '/^(foo|bar)$/m', '/#not a comment/', '/\\bdrop\\s+table\\b/is');
const scalar = fc.oneof(
  stringLit,
  regexLit,
  fc.constantFrom('0', '42', '1.5', '007', '10s', '500ms', '5m', '1h', 'true', 'false', 'null'),
  name,
);
const keyLit = fc.oneof(fc.constantFrom('k', 'args', 'if', 'on', 'with', 'deny', 'x.y'), fc.string({ maxLength: 5 }).map(encodeString));

function valueArb(depth: number): fc.Arbitrary<string[]> {
  if (depth <= 0) return scalar.map((s) => [s]);
  const inner = valueArb(depth - 1);
  const list = fc.tuple(fc.array(inner, { maxLength: 6 }), fc.boolean()).map(([items, comma]) => {
    const out = ['['];
    items.forEach((it, i) => out.push(...(i > 0 ? [','] : []), ...it));
    if (comma && items.length > 0) out.push(',');
    return [...out, ']'];
  });
  const object = fc.uniqueArray(fc.tuple(keyLit, inner), { maxLength: 4, selector: ([k]) => (k.startsWith('"') ? decodeString(k).value : k) }).map((entries) => {
    const out = ['{'];
    entries.forEach(([k, v], i) => out.push(...(i > 0 ? [','] : []), k, ':', ...v));
    return [...out, '}'];
  });
  return fc.oneof({ weight: 3, arbitrary: scalar.map((s) => [s]) }, { weight: 1, arbitrary: list }, { weight: 1, arbitrary: object });
}

const selectorArb = fc
  .tuple(fc.constantFrom('command', 'path', 'url', 'domain'), fc.array(valueArb(1), { minLength: 1, maxLength: 3 }))
  .map(([kind, values]) => [kind, ...values.flatMap((v, i) => (i > 0 ? [',', ...v] : v))]);

function exprArb(depth: number): fc.Arbitrary<string[]> {
  const compare = fc
    .tuple(fieldName, fc.constantFrom('==', '!=', 'in', 'matches', 'glob', 'startswith', 'endswith', 'contains'), valueArb(1))
    .map(([f, op, v]) => [f, op, ...v]);
  const leaf = fc.oneof(
    compare,
    fieldName.map((f) => [f, 'exists']),
    fc.constantFrom<string[]>(['true'], ['false']),
    fc.tuple(fc.array(toolName, { minLength: 1, maxLength: 2 }), fc.array(selectorArb, { maxLength: 2 })).map(([tools, sels]) => [
      'ran',
      ...tools.flatMap((t, i) => (i > 0 ? [',', t] : [t])),
      ...sels.flat(),
    ]),
  );
  if (depth <= 0) return leaf;
  const sub = exprArb(depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    { weight: 1, arbitrary: fc.tuple(sub, fc.constantFrom('and', 'or'), sub).map(([a, op, b]) => [...a, op, ...b]) },
    { weight: 1, arbitrary: sub.map((e) => ['not', ...e]) },
    { weight: 1, arbitrary: sub.map((e) => ['(', ...e, ')']) },
  );
}

/** A rule: its form, tools, then clauses in any order, each at most once (selectors up to twice). */
const ruleArb = fc
  .tuple(
    fc.constantFrom('deny', 'ask', 'allow', 'block', 'context', 'continue', 'halt', 'run', 'limit'),
    fc.array(toolName, { maxLength: 3 }),
    fc.array(selectorArb, { maxLength: 2 }),
    fc.record(
      {
        text: stringLit.map((s) => [s]),
        count: fc.constantFrom<string[]>(['3'], ['1000'], ['0.5']),
        hook: stringLit.map((s) => ['hook', s]),
        dialect: fc.constantFrom<string[]>(['dialect', 'claude'], ['dialect', 'codex']),
        matcher: fc.oneof(stringLit.map((s) => ['matcher', s]), fc.constant<string[]>(['matcher', '*'])),
        timeout: fc.constantFrom<string[]>(['timeout', '10s'], ['timeout', '500ms']),
        with: valueArb(2).map((v) => ['with', ...(v[0] === '{' ? v : ['{', 'k', ':', ...v, '}'])]),
        when: exprArb(2).map((e) => ['when', ...e]),
        because: fc.oneof(stringLit, name).map((s) => ['because', s]),
      },
      { requiredKeys: [] },
    ),
    fc.infiniteStream(fc.nat()),
  )
  .map(([effect, tools, selectors, clauses, order]) => {
    const parts: string[][] = [...selectors, ...Object.values(clauses)];
    // shuffle the clauses
    const it = order[Symbol.iterator]();
    for (let i = parts.length - 1; i > 0; i--) {
      const j = (it.next().value as number) % (i + 1);
      [parts[i], parts[j]] = [parts[j] as string[], parts[i] as string[]];
    }
    // `when ... ran T` followed by a selector would take the selector: keep the `when` last then
    const w = parts.findIndex((p) => p[0] === 'when');
    if (w >= 0 && parts[w]!.includes('ran')) parts.push(...parts.splice(w, 1));
    return [effect, ...tools.flatMap((t, i) => (i > 0 ? [',', t] : [t])), ...parts.flat()];
  });

const caseArb = fc
  .tuple(
    fc.constantFrom('pre-tool', 'post-tool', 'prompt', 'stop', 'session-start', 'event'),
    fc.option(toolName.filter((t) => !t.includes('*')), { nil: undefined }),
    fc.option(fc.oneof(stringLit.map((s) => [s]), valueArb(2).filter((v) => v[0] === '{')), { nil: undefined }),
    fc.option(valueArb(2).filter((v) => v[0] === '{'), { nil: undefined }),
    fc.constantFrom('deny', 'allow', 'none', 'block', 'stop', 'continue'),
    fc.option(fc.oneof(stringLit, regexLit), { nil: undefined }),
  )
  .map(([seam, tool, payload, extra, expect, because]) => [
    seam,
    ...(tool ? [tool] : []),
    ...(payload ?? []),
    ...(extra ? ['with', ...extra] : []),
    '=>',
    expect,
    ...(because ? ['because', because] : []),
  ]);

const itemArb = fc.oneof(
  stringLit.map((s) => ['policy', s]),
  stringLit.map((s) => ['include', s]),
  stringLit.map((s) => ['import', 'claude', 'hooks', s]),
  fc.tuple(name, valueArb(3)).map(([n, v]) => ['let', n, '=', ...v]),
  fc
    .tuple(fc.constantFrom('pre-tool', 'prompt', 'post-tool', 'stop', 'session-start', 'Nope'), fc.array(ruleArb, { maxLength: 4 }))
    .map(([seam, rules]) => ['on', seam, '{', ...rules.flat(), '}']),
  fc.tuple(stringLit, fc.array(caseArb, { maxLength: 4 })).map(([n, cases]) => ['test', n, '{', ...cases.flat(), '}']),
);

/** Policies that mostly compile: rules each seam takes, fields it has, names that are defined. */
const validRule = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('deny', 'ask', 'allow'),
      fc.array(fc.constantFrom('Bash', 'Read', 'Edit', 'mcp__db__*', '*'), { minLength: 1, maxLength: 2 }),
      fc.option(fc.constantFrom<string[]>(['command', '"rm -rf /"', ',', '"git push *"'], ['path', 'secrets'], ['path', '[', '"**/.env"', ',', 'secrets', ']']), { nil: undefined }),
      fc.option(fc.constantFrom<string[]>(['when', 'input.sql', 'matches', '/drop/i'], ['when', '(', 'tool', '==', '"Bash"', 'or', 'cwd', 'startswith', '"/tmp"', ')', 'and', 'not', 'command', 'exists']), { nil: undefined }),
      fc.option(fc.constantFrom<string[]>(['because', '"no"'], ['because', 'why']), { nil: undefined }),
      fc.boolean(),
    )
    .map(([e, tools, sel, when, because, swap]) => {
      const clauses = [sel ?? [], when ?? [], e === 'allow' ? [] : (because ?? [])];
      if (swap) clauses.reverse();
      return [e, ...tools.flatMap((t, i) => (i > 0 ? [',', t] : [t])), ...clauses.flat()];
    }),
  fc.constantFrom(
    ['run', 'timeout', '10s', 'with', '{', 'args', ':', '[', '"--x"', ']', '}', 'hook', '"./h.sh"', 'matcher', '"Bash"'],
    ['run', 'Bash', 'command', '"git *"', 'hook', '"./h.sh"', 'timeout', '500ms'],
    ['run', 'hook', '"./h.sh"', 'dialect', 'codex'],
  ),
);

const validPolicy = fc
  .tuple(fc.array(validRule, { minLength: 1, maxLength: 6 }), fc.array(validRule, { maxLength: 3 }), fc.boolean())
  .map(([a, b, tests]) => [
    'let', 'secrets', '=', '[', '"**/.env"', ',', '"**/*.pem"', ']',
    'let', 'why', '=', '"because"',
    'on', 'pre-tool', '{', ...a.flat(), '}',
    'on', 'pre-tool', '{', ...b.flat(), '}',
    'on', 'stop', '{', 'limit', '3', 'continue', 'when', 'not', 'ran', 'Bash', 'command', '"npm test *"', 'because', '"test"', '}',
    ...(tests ? ['test', '"t"', '{', 'pre-tool', 'Bash', '{', 'command', ':', '"ls"', '}', 'with', '{', 'cwd', ':', '"/r"', '}', '=>', 'none', 'prompt', '"x"', '=>', 'allow', '}'] : []),
  ]);

describe('formatPolicy: properties over generated policies', () => {
  it('generated policies of every form: they parse, and formatting is idempotent and keeps the AST and comments', () => {
    fc.assert(
      fc.property(fc.array(itemArb, { maxLength: 6 }), fc.array(separator, { minLength: 1, maxLength: 12 }), (items, seps) => {
        const text = relay(items.flat(), seps);
        const parsed = parsePolicy(text, 'policy.dshpolicy');
        expect(parsed.diagnostics.filter((d) => d.code.startsWith('parse/')), text).toEqual([]);
        checkInvariants(text);
        const out = fmt(text);
        const count = (s: string) => T.policyLexer.tokenize(s).groups['comments']?.length ?? 0;
        expect(count(out)).toBe(count(text));
      }),
      { numRuns: 400 },
    );
  }, 120_000);

  it('generated policies that compile keep their IR', () => {
    let compiled = 0;
    fc.assert(
      fc.property(validPolicy, fc.array(separator, { minLength: 1, maxLength: 12 }), (toks, seps) => {
        if (checkInvariants(relay(toks, seps))) compiled++;
      }),
      { numRuns: 200 },
    );
    expect(compiled).toBeGreaterThan(150);
  }, 120_000);
});
