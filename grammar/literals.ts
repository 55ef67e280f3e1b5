/**
 * Reading the text of literal tokens: string escapes, regex bodies and flags, durations. Shared by
 * the token checks of `parse()` (which report the problems) and the CST visitor (which uses the values).
 */

/** A problem inside a literal, with offsets relative to the token's first character. */
export interface LiteralProblem {
  code: string;
  start: number;
  end: number;
  message: string;
  help?: string;
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t', r: '\r', '/': '/' };
const ESCAPE_HELP = 'the escapes are `\\"`, `\\\\`, `\\n`, `\\t`, `\\r`, `\\/` and `\\u{...}`; write `\\\\` for a backslash';

/**
 * The value of a string token (`"..."`, possibly missing its closing quote). An unknown or malformed
 * escape is kept as written and reported.
 */
export function decodeString(image: string): { value: string; problems: LiteralProblem[] } {
  const problems: LiteralProblem[] = [];
  if (image.indexOf('\\') < 0) {
    const plainClosed = image.length >= 2 && image.endsWith('"');
    return { value: image.slice(1, plainClosed ? -1 : undefined), problems };
  }
  const closed = image.length >= 2 && image.endsWith('"') && !endsInsideEscape(image);
  const end = closed ? image.length - 1 : image.length;
  let value = '';
  let i = 1;
  let chunkStart = 1;
  while (i < end) {
    if (image.charCodeAt(i) !== 92 /* \ */) {
      i++;
      continue;
    }
    value += image.slice(chunkStart, i);
    const c = image.charAt(i + 1);
    if (i + 1 >= end) {
      // a lone backslash at the end of an unterminated string: the string is already reported
      value += '\\';
      i = end;
    } else if (c in ESCAPES) {
      value += ESCAPES[c];
      i += 2;
    } else if (c === 'u') {
      const m = /^\{([0-9A-Fa-f]{1,6})\}/.exec(image.slice(i + 2, end));
      const code = m ? parseInt(m[1] as string, 16) : NaN;
      if (m && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)) {
        value += String.fromCodePoint(code);
        i += 2 + m[0].length;
      } else {
        const shown = /^\{[^}"]{0,12}\}?/.exec(image.slice(i + 2, end))?.[0] ?? '';
        const len = 2 + shown.length;
        problems.push({
          code: 'parse/invalid-escape',
          start: i,
          end: i + len,
          message: m
            ? `unicode escape \`${image.slice(i, i + len)}\` is not a valid code point`
            : `invalid unicode escape \`${image.slice(i, i + len)}\``,
          help: 'write a code point in hex between braces, e.g. `\\u{1F600}`',
        });
        value += image.slice(i, i + len);
        i += len;
      }
    } else {
      const len = 1 + (image.codePointAt(i + 1)! > 0xffff ? 2 : 1);
      problems.push({
        code: 'parse/invalid-escape',
        start: i,
        end: i + len,
        message: `unknown escape \`${image.slice(i, i + len)}\` in a string`,
        help: ESCAPE_HELP,
      });
      value += image.slice(i, i + len);
      i += len;
    }
    chunkStart = i;
  }
  value += image.slice(chunkStart, Math.max(chunkStart, end));
  return { value, problems };
}

/** True when the final `"` of `image` is escaped (an odd run of backslashes before it). */
function endsInsideEscape(image: string): boolean {
  let n = 0;
  for (let j = image.length - 2; j >= 1 && image.charCodeAt(j) === 92; j--) n++;
  return n % 2 === 1;
}

/** The source text of a string with the given value: `decodeString(encodeString(v)).value === v`. */
export function encodeString(value: string): string {
  let out = '"';
  for (const ch of value) {
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else {
      const code = ch.codePointAt(0) as number;
      // C0 and C1 controls, line and paragraph separators and the byte-order mark are escaped, so
      // the text survives editors and reads the same on screen.
      const control = code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff;
      // lone surrogates have no escape and are written as they are
      out += control ? `\\u{${code.toString(16)}}` : ch;
    }
  }
  return out + '"';
}

/**
 * The pattern and flags of a regex token (`/.../flags`, possibly missing its closing slash).
 * `\/` becomes `/`; every other escape stays for the regex engine.
 */
export function decodeRegex(image: string): { source: string; flags: string; closed: boolean } {
  let source = '';
  let i = 1;
  while (i < image.length) {
    const c = image.charAt(i);
    if (c === '/') {
      return { source, flags: image.slice(i + 1), closed: true };
    }
    if (c === '\\' && i + 1 < image.length) {
      const next = image.charAt(i + 1);
      source += next === '/' ? '/' : c + next;
      i += 2;
    } else {
      source += c;
      i++;
    }
  }
  return { source, flags: '', closed: false };
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a duration token (`500ms`, `10s`, `5m`, `1h`); 0 when the text is not one. */
export function durationMs(image: string): number {
  const m = /^(\d+)(ms|s|m|h)$/.exec(image);
  if (!m) return 0;
  return Math.min(Number(m[1]) * (UNIT_MS[m[2] as string] as number), Number.MAX_SAFE_INTEGER);
}

/** The value of a number token; the leading digits of a malformed one, 0 when there are none. */
export function numberValue(image: string): number {
  const m = /^\d+(?:\.\d+)?/.exec(image);
  return m ? Math.min(Number(m[0]), Number.MAX_SAFE_INTEGER) : 0;
}
