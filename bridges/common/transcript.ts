/**
 * The machinery of the agents' session files, which are all JSON Lines appended to as a session
 * runs: Claude Code's transcripts (claude/transcript.ts) and Codex's rollouts (codex/rollout.ts)
 * are read with it, and the first lines of either (../transcript-head.ts) too.
 *
 * Its contract: the line readers (backward from the end within a byte budget, forward in chunks
 * with a cap on a line's length), the backward turn driver that reads the turn that is ending up
 * to its prompt, the forward driver that turns every line into items, and the types both give
 * (`TurnFacts`, `TranscriptItem`). What a line means is the agent's: its `TurnReader` classifies
 * a line for the backward read and its `ItemState` turns parsed lines into items, and its
 * `code` and `noun` name the file in every diagnostic. The readers never throw: problems are
 * diagnostics.
 *
 * It also declares what an agent's folder implements for the parts of its session files that are
 * not items: the reader of a file's first lines (`HeadReader`, asked by ../transcript-head.ts) and
 * the lines of a synthetic session (`SyntheticLines`, for tests and measurements).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { diagnostic, type Diagnostic, type ToolCall } from '../../engine/index.js';

// ---------------------------------------------------------------------------------------------
// Types

/** The facts of the turn that is ending, as a transcript tells them. */
export interface TurnFacts {
  /** The tool calls since the user's last prompt, in order (every call the model made, run or not). */
  turn: ToolCall[];
  /** The text of the last assistant message of the turn. */
  lastMessage?: string;
  diagnostics: Diagnostic[];
  /** Lines skipped as unreadable (not JSON, or not a JSON object). */
  skipped: number;
  /** The prompt that started the turn, when it was found. */
  prompt?: string;
  /** Forced continuations (blocking Stop hooks) since the prompt. */
  continuations: number;
  /** Bytes of the file read; the backward read stops at the turn's prompt. */
  bytesRead: number;
}

export interface ReadTurnOptions {
  /** How many bytes at most to read back from the end of the file. Default 64 MiB. */
  maxBytes?: number;
}

/** One event-worthy item of a whole transcript, in file order (`line` is 1-based). */
export type TranscriptItem =
  | { kind: 'prompt'; line: number; prompt: string }
  | { kind: 'tool-call'; line: number; id?: string; call: ToolCall }
  /** A tool's result; `call` is the call it answers when the call was seen earlier in the file. */
  | { kind: 'tool-result'; line: number; id?: string; call?: ToolCall; output?: string; isError?: boolean }
  /**
   * The agent stopping (a final assistant message with no tool call after it): what the `stop`
   * seam would see then. `continuations`: blocking Stop hooks since the prompt, before this stop.
   */
  | { kind: 'stop'; line: number; turn: ToolCall[]; lastMessage?: string; continuations: number }
  /** A blocking Stop hook made the agent continue; `reason` is what the agent was told. */
  | { kind: 'continuation'; line: number; reason: string }
  | { kind: 'diagnostic'; diagnostic: Diagnostic };

/** A tool-result item. */
export type ToolResultItem = Extract<TranscriptItem, { kind: 'tool-result' }>;

export interface IterateOptions {
  /** Lines longer than this are skipped unread. Default 64 MiB. */
  maxLineBytes?: number;
  /**
   * Parse every line, also those that cannot give an item (which are otherwise skipped unparsed
   * when they look whole, `{...}`, so one broken inside is not reported). Slower; the items are
   * the same.
   */
  readEveryLine?: boolean;
}

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const FIRST_CHUNK = 64 * 1024;
const MAX_CHUNK = 1024 * 1024;
const FORWARD_CHUNK = 256 * 1024;
const NEWLINE = 0x0a;

// ---------------------------------------------------------------------------------------------
// Line readers

/** A line of a JSONL file, without its newline. */
export interface RawLine {
  text: string;
  /** Byte offset of the line's start. */
  offset: number;
  /** No newline follows it: the last line of the file, possibly still being written. */
  unterminated: boolean;
  /** Too long to read (forward reader only); `text` is empty. */
  oversized?: boolean;
}

/** Byte accounting of a backward read. */
export interface ReadBudget {
  maxBytes: number;
  bytesRead: number;
  /** Set when the read stopped at `maxBytes` before the start of the file. */
  capped: boolean;
  /** Set when the file was shorter than its size said (truncated while being read). */
  shrunk: boolean;
}

/**
 * The lines of the first `size` bytes of a file, last to first, read in chunks from the end (64 KiB
 * growing to 1 MiB). Memory is one chunk plus the line being assembled; it reads no more than
 * `budget.maxBytes` (a line cut by the cap is not yielded). The text after the last newline comes
 * first, flagged `unterminated` (empty when the file ends with a newline).
 */
export async function* readLinesBackward(handle: FileHandle, size: number, budget: ReadBudget): AsyncGenerator<RawLine> {
  let pos = size;
  let chunk = FIRST_CHUNK;
  /** Pieces of the line being assembled, in file order. */
  let pending: Buffer[] = [];
  let first = true;
  while (pos > 0) {
    const want = Math.min(chunk, pos, budget.maxBytes - budget.bytesRead);
    if (want <= 0) {
      budget.capped = true;
      return;
    }
    const start = pos - want;
    const buf = Buffer.allocUnsafe(want);
    const got = await readFully(handle, buf, start);
    budget.bytesRead += got;
    if (got < want) {
      budget.shrunk = true;
      return;
    }
    pos = start;
    let end = want;
    for (let i = buf.lastIndexOf(NEWLINE, end - 1); i >= 0; i = end > 0 ? buf.lastIndexOf(NEWLINE, end - 1) : -1) {
      const piece = buf.subarray(i + 1, end);
      const line = pending.length === 0 ? piece : Buffer.concat([piece, ...pending]);
      pending = [];
      end = i;
      yield { text: line.toString('utf8'), offset: start + i + 1, unterminated: first };
      first = false;
    }
    if (end > 0) pending.unshift(buf.subarray(0, end));
    chunk = Math.min(chunk * 2, MAX_CHUNK);
  }
  yield { text: Buffer.concat(pending).toString('utf8'), offset: 0, unterminated: first };
}

async function readFully(handle: FileHandle, buf: Buffer, position: number): Promise<number> {
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await handle.read(buf, off, buf.length - off, position + off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off;
}

/**
 * The lines of a file, first to last, read in 256 KiB chunks and yielded one array per chunk (the
 * lines that end in it): constant memory apart from the chunk's lines and the line being
 * assembled, which is dropped (and yielded `oversized`) past `maxLineBytes`. One await per chunk,
 * not per line, so a caller can go through the lines of a chunk synchronously.
 */
export async function* readLineBatchesForward(handle: FileHandle, maxLineBytes: number): AsyncGenerator<RawLine[]> {
  // Two buffers: the next chunk is read while the lines of this one are made and used.
  const bufs = [Buffer.allocUnsafe(FORWARD_CHUNK), Buffer.allocUnsafe(FORWARD_CHUNK)] as const;
  let cur = 0;
  let pos = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversized = false;
  let lineStart = 0;
  let next: Promise<{ bytesRead: number }> | undefined = handle.read(bufs[0], 0, FORWARD_CHUNK, 0);
  try {
    for (;;) {
      const { bytesRead }: { bytesRead: number } = await next!;
      next = undefined;
      if (bytesRead === 0) break;
      const buf = bufs[cur]!;
      next = handle.read(bufs[cur ^ 1]!, 0, FORWARD_CHUNK, pos + bytesRead);
      const batch: RawLine[] = [];
      const data = bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
      let from = 0;
      for (let i = data.indexOf(NEWLINE); i >= 0; i = data.indexOf(NEWLINE, from)) {
        if (oversized || pendingBytes + (i - from) > maxLineBytes) {
          batch.push({ text: '', offset: lineStart, unterminated: false, oversized: true });
        } else if (pending.length === 0) {
          batch.push({ text: data.toString('utf8', from, i), offset: lineStart, unterminated: false });
        } else {
          batch.push({ text: Buffer.concat([...pending, data.subarray(from, i)]).toString('utf8'), offset: lineStart, unterminated: false });
        }
        pending = [];
        pendingBytes = 0;
        oversized = false;
        from = i + 1;
        lineStart = pos + i + 1;
      }
      if (from < bytesRead && !oversized) {
        pendingBytes += bytesRead - from;
        if (pendingBytes > maxLineBytes) {
          oversized = true;
          pending = [];
        } else {
          // Copied: the buffer is reused two chunks later.
          pending.push(Buffer.from(data.subarray(from, bytesRead)));
        }
      }
      pos += bytesRead;
      cur ^= 1;
      if (batch.length > 0) yield batch;
    }
  } finally {
    // A caller that stops early closes the file next: let the read in flight end first.
    if (next !== undefined) await next.catch(() => undefined);
  }
  if (oversized) yield [{ text: '', offset: lineStart, unterminated: true, oversized: true }];
  else if (pendingBytes > 0) yield [{ text: Buffer.concat(pending).toString('utf8'), offset: lineStart, unterminated: true }];
}

/** The lines of a file, first to last, one at a time (see readLineBatchesForward). */
export async function* readLinesForward(handle: FileHandle, maxLineBytes: number): AsyncGenerator<RawLine> {
  for await (const batch of readLineBatchesForward(handle, maxLineBytes)) yield* batch;
}

/** Parses one line: the object, `undefined` for a blank line, or `null` when unreadable. */
export function parseLine(text: string): Record<string, unknown> | undefined | null {
  // A line that starts with `{` is not blank; only the others need the whitespace check.
  if (text.charCodeAt(0) !== 0x7b && text.trim() === '') return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// The turn drivers

/** What one line means for the turn, as an agent's classifier reads it. */
export type LineFact =
  | { kind: 'prompt'; text: string }
  | { kind: 'continuation' }
  /** Assistant output: calls in order and/or text; `group` ties the lines of one API message. */
  | { kind: 'assistant'; calls: ToolCall[]; text?: string; group?: string }
  | { kind: 'ignore' };

/** How an agent's file is named in diagnostics, and how its lines are read. */
export interface TurnReader {
  /** Diagnostic code prefix, e.g. `claude/transcript`. */
  code: string;
  /** `transcript` or `rollout`. */
  noun: string;
  classify(value: Record<string, unknown>): LineFact;
}

/**
 * Reads a JSONL file backwards from its end until the turn's prompt, so the cost is the current
 * turn's size, not the file's. Never throws.
 */
export async function readTurnBackward(path: string, opts: ReadTurnOptions | undefined, reader: TurnReader): Promise<TurnFacts> {
  const facts: TurnFacts = { turn: [], diagnostics: [], skipped: 0, continuations: 0, bytesRead: 0 };
  const maxBytes = opts?.maxBytes !== undefined && Number.isFinite(opts.maxBytes) && opts.maxBytes > 0 ? Math.floor(opts.maxBytes) : DEFAULT_MAX_BYTES;
  const budget: ReadBudget = { maxBytes, bytesRead: 0, capped: false, shrunk: false };
  let handle: FileHandle | undefined;
  try {
    if (typeof path !== 'string' || path === '') {
      facts.diagnostics.push(diagnostic(`${reader.code}-missing`, 'warning', `no ${reader.noun} path was given`, { help: 'The turn is read as empty.' }));
      return facts;
    }
    try {
      handle = await open(path, 'r');
    } catch (error) {
      facts.diagnostics.push(openFailure(reader, path, error));
      return facts;
    }
    const size = (await handle.stat()).size;
    const reversed: ToolCall[] = [];
    let firstSkipped: number | undefined;
    let partial = false;
    let foundPrompt = false;
    let group: string | undefined;
    let collecting = false;
    for await (const line of readLinesBackward(handle, size, budget)) {
      const value = parseLine(line.text);
      if (value === undefined) continue;
      if (value === null) {
        if (line.unterminated) partial = true;
        else {
          facts.skipped++;
          firstSkipped = line.offset;
        }
        continue;
      }
      const fact = reader.classify(value);
      if (fact.kind === 'prompt') {
        facts.prompt = fact.text;
        foundPrompt = true;
        break;
      }
      if (fact.kind === 'continuation') facts.continuations++;
      if (fact.kind !== 'assistant') continue;
      for (let i = fact.calls.length - 1; i >= 0; i--) reversed.push(fact.calls[i]!);
      if (collecting && (fact.group === undefined || fact.group !== group)) collecting = false;
      if (fact.text === undefined) continue;
      if (facts.lastMessage === undefined) {
        facts.lastMessage = fact.text;
        group = fact.group;
        collecting = group !== undefined;
      } else if (collecting) {
        facts.lastMessage = `${fact.text}\n${facts.lastMessage}`;
      }
    }
    facts.turn = reversed.reverse();
    facts.bytesRead = budget.bytesRead;
    const where = `\`${path}\``;
    if (facts.skipped > 0) {
      facts.diagnostics.push(
        diagnostic(`${reader.code}-bad-lines`, 'warning', `skipped ${facts.skipped} unreadable line${facts.skipped === 1 ? '' : 's'} of ${reader.noun} ${where} (the earliest at byte ${firstSkipped ?? 0})`),
      );
    }
    if (partial) {
      facts.diagnostics.push(diagnostic(`${reader.code}-partial-line`, 'info', `the last line of ${reader.noun} ${where} is incomplete (still being written) and was ignored`));
    }
    if (budget.shrunk) {
      facts.diagnostics.push(diagnostic(`${reader.code}-shrunk`, 'warning', `${reader.noun} ${where} got shorter while it was read; the turn may be incomplete`));
    } else if (budget.capped && !foundPrompt) {
      facts.diagnostics.push(
        diagnostic(`${reader.code}-capped`, 'warning', `read the last ${budget.maxBytes} bytes of ${reader.noun} ${where} without reaching the turn's prompt; earlier calls of the turn are left out`, {
          help: 'Raise the read limit (`maxBytes`) to read further back.',
        }),
      );
    } else if (!foundPrompt) {
      facts.diagnostics.push(diagnostic(`${reader.code}-no-prompt`, 'info', `${reader.noun} ${where} has no user prompt; every call in it is taken as the turn's`));
    }
    return facts;
  } catch (error) {
    facts.bytesRead = budget.bytesRead;
    facts.diagnostics.push(diagnostic(`${reader.code}-unreadable`, 'error', `could not read ${reader.noun} \`${String(path)}\`: ${errorMessage(error)}`));
    return facts;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

export function openFailure(reader: Pick<TurnReader, 'code' | 'noun'>, path: string, error: unknown): Diagnostic {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') {
    return diagnostic(`${reader.code}-missing`, 'warning', `${reader.noun} \`${path}\` does not exist`, { help: 'The turn is read as empty.' });
  }
  return diagnostic(`${reader.code}-unreadable`, 'error', `could not open ${reader.noun} \`${path}\`: ${errorMessage(error)}`);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A parsed line of a forward read, or a problem with the file. */
export type ParsedEntry = { line: number; value: Record<string, unknown> } | { diagnostic: Diagnostic };

/** How a forward read names its file, and which lines it may leave unparsed. */
export interface ForwardReader extends Pick<TurnReader, 'code' | 'noun'> {
  /**
   * Matches every line that could give an item: one that does not, and looks whole (`{...}`), is
   * skipped unparsed (and so unchecked). It must match the raw text of every JSON token the items depend on (e.g. `"user"`),
   * and a `\u` escape, since an escaped token has other raw text.
   */
  relevant?: RegExp;
}

/**
 * Opens a file and yields its parsed lines first to last (1-based `line`), one array per chunk
 * read, then a diagnostic for the unreadable ones. Shared by the forward iterators; never throws.
 */
export async function* parsedLineBatchesForward(path: string, opts: IterateOptions | undefined, reader: ForwardReader): AsyncGenerator<ParsedEntry[]> {
  const maxLineBytes = opts?.maxLineBytes !== undefined && Number.isFinite(opts.maxLineBytes) && opts.maxLineBytes > 0 ? opts.maxLineBytes : DEFAULT_MAX_BYTES;
  let handle: FileHandle | undefined;
  try {
    try {
      handle = await open(path, 'r');
    } catch (error) {
      yield [{ diagnostic: openFailure(reader, path, error) }];
      return;
    }
    let line = 0;
    let skipped = 0;
    let firstSkipped = 0;
    let partial = false;
    const relevant = opts?.readEveryLine === true ? undefined : reader.relevant;
    for await (const raws of readLineBatchesForward(handle, maxLineBytes)) {
      const batch: ParsedEntry[] = [];
      for (const raw of raws) {
        line++;
        // A line that cannot give an item is not parsed when it looks whole (`{...}`); a cut or
        // garbled one still is, so that it is counted, and so is a last line still being written.
        if (relevant !== undefined && !raw.unterminated && raw.oversized !== true && looksWhole(raw.text) && !relevant.test(raw.text)) continue;
        const value = raw.oversized === true ? null : parseLine(raw.text);
        if (value === undefined) continue;
        if (value === null) {
          if (raw.unterminated && raw.oversized !== true) partial = true;
          else {
            if (skipped === 0) firstSkipped = line;
            skipped++;
          }
          continue;
        }
        batch.push({ line, value });
      }
      if (batch.length > 0) yield batch;
    }
    const end: ParsedEntry[] = [];
    if (skipped > 0) {
      end.push({
        diagnostic: diagnostic(`${reader.code}-bad-lines`, 'warning', `skipped ${skipped} unreadable line${skipped === 1 ? '' : 's'} of ${reader.noun} \`${path}\` (the first is line ${firstSkipped})`),
      });
    }
    if (partial) {
      end.push({ diagnostic: diagnostic(`${reader.code}-partial-line`, 'info', `the last line of ${reader.noun} \`${path}\` is incomplete (still being written) and was ignored`) });
    }
    if (end.length > 0) yield end;
  } catch (error) {
    yield [{ diagnostic: diagnostic(`${reader.code}-unreadable`, 'error', `could not read ${reader.noun} \`${path}\`: ${errorMessage(error)}`) }];
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** What turns an agent's parsed lines into items, line by line (ClaudeItems, CodexItems). */
export interface ItemState {
  take(entry: ParsedEntry, out: TranscriptItem[]): void;
  /** Appends what is still waiting at the end of the file. */
  flush(out: TranscriptItem[]): void;
}

/**
 * The items of a file, in batches (one per chunk read, so a caller goes through a batch without
 * awaiting): its lines parsed forward and given to `state`. Shared by the forward iterators.
 */
export async function* itemBatchesForward(path: string, opts: IterateOptions | undefined, reader: ForwardReader, state: ItemState): AsyncGenerator<TranscriptItem[], void, undefined> {
  for await (const batch of parsedLineBatchesForward(path, opts, reader)) {
    const items: TranscriptItem[] = [];
    for (const entry of batch) state.take(entry, items);
    if (items.length > 0) yield items;
  }
  const last: TranscriptItem[] = [];
  state.flush(last);
  if (last.length > 0) yield last;
}

/** Starts with `{` and ends with `}`: what a line that JSON.stringify wrote looks like. */
function looksWhole(text: string): boolean {
  return text.charCodeAt(0) === 0x7b && text.charCodeAt(text.length - 1) === 0x7d;
}

/** Remembers calls by id until their results come, bounded so a file of unanswered calls stays cheap. */
export class PendingCalls {
  private readonly calls = new Map<string, ToolCall>();
  constructor(private readonly limit = 10_000) {}
  add(id: string | undefined, call: ToolCall): void {
    if (id === undefined) return;
    this.calls.set(id, call);
    if (this.calls.size > this.limit) {
      const oldest = this.calls.keys().next();
      if (oldest.done !== true) this.calls.delete(oldest.value);
    }
  }
  take(id: string | undefined): ToolCall | undefined {
    if (id === undefined) return undefined;
    const call = this.calls.get(id);
    this.calls.delete(id);
    return call;
  }
}

// ---------------------------------------------------------------------------------------------
// The head of a file: which agent wrote it, and its session facts

/** How sure one agent's head reader is that a line is its agent's: `sure` when no other agent writes such a line. */
export type HeadVerdict = 'sure' | 'maybe' | undefined;

/** What the first lines of a session file say about the session. */
export interface SessionFacts {
  session?: string;
  cwd?: string;
  permissionMode?: string;
  /** Every main line seen belongs to a subagent (a sidechain transcript), which gives no events. */
  sidechain: boolean;
}

/**
 * One agent's reading of the first lines of a file, one per file: it is given every parsed line in
 * order (until the head ends or the file's agent is known and `complete()` says so), says for each
 * whether it is its agent's, and keeps the session facts its agent's lines carry.
 */
export interface HeadReader {
  line(value: Record<string, unknown>): HeadVerdict;
  /** The facts of the lines read so far. */
  facts(): SessionFacts;
  /** Whether every fact it looks for is found: reading further changes nothing. */
  complete(): boolean;
}

// ---------------------------------------------------------------------------------------------
// Synthetic sessions (tests and measurements)

/** The session a synthetic file records. */
export interface SyntheticSession {
  session: string;
  cwd: string;
}

/** One turn of a synthetic session: a prompt, Bash calls with their results, a final message. */
export interface SyntheticTurn {
  /** 0-based. */
  index: number;
  prompt: string;
  calls: readonly { id: string; command: string; output: string }[];
  lastMessage: string;
}

/** The lines (as JSON values) an agent writes for a synthetic session. */
export interface SyntheticLines {
  /** Before the first turn. */
  start(session: SyntheticSession): unknown[];
  /** One whole turn. */
  turn(turn: SyntheticTurn, session: SyntheticSession): unknown[];
}
