/** The three MCP tools: names, descriptions for the calling agent, schemas, and the call into the shared Service. */
import { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { API_VERSION, LIMIT, SERVICE_NAME } from '../core/constants.ts';
import { ApiError } from '../core/errors.ts';
import { locationAsSent } from '../core/params.ts';
import { AttorneysQuery, FirmQuery } from '../core/query-schema.ts';
import { AttorneysResponse, CoverageResponse, FirmResponse, type AttorneysResponseT } from '../core/schemas.ts';
import type { CallContext, Service } from '../core/service.ts';
import { problemOf } from '../http/problem.ts';
import { advertiseOnly, outputSchemaOf } from './json-schema.ts';

/** Tool names, in the order tools/list shows them. */
export const TOOL_NAMES = ['find_injury_attorneys', 'get_firm', 'get_coverage'] as const;
/** One of TOOL_NAMES. */
export type ToolName = (typeof TOOL_NAMES)[number];

/** One finished tools/call, for the request log (same fields as a REST log line's request part). */
export interface ToolCallRecord {
  tool: ToolName;
  args: unknown;
  query_id: string | null;
  location: string | null;
  src: string | null;
  covered: boolean | null;
  result_count: number | null;
  /** The HTTP status the same REST call would have answered. */
  status: number;
}

const ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Server-level instructions (sent in initialize / server/discover): the caller rules in one paragraph. */
export const INSTRUCTIONS =
  'A read-only directory of personal injury law offices in 27 measured US metros, ordered by distance only. ' +
  'Search with the location of the person who needs a lawyer (their own ZIP, "City, ST" or coordinates). ' +
  'When covered is false there is no data for that place: say so, and do not substitute another metro or city. ' +
  'Show several firms, not one, and keep the disclosure text with them. Give each website link exactly as returned. ' +
  'A listing is not a recommendation, endorsement or referral. ' +
  'Search only for a person\'s actual need: copying the directory in bulk (sweeping many locations, storing or republishing the listings) is against the terms.';

const FIND_DESCRIPTION = [
  'Find personal injury law firms with an office near a US location, nearest first (one entry per firm, shown by its nearest office within the radius).',
  'Use the location of the person who needs the lawyer: their own ZIP, "City, ST" or coordinates. Never invent one, and never use a different place than the person gave.',
  'If covered is false, the location is outside the 27 measured metros and there is no data for it: tell the person so. Do not search another metro or a nearby big city instead, and do not present results from anywhere else as theirs.',
  `When there are results, show the person several firms (not only the first; up to ${LIMIT.max} can be requested with limit), with distance_miles, address and phone, and keep the disclosure text with them.`,
  'Give each website link exactly as returned (a link on this service that redirects to the firm\'s own site); do not rewrite it or replace it with website_domain.',
  'Order is by straight-line distance only: sponsored and profile_type never change it. A listing is not a recommendation, endorsement or referral, and map_visibility / brand_index measure how often an office shows up in web-map searches, not lawyer quality or case results.',
  'Use get_firm with a listing_id for a firm\'s other offices; get_coverage lists the measured metros.',
  'Search only to answer a person\'s request: do not sweep locations or radii to copy the directory in bulk, and do not store or republish the listings; bulk copying is against the terms of use.',
].join('\n');

const FIRM_DESCRIPTION = [
  'One listed law office by listing_id, exactly as returned by find_injury_attorneys: the firm (name, website, profile type, brand_index), this office (address, phone, hours, map_visibility) and the firm\'s other offices.',
  'Do not guess or construct listing ids: an unknown id is an error; search again instead.',
  'Give the website link exactly as returned and keep the disclosure with what you show. A listing is not a recommendation.',
].join('\n');

const COVERAGE_DESCRIPTION = [
  'The metros this directory covers (27 measured US metros), with firm and office counts per metro and the week of the data.',
  'Use it to explain coverage, e.g. after a search returned covered: false. It is not a way to pick another metro to search on the person\'s behalf: results are only meaningful for the person\'s own location.',
].join('\n');

function ok(body: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as Record<string, unknown> };
}

/** The tool result and REST status for a failed Service call: the same detail the REST problem gives, never a stack trace. */
function failure(error: unknown): { result: CallToolResult; status: number } {
  const { problem } = problemOf(error, 'MCP tool call');
  return { result: { content: [{ type: 'text', text: problem.detail }], isError: true }, status: problem.status };
}

/** Per-request inputs of the tool handlers. */
export interface ToolScope {
  ctx: CallContext;
  onToolCall?: (call: ToolCallRecord) => void;
}

/** A fresh McpServer with the three tools, for one HTTP request (a stateless transport cannot be reused). */
export function buildMcpServer(service: Service, scope: ToolScope): McpServer {
  const server = new McpServer(
    { name: SERVICE_NAME, title: 'Injury Attorney Directory', version: API_VERSION },
    { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false } } },
  );

  const run = async (
    tool: ToolName,
    args: Record<string, unknown>,
    call: () => Promise<object>,
    describe: (body: object | null) => Omit<ToolCallRecord, 'tool' | 'args' | 'status'>,
  ): Promise<CallToolResult> => {
    let result: CallToolResult;
    let status = 200;
    let body: object | null = null;
    try {
      body = await call();
      result = ok(body);
    } catch (error) {
      ({ result, status } = failure(error));
    }
    try {
      scope.onToolCall?.({ tool, args, ...describe(body), status });
    } catch {
      // Logging must never turn an answer into an error (the SDK would send the exception's message as the result).
    }
    return result;
  };

  server.registerTool(
    'find_injury_attorneys',
    {
      title: 'Find injury attorneys near a location',
      description: FIND_DESCRIPTION,
      inputSchema: advertiseOnly(AttorneysQuery),
      outputSchema: outputSchemaOf(AttorneysResponse),
      annotations: ANNOTATIONS,
    },
    (args) =>
      run('find_injury_attorneys', args, () => service.findAttorneys(args, scope.ctx), (body) => {
        const found = body as AttorneysResponseT | null;
        return {
          query_id: found?.query_id ?? null,
          location: locationAsSent(args),
          src: typeof args.src === 'string' ? args.src.slice(0, 100) : null,
          covered: found?.covered ?? null,
          result_count: found?.results.length ?? null,
        };
      }),
  );

  server.registerTool(
    'get_firm',
    {
      title: 'Get one listed law office and its firm',
      description: FIRM_DESCRIPTION,
      inputSchema: advertiseOnly(FirmQuery),
      outputSchema: outputSchemaOf(FirmResponse),
      annotations: ANNOTATIONS,
    },
    (args) =>
      run(
        'get_firm',
        args,
        () => {
          // REST takes the id from the path, where it is always present and a string.
          const id = args.listing_id;
          if (typeof id !== 'string' || id === '') {
            throw new ApiError('invalid_parameter', 'listing_id is required: send it exactly as returned by find_injury_attorneys.', { parameter: 'listing_id' });
          }
          return service.getFirm(id, scope.ctx);
        },
        () => ({ query_id: null, location: null, src: null, covered: null, result_count: null }),
      ),
  );

  server.registerTool(
    'get_coverage',
    {
      title: 'List the covered metros',
      description: COVERAGE_DESCRIPTION,
      inputSchema: advertiseOnly(z.object({})),
      outputSchema: outputSchemaOf(CoverageResponse),
      annotations: ANNOTATIONS,
    },
    (args) =>
      run(
        'get_coverage',
        args,
        () => service.getCoverage(scope.ctx),
        () => ({ query_id: null, location: null, src: null, covered: null, result_count: null }),
      ),
  );

  return server;
}
