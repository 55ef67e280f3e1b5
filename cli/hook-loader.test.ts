/**
 * The hook's loader (dist/hook.cjs) with its compiled-code cache: the answers are the bundle's
 * whatever the state of the cache. Runs the built bundles (`npm test` builds dist/ first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const HOOK = resolve(import.meta.dirname, '..', 'dist', 'hook.cjs');
const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-hook-loader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policy = join(dir, 'p.dshpolicy');
writeFileSync(policy, 'on pre-tool {\n  deny Bash command "rm *" because "no rm"\n}\n');
const payload = JSON.stringify({ session_id: 's', transcript_path: '', cwd: dir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf x' }, tool_use_id: 't' });
const DENY = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}';

function run(cache: string, env: Record<string, string> = {}, args: string[] = ['claude', '--policy', policy]) {
  const r = spawnSync(process.execPath, [HOOK, ...args], { input: payload, env: { ...process.env, DSHPOLICY_CACHE_DIR: cache, ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr };
}

const entries = (cache: string) => (existsSync(join(cache, 'code')) ? readdirSync(join(cache, 'code')).filter((f) => f.endsWith('.bin')) : []);

describe.skipIf(!existsSync(HOOK))('hook loader', () => {
  it('stores the compiled code on the first run and starts from it on the next, with the same answer', () => {
    const cache = join(dir, 'c1');
    expect(run(cache)).toEqual({ code: 0, out: DENY, err: '' });
    const [entry] = entries(cache);
    expect(entry).toMatch(new RegExp(`^hook-${process.version}-${process.arch}-\\d+-\\d+\\.bin$`));
    const path = join(cache, 'code', entry!);
    const written = statSync(path).mtimeMs;
    expect(run(cache)).toEqual({ code: 0, out: DENY, err: '' });
    // A usable entry is not written again.
    expect(statSync(path).mtimeMs).toBe(written);
  });

  it('answers the same from a garbage entry, and replaces it', () => {
    const cache = join(dir, 'c2');
    run(cache);
    const path = join(cache, 'code', entries(cache)[0]!);
    writeFileSync(path, Buffer.alloc(4096, 7));
    expect(run(cache)).toEqual({ code: 0, out: DENY, err: '' });
    expect(statSync(path).size).toBeGreaterThan(4096);
  });

  it('answers with an unwritable cache and with the cache turned off', () => {
    // Beneath a file: nothing can be made there, whoever runs the test.
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(run(join(file, 'cache'))).toEqual({ code: 0, out: DENY, err: '' });
    const off = join(dir, 'c4');
    expect(run(off, { DSHPOLICY_NO_CODE_CACHE: '1' })).toEqual({ code: 0, out: DENY, err: '' });
    expect(entries(off)).toEqual([]);
  });

  it('keeps the bundle\'s exit codes and messages', () => {
    const usage = run(join(dir, 'c5'), {}, ['nonsense']);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/^error: /);
  });

  it('keeps the newest few entries', () => {
    const cache = join(dir, 'c6');
    mkdirSync(join(cache, 'code'), { recursive: true });
    for (let i = 0; i < 12; i++) writeFileSync(join(cache, 'code', `hook-v0.0.${i}-x-1-1.bin`), 'x');
    run(cache);
    expect(entries(cache)).toHaveLength(8);
    expect(entries(cache)).toContain(readdirSync(join(cache, 'code')).find((f) => f.startsWith(`hook-${process.version}`)));
  });
});
