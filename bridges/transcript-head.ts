/**
 * Which agent wrote a session file, and what its first lines say about the session: read from the
 * head of the file only (at most 4 MiB or 2,000 lines). Each agent with transcripts reads the
 * lines with its own head reader (`AgentTranscripts.head`); the file is the agent's whose reader
 * is first sure of a line (in registry order on the same line), else the first that thought one
 * might be its. The facts are that agent's reader's. Names no agent.
 */
import { open } from 'node:fs/promises';
import type { Agent } from './agent.js';
import { agentsWith } from './agents.js';
import { parseLine, readLinesForward, type HeadReader } from './common/transcript.js';

/** The name of an agent whose session files dshpolicy reads (`Agent.name`). */
export type TranscriptAgent = Agent['name'];

const SNIFF_BYTES = 4 * 1024 * 1024;
const SNIFF_LINES = 2000;

/** How much of a file's head is read, in bytes, for messages. */
export const TRANSCRIPT_HEAD_BYTES = SNIFF_BYTES;

export interface TranscriptHead {
  /** The agent the head says wrote the file, when it says one. */
  agent?: TranscriptAgent;
  session?: string;
  cwd?: string;
  permissionMode?: string;
  /** Every main line seen is a subagent's (a sidechain transcript). */
  sidechain: boolean;
  /** No readable JSON object in the head. */
  empty: boolean;
}

/**
 * Reads the head of a file (at most 4 MiB) for its agent, session id, working directory and
 * permission mode, asking the head reader of each of `agents` (default: every agent with
 * transcripts) about every line. Throws when the file cannot be opened.
 */
export async function readTranscriptHead(path: string, agents: readonly Agent[] = agentsWith('transcripts')): Promise<TranscriptHead> {
  const readers: { name: string; reader: HeadReader }[] = [];
  for (const a of agents) if (a.transcripts !== undefined) readers.push({ name: a.name, reader: a.transcripts.head() });
  let empty = true;
  let sure: (typeof readers)[number] | undefined;
  let maybe: (typeof readers)[number] | undefined;
  const handle = await open(path, 'r');
  try {
    let lines = 0;
    for await (const raw of readLinesForward(handle, SNIFF_BYTES)) {
      if (++lines > SNIFF_LINES || raw.offset > SNIFF_BYTES) break;
      const value = raw.oversized === true ? null : parseLine(raw.text);
      if (value === undefined || value === null) continue;
      empty = false;
      for (const r of readers) {
        const verdict = r.reader.line(value);
        if (verdict === 'sure') sure ??= r;
        else if (verdict === 'maybe') maybe ??= r;
      }
      if (sure !== undefined && sure.reader.complete()) break;
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  const found = sure ?? maybe;
  const head: TranscriptHead = { sidechain: false, empty };
  if (found === undefined) return head;
  const facts = found.reader.facts();
  head.agent = found.name;
  if (facts.session !== undefined) head.session = facts.session;
  if (facts.cwd !== undefined) head.cwd = facts.cwd;
  if (facts.permissionMode !== undefined) head.permissionMode = facts.permissionMode;
  head.sidechain = facts.sidechain;
  return head;
}
