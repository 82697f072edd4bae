/**
 * The Node server's fast path: a /v1/attorneys GET or HEAD whose finished answer is in the answer cache is written
 * straight to node:http, without web Request/Response objects, the router or a search. It keeps what the app does for
 * every request: the rate limit is counted and advertised, the request log gets its line, and the answer's headers
 * (CORS, Vary, Directory-Version, Cache-Control, Content-Encoding, Content-Length, nosniff) are those the app and
 * compression produced for the same query, version and coding, because the cache stores exactly those.
 * Anything else (a miss, a refused caller, a conditional request, an unusual target) goes down the ordinary path,
 * which fills the cache through `remember`.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parseSearch, type ValidSearch } from './core/search-request.ts';
import type { AnswerCache, AnswerCoding } from './http/answer-cache.ts';
import { rateLimitKey } from './http/client-address.ts';
import { chooseEncoding, compressBytes, isCompressible } from './http/compress.ts';
import { plainParts } from './http/plain-response.ts';
import { MAX_TARGET_BYTES, parseQuery } from './http/query.ts';
import { admissionHeaders, admit, wouldAdmit, type RequestLimits } from './http/limits.ts';
import type { LogFields, RequestLogger } from './http/request-log.ts';
import { VERSION_HEADER } from './http/version.ts';
import { MAX_REMEMBERED_CODINGS, MAX_REMEMBERED_SEARCHES } from './limits.ts';

/** What the fast path shares with the app: the same cache, version source, limits and logger. */
export interface FastPathDeps {
  cache: AnswerCache;
  currentVersion(): Promise<string>;
  limits: RequestLimits;
  logger: RequestLogger;
}

/** A request the cache may answer: its parsed search (key, log fields) and the coding it would be sent in. */
export interface Eligible {
  search: ValidSearch;
  coding: AnswerCoding;
}

const PREFIX = '/v1/attorneys?';
// Characters the WHATWG URL parser leaves as they are in a query: the ordinary path reads exactly these bytes too.
const PLAIN_QUERY_RE = /^[A-Za-z0-9%&=+,.\-_~:;!$*()@/?]*$/;
// Headers under which the answer may differ from the stored one; such requests take the ordinary path.
const CONDITIONAL = ['if-none-match', 'if-match', 'if-modified-since', 'if-unmodified-since', 'if-range'] as const;
/** Response headers that belong to one caller and are added per request, never stored. */
const PER_CALLER = new Set(['ratelimit', 'ratelimit-policy', 'retry-after', 'date']);

const codings = new Map<string, AnswerCoding>();

/** The coding chooseEncoding picks for an Accept-Encoding value, memoised (negotiation parses q-values each time). */
function codingFor(acceptEncoding: string | undefined): AnswerCoding {
  if (acceptEncoding === undefined) return 'identity';
  let coding = codings.get(acceptEncoding);
  if (coding === undefined) {
    coding = chooseEncoding(acceptEncoding) ?? 'identity';
    if (codings.size >= MAX_REMEMBERED_CODINGS) codings.clear();
    codings.set(acceptEncoding, coding);
  }
  return coding;
}

/** The cache lookup of a request, or null when only the ordinary path may answer it. */
export function eligible(method: string | undefined, target: string, headers: IncomingHttpHeaders): Eligible | null {
  if (method !== 'GET' && method !== 'HEAD') return null;
  if (!target.startsWith(PREFIX) || target.length > MAX_TARGET_BYTES) return null;
  const search = target.slice(PREFIX.length);
  if (!PLAIN_QUERY_RE.test(search)) return null;
  for (const name of CONDITIONAL) if (headers[name] !== undefined) return null;
  const parsed = parsedSearch(search);
  if (parsed === null) return null;
  // A HEAD answer carries the identity representation's headers (the ordinary path compresses no empty body).
  const coding = method === 'HEAD' ? 'identity' : codingFor(headers['accept-encoding']);
  return { search: parsed, coding };
}

const searches = new Map<string, ValidSearch>();

/**
 * The parsed search of a query string, memoised; null when it is not a valid search (the ordinary path answers it).
 * On a miss the app gets this same value (RequestInfo.search), so the query is parsed once per request.
 */
function parsedSearch(search: string): ValidSearch | null {
  const known = searches.get(search);
  if (known !== undefined) return known;
  let parsed;
  try {
    parsed = parseSearch(parseQuery(search));
  } catch {
    return null;
  }
  if (!parsed.ok) return null;
  if (searches.size >= MAX_REMEMBERED_SEARCHES) searches.clear();
  searches.set(search, parsed);
  return parsed;
}

/** Answer `req` from the cache; false (having written nothing) when the ordinary path must answer it. */
export async function serveFromCache(
  deps: FastPathDeps,
  e: Eligible,
  req: IncomingMessage,
  res: ServerResponse,
  address: string,
): Promise<boolean> {
  let version: string;
  try {
    version = await deps.currentVersion();
  } catch {
    return false;
  }
  const answer = deps.cache.get(version, e.coding, e.search.key);
  if (answer === undefined) return false;
  const limitKey = rateLimitKey(address);
  // A caller over the limit gets the ordinary 429; peeking first means the count is taken once, below or there.
  if (!wouldAdmit(deps.limits, limitKey, 1)) return false;
  const admission = admit(deps.limits, limitKey, 1);
  const out: Record<string, string> = {};
  for (const [name, value] of answer.headers) out[name] = value;
  Object.assign(out, admissionHeaders(deps.limits, admission));
  req.resume();
  res.writeHead(answer.status, out);
  res.end(req.method === 'HEAD' ? undefined : answer.body);
  const ua = req.headers['user-agent'];
  await deps.logger.writeLines(ua === undefined ? null : ua, address, {
    ...answer.log,
    location: e.search.sent.location,
    src: e.search.sent.src,
    endpoint: '/v1/attorneys',
    status: answer.status,
  });
  return true;
}

function storable(
  headers: Headers,
  status: number,
  body: Buffer,
  log: LogFields,
): { status: number; headers: [string, string][]; body: Buffer; log: LogFields } {
  const kept: [string, string][] = [];
  headers.forEach((value, name) => {
    if (!PER_CALLER.has(name)) kept.push([name, value]);
  });
  return { status, headers: kept, body, log };
}

/** A finished answer as bytes, for the adapter to write as is. */
export interface PlainAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/**
 * The encoded answer for an eligible request the app has just answered (`answer`, not yet compressed), storing its
 * identity form and the requested coding in the cache when it is a search answer (the app gave its log fields through
 * RequestInfo.onSearchAnswer) that names its version; null (nothing read, nothing stored) for any other answer, which
 * the adapter compresses and writes itself. The body is read once; errors are never stored: a 400 costs no search,
 * and a 503 must not outlive the fault.
 */
export async function remember(
  cache: AnswerCache,
  e: Eligible,
  answer: Response,
  log: LogFields | undefined,
  acceptEncoding: string | null,
): Promise<PlainAnswer | null> {
  // A plain answer (bytes and a header record) is read from its parts: no full Response is built to read it back.
  const parts = plainParts(answer);
  const headers = parts === undefined ? answer.headers : new Headers(parts.headers);
  const version = headers.get(VERSION_HEADER);
  if (
    answer.status !== 200 ||
    (parts === undefined ? answer.body === null : parts.body === null) ||
    version === null ||
    log === undefined ||
    !isCompressible(headers.get('content-type'))
  )
    return null;
  const bytes =
    parts?.body != null
      ? Buffer.from(parts.body.buffer, parts.body.byteOffset, parts.body.byteLength)
      : Buffer.from(await answer.arrayBuffer());
  // The identity representation is these bytes under the headers compression gives a body it leaves alone.
  const identity = await compressBytes(headers, bytes, null);
  cache.set(version, 'identity', e.search.key, storable(identity.headers, answer.status, bytes, log));
  if (e.coding === 'identity') return { status: answer.status, headers: identity.headers, body: bytes };
  const encoded = await compressBytes(headers, bytes, acceptEncoding);
  if ((encoded.headers.get('content-encoding') ?? 'identity') === e.coding)
    cache.set(version, e.coding, e.search.key, storable(encoded.headers, answer.status, encoded.body, log));
  return { status: answer.status, headers: encoded.headers, body: encoded.body };
}
