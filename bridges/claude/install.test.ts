import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadClaudeHooksText } from './index.js';
import { DSHPOLICY_MARK, findDshpolicyHandlers, formattingOf, isDshpolicyHandler, jsonEqual, type WantedGroup } from '../common/hooks-json.js';
import { claudeCommandHandler, claudeHttpHandler, claudeWantedGroups, planClaudeInstall, planClaudeUninstall } from './install.js';

const FILE = '/p/.claude/settings.json';
const CMD = "'/usr/bin/node' '/opt/dshpolicy/cli.js' hook claude";
const wanted = (events: string[], command = CMD): WantedGroup[] => claudeWantedGroups(events, () => claudeCommandHandler(command));

/** Everything but our handlers (and the groups/events/hooks that held only ours). */
function withoutOurs(doc: unknown): unknown {
  const d = structuredClone(doc) as Record<string, unknown>;
  const hooks = d['hooks'] as Record<string, unknown[]> | undefined;
  if (!hooks || typeof hooks !== 'object') return d;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept = groups
      .map((g) => (g && typeof g === 'object' && Array.isArray((g as { hooks?: unknown[] }).hooks) ? { ...(g as object), hooks: (g as { hooks: unknown[] }).hooks.filter((h) => !isDshpolicyHandler(h)) } : g))
      .filter((g) => !(g && typeof g === 'object' && Array.isArray((g as { hooks?: unknown[] }).hooks) && (g as { hooks: unknown[] }).hooks.length === 0));
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete d['hooks'];
  return d;
}

const USER_SETTINGS = `{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(npm test)"]
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    { "type": "command", "command": "./guard.sh" }
                ]
            }
        ],
        "Notification": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "notify-send hi"
                    }
                ]
            }
        ]
    }
}
`;

describe('planClaudeInstall', () => {
  it('creates a file from nothing, with a matcher only on tool events', () => {
    const plan = planClaudeInstall(undefined, FILE, wanted(['PreToolUse', 'Stop']));
    expect(plan).toMatchObject({ ok: true, changed: true, created: true });
    expect(JSON.parse(plan.text)).toEqual({
      hooks: {
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: CMD, timeout: 30, statusMessage: DSHPOLICY_MARK }] }],
        Stop: [{ hooks: [{ type: 'command', command: CMD, timeout: 30, statusMessage: DSHPOLICY_MARK }] }],
      },
    });
    expect(plan.text.endsWith('}\n')).toBe(true);
    // Claude Code reads it without a word, and runs both handlers.
    const loaded = loadClaudeHooksText(plan.text, FILE);
    expect(loaded.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(loaded.groups.map((g) => [g.event, g.matcher, g.hooks[0]!.command, g.hooks[0]!.timeoutSec])).toEqual([
      ['PreToolUse', '*', CMD, 30],
      ['Stop', undefined, CMD, 30],
    ]);
  });

  it('treats a blank file as empty, and installs nothing into a missing file when nothing is wanted', () => {
    expect(planClaudeInstall('  \n', FILE, wanted(['Stop']))).toMatchObject({ ok: true, changed: true, created: true });
    expect(planClaudeInstall(undefined, FILE, [])).toMatchObject({ ok: true, changed: false, text: '' });
    expect(planClaudeUninstall(undefined, FILE)).toMatchObject({ ok: true, changed: false });
  });

  it('keeps everything else, byte for byte, and uninstalling gives the file back', () => {
    const plan = planClaudeInstall(USER_SETTINGS, FILE, wanted(['PreToolUse', 'UserPromptSubmit', 'Stop']));
    expect(plan.ok).toBe(true);
    expect(plan.changed).toBe(true);
    // The user's lines are all still there, in order, and ours use the file's 4-space indent.
    const kept = USER_SETTINGS.split('\n');
    let at = 0;
    const got = plan.text.split('\n');
    for (const line of kept) {
      const i = got.indexOf(line, at);
      expect(i, line).toBeGreaterThanOrEqual(at);
      at = i + 1;
    }
    expect(plan.text).toContain('\n                "matcher": "*",\n');
    expect(withoutOurs(JSON.parse(plan.text))).toEqual(withoutOurs(JSON.parse(USER_SETTINGS)));
    // Our group is added at the end of an event's list: the user's groups keep their places.
    expect(findDshpolicyHandlers(JSON.parse(plan.text)).map((o) => [o.event, o.groupIndex, o.handlerIndex])).toEqual([
      ['PreToolUse', 1, 0],
      ['UserPromptSubmit', 0, 0],
      ['Stop', 0, 0],
    ]);
    const back = planClaudeUninstall(plan.text, FILE);
    expect(back).toMatchObject({ ok: true, changed: true });
    expect(back.text).toBe(USER_SETTINGS);
    expect(back.before).toHaveLength(3);
    expect(back.after).toEqual([]);
  });

  it('is idempotent: the second install changes nothing', () => {
    const once = planClaudeInstall(USER_SETTINGS, FILE, wanted(['PreToolUse', 'Stop']));
    const twice = planClaudeInstall(once.text, FILE, wanted(['PreToolUse', 'Stop']));
    expect(twice).toMatchObject({ ok: true, changed: false });
    expect(twice.text).toBe(once.text);
    // Our entry reformatted or with its keys reordered by hand is still the same entry.
    const doc = JSON.parse(once.text);
    doc.hooks.Stop[0].hooks[0] = Object.fromEntries(Object.entries(doc.hooks.Stop[0].hooks[0]).reverse());
    doc.hooks.Stop[0] = { hooks: doc.hooks.Stop[0].hooks, ...doc.hooks.Stop[0] };
    const reordered = JSON.stringify(doc);
    expect(reordered).toContain('{"statusMessage":"dshpolicy","timeout":30');
    expect(planClaudeInstall(reordered, FILE, wanted(['PreToolUse', 'Stop'])).changed).toBe(false);
    // A changed field is not.
    expect(planClaudeInstall(reordered.replace('"timeout":30', '"timeout":31'), FILE, wanted(['PreToolUse', 'Stop'])).changed).toBe(true);
  });

  it('writes the timeout it is given, and installing with another one replaces our entries in place', () => {
    expect(claudeCommandHandler(CMD, 125)).toEqual({ type: 'command', command: CMD, timeout: 125, statusMessage: DSHPOLICY_MARK });
    expect(claudeHttpHandler('http://127.0.0.1:8787/hook', 600)).toMatchObject({ type: 'http', timeout: 600 });
    const first = planClaudeInstall(USER_SETTINGS, FILE, wanted(['Stop']));
    const longer = planClaudeInstall(first.text, FILE, claudeWantedGroups(['Stop'], () => claudeCommandHandler(CMD, 125)));
    expect(longer).toMatchObject({ ok: true, changed: true });
    expect(JSON.parse(longer.text).hooks.Stop.at(-1)).toEqual({ hooks: [claudeCommandHandler(CMD, 125)] });
    expect(withoutOurs(JSON.parse(longer.text))).toEqual(withoutOurs(JSON.parse(USER_SETTINGS)));
  });

  it('replaces only our entries when the wanted set changes', () => {
    const once = planClaudeInstall(USER_SETTINGS, FILE, wanted(['PreToolUse', 'Stop']));
    const other = "'/usr/bin/node' '/opt/dshpolicy/cli.js' hook claude --policy '/p/x.dshpolicy'";
    const next = planClaudeInstall(once.text, FILE, wanted(['PreToolUse', 'PostToolUse'], other));
    expect(next.changed).toBe(true);
    const doc = JSON.parse(next.text);
    expect(doc.hooks.Stop).toBeUndefined();
    expect(doc.hooks.PreToolUse).toEqual([JSON.parse(USER_SETTINGS).hooks.PreToolUse[0], { matcher: '*', hooks: [claudeCommandHandler(other)] }]);
    expect(doc.hooks.PostToolUse).toEqual([{ matcher: '*', hooks: [claudeCommandHandler(other)] }]);
    expect(withoutOurs(doc)).toEqual(withoutOurs(JSON.parse(USER_SETTINGS)));
    expect(next.before.map((o) => o.event)).toEqual(['PreToolUse', 'Stop']);
    expect(next.after.map((o) => o.event)).toEqual(['PreToolUse', 'PostToolUse']);
  });

  it('removes a handler of ours that someone put into their own group, and duplicates of our group', () => {
    const text = JSON.stringify(
      {
        hooks: {
          Stop: [
            { hooks: [{ type: 'command', command: './mine.sh' }, claudeCommandHandler('old')] },
            { hooks: [claudeCommandHandler('old')] },
            { hooks: [claudeCommandHandler('older')] },
          ],
        },
      },
      null,
      2,
    );
    const plan = planClaudeInstall(text, FILE, wanted(['Stop']));
    expect(JSON.parse(plan.text).hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: './mine.sh' }] }, { hooks: [claudeCommandHandler(CMD)] }]);
    const gone = planClaudeUninstall(text, FILE);
    expect(JSON.parse(gone.text)).toEqual({ hooks: { Stop: [{ hooks: [{ type: 'command', command: './mine.sh' }] }] } });
  });

  it('leaves handlers without our mark alone, even when they run dshpolicy', () => {
    const theirs = { type: 'command', command: CMD, timeout: 30 };
    const text = JSON.stringify({ hooks: { Stop: [{ hooks: [theirs] }] } });
    expect(planClaudeUninstall(text, FILE).changed).toBe(false);
    const plan = planClaudeInstall(text, FILE, wanted(['Stop']));
    expect(JSON.parse(plan.text).hooks.Stop).toEqual([{ hooks: [theirs] }, { hooks: [claudeCommandHandler(CMD)] }]);
  });

  it('removes the `hooks` object and events it emptied, but not ones that were empty before', () => {
    const created = planClaudeInstall('{\n  "model": "opus"\n}\n', FILE, wanted(['Stop']));
    expect(created.text).toBe(`{\n  "model": "opus",\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {\n            "type": "command",\n            "command": ${JSON.stringify(CMD)},\n            "timeout": 30,\n            "statusMessage": "dshpolicy"\n          }\n        ]\n      }\n    ]\n  }\n}\n`);
    expect(planClaudeUninstall(created.text, FILE).text).toBe('{\n  "model": "opus"\n}\n');
    const empty = '{\n  "hooks": {\n    "Stop": []\n  }\n}\n';
    const plan = planClaudeInstall(empty, FILE, wanted(['PreToolUse']));
    expect(planClaudeUninstall(plan.text, FILE).text).toBe(empty);
  });

  it('keeps tabs, CRLF line ends, a one-line file and a byte order mark', () => {
    const tabs = '{\r\n\t"model": "opus"\r\n}\r\n';
    const t = planClaudeInstall(tabs, FILE, wanted(['Stop']));
    expect(t.text).toContain('\r\n\t"hooks": {\r\n\t\t"Stop": [\r\n');
    expect(t.text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(planClaudeUninstall(t.text, FILE).text).toBe(tabs);
    const oneLine = '{"model":"opus"}';
    const o = planClaudeInstall(oneLine, FILE, wanted(['Stop']));
    expect(o.text).not.toContain('\n');
    expect(planClaudeUninstall(o.text, FILE).text).toBe(oneLine);
    const bom = '\ufeff{\n  "model": "opus"\n}\n';
    const b = planClaudeInstall(bom, FILE, wanted(['Stop']));
    expect(b.ok).toBe(true);
    expect(b.text.startsWith('\ufeff{')).toBe(true);
    expect(planClaudeUninstall(b.text, FILE).text).toBe(bom);
    expect(formattingOf('{\n    "a": 1\n}')).toEqual({ unit: '    ', eol: '\n' });
    expect(formattingOf('{"a": 1}\n')).toBeUndefined();
  });

  it('refuses a file claude code cannot read, with where the problem is', () => {
    const broken = '{\n  "model": "opus",\n  "hooks": {,\n}\n';
    const plan = planClaudeInstall(broken, FILE, wanted(['Stop']));
    expect(plan.ok).toBe(false);
    expect(plan.changed).toBe(false);
    expect(plan.text).toBe(broken);
    expect(plan.diagnostics[0]).toMatchObject({ code: 'claude/json-syntax', severity: 'error', span: { file: FILE, start: { line: 3, column: 13 } } });
    expect(plan.diagnostics.at(-1)).toMatchObject({ code: 'install/unreadable-config' });
    // Comments: claude code reads settings as strict JSON.
    expect(planClaudeInstall('{\n  // mine\n  "a": 1\n}', FILE, wanted(['Stop'])).diagnostics[0]).toMatchObject({ code: 'claude/json-syntax', span: { start: { line: 2 } } });
    expect(planClaudeUninstall(broken, FILE).ok).toBe(false);
  });

  it('refuses shapes it cannot edit safely', () => {
    expect(planClaudeInstall('[1]', FILE, wanted(['Stop'])).diagnostics[0]).toMatchObject({ code: 'install/not-an-object' });
    expect(planClaudeInstall('{"hooks": 3}', FILE, wanted(['Stop'])).diagnostics[0]).toMatchObject({ code: 'install/not-an-object', pointer: '/hooks' });
    expect(planClaudeInstall('{"hooks": {"Stop": {}}}', FILE, wanted(['Stop'])).diagnostics[0]).toMatchObject({ code: 'install/not-an-array' });
    const dup = '{\n  "hooks": {},\n  "hooks": {"Stop": []}\n}';
    expect(planClaudeInstall(dup, FILE, wanted(['Stop'])).diagnostics[0]).toMatchObject({ code: 'install/duplicate-key', span: { start: { line: 2, column: 3 } } });
    // An event that is not ours to touch may be anything.
    expect(planClaudeInstall('{"hooks": {"Notification": 1}}', FILE, wanted(['Stop'])).ok).toBe(true);
  });

  it('writes http handlers and warns when the file turns hooks off or does not allow the url', () => {
    const groups = claudeWantedGroups(['PreToolUse', 'SessionStart'], (e) => (e === 'SessionStart' ? claudeCommandHandler(CMD) : claudeHttpHandler('http://127.0.0.1:8080/hook')));
    const plan = planClaudeInstall('{"disableAllHooks": true, "allowedHttpHookUrls": ["https://*"]}', FILE, groups);
    expect(plan.ok).toBe(true);
    expect(JSON.parse(plan.text).hooks.PreToolUse[0].hooks[0]).toEqual({ type: 'http', url: 'http://127.0.0.1:8080/hook', timeout: 30, statusMessage: 'dshpolicy' });
    expect(plan.diagnostics.map((d) => [d.severity, d.code])).toEqual(expect.arrayContaining([['warning', 'claude/hooks-disabled']]));
    const blocked = planClaudeInstall('{"allowedHttpHookUrls": ["https://*"]}', FILE, groups);
    expect(blocked.diagnostics.map((d) => d.severity)).toContain('warning');
    expect(blocked.diagnostics.some((d) => d.pointer?.startsWith('/hooks/PreToolUse/0'))).toBe(true);
    expect(planClaudeInstall('{}', FILE, groups).diagnostics).toEqual([]);
  });

  it('install then uninstall gives any settings file back, and a second install changes nothing', () => {
    const handler = fc.record({ type: fc.constant('command'), command: fc.string({ maxLength: 8 }) });
    const group = fc.record({ matcher: fc.constantFrom('Bash', '*', 'Edit|Write'), hooks: fc.array(handler, { minLength: 1, maxLength: 2 }) }, { requiredKeys: ['hooks'] });
    const hooks = fc.dictionary(fc.constantFrom('PreToolUse', 'Stop', 'Notification', 'SessionStart'), fc.array(group, { minLength: 1, maxLength: 3 }), { minKeys: 1 });
    const settings = fc.record({ model: fc.string({ maxLength: 5 }), hooks, env: fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 })) }, { requiredKeys: [] });
    const indent = fc.constantFrom<string | number>(2, 4, '\t', 0);
    const events = fc.subarray(['PreToolUse', 'PostToolUse', 'Stop', 'SessionStart', 'UserPromptSubmit']);
    fc.assert(
      fc.property(settings, indent, events, events, (s, ind, first, second) => {
        const text = JSON.stringify(s, null, ind) + (ind === 0 ? '' : '\n');
        const a = planClaudeInstall(text, FILE, wanted(first));
        expect(a.ok).toBe(true);
        expect(jsonEqual(withoutOurs(JSON.parse(a.text)), withoutOurs(JSON.parse(text)))).toBe(true);
        expect(planClaudeInstall(a.text, FILE, wanted(first)).changed).toBe(false);
        const b = planClaudeInstall(a.text, FILE, wanted(second, 'other'));
        expect(b.after.map((o) => o.event).sort()).toEqual([...second].sort());
        expect(b.after.every((o) => o.handler['command'] === 'other')).toBe(true);
        expect(planClaudeUninstall(b.text, FILE).text).toBe(text);
      }),
      { numRuns: 150 },
    );
  });
});
