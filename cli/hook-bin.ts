#!/usr/bin/env node
/**
 * The hook's own executable (`dist/hook.cjs claude|codex|gemini [...]`): `dshpolicy hook` without
 * the rest of the CLI, so an agent that starts one process per event pays only for deciding it.
 */
import { join } from 'node:path';
import { lazyRequire } from '../engine/index.js';
import { UsageError } from './args.js';
import { hookCommand, HOOK_HELP } from './hook.js';
import type { LoadCompiler } from './policy-cache.js';

// On a cache miss the compiler is loaded from its own bundle beside this one.
const loadCompiler: LoadCompiler = async () => lazyRequire(join(__dirname, 'compiler.cjs')) as Awaited<ReturnType<LoadCompiler>>;

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

// The deadline counts from the process's start: node's own start-up is part of the handler's time.
const startedAt = Math.round(performance.timeOrigin);

hookCommand(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, { loadCompiler, startedAt }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${HOOK_HELP}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`internal error: ${String(err)}\n`);
    // Gemini CLI goes ahead when a hook exits with anything but 0 or 2; 2 blocks the call.
    const gemini = process.argv[2] === 'gemini' && !process.argv.includes('--fail-open');
    process.exitCode = gemini ? 2 : 70;
  },
);
