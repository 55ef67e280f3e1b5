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
 *
 * Which variables are evaluated, and what each is set to, is recorded by name, so that deny and
 * ask see that code: parser.ts reads the substitutions of the static values of the variables
 * evaluated as commands, and a variable set to a value computed when the command runs and then
 * evaluated may run any command. The texts evaluated as they are written (a literal `let`
 * argument, zsh's `${(e)...}` word and glob qualifiers) are recorded the same way.
 */

/** How a text is evaluated: as arithmetic, whose subscripts run their substitutions and whose names are evaluated in turn. */
export const ARITHMETIC = 1;
/** How a text is evaluated: expanded like a double-quoted word (`${x@P}`, zsh's `${(e)x}`), which runs its substitutions. */
export const PROMPT = 2;
/** How a text is evaluated: run as a script (the code of a zsh glob qualifier). */
export const SCRIPT = 4;

/** What a variable is set to across the command: its static values, and a value computed when the command runs, if any. */
export interface AssignedValues {
  /** The static values, each once, in the order met. */
  readonly texts: string[];
  readonly seen: Set<string>;
  /** The computed value as written (`$(cat f)`, or `$x` for `read x`), or null when every value is static. */
  computed: string | null;
}

/** A text evaluated as it is written, and how. */
export interface EvaluatedText {
  readonly text: string;
  readonly mode: number;
}

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
  /** The variables evaluated, each with how (ARITHMETIC and PROMPT bits). */
  evaluated: new Map<string, number>(),
  /** What each variable is set to. */
  values: new Map<string, AssignedValues>(),
  /** The texts evaluated as they are written, in the order met, each once. */
  texts: [] as EvaluatedText[],
  /** The variables whose evaluation or values changed, in order, for parser.ts to read again (a name may repeat). */
  changed: [] as string[],
  /** Text computed when the command runs that is evaluated as code (`${(e)"$(cat f)"}`), as written; null if none. */
  evaluatedOutput: null as string | null,
};

export function resetFacts(): void {
  analysisFacts.evaluates = false;
  analysisFacts.riskyValue = false;
  analysisFacts.zsh = null;
  analysisFacts.direct = null;
  analysisFacts.evaluated.clear();
  analysisFacts.values.clear();
  analysisFacts.texts.length = 0;
  textKeys.clear();
  analysisFacts.changed.length = 0;
  analysisFacts.evaluatedOutput = null;
}

/** The reason of zsh parameter flags (`${(e)x}`): bash rejects them, zsh may evaluate text as code. */
export const ZSH_FLAGS_REASON = 'zsh parameter flags such as `${(e)...}` can evaluate text as code (the command may run in zsh)';

/** The reason of a zsh glob qualifier that runs code (`*(e:cmd:)`, `*(+fn)`). */
export const ZSH_QUALIFIER_REASON = 'zsh glob qualifiers such as `*(e:...:)` run code (the command may run in zsh)';

/** The reason of arithmetic whose quotes or escapes hide a subscript's substitution, which zsh runs all the same. */
export const ZSH_ARITHMETIC_REASON =
  'zsh removes quotes and escapes in arithmetic before it evaluates it, and a subscript they hid runs its commands (the command may run in zsh)';

/** The reason of a literal text holding a subscript that zsh's printf evaluates as arithmetic. */
export const PRINTF_REASON = "zsh's printf evaluates the arguments of numeric conversions as arithmetic, whose subscripts can run commands (the command may run in zsh)";

/**
 * True when the parenthesised text after a glob is a zsh qualifier list that runs code: `(e:cmd:)`,
 * `(.e'cmd')`, `(+fn)`. Records the code each runs, for deny and ask to see.
 */
export function zshQualifierRunsCode(parens: string): boolean {
  if (!/^\([^()|]*?(?:[e][^\w\s|)]|\+[A-Za-z_])/.test(parens)) return false;
  for (const code of qualifierCode(parens)) noteEvaluatedText(code, SCRIPT);
  return true;
}

/** The closing delimiter zsh pairs with an opening one in a qualifier's argument. */
const CLOSING: Readonly<Record<string, string>> = { '[': ']', '{': '}', '<': '>', '(': ')' };

/**
 * The code of each `e` qualifier (`e:cmd:`, `e[cmd]`, `e'cmd'`) and the command of each `+cmd`, in
 * a qualifier list written `(...)`, after the quote removal zsh applies to the word first.
 */
function qualifierCode(parens: string): string[] {
  const list = unquoted(parens.slice(1, -1));
  const codes: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c === '+') {
      const m = /^[\w.:-]+/.exec(list.slice(i + 1));
      if (m !== null) {
        codes.push(m[0]);
        i += m[0].length;
      }
    } else if (c === 'e' && i + 1 < list.length && !/[\w\s|)]/.test(list[i + 1]!)) {
      const open = list[i + 1]!;
      const close = list.indexOf(CLOSING[open] ?? open, i + 2);
      const end = close < 0 ? list.length : close;
      codes.push(list.slice(i + 2, end));
      i = end;
    }
  }
  return codes;
}

/**
 * The text after quote removal: backslash escapes, single quotes and double quotes (in which `\`
 * escapes only `$`, a backtick, `"`, `\` and a newline) are removed, the rest kept.
 */
export function unquoted(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      if (i + 1 < text.length && text[i + 1] !== '\n') out += text[i + 1]!;
      i++;
    } else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const end = close < 0 ? text.length : close;
      out += text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        const d = text[j + 1];
        if (text[j] === '\\' && d !== undefined && '$`"\\\n'.includes(d)) {
          if (d !== '\n') out += d;
          j++;
        } else out += text[j]!;
      }
      i = j;
    } else out += c;
  }
  return out;
}

/** The unknowable reason of a command that evaluates variables it sets to values that may hold code. */
export const EVALUATES_REASON =
  'the command evaluates variables as arithmetic, subscripts or prompts after setting them to computed values, which can run commands';

/** True for the character codes of a name: letters, digits and `_`. */
function isNameCode(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || (c >= 48 && c <= 57);
}

/**
 * The names arithmetic text refers to: each run of letters, digits and `_` that starts with a
 * letter or `_` (`x`, `$x`, `${x}`, `a[i]`), not the letters inside a number (`0x1f`, `2#101`, `16#ff`).
 */
export function arithmeticNames(text: string): Set<string> {
  const names = new Set<string>();
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (!isNameCode(c)) {
      i++;
      continue;
    }
    let j = i + 1;
    // a number runs on through its base and its digits: `16#ff`
    if (c <= 57) while (j < n && (isNameCode(text.charCodeAt(j)) || text.charCodeAt(j) === 35 /* # */)) j++;
    else while (j < n && isNameCode(text.charCodeAt(j))) j++;
    // not the name of a length (`${#a[@]}`), which is a number
    if (c > 57 && !(text.charCodeAt(i - 1) === 35 /* # */ && text.charCodeAt(i - 2) === 123) /* { */) names.add(text.slice(i, j));
    i = j;
  }
  return names;
}

/** Records that the variable `name` is evaluated, and how (ARITHMETIC or PROMPT). */
export function noteEvaluatedName(name: string, mode: number): void {
  analysisFacts.evaluates = true;
  const evaluated = analysisFacts.evaluated;
  const before = evaluated.get(name) ?? 0;
  if ((before | mode) === before) return;
  evaluated.set(name, before | mode);
  analysisFacts.changed.push(name);
}

/**
 * Records arithmetic text: every name it refers to is evaluated. The commands of its substitutions
 * (`$(cmd)`, backticks) are not arithmetic: the words in them are left out.
 */
export function noteArithmeticText(text: string): void {
  const own = withoutCommands(text);
  // what a command substitution prints is evaluated too (the commands are parts of their own)
  if (own !== text) analysisFacts.evaluates = true;
  for (const name of arithmeticNames(own)) noteEvaluatedName(name, ARITHMETIC);
}

/**
 * The text with each command substitution (`$(cmd)`, a backtick one) replaced by `0`; escaped
 * characters and single-quoted text stay as they are, as they hold none.
 */
export function withoutCommands(text: string): string {
  if (!text.includes('$(') && !text.includes('`')) return text;
  let out = '';
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === '\\') {
      out += text.slice(i, i + 2);
      i += 2;
    } else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const end = close < 0 ? n : close + 1;
      out += text.slice(i, end);
      i = end;
    } else if (c === '`') {
      let j = i + 1;
      while (j < n && text[j] !== '`') j += text[j] === '\\' ? 2 : 1;
      out += '0';
      i = j + 1;
    } else if (c === '$' && text[i + 1] === '(' && text[i + 2] !== '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < n; j++) {
        if (text[j] === '\\') j++;
        else if (text[j] === '(') depth++;
        else if (text[j] === ')' && --depth === 0) break;
      }
      out += '0';
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Records a text evaluated as it is written (a literal `let` argument, a glob qualifier's code). */
export function noteEvaluatedText(text: string, mode: number): void {
  const key = `${mode}:${text}`;
  if (textKeys.has(key)) return;
  textKeys.add(key);
  analysisFacts.texts.push({ text, mode });
}

/** The texts of analysisFacts.texts, with how, as `mode:text`. */
const textKeys = new Set<string>();

/**
 * Records a literal text evaluated as arithmetic as it is written (`let 'a[$(cmd)]'`, a `[[ -eq ]]`
 * operand, a quoted piece of `$(( ))` zsh evaluates): the names it refers to are evaluated, and a
 * subscript holding a substitution runs it, which `reason` then makes opaque.
 */
export function noteLiteralArithmetic(text: string, reason: string): void {
  noteArithmeticText(text);
  if (holdsCodeInSubscript(text)) {
    noteEvaluatedText(text, ARITHMETIC);
    analysisFacts.direct ??= reason;
  }
}

/** True when text holds a `[` and a substitution (`$(`, a backtick): a subscript that may run a command. */
export function holdsCodeInSubscript(text: string): boolean {
  return text.includes('[') && (text.includes('$(') || text.includes('`'));
}

/** The values assigned to `name`, created when missing. */
function valuesOf(name: string): AssignedValues {
  let values = analysisFacts.values.get(name);
  if (values === undefined) analysisFacts.values.set(name, (values = { texts: [], seen: new Set(), computed: null }));
  return values;
}

/** Records that `name` is set to the static value `text`. */
function noteStaticValue(name: string, text: string): void {
  // a value without names or substitutions (`1`, `-5`, ``) evaluates to nothing more
  if (!/[A-Za-z_$`]/.test(text)) return;
  const values = valuesOf(name);
  if (values.seen.has(text)) return;
  values.seen.add(text);
  values.texts.push(text);
  if (analysisFacts.evaluated.has(name)) analysisFacts.changed.push(name);
}

/** Records that `name` is set to a value computed when the command runs (`read x`, `for x in $(cat f)`), written `text`. */
export function noteComputedName(name: string, text = `$${name}`): void {
  const values = valuesOf(name);
  if (values.computed !== null) return;
  values.computed = text;
  if (analysisFacts.evaluated.has(name)) analysisFacts.changed.push(name);
}

/** A length (`${#x}`, `${#a[@]}`, `${#a[i]}`) at the start of the text. */
const LENGTH = /^\$\{#[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]$`'"\\]*\])?\}/;

/**
 * True when a value computed when the command runs can only be a number: digits, arithmetic
 * (`$((n+1))`, whatever it holds), `$?`, `$#`, `$$`, `$!` and lengths (`${#x}`), as written.
 */
export function isNumericValue(written: string): boolean {
  const n = written.length;
  let i = 0;
  while (i < n) {
    const c = written.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      i++;
      continue;
    }
    if (c !== 36 /* $ */) return false;
    const d = written[i + 1];
    if (d === '?' || d === '#' || d === '$' || d === '!') i += 2;
    else if (d === '(' && written[i + 2] === '(') {
      // to the `))` that closes it
      let depth = 0;
      let j = i + 1;
      for (; j < n; j++) {
        if (written[j] === '(') depth++;
        else if (written[j] === ')' && --depth === 0) break;
      }
      if (j >= n || written[j - 1] !== ')') return false;
      i = j + 1;
    } else {
      const length = LENGTH.exec(written.slice(i, i + 256));
      if (length === null) return false;
      i += length[0].length;
    }
  }
  return n > 0;
}

/**
 * Records an assignment's value: a computed one, or one holding `[`, may carry code into arithmetic.
 * A computed value that can only be a number (`$((n+1))`) carries none, and neither does one
 * computed by brace expansion alone (`for i in {1..3}`), which holds only the text it shows.
 */
export function noteAssignedValue(word: string, dynamic: boolean): void {
  const eq = word.indexOf('=');
  if (eq < 0) {
    if (dynamic) analysisFacts.riskyValue = true;
    return;
  }
  const value = word.slice(eq + 1);
  const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word)?.[0];
  // `NAME=`, `NAME+=`, `NAME[i]=`: the variable and its value
  const named = name !== undefined && '=+['.includes(word[name.length] ?? '') ? name : null;
  if (dynamic && /[$`<>]/.test(value)) {
    if (isNumericValue(value)) {
      // as written, for what a prompt expansion of it evaluates (`$((x))`)
      if (named !== null) noteStaticValue(named, value);
      return;
    }
    analysisFacts.riskyValue = true;
    if (named !== null) noteComputedName(named, value);
    return;
  }
  // an array `a=(...)` is kept as written: expansions in it are computed
  if (named !== null && value.startsWith('(') && (value.includes('$') || value.includes('`'))) noteComputedName(named, value);
  else if (named !== null) noteStaticValue(named, value);
  // `[` starts a subscript that arithmetic evaluates; `$` and backticks are run by `${x@P}`
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 91 /* [ */ || c === 36 /* $ */ || c === 96 /* ` */) {
      analysisFacts.riskyValue = true;
      return;
    }
  }
}

/** The reason of a subscript that is evaluated at once (`test -v 'a[$(cmd)]'`, `[[ -v a[...] ]]`). */
export const SUBSCRIPT_REASON = 'a subscript is evaluated as arithmetic, which can run the commands it holds';
