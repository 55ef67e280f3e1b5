/**
 * The re2js backend (the default): a pure-JavaScript port of RE2 (by way of Go's regexp), linear
 * in time like RE2, its compiled patterns ordinary garbage-collected objects, and no WebAssembly,
 * so it has no memory ceiling of its own and runs in browsers too.
 *
 * It is given the pattern as re2-wasm rewrites it (`re2WasmPattern`: `\uXXXX`, `\u{...}`, `\cX`,
 * `(?<name>` and flag `m` as re2-wasm spells them for RE2), so a pattern means what it means with
 * re2-wasm, and what regex-parse.ts reads. Its errors are mapped onto RE2's codes (regex-errors.ts).
 *
 * Where it differs from RE2 as re2-wasm runs it (each held by a test in backend-re2js.test.ts):
 * - it reads texts as code points, not UTF-8 bytes: `\B` never holds inside a character, and an
 *   unpaired surrogate of a text is one character of its own, as in a JavaScript `u` RegExp
 *   (re2-wasm garbles it when converting to UTF-8);
 * - `\C` (one byte) does not exist, and a syntax tree more than 1000 deep (1000 nested capturing
 *   groups) is refused (`expression nests too deeply`): both are errors;
 * - an unpaired surrogate in the pattern is an error (`invalid utf-8`), as UTF-8 cannot hold it;
 * - it has no 16 MB ceiling, so large programs (`\pL{1000}`) compile;
 * - its Unicode tables are newer (scripts and letters added since re2-wasm's RE2 are known).
 *
 * re2js is loaded at the first compile, so a process that compiles no regex never loads it.
 */
import type { RE2JS as RE2JSClass, RE2JSSyntaxException as SyntaxExceptionClass } from 're2js';
import { lazyRequire } from '../require.js';
import type { BackendCompile, RegexBackend } from './backend.js';
import { explainSyntaxError } from './regex-errors.js';
import { isWellFormedText, re2WasmPattern } from './regex-parse.js';

interface Re2js {
  readonly RE2JS: typeof RE2JSClass;
  readonly RE2JSSyntaxException: typeof SyntaxExceptionClass;
}

let module: Re2js | undefined;
function re2js(): Re2js {
  return (module ??= lazyRequire('re2js') as Re2js);
}

/** re2js's error codes (Go's wording) as RE2's, as re2-wasm prints them. */
const CODES: Readonly<Record<string, string>> = {
  'missing closing )': 'missing )',
  'unexpected )': 'unexpected )',
  'missing closing ]': 'missing ]',
  'trailing backslash at end of expression': 'trailing \\',
  'invalid escape sequence': 'invalid escape sequence',
  'invalid or unsupported perl syntax': 'invalid perl operator',
  'missing argument to repetition operator': 'missing argument to repetition operator',
  'invalid nested repetition operator': 'bad repetition operator',
  'invalid repeat count': 'invalid repetition size',
  'invalid character class range': 'invalid character class range',
  'invalid character class': 'invalid character class',
  'invalid named capture': 'invalid named capture group',
  'duplicate capture group name': 'duplicate capture group name',
  'invalid utf-8': 'invalid utf-8',
  'expression too large': 'pattern too large - compile failed',
};

function explainRe2jsError(source: string, error: SyntaxExceptionClass): BackendCompile {
  const raw = error.error.toLowerCase();
  let fragment = error.input ?? '';
  let code = CODES[raw] ?? raw;
  // re2js reads `(?<` as the start of a name and blames the rest of the pattern; RE2 blames `(?<`.
  if (code === 'invalid named capture group' && /^\(\?<[=!]/u.test(fragment)) {
    code = 'invalid perl operator';
    fragment = fragment.slice(0, 4);
  }
  return { ok: false, error: explainSyntaxError(source, code, fragment, error.error) };
}

export const re2jsBackend: RegexBackend = {
  name: 're2js',
  compile(source: string, flags: string): BackendCompile {
    if (!isWellFormedText(source)) return { ok: false, error: explainSyntaxError(source, 'invalid utf-8', '', '') };
    let loaded: Re2js;
    try {
      loaded = re2js();
    } catch {
      return { ok: false, error: { message: 'the regex engine could not be loaded', offset: 0, transient: true } };
    }
    const { RE2JS, RE2JSSyntaxException } = loaded;
    let re: RE2JSClass;
    try {
      const bits = (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('s') ? RE2JS.DOTALL : 0);
      re = RE2JS.compile(re2WasmPattern(source, flags.includes('m')), bits);
    } catch (error) {
      if (error instanceof RE2JSSyntaxException) return explainRe2jsError(source, error);
      return { ok: false, error: { message: 'the regex engine failed compiling this regex', offset: 0, transient: true } };
    }
    return { ok: true, pattern: { test: (text: string) => re.test(text), free: () => undefined } };
  },
};
