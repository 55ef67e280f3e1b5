/**
 * The dshpolicy command line: one file per subcommand; this one dispatches.
 */
import { check, CHECK_HELP } from './check.js';
import { compile, COMPILE_HELP } from './compile.js';
import { evalCommand, EVAL_HELP } from './eval.js';
import { importCommand, IMPORT_HELP } from './import.js';
import { UsageError, type Io } from './args.js';

const HELP = `dshpolicy: a declarative policy engine for AI coding agents

usage: dshpolicy <command> [options]

commands:
  check <files...>                     report every error and warning in policy files
  compile <file> [-o out.json]         compile a policy to its IR (JSON)
  eval --policy <f>... --fixtures <f>  decide every event of a fixture file
  import claude|codex <file>           print a hooks configuration as .dshpolicy rules or IR

every command takes --format json; \`dshpolicy <command> --help\` says more`;

const COMMANDS: Record<string, { run: (argv: string[], io: Io) => number | Promise<number>; help: string }> = {
  check: { run: check, help: CHECK_HELP },
  compile: { run: compile, help: COMPILE_HELP },
  eval: { run: evalCommand, help: EVAL_HELP },
  import: { run: importCommand, help: IMPORT_HELP },
};

export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${HELP}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    io.stderr.write(`error: unknown command \`${name}\`\n\n${HELP}\n`);
    return 2;
  }
  try {
    return await cmd.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`error: ${err.message}\n\n${cmd.help}\n`);
      return 2;
    }
    io.stderr.write(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 70;
  }
}

declare const __DSHPOLICY_VERSION__: string | undefined;
const VERSION = typeof __DSHPOLICY_VERSION__ === 'string' ? __DSHPOLICY_VERSION__ : '0.0.0-dev';
