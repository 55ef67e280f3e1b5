/**
 * Builds the public parts of one simple command: its views through wrappers (`sudo`, `env`,
 * `timeout`, ...), whether it is unknowable (`eval`, a computed program, `bash -c "$X"`), and the
 * commands it runs itself (the script of `bash -c`, the arguments of `eval`, `find -exec`).
 */
import { basename, isAssignmentWord, isTrustedProgramPath } from './chars.js';
import type { CommandPart, CommandView, ShellWord } from './types.js';

/** Parses a script (one level deeper) into parts. */
export type ScriptParser = (script: string) => CommandPart[];

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
const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'rbash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);

const FIND_EXEC: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);

type Stripped = { kind: 'command'; words: ShellWord[] } | { kind: 'none' } | { kind: 'unknowable'; reason: string };

/** Skips a wrapper's options; `words[0]` is the wrapper itself. */
function stripWrapper(words: readonly ShellWord[], spec: OptionSpec): Stripped {
  let i = 1;
  let noCommand = false;
  while (i < words.length) {
    const word = words[i]!;
    if (word.dynamic) break; // a computed word may be the command: treated as one
    const v = word.value;
    if (v === '--') {
      i++;
      break;
    }
    if (v === '-' && spec.dashOption) {
      i++;
      continue;
    }
    if (v.startsWith('--') && v.length > 2) {
      const eq = v.indexOf('=');
      const name = v.slice(2, eq < 0 ? undefined : eq);
      if (spec.unknowable?.long.includes(name)) return { kind: 'unknowable', reason: spec.unknowable.reason };
      if (spec.noCommandLong?.includes(name)) noCommand = true;
      i += eq < 0 && spec.longArg?.includes(name) ? 2 : 1;
      continue;
    }
    if (v.startsWith('-') && v.length > 1) {
      if (spec.numeric && /^-\d+$/.test(v)) {
        i++;
        continue;
      }
      let next = 1;
      for (let j = 1; j < v.length; j++) {
        const ch = v[j]!;
        if (spec.unknowable?.short.includes(ch)) return { kind: 'unknowable', reason: spec.unknowable.reason };
        if (spec.noCommand?.includes(ch)) noCommand = true;
        if (spec.withArg?.includes(ch)) {
          if (j === v.length - 1) next = 2;
          break;
        }
        if (spec.attachedArg?.includes(ch)) break;
      }
      i += next;
      continue;
    }
    if (spec.assignments && isAssignmentWord(v)) {
      i++;
      continue;
    }
    break;
  }
  if (noCommand) return { kind: 'none' };
  i += spec.operands ?? 0;
  if (i < words.length) return { kind: 'command', words: words.slice(i) };
  if (spec.defaultCommand !== undefined) return { kind: 'command', words: [{ value: spec.defaultCommand, dynamic: false }] };
  return { kind: 'none' };
}

/** Views through wrappers, and an unknowable reason met on the way. */
export function computeViews(words: ShellWord[]): { views: CommandView[]; unknowable: string | null } {
  const views: CommandView[] = [{ words, wrappers: [], neutral: true }];
  for (;;) {
    const current = views[views.length - 1]!;
    const first = current.words[0];
    if (first === undefined || first.dynamic) break;
    const name = basename(first.value);
    const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
    if (spec === undefined) break;
    if (views.length > MAX_SHELL_WRAPPERS) return { views, unknowable: 'too many nested wrappers' };
    const stripped = stripWrapper(current.words, spec);
    if (stripped.kind === 'unknowable') return { views, unknowable: stripped.reason };
    if (stripped.kind === 'none') break;
    // a wrapper run from an arbitrary path (`./nohup`) may be anything: never neutral
    const neutral = current.neutral && spec.neutral && isTrustedProgramPath(first.value);
    views.push({ words: stripped.words, wrappers: [...current.wrappers, name], neutral });
  }
  return { views, unknowable: null };
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
    if (v.startsWith('--')) {
      if (v === '--command') return words[i + 1] ?? null; // fish
      if (v.startsWith('--command=')) return { value: v.slice(10), dynamic: false };
      i += v === '--rcfile' || v === '--init-file' ? 2 : 1;
      continue;
    }
    if ((v.startsWith('-') || v.startsWith('+')) && v.length > 1) {
      let args = 0;
      for (const ch of v.slice(1)) {
        if (ch === 'c') hasC = true;
        else if (ch === 'o' || ch === 'O') args++;
      }
      i += 1 + args;
      continue;
    }
    break;
  }
  return hasC ? (words[i] ?? null) : null;
}

function append(target: CommandPart[], parts: readonly CommandPart[]): void {
  for (const p of parts) target.push(p);
}

function wordsText(words: readonly ShellWord[]): string {
  return words.map((w) => w.value).join(' ');
}

/** The commands of `find ... -exec CMD ;` (and -execdir, -ok, -okdir). */
function findExecParts(words: readonly ShellWord[], parseScript: ScriptParser, nest: number): CommandPart[] {
  const parts: CommandPart[] = [];
  let i = 1;
  while (i < words.length) {
    const w = words[i]!;
    if (w.dynamic || !FIND_EXEC.has(w.value)) {
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
    if (inner.length > 0) append(parts, buildParts(inner, wordsText(inner), null, parseScript, nest + 1));
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
  parseScript: ScriptParser,
  nest = 0,
): CommandPart[] {
  const computed = computeViews(words);
  const views = computed.views;
  let unknowable = forced ?? computed.unknowable;
  const last = views[views.length - 1]!;
  const program = last.words[0];
  const extra: CommandPart[] = [];
  if (program !== undefined && program.dynamic) {
    unknowable ??= 'the program name is computed when the command runs';
  } else if (program !== undefined) {
    const name = basename(program.value);
    if (name === 'eval') {
      unknowable ??= '`eval` runs its arguments as shell code';
      const args = last.words.slice(1);
      if (args.length > 0 && args.every((w) => !w.dynamic)) append(extra, parseScript(wordsText(args)));
    } else if (SHELLS.has(name)) {
      const script = shellScript(last.words);
      if (script !== null && script.dynamic) {
        unknowable ??= `\`${name} -c\` runs a script computed when the command runs`;
      } else if (script !== null) {
        const inner = parseScript(script.value);
        if (unknowable === null && last.neutral && isTrustedProgramPath(program.value)) return inner;
        append(extra, inner);
      }
    } else if (name === 'find' && nest < 4) {
      append(extra, findExecParts(last.words, parseScript, nest));
    }
  }
  const part: CommandPart = { text, words, views, unknowable };
  return extra.length === 0 ? [part] : [part, ...extra];
}
