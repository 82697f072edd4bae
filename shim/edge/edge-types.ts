/** Types shared by the platform adapters (local HTTP server, AWS Lambda) and the request pipeline. */

/** One HTTP request as its adapter read it, once: every step of the pipeline and every route reads this value. */
export interface PlainRequest {
  /** The method as sent, upper case (TRACE and CONNECT included). */
  method: string;
  /** The path as sent (dot segments resolved), not percent-decoded. */
  path: string;
  /** The query as sent, without the "?" ("" for none). */
  query: string;
  /** Header values by lower-case name (node's IncomingHttpHeaders fits as it is). */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The body read up to the adapter's limit; null for GET and HEAD. */
  body: Uint8Array | null;
  /** The caller's network address (never stored raw). */
  clientAddress: string;
  /**
   * Absolute base URL of this request's links and problem types (the public host the caller used), without trailing
   * slash; absent: the app's configured one. One app thus serves every host (the Lambda behind several names).
   */
  publicBaseUrl?: string;
}

/** What the app answers: status, a lower-case header record and the body bytes; only adapters turn it into platform objects. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

/** The whole service as one function of a request value: what both adapters and the in-process harness call. */
export type App = (request: PlainRequest) => Promise<Answer>;

/** What a mounted web-standard library (the MCP route) gets beside its Request. */
export interface RequestInfo {
  /** The caller's network address (never stored raw). */
  clientAddress: string;
  /** As PlainRequest.publicBaseUrl. */
  publicBaseUrl?: string;
  /** Set by the app: each call made within the request (a tool call) gets its own log line. */
  recordCall?: (fields: Partial<RequestLogEntry>) => void;
  /** The request's JSON body as the route's charge read it (MCP), so it is read and parsed once; absent: unread. */
  body?: JsonBody;
}

/** A route served by a library that speaks web Request and Response (the MCP SDK). */
export type WebApp = (request: Request, info: RequestInfo) => Promise<Response>;

/** A JSON request body read once: its value, or why there is none (over the size limit, not JSON). */
export type JsonBody = { kind: 'json'; value: unknown } | { kind: 'too_large' } | { kind: 'not_json' };

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
