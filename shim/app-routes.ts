/** The routes of the app: each path (in Hono's router syntax), its methods, CORS kind and handler returning a plain answer. */
import { API_VERSION, SERVICE_NAME } from './contract/constants.ts';
import { pageNameOf } from './format/page-format.ts';
import { ApiError } from './contract/errors.ts';
import { parseFirmPoint } from './answer/firm-params.ts';
import type { CallContext, Service } from './answer/service.ts';
import type { Answer, PlainRequest, WebApp } from './edge/edge-types.ts';
import { headerOf, jsonAnswer } from './http/answer.ts';
import { ANSWER_CACHE_CONTROL, documentAnswer, encodeDocument, NO_STORE } from './http/caching.ts';
import { DocumentCache } from './http/document-cache.ts';
import { pageAnswer, renderedPageAnswer, wantsHtml } from './http/page-response.ts';
import { problemAnswer } from './http/problem.ts';
import { searchOf } from './http/search-query.ts';
import { answerOf, toWebRequest } from './http/web.ts';
import { answerBytes } from './answer/answer-json.ts';
import { servedOpenApi } from './answer/openapi-info.ts';
import { isProblemCode, problemPageHtml } from './pages/problem-pages.ts';
import { termsPageHtml } from './pages/terms-page.ts';
import { FAVICON_ICO, FAVICON_TYPE } from './pages/favicon.ts';
import { robotsTxt, securityTxt } from './pages/well-known.ts';
import { decodeSegment, parseQuery } from './http/query.ts';
import type { Charge } from './http/admission.ts';
import { mcpCharge } from './mcp/cost.ts';
import { answerLogFields, type LogFields } from './http/request-log.ts';

/** Browsers keep a published object like any document; shared caches revalidate it on every request. */
const VERSION_OBJECT_CACHE_CONTROL = 'public, max-age=300, s-maxage=0';

/** A handler's answer and, for a search, its log fields; for MCP, one set of log fields per tool call made. */
export type Outcome = { answer: Answer; log?: LogFields; calls?: LogFields[] };
/** A route's handler: the request, the route's parameter and the call context (its base, the version read). */
export type Handler = (request: PlainRequest, param: string, ctx: CallContext, charge: RouteCharge) => Promise<Outcome>;

/** What a request spends (reserved up front, settled by the calls it made) and the body its charge read. */
export type RouteCharge = Charge;

/** One route: where Hono matches it, what it accepts, and how it answers. */
export interface Route {
  /** Path in Hono's syntax, registered with its router. */
  path: string;
  /** The path template of the log line; a function for the page routes, whose endpoint is their path. */
  endpoint: string | ((pathname: string) => string);
  methods: readonly string[];
  cors: 'public' | 'mcp';
  /** What the request spends of the answer quota when not its path's (pathCharge): an MCP POST, its tool calls. */
  charge?: (request: PlainRequest) => RouteCharge;
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
  mcp?: WebApp;
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

/** The charge of an MCP POST (mcp/cost.ts): its body read once, its tool calls reserved, settled by the calls made. */
function mcpRouteCharge(request: PlainRequest): RouteCharge {
  return mcpCharge(request.body);
}

/** The routes, in registration order. */
export function createRoutes(deps: RouteDeps): Route[] {
  const { service } = deps;
  const config = { correctionsEmail: deps.correctionsEmail };
  const attorneys: Handler = async (request, _param, ctx) => {
    const log: LogFields = {};
    try {
      // Parsed once per distinct query (search-query.ts): the answer cache's lookup has already read this value.
      const search = searchOf(request.query);
      log.location = search.sent.location;
      log.src = search.sent.src;
      const body = await service.findAttorneys(search, ctx);
      Object.assign(log, answerLogFields(body));
      return { answer: jsonAnswer(200, answerBytes(body), { 'cache-control': ANSWER_CACHE_CONTROL }), log };
    } catch (err) {
      return { answer: problemAnswer(err, 'GET /v1/attorneys', {}, ctx.publicBaseUrl), log };
    }
  };

  // Version documents are shaped and serialised once per version (and base), then served from their bytes.
  const documents = new DocumentCache(() => service.currentVersion());
  const ifNoneMatch = (request: PlainRequest): string | null => headerOf(request, 'if-none-match');
  const document = (request: PlainRequest, body: unknown, contentType?: string): Answer =>
    documentAnswer(ifNoneMatch(request), encodeDocument(body, contentType));

  const firm: Handler = async (request, param, ctx) => {
    const id = listingId(param);
    // Parsed before the store is read: an unknown parameter or a bad point is the caller's mistake whatever the id.
    const point = request.query === '' ? null : parseFirmPoint(parseQuery(request.query));
    if (point !== null) return { answer: document(request, await service.getFirm(id, ctx, point)) };
    const doc = await documents.get(`firm\u0000${id}\u0000${ctx.publicBaseUrl}`, ctx, (c) => service.getFirm(id, c));
    return { answer: documentAnswer(ifNoneMatch(request), doc) };
  };

  const coverage: Handler = async (request, _param, ctx) => ({
    answer: documentAnswer(ifNoneMatch(request), await documents.get('coverage', ctx, (c) => service.getCoverage(c))),
  });

  const changes: Handler = async (request, _param, ctx) => ({
    answer: documentAnswer(ifNoneMatch(request), await documents.get('changes', ctx, (c) => service.getChanges(c))),
  });

  const openapi: Handler = async (request, _param, ctx) => {
    const links = { publicBaseUrl: ctx.publicBaseUrl, correctionsEmail: config.correctionsEmail ?? null };
    const doc = await documents.get(`openapi\u0000${ctx.publicBaseUrl}`, ctx, async (c) =>
      servedOpenApi((await service.openapi(c)) as Record<string, unknown>, links),
    );
    return { answer: documentAnswer(ifNoneMatch(request), doc) };
  };

  const terms: Handler = async (request) => ({
    answer: renderedPageAnswer(ifNoneMatch(request), '/terms', termsPageHtml()),
  });

  const favicon: Handler = async (request) => ({ answer: document(request, FAVICON_ICO, FAVICON_TYPE) });

  const robots: Handler = async (request) => ({ answer: document(request, robotsTxt(), 'text/plain') });

  const security: Handler = async (request, _param, ctx) => ({
    answer: document(
      request,
      securityTxt(ctx.publicBaseUrl, config.correctionsEmail ?? null, new Date()),
      'text/plain',
    ),
  });

  const redirect: Handler = async (_request, param, ctx) => {
    const location = await service.redirectTarget(listingId(param), ctx);
    return { answer: { status: 302, headers: { location, 'cache-control': NO_STORE }, body: null } };
  };

  const mcp: Handler = async (request, _param, ctx, charge) => {
    if (deps.mcp === undefined) {
      const error = new ApiError('not_implemented', 'The MCP endpoint is not available on this server.');
      return { answer: problemAnswer(error, 'POST /mcp', {}, ctx.publicBaseUrl) };
    }
    // The MCP SDK speaks web Request and Response: the one place the pipeline builds them.
    const calls: LogFields[] = [];
    // The body travels parsed (the charge read it once), so the Request carries none.
    const response = await deps.mcp(toWebRequest(request, ctx.publicBaseUrl, charge.body === undefined), {
      clientAddress: request.clientAddress,
      publicBaseUrl: ctx.publicBaseUrl,
      recordCall: (fields) => void calls.push(fields),
      ...(charge.body !== undefined ? { body: charge.body } : {}),
    });
    return { answer: await answerOf(response), calls };
  };

  const page: Handler = async (request, name) => {
    const doc = await service.page(name);
    if (doc === null)
      throw notFound(
        'There is no page at this path. The pages are /, /docs, /corrections and /metros/{slug} for each measured metro.',
      );
    return { answer: pageAnswer(ifNoneMatch(request), doc) };
  };

  const index: Handler = async (request, _param, ctx) => {
    // Browsers get the search page; JSON callers (and any-type callers such as curl) keep the JSON index.
    // A site generated before the pages existed has no index page: such a browser gets the JSON index too.
    const html = wantsHtml(headerOf(request, 'accept')) ? await service.page('index') : null;
    if (html !== null) return { answer: pageAnswer(ifNoneMatch(request), html, { vary: 'Accept' }) };
    const base = ctx.publicBaseUrl;
    const answer = document(request, {
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
    });
    return { answer: { ...answer, headers: { ...answer.headers, vary: 'Accept' } } };
  };

  // Only the served version's objects (the public audit, docs/AUDIT.md): an older version may still hold listings a
  // standing removal took out since. Each is sent as stored, checked against its recorded sha256 (damage is a 503).
  // Shared caches must ask again each time (s-maxage=0), so a pointer move retires an old version's copy at once.
  const versionObject: Handler = async (request, param, ctx) => {
    const slash = param.indexOf('/');
    const bytes =
      service.versionObject === undefined || slash < 0
        ? null
        : await service.versionObject(param.slice(0, slash), param.slice(slash + 1), ctx);
    if (bytes === null)
      throw notFound(
        "There is no published object at this path. Only the served version's are public: /v/{version}/{path} with the version /current.json (or /v1/coverage) names and a path its manifest.json lists.",
      );
    // A binary cell object (.pb) is sent as the bucket stores it (publish.ts contentTypeOf), every other one as JSON.
    const answer = document(request, bytes, param.endsWith('.pb') ? 'application/octet-stream' : undefined);
    return { answer: { ...answer, headers: { ...answer.headers, 'cache-control': VERSION_OBJECT_CACHE_CONTROL } } };
  };

  const pointer: Handler = async (request, _param, ctx) => {
    if (service.pointer === undefined) throw notFound('This server does not publish its pointer.');
    const answer = document(request, await service.pointer(ctx));
    return { answer: { ...answer, headers: { ...answer.headers, 'cache-control': VERSION_OBJECT_CACHE_CONTROL } } };
  };

  const problemPage: Handler = async (request, param) => {
    const code = decodeSegment(param) ?? '';
    if (!isProblemCode(code))
      throw notFound('There is no problem type with this name. See /openapi.json for the codes.');
    return { answer: renderedPageAnswer(ifNoneMatch(request), `/problems/${code}`, problemPageHtml(code)) };
  };

  const read = (path: string, handler: Handler, more: Partial<Route> = {}): Route => ({
    path,
    endpoint: path,
    methods: READ_METHODS,
    cors: 'public',
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
      handler: mcp,
      charge: mcpRouteCharge,
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
