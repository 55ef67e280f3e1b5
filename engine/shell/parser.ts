/**
 * Command-level parsing: splits shell text into simple commands ("parts") through lists, pipes,
 * subshells, groups, control-flow keywords, function definitions, substitutions, here-documents
 * and redirections. Word reading is inherited from Lexer; views, wrappers and `bash -c` scripts are
 * handled by wrappers.ts.
 */
import {
  codeAt,
  isDigitCode,
  isMetaCode,
  isNameCharCode,
  isNameStartCode,
  redirectionLength,
  reservedWordAtCommand,
  shown,
} from './chars.js';
import { Lexer, MAX_SHELL_DEPTH, NESTING_REASON, ShellSyntaxError } from './lexer.js';
import type { CommandPart, ShellWord } from './types.js';
import { isHarmlessTarget, readSimpleCommands, stopKeyword } from './fast.js';
import { buildParts, buildPartsInto, computedScript, readsScriptFromInput, unknowablePart, type ScriptParser } from './wrappers.js';
import { printedTexts } from './printed.js';
import { baseName } from './words.js';
import { assignmentOpaque } from './environment.js';
import {
  analysisFacts,
  ARITHMETIC,
  EVALUATES_REASON,
  noteArithmeticText,
  noteAssignedValue,
  noteComputedName,
  noteLiteralArithmetic,
  PROMPT,
  resetFacts,
  SCRIPT,
  SUBSCRIPT_REASON,
  ZSH_FLAGS_REASON,
} from './facts.js';
import { homeRelative } from './paths.js';

/**
 * Each simple command reserves a slot in the output, holding this placeholder while the command is
 * read, so that it is listed before the substitutions inside it.
 */
const SLOT: CommandPart = Object.freeze({ text: '', words: [], views: [], unknowable: null }) as unknown as CommandPart;

interface Frame {
  start: number;
  words: ShellWord[];
  slot: number;
  /** The files its redirections write, and those they read. */
  writes?: ShellWord[];
  reads?: ShellWord[];
  /** What its standard input reads, when a redirection gives it text: a here-document or a here-string. */
  stdin?: PendingHeredoc | ShellWord;
  /** The command of a process substitution its standard input reads (`< <(echo x)`). */
  stdinCommand?: string;
}

/** A simple command a pipe feeds into the command after it. */
interface Stage {
  words: readonly ShellWord[];
  /** Its first part, whose views show what the program is (`command printf x` is `printf`). */
  part: CommandPart;
  stdin: PendingHeredoc | ShellWord | undefined;
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
  at: number;
  /** The body is the script of a shell that reads its commands from its input (`bash <<'EOF'`). */
  script?: boolean;
}

/** A here-document's text as the command reads it: with `<<-`, leading tabs removed from each line. */
function heredocText(body: string, stripTabs: boolean): string {
  return stripTabs ? body.replace(/^\t+/gm, '') : body;
}

/** Why writing these targets makes the part opaque: a target computed when the command runs. */
function dynamicWrite(writes: readonly ShellWord[]): string | null {
  // `> $HOME/.bashrc` names a file all the same: it is judged as `~/.bashrc`
  for (const w of writes) if (w.dynamic && homeRelative(w.value) === null) return `a redirection writes to \`${w.value}\`, a file named when the command runs`;
  return null;
}

/** The part of a redirection with no command of its own (`> file`, `{ ...; } > file`, `$(< file)`). */
function redirectionPart(text: string, writes: ShellWord[] | undefined, reads: ShellWord[] | undefined): CommandPart {
  const part: CommandPart = { text, words: [], views: [{ words: [], wrappers: [], neutral: true }], unknowable: writes ? dynamicWrite(writes) : null };
  if (writes !== undefined) part.writes = writes;
  if (reads !== undefined) part.reads = reads;
  return part;
}

/**
 * How parseList ends: at the end of input (top), at `)` (paren), at `;;`, `;&`, `;;&` or `esac`
 * (case), or at the `}` of a function substitution `${ list; }` (brace).
 */
const TOP = 0;
const PAREN = 1;
const CASE = 2;
const BRACE = 3;
type ListMode = typeof TOP | typeof PAREN | typeof CASE | typeof BRACE;

/** True when `text` from `from` to `to` holds only blanks, newlines and line continuations. */
function onlyBlanks(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */ && text.charCodeAt(i + 1) === 10) i++;
    else if (c !== 32 && c !== 9 && c !== 10) return false;
  }
  return true;
}

const NO_PARTS: readonly CommandPart[] = Object.freeze([]);
const NO_WORDS: readonly ShellWord[] = Object.freeze([]);

/** Parses scripts at the depth after its own. */
class ScriptParserAt implements ScriptParser {
  constructor(private readonly depth: number) {}

  parseScript(script: string): CommandPart[] {
    return parseCommands(script, this.depth + 1);
  }
}

const scriptParsers: ScriptParserAt[] = [];
for (let d = 0; d <= MAX_SHELL_DEPTH; d++) scriptParsers.push(new ScriptParserAt(d));

/** False while withoutFastPath runs. */
let fastPath = true;

/** Runs `fn` with the fast path turned off, so that the parser reads everything (for tests). */
export function withoutFastPath<T>(fn: () => T): T {
  const saved = fastPath;
  fastPath = false;
  try {
    return fn();
  } finally {
    fastPath = saved;
  }
}

/**
 * The parts of a script at nesting depth `depth`. The fast path reads the leading simple commands;
 * the parser reads the rest, from the start of the first command the fast path does not read.
 * Never throws on syntax errors.
 */
export function parseCommands(text: string, depth: number): CommandPart[] {
  // depth 0 is a whole command line: its facts start afresh, and what it evaluates is read at the end
  if (depth > 0) return parseScriptAt(text, depth);
  resetFacts();
  const parts = parseScriptAt(text, 0);
  addEvaluatedParts(parts);
  return parts;
}

/** parseCommands for a script at any depth, without the facts of a whole command line. */
function parseScriptAt(text: string, depth: number): CommandPart[] {
  const scripts = scriptParsers[depth];
  if (scripts === undefined || !fastPath) return new Parser(text, depth).run();
  const parts: CommandPart[] = [];
  const stop = readSimpleCommands(text, 0, depth, scripts, parts);
  const read = stop >= text.length ? parts : new Parser(text, depth).run(stop, parts, true);
  // the fast path does not follow what a pipe feeds a shell that reads its script from its input
  // (`echo 'cmd' | bash`): the parser does
  return readsFedScript(text, read) ? withoutFastPath(() => new Parser(text, depth).run()) : read;
}

/** How many texts the commands of a line evaluate are read; past it the analysis is capped. */
const MAX_EVALUATED_TEXTS = 256;

/** The reason of the cap on evaluated texts (one of the cap reasons index.ts knows). */
const EVALUATED_CAP_REASON = 'too complex to analyse';

/**
 * Adds to the parts of a command line the code its evaluations run (analysisFacts): the
 * substitutions in the static values of the variables it evaluates as arithmetic or prompts, and
 * in the texts it evaluates as written, and the code of zsh's glob qualifiers. These parts are
 * transparent: deny and ask see them, while the call is opaque anyway (an allow never covers it).
 * A variable evaluated after it is set to a value computed when the command runs may run any
 * command: a part standing for any command, as a computed `bash -c` script is. Reading a value
 * may evaluate further variables and texts, which are read in turn.
 */
function addEvaluatedParts(parts: CommandPart[]): void {
  const facts = analysisFacts;
  if (facts.changed.length === 0 && facts.texts.length === 0 && facts.evaluatedOutput === null) return;
  const known = new Set<string>();
  for (const p of parts) known.add(p.text);
  const read = new Set<string>(); // the texts read, with how
  let budget = MAX_EVALUATED_TEXTS;
  let added = false;
  /** Reads one text evaluated in `mode`; false past the cap. */
  const readText = (text: string, mode: number): boolean => {
    const key = `${mode}:${text}`;
    if (read.has(key)) return true;
    read.add(key);
    if (mode === ARITHMETIC) noteArithmeticText(text);
    if (mode !== SCRIPT && !text.includes('$') && !text.includes('`')) return true;
    if (--budget < 0) {
      parts.push(unknowablePart(text, EVALUATED_CAP_REASON));
      return false;
    }
    const code = mode === SCRIPT ? parseScriptAt(text, 1) : new Parser(text, 1).runHeredocBody();
    for (const p of code) {
      if (known.has(p.text)) continue;
      known.add(p.text);
      if (p.unknowable === null) p.transparent = true;
      parts.push(p);
      added = true;
    }
    return true;
  };
  // what has been read of each variable: how, and how many of its static values
  const done = new Map<string, { modes: number; texts: number; computed: boolean }>();
  let changed = 0;
  let texts = 0;
  while (changed < facts.changed.length || texts < facts.texts.length) {
    while (changed < facts.changed.length) {
      const name = facts.changed[changed++]!;
      const mode = facts.evaluated.get(name);
      const values = facts.values.get(name);
      if (mode === undefined || values === undefined) continue;
      let state = done.get(name);
      if (state === undefined) done.set(name, (state = { modes: 0, texts: 0, computed: false }));
      if (values.computed !== null && !state.computed) {
        state.computed = true;
        parts.push(computedScript({ value: values.computed, dynamic: true }, EVALUATES_REASON));
      }
      // the values already read are read again only in the ways they were not
      const fresh = mode & ~state.modes;
      const list = values.texts;
      for (let k = fresh !== 0 ? 0 : state.texts; k < list.length; k++) {
        const modes = k < state.texts ? fresh : mode;
        if ((modes & ARITHMETIC) !== 0 && !readText(list[k]!, ARITHMETIC)) return;
        if ((modes & PROMPT) !== 0 && !readText(list[k]!, PROMPT)) return;
      }
      state.modes = mode;
      state.texts = list.length;
    }
    while (texts < facts.texts.length) {
      const text = facts.texts[texts++]!;
      if (!readText(text.text, text.mode)) return;
    }
  }
  if (facts.evaluatedOutput !== null) parts.push(computedScript({ value: facts.evaluatedOutput, dynamic: true }, ZSH_FLAGS_REASON));
  // the code read is run only by evaluations that make the call opaque; should none, the call is opaque all the same
  if (added && !(facts.evaluates && facts.riskyValue) && facts.zsh === null) facts.direct ??= SUBSCRIPT_REASON;
}

/** Notes an operand of `[[ x -eq y ]]`, which is evaluated as arithmetic. */
function noteOperand(word: ShellWord): void {
  if (word.dynamic) noteArithmeticText(word.value);
  else noteLiteralArithmetic(word.value, SUBSCRIPT_REASON);
}

/** True when a shell among `parts` reads its commands from its input, which a pipe or `< <(...)` in `text` may feed. */
function readsFedScript(text: string, parts: readonly CommandPart[]): boolean {
  if (!text.includes('|') && !text.includes('<(')) return false;
  for (let i = 0; i < parts.length; i++) if (readsScriptFromInput(parts[i]!)) return true;
  return false;
}

export class Parser extends Lexer implements ScriptParser {
  private out: CommandPart[] = [];
  /** Where the fast path last stopped: calling it there again would read nothing. */
  private fastStop = -1;
  /** Slots reserved in `out` and not yet filled. */
  private openSlots = 0;
  private frames: Frame[] = [];
  private pending: PendingHeredoc[] = [];
  /**
   * The simple command read last (where it ended, its words, its first part, its input), and
   * whether a pipe just read follows it at once, with where the pipe ended.
   */
  private stageEnd = -1;
  private stageWords: readonly ShellWord[] = NO_WORDS;
  private stagePart: CommandPart | null = null;
  private stageStdin: PendingHeredoc | ShellWord | undefined = undefined;
  private piped = false;
  private pipedAt = -1;
  /**
   * Inside the list of a function substitution (`${ list; }`), the groups `{ ...; }` open in it;
   * -1 elsewhere. A `}` word ends the substitution when none is open, as ksh and mksh read it.
   */
  private funsubGroups = -1;

  constructor(src: string, depth: number) {
    super(src, depth);
  }

  /**
   * Parses the text as a script, from `from` (the start of a command of the top-level list) after
   * the parts already read before it; `fastStopped` when the fast path stopped at `from`. Never
   * throws on syntax errors.
   */
  run(from = 0, before: CommandPart[] = [], fastStopped = false): CommandPart[] {
    this.pos = from;
    this.out = before;
    if (fastStopped) this.fastStop = from;
    try {
      if (this.depth > MAX_SHELL_DEPTH) throw new ShellSyntaxError(NESTING_REASON, 0);
      this.parseList(TOP, 0, '');
      const open = this.pending[0];
      if (open) throw new ShellSyntaxError(`unterminated here-document \`${shown(open.delimiter)}\``, open.at);
    } catch (e) {
      this.recover(e);
    }
    return this.result();
  }

  /** Scans the body of a here-document with an unquoted delimiter for substitutions. */
  runHeredocBody(): CommandPart[] {
    try {
      while (this.pos < this.n) {
        const c = this.src.charCodeAt(this.pos);
        if (c === 92 /* \ */) this.pos += 2;
        else if (c === 36 /* $ */) this.readDollar(true);
        else if (c === 96 /* ` */) this.readBacktick(false);
        else this.pos++;
      }
    } catch (e) {
      this.recover(e);
    }
    return this.result();
  }

  private result(): CommandPart[] {
    return this.openSlots === 0 ? this.out : this.out.filter((p) => p !== SLOT);
  }

  /** Replaces the slot at `slot` by `parts`, moving the entries after it. */
  private fillSlot(slot: number, parts: readonly CommandPart[]): void {
    const out = this.out;
    const length = out.length;
    const shift = parts.length - 1;
    if (shift < 0) {
      for (let k = slot; k < length - 1; k++) out[k] = out[k + 1]!;
      out.pop();
    } else {
      for (let k = 0; k < shift; k++) out.push(SLOT);
      for (let k = length - 1; k > slot; k--) out[k + shift] = out[k]!;
      for (let k = 0; k < parts.length; k++) out[slot + k] = parts[k]!;
    }
    this.openSlots--;
  }

  /** Keeps what was read and adds unknowable parts for the commands that were cut short. */
  private recover(e: unknown): void {
    const reason = e instanceof ShellSyntaxError ? e.reason : 'too complex to analyse';
    const at = e instanceof ShellSyntaxError ? e.at : this.pos;
    let emitted = false;
    // innermost first, so that the slots of the outer commands keep their index
    for (let k = this.frames.length - 1; k >= 0; k--) {
      const frame = this.frames[k]!;
      const parts = frame.words.length === 0 ? NO_PARTS : buildParts(frame.words, this.src.slice(frame.start), reason, this);
      this.fillSlot(frame.slot, parts);
      if (frame.words.length > 0) emitted = true;
    }
    if (!emitted) {
      const from = Math.max(0, Math.min(at, this.frames[0]?.start ?? at));
      this.out.push(unknowablePart(this.src.slice(from), reason));
    }
    this.frames = [];
    this.pending = [];
  }

  /** Parses a script (the `-c` text of a shell, `eval` arguments) one level deeper. */
  parseScript(script: string): CommandPart[] {
    return parseCommands(script, this.depth + 1);
  }

  protected override addScript(text: string): void {
    for (const p of parseCommands(text, this.depth + 1)) this.out.push(p);
  }

  protected override parseNestedList(openAt: number, reason: string): void {
    this.parseList(PAREN, openAt, reason);
  }

  protected override parseFunctionSubstitution(openAt: number, reason: string): void {
    this.parseList(BRACE, openAt, reason);
  }

  protected override consumeNewline(): void {
    this.pos++;
    if (this.pending.length > 0) this.readHeredocBodies();
  }

  private parseList(mode: ListMode, openAt: number, reason: string): void {
    if (mode === TOP || mode === CASE) {
      this.parseListItems(mode, openAt, reason);
      return;
    }
    // a `}` word ends a function substitution only in its own list, not in a `( )` or `$( )` inside it
    const groups = this.funsubGroups;
    this.funsubGroups = mode === BRACE ? 0 : -1;
    this.parseListItems(mode, openAt, reason);
    this.funsubGroups = groups;
  }

  private parseListItems(mode: ListMode, openAt: number, reason: string): void {
    const src = this.src;
    for (;;) {
      const before = this.pos;
      let keyword: string | null | undefined; // undefined: not known yet
      if (mode !== CASE && this.funsubGroups < 0 && this.pos !== this.fastStop && this.pending.length === 0 && fastPath) {
        // the simple commands that follow, if any, through the fast path
        const scripts = scriptParsers[this.depth];
        if (scripts !== undefined) {
          this.pos = this.fastStop = readSimpleCommands(src, this.pos, this.depth, scripts, this.out);
          if (stopKeyword !== null) keyword = stopKeyword;
        }
      }
      this.skipBlanks();
      if (this.pos >= this.n) {
        if (mode === PAREN || mode === BRACE) throw new ShellSyntaxError(reason, openAt);
        return;
      }
      const c = src.charCodeAt(this.pos);
      const d = this.pos + 1 < this.n ? src.charCodeAt(this.pos + 1) : NaN;
      if (c === 10 /* newline */) {
        this.consumeNewline();
      } else if (c === 35 /* # */) {
        this.skipComment();
      } else if (c === 59 /* ; */) {
        if (mode === CASE && (d === 59 /* ; */ || d === 38) /* & */) {
          this.pos += 2;
          if (d === 59 && codeAt(src, this.pos) === 38) this.pos++;
          return;
        }
        this.pos++;
      } else if (c === 38 /* & */ && d !== 62 /* > */) {
        this.pos += d === 38 ? 2 : 1;
      } else if (c === 124 /* | */) {
        // `|` and `|&` feed the command that follows what the one before prints
        this.piped = d !== 124 && this.stageEnd === this.pos;
        this.pos += d === 124 || d === 38 ? 2 : 1;
        this.pipedAt = this.pos;
      } else if (c === 41 /* ) */) {
        this.pos++;
        if (mode === PAREN) return;
      } else if (c === 40 /* ( */) {
        this.parseParenCommand();
      } else if (c === 125 /* } */ && mode === BRACE && this.funsubGroups === 0) {
        // the end of the function substitution (`}` may be followed by more of its word: `${ cmd; }x`)
        this.pos++;
        return;
      } else {
        keyword ??= this.peekKeyword();
        if (keyword === null) this.parseSimple();
        else if (keyword === 'esac' && mode === CASE) return;
        else if (this.funsubGroups >= 0 && (keyword === '{' || keyword === '}')) {
          // the groups inside a function substitution
          if (keyword === '{') this.funsubGroups++;
          else if (this.funsubGroups > 0) this.funsubGroups--;
          this.pos++;
        } else if (!this.parseKeyword(keyword)) this.parseSimple();
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
    this.parseList(PAREN, start, 'unterminated subshell');
    this.leave();
  }

  /** The reserved word at the current position, if any. */
  private peekKeyword(): string | null {
    return reservedWordAtCommand(this.src, this.pos);
  }

  private peekWord(word: string): boolean {
    return this.src.startsWith(word, this.pos) && isMetaCode(codeAt(this.src, this.pos + word.length));
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
      case 'coproc': {
        // `coproc NAME { ...; }` and `coproc NAME ( ... )`: NAME is not a command
        this.pos += keyword.length;
        this.skipBlanks();
        let j = this.pos;
        while (isNameCharCode(codeAt(this.src, j))) j++;
        if (j > this.pos && isNameStartCode(codeAt(this.src, this.pos))) {
          let k = j;
          while (codeAt(this.src, k) === 32 || codeAt(this.src, k) === 9) k++;
          const next = codeAt(this.src, k);
          if (next === 123 /* { */ || next === 40 /* ( */) this.pos = k;
        }
        return true;
      }
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
    const variable = this.atWordStart() ? this.readWord(false) : null;
    const name = variable !== null && !variable.dynamic ? variable.value : '';
    this.skipSeparatorsAndComments();
    if (!this.peekWord('in')) {
      // `for x; do`: x takes the positional parameters
      if (name !== '') noteComputedName(name, '"$@"');
      return;
    }
    this.pos += 2;
    for (;;) {
      this.skipBlanks();
      if (!this.atWordStart()) return;
      const word = this.readWord(false);
      if (name !== '') noteAssignedValue(`${name}=${word.value}`, word.dynamic);
      else if (word.dynamic || word.value.includes('[')) analysisFacts.riskyValue = true;
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
      this.parseList(CASE, start, reason);
    }
    this.leave();
  }

  /** `[[ ... ]]` is a test, not a command; substitutions inside it are. */
  private parseTest(): void {
    const start = this.pos;
    this.pos += 2;
    let vTest = false;
    let previous: ShellWord | null = null; // the word before, while no operator came between
    let operand = false; // the word that follows is the right operand of `-eq` and the like
    for (;;) {
      this.skipBlanks();
      if (this.pos >= this.n) throw new ShellSyntaxError('unterminated `[[`', start);
      const c = this.src[this.pos]!;
      if (c === '\n') this.consumeNewline();
      else if (this.peekWord(']]')) {
        this.pos += 2;
        return;
      } else if ('()<>!&|;'.includes(c)) {
        this.pos++;
        previous = null;
      } else {
        const word = this.readWord(false);
        if (vTest && word.value.includes('[')) analysisFacts.direct ??= SUBSCRIPT_REASON;
        // `[[ -v $x ]]`: the value of x is the name tested, subscript and all
        if (vTest && word.dynamic) noteArithmeticText(word.value);
        vTest = !word.dynamic && (word.value === '-v' || word.value === '-R');
        if (!word.dynamic && /^-(eq|ne|lt|le|gt|ge|v|R)$/.test(word.value)) analysisFacts.evaluates = true;
        // both operands of `-eq` and the like are evaluated as arithmetic
        const arithmetic = !word.dynamic && /^-(eq|ne|lt|le|gt|ge)$/.test(word.value);
        if (arithmetic && previous !== null) noteOperand(previous);
        if (operand) noteOperand(word);
        operand = arithmetic;
        previous = word;
      }
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
    // what a pipe just read feeds this command, if it follows the pipe at once
    const piped: Stage | null =
      this.piped && this.stagePart !== null && onlyBlanks(src, this.pipedAt, this.pos) ? { words: this.stageWords, part: this.stagePart, stdin: this.stageStdin } : null;
    this.piped = false;
    this.stageEnd = -1;
    const frame: Frame = { start: this.pos, words: [], slot: this.out.length };
    this.out.push(SLOT);
    this.openSlots++;
    this.frames.push(frame);
    let end = this.pos;
    let functionBodyAt = -1;
    let opaque: string | null = null;
    for (;;) {
      let c = codeAt(src, this.pos);
      if (c === 32 /* space */ || c === 9 /* tab */ || c === 92 /* \ */) {
        this.skipBlanks();
        c = codeAt(src, this.pos);
      }
      if (this.pos >= this.n) break;
      if (c === 10 /* newline */ || c === 59 /* ; */ || c === 124 /* | */ || c === 41 /* ) */) break;
      if (c === 38 /* & */ && codeAt(src, this.pos + 1) !== 62 /* > */) break;
      if (c === 40 /* ( */) {
        // `name ( )` defines a function: the body that follows is parsed as commands
        if (frame.words.length === 1) functionBodyAt = this.emptyParensEnd();
        break;
      }
      if (c === 35 /* # */) {
        this.skipComment();
        break;
      }
      // `${ echo a }`: ksh and mksh end a function substitution at a `}` that starts a word
      if (c === 125 /* } */ && this.funsubGroups === 0) break;
      // a redirection starts with a digit, `{`, `&`, `<` or `>`
      if ((isDigitCode(c) || c === 123 || c === 38 || c === 60 || c === 62) && this.readRedirection(c)) {
        end = this.pos;
        continue;
      }
      const word = this.readWord(true);
      end = this.pos;
      if (frame.words.length === 0 && this.wordAssignment) {
        opaque ??= assignmentOpaque(word.value);
        noteAssignedValue(word.value, word.dynamic);
        if (/^[A-Za-z_][A-Za-z0-9_]*\[/.test(word.value)) {
          // `a[i]=v`: the subscript is arithmetic
          analysisFacts.evaluates = true;
          const open = word.value.indexOf('[');
          noteArithmeticText(word.value.slice(open + 1, Math.max(open + 1, word.value.lastIndexOf(']', word.value.indexOf('=')))));
        }
        continue;
      }
      frame.words.push(word);
    }
    this.frames.pop();
    if (functionBodyAt >= 0) this.pos = functionBodyAt;
    if (functionBodyAt >= 0 || frame.words.length === 0) {
      // an assignment statement that changes what later commands run is a part of its own, and so
      // is a redirection without a command (`> file`, or one after `}` or `done`): it writes its file
      let parts = NO_PARTS;
      if (functionBodyAt < 0 && opaque !== null) parts = [unknowablePart(src.slice(frame.start, end), opaque)];
      else if (functionBodyAt < 0 && (frame.writes !== undefined || frame.reads !== undefined))
        parts = [redirectionPart(src.slice(frame.start, end), frame.writes, frame.reads)];
      this.fillSlot(frame.slot, parts);
      return;
    }
    const text = src.slice(frame.start, end);
    if (frame.writes !== undefined) opaque ??= dynamicWrite(frame.writes);
    const input = frame.stdin === undefined && frame.stdinCommand === undefined && piped === null;
    if (frame.writes === undefined && frame.reads === undefined && input && frame.slot === this.out.length - 1) {
      // nothing was added after the slot: the parts go straight to the end
      this.out.pop();
      this.openSlots--;
      const at = this.out.length;
      buildPartsInto(this.out, frame.words, text, opaque, this);
      const part = this.out[at];
      if (part !== undefined) this.setStage(frame.words, part, undefined);
      return;
    }
    const parts = buildParts(frame.words, text, opaque, this);
    if (frame.writes !== undefined && parts.length > 0) parts[0]!.writes = frame.writes;
    if (frame.reads !== undefined && parts.length > 0) parts[0]!.reads = frame.reads;
    const stdin = frame.stdin;
    if (parts.length > 0 && readsScriptFromInput(parts[0]!)) {
      // a shell reading its commands from a here-document or here-string, from a process
      // substitution, or from a pipe: what these give it is its script. Its part stays unknowable:
      // the analysis cannot tell that the shell reads all of it, nor what else it reads.
      if (stdin !== undefined) {
        if ('delimiter' in stdin) stdin.script = true;
        else if (!stdin.dynamic) for (const p of this.parseScript(stdin.value)) parts.push(p);
      } else if (frame.stdinCommand !== undefined) {
        this.feedTexts(parts, this.substitutionPrints(frame.stdinCommand));
      } else if (piped !== null) {
        const doc = this.catHeredoc(piped);
        if (doc !== null) doc.script = true;
        else this.feedTexts(parts, this.stagePrints(piped));
      }
    }
    this.fillSlot(frame.slot, parts);
    if (parts.length > 0) this.setStage(frame.words, parts[0]!, stdin);
  }

  /** Records the simple command just read, which ends here, for a pipe that may follow. */
  private setStage(words: readonly ShellWord[], part: CommandPart, stdin: PendingHeredoc | ShellWord | undefined): void {
    this.stageEnd = this.pos;
    this.stageWords = words;
    this.stagePart = part;
    this.stageStdin = stdin;
  }

  /** The here-document a pipeline stage `cat <<EOF` (or `cat - <<EOF`) copies to its output, if it is one. */
  private catHeredoc(stage: Stage): PendingHeredoc | null {
    const stdin = stage.stdin;
    return stdin !== undefined && 'delimiter' in stdin && this.copiesInput(stage.words) ? stdin : null;
  }

  /** True for `cat` with no operands but `-`: it prints its input. */
  private copiesInput(words: readonly ShellWord[]): boolean {
    const program = words[0];
    if (program === undefined || program.dynamic || baseName(program.value) !== 'cat') return false;
    for (let k = 1; k < words.length; k++) if (words[k]!.dynamic || words[k]!.value !== '-') return false;
    return true;
  }

  /** The texts a pipeline stage prints, when they can be told: `echo`, `printf`, `cat <<< word`. */
  private stagePrints(stage: Stage): string[] | null {
    const stdin = stage.stdin;
    if (stdin !== undefined && !('delimiter' in stdin) && this.copiesInput(stage.words)) return stdin.dynamic ? null : [stdin.value + '\n'];
    let texts: string[] | null = null;
    for (const view of stage.part.views) {
      const printed = printedTexts(view.words);
      if (printed === null) continue;
      texts ??= [];
      for (const t of printed) if (!texts.includes(t)) texts.push(t);
    }
    return texts;
  }

  /** The texts the command of a process substitution prints (`< <(echo x)`), when it is one `echo` or `printf`. */
  private substitutionPrints(command: string): string[] | null {
    const parts = parseCommands(command, this.depth + 1);
    const part = parts[0];
    if (parts.length !== 1 || part!.unknowable !== null || part!.text !== command.trim()) return null;
    return this.stagePrints({ words: part!.words, part: part!, stdin: undefined });
  }

  /** Adds the parts of a shell's script read from each of the texts, leaving out those an earlier reading gave. */
  private feedTexts(parts: CommandPart[], texts: readonly string[] | null): void {
    if (texts === null) return;
    const seen = new Set<string>();
    for (const text of texts) {
      const read = this.parseScript(text);
      for (const p of read) if (!seen.has(p.text)) parts.push(p);
      for (const p of read) seen.add(p.text);
    }
  }

  /**
   * Reads a redirection and its target at the current position, whose character code is `first`;
   * false when there is none.
   */
  private readRedirection(first: number): boolean {
    const src = this.src;
    const start = this.pos;
    let i = start;
    if (isDigitCode(first)) {
      while (isDigitCode(codeAt(src, i))) i++;
    } else if (first === 123 /* { */ && isNameStartCode(codeAt(src, i + 1))) {
      let j = i + 1;
      while (isNameCharCode(codeAt(src, j))) j++;
      if (codeAt(src, j) !== 125 /* } */) return false;
      i = j + 1;
    }
    const c = codeAt(src, i);
    let length = 0;
    let heredoc = false;
    let stripTabs = false;
    if (c === 38 /* & */ && i === start && codeAt(src, i + 1) === 62 /* > */) {
      length = codeAt(src, i + 2) === 62 ? 3 : 2;
    } else if ((c === 60 /* < */ || c === 62 /* > */) && codeAt(src, i + 1) !== 40 /* ( */) {
      length = redirectionLength(src, i);
      if (c === 60 && codeAt(src, i + 1) === 60) {
        // `<<` or `<<-`, not `<<<`
        const e = codeAt(src, i + 2);
        heredoc = e !== 60;
        stripTabs = e === 45 /* - */;
      }
    }
    if (length === 0) return false;
    this.pos = i + length;
    this.skipBlanks();
    const toStdin = i === start || src.slice(start, i) === '0';
    if (heredoc) {
      if (!this.atWordStart()) throw new ShellSyntaxError('missing here-document delimiter', start);
      const word = this.readWord(false);
      const doc: PendingHeredoc = { delimiter: word.value, stripTabs, quoted: this.wordQuoted, at: start };
      this.pending.push(doc);
      const frame = this.frames[this.frames.length - 1];
      if (frame !== undefined && toStdin) frame.stdin = doc;
    } else if (this.atWordStart()) {
      const target = this.readWord(false); // the target is removed from the words; its substitutions still count
      if (c === 60 && length === 3 && toStdin) {
        // `<<< word`: the word is the command's input
        const frame = this.frames[this.frames.length - 1];
        if (frame !== undefined) frame.stdin = target;
      } else if (c === 60 && length === 1 && toStdin && target.dynamic && target.value.startsWith('<(') && target.value.endsWith(')')) {
        // `< <(cmd)`: the command's input is what cmd prints
        const frame = this.frames[this.frames.length - 1];
        if (frame !== undefined) frame.stdinCommand = target.value.slice(2, -1);
      }
      // `>`, `>>`, `>|`, `&>`, `&>>`, `<>` and `>&FILE` write their target
      const writes = c === 62 /* > */ || (c === 38 /* & */) || (c === 60 /* < */ && codeAt(src, i + 1) === 62 /* > */);
      if (writes && !isHarmlessTarget(target, c === 62 && codeAt(src, i + 1) === 38 /* & */)) {
        const frame = this.frames[this.frames.length - 1];
        if (frame !== undefined) (frame.writes ??= []).push(target);
      }
      // `<`, `<>` and `<&FILE` read their target (`<<<` gives a word, not a file)
      const reads = c === 60 /* < */ && length !== 3;
      if (reads && !isHarmlessTarget(target, codeAt(src, i + 1) === 38 /* & */)) {
        const frame = this.frames[this.frames.length - 1];
        if (frame !== undefined) (frame.reads ??= []).push(target);
      }
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
      const delimiter = doc.delimiter;
      while (this.pos < this.n) {
        const nl = src.indexOf('\n', this.pos);
        const lineEnd = nl < 0 ? this.n : nl;
        const lineStart = this.pos;
        let from = lineStart; // the line without its leading tabs under `<<-`
        if (doc.stripTabs) while (from < lineEnd && src.charCodeAt(from) === 9 /* tab */) from++;
        this.pos = nl < 0 ? this.n : nl + 1;
        if (lineEnd - from === delimiter.length && src.startsWith(delimiter, from)) {
          bodyEnd = lineStart;
          break;
        }
      }
      if (bodyEnd < 0) throw new ShellSyntaxError(`unterminated here-document \`${shown(doc.delimiter)}\``, doc.at);
      if (doc.script === true && bodyEnd > bodyStart) {
        // the body is a shell's script: its commands are parts (the substitutions an unquoted body
        // expands first are among them)
        for (const p of this.parseScript(heredocText(src.slice(bodyStart, bodyEnd), doc.stripTabs))) this.out.push(p);
      } else if (!doc.quoted && bodyEnd > bodyStart) {
        for (const p of new Parser(src.slice(bodyStart, bodyEnd), this.depth).runHeredocBody()) this.out.push(p);
      }
    }
  }
}
