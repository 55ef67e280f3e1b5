import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { analyzeCommand, MAX_COMMAND_LENGTH, PROGRAMS } from '../index.js';
import { compilePolicy, evaluate } from '../../index.js';
import type { PolicyIR } from '../../ir.js';

const schema = JSON.parse(readFileSync(new URL('./wrappers.schema.json', import.meta.url), 'utf8')) as object;
const table = JSON.parse(readFileSync(new URL('./wrappers.json', import.meta.url), 'utf8')) as unknown;

/** True when some part, through some view, is `rm -rf /` (with, at most, words known only when it runs after it: `xargs`). */
function reaches(command: string, target = ['rm', '-rf', '/']): boolean {
  return analyzeCommand(command).parts.some((p) =>
    p.views.some((v) => {
      const known = v.words.slice(0, target.length).map((w) => w.value).join(' ');
      return known === target.join(' ') && v.words.slice(target.length).every((w) => w.dynamic);
    }),
  );
}

describe('the wrappers table', () => {
  it('validates against its schema', () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    const validate = ajv.compile(schema);
    expect(validate(table), JSON.stringify(validate.errors)).toBe(true);
  });

  it('names no program both a wrapper and a shell', () => {
    const shells = new Set(Object.keys(PROGRAMS.shells));
    expect(Object.keys(PROGRAMS.wrappers).filter((w) => shells.has(w))).toEqual([]);
  });

  it('lists no option letter as both taking a value and not', () => {
    for (const [name, spec] of Object.entries(PROGRAMS.wrappers)) {
      const flags = new Set(spec.flags ?? '');
      const clash = [...(spec.withArg ?? '')].filter((c) => flags.has(c));
      expect(clash, name).toEqual([]);
    }
  });

  // Each wrapper in the table runs `rm -rf /` when given it in its usual form, and the analysis sees it.
  for (const [name, spec] of Object.entries(PROGRAMS.wrappers)) {
    const operands = ' x'.repeat(spec.operands ?? 0);
    const sub = spec.subcommands ? ` ${spec.subcommands[0]}` : '';
    const form =
      spec.execWithLong !== undefined
        ? `${name} --${spec.execWithLong[0]} rm -rf /`
        : spec.runs === 'script'
          ? spec.script
            ? `${name} ${spec.script.short ? `-${spec.script.short[0]}` : `--${spec.script.long[0]}`} 'rm -rf /'`
            : null
          : `${name}${sub}${operands} rm -rf /`;
    if (form === null) continue;
    it(`sees the command \`${name}\` runs (${form})`, () => {
      expect(reaches(form), JSON.stringify(analyzeCommand(form).parts)).toBe(true);
    });
  }

  it('sees every command of a script wrapper and of a joined remote command', () => {
    expect(reaches("su -c 'cd /; rm -rf /'")).toBe(true);
    expect(reaches('ssh -i key host cd / "&&" rm -rf /')).toBe(true);
    expect(reaches("watch 'date; rm -rf /'")).toBe(true);
  });

  it('marks a computed script unknowable', () => {
    for (const c of ['su -c "$X"', 'ssh host "$X"', 'flock /l -c "$X"']) {
      expect(analyzeCommand(c).parts.some((p) => p.unknowable !== null), c).toBe(true);
    }
  });

  it('does not read options after the command as the wrapper’s own', () => {
    // `-c` here belongs to the wrapped command, not to setsid
    const parts = analyzeCommand('setsid bash -x -c "rm -rf /"').parts;
    expect(parts.some((p) => p.views.some((v) => v.words[0]?.value === 'rm'))).toBe(true);
  });
});

describe('caps', () => {
  const ir: PolicyIR = {
    version: 1,
    rules: [{ id: 'p:1:1', seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm -rf *'] }], reason: 'no' }],
  } as unknown as PolicyIR;

  it('a command longer than the analysed length is capped and denied by the strictest rule', async () => {
    const command = 'echo '.repeat(Math.ceil(MAX_COMMAND_LENGTH / 5) + 10) + '; rm -rf /';
    expect(command.length).toBeGreaterThan(MAX_COMMAND_LENGTH);
    expect(analyzeCommand(command).capped).toBe('command longer than 1 MiB');
    const d = await evaluate(compilePolicy(ir), { seam: 'pre-tool', tool: 'Bash', input: { command } });
    expect(d.decision).toBe('deny');
    expect(d.diagnostics.map((x) => x.code)).toContain('event/command-capped');
  });

  it('an ordinary command is not capped', () => {
    expect(analyzeCommand('git status && npm test').capped).toBeUndefined();
  });
});
