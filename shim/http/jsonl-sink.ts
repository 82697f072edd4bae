/**
 * Local request log: one JSON line per entry in <dir>/requests-YYYY-MM-DD.jsonl (UTC day of the entry). Entries are
 * held in memory and written in batches, off the response path: when FLUSH_ENTRIES are waiting, FLUSH_MS after the
 * first one, on flush() and on close() (the server's graceful stop), so a stop loses no line.
 */
import { mkdirSync, createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { RequestLogEntry, RequestLogSink } from '../edge/edge-types.ts';
import { errorText, logLine } from '../edge/log-line.ts';
import { logSafe } from '../lib/log-text.ts';

/** Buffered bytes beyond which lines are dropped rather than held in memory (a stalled disk must not exhaust RAM). */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Entries waiting that trigger a write at once (about 80 KB of lines). */
export const FLUSH_ENTRIES = 256;
/** Longest an entry waits before it is written, in milliseconds. */
export const FLUSH_MS = 200;

/** Appends entries to a file per UTC day through a write stream, in batches; flush() and close() for shutdown and tests. */
export class JsonLinesSink implements RequestLogSink {
  private stream: WriteStream | null = null;
  private day: string | null = null;
  private dropped = 0;
  private failed = false;
  private pending: RequestLogEntry[] = [];
  private pendingDay: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Files of earlier days still being written after their stream was ended (a batch of another day opened one). */
  private ending = new Set<Promise<void>>();

  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  /** Path of the file for a UTC day (YYYY-MM-DD). */
  fileFor(day: string): string {
    return join(this.dir, `requests-${day}.jsonl`);
  }

  write(entry: RequestLogEntry): void {
    const day = entry.time.slice(0, 10);
    // A batch holds one day's lines, so each goes to its own day's file.
    if (this.pendingDay !== null && day !== this.pendingDay) this.drain();
    if ((this.stream?.writableLength ?? 0) > MAX_BUFFERED_BYTES) {
      if (this.dropped++ === 0) logLine('[shim] request log is not keeping up; dropping lines');
      return;
    }
    this.pendingDay = day;
    this.pending.push(entry);
    if (this.pending.length >= FLUSH_ENTRIES) this.drain();
    else if (this.timer === null) {
      this.timer = setTimeout(() => this.drain(), FLUSH_MS);
      // The timer alone must not keep a finished process alive; close() writes what is left.
      this.timer.unref();
    }
  }

  /** Serialise and hand the waiting entries to the file stream in one write. */
  private drain(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const day = this.pendingDay;
    if (this.pending.length === 0 || day === null) return;
    if (this.day !== day || this.stream === null) this.open(day);
    // Fields are clipped and cleaned by the request logger; the whole line is made log-safe again here (valid JSON
    // stays valid: JSON.stringify escapes C0 controls, and what logSafe replaces besides is left as U+FFFD).
    const lines = this.pending.map((e) => `${logSafe(JSON.stringify(e))}\n`).join('');
    this.pending = [];
    this.pendingDay = null;
    this.stream?.write(lines);
  }

  private open(day: string): void {
    if (this.stream !== null) this.retire(this.stream);
    this.day = day;
    try {
      mkdirSync(this.dir, { recursive: true });
      const stream = createWriteStream(this.fileFor(day), { flags: 'a' });
      stream.on('error', (err) => {
        if (!this.failed) logLine(`[shim] request log write failed: ${err.message}`);
        this.failed = true;
      });
      this.stream = stream;
    } catch (err) {
      logLine(`[shim] cannot open request log in ${this.dir}: ${errorText(err)}`);
      this.stream = null;
    }
  }

  /** End `stream`, and keep its last writes waited for by flush() and close() until they are in the file. */
  private retire(stream: WriteStream): void {
    const done: Promise<void> = new Promise((resolve) => stream.end(() => resolve()));
    this.ending.add(done);
    void done.then(() => this.ending.delete(done));
  }

  /** Resolve once everything written so far has reached the files, the earlier days' included. */
  async flush(): Promise<void> {
    this.drain();
    const stream = this.stream;
    const current =
      stream === null || stream.writableLength === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => stream.write('', () => resolve()));
    // An earlier day's stream ended at a day change may still be writing its last batch when the current one is done.
    await Promise.all([current, ...this.ending]);
  }

  /** Write what is waiting, then close the files, and resolve once every line is in them. */
  async close(): Promise<void> {
    this.drain();
    if (this.stream !== null) this.retire(this.stream);
    this.stream = null;
    this.day = null;
    await Promise.all(this.ending);
  }
}
