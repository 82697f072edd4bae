/** Line-by-line reading of JSON-lines files with per-line validation; bad lines are collected, never thrown. */
import { readFile } from 'node:fs/promises';
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

/** Parse every non-blank line of `text` as JSON and validate it with `schema`; `file` is only used in BadRow. */
export function parseJsonl<T>(text: string, file: string, schema: ZodType<T>): { rows: Row<T>[]; bad: BadRow[] } {
  const rows: Row<T>[] = [];
  const bad: BadRow[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? '').replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const line = i + 1;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      bad.push({ file, line, reason: `not valid JSON (${(err as Error).message})` });
      continue;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) rows.push({ line, value: parsed.data });
    else bad.push({ file, line, reason: describeIssues(parsed.error) });
  }
  return { rows, bad };
}

/** Read and parse a JSON-lines file; a missing file is null (the caller decides whether that is fatal). */
export async function readJsonl<T>(path: string, schema: ZodType<T>): Promise<{ rows: Row<T>[]; bad: BadRow[] } | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return parseJsonl(text.replace(/^\uFEFF/, ''), path, schema);
}
