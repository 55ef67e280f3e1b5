/**
 * The built command, as a user runs it: `npm start` and the package bin.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.cjs');
const hook = join(root, 'dist', 'hook.cjs');

describe('dist/cli.cjs', () => {
  it('runs the bundled example as `npm start` does, printing the decision table', () => {
    const out = execFileSync('node', [cli, 'eval', '--policy', 'examples/guardrails.dshpolicy', '--fixtures', 'examples/fixtures.jsonl'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out).toMatch(/Bash sudo rm -rf \/ +deny +never delete a root/);
    expect(out).toMatch(/22 events: /);
  });

  it('checks the bundled example clean', () => {
    const r = spawnSync('node', [cli, 'check', 'examples/guardrails.dshpolicy'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('ok: 1 file');
  });

  it('prints help and a version', () => {
    expect(execFileSync('node', [cli, '--help'], { encoding: 'utf8' })).toContain('usage: dshpolicy <command>');
    expect(execFileSync('node', [cli, '--version'], { encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

// An output that fails as a full disk does (ENOSPC): an error of the output other than a closed pipe.
const FULL = '/dev/full';

describe.skipIf(!existsSync(FULL))('crashes are framed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-crash-'));
  const policy = join(dir, 'p.dshpolicy');
  const events = join(dir, 'events.jsonl');
  writeFileSync(policy, 'on pre-tool {\n  deny Bash command "rm *"\n}\n');
  writeFileSync(events, '{"seam":"pre-tool","tool":"Bash","input":{"command":"ls"}}\n'.repeat(2000));
  const deny = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf x' }, session_id: 's', cwd: dir, transcript_path: join(dir, 't.jsonl') });

  function toFull(args: string[], input = '', env: NodeJS.ProcessEnv = {}) {
    const fd = openSync(FULL, 'w');
    try {
      return spawnSync('node', args, { input, encoding: 'utf8', stdio: ['pipe', fd, 'pipe'], env: { ...process.env, DSHPOLICY_DEBUG: '', ...env }, timeout: 20_000 });
    } finally {
      closeSync(fd);
    }
  }

  it('an output that fails ends with one `internal error:` line and exit 70, no stack', () => {
    const r = toFull([cli, 'eval', '--format', 'json', '--policy', policy, '--fixtures', events]);
    expect(r.status).toBe(70);
    expect(r.stderr).toBe('internal error: ENOSPC: no space left on device, write\n');
  });

  it('DSHPOLICY_DEBUG adds the stack', () => {
    const r = toFull([cli, 'eval', '--format', 'json', '--policy', policy, '--fixtures', events], '', { DSHPOLICY_DEBUG: '1' });
    expect(r.status).toBe(70);
    expect(r.stderr).toMatch(/^internal error: Error: ENOSPC[^\n]*\n {4}at /);
  });

  it('a reader that stops early ends the command quietly with status 0', async () => {
    const child = spawn('node', [cli, 'eval', '--format', 'json', '--policy', policy, '--fixtures', events], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // read the first chunk, then close the pipe as `head -1` does
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect([code, stderr]).toEqual([0, '']);
  });

  it.each([
    ['dist/hook.cjs', [hook, 'claude']],
    ['dshpolicy hook', [cli, 'hook', 'claude']],
  ])('hook mode (%s) fails closed on an internal error: exit 2, which blocks the call', (_name, args) => {
    const r = toFull([...args, '--policy', policy], deny);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('dshpolicy: internal error: ENOSPC: no space left on device, write\n');
  });

  it('hook mode with --fail-open lets the call through on an internal error, and says so', () => {
    const r = toFull([hook, 'claude', '--fail-open', '--policy', policy], deny);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('dshpolicy: internal error: ENOSPC: no space left on device, write (failing open)\n');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));
});

