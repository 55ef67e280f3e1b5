/**
 * dshpolicy as Gemini CLI's `BeforeTool` command hook: the payload Gemini CLI writes on the hook's
 * stdin read into a pre-tool event, and a decision written back in Gemini CLI's protocol.
 *
 * The payload carries `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`,
 * `tool_name`, `tool_input` (the tool's arguments) and, for an MCP tool, `mcp_context` (with
 * `server_name` and the server's own `tool_name`). The tool is named as dshpolicy names it
 * (`run_shell_command` is `Bash`, see tools.ts); the input is Gemini CLI's arguments as they are.
 *
 * The answer: `{"decision":"deny","reason":...}` blocks the call and gives the reason to the model;
 * `{"decision":"ask","reason":...}` has Gemini CLI ask for confirmation. An allow cannot approve a
 * call ahead of Gemini CLI's own policy, so allow and no opinion print nothing. A rewritten input
 * goes in `hookSpecificOutput.tool_input`. Only `BeforeTool` is decided: other events get nothing.
 */
import type { AnyDecision, PreToolEvent } from '../../engine/index.js';
import { answerJson as json, reasonOf, SILENT, type HookAnswer } from '../common/answer.js';
import { GEMINI_TO_DSH } from './tools.js';

/** The one Gemini CLI hook event dshpolicy decides. */
export const GEMINI_TOOL_EVENT = 'BeforeTool';

export type GeminiDecoded =
  | { kind: 'event'; event: PreToolEvent }
  /** An event other than `BeforeTool`: dshpolicy has no opinion on it. */
  | { kind: 'other'; name: string }
  /** The payload cannot be read; `event` is its `hook_event_name` when it has a readable one. */
  | { kind: 'error'; message: string; event?: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

/**
 * The dshpolicy name of a Gemini CLI tool. An MCP tool is `mcp__<server>__<tool>`: from
 * `mcp_context` when the payload has it (the server's own tool name), else from a name of the form
 * `mcp_<server>_<tool>` (the server ends at the first `_`), `mcp__<server>__<tool>` or the older
 * `<server>__<tool>`. A built-in tool maps by tools.ts; any other name stays as it is.
 */
export function geminiToolName(name: string, mcp?: { server: string; tool?: string }): string {
  if (mcp !== undefined) {
    let tool = mcp.tool;
    if (tool === undefined || tool === '') {
      const prefixes = [`mcp__${mcp.server}__`, `mcp_${mcp.server}_`, `${mcp.server}__`];
      const prefix = prefixes.find((p) => name.startsWith(p) && name.length > p.length);
      tool = prefix === undefined ? name : name.slice(prefix.length);
    }
    return `mcp__${mcp.server}__${tool}`;
  }
  const builtin = GEMINI_TO_DSH[name];
  if (builtin !== undefined) return builtin;
  if (/^mcp__[^_].*__./.test(name)) return name;
  const fqn = /^mcp_([^_]+)_(.+)$/.exec(name);
  if (fqn) return `mcp__${fqn[1]}__${fqn[2]}`;
  const legacy = /^([^_].*?)__(.+)$/.exec(name);
  if (legacy) return `mcp__${legacy[1]}__${legacy[2]}`;
  return name;
}

/** Reads one parsed Gemini CLI hook payload. Never throws. */
export function decodeGeminiPayload(value: unknown): GeminiDecoded {
  if (!isObject(value)) return { kind: 'error', message: `the payload must be a JSON object, found ${typeName(value)}` };
  const name = value['hook_event_name'];
  if (name === undefined) return { kind: 'error', message: 'missing field `hook_event_name`' };
  if (typeof name !== 'string') return { kind: 'error', message: `\`hook_event_name\` must be a string, found ${typeName(name)}` };
  if (name !== GEMINI_TOOL_EVENT) return { kind: 'other', name };
  const fail = (message: string): GeminiDecoded => ({ kind: 'error', message, event: name });

  const tool = value['tool_name'];
  if (tool === undefined) return fail('missing field `tool_name`');
  if (typeof tool !== 'string') return fail(`\`tool_name\` must be a string, found ${typeName(tool)}`);
  if (tool === '') return fail('`tool_name` is empty');
  const input = value['tool_input'];
  if (input === undefined) return fail('missing field `tool_input`');
  if (!isObject(input)) return fail(`\`tool_input\` must be an object, found ${typeName(input)}`);

  let mcp: { server: string; tool?: string } | undefined;
  const ctx = value['mcp_context'];
  if (ctx !== undefined && ctx !== null) {
    if (!isObject(ctx)) return fail(`\`mcp_context\` must be an object, found ${typeName(ctx)}`);
    const server = ctx['server_name'];
    if (typeof server !== 'string' || server === '') {
      return fail(server === undefined ? 'missing field `mcp_context.server_name`' : `\`mcp_context.server_name\` must be a non-empty string, found ${typeName(server)}`);
    }
    const own = ctx['tool_name'];
    if (own !== undefined && typeof own !== 'string') return fail(`\`mcp_context.tool_name\` must be a string, found ${typeName(own)}`);
    mcp = { server };
    if (own !== undefined) mcp.tool = own;
  }

  const event: PreToolEvent = { seam: 'pre-tool', tool: geminiToolName(tool, mcp), input };
  for (const [key, field] of [['cwd', 'cwd'], ['session_id', 'session'], ['transcript_path', 'transcript_path']] as const) {
    const v = value[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return fail(`\`${key}\` must be a string, found ${typeName(v)}`);
    if (v !== '') event[field] = v;
  }
  return { kind: 'event', event };
}

/**
 * Gemini CLI's answer to a `BeforeTool` event for `decision`. Context has no place in a
 * `BeforeTool` answer and is left out; a decision of any other seam says nothing.
 */
export function geminiAnswer(decision: AnyDecision): HookAnswer {
  if (decision.seam !== 'pre-tool') return SILENT;
  const reason = reasonOf(decision);
  if (decision.decision === 'deny') return json({ decision: 'deny', reason: reason || 'denied by policy' });
  if (decision.decision === 'ask') return json({ decision: 'ask', reason: reason || 'approval required by policy' });
  if (decision.updatedInput) return json({ hookSpecificOutput: { hookEventName: GEMINI_TOOL_EVENT, tool_input: decision.updatedInput } });
  return SILENT;
}

/** The answer that blocks a tool call when the hook cannot decide it. */
export function geminiDeny(reason: string): HookAnswer {
  return json({ decision: 'deny', reason });
}
