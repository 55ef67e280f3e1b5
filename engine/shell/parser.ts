/**
 * Command-level parsing: splits shell text into simple commands ("parts") through lists, pipes,
 * subshells, groups, control-flow keywords, function definitions, substitutions, here-documents
 * and redirections. Word reading is inherited from Lexer; views, wrappers and `bash -c` scripts are
 * handled by wrappers.ts.
 */
import { isDigit, isNameChar, isNameStart, RESERVED_WORDS, shown } from './chars.js';
import { Lexer, MAX_SHELL_DEPTH, ShellSyntaxError, type RawWord } from './lexer.js';
import type { CommandPart, ShellWord } from './types.js';
import { buildParts, unknowablePart } from './wrappers.js';

/** Each simple command reserves a slot so that it is listed before the substitutions inside it. */
type Slot = CommandPart | CommandPart[] | null;

interface Frame {
  start: number;
  words: RawWord[];
  slot: number;
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
  at: number;
}

type ListMode = 'top' | 'paren' | 'case';

const REDIRECTION_OPERATORS = ['<<<', '<<-', '<<', '<>', '<&', '<', '>>', '>|', '>&', '>'] as const;

function isKeywordEnd(c: string | undefined): boolean {
  return (
    c === undefined || c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '&' || c === '|' ||
    c === '(' || c === ')' || c === '<' || c === '>'
  );
}

function toShellWords(words: readonly RawWord[]): ShellWord[] {
  return words.map((w) => ({ value: w.value, dynamic: w.dynamic }));
}

export class Parser extends Lexer {
  private readonly out: Slot[] = [];
  private frames: Frame[] = [];
  private pending: PendingHeredoc[] = [];

  constructor(src: string, depth: number) {
    super(src, depth);
  }

  /** Parses the whole text as a script. Never throws on syntax errors. */
  run(): CommandPart[] {
    try {
      if (this.depth > MAX_SHELL_DEPTH) throw new ShellSyntaxError('nested too deeply', 0);
      this.parseList('top', 0, '');
      const open = this.pending[0];
      if (open) throw new ShellSyntaxError(`unterminated here-document \`${shown(open.delimiter)}\``, open.at);
    } catch (e) {
      this.recover(e);
    }
    return this.flatten();
  }

  /** Scans the body of a here-document with an unquoted delimiter for substitutions. */
  runHeredocBody(): CommandPart[] {
    try {
      while (this.pos < this.n) {
        const c = this.src[this.pos];
        if (c === '\\') this.pos += 2;
        else if (c === '$') this.readDollar(true);
        else if (c === '`') this.readBacktick(false);
        else this.pos++;
      }
    } catch (e) {
      this.recover(e);
    }
    return this.flatten();
  }

  private flatten(): CommandPart[] {
    const parts: CommandPart[] = [];
    for (const slot of this.out) {
      if (slot === null) continue;
      if (Array.isArray(slot)) for (const p of slot) parts.push(p);
      else parts.push(slot);
    }
    return parts;
  }

  /** Keeps what was read and adds unknowable parts for the commands that were cut short. */
  private recover(e: unknown): void {
    const reason = e instanceof ShellSyntaxError ? e.reason : 'too complex to analyse';
    const at = e instanceof ShellSyntaxError ? e.at : this.pos;
    let emitted = false;
    for (const frame of this.frames) {
      if (frame.words.length === 0) continue;
      this.out[frame.slot] = this.partsFor(frame.words, this.src.slice(frame.start), reason);
      emitted = true;
    }
    if (!emitted) {
      const from = Math.max(0, Math.min(at, this.frames[0]?.start ?? at));
      this.out.push(unknowablePart(this.src.slice(from), reason));
    }
    this.frames = [];
    this.pending = [];
  }

  private partsFor(words: readonly RawWord[], text: string, forced: string | null): CommandPart[] {
    return buildParts(toShellWords(words), text, forced, (script) => new Parser(script, this.depth + 1).run());
  }

  protected override addScript(text: string): void {
    const parts = new Parser(text, this.depth + 1).run();
    if (parts.length > 0) this.out.push(parts);
  }

  protected override parseNestedList(openAt: number, reason: string): void {
    this.parseList('paren', openAt, reason);
  }

  protected override consumeNewline(): void {
    this.pos++;
    if (this.pending.length > 0) this.readHeredocBodies();
  }

  private parseList(mode: ListMode, openAt: number, reason: string): void {
    const src = this.src;
    for (;;) {
      const before = this.pos;
      this.skipBlanks();
      if (this.pos >= this.n) {
        if (mode === 'paren') throw new ShellSyntaxError(reason, openAt);
        return;
      }
      const c = src[this.pos]!;
      const d = src[this.pos + 1];
      if (c === '\n') {
        this.consumeNewline();
      } else if (c === '#') {
        this.skipComment();
      } else if (c === ';') {
        if (mode === 'case' && (d === ';' || d === '&')) {
          this.pos += 2;
          if (d === ';' && src[this.pos] === '&') this.pos++;
          return;
        }
        this.pos++;
      } else if (c === '&' && d !== '>') {
        this.pos += d === '&' ? 2 : 1;
      } else if (c === '|') {
        this.pos += d === '|' || d === '&' ? 2 : 1;
      } else if (c === ')') {
        this.pos++;
        if (mode === 'paren') return;
      } else if (c === '(') {
        this.parseParenCommand();
      } else {
        const keyword = this.peekKeyword();
        if (keyword === 'esac' && mode === 'case') return;
        if (keyword === null || !this.parseKeyword(keyword)) this.parseSimple();
      }
      if (this.pos === before) this.pos++; // never stall on unexpected input
    }
  }

  /** `( list )` or the arithmetic command `(( expr ))`. */
  private parseParenCommand(): void {
    const start = this.pos;
    if (this.src[start + 1] === '(') {
      const close = this.probeArithmetic(start + 2);
      if (close >= 0) {
        this.scanArithmetic(start + 2, close);
        this.pos = Math.max(this.pos, close + 2);
        return;
      }
    }
    this.enter(start);
    this.pos++;
    this.parseList('paren', start, 'unterminated subshell');
    this.leave();
  }

  /** The reserved word at the current position, if any. */
  private peekKeyword(): string | null {
    const src = this.src;
    let i = this.pos;
    while (!isKeywordEnd(src[i])) {
      if (i - this.pos > 8) return null;
      i++;
    }
    const word = src.slice(this.pos, i);
    return RESERVED_WORDS.has(word) ? word : null;
  }

  private peekWord(word: string): boolean {
    return this.src.startsWith(word, this.pos) && isKeywordEnd(this.src[this.pos + word.length]);
  }

  /** Handles a reserved word at command position; false when it should be read as a command. */
  private parseKeyword(keyword: string): boolean {
    switch (keyword) {
      case 'time':
        return this.parseTimeKeyword();
      case 'for':
      case 'select':
        this.pos += keyword.length;
        this.parseForHeader();
        return true;
      case 'case':
        this.parseCase();
        return true;
      case 'function':
        this.pos += keyword.length;
        this.skipBlanks();
        if (this.atWordStart()) this.readWord(false);
        this.skipBlanks();
        if (this.src[this.pos] === '(') {
          const close = this.emptyParensEnd();
          if (close >= 0) this.pos = close;
        }
        return true;
      case '[[':
        this.parseTest();
        return true;
      default:
        // if then elif else fi while until do done esac ! { } coproc: the next command follows
        this.pos += keyword.length;
        return true;
    }
  }

  /** `time` before a compound command is the keyword; before a simple command it is a wrapper. */
  private parseTimeKeyword(): boolean {
    const save = this.pos;
    this.pos += 4;
    this.skipBlanks();
    if (this.peekWord('-p')) {
      this.pos += 2;
      this.skipBlanks();
    }
    const c = this.src[this.pos];
    if (c === undefined || ';&|\n()'.includes(c) || this.peekKeyword() !== null) return true;
    this.pos = save;
    return false;
  }

  /** `for NAME [in WORDS]` or `for (( ... ))`: the header is not a command; its substitutions are. */
  private parseForHeader(): void {
    this.skipBlanks();
    if (this.src.startsWith('((', this.pos)) {
      const close = this.probeArithmetic(this.pos + 2);
      if (close < 0) throw new ShellSyntaxError('unterminated `for ((`', this.pos);
      this.scanArithmetic(this.pos + 2, close);
      this.pos = Math.max(this.pos, close + 2);
      return;
    }
    if (this.atWordStart()) this.readWord(false);
    this.skipSeparatorsAndComments();
    if (!this.peekWord('in')) return;
    this.pos += 2;
    for (;;) {
      this.skipBlanks();
      if (!this.atWordStart()) return;
      this.readWord(false);
    }
  }

  private skipSeparatorsAndComments(): void {
    for (;;) {
      this.skipBlanks();
      const c = this.src[this.pos];
      if (c === '\n') this.consumeNewline();
      else if (c === '#') this.skipComment();
      else return;
    }
  }

  /** `case WORD in PATTERN) LIST ;; ... esac`: patterns are not commands, the lists are. */
  private parseCase(): void {
    const start = this.pos;
    this.pos += 4;
    this.skipBlanks();
    if (this.atWordStart()) this.readWord(false);
    this.skipSeparatorsAndComments();
    if (!this.peekWord('in')) return;
    this.pos += 2;
    this.enter(start);
    const reason = 'unterminated `case`';
    for (;;) {
      this.skipSeparatorsAndComments();
      if (this.pos >= this.n) throw new ShellSyntaxError(reason, start);
      if (this.peekWord('esac')) {
        this.pos += 4;
        break;
      }
      if (this.src[this.pos] === '(') this.pos++;
      for (;;) {
        this.skipBlanks();
        if (this.pos >= this.n) throw new ShellSyntaxError(reason, start);
        const c = this.src[this.pos];
        if (c === ')') {
          this.pos++;
          break;
        }
        if (c === '\n') this.consumeNewline();
        else if (this.atWordStart()) this.readWord(false);
        else this.pos++; // `|` between patterns, or stray operators
      }
      this.parseList('case', start, reason);
    }
    this.leave();
  }

  /** `[[ ... ]]` is a test, not a command; substitutions inside it are. */
  private parseTest(): void {
    const start = this.pos;
    this.pos += 2;
    for (;;) {
      this.skipBlanks();
      if (this.pos >= this.n) throw new ShellSyntaxError('unterminated `[[`', start);
      const c = this.src[this.pos]!;
      if (c === '\n') this.consumeNewline();
      else if (this.peekWord(']]')) {
        this.pos += 2;
        return;
      } else if ('()<>!&|;'.includes(c)) this.pos++;
      else this.readWord(false);
    }
  }

  /** If `(` then optional blanks then `)` follow, the index just past `)`; else -1. */
  private emptyParensEnd(): number {
    let i = this.pos + 1;
    while (this.src[i] === ' ' || this.src[i] === '\t') i++;
    return this.src[i] === ')' ? i + 1 : -1;
  }

  private parseSimple(): void {
    const src = this.src;
    const frame: Frame = { start: this.pos, words: [], slot: this.out.length };
    this.out.push(null);
    this.frames.push(frame);
    let end = this.pos;
    let functionBodyAt = -1;
    for (;;) {
      this.skipBlanks();
      if (this.pos >= this.n) break;
      const c = src[this.pos]!;
      if (c === '\n' || c === ';' || c === '|' || c === ')') break;
      if (c === '&' && src[this.pos + 1] !== '>') break;
      if (c === '(') {
        // `name ( )` defines a function: the body that follows is parsed as commands
        if (frame.words.length === 1) functionBodyAt = this.emptyParensEnd();
        break;
      }
      if (c === '#') {
        this.skipComment();
        break;
      }
      if (this.readRedirection()) {
        end = this.pos;
        continue;
      }
      const word = this.readWord(true);
      end = this.pos;
      if (frame.words.length === 0 && word.assignment) continue;
      frame.words.push(word);
    }
    this.frames.pop();
    if (functionBodyAt >= 0) {
      this.pos = functionBodyAt;
      return;
    }
    if (frame.words.length === 0) return;
    this.out[frame.slot] = this.partsFor(frame.words, src.slice(frame.start, end), null);
  }

  /** Reads a redirection and its target at the current position; false when there is none. */
  private readRedirection(): boolean {
    const src = this.src;
    const start = this.pos;
    let i = start;
    if (isDigit(src[i])) {
      while (isDigit(src[i])) i++;
    } else if (src[i] === '{' && isNameStart(src[i + 1])) {
      let j = i + 1;
      while (isNameChar(src[j])) j++;
      if (src[j] !== '}') return false;
      i = j + 1;
    }
    const c = src[i];
    let op: string | undefined;
    if (c === '&' && i === start && src[i + 1] === '>') op = src[i + 2] === '>' ? '&>>' : '&>';
    else if ((c === '<' || c === '>') && src[i + 1] !== '(') op = REDIRECTION_OPERATORS.find((o) => src.startsWith(o, i));
    if (op === undefined) return false;
    this.pos = i + op.length;
    this.skipBlanks();
    if (op === '<<' || op === '<<-') {
      if (!this.atWordStart()) throw new ShellSyntaxError('missing here-document delimiter', start);
      const word = this.readWord(false);
      this.pending.push({ delimiter: word.value, stripTabs: op === '<<-', quoted: word.quoted, at: start });
    } else if (this.atWordStart()) {
      this.readWord(false); // the target is removed from the words; its substitutions still count
    }
    return true;
  }

  /** Skips the bodies of the here-documents opened on the line just ended. */
  private readHeredocBodies(): void {
    const src = this.src;
    const list = this.pending;
    this.pending = [];
    for (const doc of list) {
      const bodyStart = this.pos;
      let bodyEnd = -1;
      while (this.pos < this.n) {
        const nl = src.indexOf('\n', this.pos);
        const lineEnd = nl < 0 ? this.n : nl;
        let line = src.slice(this.pos, lineEnd);
        if (doc.stripTabs) line = line.replace(/^\t+/, '');
        const lineStart = this.pos;
        this.pos = nl < 0 ? this.n : nl + 1;
        if (line === doc.delimiter) {
          bodyEnd = lineStart;
          break;
        }
      }
      if (bodyEnd < 0) throw new ShellSyntaxError(`unterminated here-document \`${shown(doc.delimiter)}\``, doc.at);
      if (!doc.quoted && bodyEnd > bodyStart) {
        const parts = new Parser(src.slice(bodyStart, bodyEnd), this.depth).runHeredocBody();
        if (parts.length > 0) this.out.push(parts);
      }
    }
  }
}
