/**
 * The files a replay reads: a directory stands for the `.jsonl` files under it (recursively, in
 * sorted order), a file for itself. A path that cannot be read is kept as it is, so that the
 * replay reports it in its turn and the other paths still run.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The `.jsonl` files under a directory, sorted; a file path is itself. Throws when a path cannot be read. */
export function transcriptFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const out: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(path);
  return out;
}

/** The files of some paths (files or directories), in order; a path that cannot be read stays, to be reported when it is replayed. Never throws. */
export function replayInputs(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const p of paths) {
    try {
      files.push(...transcriptFiles(p));
    } catch {
      files.push(p);
    }
  }
  return files;
}

/** The sizes of the files that can be read, summed (for a progress display). */
export function totalSize(files: readonly string[]): number {
  let total = 0;
  for (const f of files) {
    try {
      total += statSync(f).size;
    } catch {
      // reported when it is read
    }
  }
  return total;
}
