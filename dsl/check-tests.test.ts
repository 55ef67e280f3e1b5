import { describe, expect, it } from 'vitest';
import { codesAt } from './compile-testkit.js';
import { compileText } from './index.js';

/** A test block whose cases start on line 2, column 3. */
const cases = (...lines: string[]) => compileText(`test "t" {\n${lines.map((l) => `  ${l}\n`).join('')}}\n`);

describe('test cases', () => {
  it('checks the decision word against the seam', () => {
    const r = cases('prompt "x" => deny');
    expect(codesAt(r)).toEqual(['check/bad-test-decision@2:17']);
    expect(r.diagnostics[0]).toMatchObject({
      severity: 'error',
      message: '`deny` is not a decision of the `prompt` seam',
      help: 'the `prompt` seam decides `block` or `allow`',
    });
  });

  it('accepts each seam’s own decisions', () => {
    const r = cases(
      'pre-tool Bash { command: "ls" } => deny',
      'pre-tool Bash { command: "ls" } => none',
      'post-tool Bash { command: "ls" } => accept',
      'prompt "x" => allow',
      'stop {} => halt',
      'stop {} => stop',
      'session-start {} => none',
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.tests).toHaveLength(7);
  });

  it('suggests a close decision word', () => {
    const r = cases('stop {} => contine');
    expect(r.diagnostics[0]!.help).toBe('did you mean `continue`? the `stop` seam decides `halt`, `continue` or `stop`');
  });

  it('reports an unknown seam word', () => {
    const r = cases('pretool Bash { command: "ls" } => deny');
    expect(codesAt(r)).toEqual(['check/unknown-seam@2:3']);
    expect(r.diagnostics[0]!.help).toBe('did you mean `pre-tool`?');
  });

  it('needs a tool and an object on the tool seams', () => {
    const r = cases('pre-tool { command: "ls" } => deny', 'post-tool Bash "ls" => block', 'pre-tool Bash => deny');
    expect(codesAt(r)).toEqual(['check/bad-test-case@2:3', 'check/bad-test-case@3:18', 'check/bad-test-case@4:3']);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'a `pre-tool` case needs a tool',
      'a `post-tool` case needs the tool input as an object',
      'a `pre-tool` case needs the tool input as an object',
    ]);
  });

  it('refuses a tool pattern in a case', () => {
    expect(codesAt(cases('pre-tool mcp__* {} => deny'))).toEqual(['check/bad-test-case@2:12']);
  });

  it('warns about an unknown tool in a case', () => {
    const r = cases('pre-tool Bsh { command: "ls" } => deny');
    expect(codesAt(r)).toEqual(['check/unknown-tool@2:12']);
    expect(r.ir).toBeDefined();
  });

  it('refuses a tool on the seams without tools', () => {
    expect(codesAt(cases('stop Bash {} => stop'))).toEqual(['check/bad-test-case@2:8']);
  });

  it('needs the prompt text on a prompt case', () => {
    expect(codesAt(cases('prompt { cwd: "/" } => allow'))).toEqual(['check/bad-test-case@2:10']);
    expect(cases('prompt { prompt: "hi", cwd: "/" } => allow').diagnostics).toEqual([]);
  });

  it('refuses a string on the stop and session-start seams', () => {
    expect(codesAt(cases('stop "x" => stop', 'session-start "x" => none'))).toEqual(['check/bad-test-case@2:8', 'check/bad-test-case@3:17']);
  });

  it('refuses a field given twice', () => {
    const r = cases('prompt "x" with { prompt: "y" } => allow', 'pre-tool Bash {} with { seam: "stop" } => none');
    expect(codesAt(r)).toEqual(['check/bad-test-case@2:21', 'check/bad-test-case@3:27']);
    expect(r.diagnostics[0]!.message).toBe('`prompt` is already given by this case');
  });

  it('lets `with` override the defaults of stop and session-start', () => {
    const r = cases('stop with { turn: [], stop_hook_active: true } => stop', 'session-start with { source: "resume" } => none');
    expect(r.diagnostics).toEqual([]);
  });

  it('refuses regexes and durations in payloads', () => {
    const r = cases('pre-tool Bash { command: /ls/ } => deny', 'stop { t: 5s } => stop');
    expect(codesAt(r)).toEqual(['check/bad-test-value@2:28', 'check/bad-test-value@3:13']);
    expect(r.diagnostics.map((d) => d.message)).toEqual(['a regex is not a JSON value', 'a duration is not a JSON value']);
  });

  it('reports a regex reached through a name where the name is used', () => {
    const r = compileText('let cmd = [/ls/]\ntest "t" {\n  pre-tool Bash { command: cmd } => deny\n}\n');
    expect(codesAt(r)).toEqual(['check/bad-test-value@3:28']);
    expect(r.diagnostics[0]!.message).toBe('in `cmd`: a regex is not a JSON value');
  });

  it('validates a because regex', () => {
    const r = cases('prompt "x" => block because /a(/');
    expect(codesAt(r)).toEqual(['check/invalid-regex@2:33']);
  });
});

describe('raw event cases', () => {
  it('maps the hook event to its seam and checks the decision against it', () => {
    const ok = cases('event { hook_event_name: "UserPromptSubmit", prompt: "x" } => block');
    expect(ok.diagnostics).toEqual([]);
    const r = cases('event { hook_event_name: "PreToolUse", tool_name: "Bash" } => block');
    expect(codesAt(r)).toEqual(['check/bad-test-decision@2:65']);
    expect(r.diagnostics[0]!.message).toBe('`block` is not a decision of the `pre-tool` seam');
  });

  it('knows the five hook events', () => {
    const r = cases(
      'event { hook_event_name: "PreToolUse" } => deny',
      'event { hook_event_name: "PostToolUse" } => accept',
      'event { hook_event_name: "UserPromptSubmit" } => allow',
      'event { hook_event_name: "Stop" } => continue',
      'event { hook_event_name: "SessionStart" } => none',
    );
    expect(r.diagnostics).toEqual([]);
  });

  it('reports another hook event', () => {
    const r = cases('event { hook_event_name: "Notification" } => none');
    expect(codesAt(r)).toEqual(['check/unknown-hook-event@2:28']);
    expect(r.diagnostics[0]!.message).toBe('`Notification` is not a hook event this version handles');
  });

  it('needs a hook_event_name', () => {
    const r = cases('event { tool_name: "Bash" } => none');
    expect(codesAt(r)).toEqual(['check/bad-test-case@2:9']);
    expect(r.diagnostics[0]!.message).toBe('an `event` case needs a `hook_event_name`');
  });

  it('takes no tool and no `with`', () => {
    const r = cases('event Bash { hook_event_name: "Stop" } => stop', 'event { hook_event_name: "Stop" } with { x: 1 } => stop');
    expect(codesAt(r)).toEqual(['check/bad-test-case@2:9', 'check/bad-test-case@3:42']);
  });
});
