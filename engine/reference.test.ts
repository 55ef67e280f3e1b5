import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compilePolicy } from './compile.js';
import { evaluateSync } from './evaluate.js';
import type { PolicyEvent, ToolCall } from './events.js';
import { IR_VERSION, SEAM_EFFECTS, SEAMS, type CompareOp, type Expr, type FieldRef, type PolicyIR, type Rule, type Seam, type Selector, type Value } from './ir.js';
import { evaluateReference, referencePolicy } from './reference.js';

const TOOLS = ['Bash', 'Read', 'Edit', 'WebFetch', 'mcp__db__query', 'mcp__db__*', 'Ba*', '*'];
const EVENT_TOOLS = ['Bash', 'Read', 'Edit', 'WebFetch', 'mcp__db__query', 'mcp__fs__read'];
const PATTERNS = ['git push *', 'git status', 'rm -rf *', 'npm test', 'ls', 'curl *', 'echo *', 'sudo *', 'git *', 'tool* x', 'git push', 'env *', 'rm *', '* status'];
const COMMANDS = [
  'git push origin main', 'git status', 'npm test && git status', 'ls; rm -rf /', 'curl x | sh', 'echo $(rm -rf /tmp)',
  'sudo git push --force', 'npm test; eval "$X"', 'ls', 'git status && npm test', 'bash -c "git push"', 'echo hi > /etc/passwd',
  '/usr/bin/git push x', './git status', 'env A=1 git push', 'timeout 5 rm -rf /', 'nice -n 2 npm test', 'command git status',
  'tool9 x', '$GIT push', 'git "push" now', '/tmp/rm -rf x',
];
const GLOBS = ['src/**', '*.env', '/etc/**', 'secrets/**', '**/*.ts', '/repo/docs/*.md', '**/*.min.js', '.env', 'docs/', '~/.ssh/**', 'a/../src/**', '*.pem'];
const PATHS = ['src/a.ts', '/repo/.env', '/etc/hosts', 'secrets/key.pem', '/repo/docs/x.md', '../out.txt', 'lib/b.js', 'x/app.min.js', '~/.ssh/id', 'docs', 'docs/a/b', '/repo/./src//a.min.js'];
const DOMAINS = ['*.example.com', 'example.com', 'evil.test', '*', 'API.Example.com', 'example.com.'];
const URLS = ['https://api.example.com/x', 'https://example.com/', 'http://evil.test/a?b', 'not a url', 'https://other.org/p', 'https://API.EXAMPLE.COM./x', 'http://127.0.0.1/', 'https://user@example.com:8443/x'];
const URL_GLOBS = ['https://example.com/*', 'https://*.example.com/**', 'http://*'];
const STRINGS = ['git', 'push', '/repo', '/srv/app', 'plan', 'default', 'secret', '.env', 'done', 'x', 'acceptEdits'];
const REGEXES: { regex: string; flags: string }[] = [
  { regex: '^git', flags: '' }, { regex: 'push|force', flags: '' }, { regex: 'SECRET', flags: 'i' }, { regex: '\\.env$', flags: '' },
  { regex: '^/repo(/|$)', flags: '' }, { regex: 'rm\\s+-rf', flags: 'm' }, { regex: '[0-9]+', flags: '' },
];
const PROMPTS = ['please push to main', 'show me the SECRET', 'hello', 'rm -rf everything', ''];
const OPS: CompareOp[] = ['==', '!=', 'in', 'matches', 'glob', 'startswith', 'endswith', 'contains'];

const FIELDS: Record<Seam, FieldRef[]> = {
  'pre-tool': [{ name: 'tool' }, { name: 'command' }, { name: 'path' }, { name: 'url' }, { name: 'domain' }, { name: 'cwd' }, { name: 'permission_mode' }, { name: 'input', path: ['mode'] }, { name: 'input', path: ['command'] }],
  'post-tool': [{ name: 'tool' }, { name: 'command' }, { name: 'path' }, { name: 'output' }, { name: 'response', path: ['ok'] }, { name: 'cwd' }],
  prompt: [{ name: 'prompt' }, { name: 'cwd' }, { name: 'permission_mode' }],
  stop: [{ name: 'stop_hook_active' }, { name: 'last_message' }, { name: 'cwd' }],
  'session-start': [{ name: 'source' }, { name: 'cwd' }],
};

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);

function valueFor(op: CompareOp): fc.Arbitrary<Value> {
  switch (op) {
    case 'matches':
      return pick(REGEXES);
    case 'in':
      return fc.array(fc.oneof(pick(STRINGS), fc.boolean(), pick<Value>([1, null, 'plan'])), { maxLength: 3 }) as fc.Arbitrary<Value>;
    case 'glob':
      return fc.oneof(pick(GLOBS), pick(DOMAINS), pick(['git *', '/repo*', 'Ba*']));
    case '==':
    case '!=':
      return fc.oneof(pick(STRINGS), fc.boolean(), pick<Value>(['/repo', 'Bash', 'startup', 'resume', 1, null, 'plan']));
    default:
      return pick(STRINGS);
  }
}

function compareArb(seam: Seam): fc.Arbitrary<Expr> {
  return fc.tuple(pick(FIELDS[seam]), pick(OPS)).chain(([field, cmp]) =>
    valueFor(cmp).map((value): Expr => ({ op: 'compare', cmp, field, value })),
  );
}

function selectorArb(): fc.Arbitrary<Selector> {
  return fc.oneof(
    fc.array(pick(PATTERNS), { minLength: 1, maxLength: 2 }).map((patterns): Selector => ({ kind: 'command', patterns })),
    fc.array(pick(GLOBS), { minLength: 1, maxLength: 2 }).map((globs): Selector => ({ kind: 'path', globs })),
    fc.array(pick(DOMAINS), { minLength: 1, maxLength: 2 }).map((globs): Selector => ({ kind: 'domain', globs })),
    fc.array(pick(URL_GLOBS), { minLength: 1, maxLength: 1 }).map((globs): Selector => ({ kind: 'url', globs })),
  );
}

function exprArb(seam: Seam): fc.Arbitrary<Expr> {
  const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      compareArb(seam),
      compareArb(seam),
      pick(FIELDS[seam]).map((field): Expr => ({ op: 'exists', field })),
      fc.boolean().map((value): Expr => ({ op: 'const', value })),
      ...(seam === 'stop'
        ? [fc.tuple(fc.array(pick(TOOLS), { maxLength: 2 }), fc.array(selectorArb(), { maxLength: 1 })).map(([tools, selectors]): Expr => ({ op: 'ran', tools, selectors }))]
        : []),
      fc.array(tie('expr'), { minLength: 1, maxLength: 3 }).map((args): Expr => ({ op: 'and', args })),
      fc.array(tie('expr'), { minLength: 1, maxLength: 3 }).map((args): Expr => ({ op: 'or', args })),
      tie('expr').map((arg): Expr => ({ op: 'not', arg })),
    ),
  }));
  return expr;
}

interface RuleShape {
  seam: Seam;
  effect: Rule['effect'];
  tools?: string[];
  selectors?: Selector[];
  when?: Expr;
  reason?: string;
  text?: string;
  limit?: number;
  matcher?: string;
  /** Position in the source: shuffled, so reason order is not IR order. */
  offset: number;
}

const ruleArb: fc.Arbitrary<RuleShape> = pick(SEAMS).chain((seam) => {
  const toolSeam = seam === 'pre-tool' || seam === 'post-tool';
  return fc.record(
    {
      seam: fc.constant(seam),
      effect: pick(SEAM_EFFECTS[seam]),
      tools: toolSeam ? fc.array(pick(TOOLS), { minLength: 1, maxLength: 3 }) : fc.constant(undefined),
      selectors: toolSeam ? fc.array(selectorArb(), { maxLength: 2 }) : fc.constant(undefined),
      when: exprArb(seam),
      reason: pick(['r1', 'r2', 'r3', 'shared reason']),
      text: pick(['t1', 't2', 'shared text']),
      limit: fc.integer({ min: 0, max: 4 }),
      matcher: pick(['Bash', 'Read|Edit', '*', 'startup']),
      offset: fc.nat(10_000),
    },
    { requiredKeys: ['seam', 'effect', 'offset'] },
  );
});

function toRule(s: RuleShape, i: number): Rule {
  const r: Rule = {
    id: `p.dshpolicy:${i + 1}:1`,
    seam: s.seam,
    effect: s.effect,
    span: { file: 'p.dshpolicy', start: { line: i + 1, column: 1, offset: s.offset }, end: { line: i + 1, column: 2, offset: s.offset + 1 } },
  };
  if (s.tools && s.tools.length > 0) r.tools = s.tools;
  if (s.selectors && s.selectors.length > 0) r.selectors = s.selectors;
  if (s.when) r.when = s.when;
  if (s.reason !== undefined && ['deny', 'ask', 'block', 'continue', 'halt'].includes(s.effect)) r.reason = s.reason;
  if (s.effect === 'context') r.text = s.text ?? 'ctx';
  if (s.effect === 'limit') r.limit = s.limit ?? 1;
  if (s.effect === 'run') {
    r.hook = { command: 'true', dialect: 'claude' };
    if (s.matcher !== undefined) r.hook.matcher = s.matcher;
  }
  return r;
}

const inputArb: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    command: pick(COMMANDS),
    file_path: pick(PATHS),
    url: pick(URLS),
    mode: pick<unknown>(['plan', 'x', 'fast', true, 1, null]),
  },
  { requiredKeys: [] },
);

const callArb: fc.Arbitrary<ToolCall> = fc.record({ tool: pick(EVENT_TOOLS), input: inputArb });

const base = fc.record(
  { cwd: pick(['/repo', '/srv/app', '/repo/docs']), permission_mode: pick(['default', 'plan', 'acceptEdits']), home: fc.constant('/home/u') },
  { requiredKeys: ['home'] },
);

const eventArb: fc.Arbitrary<PolicyEvent> = fc.oneof(
  fc.tuple(base, callArb).map(([b, c]): PolicyEvent => ({ ...b, seam: 'pre-tool', tool: c.tool, input: c.input })),
  fc.tuple(base, callArb, fc.option(pick(['ok', 'SECRET=1', 'error: push rejected']), { nil: undefined }), fc.option(fc.record({ ok: fc.boolean() }), { nil: undefined })).map(
    ([b, c, output, response]): PolicyEvent => {
      const e: PolicyEvent = { ...b, seam: 'post-tool', tool: c.tool, input: c.input };
      if (output !== undefined) e.output = output;
      if (response !== undefined) e.response = response;
      return e;
    },
  ),
  fc.tuple(base, pick(PROMPTS)).map(([b, prompt]): PolicyEvent => ({ ...b, seam: 'prompt', prompt })),
  fc.tuple(base, fc.array(callArb, { maxLength: 3 }), fc.boolean(), fc.option(pick(['done', 'I pushed', '']), { nil: undefined }), fc.option(fc.nat(6), { nil: undefined })).map(
    ([b, turn, active, last, cont]): PolicyEvent => {
      const e: PolicyEvent = { ...b, seam: 'stop', turn, stop_hook_active: active };
      if (last !== undefined) e.last_message = last;
      if (cont !== undefined) e.continuations = cont;
      return e;
    },
  ),
  fc.tuple(base, pick(['startup', 'resume', 'clear'])).map(([b, source]): PolicyEvent => ({ ...b, seam: 'session-start', source })),
);

function ir(rules: Rule[]): PolicyIR {
  return { version: IR_VERSION, sources: ['p.dshpolicy'], rules, tests: [] };
}

function indexed(p: ReturnType<typeof compilePolicy>, e: PolicyEvent) {
  const d = evaluateSync(p, e);
  const out: Record<string, unknown> = { decision: d.decision, reasons: d.reasons, context: d.context, rules: d.rules, pendingHooks: d.pendingHooks };
  if (d.reason !== undefined) out['reason'] = d.reason;
  return out;
}

function reference(p: ReturnType<typeof referencePolicy>, e: PolicyEvent) {
  const d = evaluateReference(p, e);
  const out: Record<string, unknown> = { decision: d.decision, reasons: d.reasons, context: d.context, rules: d.rules, pendingHooks: d.pendingHooks };
  if (d.reason !== undefined) out['reason'] = d.reason;
  return out;
}

/** Decisions seen, per seam: the generators must reach more than the defaults. */
const seen = new Map<string, number>();
function count(e: PolicyEvent, want: Record<string, unknown>): void {
  const key = `${e.seam}:${String(want['decision'])}`;
  seen.set(key, (seen.get(key) ?? 0) + 1);
}

describe('reference interpreter', () => {
  it('agrees with the indexed evaluator on random policies and events', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 14 }), fc.array(eventArb, { minLength: 1, maxLength: 6 }), (shapes, events) => {
        const policy = ir(shapes.map(toRule));
        const p = compilePolicy(policy);
        const ref = referencePolicy(policy);
        for (const e of events) {
          const want = indexed(p, e);
          expect(reference(ref, e)).toEqual(want);
          count(e, want);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('agrees on tool-heavy pre-tool policies (index paths: exact, globbed, tool-less)', () => {
    const preRule = fc.record(
      {
        effect: pick(['deny', 'ask', 'allow'] as const),
        tools: fc.array(pick(TOOLS), { minLength: 0, maxLength: 3 }),
        selectors: fc.array(selectorArb(), { maxLength: 2 }),
        when: exprArb('pre-tool'),
        offset: fc.nat(1000),
      },
      { requiredKeys: ['effect', 'tools', 'selectors', 'offset'] },
    ).map((s): RuleShape => ({ ...s, seam: 'pre-tool', reason: `r${s.offset % 4}` }));
    const preEvent = fc.tuple(base, callArb).map(([b, c]): PolicyEvent => ({ ...b, seam: 'pre-tool', tool: c.tool, input: c.input }));
    fc.assert(
      fc.property(fc.array(preRule, { maxLength: 20 }), fc.array(preEvent, { minLength: 1, maxLength: 8 }), (shapes, events) => {
        const policy = ir(shapes.map(toRule));
        const p = compilePolicy(policy);
        const ref = referencePolicy(policy);
        for (const e of events) {
          const want = indexed(p, e);
          expect(reference(ref, e)).toEqual(want);
          count(e, want);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the generators reach every decision the seams have without hooks, not only the defaults', () => {
    for (const k of ['pre-tool:deny', 'pre-tool:ask', 'pre-tool:allow', 'pre-tool:none', 'post-tool:block', 'prompt:block', 'stop:halt', 'stop:continue', 'stop:stop']) {
      expect(seen.get(k) ?? 0, k).toBeGreaterThan(0);
    }
  });

  it('accepts an IR directly', () => {
    const policy = ir([toRule({ seam: 'pre-tool', effect: 'deny', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm -rf *'] }], reason: 'no', offset: 1 }, 0)]);
    const e: PolicyEvent = { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls && rm -rf /' }, cwd: '/repo' };
    expect(evaluateReference(policy, e)).toMatchObject({ decision: 'deny', reasons: ['no'], rules: ['p.dshpolicy:1:1'] });
  });
});
