/** Line-by-line reading of JSON-lines files with per-line validation; bad lines are collected, never thrown. */
import type { Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { ZodType, z } from 'zod';

/** One input row that could not be used: where it is and why. */
export interface BadRow {
  file: string;
  line: number;
  reason: string;
}

/** A valid row with the line it came from. */
export interface Row<T> {
  line: number;
  value: T;
}

/** Zod issues as one readable sentence: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(record)'}: ${i.message}`)
    .join('; ');
}

/** Collects valid rows and bad rows of one file, one line at a time. */
class JsonlParser<T> {
  readonly rows: Row<T>[] = [];
  readonly bad: BadRow[] = [];

  private readonly file: string;
  private readonly schema: ZodType<T>;
  private readonly prepare: (value: T) => T;
  private readonly fast: (json: unknown) => T | undefined;
  constructor(
    file: string,
    schema: ZodType<T>,
    prepare: (value: T) => T = (value) => value,
    fast: (json: unknown) => T | undefined = () => undefined,
  ) {
    this.file = file;
    this.schema = schema;
    this.prepare = prepare;
    this.fast = fast;
  }

  /** Line `line` (1-based) without its '\n'; a trailing '\r' is dropped here. */
  add(text: string, line: number): void {
    const raw = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      this.bad.push({ file: this.file, line, reason: `not valid JSON (${(err as Error).message})` });
      return;
    }
    const quick = this.fast(json);
    if (quick !== undefined) {
      this.rows.push({ line, value: this.prepare(quick) });
      return;
    }
    const parsed = this.schema.safeParse(json);
    if (parsed.success) this.rows.push({ line, value: this.prepare(parsed.data) });
    else this.bad.push({ file: this.file, line, reason: describeIssues(parsed.error) });
  }
}

/** Parse every non-blank line of `text` as JSON and validate it with `schema`; `file` is only used in BadRow. */
export function parseJsonl<T>(text: string, file: string, schema: ZodType<T>): { rows: Row<T>[]; bad: BadRow[] } {
  const parser = new JsonlParser(file, schema);
  let line = 0;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    parser.add(end === -1 ? text.slice(start) : text.slice(start, end), ++line);
    if (end === -1) break;
    start = end + 1;
  }
  return { rows: parser.rows, bad: parser.bad };
}

const NEWLINE = 0x0a;
const BOM = '\uFEFF';

/**
 * Read and parse a JSON-lines file; a missing file is null (the caller decides whether that is fatal). `prepare` may
 * replace each valid value by an equal one that shares parts with earlier rows (see intern.ts). The file is streamed and
 * split on '\n' bytes, each line decoded on its own (a '\n' byte is never part of a multi-byte UTF-8 sequence, so this
 * decodes exactly as the whole file would): memory holds the parsed rows, never the file's text. `fast` may return what
 * `schema` would for a row (see fast-check.ts); where it returns undefined, `schema` decides. `hash`, when given, is
 * updated with every byte read (the digest of exactly what was parsed).
 */
export async function readJsonl<T>(
  path: string,
  schema: ZodType<T>,
  prepare?: (value: T) => T,
  fast?: (json: unknown) => T | undefined,
  hash?: Hash,
): Promise<{ rows: Row<T>[]; bad: BadRow[] } | null> {
  const parser = new JsonlParser(path, schema, prepare, fast);
  let line = 0;
  const emit = (bytes: Buffer, start: number, end: number): void => {
    let text = bytes.toString('utf8', start, end);
    if (line === 0 && text.startsWith(BOM)) text = text.slice(BOM.length);
    parser.add(text, ++line);
  };
  // Bytes of a line that started in an earlier chunk.
  let carry: Buffer[] = [];
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      hash?.update(chunk);
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        if (carry.length > 0) {
          carry.push(chunk.subarray(0, end));
          const joined = Buffer.concat(carry);
          carry = [];
          emit(joined, 0, joined.length);
        } else {
          emit(chunk, start, end);
        }
        start = end + 1;
      }
      if (start < chunk.length) carry.push(chunk.subarray(start));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const last = Buffer.concat(carry);
  emit(last, 0, last.length);
  return { rows: parser.rows, bad: parser.bad };
}
