/**
 * Differential end-to-end tests for Codex hook events without a seam (PreCompact, PostCompact,
 * SubagentStart, SubagentStop, SessionEnd) and for the shell Codex runs hooks with. The real
 * `codex exec` runs a hooks.json against the scripted model; dshpolicy loads the same hooks.json and
 * evaluates the same event offline (`evaluateAny` with the real hook runner). Each side is reduced,
 * without looking at the row, to one outcome word per situation:
 *
 * - compact (`-c model_auto_compact_token_limit=5`: after the model's exec_command call Codex
 *   compacts, asking the model for a summary, then asks again): `compacted` (three requests, the
 *   second the compaction prompt, exit 0) <=> anything but `halt`; `halted-before-compaction` (one
 *   request, "turn interrupted", exit 1) <=> `halt` on PreCompact; `halted-after-compaction` (the
 *   compaction ran, then "turn interrupted", exit 1) <=> `halt` on PostCompact;
 * - subagent (`features.multi_agent_v2`: the model spawns a child with collaboration.spawn_agent and
 *   waits for it; the child's requests are answered by content): `continued-once` (the child is
 *   asked once more, with a `<hook_prompt>` carrying the reason) <=> `continue` for
 *   `stop_hook_active: false`; `ran` <=> anything else (a SubagentStop `halt` ends the child only);
 * - session (SessionEnd, at exit): `ended`; the hooks cannot decide, and what they do is judged by
 *   the files they leave, on both sides.
 *
 * Also compared: which hook scripts ran, Codex's `hook: <Event> <Status>` words against the offline
 * hook results (Stopped = halt, Failed = a failed hook), the hook context the child was shown, and
 * for payload rows the payload itself (with the keys dshpolicy is known to add pinned under
 * `payload.extraOffline`). Skipped when DSHPOLICY_E2E=0.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { compileHooks, loadHooksText } from '../../index.js';
import {
  compilePolicy,
  evaluateAny,
  IR_VERSION,
  normalizeAnyEvent,
  processHookRunner,
  type AgentEventDecision,
  type Diagnostic,
} from '../../../engine/index.js';
import { CONTEXT_MARK, handler, hookScript, limiter, printJson, printText } from './differential-lib.js';
import { CODEX_VERSION, ensureCodex } from './install.js';
import { messagesByRole, type RecordedRequest, type Turn } from './model.js';
import { BIN_ENV, OUT_ENV, runCodex, type HookEvents, type HookStatus, type RunCodexOptions } from './run.js';

const enabled = process.env['DSHPOLICY_E2E'] !== '0';
const INSTALL_TIMEOUT_MS = 11 * 60_000;
const ROW_TIMEOUT_MS = 180_000;

// ---------------------------------------------------------------------------------------------
// Situations.

type Situation = 'compact' | 'subagent' | 'session';

const FINAL = 'final';
const SUB_ANSWER = 'sub answer';
const COMPACTION_PROMPT = 'CONTEXT CHECKPOINT COMPACTION';
/** Codex's developer instructions of a freshly spawned child: what tells a child's request from its parent's. */
const CHILD_MARK = 'newly spawned child agent';

const isChild = (req: RecordedRequest): boolean => JSON.stringify((req.body as { input?: unknown } | undefined)?.input ?? '').includes(CHILD_MARK);
const isCompaction = (req: RecordedRequest): boolean => messagesByRole(req, 'user').some((t) => t.includes(COMPACTION_PROMPT));

const SITUATIONS: Record<Situation, Pick<RunCodexOptions, 'script' | 'args' | 'route'>> = {
  compact: {
    script: [{ call: { name: 'exec_command', args: { cmd: 'echo hi' } } }, { text: 'summary of the work' }, { text: FINAL }],
    args: ['-c', 'model_auto_compact_token_limit=5'],
  },
  subagent: {
    script: [
      { call: { name: 'spawn_agent', namespace: 'collaboration', args: { task_name: 'helper', message: 'say hi from the child' } } },
      { call: { name: 'wait_agent', namespace: 'collaboration', args: { timeout_ms: 10_000 } } },
      { text: FINAL },
    ],
    args: ['-c', 'features.multi_agent_v2=true'],
    route: (req): Turn | undefined => (isChild(req) ? { text: SUB_ANSWER } : undefined),
  },
  session: { script: [{ text: FINAL }] },
};

/** The event(s) as fixture lines, with the payload fields 0.171.0 sent in the same situation. */
function fixtures(event: string, cwd: string): Record<string, unknown>[] {
  const base = { event, agent: 'codex', cwd, permission_mode: 'bypassPermissions' };
  switch (event) {
    case 'PreCompact':
    case 'PostCompact':
      return [{ ...base, trigger: 'auto' }];
    case 'SubagentStart':
      return [{ ...base, agent_id: '00000000-0000-4000-8000-00000000000a', agent_type: 'default' }];
    case 'SubagentStop': {
      const stop = { ...base, agent_transcript_path: null, agent_id: '00000000-0000-4000-8000-00000000000a', agent_type: 'default' };
      return [
        { ...stop, stop_hook_active: false, last_assistant_message: SUB_ANSWER },
        { ...stop, stop_hook_active: true, last_assistant_message: SUB_ANSWER },
      ];
    }
    case 'SessionEnd':
      return [{ ...base, reason: 'other' }];
    default:
      throw new Error(`no fixture for ${event}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Rows.

interface Row {
  behaviour: string;
  situation: Situation;
  event: string;
  hooks: HookEvents;
  scripts: Record<string, string>;
  /** Whether the hook runs at all. */
  fired: boolean;
  /** What Codex did, in the situation's words. */
  outcome: string;
  /** dshpolicy's decision word (SubagentStop: for `stop_hook_active: false`). */
  decision: string;
  /** The continuation text the child got, which dshpolicy gives as its reason. */
  reason?: string;
  /** Hook texts the child was shown as developer messages (those carrying CONTEXT_MARK). */
  context?: string[];
  /** Codex's status words for the row's event (it prints none for subagent and SessionEnd hooks). */
  codex?: string[];
  /** Files the hooks write into $DSHPOLICY_E2E_OUT, and whether each exists afterwards on both sides. */
  files?: Record<string, boolean>;
  /** Files whose content must be the same on both sides, and match the pattern. */
  sameContent?: Record<string, RegExp>;
  /** Compare the payload the script `hook` saved (keys dshpolicy adds that Codex does not send). */
  payload?: { extraOffline?: string[] };
  /** More environment for both sides (Codex, and the offline hook runner). */
  env?: Record<string, string>;
}

type Setup = Pick<Row, 'hooks' | 'scripts'>;

/**
 * One handler on `event` running the script `hook` with `body`; `matcher` as written (omitted when
 * undefined); `timeout` in seconds (30 when undefined, none at all when null).
 */
function on(event: string, body: string, matcher?: string, timeout?: number | null): Setup {
  const h = handler('hook', timeout ?? undefined);
  if (timeout === null) delete h.timeout;
  return {
    hooks: { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [h] }] },
    scripts: { hook: hookScript('hook', body) },
  };
}

function exit2(reason: string): string {
  return `${printText(reason, 'stderr')}\nexit 2`;
}

/** Runs `lines` only while the payload says `stop_hook_active: false`. */
function onlyFirstStop(lines: string): string {
  return `if grep -q '"stop_hook_active":false' "$payload"; then\n${lines}\nfi`;
}

const specific = (event: string, fields: Record<string, unknown>): unknown => ({ hookSpecificOutput: { hookEventName: event, ...fields } });
const ctx = (text: string): string => `${CONTEXT_MARK} ${text}`;
const out = (file: string): string => `"$${OUT_ENV}/${file}"`;

const rows: Row[] = [
  // PreCompact.
  {
    behaviour: 'PreCompact matcher auto fires on an automatic compaction with the turn payload',
    situation: 'compact', event: 'PreCompact', ...on('PreCompact', 'exit 0', 'auto'),
    fired: true, outcome: 'compacted', decision: 'none', codex: ['Completed'], payload: {},
  },
  {
    behaviour: 'PreCompact matcher manual does not fire on an automatic compaction',
    situation: 'compact', event: 'PreCompact', ...on('PreCompact', exit2('never'), 'manual'),
    fired: false, outcome: 'compacted', decision: 'none', codex: [],
  },
  {
    behaviour: 'PreCompact continue false stops the compaction and interrupts the turn',
    situation: 'compact', event: 'PreCompact', ...on('PreCompact', printJson({ continue: false, stopReason: 'no compaction now' })),
    fired: true, outcome: 'halted-before-compaction', decision: 'halt', codex: ['Stopped'],
  },
  {
    behaviour: 'PreCompact exit 2 means nothing: a failed hook, and the compaction runs',
    situation: 'compact', event: 'PreCompact', ...on('PreCompact', exit2('please do not')),
    fired: true, outcome: 'compacted', decision: 'none', codex: ['Failed'],
  },
  {
    behaviour: 'PreCompact decision block is not supported: a failed hook, and the compaction runs',
    situation: 'compact', event: 'PreCompact', ...on('PreCompact', printJson({ decision: 'block', reason: 'not now' })),
    fired: true, outcome: 'compacted', decision: 'none', codex: ['Failed'],
  },
  {
    behaviour: 'PreCompact hookSpecificOutput is not supported: a failed hook, and the compaction runs',
    situation: 'compact', event: 'PreCompact', ...on('PreCompact', printJson(specific('PreCompact', { additionalContext: ctx('compact') }))),
    fired: true, outcome: 'compacted', decision: 'none', codex: ['Failed'],
  },
  // PostCompact.
  {
    behaviour: 'PostCompact fires after the compaction with the turn payload',
    situation: 'compact', event: 'PostCompact', ...on('PostCompact', 'exit 0', 'auto'),
    fired: true, outcome: 'compacted', decision: 'none', codex: ['Completed'], payload: {},
  },
  {
    behaviour: 'PostCompact continue false interrupts the turn after the compaction',
    situation: 'compact', event: 'PostCompact', ...on('PostCompact', printJson({ continue: false, stopReason: 'stop after compaction' })),
    fired: true, outcome: 'halted-after-compaction', decision: 'halt', codex: ['Stopped'],
  },
  {
    behaviour: 'PostCompact exit 2 means nothing: a failed hook, and the turn goes on',
    situation: 'compact', event: 'PostCompact', ...on('PostCompact', exit2('too late')),
    fired: true, outcome: 'compacted', decision: 'none', codex: ['Failed'],
  },

  // SubagentStart.
  {
    behaviour: 'SubagentStart additionalContext reaches the child as a developer message',
    situation: 'subagent', event: 'SubagentStart', ...on('SubagentStart', printJson(specific('SubagentStart', { additionalContext: ctx('child json') }))),
    fired: true, outcome: 'ran', decision: 'none', context: [ctx('child json')], codex: [], payload: {},
  },
  {
    behaviour: 'SubagentStart plain stdout reaches the child (matcher default)',
    situation: 'subagent', event: 'SubagentStart', ...on('SubagentStart', printText(ctx('child plain')), 'default'),
    fired: true, outcome: 'ran', decision: 'none', context: [ctx('child plain')], codex: [],
  },
  {
    behaviour: 'SubagentStart matcher worker does not fire for a default child',
    situation: 'subagent', event: 'SubagentStart', ...on('SubagentStart', printText(ctx('never')), 'worker'),
    fired: false, outcome: 'ran', decision: 'none', codex: [],
  },
  // SubagentStop.
  {
    behaviour: 'SubagentStop fires when the child stops, with its payload',
    situation: 'subagent', event: 'SubagentStop', ...on('SubagentStop', 'exit 0'),
    fired: true, outcome: 'ran', decision: 'none', codex: [], payload: {},
  },
  {
    behaviour: 'SubagentStop decision block keeps the child working once with the reason',
    situation: 'subagent', event: 'SubagentStop', ...on('SubagentStop', onlyFirstStop(printJson({ decision: 'block', reason: 'child keep going' }))),
    fired: true, outcome: 'continued-once', decision: 'continue', reason: 'child keep going', codex: [],
  },
  {
    behaviour: 'SubagentStop exit 2 keeps the child working once with stderr',
    situation: 'subagent', event: 'SubagentStop', ...on('SubagentStop', onlyFirstStop(exit2('child exit two'))),
    fired: true, outcome: 'continued-once', decision: 'continue', reason: 'child exit two', codex: [],
  },
  {
    behaviour: 'SubagentStop continue false ends the child and the parent goes on',
    situation: 'subagent', event: 'SubagentStop', ...on('SubagentStop', printJson({ continue: false, stopReason: 'child halt' })),
    fired: true, outcome: 'ran', decision: 'halt', codex: [],
  },
  {
    behaviour: 'SubagentStop plain stdout is a failed hook and the child ends',
    situation: 'subagent', event: 'SubagentStop', ...on('SubagentStop', 'echo not json'),
    fired: true, outcome: 'ran', decision: 'none', codex: [],
  },

  // SessionEnd.
  {
    behaviour: 'SessionEnd runs at exit with reason other; continue false changes nothing',
    situation: 'session', event: 'SessionEnd', ...on('SessionEnd', `touch ${out('end.txt')}\n${printJson({ continue: false, stopReason: 'end' })}`, 'other'),
    fired: true, outcome: 'ended', decision: 'none', codex: [], files: { 'end.txt': true },
    payload: {},
  },
  {
    behaviour: 'SessionEnd matcher clear does not fire at the end of an exec run',
    situation: 'session', event: 'SessionEnd', ...on('SessionEnd', `touch ${out('end.txt')}`, 'clear'),
    fired: false, outcome: 'ended', decision: 'none', codex: [], files: { 'end.txt': false },
  },
  {
    behaviour: 'SessionEnd exit 2 changes nothing',
    situation: 'session', event: 'SessionEnd', ...on('SessionEnd', exit2('end exit two')),
    fired: true, outcome: 'ended', decision: 'none', codex: [],
  },
  {
    behaviour: 'SessionEnd hooks get 1 s without a timeout: a hook sleeping 2.5 s never writes its file',
    situation: 'session', event: 'SessionEnd', ...on('SessionEnd', `sleep 2.5\ntouch ${out('late.txt')}`, undefined, null),
    fired: true, outcome: 'ended', decision: 'none', codex: [], files: { 'late.txt': false },
  },
  {
    behaviour: 'SessionEnd timeout 30 is clamped to 3 s: a hook sleeping 1.5 s writes its file, one sleeping 4 s does not',
    situation: 'session', event: 'SessionEnd',
    hooks: { SessionEnd: [{ hooks: [handler('quick', 30), handler('slow', 30)] }] },
    scripts: { quick: hookScript('quick', `sleep 1.5\ntouch ${out('quick.txt')}`), slow: hookScript('slow', `sleep 4\ntouch ${out('slow.txt')}`) },
    fired: true, outcome: 'ended', decision: 'none', codex: [], files: { 'quick.txt': true, 'slow.txt': false },
  },

  // The shell: a non-login `/bin/bash -c` whatever SHELL says.
  {
    behaviour: 'hooks run under a non-login /bin/bash -c even with SHELL=/bin/sh',
    situation: 'session', event: 'SessionEnd',
    hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: `{ echo "$0"; shopt login_shell; echo "$-"; } > ${out('shell.txt')}` }] }] },
    scripts: {},
    fired: true, outcome: 'ended', decision: 'none', codex: [], files: { 'shell.txt': true },
    sameContent: { 'shell.txt': /^\/bin\/bash\nlogin_shell\s+off\nhBc\n$/ },
    env: { SHELL: '/bin/sh' },
  },
];

// ---------------------------------------------------------------------------------------------
// Codex.

interface RealSide {
  fired: boolean;
  outcome: string;
  /** The `<hook_prompt>` texts of the child's second request. */
  continuation: string[];
  /** CONTEXT_MARK developer messages of the child's first request. */
  contexts: string[];
  statuses: HookStatus[];
  hooksRun: string[];
  captures: Record<string, string>;
  payload?: Record<string, unknown>;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  requests: number;
}

const HOOK_PROMPT = /<hook_prompt hook_run_id="[^"]*">([\s\S]*?)<\/hook_prompt>/g;

/** Names of the scripts whose saved payloads are among `files` (one per run), sorted. */
function hooksRun(files: string[], scripts: Record<string, string>): string[] {
  return files.filter((f) => Object.keys(scripts).some((s) => f.startsWith(`${s}.`))).map((f) => f.replace(/\.[^.]*$/, '')).sort();
}

/** The first payload the script `hook` saved for `event` (not a `stop_hook_active: true` one). */
function firstPayload(files: Record<string, string>, event: string): Record<string, unknown> | undefined {
  for (const [name, text] of Object.entries(files)) {
    if (!name.startsWith('hook.')) continue;
    const value = JSON.parse(text) as Record<string, unknown>;
    if (value['hook_event_name'] === event && value['stop_hook_active'] !== true) return value;
  }
  return undefined;
}

async function observeReal(row: Row): Promise<RealSide> {
  const r = await runCodex({ ...SITUATIONS[row.situation], hooks: row.hooks, scripts: row.scripts, ...(row.env ? { env: row.env } : {}), timeoutMs: 45_000 });
  const reqs = r.requests.filter((q) => q.responses);
  const stdout = r.stdout.trim();
  let outcome = `unexpected: exit ${String(r.exitCode)}, ${reqs.length} requests, stdout ${JSON.stringify(stdout)}`;
  let continuation: string[] = [];
  const contexts: string[] = [];
  switch (row.situation) {
    case 'compact':
      if (reqs.length === 3 && isCompaction(reqs[1]!) && r.exitCode === 0 && stdout === FINAL) outcome = 'compacted';
      else if (reqs.length === 1 && r.exitCode === 1 && r.stderr.includes('turn interrupted')) outcome = 'halted-before-compaction';
      else if (reqs.length === 2 && isCompaction(reqs[1]!) && r.exitCode === 1 && r.stderr.includes('turn interrupted')) outcome = 'halted-after-compaction';
      break;
    case 'subagent': {
      const child = reqs.filter(isChild);
      if (r.exitCode === 0 && stdout === FINAL && child.length === 1) outcome = 'ran';
      else if (r.exitCode === 0 && stdout === FINAL && child.length === 2) outcome = 'continued-once';
      if (child[1]) continuation = [...(messagesByRole(child[1], 'user').at(-1) ?? '').matchAll(HOOK_PROMPT)].map((m) => m[1]!);
      if (child[0]) for (const text of messagesByRole(child[0], 'developer')) if (text.includes(CONTEXT_MARK)) contexts.push(text);
      break;
    }
    case 'session':
      if (r.exitCode === 0 && stdout === FINAL) outcome = 'ended';
      break;
  }
  const run = hooksRun(Object.keys(r.captures), row.scripts);
  const statuses = r.hookStatuses.filter((s) => s.event === row.event);
  // Inline commands (no script) show that they ran by the files they write.
  const fired = Object.keys(row.scripts).length > 0 ? run.length > 0 : Object.keys(row.files ?? {}).some((f) => Object.hasOwn(r.captures, f));
  const payload = firstPayload(r.captures, row.event);
  return {
    fired, outcome, continuation, contexts, statuses, hooksRun: run, captures: r.captures,
    ...(payload ? { payload } : {}),
    stdout, stderr: r.stderr, exitCode: r.exitCode, timedOut: r.timedOut, requests: reqs.length,
  };
}

// ---------------------------------------------------------------------------------------------
// dshpolicy offline.

interface OfflineSide {
  decisions: AgentEventDecision[];
  decision: AgentEventDecision;
  fired: boolean;
  outcome: string;
  /** Codex's status word each hook run would get: Stopped (halt), Failed (a failed hook), else Completed. */
  statuses: string[];
  hooksRun: string[];
  captures: Record<string, string>;
  payload?: Record<string, unknown>;
  diagnostics: Diagnostic[];
}

function outcomeOf(row: Row, decisions: AgentEventDecision[]): string {
  const d = decisions[0]!;
  switch (row.situation) {
    case 'compact':
      if (d.decision === 'halt') return row.event === 'PreCompact' ? 'halted-before-compaction' : 'halted-after-compaction';
      return d.decision === 'none' ? 'compacted' : `decision ${d.decision}`;
    case 'subagent':
      if (d.event === 'SubagentStop' && d.decision === 'continue') return decisions[1]?.decision === 'continue' ? 'continued-more-than-once' : 'continued-once';
      return 'ran';
    case 'session':
      return d.decision === 'none' ? 'ended' : `decision ${d.decision}`;
  }
}

async function observeOffline(row: Row): Promise<OfflineSide> {
  const root = await mkdtemp(join(tmpdir(), 'dshpolicy-codex-agent-diff-'));
  try {
    const project = join(root, 'project');
    const bin = join(root, 'bin');
    const outDir = join(root, 'out');
    for (const dir of [project, bin, outDir]) await mkdir(dir, { recursive: true });
    for (const [name, content] of Object.entries(row.scripts)) {
      await writeFile(join(bin, name), content);
      await chmod(join(bin, name), 0o755);
    }
    const file = join(root, 'hooks.json');
    const text = `${JSON.stringify({ hooks: row.hooks }, null, 2)}\n`;
    await writeFile(file, text);
    const config = loadHooksText('codex', text, file);
    const compiled = compileHooks(config);
    const policy = compilePolicy({ version: IR_VERSION, sources: [], rules: compiled.rules, tests: [] });
    const runner = processHookRunner({ env: { ...process.env, ...row.env, [BIN_ENV]: bin, [OUT_ENV]: outDir } });
    const decisions: AgentEventDecision[] = [];
    for (const fixture of fixtures(row.event, project)) {
      // A SubagentStop hook runs again only when its first answer kept the child working.
      if (decisions.length > 0 && decisions[0]!.decision !== 'continue') break;
      const { event, diagnostics } = normalizeAnyEvent(fixture);
      if (!event) throw new Error(`fixture rejected: ${diagnostics.map((d) => d.message).join('; ')}`);
      const decision = await evaluateAny(policy, event, { runner });
      if (decision.seam !== 'agent-event') throw new Error(`expected an agent-event decision, got ${decision.seam}`);
      decisions.push(decision);
    }
    const captures: Record<string, string> = {};
    for (const name of await readdir(outDir)) captures[name] = await readFile(join(outDir, name), 'utf8');
    const d = decisions[0]!;
    const failed = (rule: string): boolean => d.diagnostics.some((x) => x.code === 'hook/failed' && x.message.includes(`\`${rule}\``));
    const payload = firstPayload(captures, row.event);
    return {
      decisions,
      decision: d,
      fired: d.trace.some((t) => t.hook !== undefined),
      outcome: outcomeOf(row, decisions),
      statuses: d.trace.filter((t) => t.hook !== undefined).map((t) => (t.effect === 'halt' ? 'Stopped' : failed(t.rule) ? 'Failed' : 'Completed')),
      hooksRun: hooksRun(Object.keys(captures), row.scripts),
      captures,
      ...(payload ? { payload } : {}),
      diagnostics: [...config.diagnostics, ...compiled.diagnostics, ...decisions.flatMap((x) => x.diagnostics)],
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function describeBoth(real: RealSide, offline: OfflineSide): string {
  const { stderr, ...brief } = real;
  return [
    `real: ${JSON.stringify(brief)}`,
    `offline: ${JSON.stringify({
      fired: offline.fired,
      outcome: offline.outcome,
      statuses: offline.statuses,
      decisions: offline.decisions.map((d) => ({ decision: d.decision, reasons: d.reasons, context: d.context })),
      hooks: offline.decision.trace.filter((t) => t.hook !== undefined).map((t) => `${t.effect}: ${t.hook!.summary}${t.hook!.timedOut ? ' (timed out)' : ''}`),
      hooksRun: offline.hooksRun,
      captures: offline.captures,
      payload: offline.payload,
    })}`,
    `offline diagnostics: ${offline.diagnostics.map((d) => `${d.code} ${d.severity}: ${d.message}`).join(' | ') || 'none'}`,
    `--- codex stderr\n${stderr}`,
  ].join('\n');
}

/** Payload keys whose values only a live session knows. */
const VOLATILE = new Set(['session_id', 'turn_id', 'transcript_path', 'cwd', 'agent_id', 'agent_transcript_path']);

function expectPayloads(expect: ExpectStatic, row: Row, real: RealSide, offline: OfflineSide, why: string): void {
  expect(real.payload, why).toBeDefined();
  expect(offline.payload, why).toBeDefined();
  const realKeys = Object.keys(real.payload!).sort();
  const offlineKeys = Object.keys(offline.payload!).sort();
  const extra = row.payload?.extraOffline ?? [];
  expect(offlineKeys, why).toEqual([...realKeys, ...extra].sort());
  for (const key of realKeys.filter((k) => !VOLATILE.has(k))) {
    expect({ key, value: offline.payload![key] }, why).toEqual({ key, value: real.payload![key] });
  }
}

// ---------------------------------------------------------------------------------------------

const oneAtATime = limiter(2);

describe.skipIf(!enabled)(`agent events without a seam: Codex CLI ${CODEX_VERSION} vs dshpolicy offline`, { concurrent: true }, () => {
  beforeAll(async () => {
    await ensureCodex();
  }, INSTALL_TIMEOUT_MS);

  it('names every row once', ({ expect }) => {
    expect(new Set(rows.map((r) => r.behaviour)).size).toBe(rows.length);
  });

  for (const row of rows) {
    it(row.behaviour, { timeout: ROW_TIMEOUT_MS }, async ({ expect }) => {
      const [real, offline] = await oneAtATime(() => Promise.all([observeReal(row), observeOffline(row)]));
      const why = `${row.behaviour}\n${describeBoth(real, offline)}`;
      expect(real.timedOut, why).toBe(false);

      // Codex did what the row says; dshpolicy's word is the row's; the two outcomes agree.
      expect({ fired: real.fired, outcome: real.outcome }, why).toEqual({ fired: row.fired, outcome: row.outcome });
      expect({ fired: offline.fired, outcome: offline.outcome, decision: offline.decision.decision }, why).toEqual({
        fired: row.fired,
        outcome: row.outcome,
        decision: row.decision,
      });
      expect(real.hooksRun, why).toEqual(offline.hooksRun);

      // Codex's status words, where it prints them, are what the offline hook results say.
      if (row.codex) {
        expect(real.statuses.map((s) => s.status).sort(), why).toEqual([...row.codex].sort());
        if (row.codex.length > 0) expect(offline.statuses.sort(), why).toEqual([...row.codex].sort());
      }

      // A continuation: the child was sent exactly the offline reasons.
      if (row.reason !== undefined) {
        expect(real.continuation, why).toEqual([row.reason]);
        expect(offline.decision.reasons, why).toEqual([row.reason]);
      } else {
        expect(real.continuation, why).toEqual([]);
      }

      // Context the child was shown <=> the offline context.
      const context = row.context ?? [];
      expect(real.contexts, why).toEqual(context);
      expect(offline.decision.context, why).toEqual(context);

      // Files the hooks leave: the same on both sides.
      for (const [name, present] of Object.entries(row.files ?? {})) {
        expect({ file: name, real: Object.hasOwn(real.captures, name), offline: Object.hasOwn(offline.captures, name) }, why).toEqual({
          file: name,
          real: present,
          offline: present,
        });
      }
      for (const [name, pattern] of Object.entries(row.sameContent ?? {})) {
        expect(real.captures[name], why).toMatch(pattern);
        expect(offline.captures[name], why).toBe(real.captures[name]);
      }
      if (row.payload) expectPayloads(expect, row, real, offline, why);
    });
  }
});
