/**
 * Differential tests: each row is one hooks.json and one situation (a shell call, an apply_patch call,
 * a tool output, a prompt, the end of a turn, a session start). The real Codex CLI runs it through
 * the harness, dshpolicy evaluates the same hooks offline for the same call, and both must show the
 * row's outcome:
 *
 * - pre-tool: the call ran (its file exists) ⇔ offline `allow` or `none`; blocked (no file, the model
 *   saw Codex's block message) ⇔ offline `deny`, every offline reason inside that message;
 * - prompt: the model was never asked ⇔ offline `block`;
 * - post-tool: the model saw the hook's text instead of the output ⇔ offline `block`, reasons inside it;
 * - stop: one continuation carrying the reasons ⇔ offline `continue` (stop_hook_active false) and then
 *   `stop` (true); the turn halted ⇔ `halt`; the turn simply ended ⇔ `stop`;
 * - every seam: the hook texts the model got as developer messages = the offline context.
 *
 * Only behaviours where Codex and dshpolicy agree are rows here. Runs go two at a time; set
 * DSHPOLICY_E2E=0 to skip.
 */
import { beforeAll, describe, it, type ExpectStatic } from 'vitest';
import type { Decision } from '../../../engine/index.js';
import {
  codexBlockMessage,
  CONTEXT_MARK,
  describeBoth,
  handler,
  hookScript,
  limiter,
  PATCH_TEXT,
  POST_OUTPUT,
  printJson,
  printText,
  runBoth,
  SECOND_ANSWER,
  SHELL_COMMAND,
  type OfflineOutcome,
  type RealOutcome,
  type Situation,
} from './differential-lib.js';
import { CODEX_VERSION, ensureCodex } from './install.js';
import type { HookEvents } from './run.js';

const enabled = process.env['DSHPOLICY_E2E'] !== '0';
const INSTALL_TIMEOUT_MS = 11 * 60_000;
/** Generous: a row may wait for a free slot before its own run of a second or two. */
const ROW_TIMEOUT_MS = 180_000;
const CONCURRENCY = 2;

/** What both sides must show, in the terms of the row's situation. */
type Outcome =
  | { kind: 'runs' }
  | { kind: 'blocked'; reason: string }
  | { kind: 'rewritten'; command: string; file: string }
  | { kind: 'prompt-sent' }
  | { kind: 'prompt-blocked' }
  | { kind: 'accepted' }
  | { kind: 'feedback'; text: string }
  | { kind: 'continues'; reasons: string[] }
  | { kind: 'halts' }
  | { kind: 'ends' }
  | { kind: 'started' };

interface Row {
  behaviour: string;
  situation: Situation;
  hooks: HookEvents;
  scripts: Record<string, string>;
  expect: Outcome;
  /** Hook texts the model is shown as developer messages (default none). */
  context?: string[];
  /** Codex's status words for the hook runs, in any order (`Completed`, `Blocked`, `Failed`, `Stopped`). */
  codex?: string[];
}

type Setup = Pick<Row, 'hooks' | 'scripts'>;

/** One handler on `event` running a script with `body`; `matcher` as written (omitted when undefined). */
function on(event: string, body: string, matcher?: string, timeout?: number): Setup {
  return {
    hooks: { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [handler('hook', timeout)] }] },
    scripts: { hook: hookScript('hook', body) },
  };
}

/** A PreToolUse hook on `Bash` (or `matcher`). */
function pre(body: string, matcher = 'Bash', timeout?: number): Setup {
  return on('PreToolUse', body, matcher, timeout);
}

/** Exit 2 with `reason` on stderr. */
function exit2(reason: string): string {
  return `${printText(reason, 'stderr')}\nexit 2`;
}

function specific(event: string, fields: Record<string, unknown>): { hookSpecificOutput: Record<string, unknown> } {
  return { hookSpecificOutput: { hookEventName: event, ...fields } };
}

/** A Stop hook body that prints `output` only when the turn is not already a continuation. */
function onlyFirstStop(lines: string): string {
  return `if grep -q '"stop_hook_active":false' "$payload"; then\n${lines}\nfi`;
}

const runs: Outcome = { kind: 'runs' };
const blocked = (reason: string): Outcome => ({ kind: 'blocked', reason });
const ctx = (text: string): string => `${CONTEXT_MARK} ${text}`;

const rows: Row[] = [
  // --- PreToolUse: exit codes
  { behaviour: 'PreToolUse exit 0 without output lets the command run', situation: 'shell', ...pre('exit 0'), expect: runs, codex: ['Completed'] },
  { behaviour: 'PreToolUse exit 0 with only stderr lets the command run', situation: 'shell', ...pre(printText('just a note', 'stderr')), expect: runs, codex: ['Completed'] },
  { behaviour: 'PreToolUse exit 2 blocks the command with stderr as the reason', situation: 'shell', ...pre(exit2('no touching')), expect: blocked('no touching'), codex: ['Blocked'] },
  { behaviour: 'PreToolUse exit 2 with empty stderr is a failed hook and the command runs', situation: 'shell', ...pre('exit 2'), expect: runs, codex: ['Failed'] },
  { behaviour: 'PreToolUse exit 1 is a failed hook and the command runs', situation: 'shell', ...pre(`${printText('oops', 'stderr')}\nexit 1`), expect: runs, codex: ['Failed'] },
  {
    behaviour: 'PreToolUse exit 2 blocks even when stdout holds JSON allowing a rewrite',
    situation: 'shell',
    ...pre(`${printJson(specific('PreToolUse', { permissionDecision: 'allow', updatedInput: { command: 'touch other.txt' } }))}\n${exit2('exit code wins')}`),
    expect: blocked('exit code wins'),
    codex: ['Blocked'],
  },
  // --- PreToolUse: JSON output
  {
    behaviour: 'PreToolUse permissionDecision deny blocks with permissionDecisionReason',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'denied by json' }))),
    expect: blocked('denied by json'),
    codex: ['Blocked'],
  },
  {
    behaviour: 'PreToolUse permissionDecision allow without updatedInput is unsupported and fails open',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'allow', permissionDecisionReason: 'fine' }))),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse permissionDecision allow with updatedInput runs the rewritten command instead',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'allow', updatedInput: { command: 'touch other.txt' } }))),
    expect: { kind: 'rewritten', command: 'touch other.txt', file: 'other.txt' },
    codex: ['Completed'],
  },
  {
    behaviour: 'PreToolUse permissionDecision defer is a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'defer' }))),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse unknown permissionDecision value is a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'maybe', permissionDecisionReason: 'bogus' }))),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse permissionDecision ask is unsupported and fails open',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'ask', permissionDecisionReason: 'ask me' }))),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse permissionDecision deny with an empty reason is a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: '' }))),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse permissionDecision deny without a reason is a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'deny' }))),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse permissionDecision deny with a non-string reason is a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 5 }))),
    expect: runs,
    codex: ['Failed'],
  },
  { behaviour: 'PreToolUse legacy decision block with a reason blocks', situation: 'shell', ...pre(printJson({ decision: 'block', reason: 'legacy no' })), expect: blocked('legacy no'), codex: ['Blocked'] },
  { behaviour: 'PreToolUse legacy decision approve is unsupported and the command runs', situation: 'shell', ...pre(printJson({ decision: 'approve', reason: 'ok' })), expect: runs, codex: ['Failed'] },
  { behaviour: 'PreToolUse legacy decision block without a reason is a failed hook and the command runs', situation: 'shell', ...pre(printJson({ decision: 'block' })), expect: runs, codex: ['Failed'] },
  {
    behaviour: 'PreToolUse unknown top-level key makes a deny a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson({ ...specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'deny extra' }), extra: 1 })),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse unknown key inside hookSpecificOutput makes a deny a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'deny extra', extra: 1 }))),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse unknown key next to a legacy block makes it a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson({ decision: 'block', reason: 'legacy extra', extra: true })),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse hookSpecificOutput without hookEventName is a failed hook and the command runs',
    situation: 'shell',
    ...pre(printJson({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'nameless' } })),
    expect: runs,
    codex: ['Failed'],
  },
  {
    behaviour: 'PreToolUse suppressOutput:true is unsupported, so a deny next to it fails open',
    situation: 'shell',
    ...pre(printJson({ suppressOutput: true, ...specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'deny suppressed' }) })),
    expect: runs,
    codex: ['Failed'],
  },
  { behaviour: 'PreToolUse invalid JSON on stdout is a failed hook and the command runs', situation: 'shell', ...pre('echo "{not json"'), expect: runs, codex: ['Failed'] },
  { behaviour: 'PreToolUse a JSON array on stdout is a failed hook and the command runs', situation: 'shell', ...pre('echo "[1]"'), expect: runs, codex: ['Failed'] },
  { behaviour: 'PreToolUse plain text on stdout is ignored', situation: 'shell', ...pre('echo "just words"'), expect: runs, codex: ['Completed'] },
  { behaviour: 'PreToolUse continue:false is unsupported and the command runs', situation: 'shell', ...pre(printJson({ continue: false, stopReason: 'halt it' })), expect: runs, codex: ['Failed'] },
  {
    behaviour: 'PreToolUse deny next to the universal key systemMessage still blocks',
    situation: 'shell',
    ...pre(printJson({ systemMessage: 'note', ...specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'deny with note' }) })),
    expect: blocked('deny with note'),
    codex: ['Blocked'],
  },
  {
    behaviour: 'PreToolUse deny next to continue:true still blocks',
    situation: 'shell',
    ...pre(printJson({ continue: true, ...specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'deny continue' }) })),
    expect: blocked('deny continue'),
    codex: ['Blocked'],
  },
  {
    behaviour: 'PreToolUse additionalContext reaches the model and the command runs',
    situation: 'shell',
    ...pre(printJson(specific('PreToolUse', { additionalContext: ctx('pre-tool context') }))),
    expect: runs,
    context: [ctx('pre-tool context')],
    codex: ['Completed'],
  },
  { behaviour: 'PreToolUse hook past its timeout is killed and the command runs', situation: 'shell', ...pre(`sleep 4\n${exit2('too late')}`, 'Bash', 1), expect: runs, codex: ['Failed'] },
  // --- matchers
  { behaviour: 'matcher exact list Edit|Bash selects Bash', situation: 'shell', ...pre(exit2('list hit'), 'Edit|Bash'), expect: blocked('list hit') },
  { behaviour: 'matcher exact list Bas|Shell selects nothing for Bash', situation: 'shell', ...pre(exit2('list miss'), 'Bas|Shell'), expect: runs, codex: [] },
  { behaviour: 'matcher exact bash is case-sensitive and misses Bash', situation: 'shell', ...pre(exit2('lower'), 'bash'), expect: runs, codex: [] },
  { behaviour: 'matcher exec_command (the model-side name) misses the shell tool', situation: 'shell', ...pre(exit2('model name'), 'exec_command'), expect: runs, codex: [] },
  { behaviour: 'matcher Edit selects apply_patch by alias', situation: 'patch', ...pre(exit2('no edits'), 'Edit'), expect: blocked('no edits') },
  { behaviour: 'matcher Write selects apply_patch by alias', situation: 'patch', ...pre(exit2('no writes'), 'Write'), expect: blocked('no writes') },
  {
    behaviour: 'matcher apply_patch selects apply_patch and deny blocks the patch',
    situation: 'patch',
    ...pre(printJson(specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'no patches' })), 'apply_patch'),
    expect: blocked('no patches'),
  },
  { behaviour: 'matcher Bash misses apply_patch', situation: 'patch', ...pre(exit2('bash only'), 'Bash'), expect: runs, codex: [] },
  { behaviour: 'matcher regex as+h is unanchored and matches inside Bash', situation: 'shell', ...pre(exit2('regex hit'), 'as+h'), expect: blocked('regex hit') },
  { behaviour: 'matcher anchored regex ^Bash$ selects Bash', situation: 'shell', ...pre(exit2('anchored'), '^Bash$'), expect: blocked('anchored') },
  { behaviour: 'matcher (?i)^bash$ is accepted as a case-insensitive regex', situation: 'shell', ...pre(exit2('any case'), '(?i)^bash$'), expect: blocked('any case') },
  { behaviour: 'matcher * selects every tool', situation: 'shell', ...pre(exit2('star'), '*'), expect: blocked('star') },
  { behaviour: 'matcher invalid regex Bash( drops the group and its hook never runs', situation: 'shell', ...pre(exit2('bad regex'), 'Bash('), expect: runs, codex: [] },
  {
    behaviour: 'matcher invalid regex drops only its own group and a sibling group still blocks',
    situation: 'shell',
    hooks: { PreToolUse: [{ matcher: 'Bash(', hooks: [handler('broken')] }, { matcher: 'Bash', hooks: [handler('sound')] }] },
    scripts: { broken: hookScript('broken', exit2('broken group')), sound: hookScript('sound', exit2('sound group')) },
    expect: blocked('sound group'),
    codex: ['Blocked'],
  },
  {
    behaviour: 'two PreToolUse hooks both run and the deny wins over the pass',
    situation: 'shell',
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [handler('passes')] }, { matcher: '*', hooks: [handler('denies')] }] },
    scripts: { passes: hookScript('passes', 'exit 0'), denies: hookScript('denies', exit2('the second hook says no')) },
    expect: blocked('the second hook says no'),
    codex: ['Blocked', 'Completed'],
  },
  // --- UserPromptSubmit
  {
    behaviour: 'UserPromptSubmit additionalContext reaches the model',
    situation: 'prompt',
    ...on('UserPromptSubmit', printJson(specific('UserPromptSubmit', { additionalContext: ctx('prompt context') }))),
    expect: { kind: 'prompt-sent' },
    context: [ctx('prompt context')],
    codex: ['Completed'],
  },
  {
    behaviour: 'UserPromptSubmit plain stdout reaches the model as context',
    situation: 'prompt',
    ...on('UserPromptSubmit', printText(ctx('plain prompt context'))),
    expect: { kind: 'prompt-sent' },
    context: [ctx('plain prompt context')],
    codex: ['Completed'],
  },
  { behaviour: 'UserPromptSubmit decision block keeps the prompt from the model', situation: 'prompt', ...on('UserPromptSubmit', printJson({ decision: 'block', reason: 'no prompts' })), expect: { kind: 'prompt-blocked' }, codex: ['Blocked'] },
  { behaviour: 'UserPromptSubmit exit 2 keeps the prompt from the model', situation: 'prompt', ...on('UserPromptSubmit', exit2('not this prompt')), expect: { kind: 'prompt-blocked' }, codex: ['Blocked'] },
  {
    behaviour: 'UserPromptSubmit ignores its matcher',
    situation: 'prompt',
    ...on('UserPromptSubmit', printJson({ decision: 'block', reason: 'matcher ignored' }), 'NoSuchThing'),
    expect: { kind: 'prompt-blocked' },
    codex: ['Blocked'],
  },
  {
    behaviour: 'UserPromptSubmit continue:false stops before the model is asked',
    situation: 'prompt',
    ...on('UserPromptSubmit', printJson({ continue: false, stopReason: 'prompt stopped' })),
    expect: { kind: 'prompt-blocked' },
    codex: ['Stopped'],
  },
  { behaviour: 'UserPromptSubmit decision block without a reason is a failed hook and the prompt goes on', situation: 'prompt', ...on('UserPromptSubmit', printJson({ decision: 'block' })), expect: { kind: 'prompt-sent' }, codex: ['Failed'] },
  { behaviour: 'UserPromptSubmit exit 2 with empty stderr is a failed hook and the prompt goes on', situation: 'prompt', ...on('UserPromptSubmit', 'exit 2'), expect: { kind: 'prompt-sent' }, codex: ['Failed'] },
  {
    behaviour: 'UserPromptSubmit unknown key makes the hook fail and its additionalContext is dropped',
    situation: 'prompt',
    ...on('UserPromptSubmit', printJson({ ...specific('UserPromptSubmit', { additionalContext: ctx('dropped context') }), extra: 1 })),
    expect: { kind: 'prompt-sent' },
    codex: ['Failed'],
  },
  {
    behaviour: 'UserPromptSubmit hookSpecificOutput without hookEventName fails and its context is dropped',
    situation: 'prompt',
    ...on('UserPromptSubmit', printJson({ hookSpecificOutput: { additionalContext: ctx('nameless context') } })),
    expect: { kind: 'prompt-sent' },
    codex: ['Failed'],
  },
  // --- Stop
  {
    behaviour: 'Stop decision block once continues the turn once with the reason',
    situation: 'stop',
    ...on('Stop', onlyFirstStop(printJson({ decision: 'block', reason: 'run the tests first' }))),
    expect: { kind: 'continues', reasons: ['run the tests first'] },
    codex: ['Blocked', 'Completed'],
  },
  { behaviour: 'Stop exit 2 once continues the turn once with stderr', situation: 'stop', ...on('Stop', onlyFirstStop(exit2('lint first'))), expect: { kind: 'continues', reasons: ['lint first'] }, codex: ['Blocked', 'Completed'] },
  {
    behaviour: 'Stop from two blocking hooks continues once carrying both reasons',
    situation: 'stop',
    hooks: { Stop: [{ hooks: [handler('first'), handler('second')] }] },
    scripts: {
      first: hookScript('first', onlyFirstStop(printJson({ decision: 'block', reason: 'reason one' }))),
      second: hookScript('second', onlyFirstStop(printJson({ decision: 'block', reason: 'reason two' }))),
    },
    expect: { kind: 'continues', reasons: ['reason one', 'reason two'] },
    codex: ['Blocked', 'Blocked', 'Completed', 'Completed'],
  },
  { behaviour: 'Stop continue:false halts the turn', situation: 'stop', ...on('Stop', printJson({ continue: false, stopReason: 'enough' })), expect: { kind: 'halts' }, codex: ['Stopped'] },
  { behaviour: 'Stop plain stdout is ignored and the turn ends', situation: 'stop', ...on('Stop', printText('whatever')), expect: { kind: 'ends' }, codex: ['Failed'] },
  { behaviour: 'Stop decision block without a reason is a failed hook and the turn ends', situation: 'stop', ...on('Stop', printJson({ decision: 'block' })), expect: { kind: 'ends' }, codex: ['Failed'] },
  { behaviour: 'Stop exit 2 with empty stderr is a failed hook and the turn ends', situation: 'stop', ...on('Stop', onlyFirstStop('exit 2')), expect: { kind: 'ends' }, codex: ['Failed'] },
  {
    behaviour: 'Stop unknown key makes a block a failed hook and the turn ends',
    situation: 'stop',
    ...on('Stop', onlyFirstStop(printJson({ decision: 'block', reason: 'strict stop', extra: 1 }))),
    expect: { kind: 'ends' },
    codex: ['Failed'],
  },
  // --- PostToolUse
  { behaviour: 'PostToolUse decision block replaces the output with the reason', situation: 'post', ...on('PostToolUse', printJson({ decision: 'block', reason: 'bad output' }), 'Bash'), expect: { kind: 'feedback', text: 'bad output' }, codex: ['Blocked'] },
  { behaviour: 'PostToolUse exit 2 replaces the output with stderr', situation: 'post', ...on('PostToolUse', exit2('post says no'), 'Bash'), expect: { kind: 'feedback', text: 'post says no' }, codex: ['Blocked'] },
  {
    behaviour: 'PostToolUse additionalContext reaches the model and the output stays',
    situation: 'post',
    ...on('PostToolUse', printJson(specific('PostToolUse', { additionalContext: ctx('post-tool context') })), 'Bash'),
    expect: { kind: 'accepted' },
    context: [ctx('post-tool context')],
    codex: ['Completed'],
  },
  { behaviour: 'PostToolUse continue:false replaces the output with stopReason', situation: 'post', ...on('PostToolUse', printJson({ continue: false, stopReason: 'post stop' }), 'Bash'), expect: { kind: 'feedback', text: 'post stop' }, codex: ['Stopped'] },
  { behaviour: 'PostToolUse decision block without a reason is a failed hook and the output stays', situation: 'post', ...on('PostToolUse', printJson({ decision: 'block' }), 'Bash'), expect: { kind: 'accepted' }, codex: ['Failed'] },
  {
    behaviour: 'PostToolUse unknown key makes a block a failed hook and the output stays',
    situation: 'post',
    ...on('PostToolUse', printJson({ decision: 'block', reason: 'strict post', extra: 1 }), 'Bash'),
    expect: { kind: 'accepted' },
    codex: ['Failed'],
  },
  { behaviour: 'PostToolUse exit 2 with empty stderr is a failed hook and the output stays', situation: 'post', ...on('PostToolUse', 'exit 2', 'Bash'), expect: { kind: 'accepted' }, codex: ['Failed'] },
  // --- SessionStart
  {
    behaviour: 'SessionStart additionalContext reaches the model',
    situation: 'session',
    ...on('SessionStart', printJson(specific('SessionStart', { additionalContext: ctx('session context') }))),
    expect: { kind: 'started' },
    context: [ctx('session context')],
    codex: ['Completed'],
  },
  {
    behaviour: 'SessionStart plain stdout reaches the model as context',
    situation: 'session',
    ...on('SessionStart', printText(ctx('plain session context'))),
    expect: { kind: 'started' },
    context: [ctx('plain session context')],
    codex: ['Completed'],
  },
  { behaviour: 'SessionStart matcher resume does not fire on startup', situation: 'session', ...on('SessionStart', printText(ctx('resumed')), 'resume'), expect: { kind: 'started' }, codex: [] },
  { behaviour: 'SessionStart invalid JSON is a failed hook and adds no context', situation: 'session', ...on('SessionStart', 'echo "{oops"'), expect: { kind: 'started' }, codex: ['Failed'] },
  { behaviour: 'SessionStart exit 2 is a failed hook and nothing changes', situation: 'session', ...on('SessionStart', exit2('no session')), expect: { kind: 'started' }, codex: ['Failed'] },
  // --- Behaviours the real CLI showed beyond its source's documentation
  {
    behaviour: 'PreToolUse hookEventName naming another event is not compared, and the deny blocks',
    situation: 'shell',
    ...pre(printJson(specific('PostToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'wrong name' }))),
    expect: blocked('wrong name'),
    codex: ['Blocked'],
  },
  {
    behaviour: 'UserPromptSubmit hookEventName naming another event is not compared, and the context arrives',
    situation: 'prompt',
    ...on('UserPromptSubmit', printJson(specific('SessionStart', { additionalContext: ctx('ups mismatch') }))),
    expect: { kind: 'prompt-sent' },
    context: [ctx('ups mismatch')],
    codex: ['Completed'],
  },
  {
    behaviour: 'two denying PreToolUse hooks block with the first one\'s reason in configured order',
    situation: 'shell',
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [handler('first'), handler('second')] }] },
    scripts: {
      first: hookScript('first', `sleep 1\n${exit2('a says no')}`),
      second: hookScript('second', printJson(specific('PreToolUse', { permissionDecision: 'deny', permissionDecisionReason: 'b says no' }))),
    },
    expect: blocked('a says no'),
    codex: ['Blocked', 'Blocked'],
  },
];

/** What Codex prints as the tool's output when the call really ran. */
const NORMAL_OUTPUT: Partial<Record<Situation, RegExp>> = {
  shell: /Process exited with code 0/,
  patch: /Success\. Updated the following files/,
  post: new RegExp(`Process exited with code 0[\\s\\S]*${POST_OUTPUT}`),
};
const CALLED: Partial<Record<Situation, string>> = { shell: SHELL_COMMAND, patch: PATCH_TEXT };

function first(offline: OfflineOutcome): Decision {
  const d = offline.decisions[0];
  if (!d) throw new Error('no offline decision');
  return d;
}

function expectInside(expect: ExpectStatic, reasons: string[], text: string, why: string): void {
  expect(reasons.length, why).toBeGreaterThan(0);
  for (const reason of reasons) expect(text, why).toContain(reason);
}

/** Asserts that the real run and the offline decision both show `outcome`. */
function expectAgreement(expect: ExpectStatic, row: Row, outcome: Outcome, real: RealOutcome, offline: OfflineOutcome, why: string): void {
  const d = first(offline);
  switch (outcome.kind) {
    case 'runs':
      expect(real.ran, why).toBe(true);
      expect(real.toolOutput, why).toMatch(NORMAL_OUTPUT[row.situation]!);
      expect(['allow', 'none'], why).toContain(d.decision);
      return;
    case 'blocked':
      expect(real.ran, why).toBe(false);
      expect(real.toolOutput, why).toBe(codexBlockMessage(outcome.reason, CALLED[row.situation]!));
      expect(d.decision, why).toBe('deny');
      expectInside(expect, d.reasons, real.toolOutput!, why);
      return;
    case 'rewritten':
      expect(real.ran, why).toBe(false);
      expect(real.files, why).toContain(outcome.file);
      expect(real.toolOutput, why).toMatch(NORMAL_OUTPUT[row.situation]!);
      expect(d.decision, why).toBe('allow');
      expect(d.updatedInput, why).toEqual({ command: outcome.command });
      return;
    case 'prompt-sent':
      expect(real.requests, why).toBeGreaterThan(0);
      expect(d.decision, why).toBe('allow');
      return;
    case 'prompt-blocked':
      expect(real.requests, why).toBe(0);
      expect(d.decision, why).toBe('block');
      return;
    case 'accepted':
      expect(real.toolOutput, why).toMatch(NORMAL_OUTPUT[row.situation]!);
      expect(d.decision, why).toBe('accept');
      return;
    case 'feedback':
      expect(real.toolOutput, why).toBe(outcome.text);
      expect(d.decision, why).toBe('block');
      expectInside(expect, d.reasons, real.toolOutput!, why);
      return;
    case 'continues': {
      expect(real.continuations, why).toEqual([outcome.reasons]);
      expect(real.stdout, why).toBe(SECOND_ANSWER);
      expect(d.decision, why).toBe('continue');
      expectInside(expect, d.reasons, real.continuations[0]!.join('\n'), why);
      expect(offline.decisions[1]?.decision, why).toBe('stop');
      return;
    }
    case 'halts':
      expect(real.requests, why).toBe(1);
      expect(real.continuations, why).toEqual([]);
      expect(real.statuses.map((s) => s.status), why).toContain('Stopped');
      expect(d.decision, why).toBe('halt');
      return;
    case 'ends':
      expect(real.requests, why).toBe(1);
      expect(real.continuations, why).toEqual([]);
      expect(real.statuses.map((s) => s.status), why).not.toContain('Stopped');
      expect(d.decision, why).toBe('stop');
      return;
    case 'started':
      expect(real.requests, why).toBeGreaterThan(0);
      expect(d.decision, why).toBe('none');
      return;
  }
}

const oneAtATime = limiter(CONCURRENCY);

describe.skipIf(!enabled)(`Codex CLI ${CODEX_VERSION} and dshpolicy offline agree`, { concurrent: true }, () => {
  beforeAll(async () => {
    await ensureCodex();
  }, INSTALL_TIMEOUT_MS);

  it('has at least twenty behaviours, each named once', ({ expect }) => {
    expect(rows.length).toBeGreaterThanOrEqual(20);
    expect(new Set(rows.map((r) => r.behaviour)).size).toBe(rows.length);
  });

  for (const row of rows) {
    it(row.behaviour, { timeout: ROW_TIMEOUT_MS }, async ({ expect }) => {
      const { real, offline } = await oneAtATime(() => runBoth({ situation: row.situation, hooks: row.hooks, scripts: row.scripts }));
      const why = `${row.behaviour}\n${describeBoth(real, offline)}`;
      expect(real.timedOut, why).toBe(false);
      expect(real.exitCode, why).toBe(0);
      const outcome = row.expect;
      expectAgreement(expect, row, outcome, real, offline, why);
      // The same hooks ran on both sides (the stop situation evaluates a second event offline even when Codex never got there).
      const ran = (names: string[]) => (row.situation === 'stop' ? [...new Set(names)] : names);
      expect(ran(real.hooksRun), why).toEqual(ran(offline.hooksRun));
      const context = row.context ?? [];
      expect(real.contexts, why).toEqual(context);
      expect(first(offline).context, why).toEqual(context);
      if (row.codex) expect(real.statuses.map((s) => s.status).sort(), why).toEqual([...row.codex].sort());
    });
  }
});
