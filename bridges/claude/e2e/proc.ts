/** Ending a child process and everything it started, including hooks that run in their own session. */
import { readdirSync, readFileSync } from 'node:fs';

/** Kills a detached child's whole process group (falls back to the child alone). */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Kills `pid`, its process group, and every descendant with its own group. Claude Code starts
 * hooks in a new session, so killing the CLI's group alone would leave a hanging hook behind.
 * Descendants are found through /proc (Linux); elsewhere only the group is killed.
 */
export function killTree(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  const tree = descendants(pid);
  killGroup(pid, signal);
  for (const child of tree) {
    killGroup(child, signal);
  }
}

/** Every live descendant of `root`, parents before children. */
export function descendants(root: number): number[] {
  if (process.platform !== 'linux') return [];
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses; split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    out.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return out;
}

/** Whether a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
