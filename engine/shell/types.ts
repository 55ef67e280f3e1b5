/** Public types of the shell analysis (re-exported by index.ts). */

export interface ShellWord {
  /** The word's value after quote removal. */
  value: string;
  /** True when the value cannot be known statically ($VAR, $(...), backticks, ...). */
  dynamic: boolean;
}

export interface CommandView {
  words: ShellWord[];
  /** The wrappers stripped to reach this view, outermost first (`['sudo', 'nice']`). */
  wrappers: string[];
  /** True when every wrapper stripped so far is privilege-neutral. */
  neutral: boolean;
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
  views: CommandView[];
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
  /** Opaque compiled form (empty for an invalid pattern, which never matches). */
  readonly words: readonly unknown[];
}
