/**
 * For the end-to-end tests that install dshpolicy into a real agent: a private copy of the built
 * bundles (`<repo>/.cache/<prefix>*`, git-ignored, so the bundles' packages still resolve from
 * `<repo>/node_modules`). A `tsup` rebuild empties dist/ for a few seconds (`clean: true`), which
 * must not pull the hook from under a running agent; the copy waits for a build in progress to
 * finish (the bundles present and their sizes steady), for a minute at most.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { join } from 'node:path';

export async function snapshotDist(repoRoot: string, bundles: readonly string[], prefix: string): Promise<string> {
  const dist = join(repoRoot, 'dist');
  const sizes = (): string => bundles.map((f) => (existsSync(join(dist, f)) ? statSync(join(dist, f)).size : -1)).join(',');
  const deadline = Date.now() + 60_000;
  for (let last = ''; ; ) {
    const now = sizes();
    if (!now.includes('-1') && now === last) break;
    if (Date.now() > deadline) throw new Error(`${dist} has no complete build (${bundles.join(', ')}): run \`npx tsup\` first`);
    last = now;
    await new Promise((r) => setTimeout(r, 500));
  }
  mkdirSync(join(repoRoot, '.cache'), { recursive: true });
  const copy = mkdtempSync(join(repoRoot, '.cache', prefix));
  for (const f of bundles) copyFileSync(join(dist, f), join(copy, f));
  return copy;
}
