/**
 * Fixture files: JSONL, one event per line (a seam's event, an agent event, or a raw hook payload),
 * as `eval`, `explain` and `test` read them.
 *
 * Promises: reading never throws on what a line says. A blank line is passed over; a line that is
 * not JSON, or longer than MAX_FIXTURE_LINE, comes back as diagnostics at that line, and the lines
 * after it are still read. Only a file that cannot be read at all (missing, a directory, an I/O
 * error) ends the reading, with a FixtureReadError. Every diagnostic's span names the file and the
 * line (1-based) it came from, and offsets count from the start of the file.
 */
import { createReadStream } from 'node:fs';
import type { CompiledPolicy } from '../compile.js';
import { diagnostic, type Diagnostic, type Span } from '../diagnostics.js';
import type { EvaluateOptions } from '../evaluate.js';
import { evaluateAny, type AnyDecision } from '../evaluate-agent.js';
import type { AnyEvent } from '../events.js';
import { normalizeAnyEvent } from '../normalize.js';
import { lazyRequire } from '../require.js';

/** Longest fixture line read (characters); a longer line is reported, not parsed. */
export const MAX_FIXTURE_LINE = 10 * 1024 * 1024;

/** Where `-` reads from: the given stream, else the process's standard input. */
export interface FixtureInput {
  stdin?: NodeJS.ReadableStream;
}

/** One non-blank line of a fixture file: its parsed JSON value, or why it could not be parsed. */
export interface FixtureItem {
  /** 1-based line number. */
  line: number;
  /** Offset of the line's first character from the start of the file. */
  offset: number;
  value?: unknown;
  errors?: Diagnostic[];
}

/** The fixture file itself could not be read (as opposed to one bad line in it). */
export class FixtureReadError extends Error {}

/**
 * The lines of a fixture file (`-`: standard input), in order. Throws FixtureReadError, after the
 * lines read so far, when the file cannot be read; never for what a line contains.
 */
export async function* readFixtures(file: string, input: FixtureInput = {}): AsyncGenerator<FixtureItem> {
  const stream = file === '-' ? (input.stdin ?? process.stdin) : createReadStream(file, { encoding: 'utf8' });
  // loaded on first use: a hook process, which never reads fixtures, does not pay for it at start-up
  const { createInterface } = lazyRequire('node:readline') as typeof import('node:readline');
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  let next = 0;
  try {
    for await (const text of rl) {
      n++;
      const lineStart = next;
      next += text.length + 1;
      if (text.trim() === '') continue;
      const span = (col: number): Span => ({
        file,
        start: { line: n, column: col, offset: lineStart + col - 1 },
        end: { line: n, column: col + 1, offset: lineStart + col },
      });
      if (text.length > MAX_FIXTURE_LINE) {
        yield { line: n, offset: lineStart, errors: [diagnostic('fixture/too-long', 'error', `line is longer than ${MAX_FIXTURE_LINE} characters`, { span: span(1) })] };
        continue;
      }
      try {
        yield { line: n, offset: lineStart, value: JSON.parse(text) };
      } catch (err) {
        const msg = (err as Error).message;
        const at = /position (\d+)/.exec(msg);
        const col = at ? Number(at[1]) + 1 : 1;
        yield {
          line: n,
          offset: lineStart,
          errors: [diagnostic('fixture/json', 'error', `not valid JSON: ${msg.replace(/^./, (c) => c.toLowerCase()).replace(/\.$/, '')}`, { span: span(col) })],
        };
      }
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new FixtureReadError(`cannot read fixtures \`${file}\`: ${code ?? (err as Error).message}`);
  }
}

/** The span of a whole fixture line, for a diagnostic about the line rather than a place in it. */
export function fixtureLineSpan(file: string, line: number, offset: number): Span {
  return { file, start: { line, column: 1, offset }, end: { line, column: 2, offset: offset + 1 } };
}

/**
 * The event a parsed fixture line stands for, or why it is none: the reader's diagnostics, or the
 * normalizer's, placed at the line of `file`.
 */
export function fixtureEvent(file: string, item: FixtureItem): { event: AnyEvent; errors?: undefined } | { event?: undefined; errors: Diagnostic[] } {
  if (item.errors) return { errors: item.errors };
  const norm = normalizeAnyEvent(item.value, '');
  if (norm.event) return { event: norm.event };
  const span = fixtureLineSpan(file, item.line, item.offset);
  return { errors: norm.diagnostics.map((d) => ({ ...d, span })) };
}

/** One fixture line, evaluated: the event and its decision, or the errors that kept it from running. */
export interface FixtureResult {
  line: number;
  event?: AnyEvent;
  decision?: AnyDecision;
  errors?: Diagnostic[];
}

export interface EvaluateFixturesOptions extends EvaluateOptions, FixtureInput {}

/**
 * Evaluates every event of a fixture file against the policy, yielding one result per non-blank
 * line as it is decided (so output can stream). A line that cannot be read or is not an event
 * yields its errors and the next lines still run; hooks run through `opts.runner` as in
 * evaluateAny. Throws FixtureReadError when the file cannot be read, like readFixtures.
 */
export async function* evaluateFixtures(policy: CompiledPolicy, file: string, opts: EvaluateFixturesOptions = {}): AsyncGenerator<FixtureResult> {
  const { stdin, ...evaluate } = opts;
  for await (const item of readFixtures(file, { stdin })) {
    const read = fixtureEvent(file, item);
    if (read.errors) {
      yield { line: item.line, errors: read.errors };
      continue;
    }
    yield { line: item.line, event: read.event, decision: await evaluateAny(policy, read.event, evaluate) };
  }
}
