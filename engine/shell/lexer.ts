/**
 * Word-level reading of shell text: quotes, escapes, parameter expansions, arithmetic, command and
 * process substitutions. The command-level structure (lists, keywords, redirections, heredocs)
 * lives in parser.ts, which extends this class and supplies the abstract hooks.
 *
 * The scanners work on character codes and build values from slices of the source: a run of
 * literal characters is copied once, when a quote, escape or expansion interrupts it or the word
 * ends. Character codes are written as numbers with the character in a comment.
 */
import {
  codeAt,
  decodeAnsiC,
  isAssignmentName,
  isAssignmentNameRange,
  isDigitCode,
  isMetaCode,
  isNameCharCode,
  isNameStartCode,
  isSpecialParamCode,
  WORD_CHAR_CLASS,
} from './chars.js';
import type { ShellWord } from './types.js';
import {
  analysisFacts,
  ARITHMETIC,
  noteArithmeticText,
  noteEvaluatedName,
  noteEvaluatedText,
  noteLiteralArithmetic,
  PROMPT,
  unquoted,
  withoutCommands,
  ZSH_ARITHMETIC_REASON,
  ZSH_FLAGS_REASON,
  ZSH_QUALIFIER_REASON,
  zshQualifierRunsCode,
} from './facts.js';

/** Nesting limit for substitutions, subshells, `bash -c` scripts and similar constructs. */
export const MAX_SHELL_DEPTH = 16;

/** The unknowable reason of text nested deeper than MAX_SHELL_DEPTH. */
export const NESTING_REASON = 'nested too deeply';

/** Unparseable text: carries a short lowercase reason and the offset where the construct began. */
export class ShellSyntaxError {
  constructor(
    readonly reason: string,
    readonly at: number,
  ) {}
}

/** The index of the `]` that closes the `[` at `open`, or `end` when none does before it. */
function subscriptEnd(src: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    const c = src.charCodeAt(i);
    if (c === 91 /* [ */) depth++;
    else if (c === 93 /* ] */ && --depth === 0) return i;
  }
  return end;
}

/** True when text holds `\$`, an escaped backtick, or a substitution inside single quotes: one the shell does not run as it reads the text. */
function hidesSubstitution(text: string): boolean {
  if (text.includes('\\$') || text.includes('\\`')) return true;
  for (let at = text.indexOf("'"); at >= 0; ) {
    const close = text.indexOf("'", at + 1);
    const quoted = text.slice(at + 1, close < 0 ? text.length : close);
    if (quoted.includes('$(') || quoted.includes('`')) return true;
    if (close < 0) return false;
    at = text.indexOf("'", close + 1);
  }
  return false;
}

/** `?*+@!`: the characters that make a following `(` an extended glob. */
function isExtglobCode(c: number): boolean {
  return c === 63 || c === 42 || c === 43 || c === 64 || c === 33;
}

/**
 * Where the list of a function substitution starts when one opens at `start` (`${` followed by a
 * blank, a newline or `|`, line continuations aside), or -1 for a parameter expansion.
 */
export function functionSubstitutionBody(src: string, start: number): number {
  let i = start + 2;
  while (src.charCodeAt(i) === 92 /* \ */ && src.charCodeAt(i + 1) === 10 /* newline */) i += 2;
  const c = src.charCodeAt(i);
  if (c === 124 /* | */) return i + 1;
  return c === 32 /* space */ || c === 9 /* tab */ || c === 10 /* newline */ ? i : -1;
}

export abstract class Lexer {
  pos = 0;
  readonly n: number;
  /** Set by readWord: any quoting or escaping was used (matters for heredoc delimiters). */
  protected wordQuoted = false;
  /** Set by readWord: the word is `NAME=value` (or `NAME+=value`, `NAME[i]=value`). */
  protected wordAssignment = false;
  /** Set by readDollar and readDouble: the text just read is dynamic. */
  protected pieceDynamic = false;

  protected constructor(
    readonly src: string,
    public depth: number,
  ) {
    this.n = src.length;
  }

  /** Parses a command list in place up to and including the matching `)`. */
  protected abstract parseNestedList(openAt: number, reason: string): void;
  /** Parses a command list in place up to and including the `}` that ends a function substitution. */
  protected abstract parseFunctionSubstitution(openAt: number, reason: string): void;
  /** Parses a separate text (a backtick body) one level deeper and records its parts. */
  protected abstract addScript(text: string): void;
  /** Consumes an unquoted newline (and any here-document bodies that follow it). */
  protected abstract consumeNewline(): void;

  protected enter(at: number): void {
    if (++this.depth > MAX_SHELL_DEPTH) throw new ShellSyntaxError(NESTING_REASON, at);
  }

  protected leave(): void {
    this.depth--;
  }

  /** Skips spaces, tabs and line continuations. */
  protected skipBlanks(): void {
    const src = this.src;
    const n = this.n;
    let pos = this.pos;
    while (pos < n) {
      const c = src.charCodeAt(pos);
      if (c === 32 /* space */ || c === 9 /* tab */) pos++;
      else if (c === 92 /* \ */ && codeAt(src, pos + 1) === 10 /* newline */) pos += 2;
      else break;
    }
    this.pos = pos;
  }

  protected skipComment(): void {
    const nl = this.src.indexOf('\n', this.pos);
    this.pos = nl < 0 ? this.n : nl;
  }

  /** True when a word starts here (process substitutions count as words). */
  protected atWordStart(): boolean {
    const c = codeAt(this.src, this.pos);
    if (c === 60 /* < */ || c === 62 /* > */) return codeAt(this.src, this.pos + 1) === 40 /* ( */;
    return !isMetaCode(c);
  }

  /**
   * Reads one word; `allowArray` permits `name=( ... )`. Always consumes at least one character.
   * Sets wordQuoted and wordAssignment.
   */
  protected readWord(allowArray: boolean): ShellWord {
    const src = this.src;
    const n = this.n;
    const start = this.pos;
    let pos = start;
    let seg = start; // start of the literal run not yet copied into `value`
    let value = '';
    let dynamic = false;
    let splits = false; // a computed piece outside double quotes
    let quoted = false;
    let assignment = false;
    let plain = true; // only unquoted literal text so far
    let sawEquals = false;
    let arrayAt = -1; // position right after an assignment's `=`
    let literalEnd = -1; // position right after the last unquoted literal character
    let braceDepth = 0;
    let braceList = false;
    while (pos < n) {
      const c = src.charCodeAt(pos);
      const kind = c < 128 ? WORD_CHAR_CLASS[c]! : 0;
      if (kind === 0) {
        pos++;
        literalEnd = pos;
        continue;
      }
      if (kind === 1) break;
      if (kind === 3) {
        if (c === 61 /* = */) {
          if (!sawEquals) {
            sawEquals = true;
            if (plain && (value === '' ? isAssignmentNameRange(src, seg, pos) : isAssignmentName(value + src.slice(seg, pos)))) {
              assignment = true;
              arrayAt = pos + 1;
            }
          }
        } else if (c === 123 /* { */) {
          braceDepth++;
        } else if (braceDepth > 0) {
          if (c === 44 /* , */ || (c === 46 /* . */ && codeAt(src, pos + 1) === 46)) braceList = true;
          else if (c === 125 /* } */ && --braceDepth === 0 && braceList) dynamic = splits = true; // brace expansion
        }
        pos++;
        literalEnd = pos;
        continue;
      }
      if (c === 92 /* \ */) {
        const d = codeAt(src, pos + 1);
        if (d === 10 /* newline */) {
          value += src.slice(seg, pos);
          pos += 2;
          seg = pos;
        } else if (d !== d) {
          pos++; // a backslash at the end of input stays as it is
        } else {
          value += src.slice(seg, pos);
          seg = pos + 1; // the escaped character starts the next run
          pos += 2;
          quoted = true;
          plain = false;
        }
        continue;
      }
      if (c === 39 /* ' */) {
        const close = src.indexOf("'", pos + 1);
        if (close < 0) throw new ShellSyntaxError('unterminated single quote', pos);
        value += src.slice(seg, pos);
        seg = pos + 1; // the quoted text is the next run
        value += src.slice(seg, close);
        pos = close + 1;
        seg = pos;
        quoted = true;
        plain = false;
        continue;
      }
      if (c === 40 /* ( */) {
        if (allowArray && arrayAt === pos) {
          value += src.slice(seg, pos);
          this.pos = pos;
          value += this.readArray();
        } else if (literalEnd === pos && isExtglobCode(src.charCodeAt(pos - 1))) {
          value += src.slice(seg, pos);
          this.pos = pos;
          const glob = this.readExtglob();
          if (zshQualifierRunsCode(glob)) analysisFacts.zsh ??= ZSH_QUALIFIER_REASON;
          value += glob;
        } else {
          break;
        }
        pos = seg = this.pos;
        continue;
      }
      if (c === 60 /* < */ || c === 62 /* > */) {
        if (codeAt(src, pos + 1) !== 40 /* ( */) break;
        value += src.slice(seg, pos);
        this.pos = pos;
        value += this.readNested(2, 'unterminated process substitution');
        dynamic = true;
        plain = false;
        pos = seg = this.pos;
        continue;
      }
      value += src.slice(seg, pos);
      this.pos = pos;
      if (c === 34 /* " */) {
        value += this.readDouble();
        if (this.pieceDynamic) dynamic = true;
        quoted = true;
      } else if (c === 96 /* ` */) {
        value += this.readBacktick(false);
        dynamic = splits = true;
      } else {
        // $
        const d = codeAt(src, pos + 1);
        if (d === 39 /* ' */ || d === 34 /* " */) quoted = true;
        value += this.readDollar(false);
        if (this.pieceDynamic) dynamic = splits = true;
      }
      plain = false;
      pos = seg = this.pos;
    }
    value += src.slice(seg, pos);
    if (pos === start) pos++; // never stall on unexpected input
    this.pos = pos;
    this.wordQuoted = quoted;
    this.wordAssignment = assignment;
    return splits ? { value, dynamic, splits: true } : { value, dynamic };
  }

  protected readSingle(): string {
    const close = this.src.indexOf("'", this.pos + 1);
    if (close < 0) throw new ShellSyntaxError('unterminated single quote', this.pos);
    const value = this.src.slice(this.pos + 1, close);
    this.pos = close + 1;
    return value;
  }

  /** Reads `"..."` starting at the opening quote; sets pieceDynamic. */
  protected readDouble(): string {
    const src = this.src;
    const n = this.n;
    const start = this.pos;
    let pos = start + 1;
    let seg = pos;
    let value = '';
    let dynamic = false;
    for (;;) {
      if (pos >= n) throw new ShellSyntaxError('unterminated double quote', start);
      const c = src.charCodeAt(pos);
      if (c === 34 /* " */) {
        value += src.slice(seg, pos);
        this.pos = pos + 1;
        this.pieceDynamic = dynamic;
        return value;
      }
      if (c === 92 /* \ */) {
        const d = codeAt(src, pos + 1);
        if (d === 36 /* $ */ || d === 96 /* ` */ || d === 34 /* " */ || d === 92 /* \ */) {
          value += src.slice(seg, pos);
          seg = pos + 1;
          pos += 2;
        } else if (d === 10 /* newline */) {
          value += src.slice(seg, pos);
          pos += 2;
          seg = pos;
        } else {
          pos++; // the backslash is kept
        }
      } else if (c === 36 /* $ */) {
        value += src.slice(seg, pos);
        this.pos = pos;
        value += this.readDollar(true);
        if (this.pieceDynamic) dynamic = true;
        pos = seg = this.pos;
      } else if (c === 96 /* ` */) {
        value += src.slice(seg, pos);
        this.pos = pos;
        value += this.readBacktick(true);
        dynamic = true;
        pos = seg = this.pos;
      } else {
        pos++;
      }
    }
  }

  /** Reads whatever starts with `$` at the current position; sets pieceDynamic. */
  protected readDollar(inDouble: boolean): string {
    const src = this.src;
    const start = this.pos;
    const d = codeAt(src, start + 1);
    if (d === 39 /* ' */ && !inDouble) {
      const r = decodeAnsiC(src, start + 2);
      if (r === null) throw new ShellSyntaxError("unterminated `$'` string", start);
      this.pos = r.end;
      this.pieceDynamic = false;
      return r.value;
    }
    if (d === 34 /* " */ && !inDouble) {
      this.pos++;
      return this.readDouble();
    }
    if (d === 40 /* ( */) {
      let value: string | null = null;
      if (codeAt(src, start + 2) === 40) {
        const close = this.probeArithmetic(start + 3);
        if (close >= 0) {
          this.scanArithmetic(start + 3, close);
          this.pos = Math.max(this.pos, close + 2);
          value = src.slice(start, this.pos);
        }
      }
      value ??= this.readNested(2, 'unterminated command substitution');
      this.pieceDynamic = true;
      return value;
    }
    if (d === 123 /* { */) {
      const body = functionSubstitutionBody(src, start);
      const value = body < 0 ? this.readParameter(inDouble) : this.readFunctionSubstitution(body);
      this.pieceDynamic = true;
      return value;
    }
    if (isNameStartCode(d)) {
      let i = start + 2;
      while (isNameCharCode(codeAt(src, i))) i++;
      this.pos = i;
      this.pieceDynamic = true;
      return src.slice(start, i);
    }
    if (isDigitCode(d) || isSpecialParamCode(d)) {
      this.pos = start + 2;
      this.pieceDynamic = true;
      return src.slice(start, this.pos);
    }
    if (d === 91 /* [ */) {
      // `$[ expr ]`: bash's old arithmetic expansion
      let depth = 0;
      for (let i = start + 2; i < this.n; i++) {
        const c = src.charCodeAt(i);
        if (c === 91 /* [ */) depth++;
        else if (c === 93 /* ] */ && depth-- === 0) {
          this.scanArithmetic(start + 2, i);
          this.pos = i + 1;
          this.pieceDynamic = true;
          return src.slice(start, this.pos);
        }
      }
    }
    this.pos++;
    this.pieceDynamic = false;
    return '$';
  }

  /**
   * Reads the function substitution `${ list; }` or `${| list; }` (bash 5.3, ksh93, mksh) at the
   * current position, whose list starts at `body`; returns the source text. Older bash rejects the
   * syntax when it expands the word; reading the list as commands is the safe reading either way.
   */
  protected readFunctionSubstitution(body: number): string {
    const start = this.pos;
    this.enter(start);
    this.pos = body;
    this.parseFunctionSubstitution(start, 'unterminated `${ ...; }` substitution');
    this.leave();
    return this.src.slice(start, this.pos);
  }

  /** Reads `$(...)`, `<(...)` or `>(...)`: `openLen` characters open it; returns the source text. */
  protected readNested(openLen: number, reason: string): string {
    const start = this.pos;
    this.enter(start);
    this.pos += openLen;
    this.parseNestedList(start, reason);
    this.leave();
    return this.src.slice(start, this.pos);
  }

  /** Reads `${...}`; substitutions inside still contribute parts. */
  protected readParameter(inDouble: boolean): string {
    const src = this.src;
    const start = this.pos;
    this.enter(start);
    this.pos += 2;
    // after the name: `[` (a subscript), `:` not followed by `-=?+` (a substring offset) and `@P`
    // evaluate text; so do zsh's flags `(e)` (the result is expanded again, substitutions and all)
    // and `(P)` (the result names the variable expanded)
    let k = this.pos;
    let flags = '';
    if (codeAt(src, k) === 40 /* ( */) {
      analysisFacts.zsh ??= ZSH_FLAGS_REASON;
      const close = src.indexOf(')', k);
      if (close > k) {
        flags = src.slice(k + 1, close);
        k = close + 1;
      }
    }
    const bodyAt = k;
    // `${!x}`: the value of x names the variable expanded, subscript and all
    const indirect = codeAt(src, k) === 33 /* ! */ && isNameStartCode(codeAt(src, k + 1));
    if (codeAt(src, k) === 33 /* ! */ || codeAt(src, k) === 35 /* # */) k++;
    const nameAt = k;
    while (isNameCharCode(codeAt(src, k))) k++;
    const name = src.slice(nameAt, k);
    const zshEval = flags.includes('e');
    if (name !== '') {
      if (indirect || flags.includes('P')) noteEvaluatedName(name, ARITHMETIC);
      if (zshEval) noteEvaluatedName(name, PROMPT);
    }
    const subscript = codeAt(src, k) === 91 /* [ */;
    const rest = subscript ? subscriptEnd(src, k, this.n) + 1 : k; // after the name and its subscript
    const after = codeAt(src, rest);
    const offset = after === 58 /* : */ && !'-=?+'.includes(src[rest + 1] ?? '-');
    if (after === 64 /* @ */ && src[rest + 1] === 'P') noteEvaluatedName(name, PROMPT);
    let evaluatesOutput = false; // `${(e)...}` holds a substitution, whose output it evaluates
    for (;;) {
      if (this.pos >= this.n) throw new ShellSyntaxError('unterminated `${`', start);
      const c = src.charCodeAt(this.pos);
      if (c === 125 /* } */) {
        this.pos++;
        break;
      }
      if (c === 92 /* \ */) this.pos += 2;
      else if (c === 39 /* ' */ && !inDouble) this.readSingle();
      else if (c === 34 /* " */) {
        this.readDouble();
        if (zshEval && this.pieceDynamic) evaluatesOutput = true;
      } else if (c === 36 /* $ */) {
        if (zshEval && this.notePromptPiece()) evaluatesOutput = true;
        this.readDollar(inDouble);
      } else if (c === 96 /* ` */) {
        if (zshEval) evaluatesOutput = true;
        this.readBacktick(inDouble);
      } else this.pos++;
    }
    const end = this.pos - 1;
    if (subscript) noteArithmeticText(src.slice(k + 1, Math.min(rest - 1, end)));
    if (offset) noteArithmeticText(src.slice(rest + 1, end));
    if (zshEval) {
      // the word after the flags is expanded, then expanded again: what quotes or escapes hid runs
      const word = unquoted(src.slice(bodyAt, end));
      if (word.includes('$') || word.includes('`')) noteEvaluatedText(word, PROMPT);
      if (evaluatesOutput) analysisFacts.evaluatedOutput ??= src.slice(start, this.pos);
    }
    this.leave();
    return src.slice(start, this.pos);
  }

  /**
   * For the `$` at the current position inside `${(e)...}`: records the variable it expands as
   * evaluated; true when it is a command substitution, whose output is evaluated.
   */
  private notePromptPiece(): boolean {
    const src = this.src;
    let i = this.pos + 1;
    const d = codeAt(src, i);
    if (d === 40 /* ( */) return codeAt(src, i + 1) !== 40;
    if (d === 123 /* { */) i++;
    if (codeAt(src, i) === 35 /* # */ || codeAt(src, i) === 33 /* ! */) i++;
    const at = i;
    while (isNameCharCode(codeAt(src, i))) i++;
    if (i > at) noteEvaluatedName(src.slice(at, i), PROMPT);
    return false;
  }

  /** Reads a backtick substitution and parses its body; returns the source text. */
  protected readBacktick(inDouble: boolean): string {
    const src = this.src;
    const n = this.n;
    const start = this.pos;
    let pos = start + 1;
    let seg = pos;
    let body = '';
    for (;;) {
      if (pos >= n) throw new ShellSyntaxError('unterminated backtick', start);
      const c = src.charCodeAt(pos);
      if (c === 96 /* ` */) {
        body += src.slice(seg, pos);
        pos++;
        break;
      }
      if (c === 92 /* \ */) {
        const d = codeAt(src, pos + 1);
        if (d === 96 /* ` */ || d === 36 /* $ */ || d === 92 /* \ */ || (inDouble && d === 34) /* " */) {
          body += src.slice(seg, pos);
          seg = pos + 1;
        }
        pos += 2; // other escapes are kept with their backslash
      } else {
        pos++;
      }
    }
    this.pos = pos;
    this.addScript(body);
    return src.slice(start, pos);
  }

  /**
   * Decides whether `((` / `$((` opens arithmetic: returns the index of the first `)` of the
   * closing `))`, or -1 (then the text is read as nested subshells instead).
   */
  protected probeArithmetic(from: number): number {
    const src = this.src;
    const n = this.n;
    let depth = 0;
    let i = from;
    while (i < n) {
      const c = src.charCodeAt(i);
      if (c === 92 /* \ */) {
        i += 2;
        continue;
      }
      if (c === 39 /* ' */ || c === 96 /* ` */) {
        const close = src.indexOf(c === 39 ? "'" : '`', i + 1);
        if (close < 0) return -1;
        i = close + 1;
        continue;
      }
      if (c === 34 /* " */) {
        i++;
        while (i < n && src.charCodeAt(i) !== 34) i += src.charCodeAt(i) === 92 ? 2 : 1;
        if (i >= n) return -1;
      } else if (c === 40 /* ( */) {
        depth++;
      } else if (c === 41 /* ) */) {
        if (depth > 0) depth--;
        else return codeAt(src, i + 1) === 41 ? i : -1;
      }
      i++;
    }
    return -1;
  }

  /**
   * Walks arithmetic text in `[from, to)`, parsing the substitutions inside it, and records the
   * names it evaluates (those of the arithmetic itself, not of the commands of its substitutions).
   */
  protected scanArithmetic(from: number, to: number): void {
    const src = this.src;
    let own = ''; // the text read so far, with each command substitution as `0`
    let seg = from; // where the text not yet in `own` starts
    this.pos = from;
    try {
      while (this.pos < to) {
        const c = src.charCodeAt(this.pos);
        const at = this.pos;
        if (c === 92 /* \ */) this.pos += 2;
        else if (c === 39 /* ' */) {
          const close = src.indexOf("'", this.pos + 1);
          this.pos = close < 0 ? to : close + 1;
        } else if (c === 34 /* " */) {
          this.readDouble();
          own += src.slice(seg, at) + withoutCommands(src.slice(at, this.pos));
          seg = this.pos;
        } else if (c === 96 /* ` */ || (c === 36 /* $ */ && codeAt(src, at + 1) === 40 /* ( */ && codeAt(src, at + 2) !== 40)) {
          if (c === 96) this.readBacktick(false);
          else this.readDollar(true);
          own += src.slice(seg, at) + '0';
          seg = this.pos;
          // what the command prints is evaluated too
          analysisFacts.evaluates = true;
        } else if (c === 36 /* $ */ && codeAt(src, at + 1) === 123 /* { */) this.readDollar(true);
        else this.pos++;
      }
    } finally {
      // after a substitution that could not be read, the rest is taken as it is written
      if (seg < to) own += src.slice(seg, to);
      noteArithmeticText(own);
      // zsh removes quotes and escapes before it evaluates: a subscript they hid runs its substitutions
      if (hidesSubstitution(own)) noteLiteralArithmetic(unquoted(own), ZSH_ARITHMETIC_REASON);
    }
  }

  /** Reads the `( ... )` of an array assignment; returns its source text. */
  private readArray(): string {
    const src = this.src;
    const start = this.pos;
    this.pos++;
    for (;;) {
      this.skipBlanks();
      if (this.pos >= this.n) throw new ShellSyntaxError('unterminated array assignment', start);
      const c = src.charCodeAt(this.pos);
      if (c === 41 /* ) */) {
        this.pos++;
        return src.slice(start, this.pos);
      }
      if (c === 10 /* newline */) this.consumeNewline();
      else if (c === 35 /* # */) this.skipComment();
      else if (this.atWordStart()) this.readWord(false);
      else this.pos++;
    }
  }

  /** Reads the parenthesised part of an extended glob such as `!(a|b)`; returns its source text. */
  private readExtglob(): string {
    const src = this.src;
    const start = this.pos;
    let depth = 0;
    for (;;) {
      if (this.pos >= this.n) throw new ShellSyntaxError('unterminated extended glob', start);
      const c = src.charCodeAt(this.pos);
      if (c === 92 /* \ */) this.pos += 2;
      else if (c === 39 /* ' */) this.readSingle();
      else if (c === 34 /* " */) this.readDouble();
      else {
        this.pos++;
        if (c === 40 /* ( */) depth++;
        else if (c === 41 /* ) */ && --depth === 0) return src.slice(start, this.pos);
      }
    }
  }
}
