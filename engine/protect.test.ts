import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from './compile.js';
import { evaluateSync } from './evaluate.js';
import type { PolicyEvent } from './events.js';
import { IR_VERSION, type PolicyIR } from './ir.js';
import { enforcedRules, mergedUnprotected, protectedGlobs, protectionRules, SELF_PROTECTION_ID, SELF_PROTECTION_REASON } from './protect.js';
import { evaluateReference, referencePolicy } from './reference.js';
import { validateIR } from './validate.js';

const ir = (over: Partial<PolicyIR> = {}): PolicyIR => ({ version: IR_VERSION, sources: ['/p/.dshpolicy/guard.dshpolicy'], rules: [], tests: [], ...over });

describe('self-protection: the built-in rule', () => {
  it('is one deny of the file tools, after the policy\'s own rules, and none when every group is off', () => {
    const own = { id: 'p:1:1', seam: 'pre-tool', effect: 'allow' } as const;
    const rules = enforcedRules(ir({ rules: [own] }));
    expect(rules[0]).toBe(own);
    expect(rules.slice(1)).toMatchObject([{ id: SELF_PROTECTION_ID, effect: 'deny', tools: expect.arrayContaining(['Write', 'Edit', 'apply_patch', 'write_file']), reason: SELF_PROTECTION_REASON }]);
    expect(protectionRules(ir({ unprotected: ['policy', 'claude', 'codex', 'gemini'] }))).toEqual([]);
    expect(enforcedRules(ir({ rules: [own], unprotected: ['policy', 'claude', 'codex', 'gemini'] }))).toEqual([own]);
  });

  it('names the policy\'s sources as they are, escaped, and relative ones from the working directory', () => {
    const h = { cwd: '/work', platform: 'linux', env: {} };
    expect(protectedGlobs('policy', { sources: ['/p/a[1]*.dshpolicy', 'rel/b.dshpolicy'] }, h)).toEqual([
      '.dshpolicy/',
      '/p/a\\[1\\]\\*.dshpolicy',
      '/work/rel/b.dshpolicy',
    ]);
    expect(protectedGlobs('policy', { sources: ['C:\\p\\g.dshpolicy'] }, { platform: 'win32' })).toEqual(['.dshpolicy/', 'C:/p/g.dshpolicy']);
  });

  it('follows the agents\' own directory variables', () => {
    const h = { cwd: '/work', platform: 'linux', env: { CLAUDE_CONFIG_DIR: '/cfg/claude/', CODEX_HOME: 'codex-home' } };
    expect(protectedGlobs('claude', { sources: [] }, h)).toEqual(expect.arrayContaining(['/cfg/claude', '/cfg/claude/settings.json']));
    expect(protectedGlobs('codex', { sources: [] }, h)).toEqual(expect.arrayContaining(['/work/codex-home/hooks.json', '/work/codex-home/config.toml']));
  });

  it('leaves out the groups a policy opts out of, and a merge keeps every opt-out', () => {
    const globs = (p: PolicyIR) => protectionRules(p).flatMap((r) => r.selectors?.flatMap((s) => (s.kind === 'path' ? s.globs : [])) ?? []);
    const all = globs(ir());
    const noClaude = globs(ir({ unprotected: ['claude'] }));
    expect(all).toContain('**/.claude/settings.json');
    expect(noClaude).not.toContain('**/.claude/settings.json');
    expect(noClaude).toContain('**/.codex/hooks.json');
    expect(noClaude).toContain('.dshpolicy/');
    expect(mergedUnprotected([{}, { unprotected: ['gemini'] }, { unprotected: ['claude', 'gemini'] }])).toEqual(['claude', 'gemini']);
    expect(mergedUnprotected([{}, {}])).toBeUndefined();
  });

  it('is part of the IR schema as `unprotected`, known groups only', () => {
    expect(validateIR(ir({ unprotected: ['claude'] })).diagnostics).toEqual([]);
    expect(validateIR({ ...ir(), unprotected: ['cursor'] }).diagnostics.map((d) => d.pointer)).toEqual(['/unprotected/0']);
  });
});

describe('self-protection: the indexed evaluator and the reference scan agree', () => {
  const targets = ['.claude/settings.json', '.claude/agents/x.md', '~/.codex/hooks.json', '.dshpolicy', '.dshpolicy/g.dshpolicy', 'src/.dshpolicy.ts', '.claude', '.claude/*', '/p/.dshpolicy/guard.dshpolicy', 'out.txt'];
  const forms = ['echo x > {}', 'echo x >> {}', 'tee {}', 'cp a {}', 'cp {} /tmp/x', 'mv {} x', 'mv x {}', 'sed -i s/a/b/ {}', 'rm -rf {}', 'unlink {}', 'chmod 000 {}', 'truncate -s0 {}', 'git rm {}', 'cat {}', 'cp {} .claude/', 'sudo rm {}'];
  const policies = [ir(), ir({ unprotected: ['claude'] }), ir({ unprotected: ['policy'] }), ir({ rules: [{ id: 'p:1:1', seam: 'pre-tool', effect: 'allow', tools: ['Bash'], selectors: [{ kind: 'command', patterns: ['rm *', 'echo *'] }] }] })];
  const compiled = policies.map((p) => ({ p: compilePolicy(p), ref: referencePolicy(p) }));

  it('on shell writes and file tools', () => {
    fc.assert(
      fc.property(fc.constantFrom(...forms), fc.constantFrom(...targets), fc.constantFrom('Bash', 'Write', 'Edit'), (form, target, tool) => {
        const input = tool === 'Bash' ? { command: form.replace('{}', target) } : { file_path: target };
        const e: PolicyEvent = { seam: 'pre-tool', tool, input, cwd: '/p', home: '/home/u' };
        for (const { p, ref } of compiled) {
          const got = evaluateSync(p, e);
          const want = evaluateReference(ref, e);
          expect([got.decision, got.reasons], JSON.stringify(e)).toEqual([want.decision, want.reasons]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
