/**
 * Reading a Claude Code or Codex hook payload for hook mode: the hooks wire format both agents
 * write (`hook_event_name`, `tool_name`, `tool_input`, ...) read into a canonical event by the
 * engine's normalizer; an agent event names its agent when the payload does not.
 */
import { normalizeAnyEvent } from '../../engine/index.js';
import type { ReadPayload } from '../hook-agent.js';
import { problemLine } from './answer.js';

export function readHooksJsonPayload(value: unknown, agent: string): ReadPayload {
  const named = (value as Record<string, unknown> | null)?.['hook_event_name'];
  const name = typeof named === 'string' ? named : undefined;
  const norm = normalizeAnyEvent(value);
  if (!norm.event) {
    const d = norm.diagnostics[0];
    const out: ReadPayload = { kind: 'error', message: `the payload cannot be read: ${d ? problemLine(d) : 'unknown problem'}` };
    if (name !== undefined) out.name = name;
    return out;
  }
  const event = norm.event;
  if (event.seam === 'agent-event' && event.agent === undefined) event.agent = agent;
  const out: ReadPayload = { kind: 'event', event };
  if (name !== undefined) out.name = name;
  return out;
}
