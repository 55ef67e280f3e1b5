/**
 * Data-driven conformance cases for the command line (specs/cli/*.yaml), one test per case, named
 * by its note. Each case runs the BUILT command line as a child process, `node dist/cli.cjs
 * <argv...>` (specs/ may not import cli/; `npm test` builds before it tests), in a fresh scratch
 * directory of its own that is the process's working directory and its HOME, with
 * DSHPOLICY_CACHE_DIR set to a fresh temp directory, so nothing touches the real home or cache.
 * The environment is otherwise only PATH plus the case's `env`, so the caller's (NO_COLOR,
 * FORCE_COLOR, CLAUDE_PROJECT_DIR, CODEX_HOME, ...) cannot change what a case sees.
 *
 * Fields of a case:
 *
 * | field | |
 * |---|---|
 * | `note` | the test's name; unique across all files |
 * | `argv` | the arguments after `node dist/cli.cjs` (a list of strings) |
 * | `files` | relative path → content, written into the scratch directory before the run |
 * | `stdin` | text for standard input (default: none, stdin closed at once) |
 * | `env` | extra environment variables |
 * | `want_code` | the exit status (required) |
 * | `want_stdout`, `want_stderr` | the exact text |
 * | `want_stdout_contains`, `want_stderr_contains` | substrings that must all occur |
 * | `want_stdout_lacks`, `want_stderr_lacks` | substrings that must not occur |
 * | `want_json` | stdout parsed as one JSON document, or else as JSON lines (an array, one element per non-empty line; so a single line is one document, not an array of one), compared with `toMatchObject` (arrays must have the same length) |
 * | `want_files` | path → exact content after the run |
 * | `want_file_contains` | path → substrings the file must contain after the run |
 * | `want_file_json` | path → the file parsed as JSON, compared with `toMatchObject` |
 * | `want_no_files` | paths that must not exist after the run |
 *
 * Placeholders, replaced in `argv`, `files`, `stdin`, `env` and every expected text (strings in
 * `want_json` and `want_file_json` too): `{dir}` the case's scratch directory (real path), `{repo}`
 * the repository root, `{node}` the node binary that runs the CLI (what `install` writes into
 * hook commands). A case must expect something besides its exit status, so that it can fail for
 * the right reason; unknown fields are errors, so a typo cannot make a case check nothing.
 * Cases are independent and run concurrently.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const CLI = join(repo, 'dist', 'cli.cjs');
const NODE = process.execPath;
/** Per-case limit: a case is one node process, well under a second unloaded. */
const TEST_TIMEOUT_MS = 30_000;
/** A process still running after this is killed (and the case fails on its exit status). */
const PROCESS_TIMEOUT_MS = 20_000;

interface CliCase {
  note: string;
  argv: string[];
  files?: Record<string, string>;
  stdin?: string;
  env?: Record<string, string>;
  want_code: number;
  want_stdout?: string;
  want_stderr?: string;
  want_stdout_contains?: string[];
  want_stderr_contains?: string[];
  want_stdout_lacks?: string[];
  want_stderr_lacks?: string[];
  want_json?: unknown;
  want_files?: Record<string, string>;
  want_file_contains?: Record<string, string[]>;
  want_file_json?: Record<string, unknown>;
  want_no_files?: string[];
  source: string;
}

const EXPECTATIONS = [
  'want_stdout',
  'want_stderr',
  'want_stdout_contains',
  'want_stderr_contains',
  'want_stdout_lacks',
  'want_stderr_lacks',
  'want_json',
  'want_files',
  'want_file_contains',
  'want_file_json',
  'want_no_files',
] as const;
const CASE_KEYS = new Set(['note', 'argv', 'files', 'stdin', 'env', 'want_code', ...EXPECTATIONS]);

function fail(where: string, msg: string): never {
  throw new Error(`${where}: ${msg}`);
}

function mapping(v: unknown, where: string, allowed?: Set<string>): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(where, 'expected a mapping');
  if (allowed) for (const k of Object.keys(v)) if (!allowed.has(k)) fail(where, `unknown field \`${k}\``);
  return v as Record<string, unknown>;
}

function stringList(v: unknown, where: string): void {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) fail(where, 'expected a list of strings');
}

function stringMap(v: unknown, where: string): void {
  const m = mapping(v, where);
  for (const [k, x] of Object.entries(m)) if (typeof x !== 'string') fail(where, `\`${k}\` must be a string`);
}

/** A relative path inside the scratch directory: no absolute paths, no `..`. */
function checkPath(p: string, where: string): void {
  if (p === '' || p.startsWith('/') || p.split(/[\\/]/).includes('..')) fail(where, `\`${p}\` must be a relative path inside the scratch directory`);
}

function loadCliCases(dir: string): CliCase[] {
  const files = readdirSync(dir, { encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  if (files.length === 0) fail(dir, 'no case files');
  const notes = new Map<string, string>();
  const out: CliCase[] = [];
  for (const f of files) {
    const doc = mapping(parseYaml(readFileSync(join(dir, f), 'utf8')), f, new Set(['cases']));
    if (!Array.isArray(doc['cases'])) fail(f, '`cases` must be a list');
    (doc['cases'] as unknown[]).forEach((raw, i) => {
      const where = `${f} case ${i + 1}`;
      const c = mapping(raw, where, CASE_KEYS);
      const note = c['note'];
      if (typeof note !== 'string' || note === '') fail(where, '`note` is required');
      const at = `${where} (${note})`;
      if (notes.has(note)) fail(where, `duplicate note \`${note}\` (also in ${notes.get(note)})`);
      notes.set(note, f);
      stringList(c['argv'], `${at} argv`);
      if (c['files'] !== undefined) {
        stringMap(c['files'], `${at} files`);
        for (const p of Object.keys(c['files'] as object)) checkPath(p, `${at} files`);
      }
      if (c['stdin'] !== undefined && typeof c['stdin'] !== 'string') fail(at, '`stdin` must be a string');
      if (c['env'] !== undefined) stringMap(c['env'], `${at} env`);
      if (typeof c['want_code'] !== 'number' || !Number.isInteger(c['want_code'])) fail(at, '`want_code` (the exit status) is required');
      for (const k of ['want_stdout', 'want_stderr']) if (c[k] !== undefined && typeof c[k] !== 'string') fail(at, `\`${k}\` must be a string`);
      for (const k of ['want_stdout_contains', 'want_stderr_contains', 'want_stdout_lacks', 'want_stderr_lacks', 'want_no_files']) {
        if (c[k] === undefined) continue;
        stringList(c[k], `${at} ${k}`);
        if ((c[k] as string[]).length === 0) fail(at, `\`${k}\` is empty`);
      }
      if (c['want_files'] !== undefined) stringMap(c['want_files'], `${at} want_files`);
      if (c['want_file_contains'] !== undefined) {
        for (const [p, v] of Object.entries(mapping(c['want_file_contains'], `${at} want_file_contains`))) stringList(v, `${at} want_file_contains.${p}`);
      }
      if (c['want_file_json'] !== undefined) mapping(c['want_file_json'], `${at} want_file_json`);
      for (const k of ['want_files', 'want_file_contains', 'want_file_json']) {
        if (c[k] !== undefined) for (const p of Object.keys(c[k] as object)) checkPath(p, `${at} ${k}`);
      }
      if (c['want_no_files'] !== undefined) for (const p of c['want_no_files'] as string[]) checkPath(p, `${at} want_no_files`);
      if (!EXPECTATIONS.some((k) => c[k] !== undefined)) {
        fail(at, `a case must expect something besides its exit status (${EXPECTATIONS.map((k) => `\`${k}\``).join(', ')})`);
      }
      out.push({ ...(c as unknown as CliCase), source: f });
    });
  }
  return out;
}

function substitute<T>(v: T, vars: Record<string, string>): T {
  if (typeof v === 'string') return v.replace(/\{(dir|repo|node)\}/g, (m, k: string) => vars[k] ?? m) as T;
  if (Array.isArray(v)) return v.map((x) => substitute(x, vars)) as T;
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [substitute(k, vars), substitute(x, vars)])) as T;
  }
  return v;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runCli(argv: string[], cwd: string, env: Record<string, string>, stdin: string | undefined): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(NODE, [CLI, ...argv], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], timeout: PROCESS_TIMEOUT_MS });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    // A process that exits before reading all of stdin closes the pipe: not the case's concern.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin ?? '');
    child.on('close', (code, signal) => {
      resolvePromise({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** One JSON document, or else JSON lines (an array with one element per non-empty line). */
function parseJsonOutput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    return lines.map((l, i) => {
      try {
        return JSON.parse(l);
      } catch (e) {
        throw new Error(`stdout is neither one JSON document nor JSON lines (line ${i + 1}: ${(e as Error).message}):\n${text}`);
      }
    });
  }
}

const cases = loadCliCases(join(here, 'cli'));
const scratchRoot = mkdtempSync(join(tmpdir(), 'dshpolicy-cli-specs-'));
afterAll(() => rmSync(scratchRoot, { recursive: true, force: true }));

async function run(c: CliCase, index: number): Promise<void> {
  expect(existsSync(CLI), `${CLI} is missing: build first (npx tsup)`).toBe(true);
  const base = join(scratchRoot, String(index));
  const dir = join(base, 'work');
  const cache = join(base, 'cache');
  mkdirSync(dir, { recursive: true });
  mkdirSync(cache, { recursive: true });
  const vars = { dir: realpathSync(dir), repo, node: NODE };
  for (const [p, text] of Object.entries(c.files ?? {})) {
    const path = join(dir, p);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, substitute(text, vars));
  }
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: vars.dir,
    DSHPOLICY_CACHE_DIR: cache,
    ...substitute(c.env ?? {}, vars),
  };
  const r = await runCli(substitute(c.argv, vars), vars.dir, env, c.stdin === undefined ? undefined : substitute(c.stdin, vars));
  const shown = `exit ${r.code ?? r.signal}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;

  expect(r.code, `exit status\n${shown}`).toBe(c.want_code);
  if (c.want_stdout !== undefined) expect(r.stdout, 'stdout').toBe(substitute(c.want_stdout, vars));
  if (c.want_stderr !== undefined) expect(r.stderr, 'stderr').toBe(substitute(c.want_stderr, vars));
  for (const s of substitute(c.want_stdout_contains ?? [], vars)) expect(r.stdout, `stdout contains\n${shown}`).toContain(s);
  for (const s of substitute(c.want_stderr_contains ?? [], vars)) expect(r.stderr, `stderr contains\n${shown}`).toContain(s);
  for (const s of substitute(c.want_stdout_lacks ?? [], vars)) expect(r.stdout, `stdout lacks\n${shown}`).not.toContain(s);
  for (const s of substitute(c.want_stderr_lacks ?? [], vars)) expect(r.stderr, `stderr lacks\n${shown}`).not.toContain(s);
  if (c.want_json !== undefined) {
    const want = substitute(c.want_json, vars);
    const got = parseJsonOutput(r.stdout);
    if (typeof want === 'object' && want !== null) expect(got, `stdout as JSON\n${shown}`).toMatchObject(want);
    else expect(got, `stdout as JSON\n${shown}`).toEqual(want);
  }
  const readScratch = (p: string): string => {
    const path = join(dir, p);
    expect(existsSync(path), `\`${p}\` exists after the run\n${shown}`).toBe(true);
    return readFileSync(path, 'utf8');
  };
  for (const [p, text] of Object.entries(c.want_files ?? {})) expect(readScratch(p), `the content of \`${p}\``).toBe(substitute(text, vars));
  for (const [p, subs] of Object.entries(c.want_file_contains ?? {})) {
    const text = readScratch(p);
    for (const s of substitute(subs, vars)) expect(text, `\`${p}\` contains`).toContain(s);
  }
  for (const [p, want] of Object.entries(c.want_file_json ?? {})) {
    const got: unknown = JSON.parse(readScratch(p));
    const w = substitute(want, vars);
    if (typeof w === 'object' && w !== null) expect(got, `\`${p}\` as JSON`).toMatchObject(w);
    else expect(got, `\`${p}\` as JSON`).toEqual(w);
  }
  for (const p of c.want_no_files ?? []) expect(existsSync(join(dir, p)), `\`${p}\` does not exist after the run\n${shown}`).toBe(false);
}

describe('the cli-case loader', () => {
  const dirWith = (yaml: string): string => {
    const d = mkdtempSync(join(scratchRoot, 'loader-'));
    writeFileSync(join(d, 'x.yaml'), yaml);
    return d;
  };
  const ok = 'cases:\n  - note: a\n    argv: [--version]\n    want_code: 0\n    want_stdout: "0.1.0\\n"\n';
  it('loads a well-formed case', () => {
    expect(loadCliCases(dirWith(ok))).toMatchObject([{ note: 'a', argv: ['--version'], want_code: 0, want_stdout: '0.1.0\n', source: 'x.yaml' }]);
  });
  it('rejects unknown fields, so a typo cannot silently check nothing', () => {
    expect(() => loadCliCases(dirWith(ok.replace('want_stdout', 'want_sdtout')))).toThrow(/unknown field `want_sdtout`/);
  });
  it('rejects a case that expects nothing but its exit status', () => {
    expect(() => loadCliCases(dirWith('cases:\n  - note: a\n    argv: []\n    want_code: 0\n'))).toThrow(/must expect something/);
  });
  it('requires the exit status', () => {
    expect(() => loadCliCases(dirWith('cases:\n  - note: a\n    argv: []\n    want_stdout: ""\n'))).toThrow(/`want_code`/);
  });
  it('rejects duplicate notes', () => {
    expect(() => loadCliCases(dirWith(`${ok}${ok.slice('cases:\n'.length)}`))).toThrow(/duplicate note `a`/);
  });
  it('rejects paths outside the scratch directory', () => {
    expect(() => loadCliCases(dirWith(`${ok}    want_no_files: [../x]\n`))).toThrow(/relative path inside the scratch directory/);
  });
});

describe.concurrent('cli', () => {
  cases.forEach((c, i) => {
    it(c.note, { timeout: TEST_TIMEOUT_MS }, () => run(c, i));
  });
});
