/**
 * `require` for loading CommonJS packages lazily, in both builds: the bundled CLI is CommonJS (a
 * hook process starts faster without Node's ES module loader) and has `require`; the sources run as
 * ES modules (tests), where it is made from this module's URL.
 */
import { createRequire } from 'node:module';

declare const require: NodeJS.Require | undefined;

export const lazyRequire: NodeJS.Require = typeof require === 'function' ? require : createRequire(import.meta.url);
