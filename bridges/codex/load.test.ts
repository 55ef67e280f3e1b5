import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat, loadCodexHooksText } from './index.js';

const FILES = ['.codex/hooks.json', '.codex/config.toml', 'hooks', 'default.rules'];

function loads(text: string, file: string): void {
  const c = loadCodexHooksText(text, file);
  expect(c.agent).toBe('codex');
  expect(Array.isArray(c.groups)).toBe(true);
  for (const d of c.diagnostics) {
    expect(['error', 'warning', 'info']).toContain(d.severity);
    expect(d.pointer).toBeTypeOf('string');
    expect(d.message).not.toMatch(/\.$/);
    expect(d.message.charAt(0)).toBe(d.message.charAt(0).toLowerCase());
  }
  for (const g of c.groups) {
    expect(g.hooks.length).toBeGreaterThan(0);
    for (const h of g.hooks) expect(h.command?.trim()).toBeTruthy();
  }
}

describe('loadCodexHooksText never throws', () => {
  it('on arbitrary strings, whatever the file name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.constantFrom(...FILES), (text, file) => loads(text, file)),
      { numRuns: 400 },
    );
  });

  it('on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        loads(JSON.stringify(v), 'hooks.json');
        loads(JSON.stringify({ hooks: v }), 'hooks.json');
      }),
      { numRuns: 300 },
    );
  });

  it('on hooks-shaped documents with arbitrary leaves', () => {
    const leaf = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('command', 'prompt', '', '*', '[', 'Bash|Edit', '^Bash$'));
    const handler = fc.dictionary(fc.constantFrom('type', 'command', 'timeout', 'timeoutSec', 'async', 'statusMessage', 'if', 'x'), leaf);
    const group = fc.record({ matcher: leaf, hooks: fc.array(fc.oneof(handler, leaf), { maxLength: 3 }) }, { requiredKeys: [] });
    const events = fc.dictionary(fc.constantFrom('PreToolUse', 'Stop', 'SessionEnd', 'UserPromptSubmit', 'Notification', 'preToolUse'), fc.oneof(fc.array(group, { maxLength: 3 }), leaf));
    fc.assert(
      fc.property(events, (hooks) => {
        loads(JSON.stringify({ hooks }), 'hooks.json');
      }),
      { numRuns: 400 },
    );
  });

  it('on binary data', () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    for (const file of FILES) loads(bytes.toString('latin1'), file);
    for (const file of FILES) loads(bytes.toString('utf8'), file);
  });

  it('on deep nesting', () => {
    loads('['.repeat(200_000), 'hooks.json');
    loads('{"a":'.repeat(100_000), 'hooks.json');
    loads('a = ' + '['.repeat(100_000) + ']'.repeat(100_000), 'config.toml');
    loads('[' + Array.from({ length: 20_000 }, () => 'k').join('.') + ']\nx = 1\n', 'config.toml');
    loads(Array.from({ length: 20_000 }, () => 'k').join('.') + ' = 1\n', 'config.toml');
    const deep = loadCodexHooksText('[' + Array.from({ length: 300 }, () => 'k').join('.') + ']\n', 'config.toml');
    expect(deep.diagnostics).toMatchObject([{ code: 'codex/too-deep', severity: 'error', span: { start: { line: 1 } } }]);
  });

  it('on a 10 MB file', () => {
    const group = { matcher: 'Bash', hooks: [{ type: 'command', command: 'x'.repeat(80), timeout: 5 }] };
    const text = JSON.stringify({ hooks: { PreToolUse: Array.from({ length: 80_000 }, () => group) } });
    expect(text.length).toBeGreaterThan(10_000_000);
    const started = Date.now();
    const c = loadCodexHooksText(text, 'hooks.json');
    expect(c.groups).toHaveLength(80_000);
    expect(c.diagnostics).toEqual([]);
    expect(Date.now() - started).toBeLessThan(20_000);
    const toml = Array.from({ length: 40_000 }, (_, i) => `[[hooks.Stop]]\nhooks = [{ type = "command", command = "echo ${i}" }]\n`).join('');
    expect(loadCodexHooksText(toml, 'config.toml').groups).toHaveLength(40_000);
  }, 60_000);
});

describe('loadCodexHooksText', () => {
  it('picks the format from the file name, then the content', () => {
    expect(detectFormat('{}', 'a.json')).toBe('json');
    expect(detectFormat('[hooks]', 'a.toml')).toBe('toml');
    expect(detectFormat('{}', 'default.rules')).toBe('rules');
    expect(detectFormat('  {"hooks": {}}', 'hooks')).toBe('json');
    expect(detectFormat('[[hooks.Stop]]', 'config')).toBe('toml');
    expect(detectFormat('prefix_rule(pattern=["ls"])', 'policy')).toBe('rules');
  });

  it('gives the file a span and a pointer on every diagnostic', () => {
    const texts: [string, string][] = [
      ['{"hooks": {"Stop": [{"matcher": "x", "hooks": [{"type": "prompt"}, {"type": "command", "command": ""}]}], "Nope": []}, "x": 1}', 'hooks.json'],
      ['[features]\ncodex_hooks = false\n[[hooks.Stop]]\nmatcher = "x"\nhooks = [{ type = "agent" }, { type = "command", command = " ", timeout = 0 }]\n[hooks.Nope]\n', 'config.toml'],
      ['{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x", "timeout": "1"}]}]}}', 'hooks.json'],
    ];
    for (const [text, file] of texts) {
      const c = loadCodexHooksText(text, file);
      expect(c.diagnostics.length).toBeGreaterThanOrEqual(2);
      for (const d of c.diagnostics) {
        expect(d.span?.file).toBe(file);
        expect(d.span!.start.line).toBeGreaterThanOrEqual(1);
        expect(d.span!.start.column).toBeGreaterThanOrEqual(1);
        expect(d.pointer).toBeTypeOf('string');
      }
    }
  });

  it('keeps the layer and plugin root on every group, and trusts plugin variables there', () => {
    const text = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/stop.sh"}]}]}}';
    const c = loadCodexHooksText(text, '/p/hooks/hooks.json', { layer: 'plugin', pluginRoot: '/p' });
    expect(c.groups).toMatchObject([{ layer: 'plugin', pluginRoot: '/p', hooks: [{ command: '${CLAUDE_PLUGIN_ROOT}/stop.sh' }] }]);
    expect(c.diagnostics).toEqual([]);
    const outside = loadCodexHooksText(text, '.codex/hooks.json');
    expect(outside.diagnostics.map((d) => d.code)).toEqual(['codex/unset-variable']);
  });

  it('suggests the event that was meant', () => {
    const c = loadCodexHooksText('{"hooks": {"pre_tool_use": [], "PostToolUSe": [], "Whatever": []}}', 'hooks.json');
    expect(c.diagnostics.map((d) => d.help)).toEqual(['did you mean `PreToolUse`?', 'did you mean `PostToolUse`?', expect.stringContaining('`SessionStart`')]);
  });

  it('notes later-era events and async hooks without warning', () => {
    const c = loadCodexHooksText('{"hooks": {"StopFailure": [{"hooks": [{"type": "command", "command": "x", "async": true}]}]}}', 'hooks.json');
    expect(c.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ['info', 'codex/later-event'],
      ['info', 'codex/async-hook'],
    ]);
    expect(c.groups).toMatchObject([{ event: 'StopFailure', hooks: [{ async: true }] }]);
  });

  it('rejects the whole file on a shape error, but still reports every problem', () => {
    const c = loadCodexHooksText(
      '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ok"}]}], "PreToolUse": [{"matcher": 1, "hooks": [{"type": "command", "command": "x", "timeout": "5"}]}], "Bad": 1}}',
      'hooks.json',
    );
    expect(c.groups).toEqual([]);
    expect(c.diagnostics.map((d) => d.code).sort()).toEqual(['codex/invalid-type', 'codex/invalid-type', 'codex/unknown-event']);
    for (const d of c.diagnostics.filter((x) => x.severity === 'error')) expect(d.help).toContain('none of its hooks run');
  });

  it('keeps the written matcher and the raw handler', () => {
    const c = loadCodexHooksText('[[hooks.PreToolUse]]\nmatcher = "Bash"\nhooks = [{ type = "command", command = "x", timeout = 9, commandWindows = "x.cmd", extra = 2024-01-01 }]\n', 'config.toml');
    expect(c.groups[0]!.hooks[0]!.raw).toEqual({ type: 'command', command: 'x', timeout: 9, commandWindows: 'x.cmd', extra: { $datetime: expect.any(String) } });
  });
});
