#!/usr/bin/env node
/**
 * `dist/hook.cjs`: starts the hook bundle (`dist/hook-main.cjs`) from V8's compiled code of an
 * earlier run, kept beside the policy cache (`<cache>/code/`), so an agent that starts one process
 * per event does not parse and compile the bundle every time. Without a usable cache entry (the
 * first run, a new build or node, an unwritable cache, `DSHPOLICY_NO_CODE_CACHE=1`) the bundle is
 * compiled as usual and, at exit, its code stored for the next run. V8 checks an entry against the
 * source and its own version and flags, and refuses one that does not fit.
 *
 * Only node's built-in modules here (and cache-dir.ts): this file runs before anything is cached.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire, wrap } from 'node:module';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { cacheDir } from './cache-dir.js';

const MAIN = join(__dirname, 'hook-main.cjs');

function start(): void {
  const raw = readFileSync(MAIN, 'utf8');
  // The bundle's `#!` line, kept as a comment so positions in stack traces stay the same.
  const source = raw.startsWith('#!') ? `//${raw.slice(2)}` : raw;
  let entry: string | undefined;
  let cached: Buffer | undefined;
  if (process.env['DSHPOLICY_NO_CODE_CACHE'] !== '1') {
    try {
      const st = statSync(MAIN);
      const dir = join(cacheDir(), 'code');
      entry = join(dir, `hook-${process.version}-${process.arch}-${st.size}-${Math.trunc(st.mtimeMs)}.bin`);
      cached = readFileSync(entry);
    } catch {
      cached = undefined;
    }
  }
  const script = new Script(wrap(source), cached !== undefined ? { filename: MAIN, cachedData: cached } : { filename: MAIN });
  if (entry !== undefined && (cached === undefined || script.cachedDataRejected === true)) {
    const target = entry;
    // At exit the code of the functions that ran is compiled too, and is kept with the rest.
    process.once('exit', () => storeCode(target, script));
  }
  const main = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  const module = { exports: {}, filename: MAIN, id: MAIN, loaded: false };
  main.call(module.exports, module.exports, createRequire(MAIN), module, MAIN, __dirname);
}

/** Entries kept (one per build of the hook and node version). */
const KEEP = 8;

/** Writes the compiled code aside and renames it into place, and drops the oldest entries; never throws. */
function storeCode(target: string, script: Script): void {
  try {
    const dir = join(target, '..');
    mkdirSync(dir, { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, target);
    // Builds and node versions come and go: keep the newest few entries.
    const entries = readdirSync(dir)
      .filter((f) => f.startsWith('hook-') && f.endsWith('.bin'))
      .map((f) => ({ path: join(dir, f), at: statSync(join(dir, f)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const old of entries.slice(KEEP)) unlinkSync(old.path);
  } catch {
    // an unwritable cache costs only speed
  }
}

start();
