import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HooksConfig } from '../config.js';
import { loadClaudeProject, localSettingsRoot } from './index.js';

let root: string;
let home: string;
let project: string;

function write(path: string, value: unknown): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

function hooks(event: string, command: string, matcher?: string): unknown {
  return { hooks: { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command }] }] } };
}

function commands(c: HooksConfig): string[] {
  return c.groups.flatMap((g) => g.hooks.map((h) => `${g.layer}:${h.command}`));
}

const userFile = () => join(home, '.claude', 'settings.json');
const projectFile = () => join(project, '.claude', 'settings.json');
const localFile = () => join(project, '.claude', 'settings.local.json');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dsh-claude-'));
  home = join(root, 'home');
  project = join(root, 'work', 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('claude project: layers', () => {
  it('reads nothing when there are no files', () => {
    expect(loadClaudeProject({ projectDir: project, home })).toEqual({ agent: 'claude', groups: [], disabled: false, files: [], diagnostics: [] });
  });

  it('merges every layer in order, concatenating hooks', () => {
    const managed = write(join(root, 'etc', 'managed-settings.json'), hooks('PreToolUse', 'managed', 'Bash'));
    write(join(root, 'etc', 'managed-settings.d', '20-b.json'), hooks('PreToolUse', 'dropin-b'));
    write(join(root, 'etc', 'managed-settings.d', '10-a.json'), hooks('PreToolUse', 'dropin-a'));
    write(join(root, 'etc', 'managed-settings.d', 'notes.txt'), 'not json');
    write(userFile(), hooks('PreToolUse', 'user'));
    write(projectFile(), hooks('PreToolUse', 'project'));
    write(localFile(), hooks('Stop', 'local'));
    const cli = write(join(root, 'cli.json'), hooks('Stop', 'cli'));
    const c = loadClaudeProject({ projectDir: project, home, managedFile: managed, cliSettings: cli });
    expect(commands(c)).toEqual(['managed:managed', 'managed:dropin-a', 'managed:dropin-b', 'user:user', 'project:project', 'local:local', 'cli:cli']);
    expect(c.files).toEqual([
      managed,
      join(root, 'etc', 'managed-settings.d', '10-a.json'),
      join(root, 'etc', 'managed-settings.d', '20-b.json'),
      userFile(),
      projectFile(),
      localFile(),
      cli,
    ]);
    expect(c.groups[3]!.source).toMatchObject({ file: userFile(), pointer: '/hooks/PreToolUse/0' });
    expect(c.diagnostics).toEqual([]);
  });

  it('honours CLAUDE_CONFIG_DIR and --settings given as JSON text', () => {
    const config = join(root, 'cfg');
    write(join(config, 'settings.json'), hooks('Stop', 'from-config-dir'));
    write(userFile(), hooks('Stop', 'not-read'));
    const c = loadClaudeProject({ projectDir: project, home, configDir: config, cliSettings: JSON.stringify(hooks('Stop', 'inline')) });
    expect(commands(c)).toEqual(['user:from-config-dir', 'cli:inline']);
    expect(c.files).toEqual([join(config, 'settings.json'), '--settings']);
  });

  it('reads the user file once when the project is the home directory', () => {
    write(userFile(), hooks('Stop', 'user'));
    const c = loadClaudeProject({ projectDir: home, home });
    expect(commands(c)).toEqual(['user:user']);
  });

  it('reads the local file at the git root', () => {
    mkdirSync(join(root, 'work', '.git'), { recursive: true });
    write(join(root, 'work', '.claude', 'settings.local.json'), hooks('Stop', 'git-root-local'));
    write(localFile(), hooks('Stop', 'start-dir-local'));
    expect(localSettingsRoot(project, home)).toBe(join(root, 'work'));
    expect(commands(loadClaudeProject({ projectDir: project, home }))).toEqual(['local:git-root-local']);
  });

  it('does not treat a home directory repository as the git root', () => {
    const inHome = join(home, 'code');
    mkdirSync(join(home, '.git'), { recursive: true });
    mkdirSync(inHome, { recursive: true });
    expect(localSettingsRoot(inHome, home)).toBe(inHome);
  });

  it('keeps loading other layers when one is broken or unreadable', () => {
    write(userFile(), '{"hooks": {"Stop": [ // no\n]}}');
    mkdirSync(projectFile(), { recursive: true });
    write(localFile(), hooks('Stop', 'local'));
    const c = loadClaudeProject({ projectDir: project, home });
    expect(commands(c)).toEqual(['local:local']);
    expect(c.diagnostics.map((d) => [d.code, d.severity, d.span?.file])).toEqual([
      ['claude/json-syntax', 'error', userFile()],
      ['claude/unreadable', 'warning', undefined],
    ]);
    expect(c.files).toEqual([userFile(), localFile()]);
  });

  it('notes identical handlers across settings files but not against plugins', () => {
    const plugin = join(root, 'plugins', 'p');
    write(join(plugin, 'hooks', 'hooks.json'), hooks('PreToolUse', 'same', 'Bash'));
    write(userFile(), hooks('PreToolUse', 'same', 'Bash'));
    write(projectFile(), hooks('PreToolUse', 'same', 'Bash'));
    const c = loadClaudeProject({ projectDir: project, home, plugins: [{ root: plugin }] });
    expect(commands(c)).toEqual(['user:same', 'project:same', 'plugin:same']);
    expect(c.diagnostics).toEqual([
      expect.objectContaining({ code: 'claude/duplicate-handler', severity: 'info', pointer: '/hooks/PreToolUse/0/hooks/0', span: expect.objectContaining({ file: projectFile() }) }),
    ]);
  });
});

describe('claude project: disableAllHooks and allowManagedHooksOnly', () => {
  const setup = (extra: { managed?: object; user?: object; project?: object; local?: object }): HooksConfig => {
    const managed = write(join(root, 'etc', 'managed-settings.json'), { ...(hooks('Stop', 'managed') as object), ...extra.managed });
    write(userFile(), { ...(hooks('Stop', 'user') as object), ...extra.user });
    write(projectFile(), { ...(hooks('Stop', 'project') as object), ...extra.project });
    write(localFile(), { ...(hooks('Stop', 'local') as object), ...extra.local });
    const forced = join(root, 'plugins', 'forced');
    const other = join(root, 'plugins', 'other');
    write(join(forced, 'hooks', 'hooks.json'), hooks('Stop', 'forced'));
    write(join(other, 'hooks', 'hooks.json'), hooks('Stop', 'other'));
    return loadClaudeProject({
      projectDir: project,
      home,
      managedFile: managed,
      plugins: [{ root: forced, id: 'forced@market' }, { root: other, id: 'other@market' }],
    });
  };
  const all = ['managed:managed', 'user:user', 'project:project', 'local:local', 'plugin:forced', 'plugin:other'];

  it('runs everything by default', () => {
    const c = setup({ managed: { enabledPlugins: { 'forced@market': true } }, user: { enabledPlugins: { 'other@market': true } } });
    expect(commands(c)).toEqual(all);
    expect(c.disabled).toBe(false);
  });

  it('a user true turns off all but managed and force-enabled plugins', () => {
    const c = setup({ managed: { enabledPlugins: { 'forced@market': true } }, user: { disableAllHooks: true } });
    expect(commands(c)).toEqual(['managed:managed', 'plugin:forced']);
    expect(c.disabled).toBe(true);
    expect(c.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'claude/hooks-disabled', pointer: '/disableAllHooks', span: expect.objectContaining({ file: userFile() }), message: '`disableAllHooks` turns off user, project, local and plugin hooks (4 groups)' }),
    );
  });

  it('a project false overrides a user true', () => {
    const c = setup({ user: { disableAllHooks: true }, project: { disableAllHooks: false } });
    expect(commands(c)).toEqual(all);
    expect(c.disabled).toBe(false);
  });

  it('a local true overrides a project false', () => {
    const c = setup({ project: { disableAllHooks: false }, local: { disableAllHooks: true } });
    expect(commands(c)).toEqual(['managed:managed']);
    expect(c.disabled).toBe(true);
  });

  it('a managed true turns off every hook, managed ones included', () => {
    const c = setup({ managed: { disableAllHooks: true, enabledPlugins: { 'forced@market': true } }, project: { disableAllHooks: false } });
    expect(commands(c)).toEqual([]);
    expect(c.disabled).toBe(true);
  });

  it('a managed false wins over a local true', () => {
    const c = setup({ managed: { disableAllHooks: false }, local: { disableAllHooks: true } });
    expect(commands(c)).toEqual(all);
  });

  it('allowManagedHooksOnly keeps managed hooks and force-enabled plugins', () => {
    const c = setup({ managed: { allowManagedHooksOnly: true, enabledPlugins: { 'forced@market': true } } });
    expect(commands(c)).toEqual(['managed:managed', 'plugin:forced']);
    expect(c.disabled).toBe(false);
    expect(c.diagnostics).toContainEqual(expect.objectContaining({ code: 'claude/hooks-disabled', message: '`allowManagedHooksOnly` turns off 4 groups that are not from managed settings' }));
  });

  it('an invalid allowManagedHooksOnly counts as true', () => {
    const c = setup({ managed: { allowManagedHooksOnly: 'yes' } });
    expect(commands(c)).toEqual(['managed:managed']);
    expect(c.diagnostics).toContainEqual(expect.objectContaining({ code: 'claude/bad-setting', severity: 'warning' }));
  });

  it('allowManagedHooksOnly outside managed settings does nothing', () => {
    const c = setup({ project: { allowManagedHooksOnly: true } });
    expect(commands(c)).toEqual(all);
    expect(c.diagnostics).toContainEqual(expect.objectContaining({ code: 'claude/managed-only', span: expect.objectContaining({ file: projectFile() }) }));
  });
});

describe('claude project: allowedHttpHookUrls', () => {
  it('merges the lists of every layer and applies them to every source', () => {
    const http = (url: string) => ({ hooks: { Stop: [{ hooks: [{ type: 'http', url }] }] } });
    const plugin = join(root, 'plugins', 'p');
    write(join(plugin, 'hooks', 'hooks.json'), http('https://plugin.example/h'));
    write(userFile(), { ...http('https://user.example/h'), allowedHttpHookUrls: ['https://user.example/*'] });
    write(projectFile(), { ...http('https://project.example/h'), allowedHttpHookUrls: ['https://project.example/*'] });
    write(localFile(), http('https://local.example/h'));
    const c = loadClaudeProject({ projectDir: project, home, plugins: [{ root: plugin }] });
    expect(c.groups.flatMap((g) => g.hooks.map((h) => h.url))).toEqual(['https://user.example/h', 'https://project.example/h']);
    expect(c.diagnostics.map((d) => [d.code, d.span?.file])).toEqual([
      ['claude/http-hook-blocked', localFile()],
      ['claude/http-hook-blocked', join(plugin, 'hooks', 'hooks.json')],
    ]);
  });
});

describe('claude project: plugins', () => {
  it('loads hooks/hooks.json and the files plugin.json lists, tagged with the plugin root', () => {
    const plugin = join(root, 'plugins', 'p');
    write(join(plugin, 'hooks', 'hooks.json'), hooks('PreToolUse', 'default', 'Bash'));
    write(join(plugin, '.claude-plugin', 'plugin.json'), { name: 'p', hooks: ['./more/extra.json'] });
    write(join(plugin, 'more', 'extra.json'), hooks('Stop', 'extra'));
    const c = loadClaudeProject({ projectDir: project, home, plugins: [{ root: plugin, id: 'p@m' }] });
    expect(c.groups).toMatchObject([
      { event: 'PreToolUse', layer: 'plugin', pluginRoot: plugin, source: { file: join(plugin, 'hooks', 'hooks.json') } },
      { event: 'Stop', layer: 'plugin', pluginRoot: plugin, source: { file: join(plugin, 'more', 'extra.json') } },
    ]);
    expect(c.files).toEqual([join(plugin, 'hooks', 'hooks.json'), join(plugin, '.claude-plugin', 'plugin.json'), join(plugin, 'more', 'extra.json')]);
    expect(c.diagnostics).toEqual([]);
  });

  it('reports the default hooks file listed again in plugin.json', () => {
    const plugin = join(root, 'plugins', 'p');
    write(join(plugin, 'hooks', 'hooks.json'), hooks('Stop', 'default'));
    write(join(plugin, '.claude-plugin', 'plugin.json'), { name: 'p', hooks: './hooks/hooks.json' });
    const c = loadClaudeProject({ projectDir: project, home, plugins: [{ root: plugin }] });
    expect(commands(c)).toEqual(['plugin:default']);
    expect(c.diagnostics.map((d) => d.code)).toEqual(['claude/duplicate-hooks-file']);
  });

  it('notes enabled plugins it was not given', () => {
    write(userFile(), { enabledPlugins: { 'a@m': true, 'b@m': true, 'c@m': false } });
    write(projectFile(), { enabledPlugins: { 'b@m': false } });
    const c = loadClaudeProject({ projectDir: project, home, plugins: [] });
    expect(c.diagnostics).toEqual([
      expect.objectContaining({ code: 'claude/plugin-not-loaded', severity: 'info', pointer: '/enabledPlugins/a@m', message: 'enabled plugin `a@m` is not loaded, so its hooks are not included' }),
    ]);
  });

  it('never throws on odd options', () => {
    const c = loadClaudeProject({ projectDir: join(root, 'missing'), home: join(root, 'nohome'), managedFile: join(root, 'none.json'), plugins: [{ root: join(root, 'nope') }] });
    expect(c).toEqual({ agent: 'claude', groups: [], disabled: false, files: [], diagnostics: [] });
  });
});
