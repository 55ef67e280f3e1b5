/**
 * Builds the public parts of one simple command: its views through wrappers (`sudo`, `env`,
 * `timeout`, ...), whether it is unknowable (`eval`, a computed program, `bash -c "$X"`), and the
 * commands it runs itself (the script of `bash -c`, the arguments of `eval`, `find -exec`).
 */
import { codeAt, isAssignmentWord, isTrustedProgramPath } from './chars.js';
import type { CommandPart, CommandView, ShellWord } from './types.js';

/** Parses a script (one level deeper) into parts. */
export interface ScriptParser {
  parseScript(script: string): CommandPart[];
}

/** How many wrappers are looked through before a part is declared unknowable. */
export const MAX_SHELL_WRAPPERS = 16;

interface OptionSpec {
  /** Privilege-neutral: the wrapped command runs with the caller's privileges. */
  neutral: boolean;
  /** Short options without an argument (unknown letters are treated the same way). */
  flags?: string;
  /** Short options taking an argument, attached (`-uroot`) or as the next word. */
  withArg?: string;
  /** Short options whose argument can only be attached (`xargs -i{}`). */
  attachedArg?: string;
  /** Long options taking an argument as `--name=value` or `--name value`. */
  longArg?: readonly string[];
  /** Short or long options after which no command is run (`command -v`, `sudo -l`). */
  noCommand?: string;
  noCommandLong?: readonly string[];
  /** Options that turn the rest into something that cannot be analysed (`env -S`). */
  unknowable?: { short: string; long: readonly string[]; reason: string };
  /** `-10` is an option (nice). */
  numeric?: boolean;
  /** A lone `-` is an option (env). */
  dashOption?: boolean;
  /** `NAME=value` words after the options are skipped (env, sudo). */
  assignments?: boolean;
  /** Operands between the options and the command (timeout DURATION, chrt PRIORITY). */
  operands?: number;
  /** The command run when none is given (xargs runs `echo`). */
  defaultCommand?: string;
}

/** The wrappers that are looked through. `chrt` is included as neutral: it only sets scheduling. */
const WRAPPERS: Readonly<Record<string, OptionSpec>> = {
  sudo: {
    neutral: false,
    flags: 'AbBEHiKklnPSsVv',
    withArg: 'ugCDhprRtTU',
    longArg: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'chroot'],
    noCommand: 'eKlVv',
    noCommandLong: ['edit', 'list', 'validate', 'version', 'remove-timestamp', 'help'],
    assignments: true,
  },
  doas: { neutral: false, flags: 'nsL', withArg: 'uC', noCommand: 'C' },
  xargs: {
    neutral: false,
    flags: '0oprtx',
    withArg: 'aEdILnPs',
    attachedArg: 'eil',
    longArg: ['arg-file', 'delimiter', 'max-args', 'max-lines', 'max-procs', 'max-chars', 'process-slot-var'],
    noCommandLong: ['help', 'version', 'show-limits'],
    defaultCommand: 'echo',
  },
  env: {
    neutral: true,
    flags: 'i0v',
    withArg: 'uCP',
    longArg: ['unset', 'chdir'],
    noCommandLong: ['help', 'version', 'list-signal-handling'],
    unknowable: { short: 'S', long: ['split-string'], reason: '`env -S` splits a string into a command' },
    dashOption: true,
    assignments: true,
  },
  nice: { neutral: true, withArg: 'n', longArg: ['adjustment'], numeric: true },
  nohup: { neutral: true },
  timeout: { neutral: true, flags: 'v', withArg: 'sk', longArg: ['signal', 'kill-after'], operands: 1 },
  time: { neutral: true, flags: 'apqv', withArg: 'fo', longArg: ['format', 'output'] },
  command: { neutral: true, flags: 'p', noCommand: 'vV' },
  builtin: { neutral: true },
  exec: { neutral: true, flags: 'cl', withArg: 'a' },
  stdbuf: { neutral: true, withArg: 'ioe', longArg: ['input', 'output', 'error'] },
  ionice: {
    neutral: true,
    flags: 't',
    withArg: 'cnpPu',
    longArg: ['class', 'classdata', 'pid', 'pgid', 'uid'],
    noCommand: 'pPu',
    noCommandLong: ['pid', 'pgid', 'uid'],
  },
  chrt: {
    neutral: true,
    flags: 'abdfimorRv',
    withArg: 'TPD',
    longArg: ['sched-runtime', 'sched-period', 'sched-deadline'],
    noCommand: 'pm',
    noCommandLong: ['pid', 'max'],
    operands: 1,
  },
};

/** Shells whose `-c` script is parsed as commands. */
const SHELLS: readonly string[] = ['sh', 'bash', 'rbash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish'];

/** A program name that buildParts treats specially. */
interface SpecialProgram {
  readonly name: string;
  /** Set for the wrappers. */
  readonly wrapper: OptionSpec | null;
  /** For the wrappers: the short option letters (ASCII codes) as SHORT_* bits. */
  readonly short: Uint8Array;
  readonly kind: 'wrapper' | 'shell' | 'eval' | 'find';
}

const SHORT_UNKNOWABLE = 1;
const SHORT_NO_COMMAND = 2;
const SHORT_WITH_ARG = 4;
const SHORT_ATTACHED_ARG = 8;

/** The short options of a wrapper as bits by character code. */
function shortOptions(spec: OptionSpec): Uint8Array {
  const table = new Uint8Array(128);
  const mark = (letters: string | undefined, bit: number): void => {
    for (const ch of letters ?? '') table[ch.charCodeAt(0)]! |= bit;
  };
  mark(spec.unknowable?.short, SHORT_UNKNOWABLE);
  mark(spec.noCommand, SHORT_NO_COMMAND);
  mark(spec.withArg, SHORT_WITH_ARG);
  mark(spec.attachedArg, SHORT_ATTACHED_ARG);
  return table;
}

/** The special programs by the character code of their last letter. */
const SPECIAL_BY_LAST: (SpecialProgram[] | undefined)[] = (() => {
  const table: (SpecialProgram[] | undefined)[] = new Array<SpecialProgram[] | undefined>(128).fill(undefined);
  const add = (program: SpecialProgram): void => {
    const c = program.name.charCodeAt(program.name.length - 1);
    (table[c] ??= []).push(program);
  };
  const none = new Uint8Array(128);
  for (const [name, spec] of Object.entries(WRAPPERS)) add({ name, wrapper: spec, short: shortOptions(spec), kind: 'wrapper' });
  for (const name of SHELLS) add({ name, wrapper: null, short: none, kind: 'shell' });
  add({ name: 'eval', wrapper: null, short: none, kind: 'eval' });
  add({ name: 'find', wrapper: null, short: none, kind: 'find' });
  return table;
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

/** `items` followed by `item`, as a new array (faster than spreading). */
function appended<T>(items: readonly T[], item: T): T[] {
  const out = new Array<T>(items.length + 1);
  for (let k = 0; k < items.length; k++) out[k] = items[k]!;
  out[items.length] = item;
  return out;
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

type Stripped = { kind: 'command'; words: ShellWord[] } | { kind: 'none' } | { kind: 'unknowable'; reason: string };

/** Skips a wrapper's options; `words[0]` is the wrapper itself. */
function stripWrapper(words: readonly ShellWord[], spec: OptionSpec, short: Uint8Array): Stripped {
  let i = 1;
  let noCommand = false;
  while (i < words.length) {
    const word = words[i]!;
    if (word.dynamic) break; // a computed word may be the command: treated as one
    const v = word.value;
    if (v.length === 0 || v.charCodeAt(0) !== 45 /* - */) {
      // not an option: an assignment (env, sudo) or the command
      if (spec.assignments && isAssignmentWord(v)) {
        i++;
        continue;
      }
      break;
    }
    if (v.length === 1) {
      // `-`: an option of env, else the command
      if (!spec.dashOption) break;
      i++;
      continue;
    }
    if (v.length === 2 && v.charCodeAt(1) === 45 /* - */) {
      // `--`
      i++;
      break;
    }
    if (v.length > 2 && v.charCodeAt(1) === 45 /* - */) {
      const eq = v.indexOf('=');
      const name = v.slice(2, eq < 0 ? undefined : eq);
      if (spec.unknowable?.long.includes(name)) return { kind: 'unknowable', reason: spec.unknowable.reason };
      if (spec.noCommandLong?.includes(name)) noCommand = true;
      i += eq < 0 && spec.longArg?.includes(name) ? 2 : 1;
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
      if (bits & SHORT_UNKNOWABLE) return { kind: 'unknowable', reason: spec.unknowable!.reason };
      if (bits & SHORT_NO_COMMAND) noCommand = true;
      if (bits & SHORT_WITH_ARG) {
        if (j === v.length - 1) next = 2;
        break;
      }
      if (bits & SHORT_ATTACHED_ARG) break;
    }
    i += next;
  }
  if (noCommand) return { kind: 'none' };
  i += spec.operands ?? 0;
  if (i < words.length) return { kind: 'command', words: words.slice(i) };
  if (spec.defaultCommand !== undefined) return { kind: 'command', words: [{ value: spec.defaultCommand, dynamic: false }] };
  return { kind: 'none' };
}

/** The unknowable reason met by the last call of viewsOf. */
let viewsUnknowable: string | null = null;

/** The special program that starts the last view of the last call of viewsOf, if any. */
let viewsProgram: SpecialProgram | undefined;

/** Views through wrappers; sets viewsUnknowable and viewsProgram. */
function viewsOf(words: ShellWord[]): CommandView[] {
  let current: CommandView = { words, wrappers: [], neutral: true };
  const views = [current];
  viewsUnknowable = null;
  viewsProgram = undefined;
  for (;;) {
    const first = current.words[0];
    if (first === undefined || first.dynamic) break;
    const program = specialProgram(first.value);
    viewsProgram = program;
    if (program === undefined || program.wrapper === null) break;
    const spec = program.wrapper;
    const name = program.name;
    if (views.length > MAX_SHELL_WRAPPERS) {
      viewsUnknowable = 'too many nested wrappers';
      break;
    }
    const stripped = stripWrapper(current.words, spec, program.short);
    if (stripped.kind === 'unknowable') {
      viewsUnknowable = stripped.reason;
      break;
    }
    if (stripped.kind === 'none') break;
    // a wrapper run from an arbitrary path (`./nohup`) may be anything: never neutral
    const neutral = current.neutral && spec.neutral && isTrustedProgramPath(first.value);
    current = { words: stripped.words, wrappers: appended(current.wrappers, name), neutral };
    views.push(current);
    viewsProgram = undefined;
  }
  return views;
}

/** Views through wrappers, and an unknowable reason met on the way. */
export function computeViews(words: ShellWord[]): { views: CommandView[]; unknowable: string | null } {
  const views = viewsOf(words);
  return { views, unknowable: viewsUnknowable };
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
    if (first === 45 /* - */ && v.charCodeAt(1) === 45) {
      if (v === '--command') return words[i + 1] ?? null; // fish
      if (v.startsWith('--command=')) return { value: v.slice(10), dynamic: false };
      i += v === '--rcfile' || v === '--init-file' ? 2 : 1;
      continue;
    }
    if ((first === 45 /* - */ || first === 43) /* + */ && v.length > 1) {
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

function append(target: CommandPart[], parts: readonly CommandPart[]): void {
  for (let i = 0; i < parts.length; i++) target.push(parts[i]!);
}

const NO_PARTS: readonly CommandPart[] = Object.freeze([]);

function wordsText(words: readonly ShellWord[]): string {
  return words.map((w) => w.value).join(' ');
}

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
    const inner = words.slice(i + 1, j);
    if (inner.length > 0) buildPartsInto(parts, inner, wordsText(inner), null, parser, nest + 1);
    i = j + 1;
  }
  return parts;
}

/** A part that stands for text that could not be read. */
export function unknowablePart(text: string, reason: string): CommandPart {
  return { text, words: [], views: [{ words: [], wrappers: [], neutral: true }], unknowable: reason };
}

/**
 * The parts of one simple command. Usually one; a `bash -c 'script'` reached as written or
 * through privilege-neutral wrappers is replaced by the script's parts; otherwise the commands it
 * runs itself (a `-c` script behind `sudo`, static `eval` arguments, `find -exec`) follow it.
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
  let unknowable = forced ?? viewsUnknowable;
  const special = viewsProgram;
  const last = views[views.length - 1]!;
  const program = last.words[0];
  let extra = NO_PARTS;
  if (program !== undefined && program.dynamic) {
    unknowable ??= 'the program name is computed when the command runs';
  } else if (program !== undefined && special !== undefined) {
    const name = special.name;
    if (special.kind === 'eval') {
      unknowable ??= '`eval` runs its arguments as shell code';
      const args = last.words.slice(1);
      if (args.length > 0 && args.every((w) => !w.dynamic)) extra = parser.parseScript(wordsText(args));
    } else if (special.kind === 'shell') {
      const script = shellScript(last.words);
      if (script !== null && script.dynamic) {
        unknowable ??= `\`${name} -c\` runs a script computed when the command runs`;
      } else if (script !== null) {
        const inner = parser.parseScript(script.value);
        if (unknowable === null && last.neutral && isTrustedProgramPath(program.value)) {
          append(target, inner);
          return;
        }
        extra = inner;
      }
    } else if (special.kind === 'find' && nest < 4) {
      extra = findExecParts(last.words, parser, nest);
    }
  }
  target.push({ text, words, views, unknowable });
  append(target, extra);
}
