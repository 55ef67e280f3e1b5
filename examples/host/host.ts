/**
 * A small host that wires dshpolicy into its own interception points the way a harness does, using
 * only the package's public API (`import ... from 'dshpolicy'`). A fake model loop starts a session,
 * submits prompts (one blocked, one allowed), proposes tool calls (one allowed, one denied, one asked
 * and approved once, one asked and cancelled), runs a fake tool, post-executes every call (denied
 * ones too, as error results), and asks the policy whether the turn may end; the policy makes it
 * continue once with a model-facing reason, then lets it stop.
 *
 * Every call goes tools/pre-execute (the policy and the host's own listener, as one waterfall whose
 * `none` falls to the host's default) -> approval (only `allowed-once` goes on) -> the policy's
 * deny-only guard -> the tool -> tools/post-execute. The host prints one JSON line per decision:
 * its transcript, which transcript.jsonl beside it holds.
 */
import { readFileSync } from 'node:fs';
import { applyGuards, compilePolicy, compileText, policySeams, resolveAsk, waterfall } from 'dshpolicy';
import type { Approval, PreToolDecision, PreToolEvent, SeamListener, ToolCall } from 'dshpolicy';

const source = readFileSync(new URL('./policy.dshpolicy', import.meta.url), 'utf8');
const { ir, diagnostics } = compileText(source, 'policy.dshpolicy');
if (!ir) throw new Error(diagnostics.map((d) => d.message).join('\n'));
const seams = policySeams(compilePolicy(ir));
const cwd = '/repo';

function log(at: string, subject: Record<string, unknown>, decision: unknown): void {
  console.log(JSON.stringify({ at, ...subject, decision }));
}

// The host's own pre-execute listener: its sandbox has no sudo; about anything else it has no opinion.
const sandbox: SeamListener<'pre-tool'> = (event) => {
  const command = event.input['command'];
  if (typeof command === 'string' && /\bsudo\b/.test(command)) return { kind: 'deny', reason: 'the sandbox has no sudo', context: [] };
  return { kind: 'none', context: [] };
};
// The policy and the sandbox as one listener: most restrictive wins, whichever runs first.
const preExecute = waterfall('pre-tool', [seams.preExecute, sandbox]);
// What the host does when no listener decides: it asks.
const hostDefault = (): PreToolDecision => ({ kind: 'ask', reason: 'no listener decided this call', context: [] });

// The person at the keyboard: approves pushing main once, and cancels anything else it is asked.
const approval: Approval = ({ event }) => (event.input['command'] === 'git push origin main' ? 'allowed-once' : 'cancelled');

function fakeTool(call: ToolCall): string {
  const command = String(call.input['command']);
  if (command === 'npm test') return '12 passing, 1 failing';
  if (command.startsWith('git push')) return 'pushed';
  return 'done';
}

const bash = (command: string): ToolCall => ({ tool: 'Bash', input: { command } });

/** What the fake model proposes, step by step, in the turn of the allowed prompt. */
const STEPS: ToolCall[][] = [
  [bash('npm test'), bash('sudo rm -rf /'), bash('git push origin main'), bash('git push origin v2')],
  [bash('npm run lint')],
];

async function toolCall(call: ToolCall, ran: ToolCall[]): Promise<void> {
  const subject = { tool: call.tool, command: call.input['command'] };
  const event: PreToolEvent = { seam: 'pre-tool', ...call, cwd };
  const proposed = await preExecute(event, hostDefault);
  log('tools/pre-execute', subject, proposed);
  const settled = await resolveAsk(event, proposed, approval);
  if (proposed.kind === 'ask') log('approval', subject, settled);
  const outcome = applyGuards(event, settled, [seams.guard]);
  log('guards', subject, outcome);
  // Only an allowed call runs (with a hook's rewrite of its input, when one gave it); every call,
  // run or refused, still reaches post-execute.
  let input = call.input;
  let output: string;
  if (outcome.kind === 'allow') {
    input = outcome.updatedInput ?? call.input;
    output = fakeTool({ tool: call.tool, input });
    ran.push({ tool: call.tool, input });
  } else {
    output = `not run: ${outcome.kind === 'deny' ? outcome.reason : 'no listener allowed it'}`;
  }
  const post = await seams.postExecute({ seam: 'post-tool', tool: call.tool, input, output, response: { isError: outcome.kind !== 'allow' }, cwd });
  log('tools/post-execute', subject, post);
}

async function turn(): Promise<void> {
  const ran: ToolCall[] = [];
  for (let step = 0, continuations = 0; ; step++) {
    for (const call of STEPS[step] ?? []) await toolCall(call, ran);
    const d = await seams.turnContinuation({ seam: 'stop', turn: ran, stop_hook_active: continuations > 0, continuations, cwd });
    log('agent/turn-continuation', { step: step + 1 }, d);
    // `continue` steers the next step of the same turn with d.reason; `stop` and `halt` end it.
    if (d.kind !== 'continue') return;
    continuations++;
  }
}

log('agent/session-start', { source: 'startup' }, await seams.sessionStart({ seam: 'session-start', source: 'startup', cwd }));
for (const prompt of ['here is the key: -----BEGIN RSA PRIVATE KEY-----', 'fix the failing test, then push main']) {
  const d = await seams.promptSubmit({ seam: 'prompt', prompt, cwd });
  log('agent/prompt-submit', { prompt }, d);
  // A blocked prompt ends its turn rejected; an allowed one runs with its context injected.
  if (d.kind === 'allow') await turn();
}
