/**
 * Reads Claude Code session transcripts (`~/.claude/projects/<dir>/<session>.jsonl`, the hook
 * payload's `transcript_path`) for the facts of the `stop` seam: the tool calls made since the
 * user's last prompt and the last assistant message.
 *
 * The file is JSON Lines, appended to as the session runs. What marks what (seen on Claude Code
 * 2.1.328; fixtures in testdata/transcripts/, made as testdata/README.md says):
 *
 * - a real prompt is a `type: "user"` line whose `message.content` is a string (or text blocks)
 *   and which is not `isMeta`, not `isCompactSummary`, not a sidechain and carries no
 *   `tool_result` block (tool results come back as user lines too);
 * - a tool call is a `tool_use` block (`name`, `input`) of an `assistant` line; one API message is
 *   written as one line per content block, the lines sharing `message.id`;
 * - a Stop hook that blocks adds an `isMeta` user line `Stop hook feedback:\n<reason>` with the
 *   same `promptId`: the continuation belongs to the same turn, it is not a new prompt;
 * - everything else (`attachment`, `system`, `queue-operation`, `last-prompt`, `api-request*`,
 *   `summary`, `file-history-snapshot`, ...) carries nothing the stop seam reads.
 *
 * The readers here never throw: problems are diagnostics.
 *
 * The line machinery (backward and forward readers, the turn driver, the item and facts types) is
 * shared with the Codex rollout reader in ../codex/rollout.ts.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { diagnostic, type Diagnostic, type ToolCall } from '../../engine/index.js';

// ---------------------------------------------------------------------------------------------
// Shared types

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
// Line readers (shared)

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
// The backward turn driver (shared)

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
// Claude Code

const CLAUDE: TurnReader = { code: 'claude/transcript', noun: 'transcript', classify: classifyClaude };

/** User lines that are not prompts to the model even though they carry text. */
const NOT_A_PROMPT = /^(\[Request interrupted by user|<local-command-(stdout|stderr|caveat)>|<bash-(input|stdout|stderr)>)/;
const STOP_FEEDBACK = 'Stop hook feedback:';

/**
 * The facts of the turn that is ending in a Claude Code transcript: the tool calls since the last
 * real prompt (a blocking Stop hook's continuation stays in the same turn) and the last assistant
 * text. Reads backwards from the end, at most `maxBytes` (default 64 MiB). Never throws.
 */
export function readClaudeTurn(path: string, opts?: ReadTurnOptions): Promise<TurnFacts> {
  return readTurnBackward(path, opts, CLAUDE);
}

function classifyClaude(value: Record<string, unknown>): LineFact {
  if (value['isSidechain'] === true) return { kind: 'ignore' };
  if (value['type'] === 'user') {
    if (stopFeedback(value) !== undefined) return { kind: 'continuation' };
    const prompt = claudePrompt(value);
    return prompt !== undefined ? { kind: 'prompt', text: prompt } : { kind: 'ignore' };
  }
  if (value['type'] === 'assistant' && value['isApiErrorMessage'] !== true) {
    const message = isObject(value['message']) ? value['message'] : {};
    const { calls, text } = assistantContent(message['content']);
    const id = message['id'];
    return { kind: 'assistant', calls: calls.map((c) => c.call), ...(text !== undefined ? { text } : {}), ...(typeof id === 'string' ? { group: id } : {}) };
  }
  return { kind: 'ignore' };
}

/** The prompt of a user line that is a real prompt, else undefined. */
function claudePrompt(value: Record<string, unknown>): string | undefined {
  if (value['isMeta'] === true || value['isCompactSummary'] === true || value['isVisibleInTranscriptOnly'] === true) return undefined;
  if (value['toolUseResult'] !== undefined) return undefined;
  const message = value['message'];
  if (!isObject(message)) return undefined;
  const content = message['content'];
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const texts: string[] = [];
    let other = false;
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block['type'] === 'tool_result') return undefined;
      if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
      else other = true; // an image or a document: still the user's
    }
    if (texts.length === 0 && !other) return undefined;
    text = texts.join('\n');
  } else return undefined;
  return NOT_A_PROMPT.test(text) ? undefined : text;
}

/** The reason of a blocking Stop hook's feedback line (`isMeta` in 2.1.328; not required), else undefined. */
function stopFeedback(value: Record<string, unknown>): string | undefined {
  if (value['toolUseResult'] !== undefined) return undefined;
  const message = value['message'];
  if (!isObject(message)) return undefined;
  const content = message['content'];
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((b) => (isObject(b) && typeof b['text'] === 'string' ? b['text'] : '')).join('')
        : '';
  return text.startsWith(STOP_FEEDBACK) ? text.slice(STOP_FEEDBACK.length).replace(/^\n/, '') : undefined;
}

function assistantContent(content: unknown): { calls: { id?: string; call: ToolCall }[]; text?: string } {
  const calls: { id?: string; call: ToolCall }[] = [];
  const texts: string[] = [];
  if (typeof content === 'string') return content === '' ? { calls } : { calls, text: content };
  if (!Array.isArray(content)) return { calls };
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block['type'] === 'tool_use' && typeof block['name'] === 'string') {
      const input = isObject(block['input']) ? block['input'] : {};
      const id = typeof block['id'] === 'string' ? block['id'] : undefined;
      calls.push({ ...(id !== undefined ? { id } : {}), call: { tool: block['name'], input } });
    } else if (block['type'] === 'text' && typeof block['text'] === 'string') {
      texts.push(block['text']);
    }
  }
  return texts.length > 0 ? { calls, text: texts.join('\n') } : { calls };
}

function toolResultText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .filter((b): b is Record<string, unknown> => isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string')
    .map((b) => b['text'] as string)
    .join('\n');
}

/**
 * Turns a Claude Code transcript's parsed lines into items, line by line, synchronously: the state
 * of the forward iterator (open calls, the turn's calls, the stop that may end it).
 */
class ClaudeItems implements ItemState {
  private readonly pending = new PendingCalls();
  private turn: ToolCall[] = [];
  private continuations = 0;
  /** The last assistant text that could end the turn, until a tool call or the next user line decides. */
  private stop: { line: number; text?: string; group?: string } | undefined;

  /** Appends the stop that is waiting, if any. */
  flush(out: TranscriptItem[]): void {
    const stop = this.stop;
    if (stop === undefined) return;
    out.push(
      stop.text !== undefined
        ? { kind: 'stop', line: stop.line, turn: this.turn.slice(), lastMessage: stop.text, continuations: this.continuations }
        : { kind: 'stop', line: stop.line, turn: this.turn.slice(), continuations: this.continuations },
    );
    this.stop = undefined;
  }

  /** Appends the items of one entry. */
  take(entry: ParsedEntry, out: TranscriptItem[]): void {
    if ('diagnostic' in entry) {
      this.flush(out);
      out.push({ kind: 'diagnostic', diagnostic: entry.diagnostic });
      return;
    }
    const { line, value } = entry;
    if (value['isSidechain'] === true) return;
    const type = value['type'];
    if (type === 'user') {
      const reason = stopFeedback(value);
      if (reason !== undefined) {
        this.flush(out);
        this.continuations++;
        out.push({ kind: 'continuation', line, reason });
        return;
      }
      const prompt = claudePrompt(value);
      if (prompt !== undefined) {
        this.flush(out);
        this.turn = [];
        this.continuations = 0;
        out.push({ kind: 'prompt', line, prompt });
        return;
      }
      const message = value['message'];
      const content = isObject(message) ? message['content'] : undefined;
      if (!Array.isArray(content)) return;
      for (const block of content) {
        if (!isObject(block) || block['type'] !== 'tool_result') continue;
        const id = typeof block['tool_use_id'] === 'string' ? block['tool_use_id'] : undefined;
        const call = this.pending.take(id);
        const output = toolResultText(block['content']);
        const item: ToolResultItem = { kind: 'tool-result', line };
        if (id !== undefined) item.id = id;
        if (call !== undefined) item.call = call;
        if (output !== undefined) item.output = output;
        if (typeof block['is_error'] === 'boolean') item.isError = block['is_error'];
        out.push(item);
      }
      return;
    }
    if (type === 'assistant' && value['isApiErrorMessage'] !== true) {
      const message = isObject(value['message']) ? value['message'] : {};
      const { calls, text } = assistantContent(message['content']);
      const group = typeof message['id'] === 'string' ? message['id'] : undefined;
      for (const { id, call } of calls) {
        this.turn.push(call);
        this.pending.add(id, call);
        out.push(id !== undefined ? { kind: 'tool-call', line, id, call } : { kind: 'tool-call', line, call });
      }
      if (calls.length > 0 || message['stop_reason'] === 'tool_use') {
        this.stop = undefined;
      } else if (text !== undefined) {
        const stop = this.stop;
        const joined = stop !== undefined && group !== undefined && stop.group === group && stop.text !== undefined ? `${stop.text}\n${text}` : text;
        this.stop = group !== undefined ? { line, text: joined, group } : { line, text: joined };
      }
      return;
    }
    if (type === 'system' && (value['subtype'] === 'stop_hook_summary' || value['subtype'] === 'turn_duration')) this.flush(out);
  }
}

/**
 * Lines of a Claude Code transcript that could give an item: the items come from lines whose
 * `type` is `user`, `assistant` or `system`, so a line where no `"type"` key has one of those
 * values (whatever the spaces around the colon), and without a `\u` escape that could spell one,
 * is skipped unparsed: attachments (often the biggest lines, and many say `"user"` elsewhere),
 * queue operations, API requests, cost and prompt bookkeeping.
 */
const CLAUDE_FORWARD: ForwardReader = { code: CLAUDE.code, noun: CLAUDE.noun, relevant: /"type"\s*:\s*"(?:user|assistant|system)"|\\u/ };

/**
 * Every event-worthy item of a whole Claude Code transcript, first to last: prompts, tool calls,
 * tool results (with the call they answer), stops and Stop-hook continuations, in batches (one per
 * chunk of the file read, so a caller goes through a batch without awaiting). Reads forward with
 * constant memory (plus the open calls and the current turn's calls). Never throws: problems are
 * `diagnostic` items, the last ones yielded.
 */
export function claudeTranscriptBatches(path: string, opts?: IterateOptions): AsyncGenerator<TranscriptItem[], void, undefined> {
  return itemBatchesForward(path, opts, CLAUDE_FORWARD, new ClaudeItems());
}

/** The items of `claudeTranscriptBatches`, one at a time. */
export async function* iterateClaudeTranscript(path: string, opts?: IterateOptions): AsyncGenerator<TranscriptItem, void, undefined> {
  for await (const batch of claudeTranscriptBatches(path, opts)) yield* batch;
}
