/** Local request log: one JSON line per entry in <dir>/requests-YYYY-MM-DD.jsonl (UTC day of the entry). */
import { mkdirSync, createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { RequestLogEntry, RequestLogSink } from '../edge-types.ts';

/** Buffered bytes beyond which lines are dropped rather than held in memory (a stalled disk must not exhaust RAM). */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** Appends entries to a file per UTC day through a write stream; flush() and close() for shutdown and tests. */
export class JsonLinesSink implements RequestLogSink {
  private stream: WriteStream | null = null;
  private day: string | null = null;
  private dropped = 0;
  private failed = false;

  constructor(readonly dir: string) {}

  /** Path of the file for a UTC day (YYYY-MM-DD). */
  fileFor(day: string): string {
    return join(this.dir, `requests-${day}.jsonl`);
  }

  write(entry: RequestLogEntry): void {
    const day = entry.time.slice(0, 10);
    if (this.day !== day || this.stream === null) this.open(day);
    const stream = this.stream;
    if (stream === null) return;
    if (stream.writableLength > MAX_BUFFERED_BYTES) {
      if (this.dropped++ === 0) console.error('[shim] request log is not keeping up; dropping lines');
      return;
    }
    stream.write(`${JSON.stringify(entry)}\n`);
  }

  private open(day: string): void {
    this.stream?.end();
    this.day = day;
    try {
      mkdirSync(this.dir, { recursive: true });
      const stream = createWriteStream(this.fileFor(day), { flags: 'a' });
      stream.on('error', (err) => {
        if (!this.failed) console.error(`[shim] request log write failed: ${err.message}`);
        this.failed = true;
      });
      this.stream = stream;
    } catch (err) {
      console.error(`[shim] cannot open request log in ${this.dir}: ${err instanceof Error ? err.message : String(err)}`);
      this.stream = null;
    }
  }

  /** Resolve once everything written so far has reached the file. */
  flush(): Promise<void> {
    const stream = this.stream;
    if (stream === null || stream.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => stream.write('', () => resolve()));
  }

  /** Flush and close the current file. */
  close(): Promise<void> {
    const stream = this.stream;
    this.stream = null;
    this.day = null;
    if (stream === null) return Promise.resolve();
    return new Promise((resolve) => stream.end(() => resolve()));
  }
}
