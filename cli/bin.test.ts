/**
 * The built command, as a user runs it: `npm start` and the package bin.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.cjs');

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
