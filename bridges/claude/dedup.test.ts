import { describe, expect, it } from 'vitest';
import type { HookHandler, Layer } from '../config.js';
import { claudeDedupKey, dedupeClaudeHandlers, loadClaudeHooksText } from './index.js';

const h = (fields: Partial<HookHandler>): HookHandler => ({ type: 'command', raw: {}, source: { file: 'f', pointer: '' }, ...fields });
const g = (layer: Layer) => ({ layer });

describe('claude dedup: identical handlers', () => {
  it('keys command handlers by command and args, http handlers by url', () => {
    expect(claudeDedupKey(g('user'), h({ command: 'a' }))).toBe(claudeDedupKey(g('project'), h({ command: 'a', timeoutSec: 5, if: 'Bash(x)' })));
    expect(claudeDedupKey(g('user'), h({ command: 'a' }))).not.toBe(claudeDedupKey(g('user'), h({ command: 'a', args: ['x'] })));
    expect(claudeDedupKey(g('user'), h({ command: 'a', args: ['x', 'y'] }))).not.toBe(claudeDedupKey(g('user'), h({ command: 'a', args: ['x y'] })));
    expect(claudeDedupKey(g('local'), h({ type: 'http', url: 'http://x/' }))).toBe(claudeDedupKey(g('managed'), h({ type: 'http', url: 'http://x/', timeoutSec: 1 })));
    expect(claudeDedupKey(g('user'), h({ type: 'http', url: 'a' }))).not.toBe(claudeDedupKey(g('user'), h({ command: 'a' })));
  });

  it('never merges plugin copies or other handler types', () => {
    expect(claudeDedupKey(g('plugin'), h({ command: 'a' }))).toBeUndefined();
    expect(claudeDedupKey(g('user'), h({ type: 'prompt', raw: { prompt: 'p' } }))).toBeUndefined();
    expect(claudeDedupKey(g('user'), h({ type: 'mcp_tool' }))).toBeUndefined();
  });

  it('keeps the first of the selected copies, in order', () => {
    const sel = [
      { group: g('user'), handler: h({ command: 'a' }), n: 1 },
      { group: g('plugin'), handler: h({ command: 'a' }), n: 2 },
      { group: g('project'), handler: h({ command: 'b' }), n: 3 },
      { group: g('local'), handler: h({ command: 'a' }), n: 4 },
      { group: g('plugin'), handler: h({ command: 'a' }), n: 5 },
      { group: g('user'), handler: h({ type: 'prompt' }), n: 6 },
      { group: g('user'), handler: h({ type: 'prompt' }), n: 7 },
    ];
    expect(dedupeClaudeHandlers(sel).map((s) => s.n)).toEqual([1, 2, 3, 5, 6, 7]);
  });

  it('works on loaded groups: one run for the same command in two groups of a settings file', () => {
    const c = loadClaudeHooksText(
      '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}, {"matcher": "Ba.*", "hooks": [{"type": "command", "command": "guard"}]}]}}',
      '.claude/settings.json',
    );
    const selected = c.groups.flatMap((group) => group.hooks.map((handler) => ({ group, handler })));
    expect(dedupeClaudeHandlers(selected)).toHaveLength(1);
  });
});
