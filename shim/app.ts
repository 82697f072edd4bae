/**
 * The HTTP face of the service as one function of a web-standard Request, built on Hono: its router matches the
 * routes (app-routes.ts), one middleware gives every request what it always gets (admission and RateLimit headers,
 * CORS, nosniff, the cache-control default, Directory-Version, the browser error page, the log line), one `onError`
 * and one `notFound` turn every failure into a problem through the one renderer (http/problem.ts).
 */
import { Hono, type Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { ApiError } from './core/errors.ts';
import type { CallContext, Service } from './core/service.ts';
import type { App, RequestInfo, RequestLogSink, SaltProvider } from './edge-types.ts';
import { DOCUMENT_CACHE_CONTROL, NO_STORE } from './http/caching.ts';
import { rateLimitKey } from './http/client-address.ts';
import { mcpCorsHeaders, preflightHeaders, publicCorsHeaders } from './http/cors.ts';
import { errorPageFor } from './http/error-page-response.ts';
import { errorResponse } from './http/problem.ts';
import { humanWait } from './core/human-wait.ts';
import { checkTargetSize } from './http/query.ts';
import {
  admissionHeaders,
  admit,
  pathCharge,
  peekHeaders,
  settle,
  type Admission,
  type RequestLimits,
} from './http/limits.ts';
import { plainParts, plainResponse } from './http/plain-response.ts';
import { RequestLogger, type LogFields } from './http/request-log.ts';
import { answerVersion, VERSION_HEADER } from './http/version.ts';
import { createRoutes, type Outcome, type Route } from './app-routes.ts';

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
  mcp?: App;
}

/** What one request carries through the pipeline, set by the first middleware and read by the handlers. */
interface RequestState {
  /** The method as sent (TRACE and CONNECT travel in RequestInfo.method). */
  method: string;
  pathname: string;
  /** The matched route and its parameter; null when nothing is at this path. */
  route: Route | null;
  /** The route's path template (the log line's `endpoint`); "unknown" when nothing is at this path. */
  endpoint: string;
  param: string;
  info: RequestInfo;
  ctx: CallContext;
  /** Where an error arose, for the stderr line of an unexpected one. */
  context: string;
  log?: LogFields;
}

/** The one Env of the Hono app: the platform's facts as its binding, the request's state as its variable. */
type Env = { Bindings: { info: RequestInfo }; Variables: { state: RequestState } };

/** The raw pathname of a request (not percent-decoded, unlike Hono's default): routes see the path as sent. */
function rawPath(request: Request): string {
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  let end = url.length;
  const query = url.indexOf('?', start);
  if (query >= 0) end = query;
  const hash = url.indexOf('#', start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}

/** The search part of a request URL as URL.search gives it ("" for none or a lone "?"), without parsing the URL. */
function searchOf(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return '';
  const hash = url.indexOf('#', query);
  const search = hash < 0 ? url.slice(query) : url.slice(query, hash);
  // URL.search percent-encodes an apostrophe in a query; a lightweight Request's URL keeps it as sent.
  if (search.includes("'")) return new URL(url).search;
  return search === '?' ? '' : search;
}

/** Build the app. */
export function createApp(deps: AppDeps): App {
  const { service, config, limits } = deps;
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

  const hono = new Hono<Env>({ getPath: rawPath });
  const routes = createRoutes({ service, correctionsEmail: config.correctionsEmail ?? null, mcp: deps.mcp });
  /** Each route's Hono handler, to find the route Hono matched from the first middleware. */
  const routeOf = new Map<unknown, Route>();

  /** Replace the response outright (assigning c.res merges the old response's headers into the new one). */
  const answer = (c: Context<Env>, response: Response): void => {
    c.res = undefined;
    c.res = response;
  };

  // Every request: admission, the route's own answer, then the headers every answer carries and the log line.
  // One middleware of our own rather than hono/cors, hono/etag, hono/secure-headers and hono/body-limit: CORS differs
  // per route (the MCP origin rule against the request's own base) and must reach 429s and preflights together with
  // RateLimit headers and Allow, which hono/cors answers itself without; ETags are strong SHA-256 tags made once per
  // document version (DocumentCache), where hono/etag hashes every body again; the security headers are per page
  // (page-response.ts), and the body limit is the adapter's (413 before the body is read, even before 100 Continue).
  hono.use('*', async (c, next) => {
    const request = c.req.raw;
    const info = c.env.info;
    // The platform passes methods a web Request cannot carry (TRACE, CONNECT) in info.method.
    const method = (info.method ?? request.method).toUpperCase();
    const pathname = c.req.path;
    let route: Route | null = null;
    for (const matched of matchedRoutes(c)) route ??= routeOf.get(matched.handler) ?? null;
    const param = route === null ? null : route.param === undefined ? '' : route.param(pathname);
    if (param === null) route = null;
    const key = rateLimitKey(info.clientAddress);
    const base = info.publicBaseUrl ?? config.publicBaseUrl;
    const cors =
      route?.cors === 'mcp' ? mcpCorsHeaders(request.headers.get('origin'), mcpOriginsFor(base)) : publicCorsHeaders();

    // Preflights are sent by browsers on their own; they spend no answer (the ceiling on every request counts them).
    if (method === 'OPTIONS' && route !== null) {
      const admission = admit(limits, key, 0);
      if (!admission.allowed) {
        const refused = errorResponse(
          new ApiError('rate_limited', ceilingDetail(admission.all.resetSeconds)),
          'rate limit',
          {},
          base,
        );
        answer(c, await finish(refused, method, false, { ...cors, ...admissionHeaders(limits, admission) }));
        return;
      }
      const allowed = [...route.methods, 'OPTIONS'];
      const headers = {
        ...preflightHeaders(allowed, cors, request.headers.get('access-control-request-headers')),
        ...peekHeaders(limits, key),
        allow: allowed.join(', '),
      };
      answer(c, await finish(new Response(null, { status: 204, headers }), method, false));
      return;
    }

    const charge =
      route?.charge !== undefined && route.methods.includes(method)
        ? await route.charge(request)
        : pathCharge(pathname);
    let admission = admit(limits, key, charge.units);
    let read: string | null = null;
    const calls: LogFields[] = [];
    const state: RequestState = {
      method,
      pathname,
      route,
      endpoint:
        route === null ? 'unknown' : typeof route.endpoint === 'string' ? route.endpoint : route.endpoint(pathname),
      param: param ?? '',
      // Calls made within the request (MCP tool calls) are gathered here, each to get its own log line.
      info:
        route?.cors === 'mcp'
          ? {
              ...info,
              recordCall: (fields) => void calls.push(fields),
              ...(charge.body !== undefined ? { body: charge.body } : {}),
            }
          : info,
      ctx: { publicBaseUrl: base, onVersion: (version) => (read = version) },
      context: 'routing',
    };
    c.set('state', state);
    let outcome: Outcome;
    if (!admission.allowed) {
      outcome = {
        response: errorResponse(
          new ApiError('rate_limited', refusalDetail(admission, charge.units)),
          'rate limit',
          {},
          base,
        ),
      };
    } else {
      let tooLong: unknown = null;
      try {
        checkTargetSize(pathname + searchOf(request.url));
      } catch (err) {
        tooLong = err;
      }
      if (tooLong !== null) outcome = { response: errorResponse(tooLong, 'request target', {}, base) };
      else {
        await next();
        outcome = { response: c.res, ...(state.log !== undefined ? { log: state.log } : {}) };
      }
      // An MCP POST spends only the tool calls that ran (each recorded its log fields): a refused batch, a JSON-RPC
      // error or arguments refused before the tool ran spend nothing.
      if (charge.perCall === true) admission = settle(limits, key, admission, charge.units, calls.length);
    }

    const version = await answerVersion(read, service);
    // Every problem was rendered with its absolute `type` where it arose (errorResponse with the request's base).
    const answered = await errorPageFor(request, method, outcome.response);
    const response = await finish(answered, method, route?.streams ?? false, {
      ...cors,
      ...admissionHeaders(limits, admission),
      ...(version !== null ? { [VERSION_HEADER]: version } : {}),
    });
    await logger.write(
      request,
      info,
      {
        ...outcome.log,
        endpoint: state.endpoint,
        status: response.status,
      },
      calls,
    );
    answer(c, response);
  });

  for (const route of routes) {
    const handler = async (c: Context<Env>): Promise<Response> => {
      const state = c.get('state');
      // A path of this shape that the route's stricter rule refuses (a page name) is not found, like any other.
      if (state.route !== route) return c.notFound();
      if (!route.methods.includes(state.method)) {
        const problem = new ApiError(
          'method_not_allowed',
          `${state.endpoint} accepts ${route.methods.join(', ')} only; got ${state.method}.`,
        );
        return errorResponse(
          problem,
          'routing',
          { allow: [...route.methods, 'OPTIONS'].join(', ') },
          state.ctx.publicBaseUrl,
        );
      }
      state.context = `${state.method} ${state.endpoint}`;
      const outcome = await route.handler(c.req.raw, state.info, state.param, state.ctx);
      if (outcome.log !== undefined) state.log = outcome.log;
      return outcome.response;
    };
    routeOf.set(handler, route);
    hono.all(route.path, handler);
  }

  hono.notFound((c) =>
    errorResponse(
      new ApiError('not_found', 'There is nothing at this path. See /openapi.json for the endpoints.'),
      'routing',
      {},
      c.get('state').ctx.publicBaseUrl,
    ),
  );

  // The one mapping of a thrown error to its answer: a problem with the absolute `type` of the request's base.
  hono.onError((err, c) => {
    // Before the first middleware has set the state (a failure reading an MCP batch's cost), the base is the info's.
    const state = c.get('state') as RequestState | undefined;
    const base = state?.ctx.publicBaseUrl ?? c.env.info.publicBaseUrl ?? config.publicBaseUrl;
    return errorResponse(err, state?.context ?? 'request', {}, base);
  });

  return async (request, info) => hono.fetch(request, { info });
}

/**
 * Add the headers every response carries; set Content-Length (reading the body only when the handler did not give
 * it); drop the body of HEAD. The response is changed in place when its headers may be, else copied once.
 */
async function finish(
  response: Response,
  method: string,
  streams: boolean,
  extra: Record<string, string> = {},
): Promise<Response> {
  const plain = streams ? undefined : plainParts(response);
  if (plain !== undefined) {
    // Bytes and a header record (a document): the same steps on the record, without reading the Response.
    const headers: Record<string, string> = { ...plain.headers };
    for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] ??= value;
    headers['x-content-type-options'] = 'nosniff';
    headers['cache-control'] ??= plain.status === 304 ? DOCUMENT_CACHE_CONTROL : NO_STORE;
    const bodiless = method === 'HEAD' || plain.status === 204 || plain.status === 304;
    if (plain.body !== null && headers['content-length'] === undefined)
      headers['content-length'] = String(plain.body.byteLength);
    return plainResponse({ status: plain.status, headers, body: bodiless ? null : plain.body });
  }
  const apply = (headers: Headers): void => {
    for (const [name, value] of Object.entries(extra)) {
      if (!headers.has(name)) headers.set(name, value);
    }
    headers.set('x-content-type-options', 'nosniff');
    if (!headers.has('cache-control'))
      headers.set('cache-control', response.status === 304 ? DOCUMENT_CACHE_CONTROL : NO_STORE);
  };
  let headers = response.headers;
  let copied = false;
  try {
    apply(headers);
  } catch {
    // Immutable headers (a fetched or Response.error() answer): one copy.
    headers = new Headers(response.headers);
    apply(headers);
    copied = true;
  }
  const bodiless = method === 'HEAD' || response.status === 204 || response.status === 304;
  const same = (): Response => (copied ? new Response(response.body, { status: response.status, headers }) : response);
  if (streams && method !== 'HEAD') return same();
  // The body is looked at only when the length does not settle it: a lightweight Response (the Node adapter's) builds
  // a full one to tell it.
  if (headers.has('content-length') && !bodiless) return same();
  if (response.body === null) return same();
  if (headers.has('content-length')) {
    await response.body.cancel();
    return new Response(null, { status: response.status, headers });
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  headers.set('content-length', String(bytes.byteLength));
  return new Response(bodiless ? null : bytes, { status: response.status, headers });
}
