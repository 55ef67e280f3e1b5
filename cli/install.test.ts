import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough, Readable } from 'node:stream';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { hookCommandLine, loadClaudeHooksText, loadCodexProject, NOT_INSTALLED, projectHookCommand, projectHookScript, shellQuote } from '../bridges/index.js';
import { UsageError } from './args.js';
import { installCommand, uninstallCommand, type InstallContext } from './install.js';
import { scratch } from './testkit.js';

const POLICY = `
on pre-tool {
  deny Bash command "rm -rf *" because "never delete recursively"
}
on stop {
  continue when not ran Bash command "npm test *" because "run the tests before you finish"
}
`;
const PROMPT_POLICY = `
on prompt {
  block when prompt contains "BEGIN RSA PRIVATE KEY" because "no keys in prompts"
}
on session-start {
  context "Read CONTRIBUTING.md first."
}
`;

interface Run {
  code: number;
  out: string;
  err: string;
}

function runWith(cmd: typeof installCommand, argv: string[], ctx: InstallContext): Run {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = cmd(argv, { stdout, stderr, stdin: Readable.from(['']) }, ctx);
  // PassThrough delivers synchronously written data on the next read; drain it now.
  for (let c = stdout.read(); c !== null; c = stdout.read()) out += c.toString();
  for (let c = stderr.read(); c !== null; c = stderr.read()) err += c.toString();
  return { code, out, err };
}

/** The built CLI, which the team-install tests run as the agent's hook. */
const BUILT_CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.cjs');

/** What a project install writes on each event (here with no run hook: a 30 s handler, a 25 s deadline). */
const projectCommand = (agent: 'claude' | 'codex', policies: string[] = [], deadline = '25s') => projectHookCommand(agent, policies, ['--deadline', deadline]);

/**
 * A fresh world: a home, a project with a policy, a fake dshpolicy script that prints its
 * arguments (what a user install pins), and a fake `dshpolicy` on PATH doing the same (what a
 * project install finds).
 */
function world(policy = POLICY) {
  const s = scratch('dshpolicy-install-');
  const root = realpathSync(s.dir);
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(project, '.dshpolicy'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(project, '.dshpolicy', 'guard.dshpolicy'), policy);
  const bin = join(root, "dsh policy's bin");
  mkdirSync(bin);
  const script = join(bin, 'cli.mjs');
  writeFileSync(script, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');
  const path = join(root, 'path');
  mkdirSync(path);
  writeFileSync(join(path, 'dshpolicy'), `#!${process.execPath}\nprocess.stdout.write(JSON.stringify(process.argv.slice(2)));\n`);
  chmodSync(join(path, 'dshpolicy'), 0o755);
  const ctx: InstallContext = { env: { HOME: home, PATH: path }, cwd: project, execPath: process.execPath, script };
  const install = (...argv: string[]) => runWith(installCommand, argv, ctx);
  const uninstall = (...argv: string[]) => runWith(uninstallCommand, argv, ctx);
  const write = (path: string, text: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  return { root, home, project, script, path, ctx, install, uninstall, write };
}

const read = (p: string) => readFileSync(p, 'utf8');

/** What a shell runs for the command: its words, by running it (the fake dshpolicy and script print their argv). */
function runHookCommand(command: string, env: NodeJS.ProcessEnv = {}, cwd?: string): string[] {
  const r = spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8', env, ...(cwd ? { cwd } : {}) });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as string[];
}

/** Runs a hook command as the agent does: through a shell, in `cwd`, the payload on stdin. */
function asAgent(command: string, payload: object, env: NodeJS.ProcessEnv, cwd: string) {
  const r = spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8', env, cwd, input: JSON.stringify(payload) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('shell quoting', () => {
  it('quotes every word so that the shell gives it back unchanged', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    const words = ['/a b/node', "/x/it's/cli.js", '$HOME `x` "y" \\ *'];
    const cmd = hookCommandLine(words[0]!, words[1]!, 'claude', [words[2]!]);
    expect(cmd).toBe(`'/a b/node' '/x/it'\\''s/cli.js' hook claude --policy '$HOME \`x\` "y" \\ *'`);
    const r = spawnSync('/bin/sh', ['-c', `printf '%s\\n' ${cmd}`], { encoding: 'utf8' });
    expect(r.stdout).toBe(`${words[0]}\n${words[1]}\nhook\nclaude\n--policy\n${words[2]}\n`);
  });
});

describe('dshpolicy install claude', () => {
  it('wires into the project settings a command that finds dshpolicy on each machine, for the events the policy uses', () => {
    const w = world();
    const r = w.install('claude', '--format', 'json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const settings = join(w.project, '.claude', 'settings.json');
    const json = JSON.parse(r.out);
    const command = projectCommand('claude');
    expect(json).toMatchObject({ ok: true, scope: 'project', file: settings, changed: true, created: true, events: ['PreToolUse', 'Stop'], command, timeout: 30, deadline: 25, diagnostics: [] });
    expect(json.backup).toBeUndefined();
    const doc = JSON.parse(read(settings));
    expect(doc).toEqual({
      hooks: {
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `${command} PreToolUse`, timeout: 30, statusMessage: 'dshpolicy' }] }],
        Stop: [{ hooks: [{ type: 'command', command: `${command} Stop`, timeout: 30, statusMessage: 'dshpolicy' }] }],
      },
    });
    // No path of this machine in the committed file.
    expect(read(settings)).not.toContain(w.root);
    expect(read(settings)).not.toContain(process.execPath);
    // Claude Code would run dshpolicy from PATH, `hook claude` with the deadline (the hook finds the project's policy itself).
    expect(runHookCommand(`${command} PreToolUse`, { PATH: w.path, CLAUDE_PROJECT_DIR: w.project })).toEqual(['hook', 'claude', '--deadline', '25s']);
    expect(loadClaudeHooksText(read(settings), settings).diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);

    const again = w.install('claude', '--format', 'json');
    expect(JSON.parse(again.out)).toMatchObject({ ok: true, changed: false });
    expect(read(settings)).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    expect(existsSync(`${settings}.dshpolicy-backup`)).toBe(false);
    expect(w.install('claude').out).toContain('already installed');
  });

  it('keeps the rest of an existing file, backs it up once, replaces only its own entries, and uninstalls back to the original', () => {
    const w = world();
    const settings = join(w.project, '.claude', 'settings.json');
    const original = `{
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh" }] }
    ]
  }
}
`;
    w.write(settings, original);
    const policy = w.write(join(w.root, "it's a policy.dshpolicy"), PROMPT_POLICY);

    const first = w.install('claude');
    expect(first.code).toBe(0);
    expect(first.out).toContain('installed the dshpolicy hook for claude code');
    expect(first.out).toContain(`backup:  ${settings}.dshpolicy-backup`);
    expect(read(`${settings}.dshpolicy-backup`)).toBe(original);
    expect(read(settings)).toContain('{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh" }] }');

    // Another policy set: our entries are replaced, the user's stay, the backup is still the original.
    const second = w.install('claude', '--policy', policy, '--format', 'json');
    const json = JSON.parse(second.out);
    expect(json).toMatchObject({ changed: true, events: ['SessionStart', 'UserPromptSubmit'], policies: [policy], backup: `${settings}.dshpolicy-backup` });
    // The policy is outside the project: named by this machine's path, and said so.
    expect(json.diagnostics.map((d: { code: string }) => d.code)).toEqual(['install/machine-path']);
    const doc = JSON.parse(read(settings));
    expect(Object.keys(doc.hooks)).toEqual(['PreToolUse', 'SessionStart', 'UserPromptSubmit']);
    expect(doc.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }]);
    expect(runHookCommand(doc.hooks.UserPromptSubmit[0].hooks[0].command, { PATH: w.path, CLAUDE_PROJECT_DIR: w.project })).toEqual(['hook', 'claude', '--deadline', '25s', '--policy', policy]);
    expect(read(`${settings}.dshpolicy-backup`)).toBe(original);

    const gone = w.uninstall('claude');
    expect(gone.code).toBe(0);
    expect(gone.out).toContain('removed the dshpolicy hook');
    expect(read(settings)).toBe(original);
    expect(read(`${settings}.dshpolicy-backup`)).toBe(original);
    expect(w.uninstall('claude').out).toContain('nothing to remove');
  });

  it('prints a diff and writes nothing with --dry-run', () => {
    const w = world();
    const settings = w.write(join(w.project, '.claude', 'settings.json'), '{\n  "model": "opus"\n}\n');
    const r = w.install('claude', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`--- ${settings}\n+++ ${settings}\n@@ -1,3 +1,30 @@\n {\n-  "model": "opus"\n+  "model": "opus",\n+  "hooks": {\n`);
    expect(r.out).toContain('would install');
    expect(r.out).toContain('dry run: nothing was written');
    expect(read(settings)).toBe('{\n  "model": "opus"\n}\n');
    expect(existsSync(`${settings}.dshpolicy-backup`)).toBe(false);
    const json = JSON.parse(w.install('claude', '--dry-run', '--format', 'json').out);
    expect(json).toMatchObject({ ok: true, changed: true, dryRun: true });
    expect(json.diff).toContain('+        "matcher": "*",');
    w.install('claude');
    expect(w.uninstall('claude', '--dry-run').out).toContain('-  "hooks": {');
    expect(read(settings)).toContain('dshpolicy');
  });

  it('refuses a settings file that is not valid JSON, saying where, and never writes it', () => {
    const w = world();
    const settings = w.write(join(w.project, '.claude', 'settings.json'), '{\n  "model": "opus",,\n}\n');
    const r = w.install('claude');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain(`--> ${settings}:2:19`);
    expect(r.err).toContain('refused');
    expect(read(settings)).toBe('{\n  "model": "opus",,\n}\n');
    expect(existsSync(`${settings}.dshpolicy-backup`)).toBe(false);
    const json = JSON.parse(w.install('claude', '--format', 'json').out);
    expect(json.ok).toBe(false);
    expect(json.diagnostics[0]).toMatchObject({ code: 'claude/json-syntax', span: { file: settings, start: { line: 2 } } });
    expect(w.uninstall('claude').code).toBe(1);
  });

  it('refuses a policy that does not compile, and a project without a policy', () => {
    const w = world('on pre-tool {\n  deny Bash command "rm *" because\n}\n');
    const r = w.install('claude');
    expect(r.code).toBe(1);
    expect(r.err).toContain('guard.dshpolicy:3:');
    expect(r.err).toContain('install/policy-errors');
    expect(existsSync(join(w.project, '.claude'))).toBe(false);

    const empty = world();
    const bare = join(empty.root, 'bare');
    mkdirSync(bare);
    const none = runWith(installCommand, ['claude', '--project', bare, '--format', 'json'], empty.ctx);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.out).diagnostics[0]).toMatchObject({ code: 'install/no-policy' });
    // A sub-directory uses the nearest .dshpolicy/ above it, as the hook does.
    const sub = join(empty.project, 'src');
    mkdirSync(sub);
    const nested = runWith(installCommand, ['claude', '--project', sub, '--format', 'json'], empty.ctx);
    expect(JSON.parse(nested.out)).toMatchObject({ ok: true, file: join(sub, '.claude', 'settings.json'), events: ['PreToolUse', 'Stop'] });
  });

  it('refuses a policy that imports the file the hook is installed in', () => {
    const w = world(`import claude hooks "../.claude/settings.json"\n${POLICY}`);
    w.write(join(w.project, '.claude', 'settings.json'), '{"hooks": {}}\n');
    const r = w.install('claude', '--format', 'json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).diagnostics.at(-1)).toMatchObject({ code: 'install/imports-itself' });
    expect(read(join(w.project, '.claude', 'settings.json'))).toBe('{"hooks": {}}\n');
  });

  it('installs for the user in ~/.claude (or $CLAUDE_CONFIG_DIR), every seam event without --policy', () => {
    const w = world();
    const r = w.install('claude', '--user', '--format', 'json');
    const settings = join(w.home, '.claude', 'settings.json');
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, file: settings, policies: 'project', events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'] });
    expect(Object.keys(JSON.parse(read(settings)).hooks)).toHaveLength(5);
    const custom = join(w.root, 'claude-config');
    const c = runWith(installCommand, ['claude', '--user', '--format', 'json'], { ...w.ctx, env: { HOME: w.home, CLAUDE_CONFIG_DIR: custom } });
    expect(JSON.parse(c.out).file).toBe(join(custom, 'settings.json'));
    expect(existsSync(join(custom, 'settings.json'))).toBe(true);
    expect(JSON.parse(w.uninstall('claude', '--user', '--format', 'json').out)).toMatchObject({ changed: true, events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'] });
    expect(read(settings)).toBe('{}\n');
  });

  it('points events at `dshpolicy serve` with --http, except where claude code runs only commands', () => {
    const w = world(`${POLICY}${PROMPT_POLICY}`);
    const r = w.install('claude', '--http', 'http://127.0.0.1:8787/hook', '--format', 'json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(read(join(w.project, '.claude', 'settings.json')));
    // `dshpolicy serve` answers by its own deadline, which the agent's longest timeout fits.
    expect(doc.hooks.PreToolUse[0].hooks[0]).toEqual({ type: 'http', url: 'http://127.0.0.1:8787/hook', timeout: 600, statusMessage: 'dshpolicy' });
    expect(doc.hooks.SessionStart[0].hooks[0]).toMatchObject({ timeout: 30 });
    expect(doc.hooks.SessionStart[0].hooks[0]).toMatchObject({ type: 'command', statusMessage: 'dshpolicy' });
    expect(JSON.parse(r.out).diagnostics.map((d: { code: string }) => d.code)).toEqual(['install/command-fallback']);
    expect(() => w.install('claude', '--http', 'ftp://x')).toThrow(UsageError);
  });

  it('rejects bad usage', () => {
    const w = world();
    expect(() => w.install()).toThrow(/name the agent/);
    expect(() => w.install('cursor')).toThrow(/unknown agent/);
    expect(() => w.install('claude', '--user', '--project', '.')).toThrow(UsageError);
    expect(() => w.install('claude', '--trust')).toThrow(/codex/);
    expect(() => w.install('codex', '--http', 'http://x')).toThrow(/claude code only/);
    expect(() => w.install('claude', '--project', join(w.root, 'nope'))).toThrow(/not a directory/);
    expect(() => w.uninstall('claude', '--policy', 'x')).toThrow(/install/);
    expect(w.install('claude', '--help').out).toContain('usage: dshpolicy install');
  });
});

describe('dshpolicy install codex', () => {
  function codexWorld() {
    const w = world();
    const codexHome = join(w.root, 'codex-home');
    mkdirSync(codexHome);
    const ctx: InstallContext = { ...w.ctx, env: { HOME: w.home, CODEX_HOME: codexHome } };
    return {
      ...w,
      codexHome,
      config: join(codexHome, 'config.toml'),
      hooks: join(w.project, '.codex', 'hooks.json'),
      install: (...argv: string[]) => runWith(installCommand, argv, ctx),
      uninstall: (...argv: string[]) => runWith(uninstallCommand, argv, ctx),
      /** What Codex would run in the project, and what it says about the rest. */
      codex: () => loadCodexProject({ projectDir: w.project, home: w.home, codexHome }),
    };
  }

  it('without --trust, installs and prints the exact trust entries codex needs', () => {
    const w = codexWorld();
    const r = w.install('codex');
    expect(r.code).toBe(0);
    const command = projectCommand('codex');
    expect(JSON.parse(read(w.hooks)).hooks).toEqual({
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `${command} PreToolUse`, timeout: 30, statusMessage: 'dshpolicy' }] }],
      Stop: [{ hooks: [{ type: 'command', command: `${command} Stop`, timeout: 30, statusMessage: 'dshpolicy' }] }],
    });
    expect(runHookCommand(`${command} PreToolUse`, { PATH: w.path }, w.project)).toEqual(['hook', 'codex', '--deadline', '25s']);
    expect(existsSync(w.config)).toBe(false);
    expect(r.out).toContain(`add to ${w.config}:`);
    expect(r.out).toContain(`[projects."${w.project}"]\ntrust_level = "trusted"`);
    expect(r.out).toContain(`[hooks.state."${w.hooks}:pre_tool_use:0:0"]\ntrusted_hash = "sha256:`);
    // Codex indeed runs none of it yet.
    const before = w.codex();
    expect(before.groups).toEqual([]);
    expect(before.diagnostics.map((d) => d.code)).toContain('codex/untrusted-project');

    // Following the printed steps makes codex run our hooks.
    const steps = r.out.slice(r.out.indexOf('# the project')).split('\n(the hash')[0]!;
    writeFileSync(w.config, steps);
    const after = w.codex();
    expect(after.groups.map((g) => g.event)).toEqual(['PreToolUse', 'Stop']);
    expect(after.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    const json = JSON.parse(w.install('codex', '--format', 'json').out);
    expect(json).toMatchObject({ changed: false, trust: { written: false, project: { dir: w.project, trusted: true } } });
    expect(json.trust.entries.map((e: { trusted: boolean }) => e.trusted)).toEqual([true, true]);
    expect(w.install('codex').out).toContain('every dshpolicy hook is trusted');
  });

  it('with --trust, trusts the hooks and the project in config.toml, keeping the rest, and uninstall removes the hook trust', () => {
    const w = codexWorld();
    const original = '# mine\nmodel = "gpt-5.5"\n\n[tui]\ntheme = "dark"\n';
    writeFileSync(w.config, original);
    const r = w.install('codex', '--trust', '--format', 'json');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json).toMatchObject({ ok: true, changed: true, events: ['PreToolUse', 'Stop'], trust: { config: w.config, written: true, changed: true, project: { dir: w.project, trusted: true }, backup: `${w.config}.dshpolicy-backup` } });
    expect(json.trust.entries.map((e: { key: string }) => e.key)).toEqual([`${w.hooks}:pre_tool_use:0:0`, `${w.hooks}:stop:0:0`]);
    const config = read(w.config);
    expect(config.startsWith(original)).toBe(true);
    expect(read(`${w.config}.dshpolicy-backup`)).toBe(original);
    expect(parse(config)).toMatchObject({ model: 'gpt-5.5', tui: { theme: 'dark' }, projects: { [w.project]: { trust_level: 'trusted' } } });
    // Codex runs both, with nothing to say.
    const loaded = w.codex();
    expect(loaded.groups.map((g) => [g.event, g.hooks[0]!.statusMessage])).toEqual([
      ['PreToolUse', 'dshpolicy'],
      ['Stop', 'dshpolicy'],
    ]);
    expect(loaded.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);

    // Idempotent.
    const again = JSON.parse(w.install('codex', '--trust', '--format', 'json').out);
    expect(again).toMatchObject({ changed: false, trust: { changed: false } });
    expect(read(w.config)).toBe(config);

    // A new policy set: the hash changes, the old entries go, the new ones come.
    const policy = w.write(join(w.root, 'p.dshpolicy'), PROMPT_POLICY);
    const moved = JSON.parse(w.install('codex', '--trust', '--policy', policy, '--format', 'json').out);
    expect(moved.trust.removed.sort()).toEqual([`${w.hooks}:pre_tool_use:0:0`, `${w.hooks}:stop:0:0`]);
    expect(w.codex().groups.map((g) => g.event)).toEqual(['SessionStart', 'UserPromptSubmit']);
    expect(w.codex().diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);

    const gone = w.uninstall('codex', '--format', 'json');
    expect(JSON.parse(gone.out)).toMatchObject({ ok: true, changed: true, trust: { changed: true } });
    expect(read(w.config)).toBe(`${original}\n[projects."${w.project}"]\ntrust_level = "trusted"\n`);
    expect(JSON.parse(read(w.hooks))).toEqual({});
    expect(w.codex().groups).toEqual([]);
    expect(w.uninstall('codex').out).toContain('nothing to remove');
  });

  it('installs for the user in $CODEX_HOME, and refuses an unreadable config.toml under --trust', () => {
    const w = codexWorld();
    const r = w.install('codex', '--user', '--trust', '--format', 'json');
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, file: join(w.codexHome, 'hooks.json'), trust: { written: true } });
    expect(JSON.parse(r.out).trust.project).toBeUndefined();
    expect(Object.keys((parse(read(w.config)) as { hooks: { state: object } }).hooks.state)).toHaveLength(5);
    const home = loadCodexProject({ projectDir: join(w.root, 'elsewhere'), home: w.home, codexHome: w.codexHome });
    expect(home.groups).toHaveLength(5);
    expect(home.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);

    writeFileSync(w.config, 'model = \n');
    const bad = w.install('codex', '--user', '--trust', '--policy', w.write(join(w.root, 'p.dshpolicy'), PROMPT_POLICY));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`${w.config}:1:`);
    expect(read(w.config)).toBe('model = \n');
    expect(Object.keys(JSON.parse(read(join(w.codexHome, 'hooks.json'))).hooks)).toHaveLength(5);
    // Uninstalling still takes the hook out, and says the trust entries stayed.
    const gone = w.uninstall('codex', '--user', '--format', 'json');
    expect(gone.code).toBe(0);
    expect(JSON.parse(gone.out)).toMatchObject({ ok: true, changed: true, trust: { written: false } });
    expect(JSON.parse(gone.out).diagnostics.map((d: { code: string }) => d.code)).toEqual(['codex/toml-syntax', 'install/trust-left']);
    expect(JSON.parse(read(join(w.codexHome, 'hooks.json')))).toEqual({});
  });
});

describe('a project install works for a team', () => {
  const PRE = (cwd: string) => ({ session_id: 's', transcript_path: '', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, tool_use_id: 't' });
  const STOP = (cwd: string) => ({ session_id: 's', transcript_path: '', cwd, permission_mode: 'default', hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: '' });

  /** A directory holding only `node`, for a PATH with node and without dshpolicy. */
  function nodeOnly(root: string): string {
    const dir = join(root, 'node-only');
    mkdirSync(dir);
    symlinkSync(process.execPath, join(dir, 'node'));
    return dir;
  }

  it('runs dshpolicy from the project, PATH or DSHPOLICY_BIN, and blocks (exit 2, saying the fix) where there is none', () => {
    expect(existsSync(BUILT_CLI), `${BUILT_CLI} is missing: build first (npx tsup)`).toBe(true);
    const w = world();
    const r = w.install('claude', '--format', 'json');
    expect(r.code).toBe(0);
    const settings = JSON.parse(read(join(w.project, '.claude', 'settings.json')));
    const pre = settings.hooks.PreToolUse[0].hooks[0].command as string;
    const stop = settings.hooks.Stop[0].hooks[0].command as string;
    const node = nodeOnly(w.root);
    const base = { HOME: w.home, CLAUDE_PROJECT_DIR: w.project, DSHPOLICY_CACHE_DIR: join(w.root, 'cache') };

    // A teammate's machine without dshpolicy: the call is blocked, and the reason names the fix.
    const missing = asAgent(pre, PRE(w.project), { ...base, PATH: node }, w.project);
    expect(missing).toEqual({ status: 2, stdout: '', stderr: `${NOT_INSTALLED}\n` });
    expect(NOT_INSTALLED).toBe('dshpolicy is not installed: npm i -g dshpolicy (or npm i -D dshpolicy in the project, or set DSHPOLICY_BIN to its path)');
    // A stop is not held (exit 2 would make the agent go on, without end in Codex): the turn ends, saying why.
    const stopped = asAgent(stop, STOP(w.project), { ...base, PATH: node }, w.project);
    expect(stopped.status).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual({ continue: false, stopReason: NOT_INSTALLED });

    // With dshpolicy in the project's node_modules/.bin (npm i -D dshpolicy): the policy answers.
    const deny = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'never delete recursively' } };
    mkdirSync(join(w.project, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(BUILT_CLI, join(w.project, 'node_modules', '.bin', 'dshpolicy'));
    const local = asAgent(pre, PRE(w.project), { ...base, PATH: node }, join(w.root));
    expect(local.status, local.stderr).toBe(0);
    expect(JSON.parse(local.stdout)).toEqual(deny);
    // ... but without node, dshpolicy cannot start: still blocked, saying so.
    const noNode = asAgent(pre, PRE(w.project), { ...base, PATH: join(w.root, 'nowhere') }, w.project);
    expect(noNode.status).toBe(2);
    expect(noNode.stderr).toContain('dshpolicy could not start (exit 127): is node on PATH?');

    // On PATH (npm i -g dshpolicy), from a project without node_modules.
    const other = world();
    other.install('claude');
    const otherPre = JSON.parse(read(join(other.project, '.claude', 'settings.json'))).hooks.PreToolUse[0].hooks[0].command as string;
    const bin = join(other.root, 'global-bin');
    mkdirSync(bin);
    symlinkSync(BUILT_CLI, join(bin, 'dshpolicy'));
    const env = { ...base, CLAUDE_PROJECT_DIR: other.project };
    const global = asAgent(otherPre, PRE(other.project), { ...env, PATH: `${bin}:${node}` }, other.project);
    expect(global.status, global.stderr).toBe(0);
    expect(JSON.parse(global.stdout)).toEqual(deny);
    // DSHPOLICY_BIN names it anywhere else; one that is not there blocks too.
    const named = asAgent(otherPre, PRE(other.project), { ...env, PATH: node, DSHPOLICY_BIN: BUILT_CLI }, other.project);
    expect(JSON.parse(named.stdout)).toEqual(deny);
    const wrong = asAgent(otherPre, PRE(other.project), { ...env, PATH: node, DSHPOLICY_BIN: join(other.root, 'gone') }, other.project);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('dshpolicy could not start (exit 127)');
  });

  it('warns when this machine has no dshpolicy the command would find', () => {
    const w = world();
    const r = runWith(installCommand, ['claude', '--format', 'json'], { ...w.ctx, env: { HOME: w.home, PATH: join(w.root, 'nowhere') } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).diagnostics).toMatchObject([{ code: 'install/not-found', severity: 'warning' }]);
    const named = runWith(installCommand, ['claude', '--format', 'json'], { ...w.ctx, env: { HOME: w.home, DSHPOLICY_BIN: '/opt/dshpolicy/dist/cli.cjs' } });
    expect(JSON.parse(named.out).diagnostics).toEqual([]);
  });

  it('names policies in the project relative to it, found from a sub-directory the agent runs in (codex)', () => {
    const w = world();
    const policy = w.write(join(w.project, 'policies', "team's.dshpolicy"), PROMPT_POLICY);
    const r = w.install('codex', '--policy', policy, '--format', 'json');
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, policies: [policy], command: projectCommand('codex', ["policies/team's.dshpolicy"]), diagnostics: [] });
    const hooks = JSON.parse(read(join(w.project, '.codex', 'hooks.json'))).hooks;
    const sub = join(w.project, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    expect(runHookCommand(hooks.UserPromptSubmit[0].hooks[0].command, { PATH: w.path }, sub)).toEqual(['hook', 'codex', '--deadline', '25s', '--policy', policy]);
  });

  it('writes a script that every shell reads alike: no single quote, no two backslashes in a row', () => {
    for (const agent of ['claude', 'codex'] as const) {
      for (const withPolicies of [false, true]) {
        const script = projectHookScript(agent, ['--deadline', '25s'], withPolicies);
        expect(script).not.toContain("'");
        expect(script).not.toContain('\\\\');
      }
    }
    const w = world();
    const command = `${projectCommand('claude')} PreToolUse`;
    for (const shell of ['/bin/sh', '/bin/bash', '/usr/bin/zsh'].filter((s) => existsSync(s))) {
      const r = spawnSync(shell, ['-c', command], { encoding: 'utf8', env: { PATH: w.path, CLAUDE_PROJECT_DIR: w.project } });
      expect(JSON.parse(r.stdout), shell).toEqual(['hook', 'claude', '--deadline', '25s']);
    }
  });

  it('pins this machine\'s paths in a user install, with the deadline', () => {
    const w = world();
    const r = w.install('claude', '--user', '--format', 'json');
    const command = hookCommandLine(process.execPath, w.script, 'claude', [], ['--deadline', '595s']);
    expect(JSON.parse(r.out)).toMatchObject({ scope: 'user', command, timeout: 600, deadline: 595 });
    expect(JSON.parse(read(join(w.home, '.claude', 'settings.json'))).hooks.Stop[0].hooks[0]).toEqual({ type: 'command', command, timeout: 600, statusMessage: 'dshpolicy' });
    expect(runHookCommand(command)).toEqual(['hook', 'claude', '--deadline', '595s']);
  });
});

describe('the handler timeout', () => {
  const installed = (policy: string, ...argv: string[]) => {
    const w = world(policy);
    const r = w.install(...argv, '--format', 'json');
    expect(r.code, r.out).toBe(0);
    return { w, report: JSON.parse(r.out) };
  };

  it('covers the slowest run hook and the margin, from 30 s up to the agent\'s 600 s', () => {
    expect(installed(POLICY, 'claude').report).toMatchObject({ timeout: 30, deadline: 25 });
    expect(installed('on pre-tool {\n  run Bash hook "./check.sh" timeout 10s\n}\n', 'claude').report).toMatchObject({ timeout: 30, deadline: 25 });
    const slow = 'on pre-tool {\n  run Bash hook "./check.sh" timeout 10s\n}\non stop {\n  run hook "./slow.sh" timeout 2m\n}\n';
    const { w, report } = installed(slow, 'codex');
    expect(report).toMatchObject({ timeout: 125, deadline: 120, diagnostics: [] });
    const hooks = JSON.parse(read(join(w.project, '.codex', 'hooks.json'))).hooks;
    expect(hooks.PreToolUse[0].hooks[0]).toMatchObject({ timeout: 125, command: `${projectCommand('codex', [], '120s')} PreToolUse` });
    // The issue's case: a hook without a timeout may run the agents' default 600 s.
    expect(installed('on pre-tool {\n  deny Bash command "rm *"\n  run Bash hook "sleep 45"\n}\n', 'claude').report).toMatchObject({ timeout: 600, deadline: 595, diagnostics: [] });
    // Claude Code gives a prompt hook 30 s by default.
    expect(installed('on prompt {\n  run hook "./p.sh"\n}\n', 'claude').report).toMatchObject({ timeout: 35, deadline: 30 });
  });

  it('counts imported hooks with their own timeouts', () => {
    const w = world('import claude hooks "./hooks.json"\n');
    w.write(join(w.project, '.dshpolicy', 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh', timeout: 200 }] }] } }));
    const r = JSON.parse(w.install('claude', '--format', 'json').out);
    expect(r).toMatchObject({ events: ['PreToolUse'], timeout: 205, deadline: 200 });
  });

  it('stops at the agent\'s longest and warns, at the rule, about a hook that cannot fit', () => {
    const policy = 'on pre-tool {\n  run Bash hook "./audit.sh" timeout 1h\n}\n';
    const { w, report } = installed(policy, 'claude');
    expect(report).toMatchObject({ timeout: 600, deadline: 595 });
    expect(report.diagnostics).toMatchObject([
      {
        code: 'check/hook-timeout-exceeds',
        severity: 'warning',
        message: "the timeout of this hook (`1h`) cannot fit: claude code waits at most 600 s for dshpolicy's hook, which answers 5 s before that",
        span: { file: join(w.project, '.dshpolicy', 'guard.dshpolicy'), start: { line: 2, column: 3 } },
      },
    ]);
    expect(w.install('claude', '--dry-run').out).toContain("  timeout: 600 s (claude code's longest; its slowest hook may run 3600 s; the hook answers by 595 s)\n");
  });
});
