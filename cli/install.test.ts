import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { loadClaudeHooksText, loadCodexProject } from '../bridges/index.js';
import { UsageError } from './args.js';
import { hookCommandLine, installCommand, shellQuote, uninstallCommand, unifiedDiff, type InstallContext } from './install.js';
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

/** A fresh world: a home, a project with a policy, and a fake dshpolicy script that prints its arguments. */
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
  const ctx: InstallContext = { env: { HOME: home }, cwd: project, execPath: process.execPath, script };
  const install = (...argv: string[]) => runWith(installCommand, argv, ctx);
  const uninstall = (...argv: string[]) => runWith(uninstallCommand, argv, ctx);
  const write = (path: string, text: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  return { root, home, project, script, ctx, install, uninstall, write };
}

const read = (p: string) => readFileSync(p, 'utf8');

/** What a shell runs for the command: its words, by running it (the fake script prints its argv). */
function runHookCommand(command: string): string[] {
  const r = spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as string[];
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

  it('diffs', () => {
    expect(unifiedDiff('a\nb\nc\n', 'a\nB\nc\nd\n', 'x', 'x')).toBe('--- x\n+++ x\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n');
    expect(unifiedDiff('', 'n\n', '/dev/null', 'y')).toBe('--- /dev/null\n+++ y\n@@ -0,0 +1,1 @@\n+n\n');
    expect(unifiedDiff('same', 'same', 'a', 'b')).toBe('');
  });
});

describe('dshpolicy install claude', () => {
  it('wires the hook into the project settings for the events the policy uses, and runs this dshpolicy', () => {
    const w = world();
    const r = w.install('claude', '--format', 'json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const settings = join(w.project, '.claude', 'settings.json');
    const json = JSON.parse(r.out);
    expect(json).toMatchObject({ ok: true, file: settings, changed: true, created: true, events: ['PreToolUse', 'Stop'], diagnostics: [] });
    expect(json.backup).toBeUndefined();
    const doc = JSON.parse(read(settings));
    const command = `${shellQuote(process.execPath)} ${shellQuote(w.script)} hook claude`;
    expect(doc).toEqual({
      hooks: {
        PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command, timeout: 30, statusMessage: 'dshpolicy' }] }],
        Stop: [{ hooks: [{ type: 'command', command, timeout: 30, statusMessage: 'dshpolicy' }] }],
      },
    });
    // Claude Code would run it as written: node, our script, `hook claude` (the hook finds the project's policy itself).
    expect(runHookCommand(command)).toEqual(['hook', 'claude']);
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
    const doc = JSON.parse(read(settings));
    expect(Object.keys(doc.hooks)).toEqual(['PreToolUse', 'SessionStart', 'UserPromptSubmit']);
    expect(doc.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }]);
    expect(runHookCommand(doc.hooks.UserPromptSubmit[0].hooks[0].command)).toEqual(['hook', 'claude', '--policy', policy]);
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
    expect(doc.hooks.PreToolUse[0].hooks[0]).toEqual({ type: 'http', url: 'http://127.0.0.1:8787/hook', timeout: 30, statusMessage: 'dshpolicy' });
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
    const command = `${shellQuote(process.execPath)} ${shellQuote(w.script)} hook codex`;
    expect(JSON.parse(read(w.hooks)).hooks).toEqual({
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command, timeout: 30, statusMessage: 'dshpolicy' }] }],
      Stop: [{ hooks: [{ type: 'command', command, timeout: 30, statusMessage: 'dshpolicy' }] }],
    });
    expect(runHookCommand(command)).toEqual(['hook', 'codex']);
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
