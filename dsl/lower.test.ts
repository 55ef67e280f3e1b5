import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizeEvent, validateIR, type Rule } from '../engine/index.js';
import { compileText } from './index.js';

/** The rules of `on <seam> { ... }`, without spans. */
function rules(seam: string, ...lines: string[]): Omit<Rule, 'span'>[] {
  const r = compileText(`on ${seam} {\n${lines.map((l) => `  ${l}\n`).join('')}}\n`);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.ir!.rules.map(({ span: _span, ...rest }) => rest);
}

describe('lowering rules', () => {
  it('lowers tools and selectors, with ids at the rule word', () => {
    expect(rules('pre-tool', 'deny Read, Edit path "**/.env", "*.pem" because "secrets"')).toEqual([
      {
        id: 'policy.dshpolicy:2:3',
        seam: 'pre-tool',
        effect: 'deny',
        tools: ['Read', 'Edit'],
        selectors: [{ kind: 'path', globs: ['**/.env', '*.pem'] }],
        reason: 'secrets',
      },
    ]);
  });

  it('lowers each selector kind', () => {
    const [rule] = rules('pre-tool', 'ask * command "git push *" path "a" url "https://x/*" domain "*.example.com"');
    expect(rule?.selectors).toEqual([
      { kind: 'command', patterns: ['git push *'] },
      { kind: 'path', globs: ['a'] },
      { kind: 'url', globs: ['https://x/*'] },
      { kind: 'domain', globs: ['*.example.com'] },
    ]);
    expect(rule?.tools).toEqual(['*']);
  });

  it('omits tools and selectors when there are none', () => {
    expect(rules('pre-tool', 'allow')).toEqual([{ id: 'policy.dshpolicy:2:3', seam: 'pre-tool', effect: 'allow' }]);
  });

  it('keeps the span of the whole rule', () => {
    const r = compileText('on pre-tool {\n  deny Bash because "x"\n}\n');
    expect(r.ir?.rules[0]?.span).toEqual({
      file: 'policy.dshpolicy',
      start: { line: 2, column: 3, offset: 16 },
      end: { line: 2, column: 24, offset: 37 },
    });
  });

  it('lowers run rules with their hook', () => {
    expect(rules('pre-tool', 'run Bash hook "./guard.sh" timeout 10s dialect codex', 'run hook "./all.sh"')).toEqual([
      { id: 'policy.dshpolicy:2:3', seam: 'pre-tool', effect: 'run', tools: ['Bash'], hook: { command: './guard.sh', timeoutMs: 10000, dialect: 'codex' } },
      { id: 'policy.dshpolicy:3:3', seam: 'pre-tool', effect: 'run', hook: { command: './all.sh', dialect: 'claude' } },
    ]);
  });

  it('lowers a matcher to the agent event and pattern of the seam', () => {
    expect(rules('pre-tool', 'run hook "./g.sh" dialect codex matcher "Edit|Write" timeout 5s', 'run hook "./all.sh" matcher *')).toEqual([
      {
        id: 'policy.dshpolicy:2:3',
        seam: 'pre-tool',
        effect: 'run',
        hook: { command: './g.sh', timeoutMs: 5000, dialect: 'codex', event: 'PreToolUse', matcher: 'Edit|Write' },
      },
      { id: 'policy.dshpolicy:3:3', seam: 'pre-tool', effect: 'run', hook: { command: './all.sh', dialect: 'claude', event: 'PreToolUse' } },
    ]);
    expect(rules('stop', 'run hook "./s.sh" matcher *')[0]?.hook).toEqual({ command: './s.sh', dialect: 'claude', event: 'Stop' });
    expect(rules('session-start', 'run hook "./s.sh" matcher "startup"')[0]?.hook?.event).toBe('SessionStart');
    expect(rules('post-tool', 'run hook "./s.sh" matcher "Bash"')[0]?.hook?.event).toBe('PostToolUse');
    expect(rules('prompt', 'run hook "./s.sh" matcher *')[0]?.hook?.event).toBe('UserPromptSubmit');
  });

  it('checks where a matcher may go', () => {
    const codes = (line: string, seam = 'pre-tool') =>
      compileText(`on ${seam} {\n  ${line}\n}\n`).diagnostics.map((d) => `${d.code}@${d.span?.start.line}:${d.span?.start.column}`);
    expect(codes('run Bash hook "x" matcher "Bash"')).toEqual(['check/matcher-and-tools@2:7']);
    expect(codes('deny matcher "Bash"')).toEqual(['check/clause-not-allowed@2:16']);
    expect(codes('run hook "x" matcher Bash')).toEqual(['check/bad-matcher@2:24']);
    expect(codes('run hook "x" matcher "a"', 'stop')).toEqual(['check/clause-not-allowed@2:24']);
    expect(codes('run hook "x" matcher "a" matcher "b"')[0]).toMatch(/^parse\//);
    expect(codes('run hook "x" matcher 3')[0]).toMatch(/^parse\//);
  });

  it('lowers the options of `with` into the hook', () => {
    expect(rules('pre-tool', 'run hook "node" dialect claude matcher "Bash" with {args: ["./hooks/guard.js", "--strict"]}')[0]?.hook).toEqual({
      command: 'node',
      dialect: 'claude',
      event: 'PreToolUse',
      matcher: 'Bash',
      args: ['./hooks/guard.js', '--strict'],
    });
    expect(rules('post-tool', 'run Edit, Write hook "./fmt.sh" timeout 5s with {shell: "bash", if: "Edit(*.ts)"}')[0]).toMatchObject({
      tools: ['Edit', 'Write'],
      hook: { command: './fmt.sh', dialect: 'claude', timeoutMs: 5000, shell: 'bash', if: 'Edit(*.ts)' },
    });
    expect(rules('stop', 'run hook "${CLAUDE_PLUGIN_ROOT}/stop.sh" dialect codex matcher * with {plugin_root: "/plugins/x"}')[0]?.hook).toEqual({
      command: '${CLAUDE_PLUGIN_ROOT}/stop.sh',
      dialect: 'codex',
      event: 'Stop',
      pluginRoot: '/plugins/x',
    });
    expect(rules('PermissionRequest', 'run hook "./p.sh" matcher "Bash" with {"if": "Bash(git push *)", args: []}')[0]).toMatchObject({
      seam: 'agent-event',
      hook: { command: './p.sh', event: 'PermissionRequest', matcher: 'Bash', if: 'Bash(git push *)', args: [] },
    });
    // an empty `with` adds nothing
    expect(rules('pre-tool', 'run hook "x" with {}')[0]?.hook).toEqual({ command: 'x', dialect: 'claude' });
  });

  it('resolves `let` names in `with`, and the IR validates', () => {
    const r = compileText('let argv = ["a.js", flag]\nlet flag = "--x"\nlet root = "/p"\non pre-tool {\n  run hook "node" with {args: argv, plugin_root: root}\n}\n');
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.rules[0]?.hook).toEqual({ command: 'node', dialect: 'claude', args: ['a.js', '--x'], pluginRoot: '/p' });
    expect(validateIR(JSON.parse(JSON.stringify(r.ir))).diagnostics).toEqual([]);
  });

  it('checks `with` like any clause: once, after a hook, its object well formed', () => {
    const codes = (line: string, seam = 'pre-tool') =>
      compileText(`on ${seam} {\n  ${line}\n}\n`).diagnostics.map((d) => `${d.code}@${d.span?.start.line}:${d.span?.start.column}`);
    expect(codes('run hook "x" with {shell: "bash"} with {args: []}')).toEqual(['parse/duplicate-clause@2:37']);
    expect(codes('run hook "x" with {args: [], args: ["a"]}')).toEqual(['parse/duplicate-key@2:32']);
    expect(codes('ask Bash with {args: []}')).toEqual(['check/clause-not-allowed@2:12']);
    expect(codes('run hook "x" with {shell: "bash"}', 'Notification')).toEqual([]);
    expect(codes('run with {shell: "bash"}', 'Notification')).toEqual(['check/missing-clause@2:3', 'check/clause-not-allowed@2:7']);
    expect(codes('run hook "x" with {if: "Bash"}', 'Notification')).toEqual(['check/if-never-runs@2:22']);
    expect(codes('run hook "x" with')[0]).toBe('parse/unexpected-token@3:1');
  });

  it('lowers prompt rules', () => {
    expect(rules('prompt', 'block when prompt matches /key/i because "no keys"', 'context "use pnpm"')).toEqual([
      {
        id: 'policy.dshpolicy:2:3',
        seam: 'prompt',
        effect: 'block',
        when: { op: 'compare', cmp: 'matches', field: { name: 'prompt' }, value: { regex: 'key', flags: 'i' } },
        reason: 'no keys',
      },
      { id: 'policy.dshpolicy:3:3', seam: 'prompt', effect: 'context', text: 'use pnpm' },
    ]);
  });

  it('lowers post-tool rules', () => {
    expect(rules('post-tool', 'context Edit path "**/*.ts" "typecheck"', 'block Bash when response.code != 0')).toEqual([
      { id: 'policy.dshpolicy:2:3', seam: 'post-tool', effect: 'context', tools: ['Edit'], selectors: [{ kind: 'path', globs: ['**/*.ts'] }], text: 'typecheck' },
      {
        id: 'policy.dshpolicy:3:3',
        seam: 'post-tool',
        effect: 'block',
        tools: ['Bash'],
        when: { op: 'compare', cmp: '!=', field: { name: 'response', path: ['code'] }, value: 0 },
      },
    ]);
  });

  it('lowers stop rules, ran and limit', () => {
    expect(rules('stop', 'continue when not ran Bash command "npm test *" because "test first"', 'halt when ran Read, Edit path "x"', 'limit 3')).toEqual([
      {
        id: 'policy.dshpolicy:2:3',
        seam: 'stop',
        effect: 'continue',
        when: { op: 'not', arg: { op: 'ran', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['npm test *'] }] } },
        reason: 'test first',
      },
            {
        id: 'policy.dshpolicy:3:3',
        seam: 'stop',
        effect: 'halt',
        when: { op: 'ran', tools: ['Read', 'Edit'], selectors: [{ kind: 'path', globs: ['x'] }] },
      },
      { id: 'policy.dshpolicy:4:3', seam: 'stop', effect: 'limit', limit: 3 },
    ]);
  });

  it('lowers session-start rules', () => {
    expect(rules('session-start', 'context "read docs" when source == "startup"')).toEqual([
      {
        id: 'policy.dshpolicy:2:3',
        seam: 'session-start',
        effect: 'context',
        when: { op: 'compare', cmp: '==', field: { name: 'source' }, value: 'startup' },
        text: 'read docs',
      },
    ]);
  });

  it('flattens nested and/or and keeps not, exists, constants and lists', () => {
    const [rule] = rules('pre-tool', 'deny Bash when cwd exists and (tool == "Bash" and (true or (false or permission_mode in ["plan", ["x", 1]])))');
    expect(rule?.when).toEqual({
      op: 'and',
      args: [
        { op: 'exists', field: { name: 'cwd' } },
        { op: 'compare', cmp: '==', field: { name: 'tool' }, value: 'Bash' },
        {
          op: 'or',
          args: [
            { op: 'const', value: true },
            { op: 'const', value: false },
            { op: 'compare', cmp: 'in', field: { name: 'permission_mode' }, value: ['plan', 'x', 1] },
          ],
        },
      ],
    });
  });

  it('resolves names in conditions, texts and selectors', () => {
    const r = compileText(
      'let re = /x/si\nlet modes = ["plan"]\nlet dirs = ["a", "b"]\non pre-tool {\n  deny Bash path dirs when command matches re or permission_mode in modes because "no"\n}\n',
    );
    expect(r.diagnostics).toEqual([]);
    const rule = r.ir!.rules[0]!;
    expect(rule.selectors).toEqual([{ kind: 'path', globs: ['a', 'b'] }]);
    expect(rule.when).toEqual({
      op: 'or',
      args: [
        { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: 'x', flags: 'is' } },
        { op: 'compare', cmp: 'in', field: { name: 'permission_mode' }, value: ['plan'] },
      ],
    });
  });

  it('drops a reason that the rule form does not show', () => {
    const r = compileText('on pre-tool {\n  allow Read because "fine"\n}\n');
    expect(r.ir?.rules[0]?.reason).toBeUndefined();
  });
});

describe('lowering tests', () => {
  const tests = (...lines: string[]) => {
    const r = compileText(`test "guard" {\n${lines.map((l) => `  ${l}\n`).join('')}}\n`);
    expect(r.diagnostics).toEqual([]);
    return r.ir!.tests.map(({ span: _span, ...rest }) => rest);
  };

  it('builds fixture events for each seam', () => {
    expect(
      tests(
        'pre-tool Bash { command: "ls" } with { cwd: "/repo" } => allow',
        'post-tool Read { file_path: "a" } with { output: "text" } => accept',
        'prompt "hi" => allow',
        'prompt { prompt: "hi", cwd: "/r" } => block',
        'stop { last_message: "done" } => stop',
        'session-start {} => none',
        'event { hook_event_name: "Stop", stop_hook_active: false } => stop',
      ),
    ).toEqual([
      { name: 'guard: line 2', event: { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' }, cwd: '/repo' }, expect: 'allow' },
      { name: 'guard: line 3', event: { seam: 'post-tool', tool: 'Read', input: { file_path: 'a' }, output: 'text' }, expect: 'accept' },
      { name: 'guard: line 4', event: { seam: 'prompt', prompt: 'hi' }, expect: 'allow' },
      { name: 'guard: line 5', event: { seam: 'prompt', prompt: 'hi', cwd: '/r' }, expect: 'block' },
      { name: 'guard: line 6', event: { seam: 'stop', last_message: 'done', turn: [], stop_hook_active: false }, expect: 'stop' },
      { name: 'guard: line 7', event: { seam: 'session-start', source: 'startup' }, expect: 'none' },
      { name: 'guard: line 8', event: { hook_event_name: 'Stop', stop_hook_active: false }, expect: 'stop' },
    ]);
  });

  it('lowers nested payloads to plain JSON', () => {
    const [t] = tests('stop { turn: [{ tool: "Bash", input: { command: "npm test", n: 1.5, ok: true, none: null } }] } => stop');
    expect(t?.event).toEqual({
      seam: 'stop',
      turn: [{ tool: 'Bash', input: { command: 'npm test', n: 1.5, ok: true, none: null } }],
      stop_hook_active: false,
    });
  });

  it('keeps odd keys as plain data', () => {
    const [t] = tests('pre-tool Bash { "__proto__": "x", command: "ls" } => none');
    expect(Object.keys(t!.event.input as object)).toEqual(['__proto__', 'command']);
    expect(Object.getPrototypeOf(t!.event.input)).toBe(Object.prototype);
  });

  it('turns a because string into a regex matching it literally', () => {
    const [a, b] = tests('prompt "x" => block because "a.b (c) [d] $1 x*y+z? {2} ^|\\\\"', 'prompt "x" => block because /a.b/i');
    expect(a?.because).toEqual({ regex: 'a\\.b \\(c\\) \\[d\\] \\$1 x\\*y\\+z\\? \\{2\\} \\^\\|\\\\', flags: '' });
    expect(new RegExp(a!.because!.regex).test('see: a.b (c) [d] $1 x*y+z? {2} ^|\\')).toBe(true);
    expect(b?.because).toEqual({ regex: 'a.b', flags: 'i' });
  });

  it('gives each case a unique name', () => {
    const r = compileText('test "t" {\n  prompt "a" => allow\n}\n', 'a.dshpolicy', {});
    expect(r.ir?.tests.map((t) => t.name)).toEqual(['t: line 2']);
    const two = compileText('include "b.dshpolicy"\ntest "t" {\n  prompt "a" => allow\n}\n', 'a.dshpolicy', {
      'b.dshpolicy': '\ntest "t" {\n  prompt "b" => allow   \n}\n',
    });
    const names = two.ir!.tests.map((t) => t.name);
    expect(names).toEqual(['t: line 3', 't: b.dshpolicy:3']);
  });
});

describe('the IR', () => {
  const example = `policy "acme/guardrails"

let secrets = ["**/.env", "**/.env.*", "**/*.pem", "~/.ssh/**"]
let force_push = /git\\s+push\\b.*\\s(-f|--force)\\b/

on pre-tool {
  allow Read, Glob, Grep
  deny  Read, Edit, Write path secrets            because "secrets stay out of the model's context"
  deny  Bash command "rm -rf /", "rm -rf ~"       because "never delete a root"
  ask   Bash command "git push *"                 because "pushing needs a human"
  deny  Bash when command matches force_push      because "no force pushes"
  allow Bash command "npm test", "npm run lint *", "git status", "git diff *"
  deny  mcp__db__* when input.sql matches /(?i)\\bdrop\\s+table\\b/
  deny  WebFetch domain "*.internal.example.com"
  run   Bash hook "./scripts/guard.sh" timeout 10s
}

on prompt {
  block when prompt matches /-----BEGIN [A-Z ]*PRIVATE KEY-----/ because "paste a path, not a key"
  context "This repository uses pnpm; never run npm install."
  context "Releases go through \`make release\`." when prompt contains "release"
}

on post-tool {
  block Bash when output matches /npm ERR!/ because "the install failed; fix it before going on"
  context Edit, Write path "**/*.ts" "Run \`pnpm typecheck\` after changing TypeScript."
}

on stop {
  continue when not ran Bash command "npm test *" because "run the tests before you finish"
  limit 3
}

on session-start {
  context "Read docs/agents.md first." when source == "startup"
}

test "guardrails" {
  pre-tool Bash { command: "sudo rm -rf /" }                     => deny
  pre-tool Read { file_path: "config/.env" }                     => deny because "secrets"
  prompt "here: -----BEGIN RSA PRIVATE KEY-----"                 => block
  stop { turn: [] }                                              => continue
  session-start with { source: "resume" }                        => none
  event { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, session_id: "s", cwd: "/r" } => none
}
`;

  it('compiles the language example without diagnostics', () => {
    const r = compileText(example, 'guardrails.dshpolicy');
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.name).toBe('acme/guardrails');
    expect(r.ir?.sources).toEqual(['guardrails.dshpolicy']);
    expect(r.ir?.rules).toHaveLength(17);
    expect(r.ir?.tests).toHaveLength(6);
  });

  it('is valid against the IR schema', () => {
    const r = compileText(example, 'guardrails.dshpolicy');
    expect(validateIR(JSON.parse(JSON.stringify(r.ir))).diagnostics).toEqual([]);
  });

  it('produces test events that the engine reads', () => {
    const r = compileText(example, 'guardrails.dshpolicy');
    for (const t of r.ir!.tests) expect(normalizeEvent(t.event).diagnostics, t.name).toEqual([]);
  });

  it('is plain JSON', () => {
    const r = compileText(example);
    expect(JSON.parse(JSON.stringify(r.ir))).toEqual(r.ir);
  });

  it('is deterministic', () => {
    expect(compileText(example)).toEqual(compileText(example));
    fc.assert(
      fc.property(fc.array(fc.constantFrom('deny Read', 'allow Bash command "ls"', 'ask * path "a"', 'deny Edit when cwd == "/"'), { maxLength: 6 }), (lines) => {
        const text = `on pre-tool {\n${lines.map((l) => `  ${l}\n`).join('')}}\n`;
        expect(compileText(text)).toEqual(compileText(text));
      }),
    );
  });

  it('lowers `unprotect` to the groups, each once and in their own order, whichever file says it', () => {
    expect(compileText('on pre-tool {\n  deny Bash\n}\n').ir?.unprotected).toBeUndefined();
    expect(compileText('unprotect gemini, claude\nunprotect claude\n').ir?.unprotected).toEqual(['claude', 'gemini']);
    expect(compileText('unprotect *\n').ir?.unprotected).toEqual(['policy', 'claude', 'codex', 'gemini']);
    const included = compileText('include "./b.dshpolicy"\n', 'a.dshpolicy', { 'b.dshpolicy': 'unprotect policy\n' });
    expect(included.ir?.unprotected).toEqual(['policy']);
    expect(validateIR(JSON.parse(JSON.stringify(included.ir))).diagnostics).toEqual([]);
  });

  it('has no IR when there is an error, and one despite warnings', () => {
    expect(compileText('on pre-tool {\n  deny Bsh\n}\n').ir).toBeDefined();
    expect(compileText('on pre-tool {\n  deny Bsh\n  block\n}\n').ir).toBeUndefined();
  });
});
