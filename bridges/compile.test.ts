import { describe, expect, it } from 'vitest';
import { compilePolicy, evaluate, IR_VERSION, processHookRunner, validateIR } from '../engine/index.js';
import { loadClaudeHooksText } from './claude/index.js';
import { loadCodexHooksText } from './codex/index.js';
import { compileHooks } from './compile.js';

const settings = JSON.stringify({
  hooks: {
    PreToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "no shell today" >&2; exit 2', timeout: 5 }] },
      { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'exit 0' }, { type: 'http', url: 'http://127.0.0.1:9/x' }] },
    ],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "remember the style guide"' }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'true' }] }],
    Stop: [{ hooks: [{ type: 'prompt', prompt: 'is the work done?' }] }],
    PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true', async: true }] }],
  },
});

describe('compileHooks', () => {
  const config = loadClaudeHooksText(settings, '.claude/settings.json');
  const compiled = compileHooks(config);

  it('turns each command handler into a run rule in its dialect, on its seam or as an agent event', () => {
    expect(compiled.rules.map((r) => [r.seam, r.hook?.event, r.hook?.matcher, r.hook?.timeoutMs])).toEqual([
      ['pre-tool', 'PreToolUse', 'Bash', 5000],
      ['pre-tool', 'PreToolUse', 'Write|Edit', undefined],
      ['pre-tool', 'PreToolUse', 'Write|Edit', undefined],
      ['prompt', 'UserPromptSubmit', undefined, undefined],
      ['agent-event', 'Notification', undefined, undefined],
    ]);
    expect(compiled.rules[0]).toMatchObject({ id: '.claude/settings.json#/hooks/PreToolUse/0/hooks/0', effect: 'run', hook: { dialect: 'claude' } });
    expect(compiled.rules[2]!.hook).toMatchObject({ command: 'http://127.0.0.1:9/x', http: {} });
  });

  it('reports what it cannot run offline instead of dropping it silently', () => {
    expect(compiled.diagnostics.map((d) => d.code).sort()).toEqual(['import/async', 'import/not-run']);
    expect(compiled.diagnostics.find((d) => d.code === 'import/not-run')!.help).toContain('needs a model');
  });

  it('produces IR that validates', () => {
    expect(validateIR({ version: IR_VERSION, sources: [], rules: compiled.rules, tests: [] }).diagnostics).toEqual([]);
  });

  it('decides with the hooks as the agent would', async () => {
    const policy = compilePolicy({ version: IR_VERSION, sources: [], rules: compiled.rules, tests: [] });
    const runner = processHookRunner();
    expect(await evaluate(policy, { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' } }, { runner })).toMatchObject({ decision: 'deny', reasons: ['no shell today'] });
    expect((await evaluate(policy, { seam: 'pre-tool', tool: 'Read', input: {} }, { runner })).decision).toBe('none');
    expect(await evaluate(policy, { seam: 'prompt', prompt: 'hi' }, { runner })).toMatchObject({ decision: 'allow', context: ['remember the style guide'] });
  });

  it('imports nothing from a disabled configuration', () => {
    expect(compileHooks({ ...config, disabled: true }).rules).toEqual([]);
  });

  it('keeps Codex hooks in the Codex dialect, matchers ignored where Codex ignores them', () => {
    const codex = loadCodexHooksText(JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'exit 0' }] }], Stop: [{ matcher: 'x', hooks: [{ type: 'command', command: 'exit 0' }] }] } }), '.codex/hooks.json');
    const rules = compileHooks(codex).rules;
    expect(rules.map((r) => [r.seam, r.hook?.dialect, r.hook?.matcher])).toEqual([
      ['pre-tool', 'codex', 'Edit'],
      ['stop', 'codex', undefined],
    ]);
  });
});
