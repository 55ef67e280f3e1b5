/**
 * Shell-command analysis for the `command` selector: splits a command line into simple commands
 * (through && || ; | & newlines, subshells, groups, $( ), backticks, bash -c strings), looks
 * through wrappers, and matches command patterns against the parts.
 */
export interface ShellWord {
  /** The word's value after quote removal. */
  value: string;
  /** True when the value cannot be known statically ($VAR, $(...), backticks, ...). */
  dynamic: boolean;
}

export interface CommandPart {
  /** The source text of this simple command, for explanations. */
  text: string;
  /** The words as written, with leading assignments and redirections removed. */
  words: ShellWord[];
  /**
   * Views of the part after looking through wrappers one at a time (`sudo nice rm x` gives
   * `nice rm x` then `rm x`), each with whether every wrapper stripped so far is privilege-neutral.
   */
  views: { words: ShellWord[]; wrappers: string[]; neutral: boolean }[];
  /** Why this part cannot be known statically (`eval`, a variable as the program, unparseable text); null if it can. */
  unknowable: string | null;
}

export interface CommandAnalysis {
  parts: CommandPart[];
}

export interface PatternError {
  message: string;
  /** 0-based offset into the pattern text. */
  offset: number;
}

export interface CommandPattern {
  source: string;
  /** Opaque compiled form. */
  readonly words: readonly unknown[];
}

/** Splits a command line into its simple commands. Never throws. */
export function analyzeCommand(command: string): CommandAnalysis {
  throw new Error('not implemented: ' + command);
}

/** Validates a command pattern; null when it is fine. */
export function checkCommandPattern(pattern: string): PatternError | null {
  throw new Error('not implemented: ' + pattern);
}

/** Compiles a pattern (call checkCommandPattern first; an invalid pattern compiles to one that never matches). */
export function compileCommandPattern(pattern: string): CommandPattern {
  throw new Error('not implemented: ' + pattern);
}

/**
 * `any` mode (deny, ask, ran): true when some view of the part matches.
 * `allow` mode: true only when the part is knowable and the as-written view, or a view reached
 * through privilege-neutral wrappers only, matches.
 */
export function matchCommandPart(pattern: CommandPattern, part: CommandPart, mode: 'any' | 'allow'): boolean {
  throw new Error('not implemented: ' + pattern.source + part.text + mode);
}
