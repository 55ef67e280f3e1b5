/**
 * Installs the pinned Codex CLI from the npm registry into a cache folder outside git, once.
 *
 * The cache is `<root>/codex-<version>`, the root being `$DSHPOLICY_E2E_CACHE` when set, else `<repo>/.cache/e2e` (`.cache/` is
 * git-ignored). An install goes into a fresh sibling folder that is renamed into place only once it is
 * complete and verified, so concurrent callers (several processes, or several calls in one process)
 * never see a half-installed tree; the loser of a race throws its copy away and uses the winner's.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { access, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The exact Codex CLI release the end-to-end tests run. */
export const CODEX_VERSION = '0.171.0';
export const CODEX_PACKAGE = '@openai/codex';

/** Written last into a finished install; its absence means "not installed". */
const MARKER = '.dshpolicy-e2e-complete';
/** An npm install that takes longer than this is killed and reported. */
const NPM_TIMEOUT_MS = 10 * 60_000;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The folder the pinned Codex is (or will be) installed into. */
export function codexCacheDir(): string {
  const fromEnv = process.env['DSHPOLICY_E2E_CACHE'];
  // One cache root holds both agents' CLIs, each in a folder named by its version.
  const root = fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : join(repoRoot, '.cache', 'e2e');
  return join(root, `codex-${CODEX_VERSION}`);
}

/** The npm launcher `node_modules/.bin/codex` inside an install folder. */
export function codexBinIn(dir: string): string {
  return join(dir, 'node_modules', '.bin', 'codex');
}

/** Where npm put the native executable on Linux (what the launcher ends up running); undefined elsewhere. */
export function codexNativeIn(dir: string): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const triple = process.arch === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';
  const pkg = process.arch === 'arm64' ? 'codex-linux-arm64' : 'codex-linux-x64';
  return join(dir, 'node_modules', '@openai', pkg, 'vendor', triple, 'bin', 'codex');
}

let pending: Promise<string> | undefined;

/**
 * The path of the `codex` launcher of the pinned version, installing it first if the cache lacks it.
 * Calls in one process share one install; calls from several processes are safe (see the file comment).
 */
export function ensureCodex(): Promise<string> {
  pending ??= install(codexCacheDir()).catch((err: unknown) => {
    pending = undefined; // let a later call try again
    throw err;
  });
  return pending;
}

async function install(dir: string): Promise<string> {
  if (await isComplete(dir)) return codexBinIn(dir);
  const parent = dirname(dir);
  await mkdir(parent, { recursive: true });
  await removeAbandonedTemps(dir);

  const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(tmp);
    // A package.json of its own keeps npm from looking further up for a project root.
    await writeFile(join(tmp, 'package.json'), `${JSON.stringify({ name: 'codex-e2e-cache', private: true }, null, 2)}\n`);
    await runNpm(['install', '--prefix', tmp, '--no-audit', '--no-fund', `${CODEX_PACKAGE}@${CODEX_VERSION}`], parent);
    await verify(tmp);
    await writeFile(join(tmp, MARKER), `${CODEX_PACKAGE}@${CODEX_VERSION}\n`);
    await moveIntoPlace(tmp, dir);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  if (!(await isComplete(dir))) throw new Error(`codex install at ${dir} is incomplete after installing`);
  return codexBinIn(dir);
}

async function isComplete(dir: string): Promise<boolean> {
  try {
    await access(join(dir, MARKER));
    await access(codexBinIn(dir), fsc.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Checks that npm installed what was asked for, including the platform package with the native binary. */
async function verify(dir: string): Promise<void> {
  const pkgJson = join(dir, 'node_modules', '@openai', 'codex', 'package.json');
  let version: unknown;
  try {
    version = (JSON.parse(await readFile(pkgJson, 'utf8')) as { version?: unknown }).version;
  } catch (err) {
    throw new Error(`npm finished but ${pkgJson} is unreadable: ${String(err)}`);
  }
  if (version !== CODEX_VERSION) throw new Error(`npm installed ${CODEX_PACKAGE}@${String(version)}, expected ${CODEX_VERSION}`);
  try {
    await access(codexBinIn(dir), fsc.X_OK);
  } catch {
    throw new Error(`npm finished but ${codexBinIn(dir)} is missing`);
  }
  const native = codexNativeIn(dir);
  if (native === undefined) return;
  try {
    await access(native, fsc.X_OK);
  } catch {
    throw new Error(
      `npm finished but the native codex binary (${native}) is missing; ` +
        'the optional platform package was not installed (were optional dependencies disabled?)',
    );
  }
}

/** Renames the finished temp folder to `dir`; if another process got there first, keeps theirs. */
async function moveIntoPlace(tmp: string, dir: string): Promise<void> {
  try {
    await rename(tmp, dir);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
  }
  if (await isComplete(dir)) return; // a concurrent install won the race
  // Something unfinished sits there (not made by this module, whose renames are atomic): move it aside.
  const aside = `${dir}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  await rename(dir, aside);
  await rm(aside, { recursive: true, force: true });
  try {
    await rename(tmp, dir);
  } catch (err) {
    if (!(await isComplete(dir))) throw err;
  }
}

/** Deletes temp folders left by installs whose process is gone (killed mid-install). */
async function removeAbandonedTemps(dir: string): Promise<void> {
  const prefix = `${basename(dir)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(dir));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(?:tmp|stale)-(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length));
    if (m === null) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    const path = join(dirname(dir), name);
    try {
      if ((await stat(path)).isDirectory()) await rm(path, { recursive: true, force: true });
    } catch {
      // another process is cleaning up the same folder
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The environment for npm: ours, minus what an enclosing `npm run`/`npm test` injects about *this* package. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const k = key.toLowerCase();
    if (k.startsWith('npm_package_') || k.startsWith('npm_lifecycle_')) continue;
    if (k === 'npm_config_prefix' || k === 'npm_config_local_prefix' || k === 'npm_config_global') continue;
    env[key] = value;
  }
  env['npm_config_update_notifier'] = 'false';
  return env;
}

function runNpm(args: string[], cwd: string): Promise<void> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return new Promise((resolveRun, rejectRun) => {
    const tail: string[] = [];
    let tailLength = 0;
    const keep = (chunk: Buffer): void => {
      tail.push(chunk.toString('utf8'));
      tailLength += chunk.length;
      while (tailLength > 8192 && tail.length > 1) tailLength -= tail.shift()!.length;
    };
    const child = spawn(npm, args, { cwd, env: npmEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, NPM_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      rejectRun(new Error(`could not start \`${npm}\` to install ${CODEX_PACKAGE}@${CODEX_VERSION}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolveRun();
      const why = timedOut ? `timed out after ${NPM_TIMEOUT_MS / 1000} s` : signal !== null ? `was killed by ${signal}` : `exited with code ${String(code)}`;
      rejectRun(
        new Error(
          `\`npm ${args.join(' ')}\` ${why} while installing ${CODEX_PACKAGE}@${CODEX_VERSION} for the end-to-end tests ` +
            `(set DSHPOLICY_E2E=0 to skip them). npm said:\n${tail.join('').trim()}`,
        ),
      );
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
