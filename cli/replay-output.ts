/**
 * Where `dshpolicy replay` writes: buffered output that waits for a slow reader, and the progress
 * line on a terminal.
 */
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import type { ReplayProgress } from '../bridges/index.js';

/**
 * Buffers writes into 64 KiB chunks (a line at a time on a terminal) and waits for the stream to
 * drain, so a slow reader costs no memory.
 */
export class Output {
  private buf = '';
  /** Called before text goes out (clears the progress line on a shared terminal). */
  beforeWrite: (() => void) | undefined;
  constructor(private readonly stream: NodeJS.WritableStream & { isTTY?: boolean }) {}
  /** Returns a promise only when it writes out (and may wait for the stream to drain). */
  write(text: string): Promise<void> | undefined {
    this.buf += text;
    if (this.buf.length >= 64 * 1024 || this.stream.isTTY === true) return this.flush();
    return undefined;
  }
  async flush(): Promise<void> {
    if (this.buf === '') return;
    const text = this.buf;
    this.buf = '';
    this.beforeWrite?.();
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }
}

/** Bytes this process has read so far (Linux `/proc/self/io` `rchar`), or undefined where there is no such file. */
function bytesReadByProcess(): number | undefined {
  try {
    const m = /^rchar:\s*(\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A one-line progress display on a terminal (stderr): file, bytes read of the run's total, events.
 * The iterators do not say how far into a file they are, so bytes come from the process's read
 * count where the system keeps one (Linux); elsewhere the line shows events only.
 */
export class ProgressLine {
  private timer: NodeJS.Timeout | undefined;
  private current: ReplayProgress | undefined;
  private fileStartRead: number | undefined;
  private doneBytes = 0;
  private shown = false;
  constructor(private readonly stream: NodeJS.WritableStream) {}
  update(p: ReplayProgress): void {
    const next = this.current?.file !== p.file;
    if (next) {
      if (this.current !== undefined) this.doneBytes += this.current.size;
      this.fileStartRead = bytesReadByProcess();
    }
    this.current = p;
    this.timer ??= setInterval(() => this.render(), 200).unref();
    if (next) this.render();
  }
  render(): void {
    const p = this.current;
    if (p === undefined) return;
    const now = bytesReadByProcess();
    const inFile = now !== undefined && this.fileStartRead !== undefined ? Math.max(0, Math.min(p.size, now - this.fileStartRead)) : undefined;
    const parts = [`replay: file ${p.file}/${p.files}`];
    if (inFile !== undefined) {
      const done = this.doneBytes + inFile;
      const pct = p.totalBytes > 0 ? Math.floor((done / p.totalBytes) * 100) : 100;
      parts.push(`${formatBytes(done)} / ${formatBytes(p.totalBytes)} (${pct}%)`);
    } else {
      parts.push(`${formatBytes(this.doneBytes)} done of ${formatBytes(p.totalBytes)}`);
    }
    parts.push(`${p.events.toLocaleString('en-US')} events`);
    this.stream.write(`\r\u001b[2K${parts.join('  ')}`);
    this.shown = true;
  }
  /** Clears the line (before other stderr output, and at the end). */
  clear(): void {
    if (this.shown) this.stream.write('\r\u001b[2K');
    this.shown = false;
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}
