/**
 * Helpers for the CLI's tests: run the command in-process with captured streams, and write
 * scratch files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll } from 'vitest';
import type { Io } from './args.js';
import { main } from './main.js';

/** Scratch directories of the test file that imports this module, removed after its tests. */
const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs a command (`main`, or one command's entry) in this process with captured streams; `stdin`
 * is its standard input, as one string or as chunks of bytes.
 */
export async function runCommand(
  command: (argv: string[], io: Io) => Promise<number>,
  argv: string[],
  stdin: string | readonly Buffer[] = '',
): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await command(argv, { stdout, stderr, stdin: Readable.from(typeof stdin === 'string' ? [stdin] : stdin) });
  return { code, out, err };
}

/** Runs `dshpolicy <argv>` in this process, with `stdin` as its standard input. */
export function runCli(argv: string[], stdin = ''): Promise<CliRun> {
  return runCommand(main, argv, stdin);
}

/** A fresh scratch directory, and a function writing a named file into it (returning its path). */
export function scratch(prefix: string): { dir: string; file: (name: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return {
    dir,
    file: (name, text) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
  };
}
