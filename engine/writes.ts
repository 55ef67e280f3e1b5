/**
 * Writes are writes: the files a shell command's redirections write (`echo x >> ~/.bashrc`) are
 * judged as writes by the policy's `Write` rules. For each target, the policy decides the event a
 * `Write` of that file would be: a `deny` or `ask` there is a `deny` or `ask` of the command; only
 * an `allow` there lets a command allow cover the part that writes it.
 */
import type { Hit } from './algebra.js';
import { decide, verdict } from './algebra.js';
import type { PreToolEvent } from './events.js';
import type { CommandPart } from './shell/index.js';

/** The tool whose rules judge the files a command writes. */
export const WRITE_TOOL = 'Write';

/** How the policy judges the writes of a command. */
export interface WriteJudgement {
  /** Deny and ask hits of the `Write` rules that matched a target, to add to the command's hits. */
  hits: Hit[];
  /** Per part index, true when every file the part writes is allowed for writing. */
  allowed: boolean[];
  /** The targets no allow covers, for traces. */
  unallowed: string[];
}

/** The hits of the `Write` event for one file: the caller's evaluator (the indexed one or the reference scan). */
export type WriteDecider = (event: PreToolEvent) => Hit[];

/** True when some part of the command writes a file. */
export function writesFiles(parts: readonly CommandPart[]): boolean {
  for (let i = 0; i < parts.length; i++) if (parts[i]!.writes !== undefined) return true;
  return false;
}

/** Judges every file the command's parts write as a `Write` of that file under the same session. */
export function judgeWrites(parts: readonly CommandPart[], event: PreToolEvent, decideWrite: WriteDecider): WriteJudgement {
  const hits: Hit[] = [];
  const allowed: boolean[] = [];
  const unallowed: string[] = [];
  const seen = new Map<string, boolean>();
  for (const part of parts) {
    let ok = true;
    for (const target of part.writes ?? []) {
      // a target named when the command runs made the part unknowable already
      if (target.dynamic) {
        ok = false;
        continue;
      }
      let targetAllowed = seen.get(target.value);
      if (targetAllowed === undefined) {
        const writeEvent: PreToolEvent = { seam: 'pre-tool', tool: WRITE_TOOL, input: { file_path: target.value } };
        if (event.cwd !== undefined) writeEvent.cwd = event.cwd;
        if (event.home !== undefined) writeEvent.home = event.home;
        if (event.session !== undefined) writeEvent.session = event.session;
        if (event.permission_mode !== undefined) writeEvent.permission_mode = event.permission_mode;
        const got = decideWrite(writeEvent);
        const d = decide(verdict('pre-tool', got));
        for (const h of got) {
          if (h.effect !== 'deny' && h.effect !== 'ask') continue;
          const reason = h.reason ?? `the command writes \`${target.value}\``;
          hits.push({ ...h, reason });
        }
        targetAllowed = d.decision === 'allow';
        seen.set(target.value, targetAllowed);
        if (!targetAllowed) unallowed.push(target.value);
      }
      if (!targetAllowed) ok = false;
    }
    allowed.push(ok);
  }
  return { hits, allowed, unallowed };
}
