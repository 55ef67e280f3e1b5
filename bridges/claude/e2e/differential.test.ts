/**
 * Differential end-to-end tests: for each hook behaviour, the real Claude Code CLI runs a hooks
 * configuration against the scripted model, dshpolicy evaluates the same configuration offline for
 * the same call, and the two must agree.
 *
 * How the sides are compared (the CLI always gets `--allowedTools Bash`, so its own permission flow
 * runs the call when no hook objects):
 * - pre-tool: the call ran <=> `allow` or `none`; blocked with an error tool_result <=> `deny` or
 *   `ask` (print mode cannot ask), and that tool_result contains every offline reason; a different
 *   command ran <=> `allow` with an `updatedInput` that is that command;
 * - prompt: no model turn at all <=> `block`, the result text containing every offline reason;
 * - post-tool: a blocking error shown to the model after the result <=> `block`, with the reasons;
 * - stop: exactly one extra model request, fed the reasons <=> `continue` for
 *   `stop_hook_active: false` and `stop` for `true`; a single request <=> `stop` both times;
 * - context: a hook's context reaches the model <=> dshpolicy returns it as context.
 * Each row also states the outcome, the offline decision word, and whether the hook ran at all
 * (the matcher selected it); those must hold on both sides.
 *
 * Skipped only when DSHPOLICY_E2E=0.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  additionalContext,
  command,
  fail,
  group,
  preToolDecision,
  printJson,
  stopBlockOnce,
  type CommandHandler,
  type HooksSettings,
} from './hooks.js';
import { CLAUDE_VERSION, ensureClaude } from './install.js';
import { describeBoth, limiter, literal, observeOffline, observeReal, type Row } from './differential-support.js';

/** PreToolUse groups: one group with `matcher` (absent when undefined) holding the handlers. */
function pre(matcher: string | undefined, ...handlers: CommandHandler[]): HooksSettings {
  return { PreToolUse: [group(handlers, matcher)] };
}
const onBash = (...handlers: CommandHandler[]): HooksSettings => pre('Bash', ...handlers);
const json = (value: unknown): CommandHandler => command(printJson(value));
const decide = (d: 'allow' | 'deny' | 'ask' | 'defer', reason?: string): CommandHandler => json(preToolDecision(d, reason));
const prompt = (...handlers: CommandHandler[]): HooksSettings => ({ UserPromptSubmit: [group(handlers)] });
const post = (...handlers: CommandHandler[]): HooksSettings => ({ PostToolUse: [group(handlers, 'Bash')] });
const sessionStart = (matcher: string | undefined, ...handlers: CommandHandler[]): HooksSettings => ({ SessionStart: [group(handlers, matcher)] });
/** A Stop hook command that does `then` only while the stop hook is not already active. */
const unlessContinuing = (then: string): string =>
  `payload=$(cat); case "$payload" in *'"stop_hook_active":true'*) exit 0;; esac; ${then}`;

const ROWS: Row[] = [
  // PreToolUse exit codes.
  { name: 'PreToolUse exit 0 (stderr only) lets the call run', seam: 'pre-tool', hooks: onBash(command(fail('exit-zero-note', 0))), fired: true, outcome: 'ran', decision: 'none', unseen: 'exit-zero-note' },
  { name: 'PreToolUse exit 2 blocks with stderr as the reason', seam: 'pre-tool', hooks: onBash(command(fail('no touching today'))), fired: true, outcome: 'blocked', decision: 'deny', reason: 'no touching today' },
  { name: 'PreToolUse exit 1 is a non-blocking error', seam: 'pre-tool', hooks: onBash(command(fail('exit-one-note', 1))), fired: true, outcome: 'ran', decision: 'none', unseen: 'exit-one-note' },
  { name: 'PreToolUse exit 3 is a non-blocking error', seam: 'pre-tool', hooks: onBash(command(fail('exit-three-note', 3))), fired: true, outcome: 'ran', decision: 'none', unseen: 'exit-three-note' },
  {
    name: 'PreToolUse exit 2 with JSON approve on stdout still blocks, with stderr',
    seam: 'pre-tool',
    hooks: onBash(command(`${printJson({ decision: 'approve', reason: 'json says fine' })}; ${fail('stderr says no')}`)),
    fired: true, outcome: 'blocked', decision: 'deny', reason: 'stderr says no',
  },

  // PreToolUse JSON answers.
  { name: 'permissionDecision deny blocks with its reason', seam: 'pre-tool', hooks: onBash(decide('deny', 'deny-reason-1')), fired: true, outcome: 'blocked', decision: 'deny', reason: 'deny-reason-1' },
  { name: 'permissionDecision ask blocks in print mode with its reason', seam: 'pre-tool', hooks: onBash(decide('ask', 'ask-reason-1')), fired: true, outcome: 'blocked', decision: 'ask', reason: 'ask-reason-1' },
  { name: 'permissionDecision allow runs the call', seam: 'pre-tool', hooks: onBash(decide('allow', 'allow-reason-1')), fired: true, outcome: 'ran', decision: 'allow', unseen: 'allow-reason-1' },
  {
    name: 'an invalid permissionDecision value is ignored',
    seam: 'pre-tool',
    hooks: onBash(json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'maybe', permissionDecisionReason: 'maybe-reason' } })),
    fired: true, outcome: 'ran', decision: 'none', unseen: 'maybe-reason',
  },
  { name: 'permissionDecision deny without a reason blocks as "Blocked by hook"', seam: 'pre-tool', hooks: onBash(decide('deny')), fired: true, outcome: 'blocked', decision: 'deny', reason: 'Blocked by hook' },
  { name: 'legacy decision block blocks with its reason', seam: 'pre-tool', hooks: onBash(json({ decision: 'block', reason: 'legacy-block-reason' })), fired: true, outcome: 'blocked', decision: 'deny', reason: 'legacy-block-reason' },
  { name: 'legacy decision approve runs the call', seam: 'pre-tool', hooks: onBash(json({ decision: 'approve', reason: 'legacy-approve-reason' })), fired: true, outcome: 'ran', decision: 'allow', unseen: 'legacy-approve-reason' },
  {
    name: 'a hookEventName of another event voids the answer',
    seam: 'pre-tool',
    hooks: onBash(json({ hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'deny', permissionDecisionReason: 'wrong-event-reason' } })),
    fired: true, outcome: 'ran', decision: 'none', unseen: 'wrong-event-reason',
  },
  {
    name: 'invalid JSON on exit 0 is plain output and the call runs',
    seam: 'pre-tool',
    hooks: onBash(command(`echo '{"hookSpecificOutput": {"permissionDecision": "deny"'`)),
    fired: true, outcome: 'ran', decision: 'none',
  },
  {
    name: 'a hook past its timeout is cancelled and the call runs',
    seam: 'pre-tool',
    hooks: onBash(command(`sleep 4; ${fail('too-late-reason')}`, { timeout: 1 })),
    fired: true, outcome: 'ran', decision: 'none', unseen: 'too-late-reason',
  },
  {
    name: 'PreToolUse additionalContext reaches the model',
    seam: 'pre-tool',
    hooks: onBash(json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', additionalContext: 'pre-tool-context-91' } })),
    fired: true, outcome: 'ran', decision: 'allow', context: 'pre-tool-context-91',
  },

  // Matchers (a blocking hook shows whether the group fired).
  { name: 'matcher: exact list Read|Bash fires', seam: 'pre-tool', hooks: pre('Read|Bash', command(fail('exact-list'))), fired: true, outcome: 'blocked', decision: 'deny', reason: 'exact-list' },
  { name: 'matcher: exact list Read|Write does not fire', seam: 'pre-tool', hooks: pre('Read|Write', command(fail('exact-miss'))), fired: false, outcome: 'ran', decision: 'none' },
  { name: 'matcher: regex ^B.sh$ fires', seam: 'pre-tool', hooks: pre('^B.sh$', command(fail('regex-hit'))), fired: true, outcome: 'blocked', decision: 'deny', reason: 'regex-hit' },
  { name: 'matcher: (?i) is rejected and never fires', seam: 'pre-tool', hooks: pre('(?i)bash', command(fail('inline-flag'))), fired: false, outcome: 'ran', decision: 'none' },
  { name: 'matcher: comma list Read,Bash fires', seam: 'pre-tool', hooks: pre('Read,Bash', command(fail('comma-list'))), fired: true, outcome: 'blocked', decision: 'deny', reason: 'comma-list' },
  { name: 'matcher: spaces around | are trimmed', seam: 'pre-tool', hooks: pre('Read | Bash', command(fail('spaced-list'))), fired: true, outcome: 'blocked', decision: 'deny', reason: 'spaced-list' },
  { name: 'matcher: absent fires for every tool', seam: 'pre-tool', hooks: pre(undefined, command(fail('no-matcher'))), fired: true, outcome: 'blocked', decision: 'deny', reason: 'no-matcher' },
  { name: 'matcher: * fires for every tool', seam: 'pre-tool', hooks: pre('*', command(fail('star-matcher'))), fired: true, outcome: 'blocked', decision: 'deny', reason: 'star-matcher' },

  // Several hooks on one call.
  { name: 'two hooks in one group: deny wins over allow', seam: 'pre-tool', hooks: onBash(decide('allow', 'A allows'), decide('deny', 'B denies')), fired: true, outcome: 'blocked', decision: 'deny', reason: 'B denies' },
  { name: 'two hooks in one group: ask wins over allow', seam: 'pre-tool', hooks: onBash(decide('ask', 'A asks'), decide('allow', 'B allows')), fired: true, outcome: 'blocked', decision: 'ask', reason: 'A asks' },
  {
    name: 'hooks in two groups: a deny in the second wins over an allow in the first',
    seam: 'pre-tool',
    hooks: { PreToolUse: [group([decide('allow', 'group one allows')], 'Bash'), group([decide('deny', 'group two denies')], '*')] },
    fired: true, outcome: 'blocked', decision: 'deny', reason: 'group two denies',
  },

  // Rewriting the call.
  {
    name: 'allow with updatedInput runs the rewritten command',
    seam: 'pre-tool',
    hooks: onBash(json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'touch rewritten.txt' } } })),
    fired: true, outcome: 'rewritten', decision: 'allow', rewrite: { input: { command: 'touch rewritten.txt' }, creates: 'rewritten.txt' },
  },

  // UserPromptSubmit.
  { name: 'UserPromptSubmit additionalContext reaches the model', seam: 'prompt', hooks: prompt(json(additionalContext('UserPromptSubmit', 'prompt-context-10'))), fired: true, outcome: 'passed', decision: 'allow', context: 'prompt-context-10' },
  { name: 'UserPromptSubmit plain stdout reaches the model', seam: 'prompt', hooks: prompt(command('echo prompt-stdout-77')), fired: true, outcome: 'passed', decision: 'allow', context: 'prompt-stdout-77' },
  { name: 'UserPromptSubmit decision block drops the prompt', seam: 'prompt', hooks: prompt(json({ decision: 'block', reason: 'prompt-block-reason' })), fired: true, outcome: 'blocked', decision: 'block', reason: 'prompt-block-reason' },
  { name: 'UserPromptSubmit exit 2 drops the prompt', seam: 'prompt', hooks: prompt(command(fail('prompt-exit-two'))), fired: true, outcome: 'blocked', decision: 'block', reason: 'prompt-exit-two' },
  { name: 'UserPromptSubmit exit 1 is a non-blocking error', seam: 'prompt', hooks: prompt(command(fail('prompt-exit-one', 1))), fired: true, outcome: 'passed', decision: 'allow', unseen: 'prompt-exit-one' },
  { name: 'UserPromptSubmit ignores a matcher', seam: 'prompt', hooks: { UserPromptSubmit: [group([command('echo prompt-matcher-5')], 'Nope')] }, fired: true, outcome: 'passed', decision: 'allow', context: 'prompt-matcher-5' },

  // PostToolUse.
  { name: 'PostToolUse decision block shows the model its reason', seam: 'post-tool', hooks: post(json({ decision: 'block', reason: 'post-block-reason' })), fired: true, outcome: 'blocked', decision: 'block', reason: 'post-block-reason' },
  { name: 'PostToolUse exit 2 shows the model its stderr', seam: 'post-tool', hooks: post(command(fail('post-exit-two'))), fired: true, outcome: 'blocked', decision: 'block', reason: 'post-exit-two' },
  { name: 'PostToolUse additionalContext reaches the model', seam: 'post-tool', hooks: post(json(additionalContext('PostToolUse', 'post-context-44'))), fired: true, outcome: 'accepted', decision: 'accept', context: 'post-context-44' },
  { name: 'PostToolUse plain stdout does not reach the model', seam: 'post-tool', hooks: post(command('echo post-stdout-66')), fired: true, outcome: 'accepted', decision: 'accept', unseen: 'post-stdout-66' },

  // Stop.
  { name: 'Stop decision block continues the turn exactly once', seam: 'stop', hooks: { Stop: [group([command(stopBlockOnce('run the tests first'))])] }, fired: true, outcome: 'continued-once', decision: 'continue', reason: 'run the tests first' },
  { name: 'Stop exit 2 continues the turn exactly once', seam: 'stop', hooks: { Stop: [group([command(unlessContinuing(fail('stop-exit-two')))])] }, fired: true, outcome: 'continued-once', decision: 'continue', reason: 'stop-exit-two' },

  // SessionStart.
  { name: 'SessionStart plain stdout reaches the model', seam: 'session-start', hooks: sessionStart(undefined, command('echo session-stdout-3')), fired: true, outcome: 'started', decision: 'none', context: 'session-stdout-3' },
  { name: 'SessionStart additionalContext reaches the model', seam: 'session-start', hooks: sessionStart(undefined, json(additionalContext('SessionStart', 'session-context-21'))), fired: true, outcome: 'started', decision: 'none', context: 'session-context-21' },
  { name: 'SessionStart matcher resume does not fire at startup', seam: 'session-start', hooks: sessionStart('resume', command('echo session-resume-12')), fired: false, outcome: 'started', decision: 'none', unseen: 'session-resume-12' },
  // Behaviours the real CLI showed beyond its documentation.
  { name: 'updatedInput without a permissionDecision rewrites the call', seam: 'pre-tool', hooks: onBash(json({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'touch rewritten.txt' } } })), fired: true, outcome: 'rewritten', decision: 'none', rewrite: { input: { command: 'touch rewritten.txt' }, creates: 'rewritten.txt' } },
  { name: 'PreToolUse exit 2 with empty stderr blocks with "No stderr output"', seam: 'pre-tool', hooks: onBash(command('exit 2')), fired: true, outcome: 'blocked', decision: 'deny', reason: 'No stderr output' },
  { name: 'PreToolUse exit 2 with stdout only blocks with "No stderr output"', seam: 'pre-tool', hooks: onBash(command('echo stdout-only; exit 2')), fired: true, outcome: 'blocked', decision: 'deny', reason: 'No stderr output' },
  { name: 'PreToolUse decision block without reason says "Blocked by hook"', seam: 'pre-tool', hooks: onBash(json({ decision: 'block' })), fired: true, outcome: 'blocked', decision: 'deny', reason: 'Blocked by hook' },
  { name: 'UserPromptSubmit decision block without reason says "Blocked by hook"', seam: 'prompt', hooks: prompt(json({ decision: 'block' })), fired: true, outcome: 'blocked', decision: 'block', reason: 'Blocked by hook' },
  { name: 'PostToolUse decision block without reason says "Blocked by hook"', seam: 'post-tool', hooks: post(json({ decision: 'block' })), fired: true, outcome: 'blocked', decision: 'block', reason: 'Blocked by hook' },
  { name: 'Stop decision block without reason says "Blocked by hook"', seam: 'stop', hooks: { Stop: [group([command(unlessContinuing(printJson({ decision: 'block' })))])] }, fired: true, outcome: 'continued-once', decision: 'continue', reason: 'Blocked by hook' },
  { name: 'an unknown handler type voids every hook of the settings file', seam: 'pre-tool', hooks: { PreToolUse: [group([command(fail('valid hook denies'))], 'Bash'), group([{ type: 'bogus', command: 'true' } as unknown as CommandHandler], 'Read')] }, fired: false, outcome: 'ran', decision: 'none' },
  { name: 'exit 2 with a JSON deny on stdout takes the JSON reason', seam: 'pre-tool', hooks: onBash(command(`${printJson(preToolDecision('deny', 'json-reason'))}; ${fail('stderr-reason')}`)), fired: true, outcome: 'blocked', decision: 'deny', reason: 'json-reason' },
  { name: 'exit 2 with a legacy JSON block on stdout takes the JSON reason', seam: 'pre-tool', hooks: onBash(command(`${printJson({ decision: 'block', reason: 'legacy-json' })}; ${fail('stderr-reason')}`)), fired: true, outcome: 'blocked', decision: 'deny', reason: 'legacy-json' },
  { name: 'a JSON deny with exit 1 blocks', seam: 'pre-tool', hooks: onBash(command(`${printJson(preToolDecision('deny', 'deny-exit-one'))}; exit 1`)), fired: true, outcome: 'blocked', decision: 'deny', reason: 'deny-exit-one' },
  { name: 'a JSON deny with exit 3 blocks', seam: 'pre-tool', hooks: onBash(command(`${printJson(preToolDecision('deny', 'deny-exit-three'))}; exit 3`)), fired: true, outcome: 'blocked', decision: 'deny', reason: 'deny-exit-three' },
  { name: 'a JSON allow with updatedInput and exit 1 rewrites', seam: 'pre-tool', hooks: onBash(command(`${printJson({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'touch rewritten.txt' } } })}; exit 1`)), fired: true, outcome: 'rewritten', decision: 'allow', rewrite: { input: { command: 'touch rewritten.txt' }, creates: 'rewritten.txt' } },
  { name: 'UserPromptSubmit JSON block with exit 1 drops the prompt', seam: 'prompt', hooks: prompt(command(`${printJson({ decision: 'block', reason: 'prompt-block-exit-one' })}; exit 1`)), fired: true, outcome: 'blocked', decision: 'block', reason: 'prompt-block-exit-one' },
  { name: 'UserPromptSubmit additionalContext with exit 1 reaches the model', seam: 'prompt', hooks: prompt(command(`${printJson(additionalContext('UserPromptSubmit', 'prompt-context-exit-one'))}; exit 1`)), fired: true, outcome: 'passed', decision: 'allow', context: 'prompt-context-exit-one' },
  { name: 'PostToolUse JSON block with exit 1 blocks', seam: 'post-tool', hooks: post(command(`${printJson({ decision: 'block', reason: 'post-block-exit-one' })}; exit 1`)), fired: true, outcome: 'blocked', decision: 'block', reason: 'post-block-exit-one' },
  { name: 'Stop JSON block with exit 1 continues once', seam: 'stop', hooks: { Stop: [group([command(unlessContinuing(`${printJson({ decision: 'block', reason: 'stop-block-exit-one' })}; exit 1`))])] }, fired: true, outcome: 'continued-once', decision: 'continue', reason: 'stop-block-exit-one' },
  { name: 'a legacy block beside permissionDecision allow blocks', seam: 'pre-tool', hooks: onBash(json({ decision: 'block', reason: 'legacy-beats-allow', hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } })), fired: true, outcome: 'blocked', decision: 'deny', reason: 'legacy-beats-allow' },
  { name: 'a hookSpecificOutput without hookEventName voids the answer', seam: 'pre-tool', hooks: onBash(json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'nameless-deny' } })), fired: true, outcome: 'ran', decision: 'none', unseen: 'nameless-deny' },
];

/** A line the CLI writes to the model for a hook's context (`<Event>[:<name>] hook additional context: X`). */
const CONTEXT_LINE = /hook (additional context|success): /;

// Real runs take a few seconds each, mostly the CLI starting; two at a time halves the wall time.
const slot = limiter(2);

describe.skipIf(process.env.DSHPOLICY_E2E === '0')(`differential: Claude Code ${CLAUDE_VERSION} vs dshpolicy offline`, () => {
  beforeAll(async () => {
    await ensureClaude();
  }, 600_000);

  for (const row of ROWS) {
    it.concurrent(row.name, { timeout: 240_000 }, async () => {
      const [real, offline] = await slot(() => Promise.all([observeReal(row.seam, row.hooks), observeOffline(row.seam, row.hooks)]));
      const both = describeBoth(real, offline);

      // The two sides agree, and say what the row states.
      expect({ fired: offline.fired, outcome: offline.outcome }, both).toEqual({ fired: real.fired, outcome: real.outcome });
      expect({ fired: real.fired, outcome: real.outcome, decision: offline.decision.decision }, both).toEqual({
        fired: row.fired,
        outcome: row.outcome,
        decision: row.decision,
      });

      // Reasons: every offline reason is in what the CLI showed, and so is the row's.
      if (row.outcome === 'blocked' || row.outcome === 'continued-once') {
        expect(row.reason, 'a blocking row names its reason').toBeDefined();
        expect(offline.decision.reasons.length, both).toBeGreaterThan(0);
        for (const reason of offline.decision.reasons) expect(real.reasonText, both).toContain(reason);
        expect(real.reasonText, both).toContain(row.reason);
        expect(offline.decision.reasons.some((r) => r.includes(row.reason!)), both).toBe(true);
      }
      if (row.seam === 'stop') expect(offline.decisions[1]?.decision, both).toBe('stop');

      // Context: the model saw it <=> dshpolicy returns it.
      if (row.context !== undefined) {
        expect(real.modelText, both).toMatch(new RegExp(`${CONTEXT_LINE.source}${literal(row.context)}`));
        expect(offline.decision.context, both).toContain(row.context);
      } else {
        expect(real.modelText, both).not.toMatch(CONTEXT_LINE);
        expect(offline.decision.context, both).toEqual([]);
      }
      if (row.unseen !== undefined) {
        expect(real.modelText, both).not.toContain(row.unseen);
        expect(offline.decision.context.join('\n'), both).not.toContain(row.unseen);
      }

      // Rewrites: the command dshpolicy returns is the one that ran.
      if (row.outcome === 'rewritten') {
        expect(row.rewrite, 'a rewriting row names the new input').toBeDefined();
        expect(offline.decision.updatedInput, both).toEqual(row.rewrite!.input);
        expect(real.run.exists(row.rewrite!.creates), both).toBe(true);
      } else {
        expect(offline.decision.updatedInput, both).toBeUndefined();
      }
    });
  }
});
