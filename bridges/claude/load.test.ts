import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../engine/index.js';
import type { HooksConfig } from '../config.js';
import { members } from '../common/tree.js';
import { CLAUDE_EVENTS, CLAUDE_HOOKS_SCHEMA, HANDLER_TYPES, loadClaudeHooksText, validateHooksDocument } from './index.js';
import { parseJson } from './json.js';
import { detectKind, inferPluginRoot, isOnePermissionRule, MAX_DIAGNOSTICS } from './load.js';

const corpusDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'specs', 'corpus', 'claude');

function infos(c: HooksConfig, code: string): Diagnostic[] {
  return c.diagnostics.filter((d) => d.code === code && d.severity === 'info');
}

function wellFormed(c: HooksConfig, file: string): void {
  expect(c.agent).toBe('claude');
  expect(Array.isArray(c.groups)).toBe(true);
  for (const d of c.diagnostics) {
    expect(d.message).toMatch(/^[^A-Z]/);
    expect(d.message.endsWith('.')).toBe(false);
    if (d.span) {
      expect(d.span.start.line).toBeGreaterThanOrEqual(1);
      expect(d.span.start.column).toBeGreaterThanOrEqual(1);
      expect(d.span.end.offset).toBeGreaterThanOrEqual(d.span.start.offset);
    }
    if (d.code !== 'claude/internal') expect(d.code).toMatch(/^claude\/[a-z-]+$/);
  }
  expect(c.diagnostics.some((d) => d.code === 'claude/internal')).toBe(false);
  for (const g of c.groups) {
    expect(g.source.file).toBe(file);
    for (const h of g.hooks) expect(HANDLER_TYPES).toContain(h.type);
  }
}

/** Values shaped like hooks configurations, with every part sometimes wrong. */
const anyValue = fc.jsonValue({ maxDepth: 3 });
const handler = fc.oneof(
  fc.record({
    type: fc.constantFrom(...HANDLER_TYPES, 'shell', ''),
    command: fc.oneof(fc.string(), anyValue),
    timeout: fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.double(), fc.string()),
    if: fc.oneof(fc.constant('Bash(git *)'), fc.string()),
    url: fc.oneof(fc.webUrl(), fc.string()),
    prompt: fc.string(),
    server: fc.string(),
    tool: fc.string(),
    args: fc.oneof(fc.array(fc.string()), anyValue),
    headers: fc.oneof(fc.dictionary(fc.string(), fc.string()), anyValue),
    async: fc.oneof(fc.boolean(), anyValue),
  }, { requiredKeys: [] }),
  anyValue,
);
const group = fc.oneof(
  fc.record({ matcher: fc.oneof(fc.constantFrom('*', '', 'Bash', 'Task', 'mcp__x', '(?i)a', 'Bash(git *)', 'Edit,Write'), fc.string(), anyValue), hooks: fc.oneof(fc.array(handler, { maxLength: 4 }), anyValue) }, { requiredKeys: [] }),
  anyValue,
);
const eventMap = fc.dictionary(fc.oneof(fc.constantFrom(...CLAUDE_EVENTS), fc.string()), fc.oneof(fc.array(group, { maxLength: 3 }), anyValue), { maxKeys: 6 });
const config = fc.record({
  hooks: fc.oneof(eventMap, anyValue),
  disableAllHooks: fc.oneof(fc.boolean(), anyValue),
  description: fc.oneof(fc.string(), anyValue),
  name: fc.string(),
}, { requiredKeys: [] });
const fileName = fc.constantFrom('.claude/settings.json', 'hooks/hooks.json', 'p/.claude-plugin/plugin.json', 'x.json', 'managed-settings.json');

describe('claude load: never throws', () => {
  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json()), fileName, (text, file) => {
        wellFormed(loadClaudeHooksText(text, file), file);
      }),
      { numRuns: 1000 },
    );
  });

  it('on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fileName, (value, file) => {
        wellFormed(loadClaudeHooksText(JSON.stringify(value, null, 1), file), file);
      }),
      { numRuns: 1000 },
    );
  });

  it('on hooks-shaped values with wrong parts, keeping only valid handlers', () => {
    fc.assert(
      fc.property(config, fileName, (value, file) => {
        const c = loadClaudeHooksText(JSON.stringify(value), file);
        wellFormed(c, file);
        for (const g of c.groups) {
          expect([...CLAUDE_EVENTS, 'PreModelSwitch', 'PostModelSwitch', 'PreSkillShellCommand']).toContain(g.event);
          for (const h of g.hooks) {
            if (h.type === 'command') expect(typeof h.command).toBe('string');
            if (h.timeoutSec !== undefined) expect(h.timeoutSec).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('on non-string input from untyped callers', () => {
    for (const v of [undefined, null, 42, {}, Buffer.from('{}')]) {
      const c = loadClaudeHooksText(v as unknown as string, 'x.json');
      expect(c.agent).toBe('claude');
    }
  });

  it('on a 10 MB file, quickly', () => {
    const handlerText = '{"type": "command", "command": "echo hello world", "timeout": 5}';
    const groupText = `{"matcher": "Bash", "hooks": [${Array(20).fill(handlerText).join(',')}]}`;
    const groups: string[] = [];
    let size = 0;
    while (size < 10 * 1024 * 1024) {
      groups.push(groupText);
      size += groupText.length + 1;
    }
    const text = `{"hooks": {"PreToolUse": [${groups.join(',')}]}}`;
    const t0 = Date.now();
    const c = loadClaudeHooksText(text, 'big.json');
    expect(c.groups.length).toBe(groups.length);
    expect(Date.now() - t0).toBeLessThan(40_000);
  }, 60_000);

  it('caps the diagnostics of one file', () => {
    const events = Array.from({ length: MAX_DIAGNOSTICS + 50 }, (_, i) => `"Bogus${i}": []`).join(',');
    const c = loadClaudeHooksText(`{"hooks": {${events}}}`, 'x.json');
    expect(c.diagnostics.length).toBe(MAX_DIAGNOSTICS + 1);
    expect(c.diagnostics.at(-1)).toMatchObject({ code: 'claude/too-many-diagnostics', message: '50 more diagnostics in this file are not shown' });
  });
});

describe('claude load: notes (info diagnostics)', () => {
  const cmd = (c: string) => `{"type": "command", "command": "${c}"}`;

  it('notes identical handlers that run once', () => {
    const c = loadClaudeHooksText(
      `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [${cmd('a')}]}, {"matcher": "Bash", "hooks": [${cmd('a')}, ${cmd('b')}]}, {"matcher": "Write", "hooks": [${cmd('a')}]}]}}`,
      'settings.json',
    );
    const dups = infos(c, 'claude/duplicate-handler');
    expect(dups).toHaveLength(1);
    expect(dups[0]).toMatchObject({ pointer: '/hooks/PreToolUse/1/hooks/0', message: 'identical to the handler at settings.json:1:57; claude code runs it once' });
    // every copy is kept: the runner merges the ones an event selects
    expect(c.groups.flatMap((g) => g.hooks)).toHaveLength(4);
  });

  it('never merges plugin handlers', () => {
    const c = loadClaudeHooksText(`{"hooks": {"Stop": [{"hooks": [${cmd('a')}, ${cmd('a')}]}]}}`, 'hooks/hooks.json');
    expect(infos(c, 'claude/duplicate-handler')).toHaveLength(0);
  });

  it('notes a harmless matcher on an event without matchers, and ignored group fields', () => {
    const c = loadClaudeHooksText(`{"hooks": {"Stop": [{"matcher": "", "id": "s1", "description": "d", "hooks": [${cmd('a')}]}]}}`, 'x.json');
    expect(infos(c, 'claude/matcher-ignored')).toHaveLength(1);
    expect(infos(c, 'claude/ignored-field').map((d) => d.pointer)).toEqual(['/hooks/Stop/0/id', '/hooks/Stop/0/description']);
    expect(c.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
  });

  it('notes comma matchers, unknown tools and undocumented fields', () => {
    const c = loadClaudeHooksText(
      `{"hooks": {"PreToolUse": [{"matcher": "Edit, Frobnicate", "hooks": [{"type": "command", "command": "a", "rewakeMessage": "m"}]}]}}`,
      'x.json',
    );
    expect(infos(c, 'claude/matcher-version')).toHaveLength(1);
    expect(infos(c, 'claude/unknown-tool')[0]!.message).toBe('no claude code tool is named `Frobnicate`');
    expect(infos(c, 'claude/undocumented-field')).toHaveLength(1);
    expect(c.groups[0]!.hooks[0]!.raw['rewakeMessage']).toBe('m');
  });

  it('notes why a disabled file has no groups', () => {
    const c = loadClaudeHooksText(`{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [${cmd('a')}]}]}}`, 'x.json');
    expect(c.disabled).toBe(true);
    expect(infos(c, 'claude/hooks-disabled')[0]).toMatchObject({ pointer: '/disableAllHooks', message: '`disableAllHooks` is `true`: claude code runs none of the 1 hook groups' });
  });

  it('says the unknown event may be a case slip', () => {
    const c = loadClaudeHooksText('{"hooks": {"preToolUse": [], "SesionStart": [], "Wibble": []}}', 'x.json');
    expect(c.diagnostics.map((d) => d.help)).toEqual([
      'did you mean `PreToolUse`?',
      'did you mean `SessionStart`?',
      'event names are case-sensitive; see the list of hook events in the claude code reference',
    ]);
  });

  it('warns about a disableAllHooks in a plugin hooks file', () => {
    const c = loadClaudeHooksText('{"disableAllHooks": true, "hooks": {}}', 'hooks/hooks.json', { kind: 'plugin-hooks' });
    expect(c.disabled).toBe(false);
    expect(c.diagnostics).toEqual([expect.objectContaining({ code: 'claude/not-a-setting', severity: 'warning' })]);
  });

  it('warns about events next to the hooks wrapper of a plugin hooks file', () => {
    const c = loadClaudeHooksText('{"hooks": {}, "Stop": []}', 'hooks/hooks.json');
    expect(c.diagnostics).toEqual([expect.objectContaining({ code: 'claude/misplaced-event', pointer: '/Stop' })]);
  });
});

describe('claude load: plugin.json hooks files', () => {
  const files: Record<string, string> = {
    'plug/extra/more.json': '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "more"}]}]}}',
    'plug/extra/bad.json': '{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}',
  };
  const readFile = (p: string): string | undefined => files[p];

  it('reads the listed files relative to the plugin root', () => {
    const c = loadClaudeHooksText('{"name": "p", "hooks": ["./extra/more.json", "./extra/bad.json", "./extra/none.json"]}', 'plug/.claude-plugin/plugin.json', { readFile });
    expect(c.files).toEqual(['plug/.claude-plugin/plugin.json', 'plug/extra/more.json', 'plug/extra/bad.json']);
    expect(c.groups).toMatchObject([
      { event: 'Stop', layer: 'plugin', pluginRoot: 'plug', hooks: [{ command: 'more' }], source: { file: 'plug/extra/more.json' } },
      { event: 'Stop', hooks: [] },
    ]);
    expect(c.diagnostics.map((d) => [d.code, d.span?.file])).toEqual([
      ['claude/hooks-file-missing', 'plug/.claude-plugin/plugin.json'],
      ['claude/schema', 'plug/extra/bad.json'],
    ]);
  });

  it('only lists them without a reader', () => {
    const c = loadClaudeHooksText('{"name": "p", "hooks": "./extra/more.json"}', 'plug/.claude-plugin/plugin.json');
    expect(infos(c, 'claude/hooks-file-not-read')).toHaveLength(1);
    expect(c.files).toEqual(['plug/.claude-plugin/plugin.json']);
  });

  it('a reader that throws counts as a missing file', () => {
    const c = loadClaudeHooksText('{"name": "p", "hooks": "./x.json"}', 'plug/.claude-plugin/plugin.json', {
      readFile: () => {
        throw new Error('boom');
      },
    });
    expect(c.diagnostics.map((d) => d.code)).toEqual(['claude/hooks-file-missing']);
  });
});

describe('claude load: kinds and helpers', () => {
  const kind = (text: string, file: string) => detectKind(members(parseJson(text, file).doc.root!), file);

  it('detects kinds by content first, then by name', () => {
    expect(kind('{"hooks": {}}', '.claude/settings.json')).toBe('settings');
    expect(kind('{"hooks": {}}', 'hooks/hooks.json')).toBe('plugin-hooks');
    expect(kind('{"hooks": {}}', 'whatever.json')).toBe('settings');
    expect(kind('{"description": "d", "hooks": {}}', 'whatever.json')).toBe('plugin-hooks');
    expect(kind('{"$schema": "s", "hooks": {}}', 'a_hooks_hooks.json')).toBe('plugin-hooks');
    expect(kind('{"name": "p", "hooks": "./h.json"}', 'x.json')).toBe('plugin-manifest');
    expect(kind('{"name": "p", "version": "1"}', 'x.json')).toBe('plugin-manifest');
    expect(kind('{"hooks": {}}', 'plugin.json')).toBe('plugin-manifest');
    expect(kind('{"model": "opus", "hooks": {}}', 'hooks.json')).toBe('settings');
    expect(kind('{"junk": 1, "hooks": {}}', 'hooks.json')).toBe('plugin-hooks');
  });

  it('infers plugin roots from the standard paths only', () => {
    expect(inferPluginRoot('hooks/hooks.json')).toBe('.');
    expect(inferPluginRoot('/opt/p/hooks/hooks.json')).toBe('/opt/p');
    expect(inferPluginRoot('C:\\p\\.claude-plugin\\plugin.json')).toBe('C:\\p');
    expect(inferPluginRoot('/a/myhooks/hooks.json')).toBeUndefined();
    expect(inferPluginRoot('x_hooks_hooks.json')).toBeUndefined();
  });

  it('recognises one permission rule', () => {
    for (const ok of ['Bash', 'Bash(git *)', 'Bash(echo $(date))', 'mcp__s__t', 'Edit(src/**)', 'Bash(npm run test:*)']) expect(isOnePermissionRule(ok)).toBe(true);
    for (const bad of ['', 'Bash(git *) || Bash(npm *)', 'Bash(a) Bash(b)', 'Bash(', 'Bash git', '(x)', 'Bash(a))(']) expect(isOnePermissionRule(bad)).toBe(false);
  });
});

describe('claude load: the published schema', () => {
  it('compiles and accepts every valid corpus file (specs/corpus)', () => {
    expect(CLAUDE_HOOKS_SCHEMA.$defs.handler.allOf).toHaveLength(HANDLER_TYPES.length);
    for (const f of readdirSync(corpusDir).sort()) {
      const value = JSON.parse(readFileSync(join(corpusDir, f), 'utf8')) as Record<string, unknown>;
      const errors = validateHooksDocument({ hooks: value['hooks'] });
      const loaderErrors = loadClaudeHooksText(JSON.stringify({ hooks: value['hooks'] }), f).diagnostics.filter((d) => d.severity === 'error');
      expect(errors.length > 0, f).toBe(loaderErrors.length > 0);
    }
  });

  it('rejects unknown events and bad handlers', () => {
    expect(validateHooksDocument({ hooks: { Nope: [] } }).length).toBeGreaterThan(0);
    expect(validateHooksDocument({ hooks: { Stop: [{ hooks: [{ type: 'http' }] }] } }).length).toBeGreaterThan(0);
    expect(validateHooksDocument({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: 0 }] }] } }).length).toBeGreaterThan(0);
    expect(validateHooksDocument({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: 3 }] }] } })).toEqual([]);
  });
});
