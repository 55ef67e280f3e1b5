/**
 * Builds the public parts of one simple command: its views through wrappers (`sudo`, `env`,
 * `timeout`, `setsid`, ...), whether it is unknowable (`eval`, a computed program, `bash -c "$X"`),
 * and the commands it runs itself (the script of `bash -c`, `su -c` or `ssh host cmd`, the
 * arguments of `eval`, `find -exec`).
 *
 * Which programs are wrappers, their option grammars and which are shells is data:
 * programs/wrappers.json (schema: programs/wrappers.schema.json). This file reads that table into
 * per-letter option bits once, at load.
 */
import { braceWords, codeAt, isAssignmentWord, isTrustedProgramPath } from './chars.js';
import type { CommandPart, CommandView, ShellWord } from './types.js';
import { appended, wordsText } from './words.js';
import { gitViews } from './git.js';
import table from './programs/wrappers.json' with { type: 'json' };
import { assignmentOpaque, isRiskyVariable } from './environment.js';
import {
  analysisFacts,
  ARITHMETIC,
  isNumericValue,
  noteArithmeticText,
  noteAssignedValue,
  noteComputedName,
  noteEvaluatedName,
  noteLiteralArithmetic,
  PRINTF_REASON,
  SUBSCRIPT_REASON,
} from './facts.js';
import { programWrites, runsOptionScripts } from './option-scripts.js';
import { homeRelative } from './paths.js';

/** Parses a script (one level deeper) into parts. */
export interface ScriptParser {
  parseScript(script: string): CommandPart[];
}

/** How many wrappers are looked through before a part is declared unknowable. */
export const MAX_SHELL_WRAPPERS = 16;

/** How many `find -exec` commands may nest inside each other. */
export const MAX_FIND_EXEC = 4;

/** The reasons a part is unknowable because a cap was passed (the call then gets the strictest decision). */
export const CAP_REASONS = {
  wrappers: 'too many nested wrappers',
  findExec: '`find -exec` nested too deeply',
} as const;

interface OptionSetSpec {
  readonly short: string;
  readonly long: readonly string[];
  readonly reason: string;
}

/** One wrapper's entry in programs/wrappers.json. */
export interface WrapperSpec {
  readonly about: string;
  /** Privilege-neutral: the wrapped command runs with the caller's privileges and programs. */
  readonly neutral: boolean;
  readonly flags?: string;
  readonly withArg?: string;
  readonly attachedArg?: string;
  readonly longArg?: readonly string[];
  readonly longArg2?: readonly string[];
  readonly noCommand?: string;
  readonly noCommandLong?: readonly string[];
  readonly unknowable?: OptionSetSpec;
  readonly taints?: OptionSetSpec;
  readonly script?: { readonly short: string; readonly long: readonly string[] };
  readonly runs?: 'command' | 'script';
  readonly execWith?: string;
  readonly execWithLong?: readonly string[];
  readonly subcommands?: readonly string[];
  readonly join?: boolean;
  readonly stopAt?: readonly string[];
  readonly whenNoCommand?: string;
  readonly numeric?: boolean;
  readonly dashOption?: boolean;
  readonly assignments?: boolean;
  readonly operands?: number;
  readonly defaultCommand?: string;
  readonly appendsInput?: { readonly unless: { readonly short: string; readonly long: readonly string[] } };
}

export type ShellDialect = 'bash' | 'posix' | 'zsh' | 'fish' | 'csh' | 'powershell' | 'other';

interface ProgramTable {
  readonly wrappers: Readonly<Record<string, WrapperSpec>>;
  readonly shells: Readonly<Record<string, { readonly dialect: ShellDialect }>>;
  readonly environment: { readonly about: string; readonly names: readonly string[]; readonly prefixes: readonly string[] };
}

/** The wrappers and shells (programs/wrappers.json). */
export const PROGRAMS: ProgramTable = table as unknown as ProgramTable;

/** A program name that buildParts treats specially. */
interface SpecialProgram {
  readonly name: string;
  /** Set for the wrappers. */
  readonly wrapper: WrapperSpec | null;
  /** For the wrappers: the short option letters (ASCII codes) as SHORT_* bits. */
  readonly short: Uint8Array;
  readonly kind: 'wrapper' | 'shell' | 'eval' | 'find';
  /** For the shells: how their `-c` script is read. */
  readonly dialect: ShellDialect;
}

const SHORT_UNKNOWABLE = 1;
const SHORT_NO_COMMAND = 2;
const SHORT_WITH_ARG = 4;
const SHORT_ATTACHED_ARG = 8;
const SHORT_SCRIPT = 16;
const SHORT_TAINT = 32;
const SHORT_EXEC = 64;

/** The short options of a wrapper as bits by character code. */
function shortOptions(spec: WrapperSpec): Uint8Array {
  const bits = new Uint8Array(128);
  const mark = (letters: string | undefined, bit: number): void => {
    for (const ch of letters ?? '') bits[ch.charCodeAt(0)]! |= bit;
  };
  mark(spec.unknowable?.short, SHORT_UNKNOWABLE);
  mark(spec.noCommand, SHORT_NO_COMMAND);
  mark(spec.withArg, SHORT_WITH_ARG);
  mark(spec.attachedArg, SHORT_ATTACHED_ARG);
  mark(spec.script?.short, SHORT_SCRIPT);
  mark(spec.taints?.short, SHORT_TAINT);
  mark(spec.execWith, SHORT_EXEC);
  return bits;
}

/** The special programs by the character code of their last letter. */
const SPECIAL_BY_LAST: (SpecialProgram[] | undefined)[] = (() => {
  const byLast: (SpecialProgram[] | undefined)[] = new Array<SpecialProgram[] | undefined>(128).fill(undefined);
  const add = (program: SpecialProgram): void => {
    const c = program.name.charCodeAt(program.name.length - 1);
    (byLast[c] ??= []).push(program);
  };
  const none = new Uint8Array(128);
  for (const [name, spec] of Object.entries(PROGRAMS.wrappers)) {
    add({ name, wrapper: spec, short: shortOptions(spec), kind: 'wrapper', dialect: 'bash' });
  }
  for (const [name, shell] of Object.entries(PROGRAMS.shells)) add({ name, wrapper: null, short: none, kind: 'shell', dialect: shell.dialect });
  add({ name: 'eval', wrapper: null, short: none, kind: 'eval', dialect: 'bash' });
  add({ name: 'find', wrapper: null, short: none, kind: 'find', dialect: 'bash' });
  // longer names first, so that `ksh93` is not taken for a name ending the same way
  for (const list of byLast) list?.sort((a, b) => b.name.length - a.name.length);
  return byLast;
})();

/** The special program whose name is the basename of `program`, if any. */
function specialProgram(program: string): SpecialProgram | undefined {
  const length = program.length;
  if (length === 0) return undefined;
  const c = program.charCodeAt(length - 1);
  const list = c < 128 ? SPECIAL_BY_LAST[c] : undefined;
  if (list === undefined) return undefined;
  for (let i = 0; i < list.length; i++) {
    const special = list[i]!;
    const name = special.name;
    // the basename is `name` when the program is `name` or ends with `/name`
    const at = length - name.length;
    if (at === 0 ? program === name : at > 0 && program.charCodeAt(at - 1) === 47 /* / */ && program.endsWith(name)) return special;
  }
  return undefined;
}

/** `-exec`, `-execdir`, `-ok` or `-okdir` (the `find` actions that run a command). */
function isFindExec(v: string): boolean {
  return v.length >= 3 && v.charCodeAt(0) === 45 /* - */ && (v === '-exec' || v === '-execdir' || v === '-ok' || v === '-okdir');
}

/** True for `-` followed by one or more digits (`nice -10`). */
function isNumericOption(v: string): boolean {
  if (v.length < 2) return false;
  for (let k = 1; k < v.length; k++) {
    const c = v.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

type Stripped =
  | { kind: 'command'; words: ShellWord[]; tainted: string | null; opaque: string | null; appends?: boolean }
  | { kind: 'none' }
  | { kind: 'unknowable'; reason: string }
  /** Shell scripts the wrapper runs (`su -c SCRIPT`, `ssh host WORDS...` joined). */
  | { kind: 'scripts'; scripts: ShellWord[] };

/** The state of one pass over a wrapper's options. */
interface OptionScan {
  /** Index of the first word that is not an option. */
  next: number;
  noCommand: boolean;
  exec: boolean;
  tainted: string | null;
  unknowable: string | null;
  /** An environment setting that changes what runs (`env PATH=x`): the views go on, the part is opaque. */
  opaque: string | null;
  scripts: ShellWord[] | null;
}

/**
 * Reads a wrapper's options from `words[from]` up to the first word that is not an option (or,
 * with `permute`, through the whole command, skipping operands).
 */
function scanOptions(words: readonly ShellWord[], from: number, spec: WrapperSpec, short: Uint8Array, permute: boolean): OptionScan {
  const scan: OptionScan = { next: from, noCommand: false, exec: false, tainted: null, unknowable: null, opaque: null, scripts: null };
  const addScript = (word: ShellWord | undefined): void => {
    if (word !== undefined) (scan.scripts ??= []).push(word);
  };
  let i = from;
  while (i < words.length) {
    const word = words[i]!;
    if (word.dynamic) {
      if (!permute) break; // a computed word may be the command: treated as one
      // a computed word among permuted options may be any option
      scan.unknowable ??= `a computed word among the options of \`${words[0]!.value}\``;
      i++;
      continue;
    }
    const v = word.value;
    if (v.length === 0 || v.charCodeAt(0) !== 45 /* - */) {
      // not an option: an assignment (env, sudo), an operand (permuted), or the command
      if (spec.assignments && isAssignmentWord(v)) {
        scan.opaque ??= assignmentOpaque(v);
        i++;
        continue;
      }
      // permuted options skip operands, until an option says the words that follow are a command (`runuser -u USER CMD`)
      if (permute && !scan.exec) {
        i++;
        continue;
      }
      break;
    }
    if (v.length === 1) {
      // `-`: an option of env and su, else the command
      if (!spec.dashOption) break;
      i++;
      continue;
    }
    if (v.length === 2 && v.charCodeAt(1) === 45 /* - */) {
      // `--`
      i++;
      if (permute && !scan.exec) i = words.length; // the rest are operands
      break;
    }
    if (v.length > 2 && v.charCodeAt(1) === 45 /* - */) {
      const eq = v.indexOf('=');
      const name = v.slice(2, eq < 0 ? undefined : eq);
      const takesArg = spec.longArg?.includes(name) === true || spec.script?.long.includes(name) === true;
      if (spec.unknowable?.long.includes(name)) {
        scan.unknowable = spec.unknowable.reason;
        scan.next = i;
        return scan;
      }
      if (spec.taints?.long.includes(name)) scan.tainted ??= spec.taints.reason;
      if (spec.execWithLong?.includes(name)) {
        // `gdb --args CMD`: the words that follow are the command
        scan.exec = true;
        scan.next = i + 1;
        return scan;
      }
      if (spec.noCommandLong?.includes(name)) scan.noCommand = true;
      if (spec.script?.long.includes(name)) addScript(eq < 0 ? words[i + 1] : { value: v.slice(eq + 1), dynamic: false });
      i += eq < 0 && spec.longArg2?.includes(name) === true ? 3 : eq < 0 && takesArg ? 2 : 1;
      continue;
    }
    // short options (`-uroot`, `-n 5`), or `-10` for nice
    if (spec.numeric && isNumericOption(v)) {
      i++;
      continue;
    }
    let next = 1;
    for (let j = 1; j < v.length; j++) {
      const ch = v.charCodeAt(j);
      const bits = ch < 128 ? short[ch]! : 0;
      if (bits === 0) continue;
      if (bits & SHORT_UNKNOWABLE) {
        scan.unknowable = spec.unknowable!.reason;
        scan.next = i;
        return scan;
      }
      if (bits & SHORT_NO_COMMAND) scan.noCommand = true;
      if (bits & SHORT_TAINT) scan.tainted ??= spec.taints!.reason;
      if (bits & SHORT_EXEC) scan.exec = true;
      if (bits & SHORT_SCRIPT) {
        addScript(j === v.length - 1 ? words[i + 1] : { value: v.slice(j + 1), dynamic: false });
        if (j === v.length - 1) next = 2;
        break;
      }
      if (bits & SHORT_WITH_ARG) {
        if (j === v.length - 1) next = 2;
        break;
      }
      if (bits & SHORT_ATTACHED_ARG) break;
    }
    i += next;
  }
  scan.next = i;
  return scan;
}

/** The words a wrapper such as `xargs` appends from its input. */
const INPUT_WORDS: ShellWord = Object.freeze({ value: '<input>', dynamic: true });

/**
 * The string one of the options before `end` replaces with the input (`xargs -I{}`, `-I %`,
 * `-i`, `--replace=@`), or null when the input is appended.
 */
function replacesInput(words: readonly ShellWord[], end: number, unless: { readonly short: string; readonly long: readonly string[] }): string | null {
  for (let k = 1; k < end; k++) {
    const v = words[k]!.value;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      if (unless.long.includes(v.slice(2, eq < 0 ? undefined : eq))) return eq < 0 ? '{}' : v.slice(eq + 1) || '{}';
    } else if (v.length > 1 && v.charCodeAt(0) === 45 /* - */ && unless.short.includes(v[1]!)) {
      if (v.length > 2) return v.slice(2);
      // `-i` has no separate value; `-I` and `-J` take the next word
      return v[1] === 'i' ? '{}' : (words[k + 1]?.value ?? '{}');
    }
  }
  return null;
}

/** The text of words joined with spaces, as a shell would receive it (`ssh host a b`); dynamic when any word is. */
function joinedScript(words: readonly ShellWord[]): ShellWord {
  let dynamic = false;
  for (let k = 0; k < words.length; k++) if (words[k]!.dynamic) dynamic = true;
  return { value: wordsText(words), dynamic };
}

/** Skips a wrapper's options; `words[0]` is the wrapper itself. */
function stripWrapper(words: readonly ShellWord[], spec: WrapperSpec, short: Uint8Array): Stripped {
  const scriptOnly = spec.runs === 'script';
  let from = 1;
  if (spec.subcommands !== undefined) {
    // `npm exec CMD`, `perf stat CMD`: a wrapper only behind these subcommands (after its options)
    const before = scanOptions(words, 1, spec, short, false);
    const sub = words[before.next];
    if (before.unknowable !== null || sub === undefined || sub.dynamic || !spec.subcommands.includes(sub.value)) return { kind: 'none' };
    from = before.next + 1;
  }
  const scan = scanOptions(words, from, spec, short, scriptOnly);
  if (scan.unknowable !== null) return { kind: 'unknowable', reason: scan.unknowable };
  if (scan.noCommand) return { kind: 'none' };
  if (scriptOnly && !scan.exec) return scan.scripts !== null ? { kind: 'scripts', scripts: scan.scripts } : { kind: 'none' };
  let i = scan.next + (spec.operands ?? 0);
  let scripts = scan.scripts;
  if (spec.script !== undefined && i < words.length && scan.scripts === null) {
    // options after the operands (`flock FILE -c SCRIPT`, `sg GROUP -c SCRIPT`)
    const after = scanOptions(words, i, spec, short, false);
    if (after.unknowable !== null) return { kind: 'unknowable', reason: after.unknowable };
    scripts = after.scripts;
    if (scripts === null) i = after.next;
  }
  if (scripts !== null) return { kind: 'scripts', scripts };
  let end = words.length;
  if (spec.stopAt !== undefined) {
    for (let k = i; k < words.length; k++) {
      const w = words[k]!;
      if (!w.dynamic && spec.stopAt.includes(w.value)) {
        end = k;
        break;
      }
    }
  }
  if (i < end) {
    const command = end === words.length ? words.slice(i) : words.slice(i, end);
    if (spec.join) return { kind: 'scripts', scripts: [joinedScript(command)] };
    // `xargs CMD` runs CMD with the words it reads appended (or alone, when it reads none)
    let appends = false;
    if (spec.appendsInput !== undefined) {
      const replaced = replacesInput(words, scan.next, spec.appendsInput.unless);
      if (replaced === null) appends = true;
      else if (replaced !== '') {
        // the words holding the replace string get the input: known only when it runs
        for (let k = 0; k < command.length; k++) {
          const w = command[k]!;
          if (!w.dynamic && w.value.includes(replaced)) command[k] = { value: w.value, dynamic: true };
        }
      }
    }
    return { kind: 'command', words: command, tainted: scan.tainted, opaque: scan.opaque, appends };
  }
  if (spec.whenNoCommand !== undefined) return { kind: 'unknowable', reason: `\`${words[0]!.value}\` with no command: ${spec.whenNoCommand}` };
  if (spec.defaultCommand !== undefined) return { kind: 'command', words: [{ value: spec.defaultCommand, dynamic: false }], tainted: null, opaque: scan.opaque };
  return { kind: 'none' };
}

/** What viewsOf met besides the views; reset by each call. */
interface ViewsResult {
  unknowable: string | null;
  /** The special program that starts the last view, if any. */
  program: SpecialProgram | undefined;
  /** Scripts a wrapper of the last view runs (`su -c`, `ssh host cmd`), and whether every wrapper up to it was neutral. */
  scripts: ShellWord[] | null;
  scriptsNeutral: boolean;
  /** The wrapper that runs the scripts. */
  scriptWrapper: string;
}

const viewsResult: ViewsResult = { unknowable: null, program: undefined, scripts: null, scriptsNeutral: true, scriptWrapper: '' };

/** Views through wrappers; fills viewsResult. */
function viewsOf(words: ShellWord[]): CommandView[] {
  let current: CommandView = { words, wrappers: [], neutral: true };
  const views = [current];
  const result = viewsResult;
  result.unknowable = null;
  result.program = undefined;
  result.scripts = null;
  result.scriptsNeutral = true;
  result.scriptWrapper = '';
  let appendsInput = false;
  for (;;) {
    const first = current.words[0];
    if (first === undefined || first.dynamic) break;
    const program = specialProgram(first.value);
    result.program = program;
    if (program === undefined || program.wrapper === null) break;
    const spec = program.wrapper;
    const name = program.name;
    if (current.wrappers.length >= MAX_SHELL_WRAPPERS) {
      result.unknowable = CAP_REASONS.wrappers;
      break;
    }
    const stripped = stripWrapper(current.words, spec, program.short);
    if (stripped.kind === 'unknowable') {
      result.unknowable = stripped.reason;
      break;
    }
    if (stripped.kind === 'none') break;
    // a wrapper run from an arbitrary path (`./nohup`) may be anything: never neutral
    const neutral = current.neutral && spec.neutral && isTrustedProgramPath(first.value);
    if (stripped.kind === 'scripts') {
      result.scripts = stripped.scripts;
      result.scriptsNeutral = neutral;
      result.scriptWrapper = name;
      break;
    }
    if (stripped.opaque !== null) result.unknowable ??= stripped.opaque;
    current = { words: stripped.words, wrappers: appended(current.wrappers, name), neutral: neutral && stripped.tainted === null };
    views.push(current);
    if (stripped.appends === true) appendsInput = true;
    // after `xargs`, each view is also seen with the words it reads appended
    if (appendsInput) views.push({ words: appended(current.words, INPUT_WORDS), wrappers: current.wrappers, neutral: current.neutral, alternate: true });
    result.program = undefined;
  }
  return views;
}

/** Views through wrappers, and an unknowable reason met on the way. */
export function computeViews(words: ShellWord[]): { views: CommandView[]; unknowable: string | null } {
  const views = viewsOf(words);
  return { views, unknowable: viewsResult.unknowable };
}

/** The script word of `bash -c SCRIPT` (options may come first), or null when there is no `-c`. */
function shellScript(words: readonly ShellWord[]): ShellWord | null {
  let hasC = false;
  let i = 1;
  while (i < words.length) {
    const word = words[i]!;
    if (word.dynamic) break;
    const v = word.value;
    if (v === '--' || v === '-') {
      i++;
      break;
    }
    const first = codeAt(v, 0);
    // a word after `-c` that starts like options but holds a blank (`zsh -c '- rm x'`) is refused
    // by the shell, which then runs nothing: it is read as the script it looks like, for deny and
    // ask to see what it would run
    if (hasC && (first === 45 /* - */ || first === 43) /* + */ && /[\s;&|]/.test(v)) return word;
    if (first === 45 /* - */ && v.charCodeAt(1) === 45) {
      if (v === '--command') return words[i + 1] ?? null; // fish
      if (v.startsWith('--command=')) return { value: v.slice(10), dynamic: false };
      i += v === '--rcfile' || v === '--init-file' ? 2 : 1;
      continue;
    }
    if ((first === 45 /* - */ || first === 43) /* + */ && v.length > 1) {
      const lower = v.toLowerCase();
      // PowerShell: -Command, -c, -EncodedCommand
      if (lower === '-command' || lower === '-encodedcommand') return words[i + 1] ?? { value: '', dynamic: true };
      let args = 0;
      for (let k = 1; k < v.length; k++) {
        const ch = v.charCodeAt(k);
        if (ch === 99 /* c */) hasC = true;
        else if (ch === 111 /* o */ || ch === 79 /* O */) args++;
      }
      i += 1 + args;
      continue;
    }
    break;
  }
  return hasC ? (words[i] ?? null) : null;
}

/** Files that are a process's standard input. */
const STDIN_FILES: ReadonlySet<string> = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '-']);

/**
 * The part standing for a script computed when the command runs (`bash -c "$S"`, `eval "$X"`,
 * `su -c "$X"`): a computed command standing alone, which may be any command, so every deny and
 * ask sees it (pattern.ts); never allowed.
 */
export function computedScript(script: ShellWord, why: string): CommandPart {
  const word: ShellWord = { value: script.value, dynamic: true, splits: true };
  return { text: script.value, words: [word], views: [{ words: [word], wrappers: [], neutral: true }], unknowable: why, transparent: true };
}

/** The end of the unknowable reason of a shell that reads its commands from its input. */
export const READS_INPUT = 'reads its commands from its input';

/**
 * Why a shell run without `-c` runs what cannot be read: it reads its commands from its input
 * (`curl x | bash`, `bash <<EOF`, `bash -s`), or from a file computed when the command runs
 * (`bash <(curl x)`). Null when it runs a named script file or prints its version.
 */
function shellReadsInput(words: readonly ShellWord[]): string | null {
  let i = 1;
  while (i < words.length) {
    const word = words[i]!;
    if (word.dynamic) return `\`${words[0]!.value}\` runs a script computed when the command runs`;
    const v = word.value;
    if (v === '--' || v === '-') {
      i++;
      break;
    }
    if (v.startsWith('--')) {
      if (v === '--version' || v === '--help') return null;
      i += v === '--rcfile' || v === '--init-file' ? 2 : 1;
      continue;
    }
    if ((v.charCodeAt(0) === 45 /* - */ || v.charCodeAt(0) === 43) /* + */ && v.length > 1) {
      if (v.includes('c')) return null; // `-c` without its script: the shell fails
      if (v.includes('s')) return `\`${words[0]!.value} ${v}\` ${READS_INPUT}`;
      let args = 0;
      for (let k = 1; k < v.length; k++) if (v[k] === 'o' || v[k] === 'O') args++;
      i += 1 + args;
      continue;
    }
    // a script file, unless it is the shell's own input
    return STDIN_FILES.has(v) ? `\`${words[0]!.value}\` ${READS_INPUT}` : null;
  }
  const operand = words[i];
  if (operand === undefined || (!operand.dynamic && STDIN_FILES.has(operand.value))) return `\`${words[0]!.value}\` ${READS_INPUT}`;
  return operand.dynamic ? `\`${words[0]!.value}\` runs a script computed when the command runs` : null;
}

/**
 * True when some view of the part runs a shell that reads its commands from its input (`bash`,
 * `sudo sh -s`, `PATH=x bash`), whatever else makes the part unknowable; not through `xargs`, which
 * gives the shell its input as arguments.
 */
export function readsScriptFromInput(part: CommandPart): boolean {
  if (part.unknowable === null) return false;
  const views = part.views;
  for (let k = 0; k < views.length; k++) {
    const words = views[k]!.words;
    const first = words[0];
    if (first === undefined || first.dynamic || specialProgram(first.value)?.kind !== 'shell' || views[k]!.wrappers.includes('xargs')) continue;
    if (shellScript(words) === null && shellReadsInput(words)?.endsWith(READS_INPUT) === true) return true;
  }
  return false;
}

/**
 * zsh expansions that run code where bash would read data: parameter flags such as `${(e)x}`,
 * glob qualifiers such as `*(e:'cmd':)` and `*(+fn)`. Null when the script has none.
 */
function zshRunsCode(script: string): string | null {
  if (/\$\{\([^)]*[e%]/.test(script)) return 'zsh parameter flags such as `${(e)...}` evaluate text as code';
  if (/\((?:[^()'"]*[^\w()'"$])?[e+][^\w\s]/.test(script) || /\(\+\w/.test(script)) return 'zsh glob qualifiers such as `*(e:...:)` run code';
  return null;
}

/** A `-c` script of a shell read as commands, with why the call is opaque when its dialect is not bash's. */
function shellScriptParts(dialect: ShellDialect, name: string, script: string, parser: ScriptParser): { parts: CommandPart[]; opaque: string | null } {
  if (dialect === 'bash') return { parts: parser.parseScript(script), opaque: null };
  if (dialect === 'posix') {
    const parts = parser.parseScript(script);
    // dash has no `((` command: it reads two subshells, and runs what bash would take for arithmetic
    if (/(^|[^$])\(\(/.test(script)) {
      const seen = new Set(parts.map((p) => p.text));
      for (const p of parser.parseScript(script.replace(/(^|[^$])\(\(/g, '$1( ('))) if (!seen.has(p.text)) parts.push(p);
    }
    return { parts, opaque: null };
  }
  if (dialect === 'zsh') {
    // `=(cmd)` is zsh's process substitution: read as `<(cmd)`
    const text = script.includes('=(') ? script.replace(/=\(/g, '<(') : script;
    return { parts: parser.parseScript(text), opaque: zshRunsCode(script) };
  }
  return { parts: parser.parseScript(script), opaque: `\`${name} -c\` scripts are not read with ${name}'s own rules` };
}

function append(target: CommandPart[], parts: readonly CommandPart[]): void {
  for (let i = 0; i < parts.length; i++) target.push(parts[i]!);
}

const NO_PARTS: readonly CommandPart[] = Object.freeze([]);

/** The commands of `find ... -exec CMD ;` (and -execdir, -ok, -okdir). */
function findExecParts(words: readonly ShellWord[], parser: ScriptParser, nest: number): CommandPart[] {
  const parts: CommandPart[] = [];
  let i = 1;
  while (i < words.length) {
    const w = words[i]!;
    if (w.dynamic || !isFindExec(w.value)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < words.length) {
      const t = words[j]!;
      if (!t.dynamic && (t.value === ';' || (t.value === '+' && words[j - 1]?.value === '{}'))) break;
      j++;
    }
    // find puts the paths it finds where `{}` is: words known only when it runs
    const inner = words.slice(i + 1, j).map((w) => (!w.dynamic && w.value.includes('{}') ? { value: w.value, dynamic: true } : w));
    if (inner.length > 0) buildPartsInto(parts, inner, wordsText(inner), null, parser, nest + 1);
    i = j + 1;
  }
  return parts;
}

/** The command `trap ACTION SIGNAL...` runs (null for `trap -p`, `trap - INT`, a reset or no action). */
function trapAction(words: readonly ShellWord[]): ShellWord | null {
  if (words[0]!.value !== 'trap') return null;
  let i = 1;
  while (i < words.length && !words[i]!.dynamic && words[i]!.value.startsWith('-') && words[i]!.value !== '-') {
    if (words[i]!.value === '--') {
      i++;
      break;
    }
    if (/[lp]/.test(words[i]!.value)) return null; // lists signals or prints traps
    i++;
  }
  const action = words[i];
  if (action === undefined || i + 1 >= words.length) return null; // no signal: nothing is set
  if (!action.dynamic && (action.value === '-' || action.value === '' || /^[0-9]+$/.test(action.value))) return null;
  return action;
}

/** The callback `mapfile -C CALLBACK` (and `readarray`) evaluates, with arguments appended. */
function mapfileCallback(words: readonly ShellWord[]): ShellWord | null {
  const name = words[0]!.value;
  if (name !== 'mapfile' && name !== 'readarray') return null;
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (w.dynamic) return null;
    if (w.value === '-C') return words[k + 1] ?? null;
    if (w.value.startsWith('-C')) return { value: w.value.slice(2), dynamic: false };
    if (!w.value.startsWith('-')) break;
    if (/^-[dnOsu]$/.test(w.value)) k++; // options with a value
  }
  return null;
}

/** Builtins that set variables from their operands. */
const SETTERS: ReadonlySet<string> = new Set(['export', 'declare', 'typeset', 'local', 'readonly', 'read', 'mapfile', 'readarray', 'printf', 'getopts', 'unset']);

/**
 * Why a builtin's words make the call opaque: `export PATH=x`, `read PATH`, `printf -v PATH`,
 * `declare -n`. Null for everything else.
 */
function builtinOpaque(words: readonly ShellWord[]): string | null {
  const name = words[0]!.value;
  if (name === 'let') {
    analysisFacts.evaluates = true;
    for (let k = 1; k < words.length; k++) {
      const w = words[k]!;
      if (w.dynamic) noteArithmeticText(w.value);
      else noteLiteralArithmetic(w.value, SUBSCRIPT_REASON);
    }
  }
  if (name === 'printf') notePrintfArguments(words);
  if (name === 'test' || name === '[') {
    for (let k = 1; k + 1 < words.length; k++) {
      const v = words[k]!.value;
      if ((v === '-v' || v === '-R') && words[k + 1]!.value.includes('[')) return SUBSCRIPT_REASON;
    }
  }
  if (name === 'read' || name === 'mapfile' || name === 'readarray' || name === 'getopts') {
    analysisFacts.riskyValue = true;
    // the variables it sets from its input (and, for lack of an option grammar here, any other name among its words)
    noteComputedName(name === 'read' ? 'REPLY' : name === 'getopts' ? 'OPTARG' : 'MAPFILE');
    for (let k = 1; k < words.length; k++) if (!words[k]!.dynamic && isName(words[k]!.value)) noteComputedName(words[k]!.value);
  }
  if (SETTERS.has(name)) {
    // `declare -i x`: every value later assigned to x is evaluated as arithmetic
    let integer = false;
    for (let k = 1; k < words.length; k++) {
      const w = words[k]!;
      if (name === 'printf' && k === 1 && w.value.startsWith('-v')) {
        analysisFacts.riskyValue = true;
        const target = w.value.length > 2 ? w.value.slice(2) : words[k + 1]?.value;
        if (target !== undefined && isName(target)) noteComputedName(target);
      }
      if (w.value.includes('=')) noteAssignedValue(w.value, w.dynamic);
      if (!w.dynamic && /^-[a-zA-Z]*i/.test(w.value) && name !== 'read' && name !== 'printf') {
        analysisFacts.evaluates = true; // `declare -i`
        integer = true;
      } else if (integer && !w.dynamic) {
        const declared = /^[A-Za-z_][A-Za-z0-9_]*/.exec(w.value);
        if (declared !== null) noteEvaluatedName(declared[0], ARITHMETIC);
      }
    }
  }
  if ((name === 'source' || name === '.') && words[1]?.dynamic === true) return `\`${name}\` runs a script computed when the command runs`;
  if (!SETTERS.has(name)) return null;
  if (name === 'printf') {
    // only `printf -v NAME` sets a variable
    const opt = words[1];
    if (opt === undefined || opt.dynamic || !opt.value.startsWith('-v')) return null;
  }
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    const v = w.value;
    if (w.dynamic && !/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(v)) return `\`${name}\` sets a variable named when the command runs`;
    if (v.length === 0) continue;
    if (v.charCodeAt(0) === 45 /* - */ || v.charCodeAt(0) === 43 /* + */) {
      if (v.includes('n') && (name === 'declare' || name === 'typeset' || name === 'local')) return `\`${name} ${v}\` makes a name refer to another variable`;
      continue;
    }
    const eq = v.indexOf('=');
    const target = eq < 0 ? v : v.slice(0, eq);
    const bracket = target.indexOf('[');
    if (bracket >= 0) return `\`${name}\` evaluates the subscript of \`${target}\`, which can run commands`;
    if (isRiskyVariable(target)) return `setting \`${target}\` changes what the command runs`;
    if (name === 'printf') break; // the format and its arguments follow the name
  }
  return null;
}

/** True for a word that is a variable name. */
function isName(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(word);
}

/** The conversions of printf that read their argument as a number: zsh evaluates such an argument as arithmetic. */
const NUMERIC_CONVERSION = 'diouxXeEfFgGaA';

/**
 * For each argument a printf format consumes, in order, whether zsh's printf evaluates it as
 * arithmetic: a numeric conversion's, and a `*` width's or precision's. Null when it may be any
 * (positional arguments `%1$d`).
 */
function numericArguments(format: string): boolean[] | null {
  const consumed: boolean[] = [];
  const conversion = /%(%|[-+ #0'I]*(\*|[0-9]*)(?:\.(\*|[0-9]*))?(?:hh|h|ll|l|q|L|j|z|Z|t)?([A-Za-z$]?))/g;
  for (let m = conversion.exec(format); m !== null; m = conversion.exec(format)) {
    if (m[1] === '%') continue;
    if (m[4] === '$' || /%[0-9]+\$/.test(m[0])) return null;
    if (m[2] === '*') consumed.push(true);
    if (m[3] === '*') consumed.push(true);
    if (m[4] !== '') consumed.push(NUMERIC_CONVERSION.includes(m[4]!));
  }
  return consumed;
}

/**
 * zsh's printf evaluates the arguments of its numeric conversions (`%d`, `%x`, `%f`, ...) as
 * arithmetic, which runs the substitutions of a subscript: `printf %d "$x"` evaluates x, and a
 * literal argument holding a subscript with `$( )` runs it. Bash's printf reads them as numbers.
 */
function notePrintfArguments(words: readonly ShellWord[]): void {
  let i = 1;
  const option = words[i];
  if (option !== undefined && !option.dynamic && option.value.startsWith('-v')) i += option.value === '-v' ? 2 : 1;
  if (words[i]?.value === '--' && words[i]!.dynamic === false) i++;
  const format = words[i];
  if (format === undefined) return;
  // a format computed when the command runs may hold any conversion, unless it can only be a number
  if (format.dynamic && isNumericValue(format.value)) return;
  const numeric = format.dynamic ? null : numericArguments(format.value);
  if (numeric !== null && !numeric.includes(true)) return;
  for (let k = i + 1; k < words.length; k++) {
    if (numeric !== null && !numeric[(k - i - 1) % numeric.length]) continue;
    const w = words[k]!;
    if (w.dynamic) noteArithmeticText(w.value);
    else noteLiteralArithmetic(w.value, PRINTF_REASON);
  }
}

/** A part that stands for text that could not be read. */
export function unknowablePart(text: string, reason: string): CommandPart {
  return { text, words: [], views: [{ words: [], wrappers: [], neutral: true }], unknowable: reason };
}

/**
 * The parts of one simple command. Usually one; a `bash -c 'script'` reached as written or
 * through privilege-neutral wrappers is replaced by the script's parts, and so is the script of a
 * neutral wrapper (`watch CMD`, `flock FILE -c SCRIPT`); otherwise the commands it runs itself (a
 * `-c` script behind `sudo`, `ssh host CMD`, static `eval` arguments, `find -exec`) follow it.
 */
export function buildParts(
  words: ShellWord[],
  text: string,
  forced: string | null,
  parser: ScriptParser,
  nest = 0,
): CommandPart[] {
  const parts: CommandPart[] = [];
  buildPartsInto(parts, words, text, forced, parser, nest);
  return parts;
}

/** buildParts, appending the parts to `target`. */
export function buildPartsInto(
  target: CommandPart[],
  words: ShellWord[],
  text: string,
  forced: string | null,
  parser: ScriptParser,
  nest = 0,
): void {
  const views = viewsOf(words);
  const met = viewsResult;
  let unknowable = forced ?? met.unknowable;
  const first = words[0];
  if (first !== undefined && !first.dynamic) {
    const v = first.value;
    if (v === 'time') {
      // bash's keyword `time` takes only `-p`: what follows is the command it runs (`time -v x`
      // runs a program named `-v`), where `/usr/bin/time` reads its own options
      const keyword = words.slice(words[1]?.value === '-p' && !words[1].dynamic ? 2 : 1);
      if (keyword.length > 0 && views[1]?.words[0] !== keyword[0]) views.push({ words: keyword, wrappers: ['time'], neutral: false, alternate: true });
    } else if (v.length > 1 && v.charCodeAt(0) === 61 /* = */ && /^=[A-Za-z0-9_.+-]+$/.test(v)) {
      // zsh expands `=rm` to the path of `rm`
      views.push({ words: [{ value: v.slice(1), dynamic: false }, ...words.slice(1)], wrappers: ['='], neutral: false, alternate: true });
    }
  }
  const special = met.program;
  const scripts = met.scripts;
  const scriptsNeutral = met.scriptsNeutral;
  const scriptWrapper = met.scriptWrapper;
  const last = views[views.length - 1]!;
  const program = last.words[0];
  let extra = NO_PARTS;
  if (scripts !== null) {
    // a wrapper that runs shell scripts: `su -c`, `flock FILE -c`, `ssh host CMD`, `watch CMD`
    const inner: CommandPart[] = [];
    for (const script of scripts) {
      if (script.dynamic) {
        unknowable ??= `\`${scriptWrapper}\` runs a script computed when the command runs`;
        inner.push(computedScript(script, unknowable));
      } else append(inner, parser.parseScript(script.value));
    }
    if (unknowable === null && scriptsNeutral) {
      // the wrapper runs nothing but the script: an allow needs only the script's parts
      target.push({ text, words, views, unknowable: null, transparent: true });
      append(target, inner);
      return;
    }
    extra = inner;
  } else if (program !== undefined && program.dynamic) {
    unknowable ??= 'the program name is computed when the command runs';
    // `{rm,-rf,/}` expands to the words `rm -rf /`: a view for deny and ask to see
    const expanded = braceWords(program.value);
    if (expanded !== null) {
      const rest = last.words.slice(1);
      const braced: ShellWord[] = expanded.map((value) => ({ value, dynamic: false }));
      for (let k = 0; k < rest.length; k++) braced.push(rest[k]!);
      const view: CommandView = { words: braced, wrappers: appended(last.wrappers, '{}'), neutral: false, alternate: true };
      views.push(view);
      const inner: CommandPart[] = [];
      buildPartsInto(inner, braced, wordsText(braced), unknowable, parser, nest + 1);
      // the expanded command's own views (`{sudo,rm,-rf,/}`), and what it runs itself
      for (let k = 1; k < (inner[0]?.views.length ?? 0); k++) views.push({ ...inner[0]!.views[k]!, alternate: true });
      extra = inner.slice(1);
    }
  } else if (program !== undefined && special === undefined) {
    unknowable ??= builtinOpaque(last.words);
    const trap = trapAction(last.words);
    const callback = trap === null ? mapfileCallback(last.words) : null;
    const action = trap ?? callback;
    if (action !== null) {
      if (action.dynamic) {
        unknowable ??= `\`${last.words[0]!.value}\` runs a command computed when the command runs`;
        extra = [computedScript(action, unknowable)];
      } else extra = parser.parseScript(action.value);
      // mapfile appends the line's index and text to its callback's words
      if (callback !== null) for (const p of extra) p.views.push({ words: [...p.words, INPUT_WORDS], wrappers: ['mapfile'], neutral: false, alternate: true });
    }
  } else if (program !== undefined && special !== undefined) {
    const name = special.name;
    if (special.kind === 'eval') {
      unknowable ??= '`eval` runs its arguments as shell code';
      const args = last.words.slice(1);
      if (args.length > 0 && args.every((w) => !w.dynamic)) extra = parser.parseScript(wordsText(args));
      else if (args.length > 0) extra = [computedScript({ value: wordsText(args), dynamic: true }, unknowable)];
    } else if (special.kind === 'shell') {
      const script = shellScript(last.words);
      const stdin = script === null ? shellReadsInput(last.words) : null;
      if (stdin !== null) {
        unknowable ??= stdin;
      } else if (script !== null && script.dynamic) {
        unknowable ??= `\`${name} -c\` runs a script computed when the command runs`;
        extra = [computedScript(script, unknowable)];
      } else if (script !== null) {
        const read = shellScriptParts(special.dialect, name, script.value, parser);
        unknowable ??= read.opaque;
        if (unknowable === null && last.neutral && isTrustedProgramPath(program.value)) {
          // the shell runs nothing but its script: an allow needs only the script's parts
          target.push({ text, words, views, unknowable: null, transparent: true });
          append(target, read.parts);
          return;
        }
        extra = read.parts;
      }
    } else if (special.kind === 'find') {
      if (nest < MAX_FIND_EXEC) extra = findExecParts(last.words, parser, nest);
      else if (last.words.some((w) => !w.dynamic && isFindExec(w.value))) unknowable ??= CAP_REASONS.findExec;
    }
  }
  // What options of the program run (`tar --to-command=CMD`, `ssh -o ProxyCommand=CMD`), for deny
  // and ask to see. An allow covers such an option only by naming it with its value (pattern.ts),
  // so these parts need no allow of their own: they are transparent, unless unknowable.
  if (program !== undefined && !program.dynamic && nest < MAX_FIND_EXEC && scripts === null) {
    const optionScripts = runsOptionScripts(last.words);
    if (optionScripts.length > 0) {
      const more: CommandPart[] = [...extra];
      for (const script of optionScripts) {
        for (const p of parser.parseScript(script.value)) {
          if (p.unknowable === null) p.transparent = true;
          more.push(p);
        }
      }
      extra = more;
    }
  }
  // a git alias set on the command line, and a forced push by a `+` refspec (views for deny and ask)
  if (program !== undefined && !program.dynamic && nest < MAX_FIND_EXEC) {
    const git = gitViews(views);
    if (git !== null) {
      unknowable ??= git.unknowable;
      if (git.scripts.length > 0) {
        const more: CommandPart[] = [...extra];
        for (const script of git.scripts) append(more, parser.parseScript(script));
        extra = more;
      }
    }
  }
  // the files the program writes through its options and operands (`tee f`, `cp a b`, `sort -o f`)
  let writes: ShellWord[] | undefined;
  if (program !== undefined && !program.dynamic) {
    const written = programWrites(last.words);
    if (written.unknown !== null) unknowable ??= written.unknown;
    if (written.files.length > 0) {
      writes = written.files;
      for (const w of writes) if (w.dynamic && homeRelative(w.value) === null) unknowable ??= `\`${program.value}\` writes \`${w.value}\`, a file named when the command runs`;
    }
  }
  const part: CommandPart = { text, words, views, unknowable };
  if (writes !== undefined) part.operandWrites = writes;
  target.push(part);
  append(target, extra);
}
