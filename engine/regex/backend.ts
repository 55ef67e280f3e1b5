/**
 * The regex engine behind regex.ts, as a small interface: compile a pattern whose flags are
 * checked, test strings with it, free it. Two implementations exist: re2js (backend-re2js.ts, the
 * default: pure JavaScript, garbage-collected) and re2-wasm (backend-re2wasm.ts, RE2 itself
 * compiled to WebAssembly, with a fixed memory). Both read the pattern as re2-wasm rewrites it
 * (`re2WasmPattern`), so a pattern means the same to either and to the parser of regex-parse.ts.
 *
 * Promises of every backend:
 * - `compile` never throws. An invalid pattern gives its error (message and offset as regex.ts
 *   documents them); an engine that cannot decide (out of memory, an internal failure) gives an
 *   error marked `transient`, which says nothing about the pattern.
 * - `test` searches (unanchored) the whole string it is given; it may throw when the engine fails
 *   (the caller counts that as a failed test, never as a match or a no-match).
 * - after `free`, the pattern is not used again.
 */
import type { MatchError } from '../match/types.js';

/** A compiled pattern. */
export interface CompiledPattern {
  test(text: string): boolean;
  /** Releases what the engine holds for the pattern (nothing, for a garbage-collected engine). */
  free(): void;
}

export type BackendCompile = { readonly ok: true; readonly pattern: CompiledPattern } | { readonly ok: false; readonly error: MatchError };

export interface RegexBackend {
  /** `re2js` or `re2-wasm`. */
  readonly name: string;
  /** Compiles `source` with `flags`, a subset of `ims` with each flag at most once. */
  compile(source: string, flags: string): BackendCompile;
}
