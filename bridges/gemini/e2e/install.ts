/**
 * Installs Gemini CLI's core package (which holds its policy engine) at a pinned version into a
 * cache folder outside git, once: `$DSHPOLICY_E2E_CACHE/gemini-core-<version>`, else
 * `<repo>/.cache/e2e/gemini-core-<version>`. `install/` appears only when complete; `.lock/`
 * is held while installing (mkdir is atomic).
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const GEMINI_CORE_PACKAGE = '@google/gemini-cli-core';
export const GEMINI_CORE_VERSION = '0.61.0';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const INSTALL_TIMEOUT_MS = 5 * 60_000;
const LOCK_STALE_MS = 10 * 60_000;

export function geminiCoreCacheDir(): string {
  const fromEnv = process.env.DSHPOLICY_E2E_CACHE;
  const root = fromEnv !== undefined && fromEnv !== '' ? path.resolve(fromEnv) : path.join(REPO_ROOT, '.cache', 'e2e');
  return path.join(root, `gemini-core-${GEMINI_CORE_VERSION}`);
}

/** The package's folder, installing it on first use. */
export async function ensureGeminiCore(): Promise<string> {
  const dir = geminiCoreCacheDir();
  const pkg = path.join(dir, 'install', 'node_modules', ...GEMINI_CORE_PACKAGE.split('/'));
  const marker = path.join(dir, 'install', '.e2e.json');
  const ready = async () => (await fs.readFile(marker, 'utf8').catch(() => '')).includes(GEMINI_CORE_VERSION);
  if (await ready()) return pkg;
  await fs.mkdir(dir, { recursive: true });
  const lock = path.join(dir, '.lock');
  for (const started = Date.now(); ; ) {
    try {
      await fs.mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const stat = await fs.stat(lock).catch(() => undefined);
      if (stat !== undefined && Date.now() - stat.mtimeMs > LOCK_STALE_MS) await fs.rm(lock, { recursive: true, force: true });
      if (Date.now() - started > INSTALL_TIMEOUT_MS + 60_000) throw new Error(`e2e: timed out waiting for the install lock ${lock}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (await ready()) return pkg;
    const staging = path.join(dir, `.staging-${process.pid}`);
    await fs.rm(staging, { recursive: true, force: true });
    await fs.mkdir(staging, { recursive: true });
    const args = ['install', '--prefix', staging, '--no-audit', '--no-fund', '--ignore-scripts', '--engine-strict=false', `${GEMINI_CORE_PACKAGE}@${GEMINI_CORE_VERSION}`];
    await new Promise<void>((resolve, reject) =>
      execFile(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd: staging, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, _out, stderr) =>
        err ? reject(new Error(`e2e: \`npm ${args.join(' ')}\` failed: ${err.message}\n${stderr.slice(-4000)}\nSet DSHPOLICY_E2E=0 to skip the Gemini CLI tests.`)) : resolve(),
      ),
    );
    await fs.writeFile(path.join(staging, '.e2e.json'), `${JSON.stringify({ version: GEMINI_CORE_VERSION })}\n`);
    await fs.rm(path.join(dir, 'install'), { recursive: true, force: true });
    await fs.rename(staging, path.join(dir, 'install'));
    return pkg;
  } finally {
    await fs.rm(lock, { recursive: true, force: true });
  }
}
