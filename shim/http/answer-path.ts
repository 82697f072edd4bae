/**
 * The answer cache's two places in the pipeline: a /v1/attorneys GET or HEAD whose finished answer is stored is
 * answered from it before routing or a search (`cachedAnswer`), and a search answer the pipeline has just finished is
 * stored in the identity form and the coding it was sent in (`storeAnswer`). A stored answer keeps every header but the
 * per-caller ones, so a hit carries the same headers (CORS, Vary, Directory-Version, Cache-Control, Content-Encoding,
 * Content-Length, nosniff) as the miss that stored it; the rate limit is counted and advertised per request.
 */
import type { ValidSearch } from '../answer/search-request.ts';
import type { Answer, PlainRequest } from '../edge/edge-types.ts';
import { headerOf } from './answer.ts';
import type { AnswerCache, AnswerCoding } from './answer-cache.ts';
import { compress, encodingFor, isCompressible } from './compress.ts';
import { MAX_TARGET_BYTES } from './query.ts';
import { searchOf } from './search-query.ts';
import type { LogFields } from './request-log.ts';
import { VERSION_HEADER } from './version.ts';

/** A request the cache may answer: its parsed search (key, log fields) and the coding it would be sent in. */
export interface Eligible {
  search: ValidSearch;
  coding: AnswerCoding;
}

// Characters the WHATWG URL parser leaves as they are in a query: the route reads exactly these bytes too.
const PLAIN_QUERY_RE = /^[A-Za-z0-9%&=+,.\-_~:;!$*()@/?]*$/;
// Headers under which the answer may differ from the stored one; such requests are answered by the route.
const CONDITIONAL = ['if-none-match', 'if-match', 'if-modified-since', 'if-unmodified-since', 'if-range'] as const;
/** Response headers that belong to one caller and are added per request, never stored. */
const PER_CALLER = new Set(['ratelimit', 'ratelimit-policy', 'retry-after', 'date']);
const VERSION = VERSION_HEADER.toLowerCase();

/** The cache lookup of a /v1/attorneys request, or null when only the route may answer it. */
export function eligible(request: PlainRequest): Eligible | null {
  const { method, query } = request;
  if (method !== 'GET' && method !== 'HEAD') return null;
  if (query === '' || request.path.length + query.length + 1 > MAX_TARGET_BYTES) return null;
  if (!PLAIN_QUERY_RE.test(query)) return null;
  for (const name of CONDITIONAL) if (request.headers[name] !== undefined) return null;
  let search;
  try {
    search = searchOf(query);
  } catch {
    return null;
  }
  if (!search.ok) return null;
  // A HEAD answer carries the headers of the GET answer in the same coding (RFC 9110 9.3.2), so it reads that entry.
  const coding = encodingFor(headerOf(request, 'accept-encoding')) ?? 'identity';
  return { search, coding };
}

/** The stored answer of `e` for `version` (the caller adds its per-request headers), and its log fields; undefined on a miss. */
export function cachedAnswer(
  cache: AnswerCache,
  e: Eligible,
  version: string,
  method: string,
): { answer: Answer; log: LogFields } | undefined {
  const stored = cache.get(version, e.coding, e.search.key);
  if (stored === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of stored.headers) headers[name] = value;
  const answer = { status: stored.status, headers, body: method === 'HEAD' ? null : stored.body };
  return { answer, log: stored.log };
}

function storable(answer: Answer, body: Buffer, log: LogFields): Parameters<AnswerCache['set']>[3] {
  const kept: [string, string][] = [];
  for (const [name, value] of Object.entries(answer.headers)) if (!PER_CALLER.has(name)) kept.push([name, value]);
  return { status: answer.status, headers: kept, body, log };
}

/**
 * Store a finished search answer (`finished`: every header added, not yet compressed) in its identity form and, when
 * the request asked for a coding, in `sent`, the answer as compressed for it, from the second time its query is
 * answered on (the first is only remembered). Only a 200 with a body that names its
 * version and came with its log fields is stored: a 400 costs no search, and a 503 must not outlive the fault.
 */
export async function storeAnswer(
  cache: AnswerCache,
  e: Eligible,
  finished: Answer,
  sent: Answer,
  log: LogFields | undefined,
): Promise<void> {
  const version = finished.headers[VERSION];
  const body = finished.body;
  if (finished.status !== 200 || body === null || version === undefined || log === undefined) return;
  if (!isCompressible(finished.headers['content-type'] ?? null)) return;
  // Stored when the query comes again: most misses are new points never asked twice.
  if (!cache.seenAgain(version, e.search.key)) return;
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // The identity representation is these bytes under the headers compression gives a body it leaves alone.
  const identity = e.coding === 'identity' ? sent : await compress(finished, null);
  cache.set(version, 'identity', e.search.key, storable(identity, bytes, log));
  if (e.coding === 'identity' || sent.body === null) return;
  if ((sent.headers['content-encoding'] ?? 'identity') === e.coding)
    cache.set(
      version,
      e.coding,
      e.search.key,
      storable(sent, Buffer.isBuffer(sent.body) ? sent.body : Buffer.from(sent.body), log),
    );
}
