/**
 * The dshpolicy command line: one file per subcommand; this one dispatches.
 */
import { hookCrashAnswer, internalErrorText } from './crash.js';
import { UsageError, type Io } from './args.js';
import { INTERNAL, OK, USAGE } from './exit-codes.js';

const HELP = `dshpolicy: a declarative policy engine for AI coding agents

usage: dshpolicy <command> [options]

commands:
  check <files...>                     report every error and warning in policy files
  compile <file> [-o out.json]         compile a policy to its IR (JSON)
  eval --policy <f>... --fixtures <f>  decide every event of a fixture file
  fmt [--check] <files...|->           rewrite policy files in the canonical layout
  test [files...] [--coverage]         run test blocks and fixture expectations (human, json, junit)
  replay --policy <f>... <sessions...> what a policy would have decided over recorded sessions
  explain --policy <f>... --event <j>  why the policy decides an event (also --fixtures <f>)
  import <agent> [<what>] <file>       print hooks, permissions, rules files or policies as .dshpolicy
  export gemini --policy <f>...        print a policy's pre-tool rules as a Gemini CLI policy (TOML)
  hook claude|codex|gemini [--policy]  answer one agent event read on stdin, as the agent's hook
  install claude|codex                 wire \`dshpolicy hook\` into the agent's configuration
  uninstall claude|codex               remove dshpolicy's entries from it again
  serve [--policy <f>...] [--port <n>] answer Claude Code's http hooks from a long-running server

every command that prints results takes --format json (hook answers in the agent's protocol); \`dshpolicy <command> --help\` says more`;

interface Command {
  run: (argv: string[], io: Io) => number | Promise<number>;
  help: string;
}

/**
 * Each command's module is loaded when it runs: a hook process pays only for what answering an
 * event needs (the policy compiler, for one, is not loaded when a cached policy will do).
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  check: async () => import('./check.js').then((m) => ({ run: m.check, help: m.CHECK_HELP })),
  compile: async () => import('./compile.js').then((m) => ({ run: m.compile, help: m.COMPILE_HELP })),
  eval: async () => import('./eval.js').then((m) => ({ run: m.evalCommand, help: m.EVAL_HELP })),
  import: async () => import('./import.js').then((m) => ({ run: m.importCommand, help: m.IMPORT_HELP })),
  export: async () => import('./export.js').then((m) => ({ run: m.exportCommand, help: m.EXPORT_HELP })),
  install: async () => import('./install.js').then((m) => ({ run: m.installCommand, help: m.INSTALL_HELP })),
  uninstall: async () => import('./install.js').then((m) => ({ run: m.uninstallCommand, help: m.UNINSTALL_HELP })),
  fmt: async () => import('./fmt.js').then((m) => ({ run: m.fmtCommand, help: m.FMT_HELP })),
  test: async () => import('./test.js').then((m) => ({ run: m.testCommand, help: m.TEST_HELP })),
  replay: async () => import('./replay.js').then((m) => ({ run: m.replayCommand, help: m.REPLAY_HELP })),
  explain: async () => import('./explain.js').then((m) => ({ run: m.explainCommand, help: m.EXPLAIN_HELP })),
  serve: async () => import('./serve.js').then((m) => ({ run: m.serveCommand, help: m.SERVE_HELP })),
  hook: async () => import('./hook.js').then((m) => ({ run: (argv, io) => m.hookCommand(argv, io, { loadCompiler: () => import('./policy.js') }), help: m.HOOK_HELP })),
};

export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${HELP}\n`);
    return name === undefined ? USAGE : OK;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`${VERSION}\n`);
    return OK;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    io.stderr.write(`error: unknown command \`${name}\`\n\n${HELP}\n`);
    return USAGE;
  }
  const cmd = await load();
  try {
    return await cmd.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`error: ${err.message}\n\n${cmd.help}\n`);
      return USAGE;
    }
    // hook mode fails closed: an agent reads 70 as "no opinion" and goes ahead
    if (name === 'hook') {
      const answer = hookCrashAnswer(rest, err);
      io.stderr.write(answer.stderr);
      return answer.exitCode;
    }
    io.stderr.write(internalErrorText(err));
    return INTERNAL;
  }
}

declare const __DSHPOLICY_VERSION__: string | undefined;
const VERSION = typeof __DSHPOLICY_VERSION__ === 'string' ? __DSHPOLICY_VERSION__ : '0.0.0-dev';
