/**
 * The paths a tool call touches (per tool), `apply_patch` texts, and the any/every judgements,
 * with a property: every other spelling of a path a deny glob matches is denied too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PATH_INPUT_FIELDS } from '../tools.js';
import { anyPathMatches, everyPathCovered, FIELDS_CHECKED, MAX_CALL_PATHS, MAX_FILTER_LENGTH, patchPaths, pathFactsOf, type PathFacts } from './path-facts.js';
import { compilePathGlob } from './path.js';
import { pathEnv, renderReading } from './path-read.js';

const env = pathEnv('/repo', '/home/u');

function facts(tool: string, input: Record<string, unknown>, e = env): PathFacts | null {
  return pathFactsOf(tool, input, e);
}

/** The call's files and searches as text: `file /a`, `search /a [*.ts] 1`. */
function shown(f: PathFacts | null): string[] {
  if (f === null) return ['none'];
  const out = f.files.map((r) => `file ${renderReading(r.all[0]!)}`);
  for (const s of f.searches) out.push(`search ${renderReading(s.root.all[0]!)}${s.filters.length > 0 ? ` [${s.filters.join(' | ')}]` : ''}${s.depth === 1 ? ' 1' : ''}`);
  if (f.opaque) out.push('opaque');
  return out;
}

function denied(globs: string[], tool: string, input: Record<string, unknown>, e = env): boolean {
  const f = pathFactsOf(tool, input, e);
  return f !== null && anyPathMatches(globs.map((g) => compilePathGlob(g, { fold: true })), f, e);
}

function allowed(globs: string[], tool: string, input: Record<string, unknown>, e = env): boolean {
  const f = pathFactsOf(tool, input, e);
  return f !== null && everyPathCovered(globs.map((g) => compilePathGlob(g)), f, e);
}

describe('pathFactsOf: what each tool touches', () => {
  it('Claude Code file tools', () => {
    expect(shown(facts('Read', { file_path: '/repo/a.ts' }))).toEqual(['file /repo/a.ts']);
    expect(shown(facts('Edit', { file_path: 'b.ts', old_string: 'x', new_string: 'y' }))).toEqual(['file /repo/b.ts']);
    expect(shown(facts('NotebookEdit', { notebook_path: 'n.ipynb' }))).toEqual(['file /repo/n.ipynb']);
    expect(shown(facts('Read', { file_path: '' }))).toEqual(['none']);
  });

  it('Grep and Glob search the working directory unless told otherwise', () => {
    expect(shown(facts('Grep', { pattern: 'x' }))).toEqual(['search /repo']);
    expect(shown(facts('Grep', { pattern: 'x', path: 'src', glob: '*.ts' }))).toEqual(['search /repo/src [*.ts]']);
    expect(shown(facts('Glob', { pattern: '**/*.ts' }))).toEqual(['search /repo [/**/*.ts]']);
    expect(shown(facts('Glob', { pattern: 'src/*.ts', path: '/w' }))).toEqual(['search /w/src [/*.ts]']);
    expect(shown(facts('Glob', { pattern: '/home/u/.ssh/*', path: '/w' }))).toEqual(['search /home/u/.ssh [/*]']);
    expect(shown(facts('Glob', { pattern: '../../etc/*' }))).toEqual(['search /etc [/*]']);
    expect(shown(facts('Glob', { pattern: '*/../../etc/passwd' }))).toEqual(['opaque']);
    expect(shown(facts('LS', { path: '/repo/src' }))).toEqual(['search /repo/src 1']);
    expect(shown(facts('LS', {}))).toEqual(['none']);
  });

  it('looks for the default path fields on every tool', () => {
    expect(FIELDS_CHECKED).toEqual(PATH_INPUT_FIELDS);
    for (const f of PATH_INPUT_FIELDS) expect(shown(facts('mcp__x__y', { [f]: '/a' })), f).toEqual(['file /a']);
  });

  it('judges every path field, also one the tool does not define', () => {
    expect(shown(facts('Grep', { pattern: 'x', path: '/repo/src', file_path: '/repo/.env' }))).toEqual(['file /repo/.env', 'search /repo/src']);
    expect(shown(facts('mcp__fs__read', { path: '/a', absolute_path: '/b' }))).toEqual(['file /a', 'file /b']);
    expect(shown(facts('Bash', { command: 'ls' }))).toEqual(['none']);
    expect(shown(facts('mcp__filesystem__read_multiple_files', { paths: ['/a', '/repo/.env'] }))).toEqual(['file /a', 'file /repo/.env']);
    expect(shown(facts('LSP', { operation: 'hover', filePath: 'src/a.ts' }))).toEqual(['file /repo/src/a.ts']);
  });

  it('a file path written as a directory is a listing of it', () => {
    expect(shown(facts('Read', { file_path: '/home/u/.ssh/' }))).toEqual(['search /home/u/.ssh 1']);
  });

  it('Gemini CLI tools, by their names and by the names its hook maps them to', () => {
    expect(shown(facts('read_file', { absolute_path: '/repo/a' }))).toEqual(['file /repo/a']);
    expect(shown(facts('Read', { file_path: '/repo/a' }))).toEqual(['file /repo/a']);
    expect(shown(facts('Grep', { pattern: 'x', dir_path: 'src', include: '*.ts' }))).toEqual(['search /repo/src [*.ts]']);
    expect(shown(facts('search_file_content', { pattern: 'x', path: 'src', include: '*.ts' }))).toEqual(['search /repo/src [*.ts]']);
    expect(shown(facts('list_directory', { dir_path: '/repo' }))).toEqual(['search /repo 1']);
    expect(shown(facts('glob', { pattern: '*.md', dir_path: 'docs' }))).toEqual(['search /repo/docs [*.md]']);
    expect(shown(facts('read_many_files', { include: ['docs/', 'src/**/*.ts', '.env'] }))).toEqual([
      'search /repo/docs',
      'search /repo/src [/**/*.ts]',
      'search /repo [.env]',
    ]);
    expect(shown(facts('read_many_files', { paths: ['a.md'] }))).toEqual(['search /repo [a.md]']);
  });

  it('Codex apply_patch names its files in the patch', () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.ts\n*** Move to: src/c.ts\n@@\n-x\n+y\n*** Delete File: /tmp/d\n*** End Patch\n';
    expect(shown(facts('apply_patch', { command: patch }))).toEqual(['file /repo/a.txt', 'file /repo/src/b.ts', 'file /repo/src/c.ts', 'file /tmp/d']);
  });

  it('a call with more paths than it can judge is opaque', () => {
    const include = Array.from({ length: MAX_CALL_PATHS + 1 }, (_, i) => `f${i}`);
    expect(facts('read_many_files', { include })?.opaque).toBe(true);
    expect(facts('Read', { file_path: '/dev/fd/3' })?.opaque).toBe(true);
    expect(facts('Grep', { pattern: 'x', glob: '{a,'.repeat(400) })?.opaque).toBe(true);
    expect(facts('Glob', { pattern: `${'*'.repeat(MAX_FILTER_LENGTH)}.x` })?.opaque).toBe(true);
  });
});

describe('patchPaths', () => {
  it('reads every header, indented ones too, and lines ending in CR LF', () => {
    expect(patchPaths('*** Begin Patch\r\n  *** Update File: x\r\n*** End of File\r\n*** End Patch')).toEqual({ paths: ['x'], unknown: false });
    expect(patchPaths('***update file:y\n')).toEqual({ paths: ['y'], unknown: false });
  });

  it('reports a header it does not know, not one inside a hunk', () => {
    expect(patchPaths('*** Begin Patch\n*** Rename File: x\n*** End Patch').unknown).toBe(true);
    expect(patchPaths('*** Begin Patch\n*** Add File:\n').unknown).toBe(true);
    expect(patchPaths('*** Update File: a\n@@\n ***not a header\n+*** Add File: nope\n').paths).toEqual(['a']);
  });
});

describe('any and every', () => {
  it('a deny fires for any path of the call, an allow covers only when it covers them all', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n*** Update File: .env\n*** End Patch';
    expect(denied(['**/.env'], 'apply_patch', { command: patch })).toBe(true);
    expect(allowed(['src/**'], 'apply_patch', { command: patch })).toBe(false);
    expect(allowed(['src/**', '.env'], 'apply_patch', { command: patch })).toBe(true);
  });

  it('an opaque call is denied by any path rule and allowed by none', () => {
    expect(denied(['/nothing/here'], 'Read', { file_path: '/proc/self/fd/5' })).toBe(true);
    expect(allowed(['**'], 'Read', { file_path: '/proc/self/fd/5' })).toBe(false);
    expect(allowed(['**'], 'apply_patch', { command: '*** Begin Patch\n*** Frobnicate: x\n' })).toBe(false);
  });

  it('an allow covers a search only with the directory and everything below it', () => {
    expect(allowed(['src/'], 'Grep', { pattern: 'x', path: 'src' })).toBe(true);
    expect(allowed(['src/**'], 'Grep', { pattern: 'x', path: 'src' })).toBe(false);
    expect(allowed(['src/'], 'Grep', { pattern: 'x' })).toBe(false);
  });

  it('an allow must cover every reading an OS may use', () => {
    expect(allowed(['/etc/**'], 'Read', { file_path: '/proc/self/root/etc/hosts' })).toBe(true);
    expect(allowed(['/etc/**'], 'Read', { file_path: '/proc/99/root/etc/hosts' })).toBe(false);
    expect(allowed(['src/**'], 'Read', { file_path: 'src\\..\\..\\etc\\passwd' })).toBe(false);
    expect(allowed(['src/**'], 'Read', { file_path: '/repo/SRC/x' })).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: other spellings of a denied path are denied

const segment = fc.constantFrom('a', 'B', 'src', '.env', '.ssh', 'id_rsa', 'key.pem', 'é', 'Docs', 'x.ts');
const relative = fc.array(segment, { minLength: 1, maxLength: 5 });
/** A canonical absolute path: under the working directory, the home directory, or elsewhere. */
const canonical = fc.tuple(fc.constantFrom(['repo'], ['home', 'u'], ['etc'], []), relative).map(([base, rest]) => [...base, ...rest]);
const denyGlob = fc.constantFrom('**/.env', '~/.ssh/**', '*.pem', 'src/**', '/etc/**', '.ssh/', '**/id_*', '**/docs/**', 'B/a');

function randomCase(text: string, bits: number): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += (bits >> i % 31) & 1 ? text[i]!.toUpperCase() : text[i]!.toLowerCase();
  return out;
}

/** Ways to write the path `segments` that name the same file on some system the agent may run on. */
function spellings(segments: string[], bits: number): string[] {
  const p = '/' + segments.join('/');
  const out = [
    randomCase(p, bits),
    'C:' + p.replace(/\//gu, '\\'),
    'c:' + p,
    '\\\\?\\C:' + p.replace(/\//gu, '\\'),
    '\\\\localhost\\C$' + p.replace(/\//gu, '\\'),
    '/proc/self/root' + p,
    '/proc/thread-self/root/proc/self/root' + p,
    '/proc/4242/root' + p,
    '/proc/self/root/../..' + p,
    p.replace(/\//gu, '//'),
    p.replace(/\//gu, '/./'),
    '/repo/../' + p.slice(1),
    p + (segments.length > 0 ? '.' : ''),
    p + (segments.length > 0 ? '::$DATA' : ''),
  ];
  if (segments[0] === 'repo') {
    out.push(segments.slice(1).join('/'), '/proc/self/cwd/' + segments.slice(1).join('/'), segments.slice(1).join('\\'));
  }
  if (segments[0] === 'home' && segments[1] === 'u') out.push('~/' + segments.slice(2).join('/'), '~\\' + segments.slice(2).join('\\'));
  return out.filter((s) => s.length > 0);
}

describe('property: a deny fires for every spelling of a path it matches', () => {
  it('case variants, Windows spellings, magic links and dot segments', () => {
    fc.assert(
      fc.property(denyGlob, canonical, fc.integer({ min: 0, max: 0x7fffffff }), (glob, segments, bits) => {
        const g = compilePathGlob(glob, { fold: true });
        fc.pre(g.matches(segments.map((s) => s.toLowerCase()), env));
        for (const spelling of spellings(segments, bits)) {
          expect(denied([glob], 'Read', { file_path: spelling }), `${glob} on ${spelling}`).toBe(true);
        }
        // and a search of its directory that selects it by name
        const name = segments[segments.length - 1]!;
        const dir = '/' + segments.slice(0, -1).join('/');
        expect(denied([glob], 'Grep', { pattern: 'x', path: randomCase(dir, bits), glob: randomCase(name, bits) }), `${glob} on a Grep of ${dir} for ${name}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('on a Windows host, too', () => {
    const win = pathEnv('C:\\repo', 'C:\\home\\u');
    fc.assert(
      fc.property(denyGlob, canonical, fc.integer({ min: 0, max: 0x7fffffff }), (glob, segments, bits) => {
        const g = compilePathGlob(glob, { fold: true });
        fc.pre(g.matches(segments.map((s) => s.toLowerCase()), win));
        const p = segments.join('\\');
        for (const spelling of [`C:\\${p}`, randomCase(`c:/${segments.join('/')}`, bits), `\\${p}`, `C:\\${p}. `, `\\\\.\\C:\\${p}`]) {
          expect(denied([glob], 'Read', { file_path: spelling }, win), `${glob} on ${spelling}`).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('an allow never covers a path whose target cannot be known', () => {
    fc.assert(
      fc.property(fc.constantFrom('/dev/fd/', '/proc/self/fd/', '/proc/thread-self/fd/', '/proc/1/fd/', '/proc/2/cwd/', '/proc/self/map_files/'), fc.integer({ min: 3, max: 999 }), (prefix, n) => {
        const path = `${prefix}${n}`;
        expect(allowed(['**', '/'], 'Read', { file_path: path })).toBe(false);
        expect(denied(['/never/matches'], 'Read', { file_path: path })).toBe(true);
      }),
    );
  });
});

describe('paths written as directories', () => {
  it('are listings, but for roots, which are read as the directory itself', () => {
    expect(shown(facts('Read', { file_path: 'src/' }))).toEqual(['search /repo/src 1']);
    expect(shown(facts('Read', { file_path: '/' }))).toEqual(['file /']);
    expect(shown(facts('Read', { file_path: '~/' }))).toEqual(['file /home/u']);
    expect(shown(facts('Read', { file_path: 'C:\\' }))).toEqual(['file /repo/C:\\']);
  });
});
