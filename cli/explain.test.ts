import { describe, expect, it } from 'vitest';
import { UsageError } from './args.js';
import { explainCommand } from './explain.js';
import { runCommand, scratch } from './testkit.js';

const run = (argv: string[], stdin = '') => runCommand(explainCommand, argv, stdin);

const { file } = scratch('dshpolicy-explain-');
const pol = file(
  'p.dshpolicy',
  `on pre-tool {
  allow Read, Glob, Grep
  deny  Bash command "rm -rf /" because "never delete a root"
  ask   Bash command "git push *" because "pushing needs a human"
  deny  Bash when command matches /git\\s+push\\b.*--force/ because "no force pushes"
  allow Bash command "git add *", "git status"
  run   Bash command "curl *" hook "echo 'no curl' >&2; exit 2"
}
`,
);
const event = (command: string) => JSON.stringify({ seam: 'pre-tool', tool: 'Bash', input: { command } });

describe('dshpolicy explain', () => {
  it('explains one event for people', async () => {
    const r = await run(['--policy', pol, '--event', event('git add . && git push --force')]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('event: pre-tool Bash git add . && git push --force');
    expect(lines[1]).toBe(`decision: deny  (by ${pol}:5:3)`);
    expect(lines[2]).toBe('  because: no force pushes');
    expect(r.out).toContain('matched (3):\n');
    expect(r.out).toMatch(new RegExp(`  ${pol}:4:3  ask +outranked +because "pushing needs a human"; parts: \`git push --force\``));
    expect(r.out).toMatch(new RegExp(`  ${pol}:6:3  allow +partial +parts: \`git add \\.\`; not every part is allowed: \`git push --force\``));
    expect(r.out).toContain('skipped (3):\n');
    expect(r.out).toMatch(new RegExp(`  ${pol}:2:3  allow +tool +\`Bash\` is none of \`Read\`, \`Glob\` or \`Grep\``));
    expect(r.out).toMatch(new RegExp(`  ${pol}:3:3  deny +selector +no part of the command matches \`rm -rf /\``));
    expect(r.out).toMatch(new RegExp(`  ${pol}:7:3  run +selector +no part of the command matches \`curl \\*\``));
    expect(r.out).toContain('command parts (2):\n');
    expect(r.out).toMatch(/ {2}# {2}part {14}rules +note\n/);
    expect(r.out).toMatch(new RegExp(`  1  git add \\. +allow ${pol}:6:3\n`));
    expect(r.out).toMatch(new RegExp(`  2  git push --force +ask ${pol}:4:3 +no allow covers it\n`));
  });

  it('prints one JSON object per event', async () => {
    const fx = file('f.jsonl', `${event('git add . && git push --force')}\n\n${event('sudo rm -rf /')}\n${event('git status; "$(cmd)"')}\n`);
    const r = await run(['--policy', pol, '--fixtures', fx, '--format', 'json']);
    expect(r.code).toBe(0);
    const objs = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(objs).toHaveLength(3);
    expect(objs[0]).toMatchObject({
      line: 1,
      seam: 'pre-tool',
      decision: 'deny',
      reasons: ['no force pushes'],
      rules: [`${pol}:5:3`],
      matched: [
        { rule: `${pol}:4:3`, effect: 'ask', outcome: 'outranked' },
        { rule: `${pol}:5:3`, effect: 'deny', outcome: 'decided' },
        { rule: `${pol}:6:3`, effect: 'allow', outcome: 'partial' },
      ],
      parts: [
        { text: 'git add .', rules: [{ rule: `${pol}:6:3`, effect: 'allow' }], allowed: true },
        { text: 'git push --force', rules: [{ rule: `${pol}:4:3`, effect: 'ask' }], allowed: false },
      ],
    });
    expect(objs[0].skipped).toContainEqual({ rule: `${pol}:3:3`, effect: 'deny', stage: 'selector', why: 'no part of the command matches `rm -rf /`' });
    expect(objs[1]).toMatchObject({ line: 3, decision: 'deny', parts: [{ text: 'sudo rm -rf /', wrappers: ['sudo'], privileged: true, rules: [{ rule: `${pol}:3:3`, effect: 'deny' }] }] });
    // the computed program may be `curl`: the hook of `curl *` runs, and denies
    expect(objs[2]).toMatchObject({ line: 4, decision: 'deny', reasons: ['no curl'] });
    expect(objs[2].parts[1]).toMatchObject({ text: '"$(cmd)"', words: ['$(cmd)'], unknowable: 'the program name is computed when the command runs', allowed: false });
  });

  it('shows the files each part reads and writes', async () => {
    const secrets = file('reads.dshpolicy', 'on pre-tool {\n  deny Read path "**/.env" because "secrets stay put"\n}\n');
    const r = await run(['--policy', secrets, '--event', event('cat .env > out.txt; grep -r --include=.env KEY src; cat .e*')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('decision: deny');
    expect(r.out).toMatch(/ {2}1 {2}cat \.env > out\.txt +- +writes `out\.txt`; reads `\.env`\n/);
    expect(r.out).toMatch(/ {2}2 {2}grep -r --include=\.env KEY src +- +reads `src`, `src` \(and below it: \.env\)\n/);
    expect(r.out).toMatch(/ {2}3 {2}cat \.e\* +- +reads `\.e\*`, `\.e\*` \(the files it matches\)\n/);
    // reads are judged, and shown, only when some deny or ask applies to `Read`
    const none = await run(['--policy', pol, '--event', event('cat .env')]);
    expect(none.out).not.toContain('reads');
  });

  it('runs command hooks, or lists them as pending with --no-hooks', async () => {
    const ran = await run(['--policy', pol, '--event', event('curl x'), '--format', 'json']);
    const a = JSON.parse(ran.out);
    expect(a).toMatchObject({ decision: 'deny', reasons: ['no curl'] });
    expect(a.matched).toContainEqual(expect.objectContaining({ rule: `${pol}:7:3`, effect: 'deny', outcome: 'decided', hook: expect.objectContaining({ exitCode: 2 }) }));
    const pending = await run(['--policy', pol, '--event', event('curl x'), '--no-hooks']);
    expect(pending.code).toBe(0);
    expect(pending.out).toContain('decision: none');
    expect(pending.out).toContain('(--no-hooks: 1 matched hook was not run; the decision leaves it out)');
    expect(pending.out).toMatch(new RegExp(`${pol}:7:3  run +pending +the hook was not run`));
    expect(pending.out).toMatch(/1 {2}curl x {2}run /);
  });

  it('reads raw agent payloads', async () => {
    const raw = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: '/repo', tool_name: 'Read', tool_input: { file_path: '/repo/a.ts' } });
    const r = await run(['--policy', pol, '--event', raw, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ decision: 'allow', matched: [{ rule: `${pol}:2:3`, outcome: 'decided' }] });
  });

  it('a bad event is a diagnostic and exit 1', async () => {
    const json = await run(['--policy', pol, '--event', '{"seam":"pre-tool","tol":"Bash"}', '--format', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ decision: null, error: { code: 'event/invalid', message: 'unknown field `tol` for a `pre-tool` event' } });
    const human = await run(['--policy', pol, '--event', '{"seam":"pre-tool","tol":"Bash"}']);
    expect(human.code).toBe(1);
    expect(human.out).toBe('');
    expect(human.err).toContain('error[event/invalid]: unknown field `tol` for a `pre-tool` event');
    const notJson = await run(['--policy', pol, '--event', '{seam']);
    expect(notJson.code).toBe(1);
    expect(notJson.err).toContain('error[event/json]: `--event` is not valid JSON');
  });

  it('a bad fixture line is reported in place; the others are still explained', async () => {
    const fx = file('bad.jsonl', `{"seam":"prompt"}\n${event('git status')}\nnot json\n`);
    const r = await run(['--policy', pol, '--fixtures', fx]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('line 2: pre-tool Bash git status');
    expect(r.out).toContain('decision: allow');
    expect(r.err).toContain(`--> ${fx}:1:1`);
    expect(r.err).toContain('line 1: the event cannot be read');
    expect(r.err).toContain('error[fixture/json]');
    expect(r.err).toContain('line 3: the event cannot be read');
  });

  it('a policy that does not compile is exit 1; missing arguments are usage errors', async () => {
    const bad = file('bad.dshpolicy', 'on pre-tool {\n  deny Bash when output matches /x/\n}\n');
    const r = await run(['--policy', bad, '--event', event('ls')]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('the policy does not compile: 1 error');
    await expect(run(['--policy', pol])).rejects.toThrow(UsageError);
    await expect(run(['--event', event('ls')])).rejects.toThrow(UsageError);
    await expect(run(['--policy', pol, '--event', event('ls'), '--fixtures', '-'])).rejects.toThrow(UsageError);
    await expect(run(['--policy', pol, '--event', event('ls'), '--format', 'table'])).rejects.toThrow(UsageError);
  });

  it('reads fixtures from stdin and prints its usage with --help', async () => {
    const r = await run(['--policy', pol, '--fixtures', '-', '--format', 'json'], `${event('git status')}\n`);
    expect(JSON.parse(r.out)).toMatchObject({ line: 1, decision: 'allow' });
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    expect(h.out).toMatch(/^usage: dshpolicy explain/);
  });
});
