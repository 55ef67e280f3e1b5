/**
 * The host's view of replay: paths in (files and directories), records and a summary out, every
 * agent reached through the registry. The command's own output is cli/replay.test.ts's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileText } from '../../dsl/index.js';
import { compilePolicy, type Diagnostic } from '../../engine/index.js';
import { agentNamed, agentsWith } from '../agents.js';
import { readTranscriptHead } from '../transcript-head.js';
import { replay, writeSyntheticTranscript, type ReplayRecord } from './index.js';

const BRIDGES = join(import.meta.dirname, '..');
const CLAUDE = join(BRIDGES, 'claude', 'testdata', 'transcripts');
const CODEX = join(BRIDGES, 'codex', 'testdata', 'rollouts');
const dir = mkdtempSync(join(tmpdir(), 'dshpolicy-replay-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { ir } = compileText('on pre-tool {\n  deny Bash command "echo hello" because "no greetings"\n}\n', 'p.dshpolicy');
const policy = compilePolicy(ir!);

describe('replay for a host', () => {
  it('takes directories and files, gives each event in file order and the summary', async () => {
    const records: ReplayRecord[] = [];
    const summary = await replay(policy, [CLAUDE, join(CODEX, 'exec.jsonl')], { onEvent: (r) => void records.push(r) });
    expect(summary.files.map((f) => f.agent)).toEqual(['claude', 'claude', 'claude', 'codex']);
    expect(records.length).toBe(summary.events);
    expect(summary.events).toBe(21 + 4);
    expect(records.filter((r) => r.decision.decision === 'deny').map((r) => r.agent)).toEqual(['claude', 'codex']);
  });

  it('reports a path that cannot be read, and an agent it does not know, as failed files', async () => {
    const problems: Diagnostic[] = [];
    const missing = join(dir, 'missing');
    const summary = await replay(policy, [missing], { onDiagnostic: (_, d) => void problems.push(d) });
    expect(summary.failedFiles).toBe(1);
    expect(problems.map((d) => d.code)).toEqual(['replay/unreadable']);
    const unknown = await replay(policy, [join(CLAUDE, 'bash.jsonl')], { agent: 'nope' });
    expect(unknown.failedFiles).toBe(1);
    expect(unknown.diagnostics[0]).toMatchObject({ code: 'replay/unknown-agent', severity: 'error' });
    expect(unknown.diagnostics[0]!.message).toContain('`nope`');
  });

  it('tells a file\'s agent only among the agents it is given', async () => {
    const codexOnly = [agentNamed('codex')!];
    expect((await readTranscriptHead(join(CLAUDE, 'bash.jsonl'), codexOnly)).agent).toBeUndefined();
    expect((await readTranscriptHead(join(CODEX, 'exec.jsonl'), codexOnly)).agent).toBe('codex');
  });

  it('writes a synthetic session of every agent that has synthetic lines, and replays it to the events it promised', async () => {
    for (const agent of agentsWith('transcripts').filter((a) => a.transcripts.synthetic !== undefined)) {
      const file = join(dir, `${agent.name}.jsonl`);
      const written = writeSyntheticTranscript(file, { agent: agent.name, turns: 20, callsPerTurn: 3 });
      expect(written.agent).toBe(agent.name);
      const head = await readTranscriptHead(file);
      expect(head).toMatchObject({ agent: agent.name, session: '00000000-0000-4000-8000-000000000000', cwd: '/tmp/replay-project' });
      const summary = await replay(policy, [file]);
      expect(summary.events).toBe(written.events);
      expect(summary.stops.total).toBe(20);
    }
    expect(() => writeSyntheticTranscript(join(dir, 'x.jsonl'), { agent: 'nope', turns: 1 })).toThrow(/nope/);
  });
});
