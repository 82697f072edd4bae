/**
 * The limits and cache budgets of the Node server and the Lambda: what a request may be (target, body) and how much
 * memory the caches may hold. The store deadlines live in store/deadline.ts and the request rates in
 * contract/constants.ts, beside what uses them.
 */

/** Longest request target (path and query) accepted, in bytes. */
export const MAX_TARGET_BYTES = 2048;
/** Largest request body read (a POST to /mcp; MCP messages are small), in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Time allowed to receive the request headers, and the whole request, in milliseconds. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How often node checks the two timeouts above (its default is 30 s, so a slow socket lived up to 60 s); with 1 s a
 * request that stalls is refused within a second of its limit.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** Idle keep-alive connections are closed after this many milliseconds. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/**
 * How much longer than advertised the server actually keeps an idle keep-alive socket (node's keepAliveTimeoutBuffer,
 * default 1 s), so idle sockets close 8 s after their last answer. Clients that read the hint (fetch/undici, node's
 * http.Agent) close the socket themselves before the advertised 5 s, so this costs nothing for them; it only decides
 * who closes first when a client's own idle timer runs late. A client process starved of CPU for more than 6 s between
 * two requests otherwise sends its next request on a socket the server destroys in that same instant, and gets
 * ECONNRESET; with 3 s of grace the server reads that request instead, and an idle socket costs at most 8 s (it was a
 * minute, which let one address hold a hundred sockets for free). (Ignored by node versions without the option.)
 */
export const KEEP_ALIVE_GRACE_MS = 3_000;

/**
 * Default budget of the parsed site-object cache (CACHE_MIB), in MiB of memory held (parsed objects and their search
 * columns, about 3 bytes per stored byte): the heap the former default of 64 MiB of stored JSON took, so a site of a
 * million offices is served warm without re-reading objects (BENCHMARKS.md section 14).
 */
export const DEFAULT_CACHE_MIB = 192;
/** Default budget of the answer cache in MiB (about 1,900 answers of 16 KB identity plus their brotli and gzip forms). */
export const DEFAULT_ANSWER_CACHE_MIB = 32;
/** Budget of the shown offices' JSON texts that search answers are written from (core/answer-json.ts), in bytes. */
export const RESULT_TEXT_CACHE_BYTES = 4 * 2 ** 20;
/** Distinct query strings whose parsed search is remembered (shim/http/search-query.ts: repeated searches skip parsing). */
export const MAX_REMEMBERED_SEARCHES = 10_000;
/** Distinct Accept-Encoding values whose negotiation compress.ts remembers (browsers and clients send a handful). */
export const MAX_REMEMBERED_CODINGS = 256;
