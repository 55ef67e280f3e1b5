/**
 * Writes are writes: the files a shell command writes, through its redirections
 * (`echo x >> ~/.bashrc`) and through programs' operands and options (`tee f`, `cp a f`), are
 * judged as writes by the policy's `Write` rules. For each file, the policy decides the event a
 * `Write` of that file would be: a `deny` or `ask` there is a `deny` or `ask` of the command. For a
 * redirection, only an `allow` there lets a command allow cover the part that writes it; a file a
 * program writes is covered by an allow pattern that names it (shell/pattern.ts).
 */
import type { Hit } from './algebra.js';
import { decide, verdict } from './algebra.js';
import type { PreToolEvent } from './events.js';
import { homeRelative, type CommandPart, type ShellWord } from './shell/index.js';

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

/** The file a target names: its text, or `~/...` for `$HOME/...`; null when it is computed otherwise. */
function fileOf(target: ShellWord): string | null {
  return target.dynamic ? homeRelative(target.value) : target.value;
}

/** True when some part of the command writes a file. */
export function writesFiles(parts: readonly CommandPart[]): boolean {
  for (let i = 0; i < parts.length; i++) if (parts[i]!.writes !== undefined || parts[i]!.operandWrites !== undefined) return true;
  return false;
}

/** Judges every file the command's parts write as a `Write` of that file under the same session. */
export function judgeWrites(parts: readonly CommandPart[], event: PreToolEvent, decideWrite: WriteDecider): WriteJudgement {
  const hits: Hit[] = [];
  const allowed: boolean[] = [];
  const unallowed: string[] = [];
  const seen = new Map<string, boolean>();
  /** Decides the `Write` of one file once: its deny and ask hits join the command's; true when it is allowed. */
  const judge = (file: string): boolean => {
    const writeEvent: PreToolEvent = { seam: 'pre-tool', tool: WRITE_TOOL, input: { file_path: file } };
    if (event.cwd !== undefined) writeEvent.cwd = event.cwd;
    if (event.home !== undefined) writeEvent.home = event.home;
    if (event.session !== undefined) writeEvent.session = event.session;
    if (event.permission_mode !== undefined) writeEvent.permission_mode = event.permission_mode;
    const got = decideWrite(writeEvent);
    for (const h of got) {
      if (h.effect !== 'deny' && h.effect !== 'ask') continue;
      hits.push({ ...h, reason: h.reason ?? `the command writes \`${file}\`` });
    }
    const allowed = decide(verdict('pre-tool', got)).decision === 'allow';
    seen.set(file, allowed);
    return allowed;
  };
  for (const part of parts) {
    let ok = true;
    // a file a program's operand or option writes is judged for deny and ask; an allow pattern covers it by naming it
    const named = part.operandWrites ?? [];
    for (let k = 0; k < named.length; k++) {
      const file = fileOf(named[k]!);
      if (file !== null && !seen.has(file)) judge(file);
    }
    for (const target of part.writes ?? []) {
      // a target named when the command runs made the part unknowable already (`$HOME/...` is read as `~/...`)
      const file = fileOf(target);
      if (file === null) {
        ok = false;
        continue;
      }
      const targetAllowed = seen.get(file) ?? judge(file);
      if (!targetAllowed) {
        ok = false;
        if (!unallowed.includes(file)) unallowed.push(file);
      }
    }
    allowed.push(ok);
  }
  return { hits, allowed, unallowed };
}
