import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codexHookHash, loadCodexProject } from './index.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'codex-layers-')));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const hooksJson = (event: string, ...commands: string[]) =>
  JSON.stringify({ hooks: { [event]: [{ hooks: commands.map((command) => ({ type: 'command', command })) }] } });

/** A `[hooks.state]` entry trusting the hook as it is written. */
function trusted(file: string, event: string, label: string, command: string, g = 0, h = 0, extra = ''): string {
  return `"${file}:${label}:${g}:${h}" = { trusted_hash = "${codexHookHash({ event, command })}"${extra} }\n`;
}

const commands = (c: ReturnType<typeof loadCodexProject>) => c.groups.flatMap((g) => g.hooks.map((h) => `${g.layer}:${h.command}`));
const codes = (c: ReturnType<typeof loadCodexProject>) => c.diagnostics.map((d) => d.code);

describe('loadCodexProject', () => {
  it('loads nothing, quietly, when there is nothing', () => {
    const root = tree({ 'proj/README': '' });
    const c = loadCodexProject({ projectDir: join(root, 'proj'), home: join(root, 'home') });
    expect(c).toEqual({ agent: 'codex', groups: [], disabled: false, files: [], diagnostics: [] });
  });

  it('runs only trusted user hooks, and says why the others are skipped', () => {
    const root = tree({ 'home/.codex/hooks.json': hooksJson('Stop', 'a', 'b') });
    const home = join(root, 'home');
    const json = join(home, '.codex/hooks.json');
    writeFileSync(join(home, '.codex/config.toml'), `[hooks.state]\n${trusted(json, 'Stop', 'stop', 'a')}"${json}:stop:9:9" = { enabled = true }\n`);
    const c = loadCodexProject({ projectDir: join(root, 'proj'), home });
    expect(commands(c)).toEqual(['user:a']);
    expect(c.files).toEqual([json, join(home, '.codex/config.toml')]);
    const untrusted = c.diagnostics.find((d) => d.code === 'codex/untrusted-hook')!;
    expect(untrusted).toMatchObject({ severity: 'warning', pointer: '/hooks/Stop/0/hooks/1', span: { file: json } });
    expect(untrusted.help).toContain(`"${json}:stop:0:1" = { trusted_hash = "${codexHookHash({ event: 'Stop', command: 'b' })}" }`);
    expect(c.diagnostics.find((d) => d.code === 'codex/stale-state')).toMatchObject({ severity: 'info', span: { file: join(home, '.codex/config.toml'), start: { line: 3 } } });
  });

  it('skips a hook that changed since it was trusted, and a disabled one even when trust is bypassed', () => {
    const root = tree({ 'home/.codex/hooks.json': hooksJson('Stop', 'new', 'off') });
    const home = join(root, 'home');
    const json = join(home, '.codex/hooks.json');
    writeFileSync(join(home, '.codex/config.toml'), `[hooks.state]\n${trusted(json, 'Stop', 'stop', 'old')}${trusted(json, 'Stop', 'stop', 'off', 0, 1, ', enabled = false')}`);
    const c = loadCodexProject({ projectDir: root, home });
    expect(commands(c)).toEqual([]);
    expect(codes(c)).toEqual(['codex/modified-hook', 'codex/disabled-hook']);
    const bypassed = loadCodexProject({ projectDir: root, home, bypassTrust: true });
    expect(commands(bypassed)).toEqual(['user:new']);
    expect(codes(bypassed)).toEqual(['codex/disabled-hook', 'codex/trust-bypassed']);
  });

  it('uses $CODEX_HOME when given', () => {
    const root = tree({ 'ch/hooks.json': hooksJson('Stop', 'x'), 'home/.codex/hooks.json': hooksJson('Stop', 'not me') });
    const c = loadCodexProject({ projectDir: root, home: join(root, 'home'), codexHome: join(root, 'ch'), bypassTrust: true });
    expect(commands(c)).toEqual(['user:x']);
  });

  it('loads hooks.json before the [hooks] table, and warns that both are used', () => {
    const root = tree({
      'home/.codex/hooks.json': hooksJson('Stop', 'from-json'),
      'home/.codex/config.toml': '[[hooks.Stop]]\nhooks = [{ type = "command", command = "from-toml" }]\n',
    });
    const c = loadCodexProject({ projectDir: root, home: join(root, 'home'), bypassTrust: true });
    expect(commands(c)).toEqual(['user:from-json', 'user:from-toml']);
    expect(c.diagnostics.find((d) => d.code === 'codex/both-representations')).toMatchObject({ severity: 'warning', span: { file: join(root, 'home/.codex/config.toml') } });
  });

  it('skips the hooks of an untrusted project with a warning', () => {
    const root = tree({ 'proj/.codex/hooks.json': hooksJson('PreToolUse', 'p'), 'proj/.git/HEAD': '' });
    const c = loadCodexProject({ projectDir: join(root, 'proj'), home: join(root, 'home'), bypassTrust: true });
    expect(commands(c)).toEqual([]);
    expect(c.diagnostics).toMatchObject([{ code: 'codex/untrusted-project', severity: 'warning', pointer: '', span: { file: join(root, 'proj/.codex/hooks.json') } }]);
    expect(c.diagnostics[0]!.help).toContain(`[projects."${join(root, 'proj')}"]`);
    expect(c.files).toEqual([join(root, 'proj/.codex/hooks.json')]);
  });

  it('loads a project trusted in the user config after the user layer, without dedup', () => {
    const root = tree({ 'proj/.codex/hooks.json': hooksJson('Stop', 'same'), 'home/.codex/hooks.json': hooksJson('Stop', 'same') });
    const home = join(root, 'home');
    const proj = join(root, 'proj');
    const userJson = join(home, '.codex/hooks.json');
    const projJson = join(proj, '.codex/hooks.json');
    writeFileSync(
      join(home, '.codex/config.toml'),
      `[projects."${proj}"]\ntrust_level = "trusted"\n\n[hooks.state]\n${trusted(userJson, 'Stop', 'stop', 'same')}${trusted(projJson, 'Stop', 'stop', 'same')}`,
    );
    const c = loadCodexProject({ projectDir: proj, home });
    expect(commands(c)).toEqual(['user:same', 'project:same']);
    expect(c.diagnostics).toEqual([]);
    expect(c.groups[1]!.source.file).toBe(projJson);
  });

  it('honours an explicit trust decision either way', () => {
    const root = tree({ 'proj/.codex/config.toml': '[[hooks.Stop]]\nhooks = [{ type = "command", command = "p" }]\n' });
    const proj = join(root, 'proj');
    mkdirSync(join(root, 'home/.codex'), { recursive: true });
    writeFileSync(join(root, 'home/.codex/config.toml'), `[projects."${proj}"]\ntrust_level = "untrusted"\n`);
    expect(commands(loadCodexProject({ projectDir: proj, home: join(root, 'home'), bypassTrust: true }))).toEqual([]);
    expect(commands(loadCodexProject({ projectDir: proj, home: join(root, 'home'), bypassTrust: true, trustProject: true }))).toEqual(['project:p']);
  });

  it('walks from the repository root down to the working directory', () => {
    const root = tree({
      'repo/.git/HEAD': '',
      'repo/.codex/hooks.json': hooksJson('Stop', 'root'),
      'repo/pkg/.codex/hooks.json': hooksJson('Stop', 'pkg'),
      'repo/pkg/src/.keep': '',
    });
    const c = loadCodexProject({ projectDir: join(root, 'repo/pkg/src'), home: join(root, 'home'), trustProject: true, bypassTrust: true });
    expect(commands(c)).toEqual(['project:root', 'project:pkg']);
  });

  it('does not read $CODEX_HOME twice when it is the project folder', () => {
    const root = tree({ 'home/.codex/hooks.json': hooksJson('Stop', 'once') });
    const c = loadCodexProject({ projectDir: join(root, 'home'), home: join(root, 'home'), trustProject: true, bypassTrust: true });
    expect(commands(c)).toEqual(['user:once']);
  });

  it('ignores [hooks.state] outside the user config, and says so', () => {
    const root = tree({ 'proj/.codex/hooks.json': hooksJson('Stop', 'p') });
    const proj = join(root, 'proj');
    const projJson = join(proj, '.codex/hooks.json');
    writeFileSync(join(proj, '.codex/config.toml'), `[hooks.state]\n${trusted(projJson, 'Stop', 'stop', 'p')}`);
    const c = loadCodexProject({ projectDir: proj, home: join(root, 'home'), trustProject: true });
    expect(commands(c)).toEqual([]);
    expect(codes(c)).toEqual(['codex/state-ignored', 'codex/untrusted-hook']);
    expect(c.diagnostics[0]).toMatchObject({ span: { file: join(proj, '.codex/config.toml'), start: { line: 2 } } });
  });

  it('runs managed system hooks first and without review', () => {
    const root = tree({ 'etc/codex/hooks.json': hooksJson('PreToolUse', 'managed'), 'home/.codex/hooks.json': hooksJson('PreToolUse', 'user') });
    const c = loadCodexProject({ projectDir: root, home: join(root, 'home'), systemDir: join(root, 'etc/codex') });
    expect(commands(c)).toEqual(['managed:managed']);
    expect(codes(c)).toEqual(['codex/untrusted-hook']);
  });

  it('lets the highest layer that sets features.hooks decide', () => {
    const root = tree({
      'home/.codex/config.toml': '[features]\nhooks = false\n',
      'proj/.codex/config.toml': '[features]\nhooks = true\n',
    });
    const args = { projectDir: join(root, 'proj'), home: join(root, 'home') };
    expect(loadCodexProject(args).disabled).toBe(true);
    expect(loadCodexProject({ ...args, trustProject: true }).disabled).toBe(false);
  });

  it('keeps going past a broken file', () => {
    const root = tree({
      'home/.codex/hooks.json': '{"hooks": {',
      'home/.codex/config.toml': '[[hooks.Stop]]\nhooks = [{ type = "command", command = "ok" }]\n',
    });
    const c = loadCodexProject({ projectDir: root, home: join(root, 'home'), bypassTrust: true });
    expect(commands(c)).toEqual(['user:ok']);
    expect(c.diagnostics.filter((d) => d.severity === 'error')).toMatchObject([{ code: 'codex/json-syntax', span: { file: join(root, 'home/.codex/hooks.json') } }]);
  });

  it('never throws on odd paths', () => {
    expect(() => loadCodexProject({ projectDir: '\0bad', home: '' })).not.toThrow();
    const root = tree({ 'home/.codex/hooks.json/inner': 'a directory named hooks.json' });
    expect(loadCodexProject({ projectDir: root, home: join(root, 'home') }).diagnostics).toEqual([]);
  });
});
