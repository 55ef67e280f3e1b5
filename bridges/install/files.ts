/**
 * The file system side of installing: reading an agent's file (absent is no error; a directory
 * or an unreadable file is a diagnostic), writing its new text (following a symlink, keeping the
 * file's mode, and keeping the file as it was before dshpolicy first changed it as
 * `<file>.dshpolicy-backup`), and resolving links where the agents compare paths.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { diagnostic, type Diagnostic } from '../../engine/index.js';

/** What is appended to a file's name for the copy of it dshpolicy keeps. */
export const BACKUP_SUFFIX = '.dshpolicy-backup';

/** A file's text (undefined: it does not exist), or why it could not be read. */
export interface Read {
  text: string | undefined;
  error?: Diagnostic;
}

export function readText(file: string): Read {
  try {
    if (statSync(file).isDirectory()) return { text: undefined, error: diagnostic('install/unreadable', 'error', `\`${file}\` is a directory`) };
    return { text: readFileSync(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { text: undefined };
    return { text: undefined, error: diagnostic('install/unreadable', 'error', `cannot read \`${file}\` (${code ?? 'error'})`, { help: 'check its permissions' }) };
  }
}

/**
 * Writes `text` over `file` (following a symlink, keeping its mode), first keeping the file as it
 * was in the backup if there is none yet. Throws what the file system throws.
 */
export function writeText(file: string, existed: boolean, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const backup = file + BACKUP_SUFFIX;
  if (existed && !existsSync(backup)) copyFileSync(file, backup);
  writeFileSync(file, text);
}

/** The backup dshpolicy keeps of `file`, when there is one. */
export function backupOf(file: string): string | undefined {
  return existsSync(file + BACKUP_SUFFIX) ? file + BACKUP_SUFFIX : undefined;
}

/** `path` with its links resolved, or as it is when it cannot be. */
export function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
