/**
 * The architecture's arrows, checked on the source: a folder imports another only through that
 * folder's index.ts, and only along the allowed arrows. (The TypeScript project references make
 * the build fail on a wrong arrow; this also covers deep imports that would bypass index.ts.)
 * Inside bridges/, an agent's folder reaches another agent's only through bridges/common/, and
 * bridges/install/ reaches the agents only through the registry.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const MAY_IMPORT: Record<string, string[]> = {
  grammar: ['engine'],
  engine: [],
  dsl: ['grammar', 'engine'],
  bridges: ['engine', 'dsl'],
  cli: ['engine', 'grammar', 'dsl', 'bridges'],
  specs: ['engine', 'grammar', 'dsl', 'bridges'],
  bench: ['engine', 'dsl', 'bridges'],
  // The examples use the package as a host does: `import ... from 'dshpolicy'`, never a folder of the source.
  examples: [],
};

/** The agents' folders of bridges/; what more than one of them reads lives in bridges/common/. */
const AGENTS = ['claude', 'codex', 'gemini'];

/** Public entries besides index.ts: bridges/hook.ts is hook mode's, without the loaders. */
const PUBLIC_ENTRIES: Record<string, string[]> = { bridges: ['bridges/hook.js'] };

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.includes('node_modules'))
    .map((f) => join(dir, f));
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

describe('layering', () => {
  for (const [folder, allowed] of Object.entries(MAY_IMPORT)) {
    it(`${folder}/ imports only ${allowed.length ? allowed.join(', ') : 'itself'}, each through its index.ts`, () => {
      const problems: string[] = [];
      for (const file of sources(folder)) {
        const text = readFileSync(join(root, file), 'utf8');
        for (const m of text.matchAll(IMPORT)) {
          const spec = m[1] ?? m[2] ?? m[3]!;
          if (!spec.startsWith('.')) continue;
          const target = relative(root, resolve(root, dirname(file), spec));
          const top = target.split('/')[0]!;
          if (top === folder) continue;
          if (!allowed.includes(top)) problems.push(`${file}: imports ${spec} (${top}/ is not allowed here)`);
          else if (target !== `${top}/index.js` && !(PUBLIC_ENTRIES[top] ?? []).includes(target)) {
            problems.push(`${file}: imports ${spec}; go through ${top}/index.js`);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('bridges/: an agent\'s folder imports bridges/common/, not another agent\'s folder; bridges/common/ imports no agent', () => {
    const problems: string[] = [];
    for (const file of sources('bridges')) {
      const from = file.split('/')[1]!;
      if (!AGENTS.includes(from) && from !== 'common') continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? m[3]!;
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(root, dirname(file), spec));
        const [top, to] = target.split('/');
        if (top !== 'bridges' || to === from || !AGENTS.includes(to!)) continue;
        problems.push(`${file}: imports ${spec} (another agent's folder; put what both use in bridges/common/)`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('bridges/ outside the agents\' folders reaches them through the registries, but for the registries and the public entries', () => {
    // agents.ts, hook-agent.ts and protocols.ts list the agents; index.ts and hook.ts re-export their pieces for cli/.
    const LISTS = new Set(['bridges/agents.ts', 'bridges/hook-agent.ts', 'bridges/protocols.ts', 'bridges/index.ts', 'bridges/hook.ts']);
    const problems: string[] = [];
    for (const file of sources('bridges')) {
      const from = file.split('/')[1]!;
      if (AGENTS.includes(from) || from === 'common' || LISTS.has(file) || file.endsWith('.test.ts')) continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? m[3]!;
        if (!spec.startsWith('.')) continue;
        const [top, to] = relative(root, resolve(root, dirname(file), spec)).split('/');
        if (top === 'bridges' && AGENTS.includes(to!)) problems.push(`${file}: imports ${spec} (ask the agent's part through bridges/agents.ts instead)`);
      }
    }
    expect(problems).toEqual([]);
  });
});
