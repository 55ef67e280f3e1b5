/**
 * Variables that change what runs: `PATH`, `LD_PRELOAD`, `BASH_ENV`, `GIT_PAGER`, `NODE_OPTIONS`
 * and the rest of programs/wrappers.json's `environment` list. A command that sets one (a leading
 * assignment, an assignment statement, `env NAME=value`, `export NAME=value`, `read NAME`) runs
 * something other than what its words say, so the engine calls it opaque.
 */
import table from './programs/wrappers.json' with { type: 'json' };

const NAMES: ReadonlySet<string> = new Set(table.environment.names);
const PREFIXES: readonly string[] = table.environment.prefixes;

/** True when setting the variable `name` can change which program runs or what it loads. */
export function isRiskyVariable(name: string): boolean {
  if (NAMES.has(name)) return true;
  for (let i = 0; i < PREFIXES.length; i++) if (name.startsWith(PREFIXES[i]!)) return true;
  return false;
}

/** The variable an assignment word sets (`PATH=x`, `PATH+=x`, `a[1]=x` give `PATH`, `PATH`, `a`). */
export function assignedName(word: string): string {
  let end = 0;
  while (end < word.length) {
    const c = word.charCodeAt(end);
    if (c === 61 /* = */ || c === 43 /* + */ || c === 91 /* [ */) break;
    end++;
  }
  return word.slice(0, end);
}

/** Why an assignment word makes the call opaque, or null when the variable is harmless. */
export function assignmentOpaque(word: string): string | null {
  const name = assignedName(word);
  return isRiskyVariable(name) ? `setting \`${name}\` changes what the command runs` : null;
}
