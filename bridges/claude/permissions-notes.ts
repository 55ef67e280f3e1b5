/**
 * The differences between Claude Code's reading of permission rules and dshpolicy's that hold for
 * every rule of a family, whatever the rule says. The importer reports each family once per file,
 * at its first rule, with examples built from that rule. Every case listed was seen on Claude Code
 * 2.1.328 (bridges/claude/e2e/permissions.test.ts has a row for each), except where the message
 * says it follows Claude Code's documentation (commands over 10,000 characters, symbolic links).
 */
import { exampleCommand } from './permissions-bash.js';

export type Family = 'bash-deny' | 'bash-allow' | 'path';

export interface GeneralNote {
  message: string;
  help: string;
  /** A short line for the comments of every rule of the family. */
  comment: string;
}

function shown(example: string | undefined): string {
  return example === undefined ? '' : ` (\`${example}\`)`;
}

function others(count: number): string {
  return count === 0 ? 'this rule' : `this rule and ${count} more`;
}

/** The base command with its second word quoted, or with a quoted word holding the second and third. */
function quoted(base: string, joinTwo: boolean): string | undefined {
  const words = base.split(' ');
  if (words.length < 2) return undefined;
  if (!joinTwo) return [words[0], `'${words[1]}'`, ...words.slice(2)].join(' ');
  if (words.length >= 3) return [words[0], `"${words[1]} ${words[2]}"`, ...words.slice(3)].join(' ');
  return `${words[0]} "${words[1]} x"`;
}

/** The note for a family; `spec` is the specifier of its first rule (`rule`). */
export function generalNote(family: Family, rule: string, spec: string | null, count: number): GeneralNote {
  const base = spec === null ? '' : exampleCommand(spec);
  const ex = (text: string): string | undefined => (base === '' || text === '' ? undefined : text);
  if (family === 'bash-deny') {
    return {
      message:
        `\`Bash\` deny and ask rules (${others(count)}, from \`${rule}\`) differ here, whatever they say: claude code compares a command's words joined by spaces, ` +
        `so a quoted word holding a blank stands for several words of a pattern${shown(ex(quoted(base, true) ?? ''))}, which the imported rules do not match. ` +
        'And where a command a deny rule names runs inside `bash -c` or `sh -c`, `eval` or `find -exec`, claude code asks instead of denying; the imported rule denies. ' +
        'The imported rules also see the command `xargs` runs with the words it reads appended (`xargs git` as `git WORDS`), ' +
        'and read a word computed when the command runs at its worst: `$CMD -rf /` may be any program, `rm "$F"` may hold any option the rule names',
      help: 'add rules for the spellings that matter where the policy runs',
      comment: 'like every Bash deny and ask rule: quoted words holding blanks and nested scripts are read differently (see the note on the first one)',
    };
  }
  if (family === 'bash-allow') {
    return {
      message:
        `\`Bash\` allow rules (${others(count)}, from \`${rule}\`) differ here, whatever they say. The imported rules also allow these, where claude code asks: ` +
        `a command run through \`env\`, \`exec\`, \`ionice\` or \`chrt\`${shown(ex(`env A=1 ${base}`))}; after variable assignments other than a few such as \`NODE_ENV\` and \`LANG\`${shown(ex(`A=1 ${base}`))}; ` +
        `by a path in a system bin directory${shown(ex(`/usr/bin/${base}`))}; as the script of \`bash -c\` or \`sh -c\`${shown(ex(`bash -c "${base}"`))}; ` +
        `in a subshell, a brace group or in the background${shown(ex(`(${base})`))}; holding a variable or a command substitution where a \`*\` takes it; ` +
        `with arguments quoted where the rule has none or the other way round${shown(ex(quoted(base, false) ?? ''))}; ` +
        `and (as claude code documents) longer than 10,000 characters. They do not allow a command run through \`noglob\`${shown(ex(`noglob ${base}`))}, which claude code allows`,
      help: 'add `ask` rules for what must not pass, such as `ask Bash command "env *"`',
      comment: 'like every Bash allow rule: wrappers, assignments, scripts, variables and quoting are read differently (see the note on the first one)',
    };
  }
  return {
    message:
      `\`Read\` and \`Edit\` rules (${others(count)}, from \`${rule}\`) differ here, whatever they say: both apply them to the files bash commands read or write ` +
      '(`cat .env` is denied by `Read(.env)`), claude code for the commands it recognises and dshpolicy for every file a command may read (input redirections, globs, recursive searches); ' +
      'claude code also applies them, as it documents, to the target of a symbolic link; it judges a Grep or Glob by the directory it names, where the imported deny ' +
      'and ask rules also fire on a search that can reach a file they name (`Grep ~/.ssh` under `Read(~/.ssh/**)`) and fold case',
    help: 'add a `Bash` rule with the same paths for the commands that read or write these files, such as `deny Bash path ".env"`',
    comment: 'like every Read and Edit rule: bash file commands, searches and symbolic links are read differently (see the note on the first one)',
  };
}
