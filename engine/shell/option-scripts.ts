/**
 * The commands that options of a program run: `tar --to-command=CMD`, `rsync -e CMD`,
 * `ssh -o ProxyCommand=CMD`, `vim -c '!CMD'`, `vim '+!CMD'`, `git -c alias.x='!CMD'`,
 * `rg --pre PROGRAM`, and the `!CMD` shell commands among the commands of `less '+!CMD'`. The
 * programs table (programs/options.json) marks such options `runs` (or gives the language of their
 * value: `less`); their static values are read as scripts, so that a deny or ask sees `rm -rf /` in
 * `tar --to-command='rm -rf /' -xf a.tar`. (An allow never covers such an option through a `*`:
 * pattern.ts.)
 */
import { programGrammar } from './programs/grammar.js';
import { OPTIONS_TABLE, type LevelEntry } from './programs/options.js';
import { readWords } from './programs/read.js';
import { scriptShellCommands } from './programs/scripts.js';
import type { ShellWord } from './types.js';

const NONE: readonly ShellWord[] = Object.freeze([]);

/** Programs of the table (aliases too) that write files: through operands, or only through options. */
const WRITERS: ReadonlyMap<string, 'operands' | 'options'> = (() => {
  const map = new Map<string, 'operands' | 'options'>();
  const walk = (level: LevelEntry): 'operands' | 'options' | null => {
    let found: 'operands' | 'options' | null = null;
    if ((level.operands ?? []).some((o) => o.kind === 'writes')) return 'operands';
    if ((level.options ?? []).some((o) => o.kind === 'writes')) found = 'options';
    for (const set of level.use ?? []) if ((OPTIONS_TABLE.sets[set] ?? []).some((o) => o.kind === 'writes')) found = 'options';
    for (const sub of Object.values(level.subcommands ?? {})) {
      const inner = walk(sub);
      if (inner === 'operands') return 'operands';
      if (inner !== null) found = 'options';
    }
    return found;
  };
  for (const [name, entry] of Object.entries(OPTIONS_TABLE.programs)) {
    const kind = walk(entry);
    if (kind !== null) for (const n of [name, ...(entry.aliases ?? [])]) map.set(n, kind);
  }
  return map;
})();

/**
 * The command in an option's value: after a leading setting name (`ProxyCommand=CMD`, `exec=CMD`,
 * `alias.x=CMD`) and the `!` (or `:!`) by which vim and git aliases run a shell command.
 */
function settingValue(value: string): string {
  const m = /^[A-Za-z][A-Za-z0-9_.-]*=/.exec(value);
  const rest = m === null ? value : value.slice(m[0].length);
  return rest.replace(/^\s*:?\s*!/, '');
}

/** The static values of the options of `words` (a view: word 0 is the program) that run commands. */
export function runsOptionScripts(words: readonly ShellWord[]): readonly ShellWord[] {
  const program = words[0];
  if (program === undefined || program.dynamic) return NONE;
  const slash = program.value.lastIndexOf('/');
  const grammar = programGrammar(slash < 0 ? program.value : program.value.slice(slash + 1));
  if (grammar === undefined) return NONE;
  // most commands have no option that could be one: read the words only when some word starts like an option
  let maybe = false;
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (!w.dynamic && w.value.length > 1 && (w.value.charCodeAt(0) === 45 /* - */ || w.value.charCodeAt(0) === 43) /* + */) {
      maybe = true;
      break;
    }
  }
  if (!maybe) return NONE;
  const reading = readWords(grammar, words);
  let out: ShellWord[] | null = null;
  for (const use of reading.options) {
    const def = use.def;
    // an option without a value runs nothing of its own, unless its word holds one (`vim +CMD`)
    if (def === null || (def.kind !== 'runs' && def.script !== 'less') || (def.value === 'none' && use.offset < 0)) continue;
    let value: ShellWord | undefined;
    if (use.offset >= 0) {
      const w = words[use.at]!;
      value = { value: w.value.slice(use.offset), dynamic: w.dynamic };
    } else if (use.valueAt >= 0) {
      value = words[use.valueAt];
    }
    if (value === undefined || value.dynamic || value.value.length === 0) continue;
    if (def.script !== null) {
      for (const command of scriptShellCommands(def.script, value.value)) (out ??= []).push({ value: command, dynamic: false });
      continue;
    }
    (out ??= []).push({ value: settingValue(value.value), dynamic: false });
  }
  return out ?? NONE;
}

/**
 * The files a program writes through its options and operands, by the programs table: the value
 * of an option that writes (`sort -o FILE`, `dd of=FILE`, `curl --output FILE`) and the operands
 * that are written (`tee FILE...`, the destination of `cp`, `mv`, `ln`, `install`, the files of
 * `sed -i`). `unknown` says why the file cannot be named when an option writes one the command
 * chooses (`curl -O`).
 */
export function programWrites(words: readonly ShellWord[]): { files: ShellWord[]; unknown: string | null } {
  const out = { files: [] as ShellWord[], unknown: null as string | null };
  const program = words[0];
  if (program === undefined || program.dynamic || words.length < 2) return out;
  const slash = program.value.lastIndexOf('/');
  const name = slash < 0 ? program.value : program.value.slice(slash + 1);
  // read the words only for programs that write through operands, or through options when one is written
  const writes = WRITERS.get(name);
  if (writes === undefined) return out;
  if (writes === 'options' && !words.some((w, k) => k > 0 && (w.dynamic || w.value.charCodeAt(0) === 45 /* - */ || w.value.includes('=')))) return out;
  const grammar = programGrammar(name);
  if (grammar === undefined) return out;
  const reading = readWords(grammar, words);
  let inPlace = false;
  for (const use of reading.options) {
    const def = use.def;
    if (def === null || def.kind !== 'writes') continue;
    if (def.value !== 'required') {
      // `sed -i`: the files it reads are written; `curl -O`: a file named by the command
      if (def.value === 'optional' && def.script === null && name === 'sed') inPlace = true;
      else out.unknown ??= `\`${name} ${use.name}\` writes a file whose name the command chooses`;
      continue;
    }
    const value = use.offset >= 0 ? { value: words[use.at]!.value.slice(use.offset), dynamic: words[use.at]!.dynamic } : words[use.valueAt];
    if (value !== undefined) out.files.push(value);
  }
  const level = reading.levels[reading.levels.length - 1]!;
  const n = reading.operands.length;
  for (let k = 0; k < n; k++) {
    const word = words[reading.operands[k]!]!;
    let written = false;
    let script = false;
    for (const rule of level.operands) {
      const applies = rule.which === 'all' || (rule.which === 'first' ? k === 0 : rule.which === 'last' ? k === n - 1 : k >= rule.from);
      if (!applies) continue;
      if (rule.script !== null && !reading.options.some((u) => u.def !== null && rule.unless.includes(u.def))) script = true;
      else if (rule.kind === 'writes' && !reading.options.some((u) => u.def !== null && rule.unless.includes(u.def))) written = true;
    }
    if (written || (inPlace && !script)) out.files.push(word);
  }
  return out;
}
