/**
 * The test runner's configuration: the whole repository is the root (every `*.test.ts` beside its
 * code), and every test file starts with the built-in agents' hook protocols registered with the
 * engine, as every entry point of the package has them (engine and dsl tests run imported hooks
 * and check hook dialects without importing bridges/, which their layer may not).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    setupFiles: [fileURLToPath(new URL('./setup.ts', import.meta.url))],
  },
});
