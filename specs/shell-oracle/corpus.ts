/**
 * The Bash commands of the adversarial corpus (specs/cases/adversarial-*.yaml), read with the
 * conformance loader, and the program names they mention (each gets a stand-in in the sandbox).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCases } from '../load.js';

export interface CorpusCommand {
  note: string;
  source: string;
  command: string;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Every Bash case of the adversarial files whose event has a command string. */
export function adversarialCommands(): CorpusCommand[] {
  const out: CorpusCommand[] = [];
  for (const c of loadCases(join(here, '..', 'cases'))) {
    if (!c.source.startsWith('adversarial-')) continue;
    const event = c.event as { tool?: unknown; input?: { command?: unknown } } | undefined;
    if (event?.tool !== 'Bash' || typeof event.input?.command !== 'string') continue;
    out.push({ note: c.note, source: c.source, command: event.input.command });
  }
  return out;
}

/** Words of a command line that could name a program (a superset: every name-like token). */
export function programNames(commands: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const command of commands) {
    for (const token of command.split(/[^A-Za-z0-9_.+@%:-]+/)) {
      if (/^[A-Za-z_][A-Za-z0-9_.+@%:-]*$/.test(token)) names.add(token);
    }
  }
  return names;
}

/** Whether a command needs zsh to mean what it says. */
export function needsZsh(command: string): boolean {
  return /\bzsh\b/.test(command);
}
