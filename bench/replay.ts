/**
 * Replay throughput, measured on the built CLI: `node <cli> replay --policy <file> <session>
 * --format json` over a generated Claude Code session and a generated Codex rollout of tens of
 * thousands of events, against the 1,000-rule policy of `generateMixedPolicy` (bench/eval.ts).
 *
 * The sessions have the shape the recorded fixtures have (bridges/claude/testdata/transcripts/,
 * bridges/codex/testdata/rollouts/): every line an agent writes for a turn, not only the lines
 * that give events. Claude Code: queue operations, the prompt, an `api-request` line per API
 * call, assistant lines one per content block (text, tool_use) with the message's usage,
 * tool_result user lines with `toolUseResult`, `last-prompt` and `atis-latch` lines, the
 * `stop_hook_summary` system line, `cost-state`; now and then a failed tool result, a Stop hook
 * continuation and a parallel pair of calls. Codex: `task_started`, `turn_context`, the prompt
 * item and its `item_completed`, per call the `function_call` (exec_command, MCP with a
 * namespace) or `custom_tool_call` (apply_patch), `token_usage_record`, `item_completed`, the
 * output item and `token_count`, then the assistant message and `task_complete`.
 *
 * Method: each run is timed around the process (spawn to exit, stdout collected and read
 * afterwards) and by its CPU time (user + system of all its threads, written at exit by a module
 * preloaded with `node --require`, so a busy machine's waiting is not counted). Events are counted
 * from replay's own JSON lines and checked against its summary and against what the generator
 * wrote; replay's in-process number (`summary.seconds`, the read-and-decide loop alone, wall clock)
 * is reported beside them. Each agent gets two sessions of the same size, replayed by one command:
 * the first pays what is paid once per process (node start-up, loading the bundle, compiling the
 * policy, compiling its regexes and indexes at first use, the JIT's warm-up), and the second is
 * measured by replay's own per-file times (`files[].seconds` and `files[].cpuSeconds`, the CPU
 * of every thread of the process while on that file). The budget's measure is the second
 * session's events per CPU-second: the rate on one core. A one-turn session with the same policy
 * shows the start-up alone; `node -e 0` is reported too. Two more runs split the time: `--only
 * pending` (decisions but no per-event output, as the policy has no `run` rule) and an empty
 * policy (reading and making events only). `parseFloorUs` is what splitting the measured file into
 * lines and `JSON.parse` of the lines that give events (EVENT_LINES) alone cost, in the bench's
 * own process: the least a reader built on `JSON.parse` spends.
 *
 * The bench must not import cli/ (specs/layers.test.ts), so the CLI is spawned.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateMixedPolicy, rng } from './eval.js';

export type BenchAgent = 'claude' | 'codex';
type ReplaySeam = 'pre-tool' | 'post-tool' | 'prompt' | 'stop';

// ---------------------------------------------------------------------------------------------
// Generated sessions

export interface SessionOptions {
  agent: BenchAgent;
  /** Events the session should give; whole turns are written, so it may give a few more. */
  events: number;
  /** Size of the `generateMixedPolicy` policy the calls aim at (names like `tool<k>`); default 1,000. */
  rules?: number;
  seed?: number;
  /** Write the agent's bookkeeping lines (api requests, token counts, ...) too; default true. */
  noise?: boolean;
}

export interface SessionStats {
  agent: BenchAgent;
  path: string;
  bytes: number;
  lines: number;
  turns: number;
  /** Events a replay of every seam makes, by seam. */
  seams: Record<ReplaySeam, number>;
  events: number;
  /** Tool results that are not post-tool events (Claude Code errors). */
  failedResults: number;
  continuations: number;
}

const SESSION_ID = '2f3f213f-3acd-4453-bce6-227f3cee1bf3';
const CWD = '/home/dev/acme';
const VERSION = '2.1.328';

/** Ordinary commands of a coding session (no rule of the generated policy names them). */
const PLAIN_COMMANDS = [
  'npm test',
  'npm run build',
  'git status',
  'git diff --stat',
  'git log --oneline -n 20',
  'rg -n "TODO" src',
  'ls -la src',
  'cat package.json',
  'npx tsc --noEmit -p .',
  'npm test -- --run src/parser.test.ts 2>&1 | tail -40',
  'git add -A && git commit -m "wip: parser"',
  'cd src && grep -rn "export function" . | head -50',
  'node scripts/check.js --fix',
  'python3 -m pytest -q tests/ -k "not slow"',
  'docker compose up -d db',
  'curl -s https://api.example.com/v1/health | jq .status',
  'find . -name "*.ts" -not -path "./node_modules/*" | wc -l',
  'FOO=1 npm run lint -- --max-warnings 0',
];

const WORDS = 'the parser module returns an error when input is empty so we add a guard and a test for the edge case then rerun the suite'.split(' ');

/** Text of about `bytes` characters, varied by `r`. */
function prose(r: () => number, bytes: number): string {
  const out: string[] = [];
  let n = 0;
  while (n < bytes) {
    const w = WORDS[Math.floor(r() * WORDS.length)]!;
    out.push(w);
    n += w.length + 1;
  }
  return out.join(' ');
}

/** Output of a tool: mostly a few hundred bytes, now and then several KB. */
function outputSize(r: () => number): number {
  const x = r();
  if (x < 0.6) return 40 + Math.floor(r() * 400);
  if (x < 0.95) return 400 + Math.floor(r() * 2000);
  return 4000 + Math.floor(r() * 12000);
}

/** Appends lines to a file in ~1 MiB writes. */
class LineWriter {
  private fd: number;
  private chunk: string[] = [];
  private size = 0;
  bytes = 0;
  lines = 0;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  push(value: unknown): void {
    const text = `${JSON.stringify(value)}\n`;
    this.chunk.push(text);
    this.size += text.length;
    this.lines++;
    if (this.size >= 1 << 20) this.flush();
  }
  flush(): void {
    if (this.chunk.length === 0) return;
    this.bytes += writeSync(this.fd, this.chunk.join(''));
    this.chunk = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

function uuid(r: () => number): string {
  const hex = () => Math.floor(r() * 0x100000000).toString(16).padStart(8, '0');
  const a = hex() + hex() + hex() + hex();
  return `${a.slice(0, 8)}-${a.slice(8, 12)}-4${a.slice(13, 16)}-8${a.slice(17, 20)}-${a.slice(20, 32)}`;
}

/** A Claude Code tool call: name and input, aimed at the generated policy now and then. */
function claudeCall(r: () => number, n: number, j: number): { name: string; input: Record<string, unknown> } {
  const k = () => Math.floor(r() * n);
  const hit = r() < 0.3;
  const x = r();
  if (x < 0.4) {
    const command = hit
      ? [`tool${k()} run --x && git status`, `tool${k()} --force; ls -la | grep x`, `npm test && git sub${k()} push`, `npm install${k()} left-pad`, `deploy${k()} --prod`, `verify${k()} all`, `run${k()}`][Math.floor(r() * 7)]!
      : PLAIN_COMMANDS[Math.floor(r() * PLAIN_COMMANDS.length)]!;
    return { name: 'Bash', input: { command, description: 'Run it' } };
  }
  if (x < 0.6) return { name: 'Read', input: { file_path: hit ? `${CWD}/secrets${k()}/key.pem` : `${CWD}/src/module${j % 200}.ts` } };
  if (x < 0.72) {
    return { name: 'Edit', input: { file_path: hit ? `${CWD}/secrets${k()}/config.yml` : `${CWD}/src/module${j % 200}.ts`, old_string: prose(r, 120), new_string: prose(r, 160), replace_all: false } };
  }
  if (x < 0.77) return { name: 'Write', input: { file_path: hit ? `${CWD}/src/out${j}.gen${k()}` : `${CWD}/src/new${j}.m${k()}`, content: prose(r, 600) } };
  if (x < 0.83) return { name: r() < 0.5 ? 'Grep' : 'Glob', input: { pattern: r() < 0.5 ? 'export function \\w+' : 'src/**/*.ts', path: `${CWD}/src` } };
  if (x < 0.9) return { name: 'WebFetch', input: { url: hit ? `https://api.site${k()}.example/v1?q=${j}` : `https://docs.example.com/guide/${j % 50}`, prompt: 'Summarise the page' } };
  if (hit || r() < 0.5) return { name: `mcp__server${k()}__query`, input: { mode: `m${k()}`, sql: 'select id, name from users limit 10' } };
  return { name: 'mcp__github__get_issue', input: { owner: 'acme', repo: 'app', issue_number: j % 900 } };
}

function promptText(r: () => number, n: number, t: number): string {
  const k = Math.floor(r() * n);
  const x = r();
  if (x < 0.1) return `please look at secret${k} now`;
  if (x < 0.3) return `refactor the kw${k} module and run the tests`;
  return `task ${t}: ${prose(r, 60 + Math.floor(r() * 300))}`;
}

function lastMessage(r: () => number, n: number, t: number): string {
  return r() < 0.1 ? `I give up ${Math.floor(r() * n)}` : `Done with task ${t}. ${prose(r, 80 + Math.floor(r() * 200))}`;
}

const USAGE = {
  input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 2048, output_tokens: 85,
  output_tokens_details: { thinking_tokens: 0 }, server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
  service_tier: 'standard', cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
  inference_geo: '', iterations: [], speed: 'standard', fallback_credit: null,
};
const API_PARAMS = {
  model: 'claude-opus-5-5',
  betas: ['claude-code-20250219', 'interleaved-thinking-2025-05-14', 'context-management-2025-06-27', 'per-turn-control-2026-07-01', 'effort-2025-11-24'],
  max_tokens: 128000, thinking: { type: 'adaptive', display: 'omitted' }, context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }, output_config: { effort: 'medium' },
};

function emptySeams(): Record<ReplaySeam, number> {
  return { 'pre-tool': 0, 'post-tool': 0, prompt: 0, stop: 0 };
}

/** Writes a Claude Code session transcript (`~/.claude/projects/<dir>/<session>.jsonl` shape). */
export function writeClaudeSession(path: string, opts: Omit<SessionOptions, 'agent'>): SessionStats {
  const r = rng(opts.seed ?? 1);
  const n = opts.rules ?? 1000;
  const noise = opts.noise ?? true;
  const w = new LineWriter(path);
  const seams = emptySeams();
  let failedResults = 0;
  let continuations = 0;
  let turns = 0;
  let parent: string | null = null;
  let clock = Date.parse('2026-11-30T09:00:00.000Z');
  let msg = 0;
  let callId = 0;
  const common = () => ({ userType: 'external', entrypoint: 'cli', cwd: CWD, sessionId: SESSION_ID, version: VERSION, gitBranch: 'main' });
  const stamp = () => new Date((clock += 37 + Math.floor(r() * 900))).toISOString();
  const line = (fields: Record<string, unknown>) => {
    const id = uuid(r);
    w.push({ parentUuid: parent, isSidechain: false, ...fields, uuid: id, timestamp: stamp(), ...common() });
    parent = id;
  };
  const small = (lastPrompt: string) => {
    if (!noise) return;
    w.push({ type: 'last-prompt', lastPrompt, leafUuid: parent, sessionId: SESSION_ID });
    w.push({ type: 'atis-latch', atis: '', sessionId: SESSION_ID });
  };
  const apiRequest = () => {
    if (noise) w.push({ type: 'api-request', sessionId: SESSION_ID, id: uuid(r), timestamp: stamp(), version: VERSION, querySource: 'repl_main_thread', shapeHash: '84156de0424d32374fce0f1796a74d580c470cb2b8420562ccaed364c0b2511d', params: API_PARAMS, base: uuid(r), keep: 2, tail: ['8cb3e522424b5c74290c32b3eb8910dd17c6fbd199d4943df47295000db6f6fd'], requestDigest: '3da9db5e23a052543bc0098b61986ca371237bc61eec9f70faf137a311698057' });
  };
  const assistant = (id: string, content: unknown[], stopReason: string) =>
    line({ message: { id, type: 'message', role: 'assistant', model: 'claude-opus-5-5', content, stop_reason: stopReason, stop_sequence: null, usage: USAGE, stop_details: null }, requestRef: uuid(r), requestedModel: 'claude-opus-5-5', type: 'assistant', effort: 'medium', madeBy: 'model' });
  const stopLines = (t: number) => {
    const text = lastMessage(r, n, t);
    apiRequest();
    assistant(`msg_${msg++}`, [{ type: 'text', text }], 'end_turn');
    seams.stop++;
  };
  try {
    if (noise) {
      w.push({ type: 'queue-operation', operation: 'enqueue', timestamp: stamp(), sessionId: SESSION_ID, content: 'start' });
      line({ attachment: { type: 'environment', snapshot: { workingDirectory: CWD, isWorktree: false, isGitRepo: true, platform: 'linux', shell: 'bash' } }, type: 'attachment' });
      line({ attachment: { type: 'skill_listing', content: prose(r, 6000), skillCount: 13, isInitial: true }, type: 'attachment' });
    }
    const total = () => seams['pre-tool'] + seams['post-tool'] + seams.prompt + seams.stop;
    for (let t = 0; total() < opts.events; t++) {
      turns++;
      const prompt = promptText(r, n, t);
      const promptId = uuid(r);
      if (noise) {
        w.push({ type: 'queue-operation', operation: 'enqueue', timestamp: stamp(), sessionId: SESSION_ID, content: prompt });
        w.push({ type: 'queue-operation', operation: 'dequeue', timestamp: stamp(), sessionId: SESSION_ID });
      }
      line({ promptId, type: 'user', message: { role: 'user', content: prompt }, permissionMode: 'default', promptSource: 'repl', turnOrigin: 'user' });
      seams.prompt++;
      const calls = 1 + Math.floor(r() * 7);
      const continued = r() < 0.05;
      for (let c = 0; c < calls; c++) {
        if (continued && c === Math.floor(calls / 2)) {
          // The agent stopped, a blocking Stop hook made it go on: a stop, then the feedback line.
          stopLines(t);
          if (noise) line({ type: 'system', subtype: 'stop_hook_summary', hookCount: 1, hookInfos: [{ command: 'node .claude/hook.mjs' }], hookErrors: ['check your work'], preventedContinuation: false, stopReason: '', hasOutput: true, level: 'suggestion' });
          line({ promptId, type: 'user', message: { role: 'user', content: 'Stop hook feedback:\ncheck your work' }, isMeta: true });
          continuations++;
        }
        apiRequest();
        const id = `msg_${msg++}`;
        if (r() < 0.3) assistant(id, [{ type: 'text', text: prose(r, 40 + Math.floor(r() * 160)) }], 'tool_use');
        // One call in ten is a parallel pair: two tool_use lines of one message, then both results.
        const pair = r() < 0.1 ? 2 : 1;
        const made: { toolId: string; name: string; input: Record<string, unknown> }[] = [];
        for (let p = 0; p < pair; p++) {
          const call = claudeCall(r, n, callId);
          const toolId = `toolu_${(callId++).toString(36).padStart(8, '0')}`;
          made.push({ toolId, ...call });
          assistant(id, [{ type: 'tool_use', id: toolId, name: call.name, input: call.input }], 'tool_use');
          seams['pre-tool']++;
          small(prompt);
        }
        for (const { toolId, name, input } of made) {
          const isError = r() < 0.03;
          const output = isError ? 'Exit code 1\nError: command failed' : prose(r, outputSize(r));
          // Claude Code keeps the tool's own result beside the text the model got (the output twice).
          const result =
            name === 'Read'
              ? { type: 'text', file: { filePath: input['file_path'], content: output, numLines: 40, startLine: 1, totalLines: 40 } }
              : name === 'Bash'
                ? { stdout: output, stderr: '', interrupted: false, isImage: false, noOutputExpected: false }
                : { type: 'result', content: output };
          line({ promptId, type: 'user', message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: output, is_error: isError }] }, toolUseResult: result, sandboxed: false, sourceToolAssistantUUID: parent });
          if (isError) failedResults++;
          else seams['post-tool']++;
        }
      }
      stopLines(t);
      small(prompt);
      if (noise) {
        line({ type: 'system', subtype: 'stop_hook_summary', hookCount: 1, hookInfos: [{ command: 'node .claude/hook.mjs', durationMs: 120 }], hookErrors: [], preventedContinuation: false, stopReason: '', hasOutput: false, level: 'suggestion' });
        w.push({ type: 'cost-state', sessionId: SESSION_ID, totalCostUSD: 0.0007 * (t + 1), totalAPIDuration: 797 * (t + 1), totalToolDuration: 521, totalLinesAdded: 2, totalLinesRemoved: 0 });
      }
    }
  } finally {
    w.close();
  }
  const events = seams['pre-tool'] + seams['post-tool'] + seams.prompt + seams.stop;
  return { agent: 'claude', path, bytes: w.bytes, lines: w.lines, turns, seams, events, failedResults, continuations };
}

/** A Codex tool call item, as the rollout writes it. */
function codexCall(r: () => number, n: number, j: number, callId: string): Record<string, unknown> {
  const k = () => Math.floor(r() * n);
  const hit = r() < 0.3;
  const x = r();
  if (x < 0.65) {
    const cmd = hit
      ? [`tool${k()} run --x && git status`, `tool${k()} --force; ls -la | grep x`, `npm test && git sub${k()} push`, `npm install${k()} left-pad`, `deploy${k()} --prod`, `verify${k()} all`][Math.floor(r() * 6)]!
      : PLAIN_COMMANDS[Math.floor(r() * PLAIN_COMMANDS.length)]!;
    return { type: 'function_call', status: 'completed', id: `fc_${j}`, name: 'exec_command', arguments: JSON.stringify({ cmd, workdir: '.', yield_time_ms: 10000 }), call_id: callId };
  }
  if (x < 0.8) {
    const patch = `*** Begin Patch\n*** Update File: src/module${j % 200}.ts\n@@\n-${prose(r, 80)}\n+${prose(r, 100)}\n*** End Patch\n`;
    return { type: 'custom_tool_call', id: `ctc_${j}`, status: 'completed', call_id: callId, name: 'apply_patch', input: patch };
  }
  if (hit || r() < 0.5) return { type: 'function_call', status: 'completed', id: `fc_${j}`, name: 'query', namespace: `mcp__server${k()}`, arguments: JSON.stringify({ mode: `m${k()}`, sql: 'select 1' }), call_id: callId };
  return { type: 'function_call', status: 'completed', id: `fc_${j}`, name: 'get_issue', namespace: 'mcp__github', arguments: JSON.stringify({ owner: 'acme', repo: 'app', issue_number: j % 900 }), call_id: callId };
}

/** Writes a Codex rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` shape). */
export function writeCodexRollout(path: string, opts: Omit<SessionOptions, 'agent'>): SessionStats {
  const r = rng(opts.seed ?? 2);
  const n = opts.rules ?? 1000;
  const noise = opts.noise ?? true;
  const w = new LineWriter(path);
  const seams = emptySeams();
  let continuations = 0;
  let turns = 0;
  let ordinal = 0;
  let clock = Date.parse('2026-11-30T09:00:00.000Z');
  let callNo = 0;
  const stamp = () => new Date((clock += 37 + Math.floor(r() * 900))).toISOString();
  const push = (type: string, payload: Record<string, unknown>) => w.push({ timestamp: stamp(), ordinal: ordinal++, type, payload });
  const item = (payload: Record<string, unknown>, turnId: string) =>
    push('response_item', { ...payload, internal_chat_message_metadata_passthrough: { turn_id: turnId, ...((payload['internal_chat_message_metadata_passthrough'] as object | undefined) ?? {}) } });
  const usage = { input_tokens: 10, cached_input_tokens: 2048, cache_write_input_tokens: 0, output_tokens: 85, reasoning_output_tokens: 0, total_tokens: 2143 };
  const tokens = (turnId: string) => {
    if (!noise) return;
    push('token_usage_record', { thread_id: SESSION_ID, turn_id: turnId, session_id: SESSION_ID, root_turn_id: turnId, response_id: `resp_${ordinal}`, usage, turn_token_usage: usage, thread_token_usage: usage });
    push('event_msg', { type: 'token_count', info: { total_token_usage: usage, last_token_usage: usage, last_usage_includes_reasoning: false, model_context_window: 258400 }, rate_limits: { limit_id: 'codex', limit_name: null, primary: null, secondary: null } });
  };
  const assistantText = (text: string, turnId: string) => {
    if (noise) push('event_msg', { type: 'item_completed', thread_id: SESSION_ID, turn_id: turnId, item: { type: 'AgentMessage', id: `msg_${ordinal}`, content: [{ type: 'Text', text }] } });
    item({ type: 'message', status: 'completed', id: `msg_${ordinal}`, role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }, turnId);
    tokens(turnId);
  };
  try {
    push('session_meta', { session_id: SESSION_ID, id: SESSION_ID, timestamp: stamp(), cwd: CWD, originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli', model_provider: 'openai', base_instructions: { text: noise ? prose(r, 4000) : '' } });
    const total = () => seams['pre-tool'] + seams['post-tool'] + seams.prompt + seams.stop;
    for (let t = 0; total() < opts.events; t++) {
      turns++;
      const turnId = uuid(r);
      push('event_msg', { type: 'task_started', turn_id: turnId, root_turn_id: turnId, started_at: Math.floor(clock / 1000), model_context_window: 258400, collaboration_mode_kind: 'default' });
      if (noise) push('turn_context', { turn_id: turnId, cwd: CWD, approval_policy: 'on-request', model: 'gpt-5.5', summary: 'none', sandbox_policy: { type: 'workspace-write' } });
      const prompt = promptText(r, n, t);
      item({ type: 'message', id: `msg_${ordinal}`, role: 'user', content: [{ type: 'input_text', text: prompt }], internal_chat_message_metadata_passthrough: { content_item_kinds: ['user.text'], content_item_metadata: [{ provenance: { type: 'user' } }] } }, turnId);
      if (noise) push('event_msg', { type: 'item_completed', thread_id: SESSION_ID, turn_id: turnId, item: { type: 'UserMessage', id: uuid(r), content: [{ type: 'text', text: prompt, text_elements: [] }] } });
      seams.prompt++;
      const calls = 1 + Math.floor(r() * 7);
      const continued = r() < 0.05;
      for (let c = 0; c < calls; c++) {
        if (continued && c === Math.floor(calls / 2)) {
          assistantText(lastMessage(r, n, t), turnId);
          seams.stop++;
          item({ type: 'message', id: `msg_${ordinal}`, role: 'user', content: [{ type: 'input_text', text: '<hook_prompt hook_run_id="stop:0:/home/dev/.codex/hooks.json">check your work</hook_prompt>' }], internal_chat_message_metadata_passthrough: { content_item_kinds: ['unknown'], content_item_metadata: [{ provenance: { type: 'harness', hook: true } }] } }, turnId);
          continuations++;
        }
        const callId = `call_${callNo}`;
        const call = codexCall(r, n, callNo++, callId);
        item(call, turnId);
        seams['pre-tool']++;
        tokens(turnId);
        const output = prose(r, outputSize(r));
        if (noise) push('event_msg', { type: 'item_completed', thread_id: SESSION_ID, turn_id: turnId, item: { type: 'CommandExecution', id: callId, status: 'completed', aggregated_output: output.slice(0, 200), exit_code: 0 } });
        const text = `Chunk ID: a663c7\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\n${output}\n`;
        item({ type: call['type'] === 'custom_tool_call' ? 'custom_tool_call_output' : 'function_call_output', id: `fco_${callNo}`, call_id: callId, output: text }, turnId);
        seams['post-tool']++;
      }
      const last = lastMessage(r, n, t);
      assistantText(last, turnId);
      push('event_msg', { type: 'task_complete', turn_id: turnId, root_turn_id: turnId, last_agent_message: last, duration_ms: 1319 });
      seams.stop++;
    }
  } finally {
    w.close();
  }
  const events = seams['pre-tool'] + seams['post-tool'] + seams.prompt + seams.stop;
  return { agent: 'codex', path, bytes: w.bytes, lines: w.lines, turns, seams, events, failedResults: 0, continuations };
}

/** Writes a session of the agent's format. */
export function writeBenchSession(path: string, opts: SessionOptions): SessionStats {
  return opts.agent === 'claude' ? writeClaudeSession(path, opts) : writeCodexRollout(path, opts);
}

// ---------------------------------------------------------------------------------------------
// Running the CLI

interface CliRun {
  wallMs: number;
  /** CPU time of the replay process (user + system, all its threads), ms. */
  cpuMs: number;
  stdout: string;
  stderr: string;
  code: number | null;
}

const CPU_MARK = 'DSHPOLICY_BENCH_CPU ';

/**
 * A module preloaded (`node --require`) into the CLI's process: at exit it writes the process's CPU
 * time to stderr, so a busy machine's waiting is not counted as replay's time.
 */
function writeCpuProbe(dir: string): string {
  const path = join(dir, 'cpu-probe.cjs');
  writeFileSync(path, `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeSync(2, '\\n${CPU_MARK}' + (u.user + u.system) / 1000 + '\\n'); });\n`);
  return path;
}

function runCli(cli: string, args: string[], probe: string): Promise<CliRun> {
  return new Promise((ok, fail) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--require', probe, cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
      let stderr = Buffer.concat(err).toString('utf8');
      const at = stderr.lastIndexOf(`\n${CPU_MARK}`);
      let cpuMs = NaN;
      if (at >= 0) {
        cpuMs = Number(stderr.slice(at + 1 + CPU_MARK.length).trim());
        stderr = stderr.slice(0, at);
      }
      ok({ wallMs, cpuMs, stdout: Buffer.concat(out).toString('utf8'), stderr, code });
    });
  });
}

interface ReplaySummaryJson {
  events: number;
  seconds: number;
  files: { file: string; events: number; seconds: number; cpuSeconds: number }[];
  eventsPerSecond: number;
  skippedLines: number;
  failedToolResults: number;
  seams: Record<ReplaySeam, Record<string, number>>;
  stops: { recordedContinuations: number };
}

/** Events (per seam) from `--format json` output, and its summary. */
function readJsonOutput(stdout: string): { events: number; seams: Record<ReplaySeam, number>; summary: ReplaySummaryJson } {
  const seams = emptySeams();
  let events = 0;
  let summary: ReplaySummaryJson | undefined;
  for (const text of stdout.split('\n')) {
    if (text === '') continue;
    const value = JSON.parse(text) as { seam?: ReplaySeam; summary?: ReplaySummaryJson };
    if (value.summary !== undefined) summary = value.summary;
    else if (value.seam !== undefined) {
      events++;
      seams[value.seam]++;
    }
  }
  if (summary === undefined) throw new Error('replay wrote no summary');
  return { events, seams, summary };
}

function summaryOf(stdout: string): ReplaySummaryJson {
  const last = stdout.trimEnd().split('\n').at(-1) ?? '';
  return (JSON.parse(last) as { summary: ReplaySummaryJson }).summary;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/**
 * Lines of the generated sessions that give events (the generator writes no whitespace, so the
 * top-level `type` reads `"type":"..."`): Claude Code's user and assistant lines and the stop hook
 * summary, Codex's response items and `task_complete`.
 */
export const EVENT_LINES: Record<BenchAgent, RegExp> = {
  claude: /"type":"(?:user|assistant)"|"subtype":"stop_hook_summary"/,
  codex: /"type":"(?:response_item|task_complete)"/,
};

/**
 * What a JSON.parse-based reader of the file spends at least: splitting it into lines, decoding
 * each, and `JSON.parse` of the lines `parse` matches (default every line), in this process, best
 * of `passes`, CPU ms.
 */
export function parseFloorMs(path: string, passes = 2, parse?: RegExp): number {
  const buf = readFileSync(path);
  let best = Infinity;
  let sink = 0;
  for (let p = 0; p < passes; p++) {
    const c0 = process.cpuUsage();
    let from = 0;
    for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, from)) {
      const text = buf.toString('utf8', from, i);
      from = i + 1;
      if (parse !== undefined && !parse.test(text)) continue;
      const value = JSON.parse(text) as { type?: unknown };
      if (value.type !== undefined) sink++;
    }
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  if (sink < 0) process.stdout.write('');
  return best;
}

export interface ReplayBenchOptions {
  /** The built CLI (default dist/cli.cjs of the repository). */
  cli?: string;
  /** Rules of the generated policy (default 1,000). */
  rules?: number;
  /** Events per generated session (default 20,000). */
  events?: number;
  agents?: BenchAgent[];
  /** Runs per measure; the median is kept (default 3; 1 when a run takes over 20 s). */
  runs?: number;
  /** Bookkeeping lines in the sessions (default true). */
  noise?: boolean;
  /** Also time a run without per-event output and one with an empty policy, to split the time (default true). */
  split?: boolean;
}

/** Per event of the measured session, µs, from three runs: json output, no output (`--only pending`), empty policy. */
export interface ReplaySplit {
  /** Reading the file and making the events (empty policy, no output). */
  readUs: number;
  /** Deciding the events with the policy. */
  evaluateUs: number;
  /** Writing a JSON line per event. */
  outputUs: number;
}

export interface ReplayAgentResult {
  agent: BenchAgent;
  /** Events of the measured session (replayed after a warm-up session of the same size). */
  events: number;
  bytes: number;
  lines: number;
  seams: Record<ReplaySeam, number>;
  /** Median wall time of `replay --format json` of the sessions, spawn to exit, ms. */
  wallMs: number;
  /** Median CPU time of that process (all its threads), ms. */
  cpuMs: number;
  /** All the sessions' events (warm-up, measured, measured again) / wall time: the whole command, start-up and warm-up included. */
  eventsPerSecond: number;
  /** The measured session's events / the wall time replay spent on it. */
  netEventsPerSecond: number;
  /** The measured session's events / the CPU time (every thread) spent on it: the rate on one core. */
  eventsPerCpuSecond: number;
  /** The same for the measured session replayed once more in the same command (everything it reaches compiled, the JIT warm). */
  againEventsPerCpuSecond: number;
  /** File bytes per second of the measured session, MiB. */
  megabytesPerSecond: number;
  /** Splitting the measured file into lines and JSON.parse of the lines that give events, in the bench's process, per event, CPU µs. */
  parseFloorUs: number;
  /** From the CPU time spent on the measured session. */
  split?: ReplaySplit;
  /** The same from replay's in-process times (wall clock inside the process). */
  inProcessSplit?: ReplaySplit;
}

export interface ReplayBenchResult {
  rules: number;
  runs: number;
  /** `node -e 0`, median wall time, ms. */
  nodeStartMs: number;
  /** Replaying a one-turn session with the same policy (start-up, bundle load, policy compile), median wall time, ms. */
  fixedMs: number;
  /** The same, CPU time, ms. */
  fixedCpuMs: number;
  agents: ReplayAgentResult[];
  /** The budget's measure: the lowest `eventsPerCpuSecond` of the agents. */
  eventsPerSecond: number;
  budget: number;
  ok: boolean;
}

function defaultCli(): string {
  // Bundled into dist/, __dirname is dist; from the sources it is bench/.
  return typeof __dirname === 'string' ? resolve(__dirname, '..', 'dist', 'cli.cjs') : resolve('dist', 'cli.cjs');
}

interface Timed {
  wallMs: number;
  cpuMs: number;
  /** Each file's share, in order: replay's own wall and CPU time for it, ms. */
  fileMs: number[];
  fileCpuMs: number[];
}

/**
 * Replay throughput of the built CLI on generated sessions (see the top of this file). Budget:
 * at least 100,000 events per CPU-second on a session replayed after a warm-up session (see the top
 * of this file), at 1,000 rules, for each agent's format. Throws when the CLI fails or when replay's events differ
 * from what the generator wrote.
 */
export async function measureReplay(opts: ReplayBenchOptions = {}): Promise<ReplayBenchResult> {
  const cli = opts.cli ?? defaultCli();
  statSync(cli);
  const rules = opts.rules ?? 1000;
  const count = opts.events ?? 20_000;
  const runs = Math.max(1, opts.runs ?? 3);
  const agents = opts.agents ?? ['claude', 'codex'];
  const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-bench-replay-'));
  try {
    const probe = writeCpuProbe(dir);
    const policy = join(dir, 'bench.dshpolicy');
    writeFileSync(policy, generateMixedPolicy(rules));
    const empty = join(dir, 'empty.dshpolicy');
    writeFileSync(empty, 'policy "empty"\n');
    const nodeRuns: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const t0 = process.hrtime.bigint();
      spawnSync(process.execPath, ['-e', '0']);
      nodeRuns.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    /** Medians of `n` runs of `replay <args>`; `check` sees each run's output. */
    const timed = async (args: string[], n: number, check?: (stdout: string) => void): Promise<Timed> => {
      const wall: number[] = [];
      const cpu: number[] = [];
      const fileWall: number[][] = [];
      const fileCpu: number[][] = [];
      for (let i = 0; i < n; i++) {
        const run = await runCli(cli, ['replay', ...args], probe);
        if (run.code !== 0) throw new Error(`\`replay ${args.join(' ')}\` exited with ${run.code}: ${run.stderr}`);
        check?.(run.stdout);
        wall.push(run.wallMs);
        cpu.push(run.cpuMs);
        summaryOf(run.stdout).files.forEach((f, k) => {
          (fileWall[k] ??= []).push(f.seconds * 1000);
          (fileCpu[k] ??= []).push(f.cpuSeconds * 1000);
        });
      }
      return { wallMs: median(wall), cpuMs: median(cpu), fileMs: fileWall.map(median), fileCpuMs: fileCpu.map(median) };
    };
    const tiny = join(dir, 'tiny.jsonl');
    writeClaudeSession(tiny, { events: 1, rules });
    const fixed = await timed(['--policy', policy, tiny, '--format', 'json'], runs);
    const results: ReplayAgentResult[] = [];
    for (const agent of agents) {
      // Sessions of the agent replayed by one command: the first pays what is paid once per
      // process (compiling the policy's regexes and indexes at first use, the JIT's warm-up), the
      // second is measured by replay's own per-file wall and CPU times, and is then replayed once
      // more (everything it reaches compiled, the JIT warm) to show what a longer run tends to.
      const fileOf = (which: string) => join(dir, `${agent}-${which}.jsonl`);
      const sessionOpts = { events: count, rules, ...(opts.noise !== undefined ? { noise: opts.noise } : {}) };
      const warm = writeBenchSession(fileOf('warm'), { agent, seed: 101, ...sessionOpts });
      const measured = writeBenchSession(fileOf('measured'), { agent, ...sessionOpts });
      /** Checks a run over the warm-up session and the measured one twice. */
      const check = (stdout: string) => {
        const times = 2;
        const got = readJsonOutput(stdout);
        const want = emptySeams();
        for (const s of Object.keys(want) as ReplaySeam[]) want[s] = warm.seams[s] + times * measured.seams[s];
        const events = warm.events + times * measured.events;
        const files = got.summary.files;
        if (got.events !== got.summary.events || got.events !== events || JSON.stringify(got.seams) !== JSON.stringify(want) || files.length !== 1 + times || files.slice(1).some((f) => f.events !== measured.events)) {
          throw new Error(`replay of the ${agent} sessions gave ${got.events} events ${JSON.stringify(got.seams)} (summary ${got.summary.events}); the generator wrote ${events} ${JSON.stringify(want)}`);
        }
        const failed = warm.failedResults + times * measured.failedResults;
        const continuations = warm.continuations + times * measured.continuations;
        if (got.summary.skippedLines !== 0 || got.summary.failedToolResults !== failed || got.summary.stops.recordedContinuations !== continuations) {
          throw new Error(`replay of the ${agent} sessions read them differently from how they were written: ${JSON.stringify({ skipped: got.summary.skippedLines, failed: got.summary.failedToolResults, continuations: got.summary.stops.recordedContinuations })}`);
        }
      };
      const args = (p: string, times: number, ...more: string[]) => ['--policy', p, fileOf('warm'), ...Array<string>(times).fill(fileOf('measured')), '--format', 'json', ...more];
      const first = await timed(args(policy, 2), 1, check);
      // A slow evaluator: one run of each measure is enough to see it.
      const agentRuns = first.wallMs > 30_000 ? 1 : runs;
      const json = agentRuns > 1 ? await timed(args(policy, 2), agentRuns, check) : first;
      const events = measured.events;
      const measuredMs = json.fileMs[1]!;
      const measuredCpuMs = json.fileCpuMs[1]!;
      const result: ReplayAgentResult = {
        agent,
        events,
        bytes: measured.bytes,
        lines: measured.lines,
        seams: measured.seams,
        wallMs: json.wallMs,
        cpuMs: json.cpuMs,
        eventsPerSecond: (warm.events + 2 * events) / (json.wallMs / 1000),
        netEventsPerSecond: events / (measuredMs / 1000),
        eventsPerCpuSecond: events / (measuredCpuMs / 1000),
        againEventsPerCpuSecond: events / (json.fileCpuMs[2]! / 1000),
        megabytesPerSecond: measured.bytes / 2 ** 20 / (measuredMs / 1000),
        parseFloorUs: (parseFloorMs(fileOf('measured'), 2, EVENT_LINES[agent]) * 1000) / events,
      };
      if (opts.split !== false) {
        // `--only pending` lists no event here (no `run` rule): decisions, and only the summary written.
        const quiet = await timed(args(policy, 1, '--only', 'pending'), agentRuns);
        const read = await timed(args(empty, 1, '--only', 'pending'), agentRuns);
        const us = (ms: number) => (ms * 1000) / events;
        result.split = { readUs: us(read.fileCpuMs[1]!), evaluateUs: us(quiet.fileCpuMs[1]! - read.fileCpuMs[1]!), outputUs: us(measuredCpuMs - quiet.fileCpuMs[1]!) };
        result.inProcessSplit = { readUs: us(read.fileMs[1]!), evaluateUs: us(quiet.fileMs[1]! - read.fileMs[1]!), outputUs: us(measuredMs - quiet.fileMs[1]!) };
      }
      results.push(result);
      rmSync(fileOf('warm'), { force: true });
      rmSync(fileOf('measured'), { force: true });
    }
    const rate = Math.min(...results.map((r) => r.eventsPerCpuSecond));
    return {
      rules,
      runs,
      nodeStartMs: median(nodeRuns),
      fixedMs: fixed.wallMs,
      fixedCpuMs: fixed.cpuMs,
      agents: results,
      eventsPerSecond: rate,
      budget: 100_000,
      ok: rate >= 100_000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
