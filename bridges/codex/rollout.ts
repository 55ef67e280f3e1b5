/**
 * Reads Codex rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session>.jsonl`, the hook
 * payload's `transcript_path`) for the facts of the `stop` seam: the tool calls made since the
 * user's last prompt, named and shaped as Codex's hooks see them, and the last assistant message.
 *
 * One JSON object per line, `{timestamp, type, payload}` (older rollouts: the item itself, no
 * wrapper). What marks what (seen on Codex 0.171.0; fixtures in testdata/rollouts/, made as
 * testdata/README.md says):
 *
 * - `response_item` lines carry the model history: `message` (role `user` / `assistant` /
 *   `developer`), `function_call` {name, namespace?, arguments: JSON text, call_id},
 *   `custom_tool_call` {name, input, call_id} (apply_patch), `function_call_output`,
 *   `custom_tool_call_output`, `reasoning`, `local_shell_call`, `web_search_call`;
 * - a real prompt is a `user` message whose content metadata says `provenance.type: "user"`;
 *   Codex also writes `user` messages of its own (`<environment_context>`, and a blocking Stop
 *   hook's `<hook_prompt hook_run_id=...>reason</hook_prompt>`), with `provenance.type: "harness"`.
 *   Rollouts without that metadata are told apart by those tags. `event_msg` `item_completed`
 *   {item: {type: "UserMessage"}} (older: `event_msg` `user_message`) marks a prompt too;
 * - a Stop hook continuation stays in the same turn (same `turn_id`, no new `task_started`); the
 *   turn ends with `event_msg` `task_complete` {last_agent_message}, written after the Stop hooks;
 * - everything else (`session_meta`, `turn_context`, `world_state`, `token_usage_record`, other
 *   `event_msg`s, `compacted`, ...) carries nothing the stop seam reads.
 *
 * Tool names and inputs as Codex's PreToolUse hooks get them: `exec_command` {cmd} and
 * `shell_command` {command} → `Bash` {command}; `shell` / `local_shell_call` argv arrays → `Bash`
 * {command: the argv joined shell-quoted}; `apply_patch` → `apply_patch` {command: the patch};
 * an MCP call (`namespace: "mcp__<server>"`, `name: <tool>`) → `mcp__<server>__<tool>` with its
 * arguments; any other function → its name with its parsed arguments.
 *
 * The readers here never throw: problems are diagnostics.
 */
import type { ToolCall } from '../../engine/index.js';
import {
  isObject,
  itemBatchesForward,
  PendingCalls,
  readTurnBackward,
  type IterateOptions,
  type LineFact,
  type ForwardReader,
  type ItemState,
  type ParsedEntry,
  type ReadTurnOptions,
  type ToolResultItem,
  type TranscriptItem,
  type TurnFacts,
  type TurnReader,
} from '../common/transcript.js';

const CODEX: TurnReader = { code: 'codex/rollout', noun: 'rollout', classify: classifyCodex };

/** Item types that older rollouts wrote bare, one per line, with no `response_item` wrapper. */
const BARE_ITEMS = new Set(['message', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'function_call_output', 'custom_tool_call_output', 'reasoning']);

/** Codex's own user-role messages, for rollouts without provenance metadata. */
const HARNESS_TEXT = /^\s*(<(environment_context|user_instructions|hook_prompt|turn_aborted|user_shell_command|subagent_notification|skill|permissions instructions|collaboration_mode|apps_instructions)\b|<INSTRUCTIONS>|# AGENTS\.md instructions)/;
const HOOK_PROMPT = /<hook_prompt\b[^>]*>([\s\S]*?)<\/hook_prompt>/g;

/**
 * The facts of the turn that is ending in a Codex rollout: the tool calls since the last real
 * prompt (a blocking Stop hook's continuation stays in the same turn), mapped to the names and
 * inputs Codex's hooks see, and the last assistant text. Reads backwards from the end, at most
 * `maxBytes` (default 64 MiB). Never throws.
 */
export function readCodexTurn(path: string, opts?: ReadTurnOptions): Promise<TurnFacts> {
  return readTurnBackward(path, opts, CODEX);
}

/** The response item a line carries, if any. */
function responseItem(value: Record<string, unknown>): Record<string, unknown> | undefined {
  if (value['type'] === 'response_item') return isObject(value['payload']) ? value['payload'] : undefined;
  if (typeof value['type'] === 'string' && BARE_ITEMS.has(value['type']) && value['payload'] === undefined) return value;
  return undefined;
}

function classifyCodex(value: Record<string, unknown>): LineFact {
  const item = responseItem(value);
  if (item !== undefined) {
    if (item['type'] === 'message') {
      if (item['role'] === 'user') {
        const kind = userMessageKind(item);
        if (kind.kind === 'prompt') return { kind: 'prompt', text: kind.text };
        return kind.kind === 'continuation' ? { kind: 'continuation' } : { kind: 'ignore' };
      }
      if (item['role'] === 'assistant') {
        const text = contentText(item['content'], '');
        return text === undefined ? { kind: 'ignore' } : { kind: 'assistant', calls: [], text };
      }
      return { kind: 'ignore' };
    }
    const call = toolCall(item);
    return call === undefined ? { kind: 'ignore' } : { kind: 'assistant', calls: [call.call] };
  }
  if (value['type'] === 'event_msg' && isObject(value['payload'])) {
    const event = value['payload'];
    // Prompt markers that come right after the prompt's own response item: either one ends the turn.
    // Older events say what the message was (`kind`: plain, user_instructions, environment_context).
    if (event['type'] === 'user_message' && typeof event['message'] === 'string' && (event['kind'] === undefined || event['kind'] === 'plain')) {
      return HARNESS_TEXT.test(event['message']) ? { kind: 'ignore' } : { kind: 'prompt', text: event['message'] };
    }
    if (event['type'] === 'item_completed' && isObject(event['item']) && event['item']['type'] === 'UserMessage') {
      return { kind: 'prompt', text: contentText(event['item']['content'], '\n') ?? '' };
    }
  }
  return { kind: 'ignore' };
}

type UserKind = { kind: 'prompt'; text: string } | { kind: 'continuation'; reason: string } | { kind: 'harness' };

/** What a `user` message is: the user's prompt, a Stop hook's continuation, or Codex's own context. */
function userMessageKind(item: Record<string, unknown>): UserKind {
  const text = contentText(item['content'], '\n') ?? '';
  const reasons = [...text.matchAll(HOOK_PROMPT)].map((m) => m[1] ?? '');
  if (reasons.length > 0 && text.trimStart().startsWith('<hook_prompt')) return { kind: 'continuation', reason: reasons.join('\n\n') };
  const provenance = provenanceTypes(item);
  if (provenance !== undefined) return provenance.includes('user') ? { kind: 'prompt', text } : { kind: 'harness' };
  return HARNESS_TEXT.test(text) ? { kind: 'harness' } : { kind: 'prompt', text };
}

/** `provenance.type` of each content item, when the rollout records it (Codex 0.17x). */
function provenanceTypes(item: Record<string, unknown>): string[] | undefined {
  const meta = item['internal_chat_message_metadata_passthrough'];
  if (!isObject(meta) || !Array.isArray(meta['content_item_metadata'])) return undefined;
  const types: string[] = [];
  for (const entry of meta['content_item_metadata']) {
    if (isObject(entry) && isObject(entry['provenance']) && typeof entry['provenance']['type'] === 'string') types.push(entry['provenance']['type']);
  }
  return types.length > 0 ? types : undefined;
}

/** The text parts of a message's content (`input_text`, `output_text`, `text`), joined. */
function contentText(content: unknown, separator: string): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (isObject(part) && typeof part['text'] === 'string') texts.push(part['text']);
  }
  return texts.length > 0 ? texts.join(separator) : undefined;
}

/** A tool call item as Codex's hooks name and shape it, with its call id. */
function toolCall(item: Record<string, unknown>): { id?: string; call: ToolCall } | undefined {
  const id = typeof item['call_id'] === 'string' ? item['call_id'] : typeof item['id'] === 'string' ? item['id'] : undefined;
  const withId = (call: ToolCall): { id?: string; call: ToolCall } => (id !== undefined ? { id, call } : { call });
  switch (item['type']) {
    case 'function_call': {
      if (typeof item['name'] !== 'string') return undefined;
      return withId(functionCall(item['name'], item['namespace'], item['arguments']));
    }
    case 'custom_tool_call': {
      if (typeof item['name'] !== 'string') return undefined;
      const input = typeof item['input'] === 'string' ? item['input'] : '';
      return withId({ tool: item['name'], input: { command: input } });
    }
    case 'local_shell_call': {
      const action = isObject(item['action']) ? item['action'] : {};
      return withId(bash(action['command']));
    }
    case 'web_search_call': {
      const action = isObject(item['action']) ? item['action'] : {};
      return withId({ tool: 'web_search', input: action });
    }
    default:
      return undefined;
  }
}

function functionCall(name: string, namespace: unknown, argumentsText: unknown): ToolCall {
  const args = parseArguments(argumentsText);
  if (typeof namespace === 'string' && namespace.startsWith('mcp__')) {
    return { tool: `${namespace.replace(/_+$/, '')}__${name}`, input: args ?? {} };
  }
  switch (name) {
    case 'exec_command':
      return bash(args?.['cmd']);
    case 'shell_command':
    case 'shell':
    case 'container.exec':
      return bash(args?.['command']);
    case 'apply_patch': {
      const patch = args?.['input'] ?? args?.['patch'] ?? (typeof argumentsText === 'string' && args === undefined ? argumentsText : undefined);
      return { tool: 'apply_patch', input: typeof patch === 'string' ? { command: patch } : {} };
    }
    default:
      return { tool: name, input: args ?? {} };
  }
}

function parseArguments(text: unknown): Record<string, unknown> | undefined {
  if (isObject(text)) return text;
  if (typeof text !== 'string') return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A shell call as Codex's hooks see it: `Bash` with the command as one string. */
function bash(command: unknown): ToolCall {
  if (typeof command === 'string') return { tool: 'Bash', input: { command } };
  if (Array.isArray(command) && command.every((a) => typeof a === 'string')) return { tool: 'Bash', input: { command: shlexJoin(command as string[]) } };
  return { tool: 'Bash', input: {} };
}

/** Joins argv the way Codex does for hooks (`shlex` join: quote only the words that need it). */
export function shlexJoin(argv: readonly string[]): string {
  return argv.map(shlexQuote).join(' ');
}

function shlexQuote(word: string): string {
  if (word === '') return "''";
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

/** The text of a tool output item's `output` (a string, content parts, or `{content}`). */
function outputText(output: unknown): { output?: string; isError?: boolean } {
  if (typeof output === 'string') return { output };
  if (Array.isArray(output)) return { output: output.map((p) => (isObject(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('\n') };
  if (isObject(output)) {
    const result: { output?: string; isError?: boolean } = {};
    if (typeof output['content'] === 'string') result.output = output['content'];
    else if (Array.isArray(output['content'])) result.output = outputText(output['content']).output ?? '';
    if (typeof output['success'] === 'boolean') result.isError = !output['success'];
    return result;
  }
  return {};
}

/**
 * Turns a Codex rollout's parsed lines into items, line by line, synchronously: the state of the
 * forward iterator (open calls, the turn's calls, the stop that may end it).
 */
class CodexItems implements ItemState {
  private readonly pending = new PendingCalls();
  private turn: ToolCall[] = [];
  private continuations = 0;
  /** The last assistant message that could end the turn, until a tool call or a turn marker decides. */
  private stop: { line: number; text: string } | undefined;
  /** Something happened (a prompt, a call, a continuation) since the last stop was yielded. */
  private open = false;

  /** Appends the stop that is waiting, if any. */
  flush(out: TranscriptItem[]): void {
    const stop = this.stop;
    if (stop === undefined) return;
    out.push({ kind: 'stop', line: stop.line, turn: this.turn.slice(), lastMessage: stop.text, continuations: this.continuations });
    this.stop = undefined;
    this.open = false;
  }

  /** Appends the items of one entry. */
  take(entry: ParsedEntry, out: TranscriptItem[]): void {
    if ('diagnostic' in entry) {
      this.flush(out);
      out.push({ kind: 'diagnostic', diagnostic: entry.diagnostic });
      return;
    }
    const { line, value } = entry;
    const item = responseItem(value);
    if (item === undefined) {
      const event = value['type'] === 'event_msg' && isObject(value['payload']) ? value['payload'] : undefined;
      if (event?.['type'] === 'task_complete') {
        if (this.stop === undefined && this.open) {
          const last = event['last_agent_message'];
          if (typeof last === 'string') this.stop = { line, text: last };
          else {
            out.push({ kind: 'stop', line, turn: this.turn.slice(), continuations: this.continuations });
            this.open = false;
          }
        }
        this.flush(out);
      }
      return;
    }
    const type = item['type'];
    if (type === 'message') {
      if (item['role'] === 'user') {
        const kind = userMessageKind(item);
        if (kind.kind === 'prompt') {
          this.flush(out);
          this.turn = [];
          this.continuations = 0;
          this.open = true;
          out.push({ kind: 'prompt', line, prompt: kind.text });
        } else if (kind.kind === 'continuation') {
          this.flush(out);
          this.continuations++;
          this.open = true;
          out.push({ kind: 'continuation', line, reason: kind.reason });
        }
      } else if (item['role'] === 'assistant') {
        const text = contentText(item['content'], '');
        if (text !== undefined) this.stop = { line, text };
      }
      return;
    }
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const id = typeof item['call_id'] === 'string' ? item['call_id'] : undefined;
      const call = this.pending.take(id);
      const result: ToolResultItem = { kind: 'tool-result', line };
      if (id !== undefined) result.id = id;
      if (call !== undefined) result.call = call;
      const { output, isError } = outputText(item['output']);
      if (output !== undefined) result.output = output;
      if (isError !== undefined) result.isError = isError;
      out.push(result);
      return;
    }
    const found = toolCall(item);
    if (found === undefined) return;
    this.stop = undefined;
    this.open = true;
    this.turn.push(found.call);
    this.pending.add(found.id, found.call);
    out.push(found.id !== undefined ? { kind: 'tool-call', line, id: found.id, call: found.call } : { kind: 'tool-call', line, call: found.call });
  }
}

/**
 * Lines of a Codex rollout that could give an item: response items (wrapped, or bare in older
 * rollouts) and `task_complete` events. A line with none of their type tokens (and no `\u`
 * escape that could spell one) is skipped unparsed: token counts, usage records, turn contexts.
 */
const CODEX_FORWARD: ForwardReader = {
  code: CODEX.code,
  noun: CODEX.noun,
  relevant: new RegExp(`"(?:response_item|task_complete|${[...BARE_ITEMS].join('|')})"|\\\\u`),
};

/**
 * Every event-worthy item of a whole Codex rollout, first to last: prompts, tool calls (named as
 * hooks see them), tool results (with the call they answer), stops and Stop-hook continuations, in
 * batches (one per chunk of the file read). Reads forward with constant memory (plus the open
 * calls and the current turn's calls). Never throws: problems are `diagnostic` items, the last
 * ones yielded.
 */
export function codexRolloutBatches(path: string, opts?: IterateOptions): AsyncGenerator<TranscriptItem[], void, undefined> {
  return itemBatchesForward(path, opts, CODEX_FORWARD, new CodexItems());
}

/** The items of `codexRolloutBatches`, one at a time. */
export async function* iterateCodexRollout(path: string, opts?: IterateOptions): AsyncGenerator<TranscriptItem, void, undefined> {
  for await (const batch of codexRolloutBatches(path, opts)) yield* batch;
}
