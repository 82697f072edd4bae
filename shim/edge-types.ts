/** Types shared by the platform adapters (local HTTP server, AWS Lambda) and the request pipeline. */
import type { SearchRequest } from './core/search-request.ts';

/** Per-request facts only the platform knows. */
export interface RequestInfo {
  /** The caller's network address (never stored raw). */
  clientAddress: string;
  /** The request method when a web Request cannot carry it (TRACE, CONNECT, TRACK); absent otherwise. */
  method?: string;
  /**
   * Absolute base URL of this request's links and problem types (the public host the caller used), without trailing
   * slash; absent: the app's configured one. One app thus serves every host (the Lambda behind several names).
   */
  publicBaseUrl?: string;
  /**
   * Called by the app with the log fields of the search answer it gives (query id, counts, metro): an adapter that
   * caches finished answers stores them beside the bytes. Per request, in place of a side table keyed on the Request.
   */
  onSearchAnswer?: (fields: Partial<RequestLogEntry>) => void;
  /**
   * The /v1/attorneys search as the adapter already parsed it from this request's query string (the Node fast path,
   * on a cache miss), so the app does not parse it again; absent: the app parses it.
   */
  search?: SearchRequest;
  /** Set by the app for a mounted route (MCP): each call made within the request (a tool call) gets its own log line. */
  recordCall?: (fields: Partial<RequestLogEntry>) => void;
  /** The request's JSON body as the route's charge read it (MCP), so it is read and parsed once; absent: unread. */
  body?: JsonBody;
}

/** A JSON request body read once: its value, or why there is none (over the size limit, not JSON). */
export type JsonBody = { kind: 'json'; value: unknown } | { kind: 'too_large' } | { kind: 'not_json' };

/** The whole service as one function of a web-standard Request. */
export type App = (request: Request, info: RequestInfo) => Promise<Response>;

/** A random salt per UTC day, shared by every instance for that day, unrecoverable after it. */
export interface SaltProvider {
  /** Salt for the UTC day `day` (YYYY-MM-DD). */
  saltFor(day: string): Promise<Uint8Array>;
}

/** One stored line per request (docs/CONTRACT.md, Privacy): never the raw address. */
export interface RequestLogEntry {
  time: string;
  query_id: string | null;
  endpoint: string;
  location: string | null;
  user_agent: string | null;
  address_hash: string;
  src: string | null;
  covered: boolean | null;
  result_count: number | null;
  /** Resolved measured metro and ZIP3 of a search (derived from the location, for research counts; no new personal data). */
  metro: string | null;
  zip3: string | null;
  status: number;
}

/** Where request log lines go (local JSON lines under var/, or structured stdout lines on Lambda). */
export interface RequestLogSink {
  write(entry: RequestLogEntry): void;
}
