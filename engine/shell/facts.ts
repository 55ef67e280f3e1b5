/**
 * Facts one analysis gathers across every script it reads (nested `bash -c` scripts included),
 * reset by analyzeCommand: whether the command evaluates text as arithmetic, and whether it sets a
 * variable to a value that could hold code.
 *
 * Bash evaluates the value of every variable named in an arithmetic context (`$((x))`, `((x))`,
 * `[[ x -eq 0 ]]`, `${s:x}`, `${a[x]}`, `let x`, `a[x]=1`) as an expression, recursively, and a
 * subscript in that value runs its command substitutions: with `x='a[$(touch p)]'`, `echo $((x))`
 * runs `touch p`. `${x@P}` expands the value like a prompt, which runs substitutions too. So a
 * command that does both (evaluates, and sets a variable to a computed value or one holding `[`)
 * may run code the analysis never saw as a command: it is opaque.
 */

export const analysisFacts = {
  /** An arithmetic context, a subscript or `${x@P}` names a variable. */
  evaluates: false,
  /** A variable is set to a computed value, one holding `[`, or from input (`read`, `mapfile`, `for x in $(...)`). */
  riskyValue: false,
  /**
   * zsh syntax that runs code where bash reads data (`${(e)x}`, a glob qualifier `*(e:cmd:)`): the
   * reason, or null. Claude Code runs commands in the user's shell, which is zsh on many machines.
   */
  zsh: null as string | null,
  /** A construct that evaluates text the command wrote itself (`test -v 'a[$(cmd)]'`): the reason, or null. */
  direct: null as string | null,
};

export function resetFacts(): void {
  analysisFacts.evaluates = false;
  analysisFacts.riskyValue = false;
  analysisFacts.zsh = null;
  analysisFacts.direct = null;
}

/** The reason of zsh parameter flags (`${(e)x}`): bash rejects them, zsh may evaluate text as code. */
export const ZSH_FLAGS_REASON = 'zsh parameter flags such as `${(e)...}` can evaluate text as code (the command may run in zsh)';

/** The reason of a zsh glob qualifier that runs code (`*(e:cmd:)`, `*(+fn)`). */
export const ZSH_QUALIFIER_REASON = 'zsh glob qualifiers such as `*(e:...:)` run code (the command may run in zsh)';

/** True when the parenthesised text after a glob is a zsh qualifier list that runs code: `(e:cmd:)`, `(.e'cmd')`, `(+fn)`. */
export function zshQualifierRunsCode(parens: string): boolean {
  return /^\([^()|]*?(?:[e][^\w\s|)]|\+[A-Za-z_])/.test(parens);
}

/** The unknowable reason of a command that evaluates variables it sets to values that may hold code. */
export const EVALUATES_REASON =
  'the command evaluates variables as arithmetic, subscripts or prompts after setting them to computed values, which can run commands';

/** True when arithmetic text names a variable (a letter or `_` outside a number), not only numbers and operators. */
export function namesVariable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter) continue;
    // `0x1f`, `2#101`, `16#ff`: letters inside a number
    let k = i - 1;
    while (k >= 0 && /[0-9a-zA-Z#]/.test(text[k]!)) k--;
    const start = text[k + 1];
    if (start !== undefined && start >= '0' && start <= '9') continue;
    return true;
  }
  return false;
}

/** Records an assignment's value: a computed one, or one holding `[`, may carry code into arithmetic. */
export function noteAssignedValue(word: string, dynamic: boolean): void {
  if (dynamic) {
    analysisFacts.riskyValue = true;
    return;
  }
  const eq = word.indexOf('=');
  if (eq < 0) return;
  // `[` starts a subscript that arithmetic evaluates; `$` and backticks are run by `${x@P}`
  for (let i = eq + 1; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c === 91 /* [ */ || c === 36 /* $ */ || c === 96 /* ` */) {
      analysisFacts.riskyValue = true;
      return;
    }
  }
}

/** The reason of a subscript that is evaluated at once (`test -v 'a[$(cmd)]'`, `[[ -v a[...] ]]`). */
export const SUBSCRIPT_REASON = 'a subscript is evaluated as arithmetic, which can run the commands it holds';
