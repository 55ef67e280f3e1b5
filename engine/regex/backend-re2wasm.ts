/**
 * The re2-wasm backend: RE2 itself (C++, compiled to WebAssembly), as `new RE2(source, 'u' + flags)`.
 * It is the reference for RE2's semantics in the differential properties and the bench; the
 * default backend is re2js (see regex.ts and docs/performance.md, "Regex backend").
 *
 * What it does that re2js does not: re2-wasm rewrites the pattern itself (regex-parse.ts,
 * `re2WasmPattern`); RE2 searches UTF-8 bytes, so `\B` holds inside a character outside ASCII
 * and `\C` matches one byte; a text's unpaired surrogates are garbled by the conversion to UTF-8
 * (a high one merges with the next code unit). Its memory is a fixed 16 MB that the garbage
 * collector does not reclaim: every compiled pattern must be freed, and a compile or a test
 * that finds the memory full fails (a compile gives a `transient` error, a test throws).
 *
 * re2-wasm instantiates its WebAssembly module when loaded (tens of milliseconds), so it is
 * loaded at the first compile.
 */
import type { RE2 } from 're2-wasm';
import { lazyRequire } from '../require.js';
import type { RegexBackend, BackendCompile } from './backend.js';
import { explainSyntaxError } from './regex-errors.js';

let re2Class: typeof RE2 | undefined;
function re2(): typeof RE2 {
  return (re2Class ??= (lazyRequire('re2-wasm') as { RE2: typeof RE2 }).RE2);
}

/** Compiled patterns not yet freed (for tests). */
let held = 0;
export function re2WasmHeld(): number {
  return held;
}

/** re2-wasm's errors when its memory is exhausted (an Emscripten abort), as opposed to a pattern's. */
function isResourceError(error: unknown): boolean {
  // A WebAssembly.RuntimeError (the engine layer is typed without the WebAssembly globals).
  if (error instanceof Error && error.name === 'RuntimeError') return true;
  const message = error instanceof Error ? error.message : String(error);
  return /\(OOM\)|out of memory|Cannot enlarge memory|^abort\(/i.test(message);
}

function freeRe2(re: RE2): void {
  try {
    (re as unknown as { wrapper?: { delete?: () => void } }).wrapper?.delete?.();
  } catch {
    // already released
  }
}

/** re2-wasm's message `Invalid regular expression: /src/uflags: code: fragment` as a MatchError. */
function explainRe2WasmError(source: string, flags: string, raw: string): BackendCompile {
  let detail = raw;
  const rendered = source === '' ? '(?:)' : source.replace(/(^|[^\\])((?:\\\\)*)\//gu, '$1$2\\/');
  const prefix = `Invalid regular expression: /${rendered}/u${flags}: `;
  if (detail.startsWith(prefix)) detail = detail.slice(prefix.length);
  else if (detail.startsWith('Invalid regular expression: ')) detail = detail.slice('Invalid regular expression: '.length);
  const colon = detail.indexOf(': ');
  const code = (colon >= 0 ? detail.slice(0, colon) : detail).toLowerCase();
  // For `missing )` and `unexpected )` RE2 quotes the whole (rewritten) pattern; those are located by scanning.
  const fragment = colon >= 0 ? detail.slice(colon + 2) : '';
  return { ok: false, error: explainSyntaxError(source, code, fragment, detail) };
}

export const re2WasmBackend: RegexBackend = {
  name: 're2-wasm',
  compile(source: string, flags: string): BackendCompile {
    let RE2Class: typeof RE2;
    try {
      RE2Class = re2();
    } catch {
      return { ok: false, error: { message: 'the regex engine could not be loaded', offset: 0, transient: true } };
    }
    let re: RE2;
    try {
      re = new RE2Class(source, 'u' + flags);
    } catch (error) {
      if (isResourceError(error)) {
        return { ok: false, error: { message: 'the regex engine ran out of memory compiling this regex', offset: 0, transient: true } };
      }
      return explainRe2WasmError(source, flags, error instanceof Error ? error.message : String(error));
    }
    held++;
    let live = true;
    return {
      ok: true,
      pattern: {
        test: (text: string) => {
          re.lastIndex = 0;
          return re.test(text);
        },
        free: () => {
          if (!live) return;
          live = false;
          held--;
          freeRe2(re);
        },
      },
    };
  },
};
