/**
 * The per-request log line (docs/CONTRACT.md, Privacy): location as sent, time, user agent, a one-day salted hash of the address,
 * query id, src, covered and result count, and the resolved metro and ZIP3 for research counts. Never the raw address.
 */
import { createHmac } from 'node:crypto';
import type { RequestLogEntry, RequestLogSink, SaltProvider } from '../edge/edge-types.ts';
import { logSafe } from '../lib/log-text.ts';
import { errorText, logLine } from '../edge/log-line.ts';

/** Hex characters kept of the HMAC: 64 bits tell addresses apart within a day and no more. */
export const ADDRESS_HASH_HEX = 16;
const MAX_FIELD = 256;
/** Addresses whose hash under the current salt is remembered. */
const MAX_REMEMBERED_HASHES = 10_000;

/** What a route knows about a call, merged into its log line. */
export type LogFields = Partial<
  Pick<
    RequestLogEntry,
    'query_id' | 'endpoint' | 'location' | 'src' | 'covered' | 'result_count' | 'metro' | 'zip3' | 'status'
  >
>;

/** The log fields of a call that answered no search (get_firm, get_coverage, a refused search): all null. */
export const NO_SEARCH_FIELDS = {
  query_id: null,
  location: null,
  src: null,
  covered: null,
  result_count: null,
  metro: null,
  zip3: null,
} as const satisfies LogFields;

/** First three digits of a resolved ZIP, or null. */
export function zip3Of(zip: string | null | undefined): string | null {
  return typeof zip === 'string' && /^\d{5}$/.test(zip) ? zip.slice(0, 3) : null;
}

/** HMAC-SHA256 of the address under the day's salt, hex, truncated to ADDRESS_HASH_HEX characters. */
export function hashAddress(salt: Uint8Array, address: string): string {
  return createHmac('sha256', salt).update(address).digest('hex').slice(0, ADDRESS_HASH_HEX);
}

/** A caller-sent field as logged: at most MAX_FIELD characters, with line breaks, controls and bidi controls replaced. */
function clip(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return logSafe(value.length > MAX_FIELD ? value.slice(0, MAX_FIELD) : value);
}

/** Writes request log lines through a sink, hashing the address under the day's salt. */
export class RequestLogger {
  private readonly sink: RequestLogSink;
  private readonly salt: SaltProvider;
  private readonly now: () => number;
  /** The day's hashes by address, for the salt they were made with (an HMAC per line was a tenth of a miss). */
  private hashes: { salt: Uint8Array | null; byAddress: Map<string, string> } = { salt: null, byAddress: new Map() };
  /** The last time written and its ISO text: under load many lines share a millisecond. */
  private clock = { ms: Number.NaN, iso: '' };

  private hashOf(salt: Uint8Array, address: string): string {
    if (this.hashes.salt !== salt) this.hashes = { salt, byAddress: new Map() };
    let hash = this.hashes.byAddress.get(address);
    if (hash === undefined) {
      hash = hashAddress(salt, address);
      if (this.hashes.byAddress.size >= MAX_REMEMBERED_HASHES) this.hashes.byAddress.clear();
      this.hashes.byAddress.set(address, hash);
    }
    return hash;
  }

  /** `now` gives the time in milliseconds since the epoch (tests give a fixed clock). */
  constructor(sink: RequestLogSink, salt: SaltProvider, now: () => number = Date.now) {
    this.sink = sink;
    this.salt = salt;
    this.now = now;
  }

  /**
   * Write one line per entry of `calls` merged over `base` (one line per MCP tool call; none: one line of `base`), for
   * a caller at `clientAddress` with `userAgent`. Never throws.
   */
  async writeLines(
    userAgent: string | null,
    clientAddress: string,
    base: LogFields & { endpoint: string; status: number },
    calls: readonly LogFields[] = [],
  ): Promise<void> {
    try {
      const ms = this.now();
      if (ms !== this.clock.ms) this.clock = { ms, iso: new Date(ms).toISOString() };
      const iso = this.clock.iso;
      const salt = await this.salt.saltFor(iso.slice(0, 10));
      const address_hash = this.hashOf(salt, clientAddress);
      const user_agent = clip(userAgent);
      const write = (f: LogFields & { endpoint: string; status: number }): void =>
        this.sink.write({
          time: iso,
          query_id: f.query_id ?? null,
          endpoint: f.endpoint,
          location: clip(f.location),
          user_agent,
          address_hash,
          src: clip(f.src),
          covered: f.covered ?? null,
          result_count: f.result_count ?? null,
          metro: f.metro ?? null,
          zip3: f.zip3 ?? null,
          status: f.status,
        });
      if (calls.length === 0) write(base);
      for (const fields of calls) write({ ...base, ...fields });
    } catch (err) {
      logLine(`[shim] request log failed: ${errorText(err)}`);
    }
  }
}

/** The log fields a search answer gives (query id, covered, result count, resolved metro and ZIP3). */
export function answerLogFields(body: {
  query_id: string;
  covered: boolean;
  results: readonly unknown[];
  location: { metro: string | null; zip: string | null };
}): LogFields {
  return {
    query_id: body.query_id,
    covered: body.covered,
    result_count: body.results.length,
    metro: body.location.metro,
    zip3: zip3Of(body.location.zip),
  };
}
