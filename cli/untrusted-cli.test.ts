/**
 * Untrusted text stays text: what events, transcripts, hooks, fixtures and policy files say is
 * escaped in every command's human output (cli/untrusted.ts), and exact in its JSON output.
 */
import { describe, expect, it } from 'vitest';
import { encodeString } from '../grammar/index.js';
import { runCli, scratch } from './testkit.js';

/** A retitling OSC, a screen clear, a carriage return, a right-to-left override and an 8-bit CSI. */
const NASTY = '\u001b]0;pwned\u0007 \u001b[2J over\rwrite \u202eevil \u009b31m';
const RAW = ['\u001b', '\u0007', '\r', '\u202e', '\u009b'];
const ESCAPED = ['\\x1b]0;pwned\\x07', '\\x1b[2J', 'over\\rwrite', '\\u202eevil', '\\x9b31m'];

function expectEscaped(text: string): void {
  for (const c of RAW) expect(text, `raw ${JSON.stringify(c)} in ${JSON.stringify(text)}`).not.toContain(c);
  for (const e of ESCAPED) expect(text).toContain(e);
}

const { file } = scratch('dshpolicy-untrusted-');
const says = file('says.txt', NASTY);
// The file name is the repository's too: rule ids carry it.
const policy = file(
  'p\u202e.dshpolicy',
  `on pre-tool {
  deny Bash command "rm *" because ${encodeString(`no rm: ${NASTY}`)}
  run Bash command "curl *" hook "cat '${says}' >&2; exit 2"
  allow Bash command "echo *"
}
on prompt {
  block when prompt contains "pwned" because "no pwning"
}
`,
);
const rmRule = `${policy}:2:3`;
const lines = (...values: unknown[]) => `${values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n')}\n`;
const bash = (command: string, extra: Record<string, unknown> = {}) => ({ seam: 'pre-tool', tool: 'Bash', input: { command }, ...extra });
const events = file(
  'events.jsonl',
  lines(
    bash(`rm ${NASTY}`),
    bash('curl x'),
    { seam: 'prompt', prompt: `${NASTY}\nsecond line` },
    { seam: 'pre-tool', tool: 'Write', input: { file_path: `/tmp/${NASTY}` } },
    `{"seam": ${NASTY}`,
  ),
);

describe('eval', () => {
  it('escapes events, reasons, hook output and rule ids in the table, and keeps the columns aligned', async () => {
    const r = await runCli(['eval', '--policy', policy, '--fixtures', events]);
    expect(r.code).toBe(1); // the last line is not JSON
    expectEscaped(r.out);
    expect(r.out).toContain('no rm: \\x1b]0;pwned');
    expect(r.out).toContain('"\\x1b]0;pwned\\x07'); // the prompt, in plain quotes
    const table = r.out.split('\n');
    const at = table[0]!.indexOf('decision');
    for (const row of table.slice(2, 7)) expect(row.slice(at)).toMatch(/^(deny|block|none|error) /);
  });

  it('keeps JSON exact', async () => {
    const r = await runCli(['eval', '--policy', policy, '--fixtures', events, '--format', 'json']);
    const out = r.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out[0]!['reasons']).toEqual([`no rm: ${NASTY}`]);
    expect(out[0]!['rules']).toEqual([rmRule]);
    expect(out[1]!['reasons']).toEqual([NASTY]);
    expect(r.out).toContain('\\u001b]0;pwned\\u0007 \\u001b[2J over\\rwrite \u202eevil \u009b31m');
  });
});

describe('explain', () => {
  it('escapes the event, the reasons, the parts, the rules and the diagnostics', async () => {
    const r = await runCli(['explain', '--policy', policy, '--fixtures', events]);
    expectEscaped(r.out);
    expect(r.out).toContain('because "\\x1b]0;pwned\\x07');
    for (const c of RAW) expect(r.err).not.toContain(c);
    expect(r.err).toContain('\\x1b]0;pwned\\x07');
    expect(r.err).toMatch(/^5 \| \{"seam": \\x1b\]0;pwned\\x07 \\x1b\[2J over\\rwrite \\u202eevil \\x9b31m$/m);
  });

  it('keeps JSON exact', async () => {
    const r = await runCli(['explain', '--policy', policy, '--event', JSON.stringify(bash('curl x')), '--format', 'json']);
    const x = JSON.parse(r.out) as { reasons: string[]; matched: { reason?: string }[] };
    expect(x.reasons).toEqual([NASTY]);
    expect(x.matched[0]!.reason).toBe(NASTY);
  });
});

describe('replay', () => {
  const session = '00000000-0000-4000-8000-000000000000';
  const entry = (value: Record<string, unknown>) => ({ isSidechain: false, cwd: '/tmp/p', sessionId: session, ...value });
  const call = (id: string, name: string, command: string) => [
    entry({ type: 'assistant', message: { id: `m${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name, input: { command } }], stop_reason: 'tool_use' } }),
    entry({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok', is_error: false }] }, toolUseResult: { stdout: 'ok' } }),
  ];
  // The transcript's name is its directory's: escaped where it is shown.
  const transcript = file(
    `session\u001b[2J.jsonl`,
    lines(
      entry({ type: 'user', message: { role: 'user', content: `say ${NASTY}` }, permissionMode: 'default' }),
      ...call('t1', 'Bash', `rm ${NASTY}`),
      ...call('t2', `Bash${NASTY}`, 'ls'),
      entry({ type: 'assistant', message: { id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' } }),
    ),
  );

  it('escapes the listed events, file names and tool names', async () => {
    const r = await runCli(['replay', '--policy', policy, '--only', 'deny,block,none', transcript]);
    expect(r.code).toBe(0);
    expectEscaped(r.out);
    expect(r.out).toContain('session\\x1b[2J.jsonl:');
    expect(r.out).toMatch(/^Bash\\x1b\]0;pwned\\x07 \\x1b\[2J over\\rwrite \\u202eevil \\x9b31m +1 /m);
    for (const c of RAW) expect(r.err).not.toContain(c);
  });

  it('keeps JSON exact', async () => {
    const r = await runCli(['replay', '--policy', policy, '--format', 'json', transcript]);
    const out = r.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const denied = out.find((l) => l['decision'] === 'deny')!;
    expect(denied['file']).toBe(transcript);
    expect(denied['reasons']).toEqual([`no rm: ${NASTY}`]);
    expect(out.some((l) => l['tool'] === `Bash${NASTY}`)).toBe(true);
  });
});

describe('test', () => {
  const cases = file('cases.jsonl', lines(bash(`rm ${NASTY}`, { expect: 'allow', name: NASTY, expect_reason: 'pwned\\x07' })));

  it('escapes names, events, reasons and rule ids in the human report', async () => {
    const r = await runCli(['test', policy, cases, '--coverage']);
    expect(r.code).toBe(1);
    expectEscaped(r.out);
    expect(r.out).toContain('because /pwned\\\\x07/'); // a backslash before what reads as an escape is doubled
  });

  it('keeps JSON exact, and JUnit well-formed', async () => {
    const json = JSON.parse((await runCli(['test', policy, cases, '--format', 'json'])).out) as { results: { name: string; reasons: string[] }[] };
    expect(json.results[0]!.name).toBe(`line 1: ${NASTY}`);
    expect(json.results[0]!.reasons).toEqual([`no rm: ${NASTY}`]);
    const junit = (await runCli(['test', policy, cases, '--format', 'junit'])).out;
    // XML 1.0 cannot carry C0 controls but tab and line breaks: they are replaced, the rest kept.
    expect(junit).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(junit).toContain('name="line 1: \uFFFD]0;pwned\uFFFD \uFFFD[2J over&#13;write \u202eevil \u009b31m"');
  });
});

describe('check and fmt', () => {
  it('escapes the source line of a code frame, with the caret under what it points at', async () => {
    const bad = file('bad.dshpolicy', 'on pre-tool {\n  deny Bash command "a\u202eb\u001b" when output matches /x/\n}\n');
    const r = await runCli(['check', bad]);
    const frame = r.out.split('\n');
    const line = frame.findIndex((l) => l.startsWith('2 |'));
    expect(frame[line]).toBe('2 |   deny Bash command "a\\u202eb\\x1b" when output matches /x/');
    expect(frame[line + 1]!.indexOf('^')).toBe(frame[line]!.indexOf('output'));
    expect(frame[line + 1]).toMatch(/\^{6}$/);
  });

  it('escapes the lines of a formatting diff', async () => {
    const messy = file('messy.dshpolicy', 'on pre-tool {\n deny Bash command "rm *" because "no\u202e rm" # \u001b]0;x\u0007\n}\n');
    const r = await runCli(['fmt', '--check', messy]);
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(r.out).toContain('- deny Bash command "rm *" because "no\\u202e rm" # \\x1b]0;x\\x07');
  });
});

describe('import --report', () => {
  it('escapes what the hooks file says, and keeps JSON exact', async () => {
    const settings = file('settings.json', JSON.stringify({ hooks: { PreToolUse: [{ matcher: `Bash${NASTY}`, hooks: [{ type: 'command', command: `echo ${NASTY}` }] }] } }));
    const r = await runCli(['import', 'claude', settings, '--report']);
    expectEscaped(r.out);
    const json = JSON.parse((await runCli(['import', 'claude', settings, '--report', '--format', 'json'])).out) as {
      report: { events: { groups: { matcher: string; handlers: { what: string }[] }[] }[] };
    };
    expect(json.report.events[0]!.groups[0]!.matcher).toBe(`Bash${NASTY}`);
    expect(json.report.events[0]!.groups[0]!.handlers[0]!.what).toBe(`echo ${NASTY}`);
  });
});
