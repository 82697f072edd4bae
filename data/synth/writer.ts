/** Buffered line writer: appends lines to a file in chunks, so large outputs never become one string. */
import { closeSync, openSync, writeSync } from 'node:fs';

const CHUNK_CHARS = 1 << 20;

/** Writes JSON lines to a file through a bounded buffer. */
export class LineWriter {
  private readonly fd: number;
  private parts: string[] = [];
  private size = 0;
  /** Lines written so far. */
  lines = 0;
  /** Bytes written so far. */
  bytes = 0;

  /** Creates (or truncates) the file at `path`. */
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  /** Appends one value as a JSON line. */
  json(value: unknown): void {
    this.line(JSON.stringify(value));
  }

  /** Appends one line of already serialised JSON (without the newline). */
  line(text: string): void {
    const line = `${text}\n`;
    this.parts.push(line);
    this.size += line.length;
    this.lines++;
    if (this.size >= CHUNK_CHARS) this.flush();
  }

  private flush(): void {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    for (let off = 0; off < buf.length;) off += writeSync(this.fd, buf, off);
    this.bytes += buf.length;
    this.parts = [];
    this.size = 0;
  }

  /** Flushes and closes the file. */
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
