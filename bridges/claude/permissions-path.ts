/**
 * Claude Code `Read(...)` and `Edit(...)` path patterns as dshpolicy `path` globs.
 *
 * Both sides use the same gitignore-style glob matcher (engine/match/path.ts); what differs is
 * where a pattern is anchored and how directories are treated, which this module makes explicit:
 *
 * | Claude Code pattern | anchored at | glob written here |
 * |---|---|---|
 * | `//abs/x` | the filesystem root | `/abs/x` |
 * | `~/x`, `~` | the home directory | `<home>/x` with `home` given, else `~/x` |
 * | `/x` | the settings file's anchor (`baseDir`: the project root for project settings) | `<baseDir>/x` |
 * | `./x`, `../x`, `a/b`, `**` first | the working directory | `./x`, `../x`, `./a/b`, `./**` |
 * | `x` (one segment) | any depth under the working directory | `./**` + `/x` |
 * | `src/**`, `src/` (one segment, then only `**`) | allow: `<cwd>/src`; deny, ask: any depth under it | `./src/**` / `./**` + `/src/**` |
 *
 * In deny and ask rules a pattern that matches a directory also matches everything inside it
 * (`G` and `G/**` are written); in allow rules only the path itself is compared.
 */
import { checkGlob } from '../../engine/index.js';
import type { ClaudeRuleMode } from './permission-rule.js';

export interface PathTranslation {
  globs: string[];
  /** How the imported rule differs. */
  differences?: string[];
  /** Why the rule is not imported. */
  dropped?: string;
}

/** `\`, `*`, `?` and `[` written literally. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[]/gu, (c) => `\\${c}`);
}

function joinDir(dir: string, rest: string): string {
  const base = dir.replace(/\/+$/u, '');
  return escapeGlob(base) + rest;
}

/** The glob for a pattern in a mode, before the directory rule is applied. */
function anchored(spec: string, mode: ClaudeRuleMode, opts: { baseDir: string; home?: string | undefined }): string {
  if (spec.startsWith('//')) return spec.slice(1);
  if (spec === '~' || spec.startsWith('~/')) return opts.home !== undefined ? joinDir(opts.home, spec.slice(1)) || '/' : spec;
  if (spec.startsWith('/')) return joinDir(opts.baseDir, spec) || '/';
  const far = mode === 'deny' || mode === 'ask';
  const trimmed = spec.endsWith('/') ? spec.slice(0, -1) : spec;
  const segments = trimmed.split('/');
  const first = segments[0] ?? '';
  if (first === '.' || first === '..') return spec;
  if (first === '**') return './' + spec;
  if (segments.length === 1) return spec.endsWith('/') && !far ? './' + spec : './**/' + spec;
  if (segments.slice(1).every((s) => s === '**' || s === '')) return far ? './**/' + spec : './' + spec;
  return './' + spec;
}

/** Translates the specifier of a `Read(...)` or `Edit(...)` path rule. */
export function translatePath(spec: string, mode: ClaudeRuleMode, opts: { baseDir: string; home?: string | undefined }): PathTranslation {
  const glob = anchored(spec, mode, opts);
  const problem = checkGlob(glob, 'path');
  if (problem !== null) return { globs: [], dropped: `the path pattern \`${spec}\` is not a valid glob (${problem.message})` };
  const globs = [glob];
  const differences: string[] = [];
  if ((mode === 'deny' || mode === 'ask') && !glob.endsWith('/') && !glob.endsWith('/**')) {
    // gitignore: a directory the pattern matches takes everything inside it along (but Claude
    // Code never tests the root directory as such a directory)
    const named = glob.replace(/^~(?=\/|$)/u, '').split('/').filter((s) => s !== '' && s !== '.');
    const onlyDots = named.every((s) => s === '..');
    if (!(onlyDots && glob.startsWith('/'))) globs.push(`${glob}/**`);
    if (onlyDots && named.length > 0 && !glob.startsWith('/') && !glob.startsWith('~')) {
      differences.push(`when \`${spec}\` reaches the file system root, claude code matches the root itself only, the imported rule everything below it too`);
    }
  }
  return { globs, differences };
}
