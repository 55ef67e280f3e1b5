/**
 * An RE2 syntax error in plain words, at the right offset of the pattern as the user wrote it.
 *
 * A backend reports an error as a code and the fragment of the pattern it blames. Both backends
 * see the pattern after re2-wasm's rewrite (regex-parse.ts, `re2WasmPattern`: `/` escaped,
 * `(?<` spelled `(?P<`), so the fragment is looked for in the source under those spellings too,
 * preferring a place outside classes and escapes. Codes are RE2's as re2-wasm prints them
 * (`missing )`, `invalid perl operator`, ...); backend-re2js.ts maps re2js's codes onto them.
 * Messages are lowercase, without a trailing period, and name RE2 where a construct has no RE2 form.
 */
import { quote, type MatchError } from '../match/types.js';

const LINEAR = 'regexes use RE2 syntax, which runs in linear time';

/** Per code unit: 0 plain, 1 inside a character class, 2 escaped by the preceding backslash. */
interface SourceMap {
  readonly state: Uint8Array;
  /** Offsets of `(` never closed, innermost last. */
  readonly unclosed: number[];
  /** Offset of the first `)` without a `(`, or -1. */
  readonly unmatchedClose: number;
}

function mapSource(source: string): SourceMap {
  const state = new Uint8Array(source.length);
  const open: number[] = [];
  let unmatchedClose = -1;
  let inClass = false;
  let classStart = 0;
  let quoting = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quoting) {
      state[i] = 2;
      if (c === '\\' && source[i + 1] === 'E') {
        quoting = false;
        state[i + 1] = 2;
        i++;
      }
      continue;
    }
    if (inClass) state[i] = 1;
    if (c === '\\') {
      if (source[i + 1] === 'Q') {
        quoting = true;
        state[i + 1] = 2;
        i++;
        continue;
      }
      if (i + 1 < source.length) state[i + 1] = 2;
      i++;
      continue;
    }
    if (inClass) {
      if (c === '[' && source[i + 1] === ':') {
        const end = source.indexOf(':]', i + 2);
        if (end >= 0) {
          state.fill(1, i, end + 2);
          i = end + 1;
        }
      } else if (c === ']' && i > classStart) {
        inClass = false;
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      classStart = i + 1;
      if (source[classStart] === '^') classStart++;
    } else if (c === '(') {
      open.push(i);
    } else if (c === ')') {
      if (open.length > 0) open.pop();
      else if (unmatchedClose < 0) unmatchedClose = i;
    }
  }
  return { state, unclosed: open, unmatchedClose };
}

/** Where the blamed fragment is in the source: prefer a plain (unescaped, outside a class) start. */
function locate(source: string, fragment: string, map: SourceMap, fromEnd: boolean): number {
  const variants = [fragment, fragment.replace(/\\\//gu, '/'), fragment.replace(/\(\?P</gu, '(?<')];
  for (const wanted of [0, 1]) {
    for (const variant of variants) {
      if (variant.length === 0) continue;
      const found: number[] = [];
      for (let at = source.indexOf(variant); at >= 0; at = source.indexOf(variant, at + 1)) found.push(at);
      if (fromEnd) found.reverse();
      const pick = found.find((at) => (wanted === 0 ? map.state[at] === 0 : map.state[at] !== 2));
      if (pick !== undefined) return pick;
    }
  }
  for (const variant of variants) {
    const at = variant.length > 0 ? source.indexOf(variant) : -1;
    if (at >= 0) return at;
  }
  return 0;
}

function isValidCount(text: string): boolean {
  const m = /^\{(\d+)(,(\d*))?\}$/u.exec(text);
  if (!m) return false;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
  return min <= 1000 && (max === Infinity || (max <= 1000 && min <= max));
}

/**
 * The error for RE2's `code` (lowercase, as re2-wasm prints it) blaming `fragment` of the pattern.
 * `detail` is the engine's own wording, used for a code not listed here.
 */
export function explainSyntaxError(source: string, code: string, fragment: string, detail: string): MatchError {
  const map = mapSource(source);
  const at = (fromEnd = false): number => locate(source, fragment, map, fromEnd);
  switch (code) {
    case 'missing )':
      return { message: 'unclosed group: missing `)`', offset: map.unclosed[map.unclosed.length - 1] ?? 0 };
    case 'unexpected )':
      return { message: 'unmatched `)`', offset: Math.max(0, map.unmatchedClose) };
    case 'missing ]':
      return { message: 'unterminated character class: missing `]`', offset: at() };
    case 'trailing \\':
      return { message: 'trailing `\\` escapes nothing', offset: Math.max(0, source.length - 1) };
    case 'invalid escape sequence': {
      const offset = at();
      if (/^\\[1-9]/u.test(fragment) || /^\\k/u.test(fragment)) return { message: `backreferences are not supported: ${LINEAR}`, offset };
      return { message: `invalid escape sequence ${quote(fragment)}`, offset };
    }
    case 'invalid perl operator': {
      const offset = at();
      const next = source.slice(offset, offset + 4);
      if (next === '(?<=' || next === '(?<!') return { message: `lookbehind is not supported: ${LINEAR}`, offset };
      if (next.startsWith('(?=') || next.startsWith('(?!')) return { message: `lookahead is not supported: ${LINEAR}`, offset };
      if (next.startsWith('(?P=') || next.startsWith('(?P>')) return { message: `backreferences are not supported: ${LINEAR}`, offset };
      return {
        message: `unsupported group syntax ${quote(fragment)}: RE2 knows \`(?:...)\`, \`(?<name>...)\`, \`(?P<name>...)\` and flags like \`(?i)\``,
        offset,
      };
    }
    case 'no argument for repetition operator':
    case 'missing argument to repetition operator':
      return { message: `${quote(fragment)} has nothing to repeat`, offset: at() };
    case 'bad repetition operator':
      return {
        message: `invalid repetition ${quote(fragment)}: a repetition cannot directly follow another (only \`?\` may, to make it lazy)`,
        offset: at(),
      };
    case 'invalid repetition size':
      return {
        message: `invalid repetition count ${quote(fragment)}: counts go up to 1000 and the minimum may not exceed the maximum`,
        offset: at(isValidCount(fragment)),
      };
    case 'invalid character class range':
      return { message: `invalid character class range ${quote(fragment)}`, offset: at() };
    case 'invalid character class':
      return { message: `invalid character class ${quote(fragment)}`, offset: at() };
    case 'invalid named capture group':
      return {
        message: `invalid named capture group ${quote(fragment.replace('(?P<', '(?<'))}: names are letters, digits and \`_\``,
        offset: at(),
      };
    case 'invalid utf-8':
      return { message: 'invalid utf-8 in regex', offset: 0 };
    case 'duplicate capture group name':
      return { message: 'duplicate capture group name', offset: duplicateGroupOffset(source) };
    case 'pattern too large - compile failed':
    case 'pattern too large - reverse compile failed':
      return { message: 'regex is too large to compile', offset: 0 };
    default: {
      const text = detail.length > 0 ? detail[0]!.toLowerCase() + detail.slice(1) : 'invalid regex';
      return { message: text.replace(/\.$/u, ''), offset: fragment.length > 0 ? at() : 0 };
    }
  }
}

function duplicateGroupOffset(source: string): number {
  const seen = new Set<string>();
  const named = /\(\?P?<([A-Za-z0-9_]+)>/gu;
  for (let m = named.exec(source); m !== null; m = named.exec(source)) {
    if (seen.has(m[1]!)) return m.index;
    seen.add(m[1]!);
  }
  return 0;
}
