/**
 * `dshpolicy fmt [--check] <files...> | -`: rewrite policy files in their canonical layout
 * (`dsl/format.ts`), comments kept. A file with syntax errors is left as it is and its errors are
 * reported; a file is written only when it changes, through a temporary file renamed over it.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';
import { parseArgs } from 'node:util';
import { diagnostic, type Diagnostic } from '../engine/index.js';
import { decodeSource, formatPolicy } from '../dsl/index.js';
import { format, guard, UsageError, type Io } from './args.js';
import { diffLines } from './diff.js';
import { FAILED, OK } from './exit-codes.js';
import { PLAIN, renderDiagnostic, SourceCache, styleFor, type Style } from './render.js';
import { terminalSafe } from './untrusted.js';

export const FMT_HELP = `usage: dshpolicy fmt [--check] [--format human|json] <file.dshpolicy>...
       dshpolicy fmt [--check] [--format human|json] -

Rewrites policy files in the canonical layout (docs/language.md, "Canonical layout"), comments
kept; a file is written only when it changes. A file with syntax errors, or that is not UTF-8, is
left as it is and its errors are reported. With -, the policy is read on stdin and printed formatted on stdout.
  --check          change nothing: list the files that would change, each with the start of a diff
  --format json    print {"ok", "files": [{"file", "changed", "diagnostics"}]} (with -, also "text")
Exits 0 when every file is formatted (with --check: was already formatted), 1 when a file has
syntax errors or invalid UTF-8, cannot be read or written, or (with --check) would change.`;

/** The name stdin goes by in diagnostics and output. */
const STDIN = '<stdin>';
/** At most this many lines of diff are shown per file with --check. */
const DIFF_LINES = 30;

interface FileResult {
  file: string;
  changed: boolean;
  diagnostics: Diagnostic[];
  /** The formatted text, for stdin. */
  text?: string;
  /** The text as read, for the diff. */
  before?: string;
}

export async function fmtCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = guard(() =>
    parseArgs({
      args: argv,
      options: { check: { type: 'boolean' }, format: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    }),
  );
  if (values.help) {
    io.stdout.write(`${FMT_HELP}\n`);
    return OK;
  }
  const fmt = format(values.format, ['human', 'json'], 'human');
  const check = values.check === true;
  if (positionals.length === 0) throw new UsageError('name the policy files to format, or `-` to read one on stdin');
  const stdin = positionals.includes('-');
  if (stdin && positionals.length > 1) throw new UsageError('`-` (stdin) cannot be given with other files');

  const sources = new SourceCache();
  const results: FileResult[] = [];
  if (stdin) {
    const { text, diagnostic: notUtf8 } = decodeSource(await readAll(io.stdin), STDIN);
    sources.set(STDIN, text);
    results.push(notUtf8 ? { file: STDIN, changed: false, diagnostics: [notUtf8] } : formatOne(STDIN, text, check, undefined));
  } else {
    for (const path of positionals) {
      const name = normalize(path);
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch (err) {
        results.push({ file: name, changed: false, diagnostics: [cliError('cli/unreadable', `cannot read \`${name}\`: ${reason(err)}`)] });
        continue;
      }
      // Bytes that are not UTF-8 would be written back as U+FFFD: such a file is not touched.
      const { text, diagnostic: notUtf8 } = decodeSource(bytes, name);
      sources.set(name, text);
      results.push(notUtf8 ? { file: name, changed: false, diagnostics: [notUtf8] } : formatOne(name, text, check, path));
    }
  }

  const failed = results.some((r) => r.diagnostics.some((d) => d.severity === 'error') || (check && r.changed));
  if (fmt === 'json') {
    const files = results.map((r) => ({ file: r.file, changed: r.changed, diagnostics: r.diagnostics, ...(stdin && r.text !== undefined ? { text: r.text } : {}) }));
    io.stdout.write(`${JSON.stringify({ ok: !failed, files })}\n`);
    return failed ? FAILED : OK;
  }

  const errStyle = io.stderr === process.stderr ? styleFor(process.stderr) : PLAIN;
  const outStyle = io.stdout === process.stdout ? styleFor(process.stdout) : PLAIN;
  for (const r of results) for (const d of r.diagnostics) io.stderr.write(`${renderDiagnostic(d, sources, errStyle)}\n\n`);
  if (stdin && !check) {
    const r = results[0] as FileResult;
    if (r.text !== undefined) io.stdout.write(r.text);
    return failed ? FAILED : OK;
  }
  for (const r of results) {
    if (!r.changed) continue;
    if (check) {
      io.stdout.write(`${outStyle.bold(terminalSafe(r.file))}: not formatted\n${checkDiff(r.before ?? '', r.text ?? '', r.file, outStyle)}\n`);
    } else if (r.diagnostics.length === 0) {
      io.stdout.write(`formatted ${terminalSafe(r.file)}\n`);
    }
  }
  if (check) {
    const changed = results.filter((r) => r.changed).length;
    const broken = results.filter((r) => r.diagnostics.length > 0).length;
    const said = [
      changed > 0 ? `${changed} file${changed === 1 ? '' : 's'} would be reformatted` : '',
      broken > 0 ? `${broken} file${broken === 1 ? '' : 's'} could not be formatted` : '',
    ].filter((s) => s !== '');
    const n = results.length;
    io.stdout.write(said.length > 0 ? `${outStyle.red('failed')}: ${said.join(', ')}\n` : `${outStyle.green('ok')}: ${n} file${n === 1 ? '' : 's'} formatted\n`);
  }
  return failed ? FAILED : OK;
}

/** Formats one text; writes it back to `path` (when given, changed and not checking). */
function formatOne(file: string, text: string, check: boolean, path: string | undefined): FileResult {
  const r = formatPolicy(text, file);
  if (!r.ok) return { file, changed: false, diagnostics: r.diagnostics };
  const out: FileResult = { file, changed: r.changed, diagnostics: [], before: text, text: r.text };
  if (path !== undefined && r.changed && !check) {
    try {
      writeAtomically(path, r.text);
    } catch (err) {
      out.diagnostics.push(cliError('cli/unwritable', `cannot write \`${file}\`: ${reason(err)}`));
    }
  }
  return out;
}

function cliError(code: string, message: string): Diagnostic {
  return diagnostic(code, 'error', message);
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'it is a directory' : e.code === 'EACCES' ? 'permission denied' : (e.message ?? String(err));
}

/** The stream's bytes, decoded only once whole (a character may span two chunks). */
async function readAll(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  return Buffer.concat(chunks);
}

/**
 * Replaces a file's content at once: the text goes to a temporary file beside it (with its mode),
 * which is then renamed over it, so a reader never sees half a file. A symbolic link is followed:
 * the file it points to is replaced, the link stays.
 */
export function writeAtomically(path: string, text: string): void {
  const target = realpathSync(path);
  const mode = statSync(target).mode & 0o7777;
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: 'wx', mode });
    chmodSync(tmp, mode);
    renameSync(tmp, target);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // it was never made, or is already gone
    }
    throw err;
  }
}

// ---------------------------------------------------------------- diff

/**
 * The start of a unified diff from `before` to `after` (diff.ts: 3 lines of context), at most
 * `maxLines` lines of hunks, their headers included. Line breaks are compared as `\n`; when they
 * (or a byte-order mark) are all that changed, says so. Lines are escaped as lines of a file
 * (untrusted.ts): a policy under review may hide a bidi override or a terminal escape in them.
 */
export function checkDiff(before: string, after: string, file: string, style: Style = PLAIN, maxLines = DIFF_LINES): string {
  const normal = before.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const name = terminalSafe(file);
  const head = [style.red(`--- ${name}`), style.green(`+++ ${name} (formatted)`)];
  if (normal === after) return [...head, '(only line breaks or the byte-order mark change: the file is written with \\n line breaks and no byte-order mark)'].join('\n');
  const out: string[] = [];
  let shown = 0;
  for (const line of diffLines(normal, after)) {
    // a hunk starts only with room for its header and some of its lines
    if (line.startsWith('@@') ? shown + 4 > maxLines : shown >= maxLines) {
      out.push(style.dim('...'));
      break;
    }
    shown++;
    const safe = terminalSafe(line, 'block');
    out.push(line.startsWith('@@') ? style.cyan(safe) : line.startsWith('-') ? style.red(safe) : line.startsWith('+') ? style.green(safe) : line.startsWith('\\') ? style.dim(safe) : safe);
  }
  return [...head, ...out].join('\n');
}
