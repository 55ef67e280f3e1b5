/** Public types of the shell analysis (re-exported by index.ts). */

export interface ShellWord {
  /** The word's value after quote removal. */
  value: string;
  /** True when the value cannot be known statically ($VAR, $(...), backticks, ...). */
  dynamic: boolean;
  /**
   * Set on a computed word that word splitting or brace expansion may turn into several words
   * (`$x`, `$(cmd)`, `{a,b}` unquoted; not `"$x"`). Absent otherwise.
   */
  splits?: true;
}

export interface CommandView {
  words: ShellWord[];
  /** The wrappers stripped to reach this view, outermost first (`['sudo', 'nice']`). */
  wrappers: string[];
  /** True when every wrapper stripped so far is privilege-neutral. */
  neutral: boolean;
  /**
   * Set on a reading of the command that is not a wrapper stripped: the words `xargs` appends,
   * bash's keyword `time`, zsh's `=cmd`, a brace-expanded program word. Seen by deny and ask.
   */
  alternate?: true;
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
  /**
   * The files its output redirections write (`> f`, `>> f`, `&> f`, `<> f`), after quote removal;
   * absent when it writes none (`/dev/null`, `>&2` and the like are not files). An allow covers the
   * part only when each is allowed for writing.
   */
  writes?: ShellWord[];
  /**
   * The files the program writes through its options and operands (`tee f`, `cp a b`, `sort -o f`,
   * `dd of=f`, `sed -i f`), by the programs table; absent when none. deny and ask rules on `Write`
   * apply to them; an allow covers them only by naming them in its pattern, as pattern.ts requires.
   */
  operandWrites?: ShellWord[];
  /** The files its input redirections read (`< f`, `<> f`), after quote removal; absent when none. */
  reads?: ShellWord[];
  /**
   * Set when an allow does not need to cover the part, while deny and ask see it like any other:
   * a shell or neutral wrapper that runs nothing of its own beyond its script's parts, which
   * follow it (`bash -c 'git status'`, `watch ls`), and the commands in the values of options that
   * run them (`tar --to-command=CMD`), which an allow covers only by naming the option and value.
   */
  transparent?: true;
}

export interface CommandAnalysis {
  parts: CommandPart[];
  /**
   * Set when the command passed a cap of the analysis (its length, nesting, wrapper chain, `find
   * -exec` chain): the cap's reason. Such a call is opaque and gets the strictest decision any rule
   * on its tool can give. Absent otherwise.
   */
  capped?: string;
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
