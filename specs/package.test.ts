/**
 * The package as a host gets it: `npm pack` of the built tree (`npm test` builds before it tests),
 * installed offline into a fresh project in a temp directory. There README's "Using the engine from
 * TypeScript" example (taken from README by its code fence, so the two cannot drift) type-checks
 * with this repository's TypeScript (strict, node16 resolution, the package's .d.ts checked too) and
 * prints what README says it prints; so does the example host of examples/host/ (copied in as it is),
 * which prints the transcript of decisions examples/host/transcript.jsonl holds. An ES module and a
 * CommonJS consumer see the same exports, and the dependencies the engine loads lazily (ajv,
 * re2js) load in both builds. The tarball holds the CLI, hook and library bundles, the library's
 * types and LICENSE, and not the bench bundle.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Packing, installing and type-checking take some seconds each; a loaded machine gets more room. */
const STEP_TIMEOUT_MS = 60_000;
const SETUP_TIMEOUT_MS = 3 * STEP_TIMEOUT_MS;

/** What the tarball holds: the bundles `bin` and the hook run, the library and its types, and no bench. */
const PACKED = [
  'LICENSE',
  'README.md',
  'dist/cli.cjs',
  'dist/compiler.cjs',
  'dist/hook-main.cjs',
  'dist/hook.cjs',
  'dist/index.cjs',
  'dist/index.d.cts',
  'dist/index.d.ts',
  'dist/index.js',
  'package.json',
];

/** The public face's runtime exports (bridges/library.ts); its types are erased. */
const RUNTIME_EXPORTS = [
  'IR_SCHEMA',
  'IR_VERSION',
  'SEAMS',
  'applyGuards',
  'combineDecisions',
  'compileFiles',
  'compilePolicy',
  'compileText',
  'evaluate',
  'evaluateSync',
  'explain',
  'explainEvent',
  'hasErrors',
  'listener',
  'mergeDecisions',
  'normalizeEvent',
  'policySeams',
  'postTool',
  'preTool',
  'processHookRunner',
  'prompt',
  'resolveAsk',
  'seamDecision',
  'sessionStart',
  'settleAsk',
  'stop',
  'validateIR',
  'waterfall',
];

/** The policy README's example reads, as its text describes it. */
const EXAMPLE_POLICY = 'on pre-tool {\n  ask Bash command "git push *" because "pushing needs a human"\n}\n';
/** What README's example prints, line by line (its comments say so). */
const EXAMPLE_OUTPUT = ['ask', 'pushing needs a human', 'deny'];

/**
 * One consumer of the exports, written once and compiled both as an ES module (.mts) and as
 * CommonJS (.cts): it lists the exports, validates an IR (ajv) and decides by a regex (re2js).
 */
const SURFACE = `import * as lib from 'dshpolicy';

const { ir, diagnostics } = lib.compileText('on pre-tool {\\n  deny Bash when command matches /rm\\\\s+-rf/ because "no recursive deletes"\\n}\\n');
if (!ir) throw new Error(diagnostics.map((d) => d.message).join('\\n'));
const valid = lib.validateIR(JSON.parse(JSON.stringify(ir))).diagnostics;
const { event } = lib.normalizeEvent({ seam: 'pre-tool', tool: 'Bash', input: { command: 'rm -rf /tmp/x' } });
if (!event) throw new Error('the event did not normalise');
void lib.evaluate(lib.compilePolicy(ir), event).then((d) => {
  console.log(JSON.stringify({ names: Object.keys(lib).sort(), valid, decision: d.decision }));
});
`;

/** The example host: its files, copied into the fresh project's `seam-host/`, and what it prints. */
const HOST_EXAMPLE = join(repo, 'examples', 'host');
const HOST_FILES = ['host.ts', 'policy.dshpolicy'];
const HOST_TRANSCRIPT = join(HOST_EXAMPLE, 'transcript.jsonl');

/** The example of README's "Using the engine from TypeScript": the first `ts` fence after the heading. */
function readmeExample(): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const at = readme.indexOf('## Using the engine from TypeScript');
  if (at < 0) throw new Error('README.md has no section `Using the engine from TypeScript`');
  const fence = /^```ts\n([\s\S]*?)^```$/m.exec(readme.slice(at));
  if (!fence) throw new Error('the section `Using the engine from TypeScript` of README.md has no `ts` code fence');
  return fence[1]!;
}

/**
 * The environment of the npm and node processes, without what `npm test` sets for this repository
 * (`npm_config_local_prefix` would point a nested npm at it); npm's own configuration stays.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    const lower = k.toLowerCase();
    if (lower === 'init_cwd' || lower === 'npm_config_local_prefix' || (lower.startsWith('npm_') && !lower.startsWith('npm_config_'))) continue;
    env[k] = v;
  }
  return env;
}

function run(file: string, args: string[], cwd: string): string {
  try {
    return execFileSync(file, args, { cwd, env: childEnv(), encoding: 'utf8', timeout: STEP_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`\`${[file, ...args].join(' ')}\` failed in \`${cwd}\`: ${e.stderr || e.stdout || e.message}`);
  }
}

interface LockEntry {
  version: string;
  resolved?: string;
  dependencies?: Record<string, string>;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [key: string]: unknown;
}

/**
 * The fresh project's lockfile: the package's dependencies exactly as this repository's lockfile
 * has them, so that npm installs them from its cache (this repository's install put their tarballs
 * there) without asking the registry for metadata. A dependency is looked up where node would
 * find it, from the dependent's folder up.
 */
function hostLock(spec: string, integrity: string, registry: string): unknown {
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
  const packages: Record<string, unknown> = {
    '': { name: 'host', dependencies: { dshpolicy: spec } },
    'node_modules/dshpolicy': { version: pkg.version, resolved: spec, integrity, dependencies: pkg.dependencies },
  };
  const locate = (name: string, from: string): string => {
    for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
      const key = at === '' ? `node_modules/${name}` : `${at}/node_modules/${name}`;
      if (lock.packages[key]) return key;
      if (at === '') throw new Error(`package-lock.json has no \`${name}\` (needed by \`${from || 'dshpolicy'}\`)`);
    }
  };
  const todo: [string, string][] = Object.keys(pkg.dependencies).map((name) => [name, '']);
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [name, from] = next;
    const key = locate(name, from);
    if (key in packages) continue;
    const entry = { ...lock.packages[key]! };
    // The repository's marks of dev-only packages do not hold where these are the package's dependencies.
    delete entry.dev;
    delete entry.devOptional;
    delete entry.peer;
    entry.resolved ??= `${registry}${name}/-/${name.split('/').pop()!}-${entry.version}.tgz`;
    packages[key] = entry;
    for (const dep of Object.keys(entry.dependencies ?? {})) todo.push([dep, key]);
  }
  return { name: 'host', lockfileVersion: 3, requires: true, packages };
}

describe('the packed package', () => {
  let scratch = '';
  let host = '';
  let packed: string[] = [];

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'dshpolicy-package-'));
    const packDir = join(scratch, 'pack');
    host = join(scratch, 'host');
    mkdirSync(packDir);
    mkdirSync(host);
    // The tree is built already: packing must not rebuild dist/ under other tests' feet.
    const out = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir], repo)) as {
      filename: string;
      integrity: string;
      files: { path: string }[];
    }[];
    const tarball = out[0]!;
    packed = tarball.files.map((f) => f.path).sort();
    const spec = `file:../pack/${tarball.filename}`;
    const registry = run('npm', ['config', 'get', 'registry'], host).trim().replace(/\/?$/, '/');
    writeFileSync(join(host, 'package.json'), `${JSON.stringify({ name: 'host', private: true, type: 'module', dependencies: { dshpolicy: spec } }, null, 2)}\n`);
    writeFileSync(join(host, 'package-lock.json'), `${JSON.stringify(hostLock(spec, tarball.integrity, registry), null, 2)}\n`);
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(packDir, tarball.filename)], host);
    writeFileSync(join(host, 'policy.dshpolicy'), EXAMPLE_POLICY);
    writeFileSync(join(host, 'example.ts'), readmeExample());
    writeFileSync(join(host, 'surface.mts'), SURFACE);
    writeFileSync(join(host, 'surface.cts'), SURFACE);
    mkdirSync(join(host, 'seam-host'));
    for (const file of HOST_FILES) copyFileSync(join(HOST_EXAMPLE, file), join(host, 'seam-host', file));
    const tsconfig = {
      compilerOptions: {
        strict: true,
        module: 'node16',
        moduleResolution: 'node16',
        target: 'es2022',
        types: ['node'],
        typeRoots: [join(repo, 'node_modules', '@types')],
        skipLibCheck: false,
        noEmitOnError: true,
      },
      files: ['example.ts', 'surface.mts', 'surface.cts', 'seam-host/host.ts'],
    };
    writeFileSync(join(host, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
    run(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', host], host);
  }, SETUP_TIMEOUT_MS);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('holds the CLI, hook and library bundles, the types and LICENSE, and not the bench bundle', () => {
    expect(packed).toEqual(PACKED);
    expect(packed).not.toContain('dist/bench.cjs');
  });

  it("runs README's example as README says", () => {
    expect(run(process.execPath, ['example.js'], host).split('\n').slice(0, -1)).toEqual(EXAMPLE_OUTPUT);
  });

  it('runs the example host of examples/host/, which prints its transcript of decisions', () => {
    const printed = run(process.execPath, [join('seam-host', 'host.js')], host).split('\n').slice(0, -1);
    expect(printed).toEqual(readFileSync(HOST_TRANSCRIPT, 'utf8').split('\n').slice(0, -1));
    const lines = printed.map((l) => JSON.parse(l) as { at: string; command?: string; decision: { kind: string; approval?: string } });
    // Each call as it ends after the guards: allowed, denied, asked and approved once, asked and cancelled.
    const calls = lines.filter((l) => l.at === 'guards').map((l) => [l.command, l.decision.kind, l.decision.approval ?? null]);
    expect(calls).toEqual([
      ['npm test', 'allow', null],
      ['sudo rm -rf /', 'deny', null],
      ['git push origin main', 'allow', 'allowed-once'],
      ['git push origin v2', 'deny', 'cancelled'],
      ['npm run lint', 'allow', null],
    ]);
    const at = (point: string) => lines.filter((l) => l.at === point).map((l) => l.decision.kind);
    expect(at('agent/session-start')).toEqual(['context']);
    expect(at('agent/prompt-submit')).toEqual(['block', 'allow']);
    expect(at('tools/post-execute')).toEqual(['accept', 'accept', 'accept', 'accept', 'accept']);
    expect(at('agent/turn-continuation')).toEqual(['continue', 'stop']);
  });

  for (const [format, file] of [
    ['an ES module', 'surface.mjs'],
    ['CommonJS', 'surface.cjs'],
  ] as const) {
    it(`gives ${format} the public exports, and their lazily loaded dependencies`, () => {
      expect(JSON.parse(run(process.execPath, [file], host))).toEqual({ names: RUNTIME_EXPORTS, valid: [], decision: 'deny' });
    });
  }
});
