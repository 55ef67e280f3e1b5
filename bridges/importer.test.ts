import { describe, expect, it } from 'vitest';
import { compileText } from '../dsl/index.js';
import { compilePolicy, evaluate, processHookRunner } from '../engine/index.js';
import { hooksImporter } from './index.js';

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
