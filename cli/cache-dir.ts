/**
 * Where dshpolicy keeps what it caches (compiled policies, the hook's compiled code). Only node's
 * built-in modules: the hook's loader imports it before anything else is loaded.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$DSHPOLICY_CACHE_DIR`, else `$XDG_CACHE_HOME/dshpolicy`, else `~/.cache/dshpolicy`. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['DSHPOLICY_CACHE_DIR']) return env['DSHPOLICY_CACHE_DIR'];
  const base = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
  return join(base, 'dshpolicy');
}
