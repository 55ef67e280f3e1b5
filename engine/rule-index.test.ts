/**
 * The trigger index against the plain scan, exhaustively over small pools: every single selector
 * or condition of a pool as its own rule, against every event of a pool, in one policy (so the
 * per-tool indexes and lookup stamps are shared across events, as in a long session).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicy, indexFor } from './compile.js';
import { evaluateSync } from './evaluate.js';
import type { PolicyEvent } from './events.js';
import { IR_VERSION, type Expr, type Rule, type Selector } from './ir.js';
import { evaluateReference, referencePolicy } from './reference.js';
import { ruleTrigger } from './rule-index.js';

const PATTERNS = ['git push *', 'git status', 'rm -rf *', 'ls', 'tool* x', 'env *', 'rm *', '* status', 'git', '"git" push', 'a\\ b *'];
const COMMANDS = [
  'git push origin', 'git status', 'ls; rm -rf /', '/usr/bin/git push x', './git status', 'env A=1 git push', 'timeout 5 rm -rf /',
  'nice -n 2 git status', 'command git status', 'sudo -u root git push', 'tool9 x', '$GIT push', 'git "push" now', '/tmp/rm -rf x',
  'bash -c "git push"', 'echo $(git status)', 'a\\ b c', 'git', 'x | git push',
];
const GLOBS = ['src/**', '*.env', '/etc/**', '**/*.min.js', '.env', 'docs/', '~/.ssh/**', 'a/../src/**', '*.pem', 'src/*.ts', '**', '/repo/**/x.md'];
const PATHS = ['src/a.ts', '/repo/.env', '.env', 'x/app.min.js', 'a.min.js', '~/.ssh/id', 'docs', 'docs/a/b', '/repo/./src//a.ts', '../etc/hosts', 'k.pem', 'x.md', 'a/x.md'];
const DOMAINS = ['*.example.com', 'example.com', 'API.Example.com', 'example.com.', '*', 'com'];
const URLS = ['https://api.example.com/x', 'https://example.com/', 'https://API.EXAMPLE.COM./x', 'http://127.0.0.1/', 'https://user@example.com:8443/x', 'https://a.b.example.com', 'not a url', 'https://com/'];
const CONDITIONS: Expr[] = [
  { op: 'compare', cmp: '==', field: { name: 'input', path: ['mode'] }, value: 'plan' },
  { op: 'compare', cmp: '==', field: { name: 'input', path: ['mode'] }, value: 1 },
  { op: 'compare', cmp: '==', field: { name: 'input', path: ['mode'] }, value: true },
  { op: 'compare', cmp: '==', field: { name: 'input', path: ['mode'] }, value: null },
  { op: 'compare', cmp: 'in', field: { name: 'input', path: ['mode'] }, value: ['x', 1, false] },
  { op: 'compare', cmp: 'contains', field: { name: 'command' }, value: 'push' },
  { op: 'compare', cmp: 'startswith', field: { name: 'path' }, value: '/repo/src' },
  { op: 'compare', cmp: 'endswith', field: { name: 'url' }, value: '/x' },
  { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: 'rm\\s+-rf', flags: '' } },
  { op: 'compare', cmp: '==', field: { name: 'tool' }, value: 'Bash' },
  { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: 'PUSH|\\bstatus$', flags: 'i' } },
  { op: 'compare', cmp: 'matches', field: { name: 'path' }, value: { regex: '(?i:\\.ENV)$|min\\.js', flags: '' } },
  { op: 'compare', cmp: 'matches', field: { name: 'url' }, value: { regex: 'example\\.com/x', flags: '' } },
  { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: '\\bgit\\s+push\\b', flags: '' } },
  { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: '\\bgit\\s+status\\b', flags: '' } },
  { op: 'compare', cmp: 'matches', field: { name: 'command' }, value: { regex: '(?i)\\bGIT\\s+push', flags: '' } },
  {
    op: 'or',
    args: [
      { op: 'compare', cmp: '==', field: { name: 'input', path: ['mode'] }, value: 'x' },
      { op: 'compare', cmp: '==', field: { name: 'input', path: ['mode'] }, value: 'plan' },
    ],
  },
  {
    op: 'and',
    args: [
      { op: 'compare', cmp: 'contains', field: { name: 'command' }, value: 'git' },
      { op: 'not', arg: { op: 'compare', cmp: '==', field: { name: 'input', path: ['mode'] }, value: 'plan' } },
    ],
  },
];

function rules(): Rule[] {
  const out: Rule[] = [];
  const add = (effect: Rule['effect'], part: Partial<Rule>) => {
    const i = out.length;
    out.push({ id: `p:${i + 1}:1`, seam: 'pre-tool', effect, reason: effect === 'allow' ? undefined : `r${i}`, ...part } as Rule);
  };
  for (const effect of ['deny', 'allow'] as const) {
    for (const p of PATTERNS) add(effect, { selectors: [{ kind: 'command', patterns: [p] }] });
    for (const g of GLOBS) add(effect, { selectors: [{ kind: 'path', globs: [g] }] });
    for (const d of DOMAINS) add(effect, { selectors: [{ kind: 'domain', globs: [d] }] });
    for (const c of CONDITIONS) add(effect, { when: c });
  }
  return out.map((r) => JSON.parse(JSON.stringify(r)) as Rule);
}

function events(): PolicyEvent[] {
  const out: PolicyEvent[] = [];
  const base = { cwd: '/repo', home: '/home/u' };
  for (const command of COMMANDS) out.push({ ...base, seam: 'pre-tool', tool: 'Bash', input: { command } });
  for (const file_path of PATHS) out.push({ ...base, seam: 'pre-tool', tool: 'Read', input: { file_path } });
  for (const url of URLS) out.push({ ...base, seam: 'pre-tool', tool: 'WebFetch', input: { url } });
  for (const mode of ['plan', 'x', 1, true, null, false, '1']) out.push({ ...base, seam: 'pre-tool', tool: 'mcp__db__q', input: { mode } });
  return out;
}

describe('rule index', () => {
  it('gives each single-rule policy the decision the plain scan gives, for every event', () => {
    const all = rules();
    const evs = events();
    for (const rule of all) {
      const ir = { version: IR_VERSION, sources: ['p'], rules: [rule], tests: [] };
      const p = compilePolicy(ir);
      const ref = referencePolicy(ir);
      for (const e of evs) {
        const got = evaluateSync(p, e);
        const want = evaluateReference(ref, e);
        expect([got.decision, got.rules], `${JSON.stringify(rule)} on ${JSON.stringify(e)}`).toEqual([want.decision, want.rules]);
      }
    }
  });

  it('gives a policy of all of them together the scan\'s decisions (shared indexes across events)', () => {
    const ir = { version: IR_VERSION, sources: ['p'], rules: rules(), tests: [] };
    const p = compilePolicy(ir);
    const ref = referencePolicy(ir);
    for (let round = 0; round < 2; round++) {
      for (const e of events()) {
        const got = evaluateSync(p, e);
        const want = evaluateReference(ref, e);
        expect({ decision: got.decision, rules: got.rules, reasons: got.reasons }, JSON.stringify(e)).toEqual({ decision: want.decision, rules: want.rules, reasons: want.reasons });
      }
    }
  });

  it('keys a pattern by its subcommand after global options, and never by an option word', () => {
    const t = (pattern: string) => ruleTrigger({ rule: { id: 'x', seam: 'pre-tool', effect: 'deny', selectors: [{ kind: 'command', patterns: [pattern] }] } } as never);
    expect(t('git -C * push *')).toEqual({ kind: 'word', keys: ['git\u0000push'] });
    expect(t('git --no-pager push')).toEqual({ kind: 'word', keys: ['git\u0000push'] });
    expect(t('npm t *')).toEqual({ kind: 'word', keys: ['npm\u0000test'] });
    expect(t('rm -rf *')).toEqual({ kind: 'word', keys: ['rm'] });
    expect(t('rm x')).toEqual({ kind: 'word', keys: ['rm'] });
    expect(t('git -c * *')).toEqual({ kind: 'word', keys: ['git'] });
    expect(t('echo -n x')).toEqual({ kind: 'word', keys: ['echo\u0000-n'] });
  });

  it('finds triggers where the rules have them', () => {
    const t = (selectors: Selector[], when?: Expr) => ruleTrigger({ rule: { id: 'x', seam: 'pre-tool', effect: 'deny', selectors, ...(when ? { when } : {}) } } as never);
    expect(t([{ kind: 'command', patterns: ['git push *'] }])).toEqual({ kind: 'word', keys: ['git\u0000push'] });
    expect(t([{ kind: 'command', patterns: ['tool* x'] }])).toBeNull();
    expect(t([{ kind: 'path', globs: ['**/*.pem', 'secrets/**'] }])).toEqual({ kind: 'path', segments: ['secrets'], suffixes: ['.pem'] });
    expect(t([{ kind: 'domain', globs: ['*.example.com'] }])).toEqual({ kind: 'domain', keys: ['example.com'] });
    expect(t([], CONDITIONS[0])).toEqual({ kind: 'eq', field: { name: 'input', path: ['mode'] }, keys: ['splan'] });
    expect(t([], { op: 'not', arg: CONDITIONS[0]! })).toBeNull();
  });

  it('shares one index between tool names no rule tells apart, and keeps the scan\'s decisions', () => {
    const r = (i: number, tools: string[] | undefined, effect: Rule['effect'], selectors: Selector[]): Rule =>
      ({ id: `p:${i}:1`, seam: 'pre-tool', effect, reason: `r${i}`, ...(tools ? { tools } : {}), selectors }) as Rule;
    const ir = {
      version: IR_VERSION,
      sources: ['p'],
      rules: [
        r(1, ['mcp__a__*'], 'deny', []),
        r(2, undefined, 'ask', [{ kind: 'command', patterns: ['rm *'] }]),
        r(3, ['mcp__x__q', 'mcp__y__q'], 'deny', []),
        r(4, ['mcp__*__q'], 'ask', []),
        r(5, undefined, 'deny', [{ kind: 'path', globs: ['*.pem'] }]),
      ],
      tests: [],
    };
    const p = compilePolicy(ir);
    const ref = referencePolicy(ir);
    const tools = ['mcp__b__r', 'mcp__c__r', 'mcp__a__r', 'mcp__a__q', 'mcp__x__q', 'mcp__y__q', 'mcp__b__q', 'mcp__c__q', 'Read', 'Bash'];
    for (const tool of tools) {
      for (const input of [{}, { command: 'rm x' }, { file_path: 'k.pem' }]) {
        const e: PolicyEvent = { seam: 'pre-tool', tool, input, cwd: '/repo' };
        const got = evaluateSync(p, e);
        const want = evaluateReference(ref, e);
        expect({ decision: got.decision, rules: got.rules }, JSON.stringify(e)).toEqual({ decision: want.decision, rules: want.rules });
      }
    }
    const ix = (tool: string) => indexFor(p, 'pre-tool', tool);
    expect(ix('mcp__b__r')).toBe(ix('mcp__c__r'));
    expect(ix('mcp__b__q')).toBe(ix('mcp__c__q'));
    expect(ix('mcp__x__q')).toBe(ix('mcp__y__q'));
    expect(ix('Read')).toBe(ix('mcp__b__r'));
    expect(new Set(tools.map(ix)).size).toBe(5);
  });
});

// Option spellings: the indexed evaluator must find every rule whose option-aware pattern matches.
const OPTION_PATTERNS = [
  'git push *', 'git push --force *', 'git push', 'git -C * push *', 'git status', 'git *', 'git stash push *', 'git frob *', 'npm test *',
  'npm run build *', 'rm -rf *', 'rm -rf /', 'rm x', 'curl -o out.txt *', 'sort *', 'rg *', 'kubectl delete *', 'cargo build *',
  "'git' push *", 'git * --force', 'make test *',
];
const OPTION_WORDS = {
  git: [['-C', '.'], ['--no-pager'], ['-P'], ['-c', 'k=v'], ['--git-dir=.git'], ['--git-dir', '.git'], ['-p'], ['--bare']],
  gitSub: ['push', 'pull', 'status', 'stash', 'frob', 'log'],
  gitArgs: [['--force'], ['-f'], ['origin'], ['main'], ['push'], ['--grep', 'push'], ['-u']],
  npm: [['--prefix', 'x'], ['-C', 'x'], ['--script-shell=sh'], ['-s']],
  npmSub: ['test', 't', 'run', 'install', 'build'],
  rm: [['-rf'], ['-fr'], ['-r', '-f'], ['--recursive'], ['--force'], ['--rec'], ['x'], ['/'], ['--'], ['-v']],
};

const optionCommand = fc.oneof(
  fc.record({
    wrapper: fc.constantFrom('', 'nice ', 'sudo ', '/usr/bin/', 'env A=1 '),
    globals: fc.array(fc.constantFrom(...OPTION_WORDS.git), { maxLength: 3 }),
    sub: fc.constantFrom(...OPTION_WORDS.gitSub),
    args: fc.array(fc.constantFrom(...OPTION_WORDS.gitArgs), { maxLength: 3 }),
  }).map(({ wrapper, globals, sub, args }) => `${wrapper}git ${[...globals.flat(), sub, ...args.flat()].join(' ')}`),
  fc.record({
    before: fc.array(fc.constantFrom(...OPTION_WORDS.npm), { maxLength: 2 }),
    sub: fc.constantFrom(...OPTION_WORDS.npmSub),
    after: fc.array(fc.constantFrom(...OPTION_WORDS.npm, ['build'], ['--'], ['x']), { maxLength: 2 }),
  }).map(({ before, sub, after }) => `npm ${[...before.flat(), sub, ...after.flat()].join(' ')}`),
  fc.array(fc.constantFrom(...OPTION_WORDS.rm), { maxLength: 4 }).map((ws) => `rm ${ws.flat().join(' ')}`),
  fc.constantFrom('curl -oout.txt u', 'curl --output out.txt u', 'sort -o f x', 'rg --pre x y', 'kubectl -n x delete pod p', 'cargo +nightly build',
    'make -C d test', 'make test', 'rg x'),
);

describe('rule index and option-aware patterns', () => {
  it('gives the plain scan\'s decisions for random spellings of options', () => {
    const rulesOf = (effect: Rule['effect']) =>
      OPTION_PATTERNS.map((p, i) => ({ id: `p:${i + 1}:1`, seam: 'pre-tool', effect, ...(effect === 'allow' ? {} : { reason: `r${i}` }), selectors: [{ kind: 'command', patterns: [p] }] }) as Rule);
    const single = [...rulesOf('ask'), ...rulesOf('allow')].map((rule) => {
      const ir = { version: IR_VERSION, sources: ['p'], rules: [rule], tests: [] };
      return { rule, p: compilePolicy(ir), ref: referencePolicy(ir) };
    });
    const ir = { version: IR_VERSION, sources: ['p'], rules: [...rulesOf('ask'), ...rulesOf('allow')], tests: [] };
    const together = { p: compilePolicy(ir), ref: referencePolicy(ir) };
    fc.assert(
      fc.property(optionCommand, (command) => {
        const e: PolicyEvent = { seam: 'pre-tool', tool: 'Bash', input: { command }, cwd: '/repo', home: '/home/u' };
        for (const { rule, p, ref } of single) {
          const got = evaluateSync(p, e);
          const want = evaluateReference(ref, e);
          expect([got.decision, got.rules], `${JSON.stringify(rule.selectors)} on ${command}`).toEqual([want.decision, want.rules]);
        }
        const got = evaluateSync(together.p, e);
        const want = evaluateReference(together.ref, e);
        expect([got.decision, got.rules], command).toEqual([want.decision, want.rules]);
      }),
      { numRuns: 400 },
    );
  });
});
