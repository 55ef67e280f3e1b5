/** Small helpers over a command's words, shared by the modules that build parts and views. */
import type { ShellWord } from './types.js';

/** `items` followed by `item`, as a new array (faster than spreading). */
export function appended<T>(items: readonly T[], item: T): T[] {
  const out = new Array<T>(items.length + 1);
  for (let k = 0; k < items.length; k++) out[k] = items[k]!;
  out[items.length] = item;
  return out;
}

/** The words' values joined by spaces, as a shell would pass them to a script. */
export function wordsText(words: readonly ShellWord[]): string {
  let text = '';
  for (let k = 0; k < words.length; k++) text += (k === 0 ? '' : ' ') + words[k]!.value;
  return text;
}

/** A program word's base name (`/usr/bin/git` is `git`). */
export function baseName(program: string): string {
  const slash = program.lastIndexOf('/');
  return slash < 0 ? program : program.slice(slash + 1);
}
