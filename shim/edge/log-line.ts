/**
 * The one writer of the process's own lines (stderr, and stdout on Lambda): every line is made log-safe (control
 * characters, C1 bytes, escapes and line breaks replaced, so caller text cannot forge a line or drive a terminal) and
 * capped in length, and errors that repeat (the MCP SDK's, which echo caller text) are rate-limited.
 */
import { logSafe } from '../lib/log-text.ts';

/** Longest line written, in characters; longer text is cut and says how much was left out. */
export const MAX_LOG_LINE_CHARS = 2000;
/** Longest string value of a JSON line, in characters, so the whole line stays under MAX_LOG_LINE_CHARS. */
export const MAX_LOG_FIELD_CHARS = 500;

/** Where lines go (a stream's write; tests pass their own). */
export type LineOut = (chunk: string) => unknown;

const stderr: LineOut = (chunk) => process.stderr.write(chunk);

/** An IPv4 address, or an IPv6 one of four or more groups (a clock time has three): masked wherever it shows. */
const ADDRESS =
  /\b(?:\d{1,3}\.){3}\d{1,3}\b|(?:[0-9A-Fa-f]{0,4}:){3,7}[0-9A-Fa-f]{1,4}\b|(?:[0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{0,4}/g;

/** Addresses no person sends from, kept so operator messages stay readable ("HOST=0.0.0.0", "http://127.0.0.1:8787"). */
const UNROUTABLE = new Set(['0.0.0.0', '127.0.0.1']);

/**
 * `text` cut to `max` characters (saying how many more there were), then made log-safe as one line, with anything that
 * reads as a network address masked (caller text may plant one; the log never holds a raw address).
 */
export function safeLine(text: string, max = MAX_LOG_LINE_CHARS): string {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
  return logSafe(cut).replace(ADDRESS, (address) => (UNROUTABLE.has(address) ? address : '[address]'));
}

/** Write `text` as one safe line (line breaks inside it are neutralised, never followed). */
export function logLine(text: string, out: LineOut = stderr): void {
  out(`${safeLine(text)}\n`);
}

/** Write `record` as one safe JSON line, each string value capped first so the line stays valid JSON. */
export function logJson(record: Record<string, unknown>, out: LineOut = stderr): void {
  const json = JSON.stringify(record, (_key, value: unknown) =>
    typeof value === 'string' ? safeLine(value, MAX_LOG_FIELD_CHARS) : value,
  );
  // Replacing characters by U+FFFD inside a JSON text keeps it valid JSON; the cap above keeps it whole.
  out(`${logSafe(json)}\n`);
}

/** The message of anything thrown, for a log line. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Options of rateLimited. */
export interface RateLimitOptions {
  /** Lines let through per window (default 10). */
  perWindow?: number;
  /** Window length in milliseconds (default 60 s). */
  windowMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

/**
 * `write` limited to `perWindow` calls a window; the calls held back are counted, and the first call of a later window
 * writes their number first through `summary`.
 */
export function rateLimited<T>(
  write: (item: T) => void,
  summary: (dropped: number) => void,
  options: RateLimitOptions = {},
): (item: T) => void {
  const perWindow = options.perWindow ?? 10;
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  let windowStart = -Infinity;
  let written = 0;
  let dropped = 0;
  return (item) => {
    const t = now();
    if (t - windowStart >= windowMs) {
      if (dropped > 0) summary(dropped);
      windowStart = t;
      written = 0;
      dropped = 0;
    }
    if (written >= perWindow) {
      dropped++;
      return;
    }
    written++;
    write(item);
  };
}

/**
 * The log of the MCP SDK's errors, whose messages echo caller text: each goes to `write` (one safe line), at most 10 a
 * minute, then one line saying how many were left out.
 */
export function mcpErrorLog(write: (message: string) => void, options: RateLimitOptions = {}): (error: Error) => void {
  return rateLimited(
    (error: Error) => write(error.message),
    (dropped) => write(`${dropped} more MCP errors in the last minute were not logged`),
    options,
  );
}
