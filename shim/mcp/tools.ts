/** The three MCP tools: names, descriptions for the calling agent, schemas, and the call into the shared Service. */
import { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { API_VERSION, SERVICE_NAME } from '../core/constants.ts';
import { ApiError } from '../core/errors.ts';
import { parseSearch } from '../core/search-request.ts';
import { AttorneysQuery, FirmQuery } from '../core/query-schema.ts';
import { AttorneysResponse, CoverageResponse, FirmResponse, type AttorneysResponseT } from '../core/schemas.ts';
import type { CallContext, Service } from '../core/service.ts';
import { zip3Of } from '../http/request-log.ts';
import { problemOf } from '../http/problem.ts';
import { coverageText, firmText, searchText } from './answer-text.ts';
import { advertiseOnly, outputSchemaOf } from './json-schema.ts';
import { coverageDescription, findDescription, firmDescription, instructions, type TextData } from './tool-texts.ts';

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
  /** Resolved metro and ZIP3 of a search, for research counts. */
  metro: string | null;
  zip3: string | null;
  /** The HTTP status the same REST call would have answered. */
  status: number;
}

const ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Set on MCP tool inputs only: the text block as a compact summary (default) or as the full JSON answer. */
const Format = z
  .enum(['text', 'json'])
  .optional()
  .describe(
    '"text" (default): the text block is a compact summary for a model; "json": the full JSON answer as text, for clients that read only text. structuredContent is the full answer either way.',
  );

/** find_injury_attorneys arguments: the REST parameters with their bounds, plus format. */
const FindInput = AttorneysQuery.extend({ format: Format });

/** get_firm arguments: the listing, an optional point of the person (REST lat/lng bounds), and format. */
const FirmInput = FirmQuery.extend({
  lat: AttorneysQuery.shape.lat.describe(
    'Latitude of the person (e.g. the search location); with lng, the text lists other offices nearest to it first.',
  ),
  lng: AttorneysQuery.shape.lng.describe('Longitude of the person; requires lat.'),
  format: Format,
});

/** The format argument, checked like a REST parameter; undefined means text. */
function formatOf(args: Record<string, unknown>): 'text' | 'json' {
  const f = args.format;
  if (f === undefined || f === 'text' || f === 'json') return f ?? 'text';
  throw new ApiError(
    'invalid_parameter',
    `format must be "text" or "json"; got ${JSON.stringify(String(f).slice(0, 40))}.`,
    { parameter: 'format' },
  );
}

/** get_firm's optional point: both lat and lng within the REST bounds, or neither. */
function pointOf(args: Record<string, unknown>): { lat: number; lng: number } | null {
  const { lat, lng } = args;
  if (lat === undefined && lng === undefined) return null;
  const ok = (v: unknown, max: number): v is number =>
    typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= max;
  if (!ok(lat, 90) || !ok(lng, 180)) {
    throw new ApiError(
      'invalid_parameter',
      'lat and lng go together: latitude -90 to 90 and longitude -180 to 180 in decimal degrees, as numbers.',
      {
        parameter: lat === undefined || !ok(lat, 90) ? 'lat' : 'lng',
      },
    );
  }
  return { lat, lng };
}

function withoutFormat(args: Record<string, unknown>): Record<string, unknown> {
  const { format: _format, ...rest } = args;
  return rest;
}

/** A successful result: the text written for the model (or the JSON on request) and the full body as structuredContent. */
function ok(body: object, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: body as Record<string, unknown> };
}

/**
 * The tool result and REST status for a failed Service call: the REST problem's detail as the first text block, a
 * second block `problem: {"code",...}` with its code and extension members, and the whole problem in `_meta.problem`.
 */
function failure(error: unknown, publicBaseUrl: string): { result: CallToolResult; status: number } {
  const { problem } = problemOf(error, 'MCP tool call', publicBaseUrl);
  const { type: _type, title: _title, detail: _detail, ...facts } = problem;
  return {
    result: {
      content: [
        { type: 'text', text: problem.detail },
        { type: 'text', text: `problem: ${JSON.stringify(facts)}` },
      ],
      isError: true,
      _meta: { problem },
    },
    status: problem.status,
  };
}

/** Per-request inputs of the tool handlers. */
export interface ToolScope {
  ctx: CallContext;
  /** The served dataset, named in the instructions and descriptions; null or absent when it could not be read. */
  data?: TextData;
  onToolCall?: (call: ToolCallRecord) => void;
}

/** A fresh McpServer with the three tools, for one HTTP request (a stateless transport cannot be reused). */
export function buildMcpServer(service: Service, scope: ToolScope): McpServer {
  const data = scope.data ?? null;
  const server = new McpServer(
    { name: SERVICE_NAME, title: 'Injury Attorney Directory', version: API_VERSION },
    { instructions: instructions(data), capabilities: { tools: { listChanged: false } } },
  );

  const run = async (
    tool: ToolName,
    args: Record<string, unknown>,
    call: () => Promise<{ body: object; text: string }>,
    describe: (body: object | null) => Omit<ToolCallRecord, 'tool' | 'args' | 'status'>,
  ): Promise<CallToolResult> => {
    let result: CallToolResult;
    let status = 200;
    let body: object | null = null;
    try {
      const answer = await call();
      body = answer.body;
      result = ok(body, answer.text);
    } catch (error) {
      ({ result, status } = failure(error, scope.ctx.publicBaseUrl));
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
      description: findDescription(data),
      inputSchema: advertiseOnly(FindInput),
      outputSchema: outputSchemaOf(AttorneysResponse),
      annotations: ANNOTATIONS,
    },
    (args) => {
      // Parsed once: the Service answers this value and the log line reads the location as sent off it.
      const search = parseSearch(withoutFormat(args));
      return run(
        'find_injury_attorneys',
        args,
        async () => {
          const format = formatOf(args);
          const body = await service.findAttorneys(search, scope.ctx);
          return { body, text: format === 'json' ? JSON.stringify(body) : searchText(body) };
        },
        (body) => {
          const found = body as AttorneysResponseT | null;
          return {
            query_id: found?.query_id ?? null,
            location: search.sent.location,
            src: search.sent.src?.slice(0, 100) ?? null,
            covered: found?.covered ?? null,
            result_count: found?.results.length ?? null,
            metro: found?.location.metro ?? null,
            zip3: zip3Of(found?.location.zip),
          };
        },
      );
    },
  );

  server.registerTool(
    'get_firm',
    {
      title: 'Get one listed law office and its firm',
      description: firmDescription(data),
      inputSchema: advertiseOnly(FirmInput),
      outputSchema: outputSchemaOf(FirmResponse),
      annotations: ANNOTATIONS,
    },
    (args) =>
      run(
        'get_firm',
        args,
        async () => {
          // REST takes the id from the path, where it is always present and a string.
          const id = args.listing_id;
          if (typeof id !== 'string' || id === '') {
            throw new ApiError(
              'invalid_parameter',
              'listing_id is required: send it exactly as returned by find_injury_attorneys.',
              { parameter: 'listing_id' },
            );
          }
          const format = formatOf(args);
          const near = pointOf(args);
          const body = await service.getFirm(id, scope.ctx);
          return { body, text: format === 'json' ? JSON.stringify(body) : firmText(body, near) };
        },
        () => ({
          query_id: null,
          location: null,
          src: null,
          covered: null,
          result_count: null,
          metro: null,
          zip3: null,
        }),
      ),
  );

  server.registerTool(
    'get_coverage',
    {
      title: 'List the covered metros',
      description: coverageDescription(data),
      inputSchema: advertiseOnly(z.object({ format: Format })),
      outputSchema: outputSchemaOf(CoverageResponse),
      annotations: ANNOTATIONS,
    },
    (args) =>
      run(
        'get_coverage',
        args,
        async () => {
          const format = formatOf(args);
          const body = await service.getCoverage(scope.ctx);
          return { body, text: format === 'json' ? JSON.stringify(body) : coverageText(body) };
        },
        () => ({
          query_id: null,
          location: null,
          src: null,
          covered: null,
          result_count: null,
          metro: null,
          zip3: null,
        }),
      ),
  );

  return server;
}
