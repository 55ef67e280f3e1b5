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
 * The line machinery (backward and forward readers, the turn drivers, the item and facts types) is
 * shared with the Codex rollout reader, in ../common/transcript.ts.
 */
import type { ToolCall } from '../../engine/index.js';
import {
  isObject,
  itemBatchesForward,
  PendingCalls,
  readTurnBackward,
  type ForwardReader,
  type ItemState,
  type IterateOptions,
  type LineFact,
  type ParsedEntry,
  type ReadTurnOptions,
  type ToolResultItem,
  type TranscriptItem,
  type TurnFacts,
  type TurnReader,
} from '../common/transcript.js';

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
