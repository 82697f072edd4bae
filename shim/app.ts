/** The HTTP face of the service as one function of a web-standard Request: routing, errors, headers, limits, logging. */
import { API_VERSION, SERVICE_NAME } from './core/constants.ts';
import { pageNameOf } from './core/page-format.ts';
import { ApiError } from './core/errors.ts';
import { parseSearch } from './core/search-request.ts';
import type { CallContext, Service } from './core/service.ts';
import type { App, RequestInfo, RequestLogSink, SaltProvider } from './edge-types.ts';
import { ANSWER_CACHE_CONTROL, DOCUMENT_CACHE_CONTROL, documentResponse, NO_STORE } from './http/caching.ts';
import { rateLimitKey } from './http/client-address.ts';
import { mcpCorsHeaders, preflightHeaders, publicCorsHeaders } from './http/cors.ts';
import { errorPageFor } from './http/error-page-response.ts';
import { pageResponse, renderedPageResponse, wantsHtml } from './http/page-response.ts';
import { errorResponse, jsonResponse } from './http/problem.ts';
import { humanWait } from './core/human-wait.ts';
import { servedOpenApi } from './core/openapi-info.ts';
import { isProblemCode, problemPageHtml } from './core/problem-pages.ts';
import { termsPageHtml } from './core/terms-page.ts';
import { FAVICON_ICO, FAVICON_TYPE } from './core/favicon.ts';
import { robotsTxt, securityTxt } from './core/well-known.ts';
import { checkTargetSize, decodeSegment, parseQuery } from './http/query.ts';
import {
  admissionHeaders,
  admit,
  pathCharge,
  peekHeaders,
  settle,
  type Charge,
  type RequestLimits,
} from './http/limits.ts';
import { mcpCharge } from './mcp/cost.ts';
import { answerLogFields, RequestLogger, type LogFields } from './http/request-log.ts';
import { answerVersion, VERSION_HEADER } from './http/version.ts';

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

/** Browsers keep a measurement document like any document; shared caches revalidate it on every request. */
const MEASUREMENT_CACHE_CONTROL = 'public, max-age=300, s-maxage=0';

type Outcome = { response: Response; log?: LogFields };
type Handler = (request: Request, info: RequestInfo, param: string, ctx: CallContext) => Promise<Outcome>;

interface Route {
  /** Path template, also the `endpoint` of the log line. */
  endpoint: string;
  methods: readonly string[];
  cors: 'public' | 'mcp';
  /** Whether the handler's body may stream (MCP); others are buffered to set Content-Length. */
  streams: boolean;
  /** What the request spends of the answer quota when not its path's (pathCharge): an MCP POST, its tool calls. */
  charge?: (request: Request) => Promise<Charge>;
  handler: Handler;
  param: string;
}

const READ_METHODS = ['GET', 'HEAD'] as const;

function notFound(detail: string): ApiError {
  return new ApiError('not_found', detail);
}

/** The decoded path segment; the service itself rejects anything that is not a listing id, with the same 404 as MCP. */
function listingId(segment: string): string {
  const id = decodeSegment(segment);
  // Undecodable or traversal-looking segments never reach the store: the service checks LISTING_ID_RE first.
  return id ?? '';
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

  const attorneys: Handler = async (request, info, _param, ctx) => {
    const log: LogFields = {};
    try {
      // The adapter's parse when it made one (the fast path's, on a miss); else the query string's, here, once.
      const search = info.search ?? parseSearch(parseQuery(new URL(request.url).search.slice(1)));
      log.location = search.sent.location;
      log.src = search.sent.src;
      const body = await service.findAttorneys(search, ctx);
      const fields = answerLogFields(body);
      Object.assign(log, fields);
      info.onSearchAnswer?.(fields);
      return { response: jsonResponse(200, body, { 'cache-control': ANSWER_CACHE_CONTROL }), log };
    } catch (err) {
      return { response: errorResponse(err, 'GET /v1/attorneys', {}, ctx.publicBaseUrl), log };
    }
  };

  const firm: Handler = async (request, _info, param, ctx) => {
    const body = await service.getFirm(listingId(param), ctx);
    return { response: documentResponse(request, body) };
  };

  const coverage: Handler = async (request, _info, _param, ctx) => ({
    response: documentResponse(request, await service.getCoverage(ctx)),
  });

  const changes: Handler = async (request, _info, _param, ctx) => ({
    response: documentResponse(request, await service.getChanges(ctx)),
  });

  const openapi: Handler = async (request, _info, _param, ctx) => {
    const links = { publicBaseUrl: ctx.publicBaseUrl, correctionsEmail: config.correctionsEmail ?? null };
    return {
      response: documentResponse(
        request,
        servedOpenApi((await service.openapi(ctx)) as Record<string, unknown>, links),
      ),
    };
  };

  const terms: Handler = async (request) => ({ response: renderedPageResponse(request, '/terms', termsPageHtml()) });

  const favicon: Handler = async (request) => ({ response: documentResponse(request, FAVICON_ICO, FAVICON_TYPE) });

  const robots: Handler = async (request) => ({ response: documentResponse(request, robotsTxt(), 'text/plain') });

  const security: Handler = async (request, _info, _param, ctx) => ({
    response: documentResponse(
      request,
      securityTxt(ctx.publicBaseUrl, config.correctionsEmail ?? null, new Date()),
      'text/plain',
    ),
  });

  const redirect: Handler = async (_request, _info, param, ctx) => {
    const location = await service.redirectTarget(listingId(param), ctx);
    if (location === null) throw notFound('This listing has no website to open.');
    return { response: new Response(null, { status: 302, headers: { location, 'cache-control': NO_STORE } }) };
  };

  const mcp: Handler = async (request, info, _param, ctx) => {
    if (deps.mcp === undefined) {
      return {
        response: errorResponse(
          new ApiError('not_implemented', 'The MCP endpoint is not available on this server.'),
          'POST /mcp',
          {},
          ctx.publicBaseUrl,
        ),
      };
    }
    const response = await deps.mcp(request, info);
    return { response };
  };

  const page: Handler = async (request, _info, name) => {
    const doc = await service.page(name);
    if (doc === null)
      throw notFound(
        'There is no page at this path. The pages are /, /docs, /corrections and /metros/{slug} for each measured metro.',
      );
    return { response: pageResponse(request, doc) };
  };

  const index: Handler = async (request, _info, _param, ctx) => {
    // Browsers get the search page; JSON callers (and any-type callers such as curl) keep the JSON index.
    // A site generated before the pages existed has no index page: such a browser gets the JSON index too.
    const html = wantsHtml(request.headers.get('accept')) ? await service.page('index') : null;
    if (html !== null) {
      const response = pageResponse(request, html, { vary: 'Accept' });
      return { response };
    }
    const base = ctx.publicBaseUrl;
    const json = {
      response: documentResponse(request, {
        name: SERVICE_NAME,
        version: API_VERSION,
        description:
          'Read-only directory of personal injury law offices near a US location, ordered by straight-line distance alone. ' +
          'No firm can pay for a position.',
        documentation: `${base}/openapi.json`,
        endpoints: {
          find_attorneys: `${base}/v1/attorneys?location={ZIP, "City, ST" or "lat,lng"}`,
          firm: `${base}/v1/firms/{listing_id}`,
          coverage: `${base}/v1/coverage`,
          changes: `${base}/v1/changes`,
          mcp: `${base}/mcp`,
        },
        example: `${base}/v1/attorneys?location=Chicago,%20IL&limit=3`,
      }),
    };
    json.response.headers.set('vary', 'Accept');
    return json;
  };

  // Only the served version's measurement: an older version may still name listings a standing removal took out since.
  // Shared caches must ask again each time (s-maxage=0), so a pointer move retires an old version's copy at once.
  const measurement: Handler = async (request, _info, param, ctx) => {
    const [version = '', metro = ''] = param.split('/');
    const doc = service.measurement === undefined ? null : await service.measurement(version, metro, ctx);
    if (doc === null)
      throw notFound(
        "There is no measurement document at this path. Only the served version's are published: /v/{version}/measurement/{metro}.json with the version /v1/coverage names.",
      );
    const response = documentResponse(request, doc);
    response.headers.set('cache-control', MEASUREMENT_CACHE_CONTROL);
    return { response };
  };

  const problemPage: Handler = async (request, _info, param) => {
    const code = decodeSegment(param) ?? '';
    if (!isProblemCode(code))
      throw notFound('There is no problem type with this name. See /openapi.json for the codes.');
    return { response: renderedPageResponse(request, `/problems/${code}`, problemPageHtml(code)) };
  };

  function route(pathname: string): Route | null {
    const read = (endpoint: string, handler: Handler, param = ''): Route => ({
      endpoint,
      methods: READ_METHODS,
      cors: 'public',
      streams: false,
      handler,
      param,
    });
    switch (pathname) {
      case '/':
        return read('/', index);
      case '/v1/attorneys':
        return read('/v1/attorneys', attorneys);
      case '/v1/coverage':
        return read('/v1/coverage', coverage);
      case '/v1/changes':
        return read('/v1/changes', changes);
      case '/openapi.json':
        return read('/openapi.json', openapi);
      case '/terms':
        return read('/terms', terms);
      case '/favicon.ico':
        return read('/favicon.ico', favicon);
      case '/robots.txt':
        return read('/robots.txt', robots);
      case '/.well-known/security.txt':
        return read('/.well-known/security.txt', security);
      case '/mcp':
        return {
          endpoint: '/mcp',
          methods: ['POST'],
          cors: 'mcp',
          streams: true,
          handler: mcp,
          param: '',
          charge: mcpCharge,
        };
    }
    const firmMatch = /^\/v1\/firms\/([^/]+)$/.exec(pathname);
    if (firmMatch?.[1] !== undefined) return read('/v1/firms/{listing_id}', firm, firmMatch[1]);
    const measurementMatch = /^\/v\/([^/]+)\/measurement\/([^/]+)\.json$/.exec(pathname);
    if (measurementMatch?.[1] !== undefined && measurementMatch[2] !== undefined) {
      return read(
        '/v/{version}/measurement/{metro}.json',
        measurement,
        `${decodeSegment(measurementMatch[1]) ?? ''}/${decodeSegment(measurementMatch[2]) ?? ''}`,
      );
    }
    const problemMatch = /^\/problems\/([^/]+)$/.exec(pathname);
    if (problemMatch?.[1] !== undefined) return read('/problems/{code}', problemPage, problemMatch[1]);
    const redirectMatch = /^\/r\/([^/]+)$/.exec(pathname);
    if (redirectMatch?.[1] !== undefined) return read('/r/{listing_id}', redirect, redirectMatch[1]);
    const pageName = pageNameOf(pathname);
    if (pageName !== null)
      return read(
        pageName.startsWith('metros/')
          ? '/metros/{slug}'
          : pageName.startsWith('assets/')
            ? '/assets/{file}'
            : pathname,
        page,
        pageName,
      );
    return null;
  }

  async function handle(
    request: Request,
    info: RequestInfo,
    method: string,
    url: URL,
    found: Route | null,
    ctx: CallContext,
  ): Promise<Outcome> {
    const target = url.pathname + url.search;
    const base = ctx.publicBaseUrl;
    try {
      checkTargetSize(target);
    } catch (err) {
      return { response: errorResponse(err, 'request target', {}, base) };
    }
    if (found === null) {
      return {
        response: errorResponse(
          notFound('There is nothing at this path. See /openapi.json for the endpoints.'),
          'routing',
          {},
          base,
        ),
      };
    }
    const allow = [...found.methods, 'OPTIONS'].join(', ');
    if (!found.methods.includes(method)) {
      const problem = new ApiError(
        'method_not_allowed',
        `${found.endpoint} accepts ${found.methods.join(', ')} only; got ${method}.`,
      );
      return { response: errorResponse(problem, 'routing', { allow }, base) };
    }
    try {
      return await found.handler(request, info, found.param, ctx);
    } catch (err) {
      return { response: errorResponse(err, `${method} ${found.endpoint}`, {}, base) };
    }
  }

  const windowText = limits.answers.windowSeconds === 3600 ? 'an hour' : `${limits.answers.windowSeconds} seconds`;
  const ceilingDetail = (resetSeconds: number): string =>
    `More than ${limits.all.limit} requests of any kind (pages, documents and MCP protocol messages included) in ${windowText} came from your network address. Retry in ${humanWait(resetSeconds)} (Retry-After gives the seconds).`;

  return async function app(request: Request, info: RequestInfo): Promise<Response> {
    // The platform passes methods a web Request cannot carry (TRACE, CONNECT) in info.method.
    const method = (info.method ?? request.method).toUpperCase();
    const url = new URL(request.url);
    const found = route(url.pathname);
    const key = rateLimitKey(info.clientAddress);
    const base = info.publicBaseUrl ?? config.publicBaseUrl;
    const cors =
      found?.cors === 'mcp' ? mcpCorsHeaders(request.headers.get('origin'), mcpOriginsFor(base)) : publicCorsHeaders();

    // Preflights are sent by browsers on their own; they spend no answer (the ceiling on every request counts them).
    if (method === 'OPTIONS' && found !== null) {
      const admission = admit(limits, key, 0);
      if (!admission.allowed) {
        const refused = errorResponse(
          new ApiError('rate_limited', ceilingDetail(admission.all.resetSeconds)),
          'rate limit',
          {},
          base,
        );
        return finish(refused, method, false, { ...cors, ...admissionHeaders(limits, admission) });
      }
      const headers = {
        ...preflightHeaders([...found.methods, 'OPTIONS'], cors, request.headers.get('access-control-request-headers')),
        ...peekHeaders(limits, key),
        allow: [...found.methods, 'OPTIONS'].join(', '),
      };
      return finish(new Response(null, { status: 204, headers }), method, false);
    }

    const charge =
      found?.charge !== undefined && found.methods.includes(method)
        ? await found.charge(request)
        : pathCharge(url.pathname);
    let admission = admit(limits, key, charge.units);
    let read: string | null = null;
    const ctx: CallContext = { publicBaseUrl: base, onVersion: (version) => (read = version) };
    let outcome: Outcome;
    const calls: LogFields[] = [];
    if (!admission.allowed) {
      const left = admission.answers.remaining;
      const detail =
        admission.refusedBy === 'all'
          ? ceilingDetail(admission.all.resetSeconds)
          : charge.units > 1 && left > 0
            ? `This batch holds ${charge.units} tool calls but only ${left} answers are left in the current window for your network address; each call counts. Send fewer, or retry in ${humanWait(admission.answers.resetSeconds)} (Retry-After gives the seconds).`
            : `More than ${limits.answers.limit} API and tool calls in ${windowText} came from your network address. Retry in ${humanWait(admission.answers.resetSeconds)} (Retry-After gives the seconds).`;
      outcome = { response: errorResponse(new ApiError('rate_limited', detail), 'rate limit', {}, base) };
    } else {
      // Calls made within the request (MCP tool calls) are gathered here, each to get its own log line.
      outcome = await handle(
        request,
        found?.cors === 'mcp' ? { ...info, recordCall: (fields) => void calls.push(fields) } : info,
        method,
        url,
        found,
        ctx,
      );
      // An MCP POST spends only the tool calls that got a result: a refused batch or a JSON-RPC error spends nothing.
      if (charge.spent !== undefined)
        admission = settle(limits, key, admission, charge.units, await charge.spent(outcome.response));
    }

    const version = await answerVersion(read, service);
    // Every problem was rendered with its absolute `type` where it arose (errorResponse with the request's base).
    const answered = await errorPageFor(request, method, outcome.response);
    const response = await finish(answered, method, found?.streams ?? false, {
      ...cors,
      ...admissionHeaders(limits, admission),
      ...(version !== null ? { [VERSION_HEADER]: version } : {}),
    });
    await logger.write(
      request,
      info,
      { ...outcome.log, endpoint: found?.endpoint ?? 'unknown', status: response.status },
      calls,
    );
    return response;
  };
}

/** Add the headers every response carries; buffer non-streaming bodies to set Content-Length; drop the body of HEAD. */
async function finish(
  response: Response,
  method: string,
  streams: boolean,
  extra: Record<string, string> = {},
): Promise<Response> {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) {
    if (!headers.has(name)) headers.set(name, value);
  }
  headers.set('x-content-type-options', 'nosniff');
  if (!headers.has('cache-control'))
    headers.set('cache-control', response.status === 304 ? DOCUMENT_CACHE_CONTROL : NO_STORE);
  if (streams && method !== 'HEAD') return new Response(response.body, { status: response.status, headers });
  const bytes = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
  if (bytes !== null) headers.set('content-length', String(bytes.byteLength));
  const bodiless = method === 'HEAD' || response.status === 204 || response.status === 304;
  return new Response(bodiless ? null : bytes, { status: response.status, headers });
}
