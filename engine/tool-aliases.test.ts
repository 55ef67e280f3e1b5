/**
 * One policy over every agent's file tools (tools.ts TOOL_ALIASES): a restricting rule naming
 * `Read`, `Edit` or `Write` meets Codex's `apply_patch` and Gemini CLI's
 * own file tools, judged on their own paths; an `allow` vouches only for the tools it names, so
 * the aliases only ever make a decision stricter.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from './compile.js';
import { evaluateSync } from './evaluate.js';
import { explain } from './explain.js';
import { evaluateReference, referencePolicy } from './reference.js';
import type { PreToolEvent } from './events.js';
import { IR_VERSION, type Expr, type Rule } from './ir.js';

const cwd = '/repo';
const rule = (id: string, r: Omit<Rule, 'id' | 'seam'>): Rule => ({ id, seam: 'pre-tool', ...r });
const decide = (rules: Rule[], e: PreToolEvent) => evaluateSync(compilePolicy({ version: IR_VERSION, sources: [], rules, tests: [] }), e);
const patch = (lines: string[]) => `*** Begin Patch\n${lines.join('\n')}\n*** End Patch\n`;
const add = (f: string) => [`*** Add File: ${f}`, '+x'];
const update = (f: string) => [`*** Update File: ${f}`, '@@', '-a', '+b'];
const del = (f: string) => [`*** Delete File: ${f}`];
const call = (tool: string, input: Record<string, unknown>): PreToolEvent => ({ seam: 'pre-tool', tool, input, cwd });

/** Each agent's tool touching `file`, for the language's tool it also is. */
function callsOn(tool: 'Read' | 'Edit' | 'Write', file: string): PreToolEvent[] {
  switch (tool) {
    case 'Read':
      return [call('read_file', { file_path: file })];
    case 'Edit':
      return [call('replace', { file_path: file, old_string: 'a', new_string: 'b' }), call('apply_patch', { command: patch(update(file)) })];
    case 'Write':
      return [call('write_file', { file_path: file, content: 'x' }), call('apply_patch', { command: patch(add(file)) }), call('apply_patch', { command: patch(del(file)) })];
  }
}

const secrets = rule('secrets', { effect: 'deny', tools: ['Read', 'Edit', 'Write'], selectors: [{ kind: 'path', globs: ['**/.env'] }], reason: 'secrets' });

describe('the agents\' file tools meet the rules on the language\'s tools', () => {
  it('denies reading, editing and writing `.env` in every agent', () => {
    for (const tool of ['Read', 'Edit', 'Write'] as const) {
      for (const e of callsOn(tool, '/repo/.env')) expect(decide([secrets], e).decision, JSON.stringify(e)).toBe('deny');
      for (const e of callsOn(tool, '/repo/src/a.ts')) expect(decide([secrets], e).decision, JSON.stringify(e)).toBe('none');
    }
  });

  it('denies a patch when any one of its files is denied', () => {
    expect(decide([secrets], call('apply_patch', { command: patch([...update('src/a.ts'), ...add('.env')]) })).decision).toBe('deny');
  });

  it('allows an aliased tool only by name, a patch only when every file it touches is allowed', () => {
    const src = rule('src', { effect: 'allow', tools: ['Edit', 'Write'], selectors: [{ kind: 'path', globs: ['src/**'] }] });
    const byName = rule('by-name', { effect: 'allow', tools: ['apply_patch'], selectors: [{ kind: 'path', globs: ['src/**'] }] });
    const both = patch([...update('src/a.ts'), ...add('src/b.ts')]);
    expect(decide([src], call('apply_patch', { command: both })).decision).toBe('none');
    expect(decide([src], call('write_file', { file_path: '/repo/src/x.ts', content: '' })).decision).toBe('none');
    expect(decide([byName], call('apply_patch', { command: both })).decision).toBe('allow');
    expect(decide([byName], call('apply_patch', { command: patch([...update('src/a.ts'), ...update('.env')]) })).decision).toBe('none');
  });

  it('never allows an aliased tool through an allow on the tool it also is', () => {
    const notSecret: Expr = { op: 'not', arg: { op: 'compare', cmp: 'contains', field: { name: 'input.file_path' }, value: 'secret' } };
    const byField = rule('by-field', { effect: 'allow', tools: ['Edit'], when: notSecret });
    expect(decide([byField], call('Edit', { file_path: '/repo/a.ts' })).decision).toBe('allow');
    expect(decide([byField], call('apply_patch', { command: patch(update('/repo/secret.key')) })).decision).toBe('none');
    expect(decide([byField], call('replace', { file_path: '/repo/secret.key', old_string: 'a', new_string: 'b' })).decision).toBe('none');
  });

  it('explains why an aliased tool skipped an allow with a `when`', async () => {
    const byField = rule('by-field', { effect: 'allow', tools: ['Edit'], when: { op: 'exists', field: { name: 'input.file_path' } } });
    const policy = compilePolicy({ version: IR_VERSION, sources: [], rules: [byField], tests: [] });
    const { explanation } = await explain(policy, call('apply_patch', { command: patch(update('a.ts')) }));
    expect(explanation.skipped.find((r) => r.rule === 'by-field')?.why).toBe('`apply_patch` is also `Edit`, but an `allow` vouches only for the tools it names');
  });

  it('runs a `run` rule only on the tools it names', () => {
    const hook = rule('hook', { effect: 'run', tools: ['Write'], hook: { command: 'true', dialect: 'claude' } });
    const d = decide([hook], call('write_file', { file_path: '/repo/a', content: '' }));
    expect(d.pendingHooks ?? []).toEqual([]);
  });
});

// ---- laws over random policies

const TOOLS = ['Read', 'Edit', 'Write'] as const;
const FILES = ['/repo/.env', '/repo/src/a.ts', '/repo/secret.key', '/home/u/.ssh/id_rsa', 'docs/x.md'];
const GLOBS = ['**/.env', 'src/**', '**/*.key', '/home/**', '**'];
const EFFECTS = ['deny', 'ask', 'allow'] as const;

const ruleArb: fc.Arbitrary<Omit<Rule, 'id'>> = fc
  .record({
    effect: fc.constantFrom(...EFFECTS),
    tools: fc.uniqueArray(fc.constantFrom(...TOOLS), { minLength: 1, maxLength: 3 }),
    glob: fc.option(fc.constantFrom(...GLOBS), { nil: undefined }),
    when: fc.option(fc.constantFrom<Expr>(
      { op: 'not', arg: { op: 'compare', cmp: 'contains', field: { name: 'input.file_path' }, value: 'secret' } },
      { op: 'exists', field: { name: 'input.old_string' } },
      { op: 'compare', cmp: 'startswith', field: { name: 'input.file_path' }, value: '/repo' },
    ), { nil: undefined }),
  })
  .map(({ effect, tools, glob, when }) => {
    const r: Omit<Rule, 'id'> = { seam: 'pre-tool', effect, tools: [...tools] };
    if (glob !== undefined) r.selectors = [{ kind: 'path', globs: [glob] }];
    if (when !== undefined) r.when = when;
    if (effect !== 'allow') r.reason = effect;
    return r;
  });

const eventArb: fc.Arbitrary<PreToolEvent> = fc
  .tuple(fc.constantFrom(...TOOLS), fc.uniqueArray(fc.constantFrom(...FILES), { minLength: 1, maxLength: 2 }), fc.nat(3))
  .map(([tool, files, pick]) => {
    if (files.length > 1) return call('apply_patch', { command: patch(files.flatMap((f, i) => (i % 2 === 0 ? update(f) : add(f)))) });
    const options = callsOn(tool, files[0]!);
    return options[pick % options.length]!;
  });

const policyArb = fc.array(ruleArb, { minLength: 1, maxLength: 5 }).map((rs) => rs.map((r, i): Rule => ({ id: `r${i}`, ...r })));

describe('laws of the aliases', () => {
  it('an allow never decides an aliased tool: removing every allow changes no decision', () => {
    fc.assert(
      fc.property(policyArb, eventArb, (rules, e) => {
        const without = rules.filter((r) => r.effect !== 'allow');
        expect(decide(rules, e).decision).toBe(decide(without, e).decision);
      }),
      { numRuns: 400 },
    );
  });

  it('a deny on a path holds for every agent\'s tool touching it', () => {
    fc.assert(
      fc.property(policyArb, fc.constantFrom(...TOOLS), fc.constantFrom(...FILES), (rules, tool, file) => {
        const deny = rule('d', { effect: 'deny', tools: [tool], selectors: [{ kind: 'path', globs: [file.replace(/^\/repo\//, '')] }], reason: 'no' });
        for (const e of callsOn(tool, file)) expect(decide([...rules, deny], e).decision, JSON.stringify(e)).toBe('deny');
      }),
      { numRuns: 200 },
    );
  });

  it('the indexed evaluator and the reference scan agree on aliased tools', () => {
    fc.assert(
      fc.property(policyArb, eventArb, (rules, e) => {
        const ir = { version: IR_VERSION, sources: [], rules, tests: [] };
        expect(evaluateSync(compilePolicy(ir), e).decision).toBe(evaluateReference(referencePolicy(ir), e).decision);
      }),
      { numRuns: 400 },
    );
  });
});
