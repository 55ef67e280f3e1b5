/**
 * The sandbox itself: stand-ins log and run nothing, real wrappers run what they wrap, unknown
 * programs are logged, nothing reaches the host or the network, and every run is bounded. If the
 * sandbox cannot run here (not root, no namespaces), these tests fail with how to enable it.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, hostHasShell, type RunResult, type Sandbox } from './sandbox.js';

let sandbox: Sandbox;
const host = mkdtempSync(join(tmpdir(), 'dshpolicy-oracle-host-'));

beforeAll(async () => {
  sandbox = await createSandbox({ programs: ['frob', 'git'], timeoutMs: 1500 });
}, 60_000);

afterAll(() => {
  sandbox?.close();
  rmSync(host, { recursive: true, force: true });
});

/** The logged argv with each program reduced to its basename, sorted. */
function ran(result: RunResult): string[] {
  return result.ran.map(([program, ...args]) => [program!.slice(program!.lastIndexOf('/') + 1), ...args].join(' ')).sort();
}

describe('the shell sandbox', () => {
  it('runs a stand-in for rm: it logs its argv and deletes nothing', async () => {
    const marker = join(host, 'still-here');
    writeFileSync(marker, 'x');
    expect(ran(await sandbox.run('rm -rf / ' + marker))).toEqual([`rm -rf / ${marker}`]);
    expect(existsSync(marker)).toBe(true);
    expect(existsSync(join(sandbox.root, 'usr/bin/bash'))).toBe(true);
  });

  it('keeps the root read-only even for a real find -delete', async () => {
    const result = await sandbox.run('find / -delete 2>/dev/null; rm after');
    expect(ran(result)).toEqual(['rm after']);
    expect(ran(await sandbox.run('git status'))).toEqual(['git status']);
  });

  it('logs a stand-in without running its arguments: sudo rm -rf / is only sudo', async () => {
    expect(ran(await sandbox.run('sudo rm -rf /'))).toEqual(['sudo rm -rf /']);
  });

  it('runs the real wrappers, which run their command', async () => {
    const result = await sandbox.run(
      'nice -n 5 rm a; env -i rm b; timeout 5 rm c; setsid rm d; flock /tmp/l rm e; stdbuf -oL rm f; ' +
      'nohup rm g 2>/dev/null; xargs rm h </dev/null; find . -maxdepth 0 -exec rm i \\;; taskset -c 0 rm j',
    );
    expect(ran(result)).toEqual(['rm a', 'rm b', 'rm c', 'rm d', 'rm e', 'rm f', 'rm g', 'rm h', 'rm i', 'rm j']);
  });

  it('runs the scripts of real and emulated shells', async () => {
    const result = await sandbox.run(`bash -c 'rm a'; sh -c 'rm b'; dash -c 'rm c'; ksh -c 'rm d'; csh -c 'rm e'`);
    expect(ran(result)).toEqual(['rm a', 'rm b', 'rm c', 'rm d', 'rm e']);
  });

  it('logs a program that is not there, also in a nested bash', async () => {
    const result = await sandbox.run(`nosuchprogram 1 2; bash -c 'othermissing x'`);
    expect(ran(result)).toEqual(['nosuchprogram 1 2', 'othermissing x']);
  });

  it.skipIf(!hostHasShell('zsh'))('logs a program that is not there in zsh too', async () => {
    const result = await sandbox.run(`zsh -c 'missing-in-zsh y; rm z'`);
    expect(ran(result)).toEqual(['missing-in-zsh y', 'rm z']);
  });

  it('waits for background processes, also those in a new session', async () => {
    const result = await sandbox.run('(rm a) & setsid rm b & rm c &');
    expect(ran(result)).toEqual(['rm a', 'rm b', 'rm c']);
  });

  it('runs process substitutions', async () => {
    expect(ran(await sandbox.run('rm <(rm inner) >/dev/null'))).toContainEqual('rm inner');
  });

  it('gives each run the home folder /home/u, the working folder /repo and a fresh /tmp', async () => {
    expect(ran(await sandbox.run('echo x > /tmp/left; rm "$HOME" "$PWD" ~'))).toEqual(['rm /home/u /repo /home/u']);
    expect(ran(await sandbox.run('[ -e /tmp/left ] && rm seen; rm done'))).toEqual(['rm done']);
  });

  it('has no network', async () => {
    const result = await sandbox.run('(echo > /dev/tcp/1.1.1.1/53) 2>/dev/null && rm connected; rm done');
    expect(ran(result)).toEqual(['rm done']);
  });

  it('ends a run that does not finish at the timeout', async () => {
    const started = Date.now();
    const result = await sandbox.run('rm before; while :; do :; done');
    expect(result.timedOut).toBe(true);
    expect(ran(result)).toEqual(['rm before']);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
