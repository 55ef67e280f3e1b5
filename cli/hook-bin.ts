#!/usr/bin/env node
/**
 * The hook's own executable (`dist/hook.cjs claude|codex|gemini [...]`): `dshpolicy hook` without
 * the rest of the CLI, so an agent that starts one process per event pays only for deciding it.
 *
 * An unexpected error fails closed, as every other failure of the hook does: the agents read an
 * exit code other than 0 and 2 as "no opinion" and go ahead, so the hook answers as it does for a
 * payload it cannot read (exit 2, which blocks where the event can block), unless `--fail-open`.
 */
import { join } from 'node:path';
import { lazyRequire } from '../engine/index.js';
import { UsageError } from './args.js';
import { frameCrashes, hookCrashEnding } from './crash.js';
import { USAGE } from './exit-codes.js';
import { hookCommand, HOOK_HELP } from './hook.js';
import type { LoadCompiler } from './policy-cache.js';

// On a cache miss the compiler is loaded from its own bundle beside this one.
const loadCompiler: LoadCompiler = async () => lazyRequire(join(__dirname, 'compiler.cjs')) as Awaited<ReturnType<LoadCompiler>>;

const argv = process.argv.slice(2);
const failedClosed = hookCrashEnding(argv);
frameCrashes(failedClosed);

// The deadline counts from the process's start: node's own start-up is part of the handler's time.
const startedAt = Math.round(performance.timeOrigin);

hookCommand(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, { loadCompiler, startedAt }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${HOOK_HELP}\n`);
      process.exitCode = USAGE;
      return;
    }
    failedClosed(err);
  },
);
