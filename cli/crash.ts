/**
 * How the command line ends when something goes wrong outside a command's own handling: a reader
 * that stops early (`| head`, EPIPE) ends the process quietly with the status so far, as `head`
 * expects; anything else prints one `internal error:` line and exits 70 (EX_SOFTWARE), with the
 * stack only when DSHPOLICY_DEBUG is set. Hook mode passes its own ending, since an agent reads
 * exit codes as decisions.
 */
import { HOOK_ANSWERED, HOOK_BLOCK, INTERNAL, OK } from './exit-codes.js';
import { terminalSafe } from './untrusted.js';

/** The line that reports an unexpected error, with the stack when DSHPOLICY_DEBUG is set. */
export function internalErrorText(err: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const debug = env.DSHPOLICY_DEBUG !== undefined && env.DSHPOLICY_DEBUG !== '' && env.DSHPOLICY_DEBUG !== '0';
  if (debug && err instanceof Error && err.stack) return `internal error: ${err.stack}\n`;
  // one line, whatever the error's text holds
  return `internal error: ${terminalSafe(err instanceof Error ? err.message : String(err))}\n`;
}

/**
 * Installs the endings: `onInternal` runs for an unexpected error (by default the one line and
 * exit 70) and must end the process.
 */
export function frameCrashes(onInternal: (err: unknown) => void = (err) => endWith(internalErrorText(err), INTERNAL)): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? OK);
      onInternal(err);
    });
  }
  process.on('uncaughtException', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? OK);
    onInternal(err);
  });
  process.on('unhandledRejection', (err) => onInternal(err));
}

/**
 * The ending of hook mode (`dshpolicy hook <agent> [...]`): the agents read an exit code other than
 * 0 and 2 as "no opinion" and go ahead, so an unexpected error answers as the hook does for a
 * payload it cannot read: exit 2, which blocks where the event can block (cli/hook.ts `failClosed`
 * with no event), or 0 with `--fail-open`.
 */
export function hookCrashAnswer(argv: readonly string[], err: unknown): { stderr: string; exitCode: number } {
  const text = `dshpolicy: ${internalErrorText(err).trimEnd()}`;
  return argv.includes('--fail-open') ? { stderr: `${text} (failing open)\n`, exitCode: HOOK_ANSWERED } : { stderr: `${text}\n`, exitCode: HOOK_BLOCK };
}

/** `hookCrashAnswer` as the process's ending. */
export function hookCrashEnding(argv: readonly string[]): (err: unknown) => never {
  return (err) => {
    const answer = hookCrashAnswer(argv, err);
    return endWith(answer.stderr, answer.exitCode);
  };
}

/** Writes the text to stderr (if it still can) and exits with the status. */
export function endWith(text: string, code: number): never {
  try {
    process.stderr.write(text);
  } catch {
    // stderr is gone too: the status says it
  }
  process.exit(code);
}

/** Writes to a stream, waiting while it is full, so that a large output never piles up in memory. */
export function writeAll(stream: NodeJS.WritableStream, text: string): Promise<void> | undefined {
  if (stream.write(text)) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}
