/** The routes of the app: each path (in Hono's syntax), its methods, CORS kind and handler. */
import { API_VERSION, SERVICE_NAME } from './core/constants.ts';
import { pageNameOf } from './core/page-format.ts';
import { ApiError } from './core/errors.ts';
import { parseSearch } from './core/search-request.ts';
import type { CallContext, Service } from './core/service.ts';
import type { App, RequestInfo } from './edge-types.ts';
import { ANSWER_CACHE_CONTROL, documentResponse, encodedResponse, NO_STORE } from './http/caching.ts';
import { DocumentCache } from './http/document-cache.ts';
import { pageResponse, renderedPageResponse, wantsHtml } from './http/page-response.ts';
import { errorResponse, jsonResponse } from './http/problem.ts';
import { answerJson } from './core/answer-json.ts';
import { servedOpenApi } from './core/openapi-info.ts';
import { isProblemCode, problemPageHtml } from './core/problem-pages.ts';
import { termsPageHtml } from './core/terms-page.ts';
import { FAVICON_ICO, FAVICON_TYPE } from './core/favicon.ts';
import { robotsTxt, securityTxt } from './core/well-known.ts';
import { decodeSegment, parseQuery } from './http/query.ts';
import type { Charge } from './http/limits.ts';
import { mcpCharge } from './mcp/cost.ts';
import { answerLogFields, type LogFields } from './http/request-log.ts';

/** Browsers keep a published object like any document; shared caches revalidate it on every request. */
const VERSION_OBJECT_CACHE_CONTROL = 'public, max-age=300, s-maxage=0';

/** A handler's answer and, for a search, its log fields. */
export type Outcome = { response: Response; log?: LogFields };
/** A route's handler: the request, its platform facts, the route's decoded parameter and the call context. */
export type Handler = (request: Request, info: RequestInfo, param: string, ctx: CallContext) => Promise<Outcome>;

/** One route: where Hono matches it, what it accepts, and how it answers. */
export interface Route {
  /** Path in Hono's syntax, registered with its router. */
  path: string;
  /** The path template of the log line; a function for the page routes, whose endpoint is their path. */
  endpoint: string | ((pathname: string) => string);
  methods: readonly string[];
  cors: 'public' | 'mcp';
  /** Whether the handler's body may stream (MCP); others are buffered to set Content-Length. */
  streams: boolean;
  /** What the request spends of the answer quota when not its path's (pathCharge): an MCP POST, its tool calls. */
  charge?: (request: Request) => Promise<Charge>;
  /**
   * The handler's parameter from the raw (undecoded) pathname, or null when the path is not this route after all
   * (Hono matched the shape; the rule is stricter, as a page name). Absent: ''.
   */
  param?: (pathname: string) => string | null;
  handler: Handler;
}

/** What the routes are built from. */
export interface RouteDeps {
  service: Service;
  correctionsEmail: string | null;
  /** The MCP route mounted at /mcp; absent means 501. */
  mcp?: App;
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

/** The raw segment after `prefix`. */
const after =
  (prefix: string) =>
  (pathname: string): string =>
    pathname.slice(prefix.length);

/** The routes, in registration order. */
export function createRoutes(deps: RouteDeps): Route[] {
  const { service } = deps;
  const config = { correctionsEmail: deps.correctionsEmail };
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
      const text = answerJson(body);
      return { response: jsonResponse(200, body, { 'cache-control': ANSWER_CACHE_CONTROL }, undefined, text), log };
    } catch (err) {
      return { response: errorResponse(err, 'GET /v1/attorneys', {}, ctx.publicBaseUrl), log };
    }
  };

  // Version documents are shaped and serialised once per version (and base), then served from their bytes.
  const documents = new DocumentCache(() => service.currentVersion());

  const firm: Handler = async (request, _info, param, ctx) => {
    const id = listingId(param);
    const doc = await documents.get(`firm\u0000${id}\u0000${ctx.publicBaseUrl}`, ctx, (c) => service.getFirm(id, c));
    return { response: encodedResponse(request, doc) };
  };

  const coverage: Handler = async (request, _info, _param, ctx) => ({
    response: encodedResponse(request, await documents.get('coverage', ctx, (c) => service.getCoverage(c))),
  });

  const changes: Handler = async (request, _info, _param, ctx) => ({
    response: encodedResponse(request, await documents.get('changes', ctx, (c) => service.getChanges(c))),
  });

  const openapi: Handler = async (request, _info, _param, ctx) => {
    const links = { publicBaseUrl: ctx.publicBaseUrl, correctionsEmail: config.correctionsEmail ?? null };
    const doc = await documents.get(`openapi\u0000${ctx.publicBaseUrl}`, ctx, async (c) =>
      servedOpenApi((await service.openapi(c)) as Record<string, unknown>, links),
    );
    return { response: encodedResponse(request, doc) };
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

  // Only the served version's objects (the public audit, docs/AUDIT.md): an older version may still hold listings a
  // standing removal took out since. Each is sent as stored, checked against its recorded sha256 (damage is a 503).
  // Shared caches must ask again each time (s-maxage=0), so a pointer move retires an old version's copy at once.
  const versionObject: Handler = async (request, _info, param, ctx) => {
    const slash = param.indexOf('/');
    const bytes =
      service.versionObject === undefined || slash < 0
        ? null
        : await service.versionObject(param.slice(0, slash), param.slice(slash + 1), ctx);
    if (bytes === null)
      throw notFound(
        "There is no published object at this path. Only the served version's are public: /v/{version}/{path} with the version /current.json (or /v1/coverage) names and a path its manifest.json lists.",
      );
    const response = documentResponse(request, bytes);
    response.headers.set('cache-control', VERSION_OBJECT_CACHE_CONTROL);
    return { response };
  };

  const pointer: Handler = async (request, _info, _param, ctx) => {
    if (service.pointer === undefined) throw notFound('This server does not publish its pointer.');
    const response = documentResponse(request, await service.pointer(ctx));
    response.headers.set('cache-control', VERSION_OBJECT_CACHE_CONTROL);
    return { response };
  };

  const problemPage: Handler = async (request, _info, param) => {
    const code = decodeSegment(param) ?? '';
    if (!isProblemCode(code))
      throw notFound('There is no problem type with this name. See /openapi.json for the codes.');
    return { response: renderedPageResponse(request, `/problems/${code}`, problemPageHtml(code)) };
  };

  const read = (path: string, handler: Handler, more: Partial<Route> = {}): Route => ({
    path,
    endpoint: path,
    methods: READ_METHODS,
    cors: 'public',
    streams: false,
    handler,
    ...more,
  });
  const pageName = (pathname: string): string | null => pageNameOf(pathname);
  return [
    read('/', index),
    read('/v1/attorneys', attorneys),
    read('/v1/coverage', coverage),
    read('/v1/changes', changes),
    read('/openapi.json', openapi),
    read('/terms', terms),
    read('/favicon.ico', favicon),
    read('/robots.txt', robots),
    read('/.well-known/security.txt', security),
    {
      path: '/mcp',
      endpoint: '/mcp',
      methods: ['POST'],
      cors: 'mcp',
      streams: true,
      handler: mcp,
      charge: mcpCharge,
    },
    read('/v1/firms/:listing_id', firm, { endpoint: '/v1/firms/{listing_id}', param: after('/v1/firms/') }),
    read('/current.json', pointer),
    read('/v/:version/:path{.+}', versionObject, {
      endpoint: '/v/{version}/{path}',
      // The decoded segments joined again; a segment that does not decode, or holds a slash, is no object's (404).
      param: (pathname) => {
        const segments = pathname.slice('/v/'.length).split('/').map(decodeSegment);
        return segments.every((s) => s !== null && s !== '' && !s.includes('/')) ? segments.join('/') : '';
      },
    }),
    read('/problems/:code', problemPage, { endpoint: '/problems/{code}', param: after('/problems/') }),
    read('/r/:listing_id', redirect, { endpoint: '/r/{listing_id}', param: after('/r/') }),
    read('/docs', page, { param: pageName }),
    read('/corrections', page, { param: pageName }),
    read('/metros/:slug', page, { endpoint: '/metros/{slug}', param: pageName }),
    read('/assets/:file', page, { endpoint: '/assets/{file}', param: pageName }),
  ];
}
