/** The three MCP tools: names, descriptions for the calling agent, schemas, and the call into the shared Service. */
import { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { API_VERSION, SERVICE_NAME } from '../contract/constants.ts';
import { ApiError } from '../contract/errors.ts';
import { parseSearch } from '../answer/search-request.ts';
import { describeValue } from '../answer/params.ts';
import { AttorneysQuery, FirmQuery } from '../contract/query-schema.ts';
import { parseFirmPoint } from '../answer/firm-params.ts';
import type { AttorneysResponseT } from '../contract/schemas.ts';
import type { CallContext, Service } from '../answer/service.ts';
import { NO_SEARCH_FIELDS, zip3Of } from '../http/request-log.ts';
import { problemOf } from '../http/problem.ts';
import { coverageText, firmText, searchText } from './answer-text.ts';
import { refusedArguments } from './message-guard.ts';
import { advertiseOnly, modelOutputSchema } from './json-schema.ts';
import { CompactCoverage, CompactFirm, CompactSearch, compactCoverage, compactFirm, compactSearch } from './compact.ts';
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
  idempotentHint: true,
  openWorldHint: false,
};

/** Set on MCP tool inputs only: the text block as a compact summary (default) or as the full JSON answer. */
const Format = z
  .enum(['text', 'json'])
  .optional()
  .describe('"text" (default): the compact answer; "json": the full REST answer.');

/** find_injury_attorneys arguments: the REST parameters with their bounds, plus format. */
const FindInput = AttorneysQuery.extend({ format: Format });

/** get_firm arguments: the listing, an optional point of the person (REST lat/lng bounds), and format. */
const FirmInput = FirmQuery.extend({
  lat: AttorneysQuery.shape.lat.describe("The person's latitude; with lng, other offices nearest to it first."),
  lng: AttorneysQuery.shape.lng.describe('Longitude of the person; requires lat.'),
  format: Format,
});

/** The tools' schemas, made once per process: their JSON Schema is written on first use and kept. */
const SCHEMAS = {
  find: {
    input: advertiseOnly(FindInput),
    output: modelOutputSchema(CompactSearch, 'GET /v1/attorneys'),
  },
  firm: {
    input: advertiseOnly(FirmInput),
    output: modelOutputSchema(CompactFirm, 'GET /v1/firms/{listing_id}'),
  },
  coverage: {
    input: advertiseOnly(z.object({ format: Format })),
    output: modelOutputSchema(CompactCoverage, 'GET /v1/coverage'),
  },
};

/** The format argument, checked like a REST parameter; undefined means text. */
function formatOf(args: Record<string, unknown>): 'text' | 'json' {
  const f = args.format;
  if (f === undefined || f === 'text' || f === 'json') return f ?? 'text';
  throw new ApiError('invalid_parameter', `format must be "text" or "json"; got ${describeValue(f)}.`, {
    parameter: 'format',
  });
}

/** get_firm's arguments, in the order its unknown_parameter answer names them. */
const FIRM_ARGS = ['listing_id', 'lat', 'lng', 'format'] as const;
/** get_coverage's arguments. */
const COVERAGE_ARGS = ['format'] as const;

/** Refuse an argument not in `accepted` as REST refuses an unknown parameter (400 unknown_parameter naming both). */
function onlyKnown(
  args: Record<string, unknown>,
  accepted: readonly string[],
  meant: ReadonlyMap<string, string> = new Map(),
): void {
  const unknown = Object.keys(args).find((name) => args[name] !== undefined && !accepted.includes(name));
  if (unknown === undefined) return;
  const hint = meant.get(unknown.toLowerCase().replace(/-/g, '_'));
  throw new ApiError(
    'unknown_parameter',
    `Unknown parameter ${JSON.stringify(unknown)}.${hint === undefined ? '' : ` Did you mean ${hint}?`} Accepted parameters: ${accepted.join(', ')}.`,
    { parameter: unknown, accepted: [...accepted] },
  );
}

/** Names models send for get_firm's id: refused as unknown and named, never as a missing listing_id. */
const FIRM_ID_NAMES: ReadonlyMap<string, string> = new Map(
  ['id', 'listingid', 'listing', 'firm_id', 'firmid', 'firm', 'office_id'].map((n) => [n, 'listing_id']),
);

function withoutFormat(args: Record<string, unknown>): Record<string, unknown> {
  const { format: _format, ...rest } = args;
  return rest;
}

/** A successful result: the text block and structuredContent, the compact form or (format "json") the REST body. */
function ok(structured: object, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

/** The answer of a tool in the requested format: the compact text and form, or the REST body as JSON and as itself. */
function answerIn<T extends object>(
  format: 'text' | 'json',
  body: T,
  text: (body: T) => string,
  compact: (body: T) => object,
): { body: T; text: string; structured: object } {
  return format === 'json'
    ? { body, text: JSON.stringify(body), structured: body }
    : { body, text: text(body), structured: compact(body) };
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

  // Arguments the route found too deep or too large: the tool error, with nothing read, logged or spent.
  const refused = (args: Record<string, unknown>): CallToolResult | null => {
    const error = refusedArguments(args);
    return error === null ? null : failure(error, scope.ctx.publicBaseUrl).result;
  };

  const run = async (
    tool: ToolName,
    args: Record<string, unknown>,
    call: () => Promise<{ body: object; text: string; structured: object }>,
    describe: (body: object | null) => Omit<ToolCallRecord, 'tool' | 'args' | 'status'>,
  ): Promise<CallToolResult> => {
    let result: CallToolResult;
    let status = 200;
    let body: object | null = null;
    try {
      const answer = await call();
      body = answer.body;
      result = ok(answer.structured, answer.text);
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
      inputSchema: SCHEMAS.find.input,
      outputSchema: SCHEMAS.find.output,
      annotations: ANNOTATIONS,
    },
    (args) => {
      const refusal = refused(args);
      if (refusal !== null) return refusal;
      // Parsed once: the Service answers this value and the log line reads the location as sent off it.
      const search = parseSearch(withoutFormat(args));
      return run(
        'find_injury_attorneys',
        args,
        async () => {
          const format = formatOf(args);
          return answerIn(format, await service.findAttorneys(search, scope.ctx), searchText, compactSearch);
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
      inputSchema: SCHEMAS.firm.input,
      outputSchema: SCHEMAS.firm.output,
      annotations: ANNOTATIONS,
    },
    (args) =>
      refused(args) ??
      run(
        'get_firm',
        args,
        async () => {
          onlyKnown(args, FIRM_ARGS, FIRM_ID_NAMES);
          // REST takes the id from the path, where it is always present and a string.
          const id = args.listing_id;
          if (typeof id !== 'string' || id === '') {
            throw new ApiError(
              'invalid_parameter',
              id === undefined || id === ''
                ? 'listing_id is required: send it exactly as returned by find_injury_attorneys.'
                : `listing_id must be a string, exactly as returned by find_injury_attorneys; got ${describeValue(id)}.`,
              { parameter: 'listing_id' },
            );
          }
          const near = parseFirmPoint(withoutFormat(args), FIRM_ARGS);
          const format = formatOf(args);
          // With a point, the REST body of /v1/firms/{id}?lat=&lng= (distances, nearest first).
          const body = await service.getFirm(id, scope.ctx, near);
          return answerIn(
            format,
            body,
            (b) => firmText(b, near),
            (b) => compactFirm(b, near),
          );
        },
        () => NO_SEARCH_FIELDS,
      ),
  );

  server.registerTool(
    'get_coverage',
    {
      title: 'List the covered metros',
      description: coverageDescription(data),
      inputSchema: SCHEMAS.coverage.input,
      outputSchema: SCHEMAS.coverage.output,
      annotations: ANNOTATIONS,
    },
    (args) =>
      refused(args) ??
      run(
        'get_coverage',
        args,
        async () => {
          onlyKnown(args, COVERAGE_ARGS);
          const format = formatOf(args);
          return answerIn(format, await service.getCoverage(scope.ctx), coverageText, compactCoverage);
        },
        () => NO_SEARCH_FIELDS,
      ),
  );

  return server;
}
