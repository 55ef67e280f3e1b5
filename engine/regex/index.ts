/**
 * Regexes in RE2 syntax: one module for checking, compiling and testing them (regex.ts) behind an
 * engine interface with two engines (backend.ts: re2js, the default, and re2-wasm), and one
 * syntax tree of RE2 patterns (regex-parse.ts) with the analyses written over it: the JavaScript
 * fast path (regex-fast.ts), required literals (regex-literals.ts, searched for by
 * literal-scanner.ts) and whether a regex can match at all (regex-satisfiable.ts). Character
 * sets are regex-charset.ts's. Nothing here throws on user input.
 */
export {
  checkRegex,
  clearRegexCache,
  compileRegex,
  regexBackend,
  regexFailures,
  regexMatches,
  regexPlan,
  useRegexBackend,
  MAX_REGEX_INPUT,
} from './regex.js';
export type { BackendCompile, CompiledPattern, RegexBackend } from './backend.js';
export { re2jsBackend } from './backend-re2js.js';
export { re2WasmBackend } from './backend-re2wasm.js';
export { parseRegex, isWellFormedText, type AssertKind, type ParseResult, type RegexNode, type SourceSpan } from './regex-parse.js';
export { analyseRegex, type RegexAnalysis } from './regex-fast.js';
export { requiredLiteralOptions, requiredLiterals, type RequiredLiterals } from './regex-literals.js';
export { LiteralScanner, type LiteralScannerOptions } from './literal-scanner.js';
export { neverMatches, type NeverMatches } from './regex-satisfiable.js';
export * from './regex-charset.js';
