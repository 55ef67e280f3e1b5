/**
 * What `echo` and `printf` print, when their words are static: the script of a shell they are
 * piped into (`echo 'rm -rf /' | bash`). Read both as bash's builtins and as zsh's print them.
 */
import type { ShellWord } from './types.js';
import { baseName, wordsText } from './words.js';

function hexValue(text: string, from: number, max: number): { code: number; end: number } | null {
  let end = from;
  while (end < text.length && end - from < max && /[0-9A-Fa-f]/.test(text[end]!)) end++;
  return end === from ? null : { code: parseInt(text.slice(from, end), 16), end };
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/**
 * The text with the backslash escapes of `echo -e` (and of `printf`'s format, with `printf`)
 * decoded; `stopped` when `\c` ends the output (echo only). Unknown escapes stay as written.
 */
function decodeEscapes(text: string, printf: boolean): { text: string; stopped: boolean } {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const b = text.indexOf('\\', i);
    if (b < 0 || b === text.length - 1) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, b);
    const c = text[b + 1]!;
    i = b + 2;
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) out += simple;
    else if (printf && (c === '"' || c === "'" || c === '?')) out += c;
    else if (!printf && c === 'c') return { text: out, stopped: true };
    else if (c >= '0' && c <= '7' && (printf || c === '0')) {
      // printf: `\NNN`; echo: `\0NNN`
      let end = printf ? b + 1 : b + 2;
      const from = end;
      while (end < text.length && end - from < 3 && text[end]! >= '0' && text[end]! <= '7') end++;
      out += String.fromCharCode(end === from ? 0 : parseInt(text.slice(from, end), 8) & 255);
      i = end;
    } else if (c === 'x' || c === 'u' || c === 'U') {
      const hex = hexValue(text, b + 2, c === 'x' ? 2 : c === 'u' ? 4 : 8);
      if (hex === null || hex.code > 0x10ffff) out += '\\' + c;
      else {
        out += String.fromCodePoint(hex.code);
        i = hex.end;
      }
    } else out += '\\' + c;
  }
  return { text: out, stopped: false };
}

/**
 * What `echo WORDS` prints, in each reading that prints something else: bash's builtin echo (and
 * coreutils' `echo`) read backslash escapes only after `-e`, zsh's unless `-E`, and zsh also ends
 * the options at a lone `-`.
 */
function echoTexts(words: readonly ShellWord[]): string[] {
  let i = 1;
  let escapes: boolean | null = null; // the last of -e and -E
  while (i < words.length && /^-[neE]+$/.test(words[i]!.value)) {
    for (const ch of words[i]!.value) if (ch === 'e' || ch === 'E') escapes = ch === 'e';
    i++;
  }
  const bash = wordsText(words.slice(i));
  const texts = [escapes === true ? decodeEscapes(bash, false).text : bash];
  const zsh = words[i]?.value === '-' ? wordsText(words.slice(i + 1)) : bash;
  const zshText = escapes === false ? zsh : decodeEscapes(zsh, false).text;
  if (!texts.includes(zshText)) texts.push(zshText);
  return texts;
}

/** The longest text printf is read to print: reusing a format can make far more text than the command has. */
const MAX_PRINTED = 1 << 18;

/**
 * What `printf FORMAT ARGS` prints, when the format has no directive but `%%`, `%s` and `%b`
 * (the format is reused while arguments remain); null for anything else (`printf -v`, widths,
 * numbers) and for more than MAX_PRINTED characters.
 */
function printfText(words: readonly ShellWord[]): string | null {
  let i = 1;
  if (words[i]?.value === '--') i++;
  const format = words[i];
  if (format === undefined || (i === 1 && format.value.length > 1 && format.value.startsWith('-'))) return null;
  const args = words.slice(i + 1);
  let out = '';
  let next = 0;
  for (;;) {
    let consumed = false;
    let k = 0;
    const f = format.value;
    while (k < f.length) {
      const pct = f.indexOf('%', k);
      const literal = pct < 0 ? f.slice(k) : f.slice(k, pct);
      out += decodeEscapes(literal, true).text;
      if (pct < 0) break;
      const d = f[pct + 1];
      if (d === '%') out += '%';
      else if (d === 's') out += args[next++]?.value ?? '';
      else if (d === 'b') {
        const arg = decodeEscapes(args[next++]?.value ?? '', false);
        out += arg.text;
        if (arg.stopped) return out;
      } else return null;
      if (d !== '%') consumed = true;
      k = pct + 2;
    }
    if (!consumed || next >= args.length) return out;
    if (out.length > MAX_PRINTED) return null;
  }
}

/**
 * The texts a command prints on its output when its program (the view's first word) is `echo` or
 * `printf` with static words, one for each reading of it that prints something else; null when
 * it is neither or the text cannot be told. A shell it is piped into reads the text as its script.
 */
export function printedTexts(words: readonly ShellWord[]): string[] | null {
  const program = words[0];
  if (program === undefined) return null;
  for (let k = 0; k < words.length; k++) if (words[k]!.dynamic) return null;
  const name = baseName(program.value);
  if (name === 'echo') return echoTexts(words);
  if (name !== 'printf') return null;
  const text = printfText(words);
  return text === null ? null : [text];
}
