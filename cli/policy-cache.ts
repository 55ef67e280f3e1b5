/**
 * The compiled-IR cache of hook mode. An agent starts one hook process per event, so compiling the
 * policy every time (the parser alone costs more than node's start-up) is not an option: the IR of
 * a set of policy files is kept under the cache directory, keyed by the files' paths, and used while
 * every source file it was compiled from (the roots, their includes and imported hooks files) still
 * has the same content. Anything unexpected (a missing, corrupt or stale entry, an unwritable
 * directory) falls back to compiling; the cache never changes a decision.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Diagnostic, PolicyIR } from '../engine/index.js';
import { cacheDir } from './cache-dir.js';

declare const __DSHPOLICY_VERSION__: string | undefined;
const VERSION = typeof __DSHPOLICY_VERSION__ === 'string' ? __DSHPOLICY_VERSION__ : '0.0.0-dev';

/** Bumped when the entry format changes. */
const FORMAT = 1;

interface Entry {
  format: number;
  version: string;
  roots: string[];
  sources: { path: string; sha256: string }[];
  ir: PolicyIR;
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function entryPath(dir: string, roots: string[]): string {
  return join(dir, 'ir', `${sha256(JSON.stringify([VERSION, roots]))}.json`);
}

function digestOf(path: string): string | undefined {
  try {
    return sha256(readFileSync(path));
  } catch {
    return undefined;
  }
}

/** The cached IR of `files`, if every source it came from is unchanged. */
export function readCachedIR(files: string[], dir: string): PolicyIR | undefined {
  const roots = files.map((f) => resolve(f));
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(entryPath(dir, roots), 'utf8')) as Entry;
  } catch {
    return undefined;
  }
  if (entry.format !== FORMAT || entry.version !== VERSION || JSON.stringify(entry.roots) !== JSON.stringify(roots)) return undefined;
  if (!Array.isArray(entry.sources) || entry.sources.length === 0) return undefined;
  for (const s of entry.sources) if (digestOf(s.path) !== s.sha256) return undefined;
  return entry.ir;
}

/** Stores the IR of `files` with the digests of its sources; silently does nothing when it cannot. */
export function writeCachedIR(files: string[], ir: PolicyIR, dir: string): void {
  const roots = files.map((f) => resolve(f));
  const sources: Entry['sources'] = [];
  for (const path of new Set([...roots, ...ir.sources.map((s) => resolve(s))])) {
    const digest = digestOf(path);
    if (digest === undefined) return;
    sources.push({ path, sha256: digest });
  }
  const entry: Entry = { format: FORMAT, version: VERSION, roots, sources, ir };
  const target = entryPath(dir, roots);
  try {
    mkdirSync(join(dir, 'ir'), { recursive: true });
    // Written aside and renamed, so a concurrent hook never reads half an entry.
    const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, JSON.stringify(entry));
    renameSync(tmp, target);
  } catch {
    // an unwritable cache costs only speed
  }
}

/** The policy compiler (cli/policy.ts), which its caller loads only when it is needed. */
export type LoadCompiler = () => Promise<Pick<typeof import('./policy.js'), 'loadPolicies'>>;

export interface CachedLoad {
  ir: PolicyIR | undefined;
  diagnostics: Diagnostic[];
  /** Whether the IR came from the cache. */
  cached: boolean;
}

/**
 * The IR of the policy files: from the cache when it is current, else compiled (loading the
 * compiler only then) and stored. A policy with errors is never cached.
 */
export async function loadPolicyCached(files: string[], dir: string, loadCompiler: LoadCompiler): Promise<CachedLoad> {
  const hit = readCachedIR(files, dir);
  if (hit) return { ir: hit, diagnostics: [], cached: true };
  const { loadPolicies } = await loadCompiler();
  const loaded = loadPolicies(files);
  if (loaded.ir && !loaded.diagnostics.some((d) => d.severity === 'error')) writeCachedIR(files, loaded.ir, dir);
  return { ir: loaded.ir, diagnostics: loaded.diagnostics, cached: false };
}
