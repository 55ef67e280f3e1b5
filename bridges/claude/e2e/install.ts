/**
 * Installs the pinned Claude Code CLI into a cache folder outside git and finds its native binary.
 *
 * Layout of the cache folder (`$DSHPOLICY_E2E_CACHE/claude-<version>`, else `<repo>/.cache/e2e/claude-<version>`):
 *   install/            the npm prefix, moved into place only once complete
 *   install/.e2e.json   marker: the version and the binary path (relative to the cache folder)
 *   .lock/              held while installing (mkdir is atomic)
 *   .staging-<id>/      a prefix being installed; renamed to install/ when done
 */
import { spawn } from 'node:child_process';
import { constants as fsConstants, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killTree } from './proc.js';

export const CLAUDE_PACKAGE = '@anthropic-ai/claude-code';
export const CLAUDE_VERSION = '2.1.328';

/** `<repo>`: this file lives in `<repo>/bridges/claude/e2e/`. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const INSTALL_TIMEOUT_MS = 5 * 60_000;
const LOCK_WAIT_MS = 6 * 60_000;
/** A lock older than this is taken to belong to a crashed installer. */
const LOCK_STALE_MS = 10 * 60_000;
const OUTPUT_CAP = 64 * 1024;
/** The npm wrapper package ships a small shell stub in place of the binary; the real one is ~370 MB. */
const MIN_BINARY_BYTES = 1024 * 1024;

interface Marker {
  version: string;
  binary: string;
}

/** The cache folder for the pinned version. */
export function claudeCacheDir(): string {
  const fromEnv = process.env.DSHPOLICY_E2E_CACHE;
  // One cache root holds both agents' CLIs, each in a folder named by its version.
  const root = fromEnv !== undefined && fromEnv !== '' ? path.resolve(fromEnv) : path.join(REPO_ROOT, '.cache', 'e2e');
  return path.join(root, `claude-${CLAUDE_VERSION}`);
}

let pending: Promise<string> | undefined;

/**
 * The path of the pinned `claude` binary, installing it on first use. Safe to call from several
 * processes at once; the result is memoised per process.
 */
export function ensureClaude(): Promise<string> {
  if (pending === undefined) {
    pending = ensureAt(claudeCacheDir());
    pending.catch(() => {
      pending = undefined;
    });
  }
  return pending;
}

async function ensureAt(dir: string): Promise<string> {
  const ready = await readInstalled(dir);
  if (ready !== undefined) return ready;
  await fs.mkdir(dir, { recursive: true });
  const release = await acquireLock(path.join(dir, '.lock'));
  try {
    // Another process may have finished while we waited for the lock.
    const again = await readInstalled(dir);
    if (again !== undefined) return again;
    return await install(dir);
  } finally {
    await release();
  }
}

async function readInstalled(dir: string): Promise<string | undefined> {
  let marker: Marker;
  try {
    marker = JSON.parse(await fs.readFile(path.join(dir, 'install', '.e2e.json'), 'utf8')) as Marker;
  } catch {
    return undefined;
  }
  if (marker.version !== CLAUDE_VERSION || typeof marker.binary !== 'string') return undefined;
  const binary = path.join(dir, marker.binary);
  return (await isNativeBinary(binary)) ? binary : undefined;
}

async function install(dir: string): Promise<string> {
  const installDir = path.join(dir, 'install');
  // An install of another version, or a damaged one: move it aside first.
  await removeAside(dir, installDir);
  const staging = path.join(dir, `.staging-${process.pid}-${Date.now().toString(36)}`);
  await fs.mkdir(staging, { recursive: true });
  try {
    const spec = `${CLAUDE_PACKAGE}@${CLAUDE_VERSION}`;
    const args = [
      'install',
      '--prefix',
      staging,
      '--no-audit',
      '--no-fund',
      // The package declares node >=22 but only ships a native binary; do not let a user's
      // engine-strict or omit=optional configuration break the install.
      '--engine-strict=false',
      '--include=optional',
      spec,
    ];
    const npm = await run(npmCommand(), args, staging, INSTALL_TIMEOUT_MS);
    if (npm.code !== 0) {
      const why = npm.timedOut ? `timed out after ${INSTALL_TIMEOUT_MS / 1000} s` : `exit code ${String(npm.code)}`;
      throw new Error(
        `e2e: \`npm ${args.join(' ')}\` failed (${why}).\n` +
          `Set DSHPOLICY_E2E=0 to skip the Claude Code end-to-end tests.\n` +
          `npm output (tail):\n${tail(npm.stderr || npm.stdout)}`,
      );
    }
    const found = await findBinary(staging);
    if (found === undefined) {
      throw new Error(
        `e2e: installed ${spec} but found no native binary for ${process.platform}-${process.arch} under ${staging}/node_modules`,
      );
    }
    const home = path.join(staging, '.version-home');
    await fs.mkdir(home);
    const version = await run(found, ['--version'], home, 60_000, { HOME: home, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
    await fs.rm(home, { recursive: true, force: true });
    if (!version.stdout.includes(CLAUDE_VERSION)) {
      throw new Error(
        `e2e: ${found} --version printed ${JSON.stringify(tail(version.stdout + version.stderr, 500))}, expected ${CLAUDE_VERSION}`,
      );
    }
    const relative = path.join('install', path.relative(staging, found));
    const marker: Marker = { version: CLAUDE_VERSION, binary: relative };
    await fs.writeFile(path.join(staging, '.e2e.json'), JSON.stringify(marker, null, 2) + '\n');
    await fs.rename(staging, installDir);
    return path.join(dir, relative);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

async function removeAside(dir: string, installDir: string): Promise<void> {
  try {
    await fs.access(installDir);
  } catch {
    return;
  }
  const aside = path.join(dir, `.old-${process.pid}-${Date.now().toString(36)}`);
  await fs.rename(installDir, aside);
  await fs.rm(aside, { recursive: true, force: true });
}

/** The platform package's binary first; the wrapper's `bin/claude.exe` once a postinstall replaced the stub. */
async function findBinary(prefix: string): Promise<string | undefined> {
  const scope = path.join(prefix, 'node_modules', '@anthropic-ai');
  const platform = `${process.platform}-${process.arch}`;
  const exe = process.platform === 'win32' ? 'claude.exe' : 'claude';
  const candidates = [
    path.join(scope, `claude-code-${platform}`, exe),
    path.join(scope, `claude-code-${platform}-musl`, exe),
    path.join(scope, 'claude-code', 'bin', 'claude.exe'),
  ];
  for (const candidate of candidates) {
    if (await isNativeBinary(candidate)) return candidate;
  }
  return undefined;
}

async function isNativeBinary(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size < MIN_BINARY_BYTES) return false;
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function acquireLock(lock: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await fs.mkdir(lock);
      await fs.writeFile(path.join(lock, 'owner'), `${process.pid} ${os.hostname()} ${new Date().toISOString()}\n`);
      return () => fs.rm(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    try {
      const stat = await fs.stat(lock);
      if (Date.now() - stat.mtimeMs > LOCK_STALE_MS) {
        await fs.rm(lock, { recursive: true, force: true });
        continue;
      }
    } catch {
      continue; // released between our mkdir and stat
    }
    if (Date.now() > deadline) {
      throw new Error(`e2e: timed out waiting for the install lock ${lock} (remove it if no install is running)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function npmCommand(): string {
  return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

interface Ran {
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-OUTPUT_CAP);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-OUTPUT_CAP);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`e2e: could not run ${command}: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stdout, stderr });
    });
  });
}

function tail(text: string, max = 4000): string {
  const trimmed = text.trim();
  return trimmed.length <= max ? trimmed : `...${trimmed.slice(-max)}`;
}
