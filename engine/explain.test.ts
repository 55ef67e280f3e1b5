import { describe, expect, it } from 'vitest';
import { compilePolicy } from './compile.js';
import { evaluateSync, type HookRunner } from './evaluate.js';
import type { AgentEvent, PolicyEvent } from './events.js';
import { explain, explainEvent, type Explanation } from './explain.js';
import { IR_VERSION, type Expr, type HookSpec, type PolicyIR, type Rule, type RuleSeam, type Selector } from './ir.js';

let n = 0;
function rule(seam: RuleSeam, effect: Rule['effect'], extra: Partial<Rule> = {}): Rule {
  n++;
  return { id: `p.dshpolicy:${n}:3`, seam, effect, span: { file: 'p.dshpolicy', start: { line: n, column: 3, offset: n * 10 }, end: { line: n, column: 4, offset: n * 10 + 1 } }, ...extra };
}
function policy(...rules: Rule[]) {
  const ir: PolicyIR = { version: IR_VERSION, sources: ['p.dshpolicy'], rules, tests: [] };
  return compilePolicy(ir);
}
const bash = (command: string, extra: Partial<PolicyEvent> = {}): PolicyEvent => ({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd: '/repo', ...extra }) as PolicyEvent;
const cmd = (...patterns: string[]): Selector[] => [{ kind: 'command', patterns }];
const hook = (extra: Partial<HookSpec> = {}): HookSpec => ({ command: 'true', dialect: 'claude', ...extra });

async function explained(rules: Rule[], event: PolicyEvent | AgentEvent): Promise<Explanation> {
  return (await explain(policy(...rules), event)).explanation;
}
function skipOf(x: Explanation, r: Rule) {
  return x.skipped.find((s) => s.rule === r.id);
}

describe('explain: rules that did not fire', () => {
  it('a tool that does not match', async () => {
    const one = rule('pre-tool', 'allow', { tools: ['Bash'] });
    const many = rule('pre-tool', 'deny', { tools: ['Read', 'mcp__db__*'] });
    const x = await explained([one, many], { seam: 'pre-tool', tool: 'Edit', input: {} });
    expect(skipOf(x, one)).toEqual({ rule: one.id, effect: 'allow', stage: 'tool', why: '`Edit` is not `Bash`' });
    expect(skipOf(x, many)?.why).toBe('`Edit` is none of `Read` or `mcp__db__*`');
  });

  it('a command selector no part matches', async () => {
    const ask = rule('pre-tool', 'ask', { tools: ['Bash'], selectors: cmd('git push *'), reason: 'push' });
    const x = await explained([ask], bash('git status && ls'));
    expect(skipOf(x, ask)).toMatchObject({ stage: 'selector', why: 'no part of the command matches `git push *`' });
    const none = await explained([ask], { seam: 'pre-tool', tool: 'Bash', input: {} });
    expect(skipOf(none, ask)?.why).toBe('the call has no `command`');
  });

  it('a path, url or domain selector', async () => {
    const secrets = rule('pre-tool', 'deny', { tools: ['Read'], selectors: [{ kind: 'path', globs: ['**/.env', '**/*.pem'] }] });
    const x = await explained([secrets], { seam: 'pre-tool', tool: 'Read', input: { file_path: 'src/a.ts' }, cwd: '/repo' });
    expect(skipOf(x, secrets)?.why).toBe('path `/repo/src/a.ts` matches no glob of `**/.env` or `**/*.pem`');
    const noPath = await explained([secrets], { seam: 'pre-tool', tool: 'Read', input: {} });
    expect(skipOf(noPath, secrets)?.why).toBe('the call has no path');

    const dom = rule('pre-tool', 'deny', { tools: ['WebFetch'], selectors: [{ kind: 'domain', globs: ['*.internal.example.com'] }] });
    const url = rule('pre-tool', 'ask', { tools: ['WebFetch'], selectors: [{ kind: 'url', globs: ['https://x.test/**'] }] });
    const web = await explained([dom, url], { seam: 'pre-tool', tool: 'WebFetch', input: { url: 'https://example.org/a' } });
    expect(skipOf(web, dom)?.why).toBe('domain `example.org` matches no glob of `*.internal.example.com`');
    expect(skipOf(web, url)?.why).toBe('url `https://example.org/a` matches no glob of `https://x.test/**`');
  });

  it('the failing part of a `when` condition', async () => {
    const when: Expr = {
      op: 'and',
      args: [
        { op: 'compare', cmp: 'startswith', field: { name: 'command' }, value: 'git ' },
        { op: 'compare', cmp: '==', field: { name: 'permission_mode' }, value: 'bypassPermissions' },
      ],
    };
    const r = rule('pre-tool', 'ask', { tools: ['Bash'], when, reason: 'bypass' });
    const x = await explained([r], bash('git status', { permission_mode: 'default' }));
    expect(skipOf(x, r)).toMatchObject({ stage: 'when', why: '`permission_mode == "bypassPermissions"` is false (`permission_mode` is "default")' });

    const absent: Expr = { op: 'compare', cmp: 'matches', field: { name: 'input', path: ['sql'] }, value: { regex: 'drop', flags: 'i' } };
    const q = rule('pre-tool', 'deny', { tools: ['mcp__db__query'], when: absent });
    const y = await explained([q], { seam: 'pre-tool', tool: 'mcp__db__query', input: {} });
    expect(skipOf(y, q)?.why).toBe('`input.sql matches /drop/i` is false (`input.sql` is absent)');

    const not: Expr = { op: 'not', arg: { op: 'compare', cmp: 'startswith', field: { name: 'command' }, value: 'npm ' } };
    const s = rule('pre-tool', 'ask', { tools: ['Bash'], when: not });
    const z = await explained([s], bash('npm test'));
    expect(skipOf(z, s)?.why).toBe('`not command startswith "npm "` is false: `command startswith "npm "` holds (`command` is "npm test")');

    const or: Expr = { op: 'or', args: [{ op: 'const', value: false }, { op: 'exists', field: { name: 'input', path: ['force'] } }] };
    const o = rule('pre-tool', 'deny', { tools: ['Bash'], when: or });
    const w = await explained([o], bash('ls'));
    expect(skipOf(w, o)?.why).toBe('no alternative of `false or input.force exists` holds: the condition is `false`; `input.force exists` is false (`input.force` is absent)');
  });

  it('`ran` on the stop seam, both ways', async () => {
    const ranTests: Expr = { op: 'ran', tools: ['Bash'], selectors: cmd('npm test *') };
    const c = rule('stop', 'continue', { when: { op: 'not', arg: ranTests }, reason: 'run the tests' });
    const h = rule('stop', 'halt', { when: ranTests });
    const ran = await explained([c, h], { seam: 'stop', turn: [{ tool: 'Bash', input: { command: 'cd app && npm test -- --ci' } }], stop_hook_active: false });
    expect(skipOf(ran, c)?.why).toBe('`not ran Bash command "npm test *"` is false: `ran Bash command "npm test *"` holds (the turn ran Bash `cd app && npm test -- --ci`)');
    const idle = await explained([c, h], { seam: 'stop', turn: [], stop_hook_active: false });
    expect(skipOf(idle, h)?.why).toBe('`ran Bash command "npm test *"` is false: the turn ran no tool');
  });

  it("an imported hook's matcher, and its `if` rule", async () => {
    const edits = rule('pre-tool', 'run', { hook: hook({ event: 'PreToolUse', matcher: 'Edit|Write' }) });
    const push = rule('pre-tool', 'run', { hook: hook({ event: 'PreToolUse', matcher: 'Bash', if: 'Bash(git push *)' }) });
    const bad = rule('pre-tool', 'run', { hook: hook({ event: 'PreToolUse', if: 'Bash(' }) });
    const x = await explained([edits, push, bad], bash('git status'));
    expect(skipOf(x, edits)).toMatchObject({ stage: 'matcher', why: "the hook's matcher `Edit|Write` does not match `Bash`" });
    expect(skipOf(x, push)).toMatchObject({ stage: 'if', why: "the hook's `if` rule `Bash(git push *)` does not match the call" });
    expect(skipOf(x, bad)).toMatchObject({ stage: 'if', why: "the hook's `if` rule `Bash(` does not parse, so the hook never runs" });
    const onPrompt = rule('prompt', 'run', { hook: hook({ event: 'UserPromptSubmit', if: 'Bash(*)' }) });
    const p = await explained([onPrompt], { seam: 'prompt', prompt: 'hi' });
    expect(skipOf(p, onPrompt)?.why).toBe('the hook has the `if` rule `Bash(*)`, and the event has no tool call, so it never runs');
  });

  it('hooks on agent events: the agent, the matcher, `if`', async () => {
    const claude = rule('agent-event', 'run', { hook: hook({ event: 'Notification', matcher: 'idle_prompt' }) });
    const codex = rule('agent-event', 'run', { hook: hook({ event: 'PermissionRequest', dialect: 'codex' }) });
    const perm = rule('agent-event', 'run', { hook: hook({ event: 'PermissionRequest', matcher: 'Bash', if: 'Bash(rm *)' }) });
    const note = await explained([claude], { seam: 'agent-event', event: 'Notification', agent: 'claude', fields: { notification_type: 'permission_prompt' } });
    expect(skipOf(note, claude)).toMatchObject({ stage: 'matcher', why: "the hook's matcher `idle_prompt` does not match `permission_prompt`" });
    const x = await explained([codex, perm], { seam: 'agent-event', event: 'PermissionRequest', agent: 'claude', fields: { tool_name: 'Bash', tool_input: { command: 'ls' } } });
    expect(skipOf(x, codex)).toMatchObject({ stage: 'agent', why: "a Codex hook, and the event is Claude Code's" });
    expect(skipOf(x, perm)).toMatchObject({ stage: 'if', why: "the hook's `if` rule `Bash(rm *)` does not match the call" });
    // Without a runner, a selected hook is pending, not skipped.
    const sel = await explained([perm], { seam: 'agent-event', event: 'PermissionRequest', fields: { tool_name: 'Bash', tool_input: { command: 'rm x' } } });
    expect(sel.skipped).toEqual([]);
    expect(sel.pending).toEqual([perm.id]);
    expect(sel.matched).toEqual([{ rule: perm.id, effect: 'run', outcome: 'pending', note: 'the hook was not run' }]);
  });

  it('an allow by command that covers no part says why', async () => {
    const allow = rule('pre-tool', 'allow', { tools: ['Bash'], selectors: cmd('npm test', 'rm *') });
    const sudo = await explained([allow], bash('sudo npm test'));
    expect(skipOf(sudo, allow)?.why).toBe('`sudo npm test` matches `npm test` only through `sudo`, which an allow does not look through');
    const cut = await explained([allow], bash('npm test "oops'));
    expect(skipOf(cut, allow)?.why).toBe('`npm test "oops` matches `npm test` but cannot be known (unterminated double quote), so no allow covers it');
    const other = await explained([allow], bash('ls'));
    expect(skipOf(other, allow)?.why).toBe('no part of the command matches `npm test` or `rm *`');
    const path = await explained([allow], bash('./npm test'));
    expect(skipOf(path, allow)?.why).toContain("only by the program's base name");
  });

  it('selectors are tested before `when`, as the evaluator does', async () => {
    const r = rule('pre-tool', 'deny', { tools: ['Bash'], selectors: cmd('rm *'), when: { op: 'const', value: false } });
    const x = await explained([r], bash('ls'));
    expect(skipOf(x, r)?.stage).toBe('selector');
    const y = await explained([r], bash('rm x'));
    expect(skipOf(y, r)?.stage).toBe('when');
  });
});

describe('explain: rules that fired and command parts', () => {
  const addAll = rule('pre-tool', 'allow', { tools: ['Bash'], selectors: cmd('git add *', 'git status') });
  const ask = rule('pre-tool', 'ask', { tools: ['Bash'], selectors: cmd('git push *'), reason: 'pushing needs a human' });
  const force = rule('pre-tool', 'deny', { tools: ['Bash'], when: { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: 'git\\s+push\\b.*--force', flags: '' } }, reason: 'no force pushes' });
  const root = rule('pre-tool', 'deny', { tools: ['Bash'], selectors: cmd('rm -rf /'), reason: 'never delete a root' });
  const readOnly = rule('pre-tool', 'allow', { tools: ['Read'] });
  const p = policy(addAll, ask, force, root, readOnly);

  it('a compound command: each part and the rules that matched it', async () => {
    const event = bash('git add . && git push --force');
    const { decision, explanation: x } = await explain(p, event);
    expect(x.decision).toBe('deny');
    expect(x.decision).toBe(evaluateSync(p, event).decision);
    expect(x.reasons).toEqual(['no force pushes']);
    expect(x.matched).toHaveLength(decision.trace.length);
    expect(x.matched).toEqual(expect.arrayContaining(decision.trace));
    expect(x.matched.map((m) => [m.rule, m.outcome])).toEqual([
      [addAll.id, 'partial'],
      [ask.id, 'outranked'],
      [force.id, 'decided'],
    ]);
    expect(x.skipped.map((s) => [s.rule, s.stage])).toEqual([
      [root.id, 'selector'],
      [readOnly.id, 'tool'],
    ]);
    expect(x.parts).toEqual([
      { text: 'git add .', words: ['git', 'add', '.'], rules: [{ rule: addAll.id, effect: 'allow' }], allowed: true },
      { text: 'git push --force', words: ['git', 'push', '--force'], rules: [{ rule: ask.id, effect: 'ask' }], allowed: false },
    ]);
  });

  it('a part behind a privileged wrapper', async () => {
    const x = (await explain(p, bash('sudo rm -rf /'))).explanation;
    expect(x.decision).toBe('deny');
    expect(x.parts).toEqual([
      { text: 'sudo rm -rf /', words: ['sudo', 'rm', '-rf', '/'], wrappers: ['sudo'], privileged: true, rules: [{ rule: root.id, effect: 'deny' }], allowed: false },
    ]);
    const neutral = (await explain(p, bash('nice git status'))).explanation;
    expect(neutral.decision).toBe('allow');
    expect(neutral.parts?.[0]).toMatchObject({ wrappers: ['nice'], allowed: true, rules: [{ rule: addAll.id, effect: 'allow' }] });
    expect(neutral.parts?.[0]?.privileged).toBeUndefined();
  });

  it('an unknowable part is never allowed', async () => {
    const x = (await explain(p, bash('git status; "$(cmd)"'))).explanation;
    expect(x.decision).toBe('none');
    expect(x.parts?.map((q) => [q.text, q.unknowable ?? null, q.allowed])).toEqual([
      ['git status', null, true],
      ['"$(cmd)"', 'the program name is computed when the command runs', false],
      ['cmd', null, false],
    ]);
    expect(x.matched[0]).toMatchObject({ rule: addAll.id, outcome: 'partial' });
  });

  it('events without a command have no parts', async () => {
    const x = (await explain(p, { seam: 'pre-tool', tool: 'Read', input: { file_path: 'a' } })).explanation;
    expect(x.parts).toBeUndefined();
    expect(x.matched).toMatchObject([{ rule: readOnly.id, outcome: 'decided' }]);
    expect(x.skipped).toHaveLength(4);
    expect(x.skipped.every((s) => s.stage === 'tool')).toBe(true);
  });

  it('hooks: pending without a runner, their outcome with one', async () => {
    const run = rule('pre-tool', 'run', { tools: ['Bash'], selectors: cmd('curl *'), hook: hook() });
    const q = policy(run, addAll);
    const pending = (await explain(q, bash('curl x | sh'))).explanation;
    expect(pending.pending).toEqual([run.id]);
    expect(pending.matched).toContainEqual({ rule: run.id, effect: 'run', outcome: 'pending', note: 'the hook was not run' });
    expect(pending.parts?.[0]?.rules).toEqual([{ rule: run.id, effect: 'run' }]);
    const runner: HookRunner = async () => ({ effect: 'deny', reason: 'no pipes to sh', exitCode: 2, timedOut: false, summary: 'exit 2' });
    const ran = (await explain(q, bash('curl x | sh'), { runner })).explanation;
    expect(ran.decision).toBe('deny');
    expect(ran.pending).toEqual([]);
    expect(ran.matched).toContainEqual({ rule: run.id, effect: 'deny', outcome: 'decided', reason: 'no pipes to sh', hook: { exitCode: 2, timedOut: false, summary: 'exit 2' } });
  });

  it('imported hooks keep their source location', async () => {
    const imported: Rule = { ...rule('pre-tool', 'run', { hook: hook({ event: 'PreToolUse', matcher: 'Edit' }) }), id: 'settings.json#/hooks/PreToolUse/0/hooks/0' };
    const x = (await explain(policy(imported), bash('ls'))).explanation;
    expect(x.skipped[0]).toMatchObject({ rule: imported.id, at: `p.dshpolicy:${imported.span!.start.line}:3`, stage: 'matcher' });
  });

  it('explainEvent takes a decision made elsewhere and leaves it as it is', () => {
    const event = bash('git push origin main');
    const d = evaluateSync(p, event);
    const before = JSON.stringify(d);
    const x = explainEvent(p, event, d);
    expect(JSON.stringify(d)).toBe(before);
    expect(x).toMatchObject({ decision: 'ask', rules: [ask.id], reasons: ['pushing needs a human'] });
  });
});
