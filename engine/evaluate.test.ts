import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DECISION_RANK } from './algebra.js';
import { compilePolicy } from './compile.js';
import { evaluate, evaluateSync, type HookRunner } from './evaluate.js';
import type { PolicyEvent } from './events.js';
import { IR_VERSION, SEAM_EFFECTS, SEAMS, type Expr, type PolicyIR, type Rule, type Seam, type Selector } from './ir.js';

let n = 0;
function rule(seam: Seam, effect: Rule['effect'], extra: Partial<Rule> = {}): Rule {
  n++;
  return { id: `p.dshpolicy:${n}:1`, seam, effect, span: { file: 'p.dshpolicy', start: { line: n, column: 1, offset: n * 10 }, end: { line: n, column: 2, offset: n * 10 + 1 } }, ...extra };
}
function policy(...rules: Rule[]) {
  const ir: PolicyIR = { version: IR_VERSION, sources: ['p.dshpolicy'], rules, tests: [] };
  return compilePolicy(ir);
}
const bash = (command: string, cwd = '/repo'): PolicyEvent => ({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd });
const cmd = (...patterns: string[]): Selector[] => [{ kind: 'command', patterns }];

describe('pre-tool evaluation', () => {
  it('deny beats ask beats allow, whatever the rule order', () => {
    const rules = [
      rule('pre-tool', 'allow', { tools: ['Bash'] }),
      rule('pre-tool', 'ask', { tools: ['Bash'], selectors: cmd('git push *'), reason: 'push' }),
      rule('pre-tool', 'deny', { tools: ['Bash'], selectors: cmd('rm -rf /'), reason: 'root' }),
    ];
    for (const order of [rules, [...rules].reverse()]) {
      const p = policy(...order);
      expect(evaluateSync(p, bash('git push && rm -rf /'))).toMatchObject({ decision: 'deny', reasons: ['root'] });
      expect(evaluateSync(p, bash('git push origin'))).toMatchObject({ decision: 'ask', reasons: ['push'] });
      expect(evaluateSync(p, bash('ls'))).toMatchObject({ decision: 'allow' });
    }
  });

  it('an allow with a command selector needs every part covered, possibly by several rules', () => {
    const p = policy(rule('pre-tool', 'allow', { tools: ['Bash'], selectors: cmd('npm test') }), rule('pre-tool', 'allow', { tools: ['Bash'], selectors: cmd('git status') }));
    const both = evaluateSync(p, bash('npm test && git status'));
    expect(both.decision).toBe('allow');
    expect(both.rules).toHaveLength(2);
    const partial = evaluateSync(p, bash('npm test && curl x | sh'));
    expect(partial.decision).toBe('none');
    expect(partial.trace[0]).toMatchObject({ outcome: 'partial' });
    expect(partial.trace[0]?.note).toContain('`curl x`');
  });

  it('an unknowable part is never allowed', () => {
    const p = policy(rule('pre-tool', 'allow', { tools: ['Bash'], selectors: cmd('npm test', 'eval *') }));
    expect(evaluateSync(p, bash('npm test; eval "$X"')).decision).toBe('none');
  });

  it('indexes exact tools and still sees globbed and tool-less rules', () => {
    const p = policy(
      rule('pre-tool', 'deny', { tools: ['mcp__db__*'], reason: 'db' }),
      rule('pre-tool', 'ask', { reason: 'all' }),
      rule('pre-tool', 'allow', { tools: ['Read'] }),
    );
    expect(evaluateSync(p, { seam: 'pre-tool', tool: 'mcp__db__query', input: {} })).toMatchObject({ decision: 'deny', reasons: ['db'] });
    expect(evaluateSync(p, { seam: 'pre-tool', tool: 'Read', input: {} })).toMatchObject({ decision: 'ask' });
    expect(evaluateSync(policy(rule('pre-tool', 'allow', { tools: ['Read'] })), { seam: 'pre-tool', tool: 'Reader', input: {} }).decision).toBe('none');
  });

  it('path selectors resolve against cwd', () => {
    const p = policy(rule('pre-tool', 'deny', { tools: ['Read'], selectors: [{ kind: 'path', globs: ['**/.env'] }] }));
    expect(evaluateSync(p, { seam: 'pre-tool', tool: 'Read', input: { file_path: 'config/.env' }, cwd: '/repo' }).decision).toBe('deny');
    expect(evaluateSync(p, { seam: 'pre-tool', tool: 'Read', input: { file_path: 'config/.envrc' }, cwd: '/repo' }).decision).toBe('none');
  });

  it('when conditions read input paths and compare', () => {
    const when: Expr = { op: 'compare', cmp: 'matches', field: { name: 'input', path: ['sql'] }, value: { regex: '(?i)drop\\s+table', flags: '' } };
    const p = policy(rule('pre-tool', 'deny', { tools: ['mcp__db__query'], when }));
    expect(evaluateSync(p, { seam: 'pre-tool', tool: 'mcp__db__query', input: { sql: 'Drop Table x' } }).decision).toBe('deny');
    expect(evaluateSync(p, { seam: 'pre-tool', tool: 'mcp__db__query', input: { sql: 'select 1' } }).decision).toBe('none');
    expect(evaluateSync(p, { seam: 'pre-tool', tool: 'mcp__db__query', input: {} }).decision).toBe('none');
  });
});

describe('the other seams', () => {
  it('stop: continue unless the tests ran; the limit guard ends the loop', () => {
    const p = policy(
      rule('stop', 'continue', { when: { op: 'not', arg: { op: 'ran', tools: ['Bash'], selectors: cmd('npm test *') } }, reason: 'run the tests' }),
      rule('stop', 'limit', { limit: 2 }),
    );
    expect(evaluateSync(p, { seam: 'stop', turn: [], stop_hook_active: false })).toMatchObject({ decision: 'continue', reasons: ['run the tests'] });
    expect(evaluateSync(p, { seam: 'stop', turn: [{ tool: 'Bash', input: { command: 'cd x && npm test -- -u' } }], stop_hook_active: false }).decision).toBe('stop');
    const limited = evaluateSync(p, { seam: 'stop', turn: [], stop_hook_active: true, continuations: 2 });
    expect(limited.decision).toBe('stop');
    expect(limited.trace.find((t) => t.outcome === 'limited')).toBeDefined();
  });

  it('prompt: block drops context; context alone allows', () => {
    const p = policy(
      rule('prompt', 'block', { when: { op: 'compare', cmp: 'contains', field: { name: 'prompt' }, value: 'KEY' }, reason: 'no keys' }),
      rule('prompt', 'context', { text: 'use npm' }),
    );
    expect(evaluateSync(p, { seam: 'prompt', prompt: 'a KEY' })).toMatchObject({ decision: 'block', context: [], reasons: ['no keys'] });
    expect(evaluateSync(p, { seam: 'prompt', prompt: 'hello' })).toMatchObject({ decision: 'allow', context: ['use npm'] });
  });

  it('session-start carries context and decides nothing', () => {
    const p = policy(rule('session-start', 'context', { text: 'read docs', when: { op: 'compare', cmp: '==', field: { name: 'source' }, value: 'startup' } }));
    expect(evaluateSync(p, { seam: 'session-start', source: 'startup' })).toMatchObject({ decision: 'none', context: ['read docs'] });
    expect(evaluateSync(p, { seam: 'session-start', source: 'resume' })).toMatchObject({ decision: 'none', context: [] });
  });
});

describe('run rules', () => {
  it('merge a hook outcome by the seam law and keep the trace', async () => {
    const runner: HookRunner = async () => ({ effect: 'deny', reason: 'hook says no', exitCode: 2, timedOut: false, summary: 'exit 2' });
    const p = policy(rule('pre-tool', 'allow', { tools: ['Bash'] }), rule('pre-tool', 'run', { tools: ['Bash'], hook: { command: 'x', dialect: 'claude' } }));
    const d = await evaluate(p, bash('ls'), { runner });
    expect(d).toMatchObject({ decision: 'deny', reasons: ['hook says no'] });
    expect(d.trace.find((t) => t.hook)?.hook).toMatchObject({ exitCode: 2 });
  });

  it('fail closed when there is no runner', async () => {
    const p = policy(rule('pre-tool', 'run', { tools: ['Bash'], hook: { command: 'x', dialect: 'claude' } }));
    expect((await evaluate(p, bash('ls'))).decision).toBe('deny');
  });

  it('fail closed when the runner throws', async () => {
    const p = policy(rule('prompt', 'run', { hook: { command: 'x', dialect: 'claude' } }));
    const runner: HookRunner = async () => {
      throw new Error('boom');
    };
    expect((await evaluate(p, { seam: 'prompt', prompt: 'x' }, { runner })).decision).toBe('block');
  });
});

// ---------------------------------------------------------------- evaluation never throws

const word = fc.constantFrom('Bash', 'Read', 'mcp__db__*', '*', 'Write', 'rm', 'git', '**/.env', '*.pem', 'x');
const textArb = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('rm -rf /', 'git push *', 'a && b', '$(x)', '"unterminated', '`', 'bash -c "ls"'));
const selectorArb: fc.Arbitrary<Selector> = fc.oneof(
  fc.array(textArb, { minLength: 1, maxLength: 3 }).map((patterns) => ({ kind: 'command' as const, patterns })),
  fc.array(fc.oneof(word, fc.string({ maxLength: 10 })), { minLength: 1, maxLength: 3 }).map((globs) => ({ kind: 'path' as const, globs })),
  fc.array(fc.oneof(fc.constantFrom('*.example.com', 'example.com'), fc.string({ maxLength: 10 })), { minLength: 1, maxLength: 2 }).map((globs) => ({ kind: 'domain' as const, globs })),
  fc.array(fc.string({ maxLength: 15 }), { minLength: 1, maxLength: 2 }).map((globs) => ({ kind: 'url' as const, globs })),
);
const fieldArb = fc.record({ name: fc.constantFrom('tool', 'input', 'command', 'path', 'url', 'domain', 'prompt', 'output', 'cwd', 'source', 'stop_hook_active'), path: fc.option(fc.array(fc.constantFrom('a', '0', 'command'), { maxLength: 2 }), { nil: undefined }) }).map((f) => (f.path ? f : { name: f.name }));
const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small' },
    fc.record({ op: fc.constant('compare' as const), cmp: fc.constantFrom('==', '!=', 'in', 'glob', 'startswith', 'endswith', 'contains' as const), field: fieldArb, value: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 })) }),
    fc.record({ op: fc.constant('compare' as const), cmp: fc.constant('matches' as const), field: fieldArb, value: fc.record({ regex: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('(?i)a+', '(', 'a{2,}', '\\bx')), flags: fc.constantFrom('', 'i', 'ms') }) }),
    fc.record({ op: fc.constant('exists' as const), field: fieldArb }),
    fc.record({ op: fc.constant('ran' as const), tools: fc.array(word, { maxLength: 2 }), selectors: fc.array(selectorArb, { maxLength: 1 }) }),
    fc.record({ op: fc.constant('not' as const), arg: tie('expr') }),
    fc.record({ op: fc.constantFrom('and' as const, 'or' as const), args: fc.array(tie('expr'), { maxLength: 3 }) }),
  ),
})).expr;

const ruleArb: fc.Arbitrary<Rule> = fc
  .record({ seam: fc.constantFrom(...SEAMS), i: fc.nat({ max: 3 }), tools: fc.option(fc.array(word, { minLength: 1, maxLength: 2 }), { nil: undefined }), selectors: fc.array(selectorArb, { maxLength: 2 }), when: fc.option(exprArb, { nil: undefined }), reason: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }), limit: fc.integer({ min: 1, max: 4 }) })
  .map(({ seam, i, tools, selectors, when, reason, limit }) => {
    const effect = SEAM_EFFECTS[seam].filter((e) => e !== 'run')[i % SEAM_EFFECTS[seam].filter((e) => e !== 'run').length]!;
    const tooled = seam === 'pre-tool' || seam === 'post-tool';
    const r = rule(seam, effect);
    if (tooled && tools) r.tools = tools;
    if (tooled && selectors.length) r.selectors = selectors;
    if (when && effect !== 'limit') r.when = when;
    if (reason !== undefined) r.reason = reason;
    if (effect === 'limit') r.limit = limit;
    if (effect === 'context') r.text = 'ctx';
    return r;
  });

const eventArb: fc.Arbitrary<PolicyEvent> = fc.oneof(
  fc.record({ seam: fc.constant('pre-tool' as const), tool: word, input: fc.dictionary(fc.constantFrom('command', 'file_path', 'path', 'url', 'sql', 'a'), fc.oneof(textArb, fc.constantFrom('https://a.example.com/x', 'not a url', '../../etc/passwd', '~/x'), fc.integer(), fc.constant(null), fc.array(fc.string({ maxLength: 3 })))), cwd: fc.constantFrom('/repo', '/', 'relative') }),
  fc.record({ seam: fc.constant('post-tool' as const), tool: word, input: fc.dictionary(fc.constantFrom('command', 'file_path'), textArb), output: fc.string({ maxLength: 20 }) }),
  fc.record({ seam: fc.constant('prompt' as const), prompt: fc.string({ maxLength: 40 }) }),
  fc.record({ seam: fc.constant('stop' as const), turn: fc.array(fc.record({ tool: word, input: fc.dictionary(fc.constantFrom('command', 'file_path'), textArb) }), { maxLength: 3 }), stop_hook_active: fc.boolean(), continuations: fc.nat({ max: 9 }) }),
  fc.record({ seam: fc.constant('session-start' as const), source: fc.constantFrom('startup', 'resume', '') }),
);

describe('properties', () => {
  it('evaluation never throws and always answers with a word of its seam', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 8 }), eventArb, (rules, event) => {
        const d = evaluateSync(policy(...rules), event);
        expect(DECISION_RANK[event.seam]).toContain(d.decision);
      }),
      { numRuns: 300 },
    );
  });

  it('reordering a policy never changes a decision', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 8 }).chain((rs) => fc.tuple(fc.constant(rs), fc.shuffledSubarray(rs, { minLength: rs.length, maxLength: rs.length }))), eventArb, ([rules, shuffled], event) => {
        const a = evaluateSync(policy(...rules), event);
        const b = evaluateSync(policy(...shuffled), event);
        expect({ decision: b.decision, reasons: b.reasons, context: b.context, rules: [...b.rules].sort() }).toEqual({
          decision: a.decision,
          reasons: a.reasons,
          context: a.context,
          rules: [...a.rules].sort(),
        });
      }),
      { numRuns: 200 },
    );
  });

  it('adding a rule never loosens a decision', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 6 }), ruleArb.filter((r) => r.effect !== 'limit'), eventArb, (rules, extra, event) => {
        const before = evaluateSync(policy(...rules), event).decision;
        const after = evaluateSync(policy(...rules, extra), event).decision;
        const rank = DECISION_RANK[event.seam];
        expect(rank.indexOf(after)).toBeGreaterThanOrEqual(rank.indexOf(before));
      }),
      { numRuns: 200 },
    );
  });

  it('a policy joined with itself decides the same (idempotent over whole files)', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 6 }), eventArb, (rules, event) => {
        const once = evaluateSync(policy(...rules), event);
        const copy = rules.map((r) => ({ ...r, id: `${r.id}#copy` }));
        const twice = evaluateSync(policy(...rules, ...copy), event);
        expect({ d: twice.decision, r: twice.reasons, c: twice.context }).toEqual({ d: once.decision, r: once.reasons, c: once.context });
      }),
      { numRuns: 150 },
    );
  });
});

describe('imported hooks', () => {
  const ran: string[] = [];
  const runner: HookRunner = async (cr) => {
    ran.push(cr.rule.id);
    return { effect: 'deny', reason: cr.rule.id, exitCode: 2, timedOut: false, summary: 'exit 2' };
  };
  const hookRule = (id: string, seam: Seam, dialect: 'claude' | 'codex', matcher?: string): Rule => {
    const r = rule(seam, 'run', { hook: { command: `hook-${id}`, dialect, event: 'PreToolUse' } });
    r.id = id;
    if (matcher !== undefined) r.hook!.matcher = matcher;
    return r;
  };

  it('run only where their matcher selects the event, in their own dialect', async () => {
    ran.length = 0;
    const p = policy(
      hookRule('claude-exact', 'pre-tool', 'claude', 'Write|Edit'),
      hookRule('claude-regex', 'pre-tool', 'claude', 'Ba.*'),
      hookRule('codex-alias', 'pre-tool', 'codex', 'Edit'),
      hookRule('any', 'pre-tool', 'claude'),
    );
    await evaluate(p, bash('ls'), { runner });
    expect([...ran].sort()).toEqual(['any', 'claude-regex']);
    ran.length = 0;
    await evaluate(p, { seam: 'pre-tool', tool: 'apply_patch', input: {} }, { runner });
    expect([...ran].sort()).toEqual(['any', 'codex-alias']);
  });

  it('match session-start hooks on the source and ignore matchers on prompt and stop', async () => {
    ran.length = 0;
    const p = policy(hookRule('start', 'session-start', 'claude', 'startup|clear'), hookRule('prompt', 'prompt', 'claude', 'Nothing'));
    await evaluate(p, { seam: 'session-start', source: 'resume' }, { runner });
    await evaluate(p, { seam: 'prompt', prompt: 'x' }, { runner });
    expect(ran).toEqual(['prompt']);
    await evaluate(p, { seam: 'session-start', source: 'clear' }, { runner });
    expect(ran).toEqual(['prompt', 'start']);
  });
});

describe('Claude Code hook deduplication', () => {
  it('runs an identical command of one event once, whatever groups name it', async () => {
    let runs = 0;
    const runner: HookRunner = async () => {
      runs++;
      return { effect: 'deny', reason: 'once', exitCode: 2, timedOut: false, summary: 'exit 2' };
    };
    const hook = (id: string, matcher: string, command = 'same', pluginRoot?: string): Rule => {
      const r = rule('pre-tool', 'run', { hook: { command, dialect: 'claude', event: 'PreToolUse', matcher } });
      r.id = id;
      if (pluginRoot) r.hook!.pluginRoot = pluginRoot;
      return r;
    };
    const d = await evaluate(policy(hook('a', 'Bash'), hook('b', 'B.*'), hook('c', '*', 'other'), hook('p', 'Bash', 'same', '/plugin')), bash('ls'), { runner });
    expect(runs).toBe(3);
    expect(d.decision).toBe('deny');
    expect(d.trace.find((t) => t.rule === 'b')?.note).toContain('runs once');
  });
});

describe('input longer than regexes search', () => {
  it('decides on the text searched and says the rest was not', () => {
    const p = policy(rule('prompt', 'block', { when: { op: 'compare', cmp: 'matches', field: { name: 'prompt' }, value: { regex: 'secret', flags: '' } }, reason: 'no' }));
    const long = 'x'.repeat(1024 * 1024) + ' secret';
    const d = evaluateSync(p, { seam: 'prompt', prompt: long });
    expect(d.decision).toBe('allow');
    expect(d.diagnostics).toEqual([expect.objectContaining({ code: 'event/input-capped', severity: 'warning', message: expect.stringContaining('`prompt`') })]);
    const short = evaluateSync(p, { seam: 'prompt', prompt: 'a secret' });
    expect(short.decision).toBe('block');
    expect(short.diagnostics).toEqual([]);
  });
});

describe('a regex the engine cannot run', () => {
  it('fails closed with a diagnostic instead of reading as no match', async () => {
    // the default regex engine, re2js, as the engine loads it (CommonJS)
    const { RE2JS: RE2 } = createRequire(import.meta.url)('re2js') as { RE2JS: { prototype: { test: (s: string) => boolean } } };
    const p = policy(rule('pre-tool', 'deny', { tools: ['Bash'], when: { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: 'x.*y', flags: '' } }, reason: 'no' }));
    expect(evaluateSync(p, bash('ls')).decision).toBe('none');
    const original = RE2.prototype.test;
    RE2.prototype.test = () => {
      throw new Error('abort');
    };
    try {
      const d = evaluateSync(p, bash('ls'));
      expect(d.decision).toBe('deny');
      expect(d.diagnostics.map((x) => x.code)).toEqual(['event/regex-failed']);
    } finally {
      RE2.prototype.test = original;
    }
    expect(evaluateSync(p, bash('ls')).decision).toBe('none');
  });
});
