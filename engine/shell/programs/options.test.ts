import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { compileTable, normalizePath, PROGRAM_GRAMMARS, programGrammar, type Level } from './grammar.js';
import { OPTIONS_TABLE, type LevelEntry, type OptionsTable } from './options.js';

const schema = JSON.parse(readFileSync(new URL('./options.schema.json', import.meta.url), 'utf8')) as object;
const table = JSON.parse(readFileSync(new URL('./options.json', import.meta.url), 'utf8')) as unknown;

/** Every level of a program's entry, with its path. */
function levels(entry: LevelEntry, path: string): { path: string; entry: LevelEntry }[] {
  const out = [{ path, entry }];
  for (const [name, sub] of Object.entries(entry.subcommands ?? {})) out.push(...levels(sub, `${path} ${name}`));
  return out;
}

function allLevels(): { path: string; entry: LevelEntry }[] {
  return Object.entries(OPTIONS_TABLE.programs).flatMap(([name, entry]) => levels(entry, name));
}

/** The option a spelling names at a compiled level, as the reader looks it up. */
function optionAt(level: Level, spelling: string) {
  if (spelling === '+') return level.plus;
  if (!spelling.startsWith('-')) return level.words.get(spelling) ?? level.keywords.find((k) => k.names.includes(spelling)) ?? null;
  if (level.singleDash) return level.long.get(spelling.replace(/^--?/, '')) ?? null;
  if (spelling.startsWith('--')) return level.long.get(spelling.slice(2)) ?? null;
  if (spelling.length === 2) return level.short[spelling.charCodeAt(1)] ?? null;
  return level.words.get(spelling) ?? null;
}

function levelOf(path: string): Level {
  const [program, ...subs] = path.split(' ');
  let level = programGrammar(program!)!;
  for (const s of subs) level = level.subcommands!.get(s)!;
  return level;
}

describe('the options table', () => {
  it('validates against its schema', () => {
    const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    const validate = ajv.compile(schema);
    expect(validate(table), JSON.stringify(validate.errors)).toBe(true);
  });

  it('is the table the loader reads', () => {
    expect(OPTIONS_TABLE).toEqual(table);
  });

  it('has the programs agents and guard policies meet', () => {
    expect(Object.keys(OPTIONS_TABLE.programs).length).toBeGreaterThanOrEqual(40);
    for (const p of ['rm', 'git', 'npm', 'docker', 'kubectl', 'cargo', 'make', 'curl', 'wget', 'tar', 'sed', 'awk', 'find', 'sort',
      'rg', 'grep', 'rsync', 'ssh', 'less', 'vim', 'tee', 'cp', 'mv', 'install', 'ln', 'dd', 'zip', 'unzip', 'go', 'terraform'])
      expect(programGrammar(p), p).toBeDefined();
    for (const alias of ['vi', 'nvim', 'gawk', 'egrep', 'chgrp']) expect(programGrammar(alias), alias).toBeDefined();
  });

  it('spells each option once per level (a level\'s own options may replace those of its sets)', () => {
    const lists: [string, readonly { names: string[] }[]][] = [
      ...allLevels().map(({ path, entry }): [string, { names: string[] }[]] => [path, entry.options ?? []]),
      ...Object.entries(OPTIONS_TABLE.sets),
    ];
    for (const [where, options] of lists) {
      const seen = new Set<string>();
      for (const o of options) {
        for (const n of o.names) {
          expect(seen.has(n), `${where}: \`${n}\` is listed twice`).toBe(false);
          seen.add(n);
        }
      }
    }
    // git format-patch's own `-s` is --signoff, not the diff option --no-patch
    expect(optionAt(levelOf('git format-patch'), '-s')!.name).toBe('-s');
    expect(optionAt(levelOf('git format-patch'), '-s')!.names).toContain('--signoff');
  });

  it('gives every option that runs or writes a reason, and marks the sensitive levels', () => {
    for (const { path, entry } of allLevels()) {
      for (const o of entry.options ?? []) if (o.kind || o.script) expect(o.about, `${path} ${o.names[0]}`).toBeTruthy();
      const level = levelOf(path);
      const own = (entry.options ?? []).some((o) => o.kind || o.script) || (entry.operands ?? []).length > 0;
      if (own) expect(level.sensitive, path).toBe(true);
      if (level.sensitive) expect(level.sensitiveBelow, path).toBe(true);
    }
  });

  // The options and operands named as running code or writing files (the language reference lists them).
  const SENSITIVE: [string, string, 'runs' | 'writes'][] = [
    ['rg', '--pre', 'runs'], ['rg', '--hostname-bin', 'runs'], ['sort', '--compress-program', 'runs'], ['sort', '-o', 'writes'],
    ['sort', '--output', 'writes'], ['git diff', '--output', 'writes'], ['git diff', '--ext-diff', 'runs'], ['git log', '--output', 'writes'],
    ['git', '-c', 'runs'], ['git', '--exec-path', 'runs'], ['git', '--config-env', 'runs'], ['git', '-C', 'runs'], ['git', '--git-dir', 'runs'],
    ['git clone', '--upload-pack', 'runs'], ['git clone', '-u', 'runs'], ['git clone', '-c', 'runs'], ['git fetch', '--upload-pack', 'runs'],
    ['git pull', '--upload-pack', 'runs'], ['git push', '--receive-pack', 'runs'], ['git push', '--exec', 'runs'],
    ['git ls-remote', '--upload-pack', 'runs'], ['git rebase', '--exec', 'runs'], ['git rebase', '-x', 'runs'],
    ['find', '-delete', 'writes'], ['find', '-fprint', 'writes'], ['find', '-fprint0', 'writes'], ['find', '-fprintf', 'writes'],
    ['find', '-fls', 'writes'], ['tar', '--to-command', 'runs'], ['tar', '-I', 'runs'], ['tar', '--use-compress-program', 'runs'],
    ['tar', '--checkpoint-action', 'runs'], ['tar', '-F', 'runs'], ['tar', '--info-script', 'runs'], ['tar', '--rmt-command', 'runs'],
    ['tar', '--rsh-command', 'runs'], ['npm', '--script-shell', 'runs'], ['rsync', '-e', 'runs'], ['rsync', '--rsh', 'runs'],
    ['rsync', '--rsync-path', 'runs'], ['ssh', '-o', 'runs'], ['ssh', '-F', 'runs'], ['vim', '-c', 'runs'],
    ['vim', '--cmd', 'runs'], ['vim', '-S', 'runs'], ['vim', '+', 'runs'], ['sed', '-i', 'writes'], ['sed', '--in-place', 'writes'],
    ['sed', '-f', 'runs'], ['awk', '-f', 'runs'], ['dd', 'of=', 'writes'], ['curl', '-o', 'writes'], ['curl', '-O', 'writes'],
    ['curl', '--output', 'writes'], ['wget', '-O', 'writes'], ['cp', '-t', 'writes'], ['make', '-f', 'runs'], ['make', '--eval', 'runs'],
    ['split', '--filter', 'runs'], ['install', '--strip-program', 'runs'], ['zip', '-TT', 'runs'], ['unzip', '-d', 'writes'],
  ];
  for (const [path, spelling, kind] of SENSITIVE) {
    it(`marks \`${path} ${spelling}\` as ${kind === 'runs' ? 'running code' : 'writing files'}`, () => {
      const def = optionAt(levelOf(path), spelling);
      expect(def, `${path} ${spelling}`).not.toBeNull();
      expect(def!.kind).toBe(kind);
    });
  }

  it('marks the scripts of sed and awk, the commands of `less +`, and the operands that are written', () => {
    expect(optionAt(levelOf('sed'), '-e')!.script).toBe('sed');
    expect(optionAt(levelOf('less'), '+')!.script).toBe('less');
    expect(levelOf('sed').operands.map((o) => [o.which, o.script])).toEqual([['first', 'sed']]);
    expect(levelOf('awk').operands.map((o) => [o.which, o.script])).toEqual([['first', 'awk']]);
    for (const p of ['tee']) expect(levelOf(p).operands.map((o) => [o.which, o.kind]), p).toEqual([['all', 'writes']]);
    for (const p of ['cp', 'mv', 'install', 'ln', 'scp', 'rsync']) expect(levelOf(p).operands.map((o) => [o.which, o.kind]), p).toEqual([['last', 'writes']]);
  });

  it('reads aliases of one option as that option', () => {
    const rm = levelOf('rm');
    expect(optionAt(rm, '-R')).toBe(optionAt(rm, '-r'));
    expect(optionAt(rm, '--recursive')).toBe(optionAt(rm, '-r'));
    expect(optionAt(rm, '-r')!.name).toBe('-r');
  });

  it('reads a subcommand alias as the subcommand', () => {
    const npm = programGrammar('npm')!;
    expect(npm.subcommands!.get('t')).toBe(npm.subcommands!.get('test'));
    expect(npm.subcommands!.get('t')!.name).toBe('test');
  });

  it('reads the global options of an inherited level after its subcommands', () => {
    const test = levelOf('npm test');
    expect(optionAt(test, '--script-shell')!.depth).toBe(0);
    expect(optionAt(levelOf('git push'), '--no-pager')).toBeNull();
  });

  it('rejects a table whose names do not resolve', () => {
    const broken = (t: Partial<OptionsTable>): (() => unknown) => () => compileTable({ sets: {}, programs: {}, ...t } as OptionsTable);
    expect(broken({ programs: { x: { about: 'x', use: ['nope'] } } })).toThrow('unknown option set `nope`');
    expect(broken({ programs: { x: { about: 'x', options: [{ names: ['-a'], kind: 'runs', unless: ['-b'] }] } } })).toThrow('`unless` names `-b`');
    expect(broken({ programs: { x: { about: 'x', numeric: '-n' } } })).toThrow('`numeric` names `-n`');
    expect(broken({ programs: { x: { about: 'x', aliases: ['x'] } } })).toThrow('`x` is listed twice');
    expect(broken({ programs: { x: { about: 'x', subcommands: { a: { aliases: ['b'] }, b: {} } } } })).toThrow('the subcommand `b` is listed twice');
  });

  it('compiles every program', () => {
    expect(PROGRAM_GRAMMARS.size).toBeGreaterThanOrEqual(Object.keys(OPTIONS_TABLE.programs).length);
  });
});

describe('normalizePath', () => {
  it('leaves out repeated slashes and dot segments, keeping a final slash', () => {
    const cases: [string, string][] = [
      ['/', '/'], ['//', '/'], ['///', '/'], ['/.', '/'], ['/./', '/'], ['/./tmp', '/tmp'], ['/tmp//x', '/tmp/x'], ['./x', 'x'],
      ['x/', 'x/'], ['x/.', 'x/'], ['.', '.'], ['./', '.'], ['x', 'x'], ['../x', '../x'], ['a/../b', 'a/../b'], ['-rf', '-rf'],
    ];
    for (const [input, want] of cases) expect(normalizePath(input), input).toBe(want);
  });
});
