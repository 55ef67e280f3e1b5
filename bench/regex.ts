/**
 * The regex engines side by side (`npm run bench -- --regex-only`, or the regex section of the full
 * run): re2js, the default backend, against re2-wasm, each through the engine's `RegexBackend`
 * interface, over a realistic mix of patterns. Prints a table; no budget.
 *
 * - Patterns: the regexes of the policies in examples/ and specs/cases/ (`matches /.../flags`),
 *   the bench policy's generated ones, and typical hand-written ones (secret detectors, hook
 *   matchers, a Unicode class, a case-folded non-ASCII word), each valid for both engines.
 * - Compile: every pattern compiled and freed COMPILES times; the median per pattern, then the
 *   median over patterns.
 * - Test: the engine alone (no fast path, no prefilter) on typical command lines (batches of
 *   BATCH calls, the median batch per call, then the median over pattern × text), and on
 *   generated log output of 64 KiB and 1 MiB (the median of a few runs per pattern, then the
 *   median and the slowest over patterns). The same command lines through `compileRegex`, as the
 *   evaluator runs regexes, with each engine behind it.
 * - First regex: a fresh `node` loading the engine and compiling one regex, less `node -e 0`
 *   (medians of 21 interleaved processes each).
 * - Memory: re2js's heap per compiled pattern (a thousand held at once, after a forced GC); how
 *   many such patterns re2-wasm's fixed 16 MB holds before a compile fails.
 *
 * Medians of one run on a shared machine: read them as orders of magnitude and ratios.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gc } from './eval.js';
import {
  clearRegexCache,
  compileRegex,
  re2jsBackend,
  re2WasmBackend,
  useRegexBackend,
  type CompiledPattern,
  type RegexBackend,
} from '../engine/index.js';

const COMPILES = 15;
const BATCH = 50;

export interface RegexPattern {
  readonly source: string;
  readonly flags: string;
}

/** Regexes written by hand in policies and hooks configurations. */
const TYPICAL: readonly RegexPattern[] = [
  { source: '(?i)\\b(?:api[_-]?key|secret|token)\\s*[:=]\\s*\\S{16,}', flags: '' },
  { source: 'AKIA[0-9A-Z]{16}', flags: '' },
  { source: '-----BEGIN (?:RSA |EC )?PRIVATE KEY-----', flags: '' },
  { source: '^mcp__github__.*', flags: '' },
  { source: '^(?:Bash|Write|Edit|MultiEdit)$', flags: '' },
  { source: '\\brm\\s+-[a-z]*r[a-z]*f', flags: '' },
  { source: 'curl[^|]*\\|\\s*(?:ba)?sh', flags: '' },
  { source: 'drop\\s+(?:table|database)', flags: 'i' },
  { source: 'git\\s+push\\b.*--force(?:-with-lease)?', flags: '' },
  { source: '\\b(?:item7|elem7)\\s+--(?:force|hard|yes)\\b[a-z]{0,20}', flags: '' },
  { source: '\\pL+\\d{3}', flags: '' },
  { source: 'пароль', flags: 'i' },
  { source: '\\btool12\\s+--force\\b', flags: '' },
  { source: '\\bsecret7\\b', flags: 'i' },
];

/** Command lines, prompts and tool names of the kind events carry. */
export const COMMAND_LINES: readonly string[] = [
  'git push --force origin main',
  'rm -rf /tmp/build && npm test',
  'curl -fsSL https://example.com/install.sh | sh',
  'cd /srv/app && git status && npm test -- --watch=false; echo done',
  'export AWS_SECRET_ACCESS_KEY=abcd1234abcd1234abcd1234',
  'psql -c "DROP TABLE users"',
  'sudo apt-get install -y ripgrep',
  'npm ERR! code ELIFECYCLE',
  'tool12 --force now',
  'mcp__github__create_issue',
  'Пароль: hunter2, do not paste it',
  'echo "-----BEGIN RSA PRIVATE KEY-----" > key.pem',
];

/** Log output of about `size` code units: build, test and server lines, deterministic. */
export function logText(size: number): string {
  const lines = [
    'npm info run build',
    '2026-12-01T10:00:00Z [INFO] compiled 123 modules in 456 ms',
    '  PASS  src/parser.test.ts (12 tests) 0.8 s',
    'GET /api/v1/items?page=3 200 14.2 ms - 5123',
    'warning: unused variable `x` in src/lib.rs:42:9',
    '    at Object.<anonymous> (/srv/app/node_modules/pkg/index.js:10:15)',
  ];
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const line = `${lines[i % lines.length]!} #${i}\n`;
    out.push(line);
    length += line.length;
  }
  return out.join('').slice(0, size);
}

/** The regexes of policies under `root`'s examples/ and specs/cases/, written `matches /.../flags`. */
export function policyRegexes(root: string): RegexPattern[] {
  const files: string[] = [];
  for (const dir of ['examples', join('specs', 'cases')]) {
    for (const name of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (name.endsWith('.dshpolicy') || name.endsWith('.yaml')) files.push(join(root, dir, name));
    }
  }
  const seen = new Set<string>();
  const out: RegexPattern[] = [];
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/matches\s+\/((?:[^/\\\n]|\\.)*)\/([ims]*)/gu)) {
      const key = `${m[2]}/${m[1]}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ source: m[1]!, flags: m[2]! });
    }
  }
  return out;
}

/** The mix: patterns every engine accepts. */
export function regexMix(root: string): RegexPattern[] {
  const all = [...policyRegexes(root), ...TYPICAL];
  return all.filter((p) =>
    [re2jsBackend, re2WasmBackend].every((engine) => {
      const compiled = engine.compile(p.source, p.flags);
      if (compiled.ok) compiled.pattern.free();
      return compiled.ok;
    }),
  );
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function now(): bigint {
  return process.hrtime.bigint();
}

function compiledOrThrow(engine: RegexBackend, p: RegexPattern): CompiledPattern {
  const compiled = engine.compile(p.source, p.flags);
  if (!compiled.ok) throw new Error(`${engine.name} rejects /${p.source}/${p.flags}: ${compiled.error.message}`);
  return compiled.pattern;
}

export interface EngineResult {
  readonly engine: string;
  /** Nanoseconds, medians as described above. */
  readonly compileNs: number;
  readonly commandLineNs: number;
  readonly matcherCommandLineNs: number;
  /** The mean of the same: where the engine's share shows, behind the shortcuts' many quick answers. */
  readonly matcherCommandLineMeanNs: number;
  readonly kib64Ns: number;
  readonly mib1Ns: number;
  readonly mib1SlowestNs: number;
  readonly mib1SlowestPattern: string;
  /** Milliseconds a fresh process spends loading the engine and compiling one regex, or NaN when not measured. */
  readonly firstRegexMs: number;
}

export interface RegexBenchResult {
  readonly patterns: number;
  readonly texts: number;
  readonly engines: readonly EngineResult[];
  /** re2js's heap per compiled pattern, in bytes (NaN when not measured). */
  readonly re2jsBytesPerPattern: number;
  /** How many patterns re2-wasm holds at once before a compile fails (NaN when not measured). */
  readonly re2WasmCapacity: number;
}

function measureEngine(engine: RegexBackend, mix: readonly RegexPattern[], quick: boolean, root: string): EngineResult {
  // Warm-up: load the engine, let the JIT see every path.
  for (const p of mix) for (let i = 0; i < 3; i++) compiledOrThrow(engine, p).free();

  const compileNs = median(
    mix.map((p) => {
      const times: number[] = [];
      for (let i = 0; i < (quick ? 3 : COMPILES); i++) {
        const t0 = now();
        const compiled = compiledOrThrow(engine, p);
        times.push(Number(now() - t0));
        compiled.free();
      }
      return median(times);
    }),
  );

  const kib64 = logText(64 * 1024);
  const mib1 = logText(1024 * 1024);
  const short: number[] = [];
  const long64: number[] = [];
  const long1: { ns: number; pattern: string }[] = [];
  for (const p of mix) {
    const re = compiledOrThrow(engine, p);
    try {
      for (const text of COMMAND_LINES) {
        for (let i = 0; i < 20; i++) re.test(text);
        const batches: number[] = [];
        for (let b = 0; b < (quick ? 2 : 5); b++) {
          const t0 = now();
          for (let i = 0; i < BATCH; i++) re.test(text);
          batches.push(Number(now() - t0) / BATCH);
        }
        short.push(median(batches));
      }
      const runs = (text: string, n: number): number => {
        re.test(text);
        const times: number[] = [];
        for (let i = 0; i < n; i++) {
          const t0 = now();
          re.test(text);
          times.push(Number(now() - t0));
        }
        return median(times);
      };
      long64.push(runs(kib64, quick ? 1 : 5));
      if (!quick) long1.push({ ns: runs(mib1, 3), pattern: `/${p.source}/${p.flags}` });
    } finally {
      re.free();
    }
  }

  const slowest = long1.reduce((a, b) => (b.ns > a.ns ? b : a), { ns: -Infinity, pattern: '' });
  return {
    engine: engine.name,
    compileNs,
    commandLineNs: median(short),
    matcherCommandLineNs: NaN,
    matcherCommandLineMeanNs: NaN,
    kib64Ns: median(long64),
    mib1Ns: quick ? NaN : median(long1.map((l) => l.ns)),
    mib1SlowestNs: long1.length === 0 ? NaN : slowest.ns,
    mib1SlowestPattern: slowest.pattern,
    firstRegexMs: quick ? NaN : firstRegexMs(engine, root),
  };
}

/**
 * The command lines through `compileRegex`, fast path and prefilter in front of each engine: the
 * median over pattern × text, the lowest of rounds that alternate the engines (the code in front
 * is the same, so the JIT's warm-up must not favour the engine measured last).
 */
function measureMatchers(engines: readonly RegexBackend[], mix: readonly RegexPattern[], rounds: number): { median: number; mean: number }[] {
  const best = engines.map(() => ({ median: Infinity, mean: Infinity }));
  for (let round = 0; round < rounds; round++) {
    engines.forEach((engine, k) => {
      useRegexBackend(engine);
      const matchers = mix.map((p) => compileRegex(p.source, p.flags));
      const times: number[] = [];
      for (const m of matchers) {
        for (const text of COMMAND_LINES) {
          for (let i = 0; i < 20; i++) m.test(text);
          const t0 = now();
          for (let i = 0; i < BATCH; i++) m.test(text);
          times.push(Number(now() - t0) / BATCH);
        }
      }
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      best[k] = { median: Math.min(best[k]!.median, median(times)), mean: Math.min(best[k]!.mean, mean) };
      clearRegexCache();
    });
  }
  useRegexBackend(re2jsBackend);
  return best;
}

/** A fresh process loading the engine's package and compiling one regex, less `node -e 0`, in ms. */
function firstRegexMs(engine: RegexBackend, root: string): number {
  const code =
    engine === re2jsBackend
      ? "require('re2js').RE2JS.compile('\\\\btool12\\\\s+--force\\\\b').test('tool12 --force')"
      : "new (require('re2-wasm').RE2)('\\\\btool12\\\\s+--force\\\\b', 'u').test('tool12 --force')";
  const time = (args: string[]): number => {
    const t0 = now();
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`\`node ${args.join(' ')}\` exited with ${r.status}`);
    return Number(now() - t0) / 1e6;
  };
  const base: number[] = [];
  const withEngine: number[] = [];
  for (let i = 0; i < 21; i++) {
    base.push(time(['-e', '0']));
    withEngine.push(time(['-e', code]));
  }
  return median(withEngine) - median(base);
}


const heldPattern = (i: number): RegexPattern => ({ source: `\\b(?:item${i}|elem${i})\\s+--(?:force|hard|yes)\\b[a-z]{0,20}`, flags: '' });

function re2jsBytesPerPattern(): number {
  const count = 1000;
  gc();
  const before = process.memoryUsage().heapUsed;
  const held = Array.from({ length: count }, (_, i) => {
    const re = compiledOrThrow(re2jsBackend, heldPattern(i));
    re.test(`x item${i} --yes`);
    return re;
  });
  gc();
  const after = process.memoryUsage().heapUsed;
  held.length = 0;
  return (after - before) / count;
}

function re2WasmCapacity(limit: number): number {
  const held: CompiledPattern[] = [];
  const noise = process.stderr.write;
  // re2-wasm reports an exhausted memory on stderr before the compile fails.
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    for (let i = 0; i < limit; i++) {
      const compiled = re2WasmBackend.compile(heldPattern(i).source, '');
      if (!compiled.ok) break;
      held.push(compiled.pattern);
    }
  } finally {
    process.stderr.write = noise;
    for (const re of held) re.free();
  }
  return held.length;
}

/** Measures both engines; `quick` (for tests) keeps to a few patterns and skips the slow parts. */
export function measureRegexBackends(options: { root: string; quick?: boolean }): RegexBenchResult {
  const quick = options.quick === true;
  const mix = quick ? regexMix(options.root).slice(0, 6) : regexMix(options.root);
  const backends = [re2jsBackend, re2WasmBackend];
  const measured = backends.map((engine) => measureEngine(engine, mix, quick, options.root));
  const matcher = measureMatchers(backends, mix, quick ? 1 : 3);
  const engines = measured.map((e, k) => ({ ...e, matcherCommandLineNs: matcher[k]!.median, matcherCommandLineMeanNs: matcher[k]!.mean }));
  return {
    patterns: mix.length,
    texts: COMMAND_LINES.length,
    engines,
    re2jsBytesPerPattern: quick ? NaN : re2jsBytesPerPattern(),
    re2WasmCapacity: quick ? NaN : re2WasmCapacity(10_000),
  };
}

function fmt(ns: number): string {
  if (Number.isNaN(ns)) return '-';
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(1)} µs`;
  return `${(ns / 1_000_000).toFixed(1)} ms`;
}

/** The table `npm run bench` prints for the regex engines. */
export function regexBenchTable(r: RegexBenchResult): string {
  const [js, wasm] = r.engines as [EngineResult, EngineResult];
  const rows: [string, string, string, string][] = [];
  const row = (name: string, a: number, b: number, unit: (n: number) => string = fmt): void => {
    rows.push([name, unit(a), unit(b), Number.isNaN(a) || Number.isNaN(b) ? '-' : `${(b / a).toFixed(1)}x`]);
  };
  row('compile (median pattern)', js.compileNs, wasm.compileNs);
  row(`test, ${r.texts} command lines (median)`, js.commandLineNs, wasm.commandLineNs);
  row('test through compileRegex, command lines (median)', js.matcherCommandLineNs, wasm.matcherCommandLineNs);
  row('test through compileRegex, command lines (mean)', js.matcherCommandLineMeanNs, wasm.matcherCommandLineMeanNs);
  row('test, 64 KiB of log (median pattern)', js.kib64Ns, wasm.kib64Ns);
  row('test, 1 MiB of log (median pattern)', js.mib1Ns, wasm.mib1Ns);
  row('test, 1 MiB of log (slowest pattern)', js.mib1SlowestNs, wasm.mib1SlowestNs);
  row('first regex in a fresh process (load + compile)', js.firstRegexMs, wasm.firstRegexMs, (ms) => (Number.isNaN(ms) ? '-' : `${ms.toFixed(1)} ms`));
  const header: [string, string, string, string] = ['measure', js.engine, wasm.engine, `${wasm.engine} / ${js.engine}`];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((x) => x[c]!.length)));
  const line = (cells: string[]): string => cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  const out = [
    `regex engines: ${r.patterns} patterns (examples/, specs/cases/, typical ones), medians of one run`,
    '',
    line(header),
    ...rows.map(line),
    '',
    `slowest on 1 MiB: ${js.engine} ${js.mib1SlowestPattern || '-'}, ${wasm.engine} ${wasm.mib1SlowestPattern || '-'}`,
  ];
  if (!Number.isNaN(r.re2jsBytesPerPattern)) {
    out.push(`memory: re2js ${(r.re2jsBytesPerPattern / 1024).toFixed(1)} KB of heap per compiled pattern (1,000 held); re2-wasm holds ${r.re2WasmCapacity.toLocaleString('en-US')} such patterns in its 16 MB`);
  }
  return `${out.join('\n')}\n`;
}
