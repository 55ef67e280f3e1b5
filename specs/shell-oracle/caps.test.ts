/**
 * The analysis caps, on command lines too large for a YAML case: past a cap (1 MiB of text,
 * nesting depth, wrappers in a row, `find -exec` chains) the call gets the strictest decision any
 * rule on the tool could give: under a deny, deny; under an ask, ask; never allow. Evaluated
 * through the same public APIs as specs/conformance.test.ts. Cases the engine gets wrong today
 * are in KNOWN_GAPS and run as expected failures.
 */
import { describe, expect, it } from 'vitest';
import { compileText } from '../../dsl/index.js';
import { compilePolicy, evaluate, normalizeEvent } from '../../engine/index.js';

const MIB = 1 << 20;

const DENY = `on pre-tool {
  allow Bash command "echo *", "find *", "true"
  deny  Bash command "rm -rf /" because "never delete a root"
}
`;
const ASK = `on pre-tool {
  allow Bash command "echo *", "find *", "true"
  ask   Bash command "git push *" because "pushing needs a person"
}
`;
const ALLOW = `on pre-tool {
  allow Bash command "echo *", "find *", "true", "rm -rf /"
}
`;

async function decide(policy: string, command: string): Promise<string> {
  const compiled = compileText(policy, 'policy.dshpolicy');
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const norm = normalizeEvent({ seam: 'pre-tool', tool: 'Bash', input: { command }, cwd: '/repo', home: '/home/u' });
  expect(norm.diagnostics).toEqual([]);
  return (await evaluate(compilePolicy(compiled.ir!), norm.event!)).decision;
}

function nest(inner: string, left: string, right: string, depth: number): string {
  return left.repeat(depth) + inner + right.repeat(depth);
}

/** `bash -c` around a script, `depth` times, each level double-quoted for the one outside it (the text doubles per level). */
function nestedBashC(script: string, depth: number): string {
  let s = script;
  for (let i = 0; i < depth; i++) s = `bash -c "${s.replace(/["\\$`]/g, '\\$&')}"`;
  return s;
}

function findChain(inner: string, depth: number): string {
  return 'find .' + ' -exec find .'.repeat(depth - 1) + ` -exec ${inner} ` + '\\; '.repeat(depth).trim();
}

interface CapCase {
  name: string;
  command: () => string;
  policy: string;
  want: string;
}

const CASES: CapCase[] = [
  { name: 'a command over 1 MiB ending in rm -rf / is denied', policy: DENY, want: 'deny', command: () => `echo ${'a'.repeat(MIB)}; rm -rf /` },
  { name: 'rm -rf / after 1 MiB of short parts is denied', policy: DENY, want: 'deny', command: () => 'true; '.repeat(MIB / 6 + 10) + 'rm -rf /' },
  { name: 'rm -rf / cut by the 1 MiB boundary is denied', policy: DENY, want: 'deny', command: () => `echo ${'a'.repeat(MIB - 9)}; rm -rf /` },
  { name: 'rm -rf / inside a quote that spans the 1 MiB boundary is denied', policy: DENY, want: 'deny', command: () => `echo "${'a'.repeat(MIB)}$(rm -rf /)"` },
  { name: 'git push after 1 MiB asks', policy: ASK, want: 'ask', command: () => `echo ${'a'.repeat(MIB)}; git push` },
  { name: 'a command over 1 MiB is never allowed', policy: ALLOW, want: 'none', command: () => `echo ${'a'.repeat(MIB)}; rm -rf /` },
  { name: '$( ) nested 20 deep around rm -rf / is denied', policy: DENY, want: 'deny', command: () => 'echo ' + nest('rm -rf /', '$(', ')', 20) },
  { name: '$( ) nested 100 deep around rm -rf / is denied', policy: DENY, want: 'deny', command: () => 'echo ' + nest('rm -rf /', '$(', ')', 100) },
  // Written `( (`: bash reads `((` as arithmetic, where nothing runs.
  { name: '( ) nested 20 deep around rm -rf / is denied', policy: DENY, want: 'deny', command: () => nest('rm -rf /', '( ', ' )', 20) },
  { name: '( ) nested 1000 deep around rm -rf / is denied', policy: DENY, want: 'deny', command: () => nest('rm -rf /', '( ', ' )', 1000) },
  { name: '{ } nested 100 deep around rm -rf / is denied', policy: DENY, want: 'deny', command: () => nest('rm -rf /', '{ ', '; }', 100) },
  { name: 'bash -c nested 18 deep around rm -rf / is denied', policy: DENY, want: 'deny', command: () => nestedBashC('rm -rf /', 18) },
  { name: 'eval nested 20 deep around rm -rf / is denied', policy: DENY, want: 'deny', command: () => 'eval '.repeat(20) + 'rm -rf /' },
  { name: '$( ) nested 20 deep around git push asks', policy: ASK, want: 'ask', command: () => 'echo ' + nest('git push', '$(', ')', 20) },
  { name: '$( ) nested 20 deep is never allowed', policy: ALLOW, want: 'none', command: () => 'echo ' + nest('rm -rf /', '$(', ')', 20) },
  { name: 'a 5-deep find -exec chain ending in rm -rf / is denied', policy: DENY, want: 'deny', command: () => findChain('rm -rf /', 5) },
  { name: 'a 10-deep find -exec chain ending in rm -rf / is denied', policy: DENY, want: 'deny', command: () => findChain('rm -rf /', 10) },
  { name: 'a 5-deep find -exec chain ending in git push asks', policy: ASK, want: 'ask', command: () => findChain('git push', 5) },
  { name: '100 nested nice around rm -rf / is denied', policy: DENY, want: 'deny', command: () => 'nice '.repeat(100) + 'rm -rf /' },
  { name: '100 nested nice around git push asks', policy: ASK, want: 'ask', command: () => 'nice '.repeat(100) + 'git push' },
  { name: '10000 parts before rm -rf / are all read', policy: DENY, want: 'deny', command: () => 'true; '.repeat(10000) + 'rm -rf /' },
];

/** Cases the engine decides wrongly today, and why. */
const KNOWN_GAPS: Readonly<Record<string, string>> = {
};

describe('analysis caps give the strictest decision', () => {
  it('every known gap names a case', () => {
    const names = new Set(CASES.map((c) => c.name));
    expect(Object.keys(KNOWN_GAPS).filter((n) => !names.has(n))).toEqual([]);
  });
  for (const c of CASES) {
    const gap = KNOWN_GAPS[c.name];
    const test = gap === undefined ? it : it.fails;
    const name = gap === undefined ? c.name : `${c.name} (known gap: ${gap}; remove it from KNOWN_GAPS once this passes)`;
    test(name, async () => {
      expect(await decide(c.policy, c.command())).toBe(c.want);
    }, 30_000);
  }
});
