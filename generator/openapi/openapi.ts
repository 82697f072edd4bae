/** The OpenAPI 3.1 description of the public API, generated from the zod schemas of the contract (docs/CONTRACT.md). */
import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import {
  API_VERSION,
  LIMIT,
  RADIUS_MILES,
  RATELIMIT_DRAFT,
  REQUESTS_PER_HOUR,
  SERVICE_NAME,
} from '../../shim/contract/constants.ts';
import { withoutSafeIntegerBounds } from '../../shim/lib/json-schema-bounds.ts';
import { DEFAULT_PUBLIC_BASE_URL, TAGS, apiDescription, servedOpenApi } from '../../shim/answer/openapi-info.ts';
import { AttorneysQuery } from '../../shim/contract/query-schema.ts';
import { FIRM_PARAMS } from '../../shim/answer/firm-params.ts';
import {
  AttorneysResponse,
  CoverageResponse,
  FirmResponse,
  Problem,
  ProblemCode,
} from '../../shim/contract/schemas.ts';
import { ChangesDoc } from '../../shim/format/site-format.ts';
import { ApiError } from '../../shim/contract/errors.ts';
import type { OpenApiExampleSet } from './openapi-example-set.ts';
import { problemTypeUri } from '../../shim/pages/problem-pages.ts';
import type { ProblemT } from '../../shim/contract/schemas.ts';

const rateLimitPolicy = z.string().meta({
  description:
    `Quota policy (${RATELIMIT_DRAFT}): ${REQUESTS_PER_HOUR} answers per hour per network address (calls under /v1/ and /r/, MCP tool calls), REST and MCP together; ` +
    'where the window is shorter (AWS WAF counts in 600 s) the quota is scaled to it and the header names that window. A 429 from the ceiling on every request ' +
    '(ten times the quota) adds that policy, "all-hour".',
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
const vary = z.string().meta({
  description: 'Accept-Encoding: the body is gzip- or brotli-encoded when the request accepts it.',
  example: 'Accept-Encoding',
  header: { id: 'Vary' },
});
const retryAfter = z.string().meta({
  description: 'Seconds to wait before retrying.',
  example: '60',
  header: { id: 'Retry-After' },
});
const etag = z
  .string()
  .meta({ description: 'Entity tag of the document; send it back in If-None-Match.', header: { id: 'ETag' } });
const cacheControl = z
  .string()
  .meta({ description: 'How long the document may be cached.', header: { id: 'Cache-Control' } });
const location = z
  .string()
  .meta({ description: "The firm's own site, with utm_source set.", header: { id: 'Location' } });

const rateHeaders = {
  'RateLimit-Policy': rateLimitPolicy,
  RateLimit: rateLimit,
  'Directory-Version': directoryVersion,
};
const jsonHeaders = { ...rateHeaders, Vary: vary };
const listingIdParam = z.object({
  listing_id: z
    .string()
    .regex(/^l_[a-z2-7]{16}$/)
    .describe(
      'listing_id exactly as returned by a search: "l_" and 16 lowercase base32 characters. Anything else is 404.',
    ),
});

function problem(
  description: string,
  example: ProblemT | undefined,
  extra: Record<string, z.ZodType> = {},
): ZodOpenApiResponseObject {
  if (example === undefined) throw new Error(`no example for the problem response "${description}"`);
  return {
    description,
    headers: z.object({ ...jsonHeaders, ...extra }),
    content: { 'application/problem+json': { schema: Problem, example } },
  };
}

/** A problem the service answers with a fixed text (no sample data behind it), with its type on the document's base. */
function fixedProblem(
  code: ConstructorParameters<typeof ApiError>[0],
  detail: string,
  extensions?: ConstructorParameters<typeof ApiError>[2],
): ProblemT {
  return {
    ...new ApiError(code, detail, extensions).toProblem(),
    type: problemTypeUri(DEFAULT_PUBLIC_BASE_URL, code),
  };
}

/** The person's point on GET /v1/firms/{listing_id}, with the search's bounds. */
const firmPointQuery = z.object({
  lat: AttorneysQuery.shape.lat.describe(
    "The person's latitude, decimal degrees; with lng, every office gets distance_miles and the other offices come nearest first.",
  ),
  lng: AttorneysQuery.shape.lng.describe("The person's longitude, decimal degrees; requires lat."),
});
const htmlExample =
  '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>…</title>\n</head>\n<body>…</body>\n</html>\n';

const jsonRpcRequest = z
  .object({
    jsonrpc: z.literal('2.0').describe('Always "2.0".'),
    id: z.union([z.string(), z.number().int()]).optional().describe('Absent for notifications.'),
    method: z.string().describe('e.g. initialize, tools/list, tools/call.'),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Method parameters, e.g. name and arguments for tools/call.'),
  })
  .meta({ id: 'JsonRpcRequest', description: 'A JSON-RPC 2.0 request or notification (Model Context Protocol).' });
const jsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0').describe('Always "2.0".'),
    id: z.union([z.string(), z.number().int(), z.null()]).describe('The id of the request answered.'),
    result: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The result: for tools/call, content and structuredContent.'),
    error: z
      .object({
        code: z.number().int().describe('JSON-RPC error code, e.g. -32602 for an unknown tool.'),
        message: z.string().describe('What went wrong.'),
        data: z.unknown().optional().describe('More detail, when any.'),
      })
      .optional()
      .describe('Set instead of result for an unknown tool or method, or a malformed request.'),
  })
  .meta({
    id: 'JsonRpcResponse',
    description: 'A JSON-RPC 2.0 response: result, or error for an unknown tool or method.',
  });

function sortKeys<T>(record: Record<string, T> | undefined): Record<string, T> | undefined {
  if (record === undefined) return undefined;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, record[k] as T]),
  );
}

const problemCode = z.object({ code: ProblemCode.describe("A problem code, as in a problem's `code` field.") });

/** Operation description of GET /v1/attorneys (at most 300 characters; the parameters and fields carry the detail). */
export const ATTORNEYS_DESCRIPTION =
  'Law firms with an office near the own location of the person who needs a lawyer (never one you chose), nearest first by distance alone. ' +
  'If covered is false there is no data for that place: say so, do not substitute another metro. Keep the disclosure; a listing is not a recommendation.';

/** The 429, 500 and 503 responses every operation has, with the examples' problem bodies. */
function errorsOf(E: OpenApiExampleSet): Record<'429' | '500' | '503', ZodOpenApiResponseObject> {
  return {
    '429': problem('Rate limit exceeded (code rate_limited).', E.problems['429'], { 'Retry-After': retryAfter }),
    '500': problem('Unexpected failure (code internal_error); never a stack trace.', E.problems['500']),
    '503': problem(
      'The published data could not be read (code service_unavailable); retry later. Never a partial answer.',
      E.problems['503'],
      { 'Retry-After': retryAfter },
    ),
  };
}

/** `doc` with an example on every path and query parameter that has one in the examples. Mutates and returns `doc`. */
function withParameterExamples(doc: Record<string, unknown>, E: OpenApiExampleSet): Record<string, unknown> {
  for (const item of Object.values(
    doc.paths as Record<string, Record<string, { parameters?: { name: string; example?: unknown }[] }>>,
  )) {
    for (const op of Object.values(item)) {
      for (const param of op.parameters ?? []) {
        const example = E.parameters[param.name];
        if (example !== undefined) param.example = example;
      }
    }
  }
  return doc;
}

/**
 * The OpenAPI 3.1 document (info.version API_VERSION) of a version whose dataset is `dataset` (its description says
 * the firms are fictional while it is synthetic), with servers and links on DEFAULT_PUBLIC_BASE_URL, showing the
 * examples `E` (the generator takes them from the version's own data); the shim serves it re-based onto its own public
 * base URL (servedOpenApi). Deterministic.
 */
export function buildOpenApi(E: OpenApiExampleSet, dataset: { synthetic: boolean }): Record<string, unknown> {
  const errors = errorsOf(E);
  const notFound = E.problems['404'];
  const doc = createDocument({
    openapi: '3.1.0',
    info: {
      title: `${SERVICE_NAME} API`,
      version: API_VERSION,
      description: apiDescription(dataset),
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
          description: ATTORNEYS_DESCRIPTION,
          requestParams: { query: AttorneysQuery },
          responses: {
            '200': {
              description:
                'Firms within the radius, each by its nearest office, ordered by distance alone. A location outside every measured metro is 200 with covered false and no results.',
              headers: z.object({ ...jsonHeaders, 'Cache-Control': cacheControl }),
              content: {
                'application/json': {
                  schema: AttorneysResponse,
                  examples: {
                    covered: { summary: `GET /v1/attorneys?${E.queries.covered}`, value: E.attorneys.covered },
                    not_covered: {
                      summary: `GET /v1/attorneys?${E.queries.not_covered} (outside every measured metro)`,
                      value: E.attorneys.not_covered,
                    },
                  },
                },
              },
            },
            '400': problem(
              `Exactly one location form (location, zip, or lat with lng) is required; radius_miles is ${RADIUS_MILES.min}..${RADIUS_MILES.max}, limit ${LIMIT.min}..${LIMIT.max}; ` +
                'any other parameter is unknown_parameter; a location not understood is location_not_understood.',
              E.problems['400'],
            ),
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
            "The firm of a listing, its office and the firm's other offices (by listing_id; with the person's lat and lng, nearest " +
            'first with distances). Use a listing_id exactly as a search returned it; a listing can leave the directory.',
          requestParams: { path: listingIdParam, query: firmPointQuery },
          responses: {
            '200': {
              description: 'The firm document.',
              headers: z.object({ ...jsonHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'application/json': { schema: FirmResponse, example: E.firm } },
            },
            '304': {
              description: 'Not modified (If-None-Match matched the ETag).',
              headers: z.object({ ...rateHeaders, ETag: etag }),
            },
            '400': problem(
              `lat and lng go together, with the search's bounds (invalid_parameter); a point outside the 50 states, DC and Puerto Rico is location_not_understood; any parameter but ${FIRM_PARAMS.join(' and ')} is unknown_parameter.`,
              fixedProblem('unknown_parameter', 'Unknown parameter "radius". Accepted parameters: lat, lng.', {
                parameter: 'radius',
                accepted: [...FIRM_PARAMS],
              }),
            ),
            '404': problem('Unknown or malformed listing_id (code not_found).', notFound),
            ...errors,
          },
        },
      },
      '/v1/coverage': {
        get: {
          operationId: 'getCoverage',
          tags: ['directory'],
          summary: "The measured metros and this week's measurement",
          description:
            'The published version, the measured week, and per metro its centre, firm and office counts and the grid sampling behind ' +
            'map_visibility. Use it to explain coverage, not to pick another metro for a person whose location is not covered.',
          responses: {
            '200': {
              description: 'Coverage of the served week.',
              headers: z.object({ ...jsonHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'application/json': { schema: CoverageResponse, example: E.coverage } },
            },
            '304': {
              description: 'Not modified (If-None-Match matched the ETag).',
              headers: z.object({ ...rateHeaders, ETag: etag }),
            },
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
            'For auditors: listings added, removed and changed (old and new values) since the version live before this one, each ' +
            'with its reason (the weekly data, a correction, a standing removal or its lifting; never who asked). `previous` is null ' +
            'for the first version of a site.',
          responses: {
            '200': {
              description: 'Changes of the served version.',
              headers: z.object({ ...jsonHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'application/json': { schema: ChangesDoc, example: E.changes } },
            },
            '304': {
              description: 'Not modified (If-None-Match matched the ETag).',
              headers: z.object({ ...rateHeaders, ETag: etag }),
            },
            ...errors,
          },
        },
      },
      '/r/{listing_id}': {
        get: {
          operationId: 'redirectToFirmWebsite',
          tags: ['directory'],
          summary: "Redirect to the firm's own website",
          description: `302 to the firm's site in the directory with utm_source=${SERVICE_NAME} (an existing utm_source is replaced, other parameters kept). Never redirects outside the directory.`,
          requestParams: { path: listingIdParam },
          responses: {
            '302': {
              description: "Redirect to the firm's website.",
              headers: z.object({ ...rateHeaders, Location: location }),
            },
            '404': problem('Unknown listing_id, or the listing has no website (code not_found).', notFound),
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
              content: {
                'application/json': {
                  schema: z.record(z.string(), z.unknown()),
                  example: {
                    openapi: '3.1.0',
                    info: { title: `${SERVICE_NAME} API`, version: API_VERSION },
                    paths: {},
                  },
                },
              },
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
              content: { 'text/html': { schema: z.string(), example: htmlExample } },
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
          description:
            "A short HTML page saying what a problem code means and what to do; every problem's `type` links here.",
          requestParams: { path: problemCode },
          responses: {
            '200': {
              description: 'The page.',
              headers: z.object({ ...rateHeaders, ETag: etag, 'Cache-Control': cacheControl }),
              content: { 'text/html': { schema: z.string(), example: htmlExample } },
            },
            '404': problem(
              'No problem type with this name (code not_found).',
              fixedProblem('not_found', 'There is no problem type with this name. See /openapi.json for the codes.'),
            ),
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
            'Tools find_injury_attorneys, get_firm and get_coverage answer compactly for a model (text and structuredContent); ' +
            'format "json" gives the REST bodies. No session, no key. A bad argument is an isError result; an unknown tool or ' +
            'method a JSON-RPC error. Only tool calls spend the rate limit.',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: jsonRpcRequest,
                example: {
                  jsonrpc: '2.0',
                  id: 1,
                  method: 'tools/call',
                  params: {
                    name: 'find_injury_attorneys',
                    arguments: { location: E.parameters.location, limit: 2, format: 'json' },
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'JSON-RPC response.',
              headers: z.object(jsonHeaders),
              content: {
                'application/json': {
                  schema: jsonRpcResponse,
                  example: {
                    jsonrpc: '2.0',
                    id: 1,
                    result: { content: [{ type: 'text', text: '…' }], structuredContent: E.attorneys.not_covered },
                  },
                },
              },
            },
            '202': { description: 'Accepted (the request was a notification).', headers: z.object(rateHeaders) },
            '400': problem(
              'The body is not a JSON-RPC request.',
              fixedProblem('bad_request', 'The body is not a JSON-RPC 2.0 request.'),
            ),
            '403': problem(
              'The request carries a foreign Origin (code origin_not_allowed). GET and DELETE answer 405.',
              fixedProblem(
                'origin_not_allowed',
                'Requests from the browser origin "https://elsewhere.example" are not allowed on /mcp. MCP clients that are not web pages send no Origin header.',
              ),
            ),
            '413': problem(
              'The request body is too large (code payload_too_large).',
              fixedProblem('payload_too_large', 'The request body is larger than 65536 bytes.'),
            ),
            ...errors,
          },
        },
      },
    },
  });
  const components =
    doc.components === undefined
      ? undefined
      : Object.fromEntries(
          Object.keys(doc.components)
            .sort()
            .map((k) => [k, sortKeys((doc.components as Record<string, Record<string, unknown>>)[k])]),
        );
  const sorted = withParameterExamples(
    {
      ...doc,
      paths: sortKeys(doc.paths as Record<string, unknown>),
      ...(components ? { components } : {}),
    },
    E,
  );
  return servedOpenApi(withoutSafeIntegerBounds(sorted) as Record<string, unknown>, {
    publicBaseUrl: DEFAULT_PUBLIC_BASE_URL,
    correctionsEmail: null,
  });
}
