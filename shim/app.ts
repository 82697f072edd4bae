/**
 * The HTTP face of the service as one function of a plain request value (edge-types.ts): Hono's router picks the route
 * (app-routes.ts), then one straight pipeline gives every request what it always gets (admission and RateLimit
 * headers, CORS, nosniff, the cache-control default, Directory-Version, the browser error page, compression, the log
 * line) and maps every failure to a problem through the one renderer (http/problem.ts). Routes return plain answers;
 * only the adapters (server.ts, aws/handler.ts) turn one into platform objects.
 */
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { ApiError } from './contract/errors.ts';
import { humanWait } from './lib/human-wait.ts';
import type { CallContext, Service } from './answer/service.ts';
import type { Answer, App, PlainRequest, RequestLogSink, SaltProvider, WebApp } from './edge/edge-types.ts';
import { headerOf } from './http/answer.ts';
import type { AnswerCache } from './http/answer-cache.ts';
import { cachedAnswer, eligible, storeAnswer, type Eligible } from './http/answer-path.ts';
import { DOCUMENT_CACHE_CONTROL, NO_STORE } from './http/caching.ts';
import { rateLimitKey } from './http/client-address.ts';
import { compress } from './http/compress.ts';
import { mcpCorsHeaders, preflightHeaders, publicCorsHeaders } from './http/cors.ts';
import { errorPageFor } from './http/error-page-response.ts';
import { problemAnswer } from './http/problem.ts';
import { checkTargetSize } from './http/query.ts';
import {
  admissionHeaders,
  admit,
  pathCharge,
  peekHeaders,
  settle,
  wouldAdmit,
  type Admission,
  type RequestLimits,
} from './http/admission.ts';
import { RequestLogger } from './http/request-log.ts';
import { VERSION_HEADER } from './http/version.ts';
import { createRoutes, type Outcome, type Route, type RouteCharge } from './app-routes.ts';

/** Settings the app needs from the platform. */
export interface AppConfig {
  /** Absolute base URL for `website` links and the index, without trailing slash. */
  publicBaseUrl: string;
  /** Browser origins allowed to call /mcp. */
  allowedOrigins: readonly string[];
  /** The corrections address in the OpenAPI contact (null: the default). */
  correctionsEmail?: string | null;
}

/** Everything createApp is built from; the local server and the Lambda handler each supply their own. */
export interface AppDeps {
  service: Service;
  config: AppConfig;
  /** The answer quota and the ceiling on every request. */
  limits: RequestLimits;
  log: RequestLogSink;
  salt: SaltProvider;
  /** The MCP route mounted at /mcp; absent means 501. */
  mcp?: WebApp;
  /** Finished search answers by version, coding and query; absent: every search is computed. */
  answers?: AnswerCache | null;
}

const VERSION = VERSION_HEADER.toLowerCase();
const SEARCH_PATH = '/v1/attorneys';
/** The CORS headers of every public route's answer (the same record every time; never changed in place). */
const PUBLIC_CORS: Readonly<Record<string, string>> = publicCorsHeaders();

/** Build the app. */
export function createApp(deps: AppDeps): App {
  const { service, config, limits } = deps;
  const answers = deps.answers ?? null;
  const logger = new RequestLogger(deps.log, deps.salt);
  // The service's own origin (the host of the request) may always call /mcp from a browser, like the MCP route allows.
  const originsByBase = new Map<string, readonly string[]>();
  const mcpOriginsFor = (base: string): readonly string[] => {
    let origins = originsByBase.get(base);
    if (origins === undefined) {
      origins = [new URL(base).origin, ...config.allowedOrigins];
      if (originsByBase.size >= 64) originsByBase.clear();
      originsByBase.set(base, origins);
    }
    return origins;
  };
  const windowText = limits.answers.windowSeconds === 3600 ? 'an hour' : `${limits.answers.windowSeconds} seconds`;
  const ceilingDetail = (resetSeconds: number): string =>
    `More than ${limits.all.limit} requests of any kind (pages, documents and MCP protocol messages included) in ${windowText} came from your network address. Retry in ${humanWait(resetSeconds)} (Retry-After gives the seconds).`;
  const refusalDetail = (admission: Admission, units: number): string => {
    const left = admission.answers.remaining;
    return admission.refusedBy === 'all'
      ? ceilingDetail(admission.all.resetSeconds)
      : units > 1 && left > 0
        ? `This batch holds ${units} tool calls but only ${left} answers are left in the current window for your network address; each call counts. Send fewer, or retry in ${humanWait(admission.answers.resetSeconds)} (Retry-After gives the seconds).`
        : `More than ${limits.answers.limit} API and tool calls in ${windowText} came from your network address. Retry in ${humanWait(admission.answers.resetSeconds)} (Retry-After gives the seconds).`;
  };

  // One middleware-free pipeline of our own rather than hono/cors, hono/etag, hono/secure-headers and hono/body-limit:
  // CORS differs per route (the MCP origin rule against the request's own base) and must reach 429s and preflights
  // together with RateLimit headers and Allow; ETags are strong SHA-256 tags made once per document version
  // (DocumentCache); the security headers are per page (page-response.ts), and the body limit is the adapter's.
  const router = new RegExpRouter<Route>();
  const routes = createRoutes({ service, correctionsEmail: config.correctionsEmail ?? null, mcp: deps.mcp });
  for (const route of routes) router.add('ALL', route.path, route);

  /** The route at `path` and its parameter; null when nothing is there (or the route's stricter rule refuses it). */
  const match = (path: string): { route: Route; param: string } | null => {
    const route = router.match('ALL', path)[0][0]?.[0];
    if (route === undefined) return null;
    const param = route.param === undefined ? '' : route.param(path);
    return param === null ? null : { route, param };
  };

  /** The stored answer of a repeated search, with this caller's rate-limit headers; null when the route must answer. */
  const fromCache = async (
    cache: AnswerCache,
    e: Eligible,
    request: PlainRequest,
    key: string,
  ): Promise<Answer | null> => {
    let version: string;
    try {
      version = await service.currentVersion();
    } catch {
      return null;
    }
    // A caller over the limit gets the ordinary 429; peeking first means the count is taken once, here or below.
    if (!wouldAdmit(limits, key, 1)) return null;
    const hit = cachedAnswer(cache, e, version, request.method);
    if (hit === undefined) return null;
    Object.assign(hit.answer.headers, admissionHeaders(limits, admit(limits, key, 1)));
    await logger.writeLines(headerOf(request, 'user-agent'), request.clientAddress, {
      ...hit.log,
      location: e.search.sent.location,
      src: e.search.sent.src,
      endpoint: SEARCH_PATH,
      status: hit.answer.status,
    });
    return hit.answer;
  };

  /** The route's own outcome for an admitted request: 404 and 405 here, a thrown error as its problem. */
  const dispatch = async (
    request: PlainRequest,
    matched: { route: Route; param: string } | null,
    endpoint: string,
    ctx: CallContext,
    charge: RouteCharge,
  ): Promise<Outcome> => {
    const base = ctx.publicBaseUrl;
    if (matched === null) {
      const error = new ApiError('not_found', 'There is nothing at this path. See /openapi.json for the endpoints.');
      return { answer: problemAnswer(error, 'routing', {}, base) };
    }
    const { route, param } = matched;
    if (!route.methods.includes(request.method)) {
      const problem = new ApiError(
        'method_not_allowed',
        `${endpoint} accepts ${route.methods.join(', ')} only; got ${request.method}.`,
      );
      return { answer: problemAnswer(problem, 'routing', { allow: [...route.methods, 'OPTIONS'].join(', ') }, base) };
    }
    try {
      return await route.handler(request, param, ctx, charge);
    } catch (err) {
      return { answer: problemAnswer(err, `${request.method} ${endpoint}`, {}, base) };
    }
  };

  return async (request) => {
    const { method, path } = request;
    const key = rateLimitKey(request.clientAddress);
    // A repeated search: its stored answer, before anything else is worked out (not even the route).
    const lookup = answers !== null && path === SEARCH_PATH ? eligible(request) : null;
    if (lookup !== null && answers !== null) {
      const hit = await fromCache(answers, lookup, request, key);
      if (hit !== null) return hit;
    }

    const matched = match(path);
    const route = matched?.route ?? null;
    const base = request.publicBaseUrl ?? config.publicBaseUrl;
    const acceptEncoding = headerOf(request, 'accept-encoding');

    const cors = route?.cors === 'mcp' ? mcpCorsHeaders(headerOf(request, 'origin'), mcpOriginsFor(base)) : PUBLIC_CORS;
    // Preflights are sent by browsers on their own; they spend no answer (the ceiling on every request counts them).
    if (method === 'OPTIONS' && route !== null) {
      const admission = admit(limits, key, 0);
      if (!admission.allowed) {
        const refused = problemAnswer(
          new ApiError('rate_limited', ceilingDetail(admission.all.resetSeconds)),
          'rate limit',
          {},
          base,
        );
        return compress(finish(refused, { ...cors, ...admissionHeaders(limits, admission) }), acceptEncoding);
      }
      const allowed = [...route.methods, 'OPTIONS'];
      const headers = {
        ...preflightHeaders(allowed, cors, headerOf(request, 'access-control-request-headers')),
        ...peekHeaders(limits, key),
        allow: allowed.join(', '),
      };
      return finish({ status: 204, headers, body: null }, {});
    }

    const endpoint =
      route === null ? 'unknown' : typeof route.endpoint === 'string' ? route.endpoint : route.endpoint(path);
    const charge: RouteCharge =
      route?.charge !== undefined && route.methods.includes(method)
        ? route.charge(request)
        : { units: pathCharge(path).units };
    let admission = admit(limits, key, charge.units);
    const ctx: CallContext = { publicBaseUrl: base, read: { version: null } };
    let outcome: Outcome;
    if (!admission.allowed) {
      const refused = new ApiError('rate_limited', refusalDetail(admission, charge.units));
      outcome = { answer: problemAnswer(refused, 'rate limit', {}, base) };
    } else {
      const tooLong = targetTooLong(request);
      outcome =
        tooLong !== null
          ? { answer: problemAnswer(tooLong, 'request target', {}, base) }
          : await dispatch(request, matched, endpoint, ctx, charge);
      // An MCP POST spends only the tool calls that ran (each recorded its log fields): a refused batch, a JSON-RPC
      // error or arguments refused before the tool ran spend nothing.
      if (charge.perCall === true) admission = settle(limits, key, admission, charge.units, outcome.calls?.length ?? 0);
    }

    // The version the operation read, else the one served now (a 400 or the index read none); null when the store
    // cannot say (the answer is then a 503).
    const version = ctx.read?.version ?? (await service.currentVersion().catch(() => null));
    // Every problem was rendered with its absolute `type` where it arose (problemAnswer with the request's base).
    const answer = outcome.answer.status >= 400 ? errorPageFor(request, outcome.answer) : outcome.answer;
    const finished = finish(answer, {
      ...cors,
      ...admissionHeaders(limits, admission),
      ...(version !== null ? { [VERSION]: version } : {}),
    });
    const encoded = await compress(finished, acceptEncoding);
    if (lookup !== null && answers !== null) await storeAnswer(answers, lookup, finished, encoded, outcome.log);
    // HEAD sends the header fields GET would (RFC 9110 9.3.2), Content-Encoding and its Content-Length included.
    const sent = method === 'HEAD' ? { ...encoded, body: null } : encoded;
    // The log line from the parsed request and the route's fields: one line, or one per MCP tool call.
    const line = { ...outcome.log, endpoint, status: sent.status };
    await logger.writeLines(headerOf(request, 'user-agent'), request.clientAddress, line, outcome.calls);
    return sent;
  };
}

/** The ApiError of a request target longer than the limit, else null. */
function targetTooLong(request: PlainRequest): unknown {
  try {
    checkTargetSize(request.path, request.query);
    return null;
  } catch (err) {
    return err;
  }
}

/**
 * Add the headers every answer carries (`extra` where the answer has none of its own, nosniff, the cache-control
 * default), set Content-Length, and drop the body of 204 and 304. A HEAD keeps its body until it is compressed, so its
 * headers are GET's; the pipeline drops it after.
 */
function finish(answer: Answer, extra: Record<string, string>): Answer {
  const headers: Record<string, string> = { ...answer.headers };
  for (const [name, value] of Object.entries(extra)) headers[name] ??= value;
  headers['x-content-type-options'] = 'nosniff';
  headers['cache-control'] ??= answer.status === 304 ? DOCUMENT_CACHE_CONTROL : NO_STORE;
  if (answer.body !== null) headers['content-length'] ??= String(answer.body.byteLength);
  const bodiless = answer.status === 204 || answer.status === 304;
  return { status: answer.status, headers, body: bodiless ? null : answer.body };
}
