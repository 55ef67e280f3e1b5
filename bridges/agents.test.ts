/**
 * The registries agree: every agent of agents.ts with a hook mode is the one hook-agent.ts lists
 * (the light registry hook processes load), and every agent with a protocol has it registered with
 * the engine, under its own name.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KNOWN_IMPORTS } from '../dsl/index.js';
import { hookProtocol, hookProtocols } from '../engine/index.js';
import { AGENTS, agentNamed, agentNameList, agentsWith } from './agents.js';
import { HOOK_AGENTS } from './hook-agent.js';
import { PERMISSION_IMPORTS } from './permissions.js';

describe('the agent registry', () => {
  it('names each agent once', () => {
    const names = AGENTS.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('lists the same hook agents as the light registry, as the same objects', () => {
    expect(agentsWith('hookMode').map((a) => a.hookMode)).toEqual([...HOOK_AGENTS]);
    for (const a of agentsWith('hookMode')) expect(a.hookMode.name).toBe(a.name);
  });

  it('has every protocol registered with the engine under the agent\'s name', () => {
    for (const a of agentsWith('protocol')) {
      expect(a.protocol.dialect).toBe(a.name);
      expect(hookProtocol(a.name)).toBe(a.protocol);
    }
    expect(hookProtocols().map((p) => p.dialect)).toEqual(agentsWith('protocol').map((a) => a.name));
  });

  it('finds agents by name and lists them for messages', () => {
    expect(agentNamed('codex')?.title).toBe('Codex');
    expect(agentNamed('cursor')).toBeUndefined();
    expect(agentNameList(AGENTS)).toBe('`claude`, `codex` or `gemini`');
    expect(agentNameList(agentsWith('export'))).toBe('`gemini`');
  });

  it('honours exactly the import forms the language names (dsl KNOWN_IMPORTS)', () => {
    const key = (i: { agent: string; what: string }) => `${i.agent} ${i.what}`;
    const honoured = [...agentsWith('hooks').map((a) => ({ agent: a.name, what: 'hooks' })), ...PERMISSION_IMPORTS].map(key).sort();
    expect(honoured).toEqual(KNOWN_IMPORTS.map(key).sort());
  });

  it('discovers a project\'s hooks through each agent that has them, from the agent\'s own files', () => {
    const root = mkdtempSync(join(tmpdir(), 'dshpolicy-discover-'));
    try {
      const home = join(root, 'home');
      const project = join(root, 'project');
      mkdirSync(join(project, '.claude'), { recursive: true });
      mkdirSync(join(project, '.git'), { recursive: true });
      mkdirSync(home, { recursive: true });
      const hooks = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo hi' }] }] } };
      writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify(hooks));
      const found = Object.fromEntries(agentsWith('hooks').map((a) => [a.name, a.hooks.discover({ projectDir: project, home, env: {} })]));
      expect(found['claude']!.groups.map((g) => [g.event, g.matcher])).toEqual([['PreToolUse', 'Bash']]);
      expect(found['codex']!.groups).toEqual([]);
      for (const config of Object.values(found)) expect(config.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
