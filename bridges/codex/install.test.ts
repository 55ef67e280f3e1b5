import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { LineIndex, type Diagnostic } from '../../engine/index.js';
import { loadCodexHooksText } from './index.js';
import {
  codexCommandHandler,
  codexHooksDisabled,
  codexHookStates,
  codexKeyMoves,
  codexProjectTrusted,
  codexTrustEntries,
  codexWantedGroups,
  planCodexConfig,
  planCodexInstall,
  planCodexUninstall,
  tomlString,
  trustEntryText,
  type CodexTrustEntry,
} from './install.js';
import { parseToml } from './toml.js';
import { codexHookHash, readHookStates } from './trust.js';

const HOOKS = '/home/u/.codex/hooks.json';
const CONFIG = '/home/u/.codex/config.toml';
const CMD = "'/usr/bin/node' '/opt/dshpolicy/cli.js' hook codex";
const wanted = (events: string[], command = CMD) => codexWantedGroups(events, () => codexCommandHandler(command));

/** Loads hooks.json as Codex does with the trust state of `config`: what runs, and what it says. */
function run(hooksText: string, config: string): { commands: string[]; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  const states = readHookStates(parseToml(config, CONFIG, new LineIndex(config)).root, diags);
  const loaded = loadCodexHooksText(hooksText, HOOKS, { trust: { keySource: HOOKS, states } });
  return { commands: loaded.groups.flatMap((g) => g.hooks.map((h) => `${g.event}:${h.command}`)), diagnostics: [...diags, ...loaded.diagnostics] };
}

const ours = (entries: CodexTrustEntry[]) => (key: string, hash: unknown) => key.startsWith(`${HOOKS}:`) && entries.some((e) => e.key === key || e.hash === hash);

const USER_CONFIG = `# my codex
model = "gpt-5.5"
approval_policy = "never"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:4599/v1"   # local

[hooks.state]
"/somewhere/else/hooks.json:stop:0:0" = { trusted_hash = "sha256:abc" }

[projects."/work/other"]
trust_level = "trusted"
`;

describe('planCodexInstall', () => {
  it('writes one group per event, "*" on tool events, which codex loads cleanly', () => {
    const plan = planCodexInstall(undefined, HOOKS, wanted(['SessionStart', 'PreToolUse', 'PostToolUse', 'Stop', 'PermissionRequest']));
    expect(plan).toMatchObject({ ok: true, created: true });
    const doc = JSON.parse(plan.text);
    expect(doc.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: CMD, timeout: 30, statusMessage: 'dshpolicy' }] }]);
    expect(doc.hooks.PermissionRequest[0].matcher).toBe('*');
    expect(doc.hooks.SessionStart[0].matcher).toBeUndefined();
    expect(doc.hooks.Stop[0].matcher).toBeUndefined();
    const loaded = loadCodexHooksText(plan.text, HOOKS);
    expect(loaded.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(loaded.groups).toHaveLength(5);
  });

  it('refuses what codex cannot read, including a byte order mark claude code would accept', () => {
    const bom = planCodexInstall('\ufeff{}', HOOKS, wanted(['Stop']));
    expect(bom.ok).toBe(false);
    expect(bom.diagnostics[0]).toMatchObject({ code: 'codex/json-syntax', span: { file: HOOKS, start: { line: 1, column: 1 } } });
    const broken = planCodexInstall('{\n  "hooks": {\n    "Stop": [\n  }\n}', HOOKS, wanted(['Stop']));
    expect(broken.ok).toBe(false);
    expect(broken.diagnostics[0]!.span?.start.line).toBe(4);
  });
});

describe('our handler', () => {
  it('carries the timeout it is given, which is part of the hash codex trusts', () => {
    expect(codexCommandHandler(CMD, 125)).toEqual({ type: 'command', command: CMD, timeout: 125, statusMessage: 'dshpolicy' });
    const at = (timeout: number) => codexTrustEntries(planCodexInstall(undefined, HOOKS, codexWantedGroups(['Stop'], () => codexCommandHandler(CMD, timeout))).text, HOOKS)[0]!.hash;
    expect(at(125)).toBe(codexHookHash({ event: 'Stop', command: CMD, timeout: 125, statusMessage: 'dshpolicy' }));
    expect(at(125)).not.toBe(at(30));
  });
});

describe('trust entries', () => {
  it('uses the key and hash codex computes for our handlers', () => {
    const plan = planCodexInstall(
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: './mine.sh' }] }] } }, null, 2),
      HOOKS,
      wanted(['PreToolUse', 'Stop']),
    );
    const entries = codexTrustEntries(plan.text, HOOKS);
    expect(entries).toEqual([
      { key: `${HOOKS}:stop:1:0`, event: 'Stop', hash: codexHookHash({ event: 'Stop', command: CMD, timeout: 30, statusMessage: 'dshpolicy' }) },
      { key: `${HOOKS}:pre_tool_use:0:0`, event: 'PreToolUse', hash: codexHookHash({ event: 'PreToolUse', matcher: '*', command: CMD, timeout: 30, statusMessage: 'dshpolicy' }) },
    ]);
    // Without the entries codex skips them; with them it runs them (and still skips the user's untrusted one).
    expect(run(plan.text, '').commands).toEqual([]);
    const config = planCodexConfig(undefined, CONFIG, { add: entries, isOurs: ours(entries), renames: new Map() });
    expect(config).toMatchObject({ ok: true, changed: true });
    expect(config.text).toBe(entries.map((e) => trustEntryText(e)).join('\n'));
    const after = run(plan.text, config.text);
    expect(after.commands).toEqual([`Stop:${CMD}`, `PreToolUse:${CMD}`]);
    expect(after.diagnostics.map((d) => d.pointer)).toEqual(['/hooks/Stop/0/hooks/0']);
  });

  it('edits config.toml textually: adds, is idempotent, removes back to the original', () => {
    const plan = planCodexInstall(undefined, HOOKS, wanted(['PreToolUse', 'Stop']));
    const entries = codexTrustEntries(plan.text, HOOKS);
    const added = planCodexConfig(USER_CONFIG, CONFIG, { add: entries, isOurs: ours(entries), renames: new Map() });
    expect(added.ok).toBe(true);
    expect(added.text.startsWith(USER_CONFIG)).toBe(true);
    expect(added.text.slice(USER_CONFIG.length)).toBe(`\n${entries.map((e) => trustEntryText(e)).join('\n')}`);
    expect(added.added).toEqual(entries);
    expect(run(plan.text, added.text).commands).toHaveLength(2);
    const again = planCodexConfig(added.text, CONFIG, { add: entries, isOurs: ours(entries), renames: new Map() });
    expect(again).toMatchObject({ ok: true, changed: false, added: [], removed: [] });
    const removed = planCodexConfig(added.text, CONFIG, { add: [], isOurs: ours(entries), renames: new Map() });
    expect(removed.removed).toEqual(entries.map((e) => e.key));
    expect(removed.text).toBe(USER_CONFIG);
  });

  it('replaces an entry whose hash changed, in whichever form it was written, and keeps the others', () => {
    const plan = planCodexInstall(undefined, HOOKS, wanted(['Stop']));
    const [entry] = codexTrustEntries(plan.text, HOOKS);
    const config = [
      'model = "x"',
      '',
      '[hooks.state]',
      `${tomlString(entry!.key)} = { trusted_hash = "sha256:old" }`,
      '"/other:stop:0:0" = { trusted_hash = "sha256:keep" }',
      '',
      `[hooks.state.${tomlString(`${HOOKS}:pre_tool_use:0:0`)}]`,
      'trusted_hash = "sha256:stale"',
      'enabled = true',
      '',
      '[tui]',
      'theme = "dark"',
      '',
    ].join('\n');
    const stale = { key: `${HOOKS}:pre_tool_use:0:0`, hash: 'sha256:stale', event: 'PreToolUse' };
    const r = planCodexConfig(config, CONFIG, { add: [entry!], isOurs: ours([entry!, stale]), renames: new Map() });
    expect(r.ok).toBe(true);
    expect(r.removed.sort()).toEqual([entry!.key, stale.key].sort());
    expect(r.text).toBe(
      ['model = "x"', '', '[hooks.state]', '"/other:stop:0:0" = { trusted_hash = "sha256:keep" }', '', '[tui]', 'theme = "dark"', '', trustEntryText(entry!)].join('\n'),
    );
    expect((parse(r.text) as { hooks: { state: Record<string, unknown> } }).hooks.state).toEqual({
      '/other:stop:0:0': { trusted_hash: 'sha256:keep' },
      [entry!.key]: { trusted_hash: entry!.hash },
    });
  });

  it('re-keys the trust of other hooks that moved when ours went', () => {
    const mine = { type: 'command', command: './mine.sh' };
    const before = JSON.stringify({ hooks: { Stop: [{ hooks: [codexCommandHandler(CMD)] }, { hooks: [mine] }, { hooks: [mine, codexCommandHandler(CMD)] }] } }, null, 2);
    const gone = planCodexUninstall(before, HOOKS);
    expect(JSON.parse(gone.text).hooks.Stop).toEqual([{ hooks: [mine] }, { hooks: [mine] }]);
    const moves = codexKeyMoves(before, gone.text, HOOKS);
    expect([...moves]).toEqual([
      [`${HOOKS}:stop:1:0`, `${HOOKS}:stop:0:0`],
      [`${HOOKS}:stop:2:0`, `${HOOKS}:stop:1:0`],
    ]);
    const was = codexTrustEntries(before, HOOKS);
    const mineHash = codexHookHash({ event: 'Stop', command: './mine.sh' });
    const config = [
      '[hooks.state]',
      ...was.map((e) => `${tomlString(e.key)} = { trusted_hash = ${tomlString(e.hash)} }`),
      `${tomlString(`${HOOKS}:stop:1:0`)} = { trusted_hash = "${mineHash}" }`,
      `${tomlString(`${HOOKS}:stop:2:0`)} = { trusted_hash = "${mineHash}", enabled = false }`,
      '',
    ].join('\n');
    expect(run(before, config).commands).toEqual([`Stop:${CMD}`, 'Stop:./mine.sh', `Stop:${CMD}`]);
    const r = planCodexConfig(config, CONFIG, { add: [], isOurs: ours(was), renames: moves });
    expect(r.ok).toBe(true);
    expect(r.renamed).toEqual([...moves]);
    expect(r.text).toBe(
      ['[hooks.state]', `${tomlString(`${HOOKS}:stop:0:0`)} = { trusted_hash = "${mineHash}" }`, `${tomlString(`${HOOKS}:stop:1:0`)} = { trusted_hash = "${mineHash}", enabled = false }`, ''].join('\n'),
    );
    // The user's hooks run (and stay disabled) exactly as before.
    expect(run(gone.text, r.text).commands).toEqual(['Stop:./mine.sh']);
  });

  it('trusts the project: appended, set, or added under its table', () => {
    const opts = { add: [], isOurs: () => false, renames: new Map<string, string>(), trustProject: '/work/p' };
    const appended = planCodexConfig(USER_CONFIG, CONFIG, opts);
    expect(appended.projectTrusted).toBe('written');
    expect(appended.text).toBe(`${USER_CONFIG}\n[projects."/work/p"]\ntrust_level = "trusted"\n`);
    expect(codexProjectTrusted(appended.text, ['/work/p'])).toBe(true);
    expect(planCodexConfig(appended.text, CONFIG, opts)).toMatchObject({ changed: false, projectTrusted: 'already' });
    const untrusted = '[projects."/work/p"]\ntrust_level = "untrusted" # was asked\n';
    expect(planCodexConfig(untrusted, CONFIG, opts).text).toBe('[projects."/work/p"]\ntrust_level = "trusted" # was asked\n');
    const bare = '[projects."/work/p"]\nnote = 1\n\n[x]\ny = 2\n';
    expect(planCodexConfig(bare, CONFIG, opts).text).toBe('[projects."/work/p"]\ntrust_level = "trusted"\nnote = 1\n\n[x]\ny = 2\n');
    expect(planCodexConfig('[projects."/real/p"]\ntrust_level = "trusted"\n', CONFIG, { ...opts, projectAliases: ['/real/p'] }).projectTrusted).toBe('already');
  });

  it('refuses an invalid config.toml with where, and a shape it cannot extend', () => {
    const bad = planCodexConfig('a = 1\nb = = 2\n', CONFIG, { add: [{ key: 'k', hash: 'h', event: 'Stop' }], isOurs: () => false, renames: new Map() });
    expect(bad.ok).toBe(false);
    expect(bad.diagnostics[0]).toMatchObject({ code: 'codex/toml-syntax', span: { file: CONFIG, start: { line: 2 } } });
    const inline = '[hooks]\nstate = { "x" = { trusted_hash = "a" } }\n';
    const r = planCodexConfig(inline, CONFIG, { add: [{ key: 'k', hash: 'h', event: 'Stop' }], isOurs: () => false, renames: new Map() });
    expect(r.ok).toBe(false);
    expect(r.text).toBe(inline);
    expect(r.diagnostics[0]).toMatchObject({ code: 'install/config-edit' });
    expect(r.diagnostics[0]!.help).toContain('[hooks.state."k"]\ntrusted_hash = "h"');
    expect(planCodexConfig('hooks = 1\n', CONFIG, { add: [], isOurs: () => false, renames: new Map() }).diagnostics[0]).toMatchObject({ code: 'install/not-a-table' });
  });

  it('quotes keys so that any path survives, and keeps CRLF line ends', () => {
    const key = 'C:\\Users\\"q"\\hooks.json:stop:0:0\u0001';
    expect((parse(`${tomlString(key)} = 1`) as Record<string, number>)[key]).toBe(1);
    const crlf = 'model = "x"\r\n';
    const r = planCodexConfig(crlf, CONFIG, { add: [{ key, hash: 'sha256:1', event: 'Stop' }], isOurs: () => false, renames: new Map() });
    expect(r.ok).toBe(true);
    expect(r.text).toBe(`model = "x"\r\n\r\n[hooks.state.${tomlString(key)}]\r\ntrusted_hash = "sha256:1"\r\n`);
    const back = planCodexConfig(r.text, CONFIG, { add: [], isOurs: (k) => k === key, renames: new Map() });
    expect(back.text).toBe(crlf);
  });

  it('reads the states and whether hooks are turned off', () => {
    expect(codexHooksDisabled('[features]\nhooks = false\n', CONFIG)).toMatchObject({ code: 'install/hooks-disabled', severity: 'warning', span: { start: { line: 2 } } });
    expect(codexHooksDisabled('[features]\ncodex_hooks = false\n', CONFIG)).toMatchObject({ code: 'install/hooks-disabled' });
    expect(codexHooksDisabled('[features]\nhooks = true\n', CONFIG)).toBeUndefined();
    expect(codexHooksDisabled(undefined, CONFIG)).toBeUndefined();
    expect([...codexHookStates('[hooks.state]\n" k " = { trusted_hash = "h", enabled = false }\n"x" = 1\n')]).toEqual([['k', { trustedHash: 'h', enabled: false }]]);
    expect(codexHookStates('not toml =').size).toBe(0);
  });
});
