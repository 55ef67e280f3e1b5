/**
 * Fixture lines and raw agent payloads -> canonical events. Every problem is a diagnostic with a
 * JSON pointer; nothing here throws.
 */
import { alternatives, diagnostic, type Diagnostic } from './diagnostics.js';
import type { AgentEvent, AnyEvent, PolicyEvent, ToolCall } from './events.js';
import { AGENT_EVENT_SEAM, SEAMS, type Seam } from './ir.js';
import { dialectTitle, dialectsOfAgentEvent, hookProtocols } from './hooks/protocol.js';

export interface NormalizeResult {
  event: PolicyEvent | undefined;
  diagnostics: Diagnostic[];
}

/** Fields a fixture line may carry besides the event, for tools that read fixtures. */
const ANNOTATIONS = ['expect', 'expect_reason', 'note', 'name', 'id'];

const COMMON = ['seam', 'cwd', 'session', 'permission_mode', 'home', 'transcript_path'];
const FIELDS: Record<Seam, string[]> = {
  'pre-tool': [...COMMON, 'tool', 'input'],
  'post-tool': [...COMMON, 'tool', 'input', 'output', 'response'],
  prompt: [...COMMON, 'prompt'],
  stop: [...COMMON, 'turn', 'stop_hook_active', 'last_message', 'continuations'],
  'session-start': [...COMMON, 'source'],
};

/**
 * The hook event names of the five seams in the hooks wire format (`hook_event_name`), which
 * Claude Code and Codex share; the one table of them.
 */
export const HOOK_EVENT_SEAMS: Readonly<Record<string, PolicyEvent['seam']>> = {
  PreToolUse: 'pre-tool',
  PostToolUse: 'post-tool',
  UserPromptSubmit: 'prompt',
  Stop: 'stop',
  SessionStart: 'session-start',
};

/** The hook event name of each seam (the inverse of HOOK_EVENT_SEAMS). */
export const SEAM_HOOK_EVENTS: Readonly<Record<PolicyEvent['seam'], string>> = {
  'pre-tool': 'PreToolUse',
  'post-tool': 'PostToolUse',
  prompt: 'UserPromptSubmit',
  stop: 'Stop',
  'session-start': 'SessionStart',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

function esc(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

class Reader {
  readonly diagnostics: Diagnostic[] = [];
  constructor(
    readonly obj: Record<string, unknown>,
    readonly base: string,
  ) {}

  error(key: string | string[] | undefined, message: string, help?: string): void {
    const keys = key === undefined ? [] : Array.isArray(key) ? key : [key];
    const pointer = this.base + keys.map((k) => `/${esc(k)}`).join('');
    this.diagnostics.push(diagnostic('event/invalid', 'error', message, { pointer, help }));
  }

  /** A string field; `null` (which Codex sends for a missing path or message) reads as absent when not required. */
  string(key: string, required: boolean): string | undefined {
    const v = this.obj[key];
    if (v === null && !required) return undefined;
    if (v === undefined) {
      if (required) this.error(undefined, `missing field \`${key}\``);
      return undefined;
    }
    if (typeof v !== 'string') {
      this.error(key, `\`${key}\` must be a string, found ${typeName(v)}`);
      return undefined;
    }
    return v;
  }

  object(key: string): Record<string, unknown> | undefined {
    const v = this.obj[key];
    if (v === undefined) return undefined;
    if (!isObject(v)) {
      this.error(key, `\`${key}\` must be an object, found ${typeName(v)}`);
      return undefined;
    }
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.obj[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') {
      this.error(key, `\`${key}\` must be true or false, found ${typeName(v)}`);
      return undefined;
    }
    return v;
  }
}

function copyCommon(r: Reader, e: AnyEvent, keys: { cwd: string; session: string }): void {
  const cwd = r.string(keys.cwd, false);
  if (cwd !== undefined) e.cwd = cwd;
  const session = r.string(keys.session, false);
  if (session !== undefined) e.session = session;
  const mode = r.string('permission_mode', false);
  if (mode !== undefined) e.permission_mode = mode;
  const home = r.string('home', false);
  if (home !== undefined) e.home = home;
  const transcript = r.string('transcript_path', false);
  if (transcript !== undefined) e.transcript_path = transcript;
}

function readTurn(r: Reader): ToolCall[] {
  const v = r.obj['turn'];
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    r.error('turn', `\`turn\` must be an array of tool calls, found ${typeName(v)}`);
    return [];
  }
  const calls: ToolCall[] = [];
  v.forEach((item, i) => {
    const pointer = ['turn', String(i)];
    if (!isObject(item) || typeof item['tool'] !== 'string') {
      r.error(pointer, 'a tool call needs a string `tool` and an object `input`', 'write `{"tool":"Bash","input":{"command":"npm test"}}`');
      return;
    }
    const input = item['input'] ?? {};
    if (!isObject(input)) {
      r.error([...pointer, 'input'], `\`input\` must be an object, found ${typeName(input)}`);
      return;
    }
    calls.push({ tool: item['tool'], input });
  });
  return calls;
}

/** Text of a Claude Code `tool_response`: a string as it is, `stdout`/`stderr` joined, else JSON. */
export function responseText(response: unknown): string | undefined {
  if (response === undefined || response === null) return undefined;
  if (typeof response === 'string') return response;
  if (isObject(response)) {
    const parts = ['stdout', 'stderr', 'output', 'content']
      .map((k) => response[k])
      .filter((v): v is string => typeof v === 'string' && v.length > 0);
    if (parts.length > 0) return parts.join('\n');
  }
  try {
    return JSON.stringify(response);
  } catch {
    return undefined;
  }
}

function normalizeNative(obj: Record<string, unknown>, base: string): NormalizeResult {
  const r = new Reader(obj, base);
  const seam = obj['seam'];
  if (typeof seam !== 'string' || !(SEAMS as readonly string[]).includes(seam)) {
    r.error('seam', `unknown seam \`${String(seam)}\``, `use one of ${SEAMS.map((s) => `\`${s}\``).join(', ')}`);
    return { event: undefined, diagnostics: r.diagnostics };
  }
  const s = seam as Seam;
  for (const key of Object.keys(obj)) {
    if (!FIELDS[s].includes(key) && !ANNOTATIONS.includes(key)) {
      r.error(key, `unknown field \`${key}\` for a \`${s}\` event`, `a \`${s}\` event has ${FIELDS[s].map((f) => `\`${f}\``).join(', ')}`);
    }
  }
  let event: PolicyEvent | undefined;
  switch (s) {
    case 'pre-tool':
    case 'post-tool': {
      const tool = r.string('tool', true);
      const input = r.object('input') ?? {};
      if (tool === undefined) break;
      if (s === 'pre-tool') event = { seam: s, tool, input };
      else {
        const e: PolicyEvent = { seam: s, tool, input };
        const out = obj['output'];
        if (out !== undefined) {
          if (typeof out === 'string') e.output = out;
          else r.error('output', `\`output\` must be a string, found ${typeName(out)}`);
        }
        if (obj['response'] !== undefined) {
          e.response = obj['response'];
          if (e.output === undefined) {
            const t = responseText(obj['response']);
            if (t !== undefined) e.output = t;
          }
        }
        event = e;
      }
      break;
    }
    case 'prompt': {
      const prompt = r.string('prompt', true);
      if (prompt !== undefined) event = { seam: s, prompt };
      break;
    }
    case 'stop': {
      const e: PolicyEvent = { seam: s, turn: readTurn(r), stop_hook_active: r.boolean('stop_hook_active') ?? false };
      const last = r.string('last_message', false);
      if (last !== undefined) e.last_message = last;
      const c = obj['continuations'];
      if (c !== undefined) {
        if (typeof c === 'number' && Number.isInteger(c) && c >= 0) e.continuations = c;
        else r.error('continuations', '`continuations` must be a whole number of at least 0');
      }
      event = e;
      break;
    }
    case 'session-start': {
      event = { seam: s, source: r.string('source', false) ?? 'startup' };
      break;
    }
  }
  if (event) copyCommon(r, event, { cwd: 'cwd', session: 'session' });
  if (r.diagnostics.length > 0) return { event: undefined, diagnostics: r.diagnostics };
  return { event, diagnostics: [] };
}

function normalizeClaude(obj: Record<string, unknown>, base: string): NormalizeResult {
  const r = new Reader(obj, base);
  const name = obj['hook_event_name'];
  const seam = typeof name === 'string' ? HOOK_EVENT_SEAMS[name] : undefined;
  if (!seam) {
    if (typeof name === 'string' && dialectsOfAgentEvent(name).length > 0) {
      r.error('hook_event_name', `the hook event \`${name}\` has no seam, so no rule decides it`, 'only its imported hooks run on it: `dshpolicy eval` with `--claude-hooks` or `--codex-hooks` evaluates it');
      return { event: undefined, diagnostics: r.diagnostics };
    }
    r.error(
      'hook_event_name',
      `the hook event \`${String(name)}\` has no seam`,
      `events with a seam: ${Object.keys(HOOK_EVENT_SEAMS).map((k) => `\`${k}\``).join(', ')}`,
    );
    return { event: undefined, diagnostics: r.diagnostics };
  }
  let event: PolicyEvent | undefined;
  switch (seam) {
    case 'pre-tool':
    case 'post-tool': {
      const tool = r.string('tool_name', true);
      const input = r.object('tool_input') ?? {};
      if (tool === undefined) break;
      if (seam === 'pre-tool') event = { seam, tool, input };
      else {
        const e: PolicyEvent = { seam, tool, input };
        const resp = obj['tool_response'];
        if (resp !== undefined) {
          e.response = resp;
          const t = responseText(resp);
          if (t !== undefined) e.output = t;
        }
        event = e;
      }
      break;
    }
    case 'prompt': {
      const prompt = r.string('prompt', true);
      if (prompt !== undefined) event = { seam, prompt };
      break;
    }
    case 'stop': {
      const e: PolicyEvent = { seam, turn: readTurn(r), stop_hook_active: r.boolean('stop_hook_active') ?? false };
      const last = r.string('last_assistant_message', false);
      if (last !== undefined) e.last_message = last;
      event = e;
      break;
    }
    case 'session-start':
      event = { seam, source: r.string('source', false) ?? 'startup' };
      break;
  }
  if (event) copyCommon(r, event, { cwd: 'cwd', session: 'session_id' });
  if (r.diagnostics.length > 0) return { event: undefined, diagnostics: r.diagnostics };
  return { event, diagnostics: [] };
}

/**
 * Normalises one fixture value: the native shape (`{"seam": ...}`) or a raw Claude Code hook
 * payload (`{"hook_event_name": ...}`). `pointer` prefixes every diagnostic's JSON pointer.
 */
export function normalizeEvent(value: unknown, pointer = ''): NormalizeResult {
  if (isObject(value) && !('hook_event_name' in value) && !('seam' in value) && 'event' in value) {
    return {
      event: undefined,
      diagnostics: [diagnostic('event/invalid', 'error', `the agent event \`${String(value['event'])}\` has no seam, so no rule decides it`, {
        pointer: `${pointer}/event`,
        help: 'only imported hooks run on agent events: `dshpolicy eval` with `--claude-hooks` or `--codex-hooks` evaluates them',
      })],
    };
  }
  if (!isObject(value)) {
    return {
      event: undefined,
      diagnostics: [diagnostic('event/invalid', 'error', `an event must be a JSON object, found ${typeName(value)}`, { pointer })],
    };
  }
  if ('hook_event_name' in value) return normalizeClaude(value, pointer);
  if ('seam' in value) return normalizeNative(value, pointer);
  return {
    event: undefined,
    diagnostics: [
      diagnostic('event/invalid', 'error', 'an event needs a `seam` (or a Claude Code `hook_event_name`)', {
        pointer,
        help: 'e.g. `{"seam":"pre-tool","tool":"Bash","input":{"command":"ls"}}`',
      }),
    ],
  };
}

export interface AnyNormalizeResult {
  event: AnyEvent | undefined;
  diagnostics: Diagnostic[];
}

/** Payload keys every agent event carries; the rest are the event's own fields. */
const AGENT_COMMON_PAYLOAD = new Set([
  'session_id', 'transcript_path', 'cwd', 'permission_mode', 'hook_event_name', 'prompt_id', 'effort', 'turn_id', 'model',
]);
const AGENT_COMMON_NATIVE = ['seam', 'event', 'agent', 'cwd', 'session', 'permission_mode', 'home', 'transcript_path'];

function agentEventName(r: Reader, name: unknown, key: string, agent: string | undefined): string | undefined {
  if (typeof name !== 'string') {
    r.error(key, `\`${key}\` must be a string, found ${typeName(name)}`);
    return undefined;
  }
  const dialects = dialectsOfAgentEvent(name);
  const seam = HOOK_EVENT_SEAMS[name];
  if (seam !== undefined) {
    r.error(key, `\`${name}\` is the \`${seam}\` seam`, `write it as \`{"seam": "${seam}", ...}\`, or as the agent's raw payload with \`hook_event_name\``);
    return undefined;
  }
  if (dialects.length === 0) {
    const known = [...new Set(hookProtocols().flatMap((p) => [...p.agentEvents.keys()]))];
    r.error(key, `\`${name}\` is not an agent event without a seam`, `agent events: ${known.map((k) => `\`${k}\``).join(', ')}`);
    return undefined;
  }
  if (agent !== undefined && !dialects.includes(agent)) {
    r.error(key, `${dialectTitle(agent)} has no \`${name}\` event`);
    return undefined;
  }
  return name;
}

function readAgent(r: Reader): string | undefined {
  const agent = r.obj['agent'];
  if (agent === undefined) return undefined;
  const dialects = hookProtocols().map((p) => p.dialect);
  if (typeof agent !== 'string' || !dialects.includes(agent)) {
    r.error('agent', `\`agent\` must be ${dialects.length > 0 ? alternatives(dialects.map((d) => `\`${d}\``)) : 'a known agent'}, found ${typeof agent === 'string' ? `\`${agent}\`` : typeName(agent)}`);
    return undefined;
  }
  return agent;
}

/**
 * Normalises one fixture value into any event: everything `normalizeEvent` reads, plus agent events
 * without a seam, as a native line (`{"event": "Notification", "agent": "claude", "message": ...}`,
 * every key but the common ones being the event's own payload fields) or as a raw hook payload
 * whose `hook_event_name` has no seam. A raw payload carrying a key only one agent sends (Codex's
 * `model`) is that agent's; otherwise the agent is left open unless the line says `agent`.
 */
export function normalizeAnyEvent(value: unknown, pointer = ''): AnyNormalizeResult {
  if (!isObject(value)) return normalizeEvent(value, pointer);
  const raw = value['hook_event_name'];
  const isRawAgentEvent = typeof raw === 'string' && !(raw in HOOK_EVENT_SEAMS) && dialectsOfAgentEvent(raw).length > 0;
  const isNativeAgentEvent = !('hook_event_name' in value) && (value['seam'] === AGENT_EVENT_SEAM || (!('seam' in value) && 'event' in value));
  if (!isRawAgentEvent && !isNativeAgentEvent) return normalizeEvent(value, pointer);
  const r = new Reader(value, pointer);
  let agent = readAgent(r);
  const fields: Record<string, unknown> = {};
  let name: string | undefined;
  if (isRawAgentEvent) {
    if (agent === undefined) agent = hookProtocols().find((p) => p.payloadMarkers?.some((k) => k in value) && p.agentEvents.has(raw))?.dialect;
    name = agentEventName(r, raw, 'hook_event_name', agent);
    for (const [k, v] of Object.entries(value)) if (!AGENT_COMMON_PAYLOAD.has(k) && k !== 'agent') fields[k] = v;
  } else {
    name = agentEventName(r, value['event'], 'event', agent);
    for (const [k, v] of Object.entries(value)) if (!AGENT_COMMON_NATIVE.includes(k) && !ANNOTATIONS.includes(k)) fields[k] = v;
  }
  if (name === undefined || r.diagnostics.length > 0) return { event: undefined, diagnostics: r.diagnostics };
  const event: AgentEvent = { seam: AGENT_EVENT_SEAM, event: name, fields };
  if (agent !== undefined) event.agent = agent;
  copyCommon(r, event, isRawAgentEvent ? { cwd: 'cwd', session: 'session_id' } : { cwd: 'cwd', session: 'session' });
  if (r.diagnostics.length > 0) return { event: undefined, diagnostics: r.diagnostics };
  return { event, diagnostics: [] };
}
