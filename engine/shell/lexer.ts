/**
 * Word-level reading of shell text: quotes, escapes, parameter expansions, arithmetic, command and
 * process substitutions. The command-level structure (lists, keywords, redirections, heredocs)
 * lives in parser.ts, which extends this class and supplies the abstract hooks.
 */
import { decodeAnsiC, isAssignmentName, isDigit, isMeta, isNameChar, isNameStart, isSpecialParam } from './chars.js';

/** Nesting limit for substitutions, subshells, `bash -c` scripts and similar constructs. */
export const MAX_SHELL_DEPTH = 16;

/** Unparseable text: carries a short lowercase reason and the offset where the construct began. */
export class ShellSyntaxError {
  constructor(
    readonly reason: string,
    readonly at: number,
  ) {}
}

/** A word as read from the source, before it becomes a public `ShellWord`. */
export interface RawWord {
  /** Value after quote removal; expansions are kept as written (`$HOME/bin`). */
  value: string;
  dynamic: boolean;
  /** True when any quoting or escaping was used (matters for heredoc delimiters). */
  quoted: boolean;
  /** True for `NAME=value` (and `NAME+=value`, `NAME[i]=value`). */
  assignment: boolean;
}

interface Piece {
  value: string;
  dynamic: boolean;
}

export abstract class Lexer {
  pos = 0;
  readonly n: number;

  protected constructor(
    readonly src: string,
    public depth: number,
  ) {
    this.n = src.length;
  }

  /** Parses a command list in place up to and including the matching `)`. */
  protected abstract parseNestedList(openAt: number, reason: string): void;
  /** Parses a separate text (a backtick body) one level deeper and records its parts. */
  protected abstract addScript(text: string): void;
  /** Consumes an unquoted newline (and any here-document bodies that follow it). */
  protected abstract consumeNewline(): void;

  protected enter(at: number): void {
    if (++this.depth > MAX_SHELL_DEPTH) throw new ShellSyntaxError('nested too deeply', at);
  }

  protected leave(): void {
    this.depth--;
  }

  /** Skips spaces, tabs and line continuations. */
  protected skipBlanks(): void {
    const src = this.src;
    while (this.pos < this.n) {
      const c = src[this.pos];
      if (c === ' ' || c === '\t') this.pos++;
      else if (c === '\\' && src[this.pos + 1] === '\n') this.pos += 2;
      else break;
    }
  }

  protected skipComment(): void {
    const nl = this.src.indexOf('\n', this.pos);
    this.pos = nl < 0 ? this.n : nl;
  }

  /** True when a word starts here (process substitutions count as words). */
  protected atWordStart(): boolean {
    const c = this.src[this.pos];
    if (c === '<' || c === '>') return this.src[this.pos + 1] === '(';
    return !isMeta(c);
  }

  /** Reads one word; `allowArray` permits `name=( ... )`. Always consumes at least one character. */
  protected readWord(allowArray: boolean): RawWord {
    const src = this.src;
    const start = this.pos;
    let value = '';
    let dynamic = false;
    let quoted = false;
    let assignment = false;
    let plain = true; // only unquoted literal text so far
    let sawEquals = false;
    let arrayAt = -1; // position right after an assignment's `=`
    let literalEnd = -1; // position right after the last unquoted literal character
    let braceDepth = 0;
    let braceList = false;
    while (this.pos < this.n) {
      const c = src[this.pos]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '&' || c === '|' || c === ')') break;
      if (c === '<' || c === '>') {
        if (src[this.pos + 1] !== '(') break;
        value += this.readNested(2, 'unterminated process substitution');
        dynamic = true;
        plain = false;
        continue;
      }
      if (c === '(') {
        if (allowArray && arrayAt === this.pos) {
          value += this.readArray();
          continue;
        }
        if (literalEnd === this.pos && '?*+@!'.includes(src[this.pos - 1]!)) {
          value += this.readExtglob();
          continue;
        }
        break;
      }
      if (c === '\\') {
        const d = src[this.pos + 1];
        if (d === '\n') {
          this.pos += 2;
        } else if (d === undefined) {
          value += '\\';
          this.pos++;
        } else {
          value += d;
          quoted = true;
          plain = false;
          this.pos += 2;
        }
        continue;
      }
      if (c === "'") {
        value += this.readSingle();
        quoted = true;
        plain = false;
        continue;
      }
      if (c === '"') {
        const p = this.readDouble();
        value += p.value;
        dynamic ||= p.dynamic;
        quoted = true;
        plain = false;
        continue;
      }
      if (c === '`') {
        value += this.readBacktick(false);
        dynamic = true;
        plain = false;
        continue;
      }
      if (c === '$') {
        const d = src[this.pos + 1];
        if (d === "'" || d === '"') quoted = true;
        const p = this.readDollar(false);
        value += p.value;
        dynamic ||= p.dynamic;
        plain = false;
        continue;
      }
      if (c === '=' && !sawEquals) {
        sawEquals = true;
        if (plain && isAssignmentName(value)) {
          assignment = true;
          arrayAt = this.pos + 1;
        }
      } else if (c === '{') {
        braceDepth++;
      } else if (braceDepth > 0) {
        if (c === ',' || (c === '.' && src[this.pos + 1] === '.')) braceList = true;
        else if (c === '}' && --braceDepth === 0 && braceList) dynamic = true; // brace expansion
      }
      value += c;
      this.pos++;
      literalEnd = this.pos;
    }
    if (this.pos === start) this.pos++; // never stall on unexpected input
    return { value, dynamic, quoted, assignment };
  }

  protected readSingle(): string {
    const close = this.src.indexOf("'", this.pos + 1);
    if (close < 0) throw new ShellSyntaxError('unterminated single quote', this.pos);
    const value = this.src.slice(this.pos + 1, close);
    this.pos = close + 1;
    return value;
  }

  /** Reads `"..."` starting at the opening quote. */
  protected readDouble(): Piece {
    const src = this.src;
    const start = this.pos;
    let value = '';
    let dynamic = false;
    this.pos++;
    for (;;) {
      if (this.pos >= this.n) throw new ShellSyntaxError('unterminated double quote', start);
      const c = src[this.pos]!;
      if (c === '"') {
        this.pos++;
        return { value, dynamic };
      }
      if (c === '\\') {
        const d = src[this.pos + 1];
        if (d === '$' || d === '`' || d === '"' || d === '\\') {
          value += d;
          this.pos += 2;
        } else if (d === '\n') {
          this.pos += 2;
        } else {
          value += '\\';
          this.pos++;
        }
      } else if (c === '$') {
        const p = this.readDollar(true);
        value += p.value;
        dynamic ||= p.dynamic;
      } else if (c === '`') {
        value += this.readBacktick(true);
        dynamic = true;
      } else {
        value += c;
        this.pos++;
      }
    }
  }

  /** Reads whatever starts with `$` at the current position. */
  protected readDollar(inDouble: boolean): Piece {
    const src = this.src;
    const start = this.pos;
    const d = src[start + 1];
    if (d === "'" && !inDouble) {
      const r = decodeAnsiC(src, start + 2);
      if (r === null) throw new ShellSyntaxError("unterminated `$'` string", start);
      this.pos = r.end;
      return { value: r.value, dynamic: false };
    }
    if (d === '"' && !inDouble) {
      this.pos++;
      return this.readDouble();
    }
    if (d === '(') {
      if (src[start + 2] === '(') {
        const close = this.probeArithmetic(start + 3);
        if (close >= 0) {
          this.scanArithmetic(start + 3, close);
          this.pos = Math.max(this.pos, close + 2);
          return { value: src.slice(start, this.pos), dynamic: true };
        }
      }
      return { value: this.readNested(2, 'unterminated command substitution'), dynamic: true };
    }
    if (d === '{') return { value: this.readParameter(inDouble), dynamic: true };
    if (isNameStart(d)) {
      let i = start + 2;
      while (isNameChar(src[i])) i++;
      this.pos = i;
      return { value: src.slice(start, i), dynamic: true };
    }
    if (isDigit(d) || isSpecialParam(d)) {
      this.pos = start + 2;
      return { value: src.slice(start, this.pos), dynamic: true };
    }
    this.pos++;
    return { value: '$', dynamic: false };
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
    for (;;) {
      if (this.pos >= this.n) throw new ShellSyntaxError('unterminated `${`', start);
      const c = src[this.pos]!;
      if (c === '}') {
        this.pos++;
        break;
      }
      if (c === '\\') this.pos += 2;
      else if (c === "'" && !inDouble) this.readSingle();
      else if (c === '"') this.readDouble();
      else if (c === '$') this.readDollar(inDouble);
      else if (c === '`') this.readBacktick(inDouble);
      else this.pos++;
    }
    this.leave();
    return src.slice(start, this.pos);
  }

  /** Reads a backtick substitution and parses its body; returns the source text. */
  protected readBacktick(inDouble: boolean): string {
    const src = this.src;
    const start = this.pos;
    let body = '';
    this.pos++;
    for (;;) {
      if (this.pos >= this.n) throw new ShellSyntaxError('unterminated backtick', start);
      const c = src[this.pos]!;
      if (c === '`') {
        this.pos++;
        break;
      }
      if (c === '\\') {
        const d = src[this.pos + 1];
        if (d === '`' || d === '$' || d === '\\' || (inDouble && d === '"')) {
          body += d;
          this.pos += 2;
        } else if (d === undefined) {
          body += '\\';
          this.pos++;
        } else {
          body += '\\' + d;
          this.pos += 2;
        }
      } else {
        body += c;
        this.pos++;
      }
    }
    this.addScript(body);
    return src.slice(start, this.pos);
  }

  /**
   * Decides whether `((` / `$((` opens arithmetic: returns the index of the first `)` of the
   * closing `))`, or -1 (then the text is read as nested subshells instead).
   */
  protected probeArithmetic(from: number): number {
    const src = this.src;
    let depth = 0;
    let i = from;
    while (i < this.n) {
      const c = src[i]!;
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === "'" || c === '`') {
        const close = src.indexOf(c, i + 1);
        if (close < 0) return -1;
        i = close + 1;
        continue;
      }
      if (c === '"') {
        i++;
        while (i < this.n && src[i] !== '"') i += src[i] === '\\' ? 2 : 1;
        if (i >= this.n) return -1;
      } else if (c === '(') {
        depth++;
      } else if (c === ')') {
        if (depth > 0) depth--;
        else return src[i + 1] === ')' ? i : -1;
      }
      i++;
    }
    return -1;
  }

  /** Walks arithmetic text in `[from, to)`, parsing the substitutions inside it. */
  protected scanArithmetic(from: number, to: number): void {
    const src = this.src;
    this.pos = from;
    while (this.pos < to) {
      const c = src[this.pos]!;
      if (c === '\\') this.pos += 2;
      else if (c === "'") {
        const close = src.indexOf("'", this.pos + 1);
        this.pos = close < 0 ? to : close + 1;
      } else if (c === '"') this.readDouble();
      else if (c === '`') this.readBacktick(false);
      else if (c === '$' && (src[this.pos + 1] === '{' || (src[this.pos + 1] === '(' && src[this.pos + 2] !== '(')))
        this.readDollar(true);
      else this.pos++;
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
      const c = src[this.pos];
      if (c === ')') {
        this.pos++;
        return src.slice(start, this.pos);
      }
      if (c === '\n') this.consumeNewline();
      else if (c === '#') this.skipComment();
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
      const c = src[this.pos]!;
      if (c === '\\') this.pos += 2;
      else if (c === "'") this.readSingle();
      else if (c === '"') this.readDouble();
      else {
        this.pos++;
        if (c === '(') depth++;
        else if (c === ')' && --depth === 0) return src.slice(start, this.pos);
      }
    }
  }
}
