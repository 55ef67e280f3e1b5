import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEAMS, validateIR, type Rule } from '../engine/index.js';
import { compileText } from '../dsl/index.js';
import { runCli, scratch } from './testkit.js';
import { printHooks, printRunRule, quoteString } from '../dsl/index.js';

const { dir, file } = scratch('dshpolicy-import-');
const run = runCli;

/** What must survive printing and compiling back: seam, effect and the hook but for its source. */
function essence(rules: readonly Rule[]): unknown[] {
  return rules.map((r) => {
    const { source: _source, ...hook } = r.hook ?? { command: '', dialect: 'claude' };
    return { seam: r.seam, effect: r.effect, hook };
  });
}

/** Imported rules in printed order: by seam, then agent events in order of appearance, each as configured. */
function bySeam(rules: readonly Rule[]): Rule[] {
  const events = [...new Set(rules.filter((r) => r.seam === 'agent-event').map((r) => r.hook?.event))];
  return [
    ...SEAMS.flatMap((s) => rules.filter((r) => r.seam === s)),
    ...events.flatMap((e) => rules.filter((r) => r.seam === 'agent-event' && r.hook?.event === e)),
  ];
}

const settings = file(
  'settings.json',
  JSON.stringify({
    hooks: {
      PreToolUse: [
        { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'echo "hi" \\\n\tthere', timeout: 30 }, { type: 'prompt', prompt: 'is this fine?' }] },
        { matcher: 'Bash', hooks: [{ type: 'command', command: './bg.sh', async: true }, { type: 'command', command: './if.sh', if: 'Bash(git *)' }] },
      ],
      Stop: [{ hooks: [{ type: 'command', command: './more.sh' }] }],
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'cat README.md', timeout: 0.5 }] }],
      Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }],
    },
  }),
);

describe('dshpolicy import', () => {
  it('prints .dshpolicy text that compiles back to the same rules', async () => {
    const r = await run(['import', 'claude', settings]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`# ${settings}#/hooks/PreToolUse/0/hooks/0`);
    expect(r.out).toContain('run hook "echo \\"hi\\" \\\\\\n\\tthere" dialect claude matcher "Edit|Write" timeout 30s');
    expect(r.out).toContain('run hook "./more.sh" dialect claude matcher *');
    expect(r.out).toContain('timeout 500ms');
    expect(r.err).toContain('warning[import/not-run]');
    const back = compileText(r.out);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const ir = JSON.parse((await run(['import', 'claude', settings, '--to', 'ir'])).out);
    expect(validateIR(ir).diagnostics).toEqual([]);
    expect(essence(back.ir!.rules)).toEqual(essence(bySeam(ir.rules)));
  });

  it('reports per event what is honoured and why the rest is not', async () => {
    const r = await run(['import', 'claude', settings, '--report']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('PreToolUse -> on pre-tool');
    expect(r.out).toMatch(/\/hooks\/PreToolUse\/0\/hooks\/1 prompt "[^"]*": not run\n {6}warning\[import\/not-run\]/);
    expect(r.out).toContain('info[import/async]');
    expect(r.out).toMatch(/if\.sh": run rule\n/);
    expect(r.out).not.toContain('if-not-honoured');
    expect(r.out).toContain('Notification -> on Notification (an agent event without a seam');
    expect(r.out).toContain('answer fields honoured: nothing: the agent ignores the answer');
    expect(r.out).not.toMatch(/honoured by the agent but not by dshpolicy: (?!none)/);
    expect(r.out).toContain('answer fields honoured: exit 2 + stderr');
    const json = JSON.parse((await run(['import', 'claude', settings, '--report', '--format', 'json'])).out);
    expect(json.ok).toBe(true);
    expect(json.report.events.map((e: { event: string }) => e.event)).toEqual(['PreToolUse', 'Stop', 'SessionStart', 'Notification']);
    expect(json.report.events[0].groups[1].handlers[0]).toMatchObject({ status: 'not-run', diagnostics: [{ code: 'import/async' }] });
  });

  it('prints the exec form, a shell, a plugin root and an `if` in a `with` clause that compiles back', async () => {
    const f = file(
      'exec.json',
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: 'node', args: ['x.js', '--say "hi"'] }] },
            { matcher: 'Edit|Write', hooks: [{ type: 'command', command: './fmt.sh', shell: 'bash', if: 'Edit(*.ts)' }] },
          ],
          PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './p.sh', if: 'Bash(git push *)', timeout: 5 }] }],
        },
      }),
    );
    const r = await run(['import', 'claude', f]);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('not expressible');
    expect(r.out).toContain('run hook "node" dialect claude matcher "Bash" with {args: ["x.js", "--say \\"hi\\""]}');
    expect(r.out).toContain('run hook "./fmt.sh" dialect claude matcher "Edit|Write" with {shell: "bash", if: "Edit(*.ts)"}');
    expect(r.out).toContain('run hook "./p.sh" dialect claude matcher "Bash" timeout 5s with {if: "Bash(git push *)"}');
    const back = compileText(r.out);
    expect(back.diagnostics).toEqual([]);
    const ir = JSON.parse((await run(['import', 'claude', f, '--to', 'ir'])).out);
    expect(essence(back.ir!.rules)).toEqual(essence(bySeam(ir.rules)));
    expect(back.ir!.rules.map((x) => x.hook?.args ?? x.hook?.if)).toEqual([['x.js', '--say "hi"'], 'Edit(*.ts)', 'Bash(git push *)']);
    expect((await run(['import', 'claude', f, '--report'])).out).not.toContain('printed as a comment');
  });

  it('prints what it cannot say as a comment, and says so in the report', async () => {
    const f = file(
      'unsayable.json',
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node', args: ['\ud800'] }] }],
          Stop: [{ hooks: [{ type: 'command', command: './long.sh', timeout: 7200 }] }],
        },
      }),
    );
    const r = await run(['import', 'claude', f]);
    expect(r.out).toContain('# not expressible yet: one of its `args` holds a lone surrogate, which no string literal can hold\n  # run hook "node" dialect claude matcher "Bash"\n');
    expect(r.out).toContain('# not expressible yet: its timeout of 7200000ms is outside what a `timeout` clause takes (1ms to 1h)');
    expect(compileText(r.out).ir?.rules).toEqual([]);
    expect((await run(['import', 'claude', f, '--report'])).out).toContain('printed as a comment by `--to dshpolicy`');
  });

  it('exits 1 on a broken file, still printing what loaded, and 2 on usage errors', async () => {
    const broken = file('broken.json', '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]},}');
    const r = await run(['import', 'claude', broken, '--format', 'json']);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out);
    expect(json.ok).toBe(false);
    expect(json.diagnostics.some((d: { severity: string }) => d.severity === 'error')).toBe(true);
    expect(typeof json.dshpolicy).toBe('string');
    expect((await run(['import', 'claude', join(dir, 'missing.json')])).code).toBe(1);
    expect((await run(['import', 'cursor', settings])).code).toBe(2);
    expect((await run(['import', 'claude'])).code).toBe(2);
    expect((await run(['import', 'claude', settings, '--to', 'yaml'])).code).toBe(2);
    expect((await run(['import', 'claude', settings, '--report', '--to', 'ir'])).code).toBe(2);
    expect((await run(['import', '--help'])).out).toContain('usage: dshpolicy import');
  });
});

describe('dshpolicy import: the corpus', () => {
  for (const agent of ['claude', 'codex'] as const) {
    const folder = join(fileURLToPath(new URL('../specs/corpus', import.meta.url)), agent);
    const files = readdirSync(folder).filter((f) => f.endsWith('.json') || f.endsWith('.toml'));
    it.each(files)(`${agent}: %s round-trips`, async (name) => {
      const path = join(folder, name);
      const text = await run(['import', agent, path]);
      const back = compileText(text.out);
      expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const ir = JSON.parse((await run(['import', agent, path, '--to', 'ir'])).out);
      expect(validateIR(ir).diagnostics).toEqual([]);
      const { printed } = printHooks(ir.rules);
      expect(essence(back.ir!.rules)).toEqual(essence(printed));
      const report = (await run(['import', agent, path, '--report'])).out;
      const events = new Set<string>((ir.rules as Rule[]).map((r) => r.hook!.event!));
      for (const d of JSON.parse((await run(['import', agent, path, '--format', 'json'])).out).diagnostics) {
        const m = /hooks on `([^`]+)`/.exec(d.message);
        if (m) events.add(m[1]!);
      }
      for (const e of events) expect(report).toContain(e);
      if (readFileSync(path, 'utf8').includes('"hooks"')) expect(report).not.toBe('');
    });
  }
});

describe('printing hooks', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 40 });
  const tricky = fc.stringMatching(/^[ -~\n\t\r"\\\u00e9\u{1F600}\u2028\u0000]{0,30}$/u);
  it('gives back the same command and matcher', () => {
    fc.assert(
      fc.property(fc.oneof(text, tricky), fc.option(fc.oneof(text, tricky), { nil: undefined }), (command, matcher) => {
        fc.pre(command.trim() !== '');
        const rule: Rule = { id: 'x', seam: 'pre-tool', effect: 'run', hook: { command, dialect: 'codex', event: 'PreToolUse' } };
        if (matcher !== undefined) rule.hook!.matcher = matcher;
        const printed = printHooks([rule]);
        expect(printed.unprinted).toEqual([]);
        const back = compileText(printed.text);
        expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(back.ir!.rules[0]!.hook).toEqual(rule.hook);
      }),
      { numRuns: 300 },
    );
  });

  it('gives back the same `args`, `shell`, plugin root and `if`', () => {
    const rules = fc.constantFrom('Bash', 'Bash(git push *)', 'Edit(src/**)', 'mcp__github__*', 'Read(./.env)', 'Agent(Explore)');
    fc.assert(
      fc.property(
        fc.option(fc.array(fc.oneof(text, tricky), { maxLength: 4 }), { nil: undefined }),
        fc.boolean(),
        fc.option(fc.oneof(text, tricky), { nil: undefined }),
        fc.option(rules, { nil: undefined }),
        fc.constantFrom('pre-tool', 'post-tool', 'agent-event'),
        (args, bash, pluginRoot, ifRule, seam) => {
          const event = seam === 'pre-tool' ? 'PreToolUse' : seam === 'post-tool' ? 'PostToolUse' : 'PermissionDenied';
          const rule: Rule = { id: 'x', seam, effect: 'run', hook: { command: './h.sh', dialect: 'claude', event } };
          if (args !== undefined) rule.hook!.args = args;
          else if (bash) rule.hook!.shell = 'bash';
          if (pluginRoot !== undefined) rule.hook!.pluginRoot = pluginRoot;
          if (ifRule !== undefined) rule.hook!.if = ifRule;
          const printed = printHooks([rule]);
          expect(printed.unprinted).toEqual([]);
          const back = compileText(printed.text);
          expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
          expect(back.ir!.rules[0]!.hook).toEqual(rule.hook);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('prints the options in the order args, shell, plugin_root, if', () => {
    const rule: Rule = { id: 'x', seam: 'pre-tool', effect: 'run', hook: { command: 'c', dialect: 'claude', if: 'Bash', pluginRoot: '/p', args: ['a'] } };
    expect(printRunRule(rule)).toEqual({ line: 'run hook "c" dialect claude matcher * with {args: ["a"], plugin_root: "/p", if: "Bash"}' });
    rule.hook = { command: 'c', dialect: 'codex', pluginRoot: '/p', shell: undefined };
    delete rule.hook.shell;
    expect(printRunRule(rule)).toEqual({ line: 'run hook "c" dialect codex matcher * with {plugin_root: "/p"}' });
  });

  it('refuses options that would not compile back', () => {
    const why = (seam: Rule['seam'], hook: Rule['hook']): string | undefined => {
      const r = printRunRule({ id: 'x', seam, effect: 'run', hook: hook! });
      return 'why' in r ? r.why : undefined;
    };
    expect(why('pre-tool', { command: 'c', dialect: 'codex', args: ['a'] })).toBe('a Codex hook has no exec form (`args`)');
    expect(why('pre-tool', { command: 'c', dialect: 'codex', shell: 'bash' })).toBe('a Codex hook has no `shell`');
    expect(why('pre-tool', { command: 'c', dialect: 'codex', if: 'Bash' })).toBe('a Codex hook has no `if`');
    expect(why('pre-tool', { command: 'c', dialect: 'claude', args: [], shell: 'bash' })).toContain('both `args` and `shell`');
    expect(why('stop', { command: 'c', dialect: 'claude', if: 'Bash' })).toBe('its `if` is never evaluated on `stop`');
    expect(why('agent-event', { command: 'c', dialect: 'claude', event: 'Notification', if: 'Bash' })).toBe('its `if` is never evaluated on `Notification`');
    expect(why('pre-tool', { command: 'c', dialect: 'claude', if: 'Bash(git' })).toBe('its `if` is not one permission rule: unbalanced parentheses: the rule must end with `)`');
    expect(why('pre-tool', { command: 'c', dialect: 'claude', pluginRoot: 'a\udc00' })).toContain('lone surrogate');
    expect(why('pre-tool', { command: 'c', dialect: 'claude', if: 'Bash(\ud800)' })).toContain('lone surrogate');
    expect(why('pre-tool', { command: 'https://x.test/h', dialect: 'codex', http: {} })).toBe('a Codex hook cannot be an http hook');
    expect(why('pre-tool', { command: 'https://x.test/h', dialect: 'claude', http: { headers: { 'X-\ud800': 'v' } } })).toContain('lone surrogate');
  });

  it('refuses a lone surrogate rather than print a different string', () => {
    expect(quoteString('a\ud800b')).toBeUndefined();
    expect(quoteString('\u{1F600}\u0001')).toBe('"\u{1F600}\\u{1}"');
  });
});
