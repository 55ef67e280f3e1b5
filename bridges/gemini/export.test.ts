import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileText } from '../../dsl/index.js';
import { compilePolicy, evaluateSync, IR_VERSION, normalizeEvent, type Rule } from '../../engine/index.js';
import { exportGeminiPolicy } from './export.js';
import { CHANGED_MEANING, importGeminiPolicy } from './policy.js';

function rulesOf(text: string): Rule[] {
  const got = compileText(text, 'p.dshpolicy');
  expect(got.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return got.ir!.rules;
}

describe('exportGeminiPolicy', () => {
  it('writes most restrictive wins as priorities: deny 300, ask_user 200, allow 100', () => {
    const { text, diagnostics } = exportGeminiPolicy(
      rulesOf(`on pre-tool {
  deny Bash command "rm -rf *" because "never"
  ask Bash command "git push *", "npm publish *"
  allow Read, Glob
  allow Bash command "git status *"
  deny mcp__github__delete_repo, mcp__slack__* because "no"
}`),
    );
    // `rm -rf *` denies `rm x -rf` too: gemini cli reads words in order, so every `rm` is denied
    expect(diagnostics.map((d) => d.code)).toEqual(['export/broadened', 'export/shell-depth']);
    expect(text).toBe(`# Gemini CLI policy exported by dshpolicy: deny at priority 300, ask_user at 200, allow at 100.

# from p.dshpolicy:2:3
[[rule]]
toolName = 'run_shell_command'
commandPrefix = 'rm'
decision = "deny"
priority = 300
denyMessage = 'never'

# from p.dshpolicy:3:3
[[rule]]
toolName = 'run_shell_command'
commandPrefix = ['git push', 'npm publish']
decision = "ask_user"
priority = 200

# from p.dshpolicy:4:3
[[rule]]
toolName = ['read_file', 'glob']
decision = "allow"
priority = 100

# from p.dshpolicy:5:3
[[rule]]
toolName = 'run_shell_command'
commandPrefix = 'git status'
decision = "allow"
priority = 100
modes = ['default', 'yolo']

# from p.dshpolicy:6:3
[[rule]]
toolName = 'delete_repo'
mcpName = 'github'
decision = "deny"
priority = 300
denyMessage = 'no'

# from p.dshpolicy:6:3
[[rule]]
toolName = '*'
mcpName = 'slack'
decision = "deny"
priority = 300
denyMessage = 'no'

# an MCP call with a \`command\` is asked: dshpolicy reads it as a shell command, which gemini cli does not
[[rule]]
toolName = '*'
mcpName = '*'
argsPattern = '"command":"'
decision = "ask_user"
priority = 150
modes = ['default', 'autoEdit', 'yolo']

# an MCP call with a \`command\` is asked: dshpolicy reads it as a shell command, which gemini cli does not (denied in \`plan\`)
[[rule]]
toolName = '*'
mcpName = '*'
argsPattern = '"command":"'
decision = "deny"
priority = 150
modes = ['plan']

# a command with an expansion is asked: dshpolicy reads what it runs, a prefix cannot
[[rule]]
toolName = 'run_shell_command'
commandRegex = '([^"\\\\]|\\\\.)*(\\$|\`|[<>=]\\()'
decision = "ask_user"
priority = 150
modes = ['default', 'autoEdit', 'yolo']

# a shell command no rule here decides is asked, never allowed by gemini cli's own heuristics
[[rule]]
toolName = 'run_shell_command'
commandRegex = '[\\s\\S]*'
decision = "ask_user"
priority = 1
modes = ['default', 'autoEdit', 'yolo']
`);
  });

  it('splits `or` into rules and reads modes and exact commands', () => {
    const { text, diagnostics } = exportGeminiPolicy(
      rulesOf(`on pre-tool {
  allow Write when permission_mode == "acceptEdits" or input.file_path == "notes.md"
  ask Bash when command == "npm test"
}`),
    );
    expect(diagnostics).toEqual([]);
    expect(text).toContain(`toolName = 'write_file'\ndecision = "allow"\npriority = 100\nmodes = ['autoEdit']`);
    expect(text).toContain(`toolName = 'write_file'\nargsPattern = '\\"file_path\\":\\"notes\\.md\\"'`);
    expect(text).toContain(`commandRegex = 'npm\\ test"'`);
  });

  it('reports each rule gemini cli cannot say, and leaves it out', () => {
    const { text, diagnostics } = exportGeminiPolicy(
      rulesOf(`on pre-tool {
  deny Read path "**/.env"
  deny Bash when not command startswith "git"
  allow WebFetch domain "*.example.com"
  ask NotebookEdit
  deny Bash command "git -C * push"
  ask Bash command "git push *" because "pushing needs a human"
}
on prompt {
  block when prompt contains "secret"
}`),
    );
    expect(diagnostics.map((d) => [d.code, d.span?.start.line, d.message])).toEqual([
      ['export/unsupported', 4, 'rule `p.dshpolicy:4:3` is left out: gemini cli cannot say a `domain` selector'],
      ['export/unsupported', 5, 'rule `p.dshpolicy:5:3` is left out: gemini cli cannot say the tool `NotebookEdit`, which gemini cli does not have'],
      ['export/reason-dropped', 7, 'gemini cli shows no reason when it asks, so the reason of `p.dshpolicy:7:3` is left out'],
      ['export/widens', 3, 'deny rule `p.dshpolicy:3:3` does not hold in gemini cli: it is left out (`not`, since gemini cli has no negation), so gemini cli asks there where dshpolicy denies'],
      [
        'export/widens',
        6,
        'deny rule `p.dshpolicy:6:3` does not hold in gemini cli: it is left out (a command pattern other than plain words, or plain words with and without a final `*` in one selector), so gemini cli asks there where dshpolicy denies',
      ],
      ['export/shell-depth', undefined, expect.stringContaining('gemini cli reads shell commands less deeply than dshpolicy')],
    ]);
    expect(diagnostics.filter((d) => d.code === 'export/widens').map((d) => d.severity)).toEqual(['error', 'error']);
    expect(exportGeminiPolicy(rulesOf(`on pre-tool {\n  deny Bash when not command startswith "git"\n}`), { lossy: true }).diagnostics.map((d) => [d.code, d.severity])).toEqual([['export/widens', 'warning']]);
    // the path deny is said as the text of the name, for read_file
    expect(text).toContain(`toolName = 'read_file'\nargsPattern = '"(file_path|absolute_path|path|dir_path)":"([^"\\\\]|\\\\.)*(\\.[eE][nN][vV])'\ndecision = "deny"`);
    expect(text.match(/# from p\.dshpolicy/g)?.length).toBe(2);
  });

  it('gives back what the importer made of a gemini cli file, for its allow guards', () => {
    const toml = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "ls"\ndecision = "allow"\npriority = 5\n';
    const { text, diagnostics } = exportGeminiPolicy(importGeminiPolicy(toml, 'g.toml').rules);
    expect(diagnostics).toEqual([]);
    expect(text).toContain(`toolName = 'run_shell_command'\ncommandPrefix = 'ls'\ndecision = "allow"\npriority = 100\n`);
    expect(text).not.toContain('allowRedirection');
  });
});

// -------- export, then import: the same decisions, for what gemini cli can say

const TOOLS = ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'WebFetch', 'mcp__gh__issue', 'mcp__gh__*', 'mcp__sl__post'];
const PREFIXES = ['git', 'git status', 'git push', 'rm', 'rm -rf', 'npm', 'npm test', 'echo hi'];
const MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];

const ruleArb = fc.record({
  effect: fc.constantFrom('deny', 'ask', 'allow'),
  shell: fc.boolean(),
  tools: fc.uniqueArray(fc.constantFrom(...TOOLS.slice(1)), { minLength: 1, maxLength: 3 }),
  prefixes: fc.option(fc.uniqueArray(fc.constantFrom(...PREFIXES), { minLength: 1, maxLength: 2 }), { nil: undefined }),
  modes: fc.option(fc.uniqueArray(fc.constantFrom(...MODES), { minLength: 1, maxLength: 2 }), { nil: undefined }),
  reason: fc.option(fc.constantFrom('no', 'not "here"'), { nil: undefined }),
}).map((r) => {
  const parts: string[] = [r.effect];
  if (r.shell) {
    parts.push('Bash');
    if (r.prefixes) parts.push(`command ${r.prefixes.map((p) => JSON.stringify(`${p} *`)).join(', ')}`);
  } else parts.push(r.tools.join(', '));
  if (r.modes) parts.push(`when permission_mode in [${r.modes.map((m) => JSON.stringify(m)).join(', ')}]`);
  if (r.reason && r.effect === 'deny') parts.push(`because ${JSON.stringify(r.reason)}`);
  return parts.join(' ');
});

const WORDS = ['git', 'status', 'push', 'rm', '-rf', 'npm', 'test', 'echo', 'hi', 'x'];
const eventArb = fc.record({
  tool: fc.constantFrom(...TOOLS.filter((t) => !t.includes('*')), 'mcp__gh__other'),
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
  mode: fc.constantFrom(...MODES),
}).map(({ tool, words, mode }) => ({
  seam: 'pre-tool',
  tool,
  input: tool === 'Bash' ? { command: words.join(' ') } : { file_path: words.join('/') },
  permission_mode: mode,
}));

const STRICTNESS: Record<string, number> = { allow: 0, none: 1, ask: 2, deny: 3 };

describe('export and import again', () => {
  it('decide at least as strictly as the policy did, for rules gemini cli can say', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { minLength: 1, maxLength: 5 }), fc.array(eventArb, { minLength: 6, maxLength: 6 }), (lines, events) => {
        const original = rulesOf(`on pre-tool {\n${lines.map((l) => `  ${l}`).join('\n')}\n}`);
        const exported = exportGeminiPolicy(original);
        expect(exported.diagnostics.filter((d) => d.severity !== 'info' && d.code !== 'export/allow-narrowed' && d.code !== 'export/broadened')).toEqual([]);
        const back = importGeminiPolicy(exported.text, 'exported.toml');
        // the catch-alls the export adds are read as gemini cli reads them only roughly: they only ever ask
        const extra = exported.text.search(/\n# (an MCP call|a command with an expansion|a shell command no rule|what a deny or ask)/);
        const extrasLine = extra < 0 ? Infinity : exported.text.slice(0, extra).split('\n').length + 1;
        const changed = back.diagnostics.filter((d) => (CHANGED_MEANING as readonly string[]).includes(d.code) && d.code !== 'import/modes' && (d.span?.start.line ?? 0) < extrasLine);
        expect(changed, exported.text).toEqual([]);
        expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const a = compilePolicy({ version: IR_VERSION, sources: ['p'], rules: original, tests: [] });
        const b = compilePolicy({ version: IR_VERSION, sources: ['g'], rules: back.rules, tests: [] });
        for (const e of events) {
          const ev = normalizeEvent(e).event!;
          // never less strict; as strict where nothing was narrowed
          const [was, now] = [evaluateSync(a, ev).decision, evaluateSync(b, ev).decision];
          const why = `${lines.join('\n')}\n---\n${exported.text}\n---\n${JSON.stringify(e)}`;
          expect(STRICTNESS[now]! >= STRICTNESS[was]!, `${why}: ${was} became ${now}`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  }, 300_000);
});
