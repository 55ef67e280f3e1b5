import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapedLength, terminalCell, terminalSafe, type TextMode } from './untrusted.js';

// The dangerous set, written out apart from the implementation.
const CONTROLS_INLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const CONTROLS_BLOCK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const dangerous = (s: string, mode: TextMode) => (mode === 'inline' ? CONTROLS_INLINE : CONTROLS_BLOCK).test(s) || LONE_SURROGATE.test(s);

/** Reads escaped text back, by the rule the module documents. */
function decode(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s[i] !== '\\') {
      out += s[i];
      i++;
      continue;
    }
    let j = i;
    while (s[j] === '\\') j++;
    const body = /^(?:[tnr]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})/.exec(s.slice(j, j + 5))?.[0];
    if (body === undefined) {
      out += s.slice(i, j);
      i = j;
      continue;
    }
    const run = j - i;
    out += '\\'.repeat(Math.floor(run / 2));
    i = j;
    if (run % 2 === 1) {
      out += body === 't' ? '\t' : body === 'n' ? '\n' : body === 'r' ? '\r' : String.fromCharCode(parseInt(body.slice(1), 16));
      i += body.length;
    }
  }
  return out;
}

/** Any UTF-16 units, lone surrogates and controls included, with backslashes and escape letters often. */
const units = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('\\', '\\', 'x', 'u', 'n', 't', 'r', '1', 'b', 'e', '\u001b', '\u202e', '\u009b', '\n', '\t', '\r', ' ', '\u{1f600}', '\ud800', '\udc00'),
  ),
  maxLength: 60,
});

/** Printable ASCII and ordinary Unicode text (with backslashes, when `backslashes`). */
const ordinary = (backslashes: boolean) =>
  fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }).filter((c) => backslashes || c !== 0x5c).map((c) => String.fromCharCode(c)),
      fc.constantFrom('é', 'ß', 'ж', '中文', 'ع', 'א', '\u00a0', '\u200b', '\u200d', '\u{1f600}', '\u{1f469}\u200d\u{1f4bb}', 'ﬁ', ...(backslashes ? ['\\x1b', '\\n', '\\u202e'] : [])),
      fc.string({ unit: 'grapheme', maxLength: 3 }).filter((s) => !dangerous(s, 'inline') && (backslashes || !s.includes('\\'))),
    ),
    maxLength: 60,
  });

/** The escape of one dangerous character, written out apart from the implementation. */
const escapeOf = (c: string) => {
  const code = c.charCodeAt(0);
  const named: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
  return named[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
};

describe('terminalSafe', () => {
  it('escapes terminal controls, bidi controls and lone surrogates', () => {
    expect(terminalSafe('\u001b]0;pwned\u0007')).toBe('\\x1b]0;pwned\\x07');
    expect(terminalSafe('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(terminalSafe('safe\roverwritten')).toBe('safe\\roverwritten');
    expect(terminalSafe('\u202eevil')).toBe('\\u202eevil');
    expect(terminalSafe('\u009b31m')).toBe('\\x9b31m');
    expect(terminalSafe('\u0000\u007f\u0085')).toBe('\\x00\\x7f\\x85');
    expect(terminalSafe('\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u2028\u2029')).toBe(
      '\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u2028\\u2029',
    );
    expect(terminalSafe('a\ud800b\udc00')).toBe('a\\ud800b\\udc00');
    expect(terminalSafe('\udc00\ud800')).toBe('\\udc00\\ud800');
  });

  it('keeps surrogate pairs and ordinary text as they are', () => {
    expect(terminalSafe('git push 😀 中文 é')).toBe('git push 😀 中文 é');
    expect(terminalSafe('\ud800\ud83d\ude00')).toBe('\\ud800😀');
  });

  it('escapes tab and line feed inline, and keeps them in blocks', () => {
    expect(terminalSafe('a\tb\nc\r\n')).toBe('a\\tb\\nc\\r\\n');
    expect(terminalSafe('a\tb\nc\r\n', 'block')).toBe('a\tb\nc\\r\n');
    expect(terminalSafe('x\u001by\n', 'block')).toBe('x\\x1by\n');
  });

  it('leaves backslashes alone unless what follows reads as an escape', () => {
    expect(terminalSafe('C:\\Users\\me')).toBe('C:\\Users\\me');
    expect(terminalSafe('grep -E "\\d+\\.\\w"')).toBe('grep -E "\\d+\\.\\w"');
    expect(terminalSafe('\\\\server\\share')).toBe('\\\\server\\share');
    expect(terminalSafe('\\x1g \\u12 \\')).toBe('\\x1g \\u12 \\');
    // what would read as an escape: the run before it is doubled
    expect(terminalSafe("printf 'a\\nb'")).toBe("printf 'a\\\\nb'");
    expect(terminalSafe('\\x1b \\u202e \\X1B')).toBe('\\\\x1b \\\\u202e \\X1B');
    expect(terminalSafe('\\x1B')).toBe('\\\\x1B');
    expect(terminalSafe('\\\\t')).toBe('\\\\\\\\t');
    // a backslash before an escaped character
    expect(terminalSafe('\\\u001b')).toBe('\\\\\\x1b');
    expect(terminalSafe('\\\n')).toBe('\\\\\\n');
    expect(terminalSafe('\\\n', 'block')).toBe('\\\n');
  });

  it('keeps backslashes in blocks: they are the file\'s own notation', () => {
    expect(terminalSafe('{"command": "printf \'a\\nb\'"}\n', 'block')).toBe('{"command": "printf \'a\\nb\'"}\n');
    expect(terminalSafe('\\\u001b', 'block')).toBe('\\\\x1b');
  });

  it('returns the same string when nothing changes', () => {
    const s = 'nothing to see here';
    expect(terminalSafe(s)).toBe(s);
    expect(terminalSafe('')).toBe('');
  });

  it('never throws, and leaves no control, bidi control or lone surrogate', () => {
    for (const mode of ['inline', 'block'] as const) {
      fc.assert(
        fc.property(units, (s) => {
          const out = terminalSafe(s, mode);
          expect(dangerous(out, mode)).toBe(false);
        }),
        { numRuns: 500 },
      );
    }
  });

  it('reads back as the text it escaped, inline', () => {
    fc.assert(
      fc.property(units, (s) => {
        expect(decode(terminalSafe(s))).toBe(s);
      }),
      { numRuns: 1000 },
    );
  });

  it('changes only the dangerous characters of a block', () => {
    const each = new RegExp(`${CONTROLS_BLOCK.source}|${LONE_SURROGATE.source}`, 'g');
    fc.assert(
      fc.property(units, (s) => {
        expect(terminalSafe(s, 'block')).toBe(s.replace(each, escapeOf));
      }),
      { numRuns: 500 },
    );
  });

  it('is the identity on printable ASCII and ordinary Unicode text', () => {
    fc.assert(
      fc.property(ordinary(false), (s) => {
        expect(terminalSafe(s)).toBe(s);
        expect(terminalSafe(s, 'block')).toBe(s);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(ordinary(true), (s) => {
        expect(terminalSafe(s, 'block')).toBe(s);
      }),
      { numRuns: 300 },
    );
  });

  it('takes linear time on long and adversarial text', () => {
    const n = 400_000;
    const inputs = ['\\'.repeat(n) + 'n', '\\'.repeat(n), '\\x'.repeat(n / 2), '\u001b\\'.repeat(n / 2), '\ud800'.repeat(n), 'a'.repeat(n) + '\u001b'];
    const started = performance.now();
    for (const s of inputs) {
      const out = terminalSafe(s);
      expect(out.length).toBeGreaterThanOrEqual(s.length);
      terminalCell(s, 60);
      escapedLength(s, s.length);
    }
    // quadratic work on these would take hours
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe('escapedLength', () => {
  it('counts the escaped characters the first units make', () => {
    expect(escapedLength('a\u001bb', 1)).toBe(1);
    expect(escapedLength('a\u001bb', 2)).toBe(5);
    expect(escapedLength('\\\\n', 1)).toBe(2);
    expect(escapedLength('ab', 5)).toBe(5);
  });

  it('agrees with terminalSafe at every boundary', () => {
    fc.assert(
      fc.property(units, fc.constantFrom<TextMode>('inline', 'block'), (s, mode) => {
        const out = terminalSafe(s, mode);
        expect(escapedLength(s, s.length, mode)).toBe(out.length);
        for (let k = 0; k < s.length; k++) expect(escapedLength(s, k, mode)).toBeLessThanOrEqual(escapedLength(s, k + 1, mode));
      }),
      { numRuns: 300 },
    );
  });
});

describe('terminalCell', () => {
  it('makes one line: layout whitespace collapsed and trimmed, the other controls escaped', () => {
    expect(terminalCell('  git   push\u00a0 origin  ', 60)).toBe('git push origin');
    // a line break starts another command: it shows, never as a space
    expect(terminalCell('echo a\n\trm -rf ~\u2028', 60)).toBe('echo a\\n rm -rf ~\\u2028');
    expect(terminalCell('a\r\u001b]0;x\u0007\u000b\u000c', 60)).toBe('a\\r\\x1b]0;x\\x07\\x0b\\x0c');
    expect(terminalCell('printf "a\\n" \\x', 60)).toBe('printf "a\\\\n" \\x');
    expect(terminalCell('a \\\nb \\\rc', 60)).toBe('a \\\\\\nb \\\\\\rc');
  });

  it('cuts to the width on the escaped text, never inside an escape or a pair', () => {
    expect(terminalCell('abcdef', 6)).toBe('abcdef');
    expect(terminalCell('abcdefg', 6)).toBe('abcde…');
    expect(terminalCell('ab\u001bcd', 5)).toBe('ab…');
    expect(terminalCell('ab😀cd', 4)).toBe('ab…');
    expect(terminalCell('ab\\ncd', 4)).toBe('ab…');
    expect(terminalCell('ab\u009bcd', 6)).toBe('ab…');
    expect(terminalCell('abc', 1)).toBe('…');
  });

  it('reads back as the text with its layout whitespace made one space', () => {
    const layout = /[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]+/g;
    fc.assert(
      fc.property(units, (s) => {
        expect(decode(terminalCell(s, Infinity))).toBe(s.replace(layout, ' ').replace(/^ | $/g, ''));
      }),
      { numRuns: 1000 },
    );
  });

  it('is at most as wide as asked, safe, and a prefix of the whole cell', () => {
    fc.assert(
      fc.property(units, fc.integer({ min: 1, max: 40 }), (s, width) => {
        const full = terminalCell(s, Infinity);
        const c = terminalCell(s, width);
        expect(c.length).toBeLessThanOrEqual(width);
        expect(dangerous(c, 'inline')).toBe(false);
        if (c !== full) {
          expect(c.endsWith('…')).toBe(true);
          expect(full.startsWith(c.slice(0, -1))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
