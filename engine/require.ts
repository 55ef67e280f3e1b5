/**
 * `require` for loading CommonJS packages lazily, in every build: the bundled CLI and hook are
 * CommonJS (a hook process starts faster without Node's ES module loader), the library ships as
 * both CommonJS and an ES module, and the sources run as ES modules (tests). It is made from this
 * file's own location (`__filename` in CommonJS, the module's URL otherwise), never taken from a
 * global `require`, which an ES module bundle replaces with a stub that throws.
 */
import { createRequire } from 'node:module';

declare const __filename: string | undefined;

export const lazyRequire: NodeJS.Require = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
