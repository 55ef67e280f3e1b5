/**
 * The commands that options of a program run: `tar --to-command=CMD`, `rsync -e CMD`,
 * `ssh -o ProxyCommand=CMD`, `vim -c '!CMD'`, `git -c alias.x='!CMD'`, `rg --pre PROGRAM`. The
 * programs table (programs/options.json) marks such options `runs`; their static values are read as
 * scripts, so that a deny or ask sees `rm -rf /` in `tar --to-command='rm -rf /' -xf a.tar`. (An
 * allow never covers such an option through a `*`: pattern.ts.)
 */
import { programGrammar } from './programs/grammar.js';
import { readWords } from './programs/read.js';
import type { ShellWord } from './types.js';

const NONE: readonly ShellWord[] = Object.freeze([]);

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
    if (def === null || def.kind !== 'runs' || def.value === 'none') continue;
    let value: ShellWord | undefined;
    if (use.offset >= 0) {
      const w = words[use.at]!;
      value = { value: w.value.slice(use.offset), dynamic: w.dynamic };
    } else if (use.valueAt >= 0) {
      value = words[use.valueAt];
    }
    if (value === undefined || value.dynamic || value.value.length === 0) continue;
    (out ??= []).push({ value: settingValue(value.value), dynamic: false });
  }
  return out ?? NONE;
}
