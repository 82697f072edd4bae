/** The OpenAPI 3.1 description of the public API, generated from the zod schemas of the contract (docs/CONTRACT.md). */
import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { API_VERSION, LIMIT, RADIUS_MILES, RATELIMIT_DRAFT, REQUESTS_PER_HOUR, SERVICE_NAME } from './constants.ts';
import { withoutSafeIntegerBounds } from './json-schema-bounds.ts';
import { API_DESCRIPTION, CALLER_RULES, DEFAULT_PUBLIC_BASE_URL, TAGS, servedOpenApi } from './openapi-info.ts';
import { AttorneysQuery } from './query-schema.ts';
import { AttorneysResponse, CoverageResponse, FirmResponse, Problem, ProblemCode } from './schemas.ts';
import { ChangesDoc } from './site-format.ts';

const rateLimitPolicy = z.string().meta({
  description: `Quota policy (${RATELIMIT_DRAFT}): ${REQUESTS_PER_HOUR} requests per hour per network address, REST and MCP together; where the window is shorter (AWS WAF counts in 600 s) the quota is scaled to it and the header names that window.`,
  example: `"hour";q=${REQUESTS_PER_HOUR};w=3600`,
  header: { id: 'RateLimit-Policy' },
});
const rateLimit = z.string().meta({
  description: `Remaining quota r and seconds t until it resets (${RATELIMIT_DRAFT}).`,
  example: `"hour";r=${REQUESTS_PER_HOUR - 1};t=3600`,
  header: { id: 'RateLimit' },
});
const directoryVersion = z.string().meta({
  description: 'The published version of the directory this answer came from (as /v1/coverage `version`).',
  example: '2026-W47-0123456789',
  header: { id: 'Directory-Version' },
});
const vary = z.string().meta({ description: 'Accept-Encoding: the body is gzip- or brotli-encoded when the request accepts it.', example: 'Accept-Encoding', header: { id: 'Vary' } });
const retryAfter = z.string().meta({
  description: 'Seconds to wait before retrying.',
  example: '60',
  header: { id: 'Retry-After' },
});
const etag = z.string().meta({ description: 'Entity tag of the document; send it back in If-None-Match.', header: { id: 'ETag' } });
const cacheControl = z.string().meta({ description: 'How long the document may be cached.', header: { id: 'Cache-Control' } });
const location = z.string().meta({ description: 'The firm\'s own site, with utm_source set.', header: { id: 'Location' } });

const rateHeaders = { 'RateLimit-Policy': rateLimitPolicy, RateLimit: rateLimit, 'Directory-Version': directoryVersion };
const jsonHeaders = { ...rateHeaders, Vary: vary };
const listingIdParam = z.object({
  listing_id: z
    .string()
    .regex(/^l_[a-z2-7]{16}$/)
    .describe('listing_id exactly as returned by a search: "l_" and 16 lowercase base32 characters. Anything else is 404.'),
});

function problem(description: string, extra: Record<string, z.ZodType> = {}): ZodOpenApiResponseObject {
  return {
    description,
    headers: z.object({ ...jsonHeaders, ...extra }),
    content: { 'application/problem+json': { schema: Problem } },
  };
}

const errors = {
  '429': problem('Rate limit exceeded (code rate_limited).', { 'Retry-After': retryAfter }),
  '500': problem('Unexpected failure (code internal_error); never a stack trace.'),
  '503': problem('The published data could not be read (code service_unavailable); retry later. Never a partial answer.', { 'Retry-After': retryAfter }),
};

const jsonRpcRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int()]).optional().describe('Absent for notifications.'),
    method: z.string().describe('e.g. initialize, tools/list, tools/call.'),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'JsonRpcRequest', description: 'A JSON-RPC 2.0 request or notification (Model Context Protocol).' });
const jsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: 'JsonRpcResponse', description: 'A JSON-RPC 2.0 response: result, or error for an unknown tool or method.' });

function sortKeys<T>(record: Record<string, T> | undefined): Record<string, T> | undefined {
  if (record === undefined) return undefined;
  return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k] as T]));
}

const problemCode = z.object({ code: ProblemCode.describe('A problem code, as in a problem\'s `code` field.') });

/**
 * The OpenAPI 3.1 document (info.version API_VERSION), with servers and links on DEFAULT_PUBLIC_BASE_URL; the shim
 * serves it re-based onto its own public base URL (servedOpenApi). Deterministic.
 */
export function buildOpenApi(): Record<string, unknown> {
  const doc = createDocument({
    openapi: '3.1.0',
    info: {
      title: `${SERVICE_NAME} API`,
      version: API_VERSION,
      description: API_DESCRIPTION,
    },
    servers: [{ url: DEFAULT_PUBLIC_BASE_URL }],
    security: [],
    tags: TAGS,
    paths: {
      '/v1/attorneys': {
        get: {
          operationId: 'findInjuryAttorneys',
          tags: ['directory'],
          summary: 'Firms with an office near a location, nearest first',
          description:
            `${CALLER_RULES} ` +
            'Exactly one location form: location, zip, or lat with lng. Query values are sent as strings; radius_miles is a number ' +
            `${RADIUS_MILES.min}..${RADIUS_MILES.max} (default ${RADIUS_MILES.default}) and limit an integer ${LIMIT.min}..${LIMIT.max} ` +
            `(default ${LIMIT.default}). Any other parameter is 400 unknown_parameter. A location outside every measured metro is 200 ` +
            'with covered false and no results.',
          requestParams: { query: AttorneysQuery },
          responses: {
            '200': {
              description: 'Firms within the radius, each by its nearest office, ordered by distance alone.',
              headers: z.object({ ...jsonHeaders, 'Cache-Control': cacheControl }),
              content: { 'application/json': { schema: AttorneysResponse } },
            },
            '400': problem('A parameter is missing, malformed, out of bounds or unknown, or the location is not understood.'),
            ...errors,
          },
        },
      },
      '/v1/firms/{listing_id}': {
        get: {
          operationId: 'getFirm',
          tags: ['directory'],
          summary: 'A firm, the office with this listing_id, and its other offices',
          description:
            'The firm of a listing, the listed office (address, phone, hours, map_visibility) and the firm\'s other offices ordered by ' +
            'listing_id. Use a listing_id exactly as a search returned it; ids are stable across weeks but a listing can leave the directory.',
          requestParams: { path: listingIdParam },
          responses: {
            '200': {
              description: 'The firm document.',
              headers: z.object({ ...jsonHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'application/json': { schema: FirmResponse } },
            },
            '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: z.object({ ...rateHeaders, ETag: etag }) },
            '404': problem('Unknown or malformed listing_id (code not_found).'),
            ...errors,
          },
        },
      },
      '/v1/coverage': {
        get: {
          operationId: 'getCoverage',
          tags: ['directory'],
          summary: 'The measured metros and this week\'s measurement',
          description:
            'The published version, the measured week, and per metro its centre, firm and office counts and the grid sampling behind ' +
            'map_visibility. Use it to explain coverage, not to pick another metro for a person whose location is not covered.',
          responses: {
            '200': {
              description: 'Coverage of the served week.',
              headers: z.object({ ...jsonHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'application/json': { schema: CoverageResponse } },
            },
            '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: z.object({ ...rateHeaders, ETag: etag }) },
            ...errors,
          },
        },
      },
      '/v1/changes': {
        get: {
          operationId: 'getChanges',
          tags: ['directory'],
          summary: 'What changed in the listings since the version before, and why',
          description:
            'The served version\'s changes document, for auditors: listings added, removed and changed (old and new values, hours ' +
            'included) since the version live before it, each with its reason: the weekly data, a firm\'s correction, a standing ' +
            'removal or its lifting (kind, date and an optional public note; never who asked or their private reason). ' +
            '`previous` is null for the first version of a site.',
          responses: {
            '200': {
              description: 'Changes of the served version.',
              headers: z.object({ ...jsonHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'application/json': { schema: ChangesDoc } },
            },
            '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: z.object({ ...rateHeaders, ETag: etag }) },
            ...errors,
          },
        },
      },
      '/r/{listing_id}': {
        get: {
          operationId: 'redirectToFirmWebsite',
          tags: ['directory'],
          summary: 'Redirect to the firm\'s own website',
          description: `302 to the firm's site in the directory with utm_source=${SERVICE_NAME} (an existing utm_source is replaced, other parameters kept). Never redirects outside the directory.`,
          requestParams: { path: listingIdParam },
          responses: {
            '302': { description: 'Redirect to the firm\'s website.', headers: z.object({ ...rateHeaders, Location: location }) },
            '404': problem('Unknown listing_id, or the listing has no website (code not_found).'),
            ...errors,
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          tags: ['service'],
          summary: 'This OpenAPI 3.1 document',
          description: 'This description of the API, with its servers and links on the host that serves it.',
          responses: {
            '200': {
              description: 'The OpenAPI document.',
              headers: z.object({ ...jsonHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
            },
            ...errors,
          },
        },
      },
      '/terms': {
        get: {
          operationId: 'getTerms',
          tags: ['service'],
          summary: 'The terms of use',
          description: 'A short HTML page with the terms of use (no bulk copying) and the caller rules.',
          responses: {
            '200': {
              description: 'The page.',
              headers: z.object({ ...rateHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'text/html': { schema: z.string() } },
            },
            ...errors,
          },
        },
      },
      '/problems/{code}': {
        get: {
          operationId: 'getProblemType',
          tags: ['service'],
          summary: 'The page behind a problem type URI',
          description: 'A short HTML page saying what a problem code means and what to do; every problem\'s `type` links here.',
          requestParams: { path: problemCode },
          responses: {
            '200': {
              description: 'The page.',
              headers: z.object({ ...rateHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'text/html': { schema: z.string() } },
            },
            '404': problem('No problem type with this name (code not_found).'),
            ...errors,
          },
        },
      },
      '/mcp': {
        post: {
          operationId: 'mcp',
          tags: ['mcp'],
          summary: 'Model Context Protocol endpoint (JSON-RPC 2.0 over Streamable HTTP, stateless, JSON responses)',
          description:
            'Tools find_injury_attorneys, get_firm and get_coverage return the same bodies as the REST calls (structuredContent) plus a ' +
            'text block. No session (no Mcp-Session-Id) and no key. A bad tool argument is a tool result with isError true; an unknown ' +
            'tool or method is a JSON-RPC error. GET and DELETE answer 405. A foreign Origin is 403.',
          requestBody: { required: true, content: { 'application/json': { schema: jsonRpcRequest } } },
          responses: {
            '200': { description: 'JSON-RPC response.', headers: z.object(jsonHeaders), content: { 'application/json': { schema: jsonRpcResponse } } },
            '202': { description: 'Accepted (the request was a notification).', headers: z.object(rateHeaders) },
            '400': problem('The body is not a JSON-RPC request.'),
            '403': problem('The request carries a foreign Origin (code origin_not_allowed).'),
            '413': problem('The request body is too large (code payload_too_large).'),
            ...errors,
          },
        },
      },
    },
  });
  const components = doc.components === undefined ? undefined : Object.fromEntries(
    Object.keys(doc.components).sort().map((k) => [k, sortKeys((doc.components as Record<string, Record<string, unknown>>)[k])]),
  );
  const sorted = { ...doc, paths: sortKeys(doc.paths as Record<string, unknown>), ...(components ? { components } : {}) };
  return servedOpenApi(withoutSafeIntegerBounds(sorted) as Record<string, unknown>, { publicBaseUrl: DEFAULT_PUBLIC_BASE_URL, correctionsEmail: null });
}
