import { describe, expect, it } from 'vitest';
import { compileText } from '../dsl/index.js';
import { compilePolicy, evaluate, processHookRunner, runTestCases } from '../engine/index.js';
import { agentImporter, hooksImporter } from './index.js';

const settings = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "from the hook" >&2; exit 2' }] }] } });
const policy = `import claude hooks "./.claude/settings.json"
on pre-tool {
  allow Read
}
`;

describe('import ... hooks in a policy file', () => {
  it('brings the hooks in as run rules beside the policy rules', async () => {
    const r = compileText(policy, 'repo/policy.dshpolicy', { 'repo/.claude/settings.json': settings }, { importer: hooksImporter });
    expect(r.diagnostics).toEqual([]);
    expect(r.ir?.sources).toEqual(['repo/policy.dshpolicy', 'repo/.claude/settings.json']);
    expect(r.ir?.rules.map((x) => x.effect)).toEqual(['allow', 'run']);
    const p = compilePolicy(r.ir!);
    const runner = processHookRunner();
    expect(await evaluate(p, { seam: 'pre-tool', tool: 'Bash', input: { command: 'ls' } }, { runner })).toMatchObject({ decision: 'deny', reasons: ['from the hook'] });
    expect((await evaluate(p, { seam: 'pre-tool', tool: 'Read', input: {} }, { runner })).decision).toBe('allow');
  });

  it('reports a missing file at the import', () => {
    const r = compileText(policy, 'repo/policy.dshpolicy', {}, { importer: hooksImporter });
    expect(r.diagnostics[0]).toMatchObject({ code: 'check/import-not-found', span: { start: { line: 1, column: 21 } } });
  });

  it('fails the compile on a broken hooks file, pointing into it', () => {
    const r = compileText(policy, 'repo/policy.dshpolicy', { 'repo/.claude/settings.json': '{"hooks": [' }, { importer: hooksImporter });
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics.some((d) => d.severity === 'error' && d.span?.file === 'repo/.claude/settings.json')).toBe(true);
  });

  it('is reported as unsupported where no importer is given', () => {
    const r = compileText(policy, 'repo/policy.dshpolicy', { 'repo/.claude/settings.json': settings });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['check/import-unsupported']);
  });
});

describe('import ... permissions, rules and policy in a policy file', () => {
  const files = {
    'repo/.claude/settings.json': JSON.stringify({ permissions: { deny: ['Bash(rm -rf:*)'], allow: ['Bash(npm test)'] } }),
    'repo/.codex/rules/default.rules': 'prefix_rule(pattern=["git", "push"], decision="prompt", match=["git push origin"], not_match=["git status"])\n',
    'repo/gemini.toml': '[[rule]]\ntoolName = "web_fetch"\ndecision = "deny"\npriority = 100\n',
  };
  const text = `import claude permissions "./.claude/settings.json"
import codex rules "./.codex/rules/default.rules"
import gemini policy "./gemini.toml"
`;

  it('brings each in as rules, and Codex examples as test cases', async () => {
    const r = compileText(text, 'repo/policy.dshpolicy', files, { importer: agentImporter });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const p = compilePolicy(r.ir!);
    const decide = async (tool: string, input: Record<string, unknown>) => (await evaluate(p, { seam: 'pre-tool', tool, input, cwd: '/repo' })).decision;
    expect(await decide('Bash', { command: 'rm -rf /' })).toBe('deny');
    expect(await decide('Bash', { command: 'npm test' })).toBe('allow');
    expect(await decide('Bash', { command: 'git push origin' })).toBe('ask');
    expect(await decide('WebFetch', { url: 'https://example.com' })).toBe('deny');
    expect(r.ir!.tests.map((t) => t.expect)).toEqual(['ask', 'none']);
    for (const res of await runTestCases(p)) expect(res.ok).toBe(true);
  });

  it('fails the compile on a broken file, pointing into it', () => {
    const r = compileText(text, 'repo/policy.dshpolicy', { ...files, 'repo/.codex/rules/default.rules': 'prefix_rule(\n' }, { importer: agentImporter });
    expect(r.ir).toBeUndefined();
    expect(r.diagnostics.some((d) => d.severity === 'error' && d.span?.file === 'repo/.codex/rules/default.rules')).toBe(true);
  });

  it('hooks-only importers leave them unsupported', () => {
    const r = compileText(text, 'repo/policy.dshpolicy', files, { importer: hooksImporter });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['check/import-unsupported', 'check/import-unsupported', 'check/import-unsupported']);
  });
});
