/**
 * POST /mcp: MCP over Streamable HTTP, stateless, JSON responses (docs/MCP.md). The 2026-07-28 revision goes
 * through the SDK's createMcpHandler; 2025-era traffic (initialize handshake) through a per-request stateless
 * transport in JSON mode. Both build a fresh McpServer per request (about 40 us of CPU) from the same tools over the
 * same Service: the SDK refuses an instance still serving another request and keeps per-exchange state on it (the
 * negotiated revision, the client's identity), so one instance cannot serve concurrent requests. The tools' schemas
 * are made once per process (tools.ts).
 */
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import { ApiError } from '../contract/errors.ts';
import { MAX_BODY_BYTES } from '../edge/limits.ts';
import { errorResponse } from '../http/problem.ts';
import type { Service } from '../answer/service.ts';
import type { RequestInfo } from '../edge/edge-types.ts';
import { TOOL_NAMES, buildMcpServer } from './tools.ts';
import type { ToolCallRecord, ToolScope } from './tools.ts';
import type { TextData } from './tool-texts.ts';
import { protoArgumentAnswer } from './proto-argument.ts';
import { guardMessages } from './message-guard.ts';
import { readJsonBody } from './cost.ts';
import { NO_SEARCH_FIELDS } from '../http/request-log.ts';

/** Options of createMcpRoute. */
export interface McpRouteOptions {
  /** Absolute base URL for `website` links, without trailing slash; its origin is the one browser Origin allowed by default. */
  publicBaseUrl: string;
  /** Further browser origins allowed to call /mcp, e.g. "https://assistant.example". A present Origin not listed gets 403. */
  allowedOrigins?: string[];
  /** Called once per tools/call of a known tool, after the result is known, with the request it came in on. */
  onToolCall?: (call: ToolCallRecord, request: Request, info: RequestInfo) => void;
  /** Out-of-band SDK errors (reporting only; the caller still gets a JSON-RPC answer without internals). */
  onError?: (error: Error) => void;
}

/** Tool arguments are tiny; anything larger is refused before parsing (the one body limit of shim/edge/limits.ts). */
export { MAX_BODY_BYTES };

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** The problem answer of /mcp, its `type` absolute under the request's base. */
function problem(error: ApiError, publicBaseUrl: string, headers: Record<string, string> = {}): Response {
  return errorResponse(error, '/mcp', { 'cache-control': 'no-store', ...headers }, publicBaseUrl);
}

function forbiddenOrigin(origin: string, publicBaseUrl: string): Response {
  return problem(
    new ApiError(
      'origin_not_allowed',
      `Requests from the browser origin ${JSON.stringify(origin.slice(0, 200))} are not allowed on /mcp. MCP clients that are not web pages send no Origin header.`,
    ),
    publicBaseUrl,
  );
}

function rpcError(status: number, code: number, message: string, id: unknown = null): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), {
    status,
    headers: JSON_HEADERS,
  });
}

function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** The id and tool name of a single tools/call request, when the body is one. */
function toolCallOf(body: unknown): { id: unknown; name: unknown } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const msg = body as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  if (msg.method !== 'tools/call' || (typeof msg.id !== 'string' && typeof msg.id !== 'number')) return null;
  return { id: msg.id, name: typeof msg.params === 'object' && msg.params !== null ? msg.params.name : undefined };
}

/** The first id two requests of a batch share (their answers could not be told apart), if any. */
function duplicateId(body: unknown): string | number | undefined {
  if (!Array.isArray(body)) return undefined;
  const seen = new Set<unknown>();
  for (const m of body as unknown[]) {
    if (typeof m !== 'object' || m === null || !('method' in m) || !('id' in m)) continue;
    const id = (m as { id: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}

function withNoStore(response: Response): Response {
  // The SDK's answers are built here, so their headers can be set in place; a copy only if they are immutable.
  try {
    response.headers.set('cache-control', 'no-store');
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set('cache-control', 'no-store');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/** Whether an Accept header already takes both forms the 2025 transport asks for (SDK clients send both). */
function acceptsBoth(accept: string | null): boolean {
  return accept !== null && accept.includes('application/json') && accept.includes('text/event-stream');
}

/** The /mcp route: a web-standard handler the HTTP app mounts after its own rate limiting. */
export function createMcpRoute(
  service: Service,
  opts: McpRouteOptions,
): (request: Request, info: RequestInfo) => Promise<Response> {
  const allowed = new Set((opts.allowedOrigins ?? []).map(originOf).filter((o): o is string => o !== null));
  const configured = opts.publicBaseUrl.replace(/\/+$/, '');
  const ctx = { publicBaseUrl: configured };
  /** The base of a request: the host it came to (RequestInfo.publicBaseUrl) or the configured one. */
  const ctxOf = (info: RequestInfo): { publicBaseUrl: string } =>
    info.publicBaseUrl === undefined || info.publicBaseUrl === configured ? ctx : { publicBaseUrl: info.publicBaseUrl };
  const reportError = (error: Error): void => {
    try {
      opts.onError?.(error);
    } catch {
      // Reporting must never change the answer.
    }
  };
  // The instructions and descriptions name the served dataset (synthetic or not, how many metros): read per request
  // from the version's meta.json, which the reader holds; unreadable, they name neither and the tool calls say why.
  const dataOf = async (): Promise<TextData> => {
    try {
      const d = await service.dataset();
      return { synthetic: d.synthetic, metros: d.metros };
    } catch {
      return null;
    }
  };
  const scopeFor = (request: Request, info: RequestInfo, data: TextData): ToolScope => ({
    ctx: ctxOf(info),
    data,
    ...(opts.onToolCall ? { onToolCall: (call: ToolCallRecord) => opts.onToolCall?.(call, request, info) } : {}),
  });

  // The 2026-07-28 leg: a handler per request whose factory closes over that request's scope, as the 2025 leg builds
  // its server from it (about 10 us of CPU, against a side table keyed on the Request to find the scope again).
  const modernFor = (scope: ToolScope) =>
    createMcpHandler(() => buildMcpServer(service, scope), {
      legacy: 'reject',
      onerror: reportError,
      maxRequestBodySize: MAX_BODY_BYTES,
    });

  async function serveLegacy(request: Request, body: unknown, scope: ToolScope): Promise<Response> {
    // createMcpHandler's own legacy fallback answers over SSE; JSON mode needs our own stateless transport.
    const server = buildMcpServer(service, scope);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    transport.onerror = reportError;
    await server.connect(transport);
    // Answers are always one JSON body, so a client that accepts only application/json (or sends no Accept) is
    // served like the 2026-07-28 leg serves it, instead of the transport's 406.
    let forwarded = request;
    if (!acceptsBoth(request.headers.get('accept'))) {
      const headers = new Headers(request.headers);
      headers.set('accept', 'application/json, text/event-stream');
      forwarded = new Request(request.url, { method: 'POST', headers, signal: request.signal });
    }
    try {
      return await transport.handleRequest(forwarded, { parsedBody: body });
    } finally {
      await server.close().catch(() => undefined);
    }
  }

  return async (request, info) => {
    const base = ctxOf(info).publicBaseUrl;
    if (request.method !== 'POST') {
      // The SDK would open an SSE stream on GET that a buffered Lambda never closes; stateless DELETE has no session.
      return problem(
        new ApiError(
          'method_not_allowed',
          `${request.method} is not supported on /mcp: send MCP JSON-RPC messages with POST.`,
        ),
        base,
        { allow: 'POST' },
      );
    }
    // The service's own origin (the host of this request) may always call /mcp from a browser.
    const origin = request.headers.get('origin');
    if (origin !== null && originOf(origin) !== originOf(base) && !allowed.has(originOf(origin) ?? ''))
      return forbiddenOrigin(origin, base);
    if (!isJsonContentType(request.headers.get('content-type'))) {
      return rpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }

    // Read and parsed once: by the app's charge (info.body) when mounted there, else here.
    const read = info.body ?? readJsonBody(new Uint8Array(await request.arrayBuffer()));
    if (read.kind === 'too_large') return rpcError(413, -32000, `Request body larger than ${MAX_BODY_BYTES} bytes`);
    if (read.kind === 'not_json') return rpcError(400, -32700, 'Parse error: the request body is not valid JSON');
    let body = read.value;

    const duplicate = duplicateId(body);
    if (duplicate !== undefined) {
      return rpcError(
        400,
        -32600,
        `Invalid Request: every request in a batch needs its own id; id ${JSON.stringify(duplicate)} is used more than once. Nothing in the batch was run.`,
      );
    }

    // Caller mistakes the SDK would answer with a schema dump, and tool arguments too deep or too large for it to read.
    const checked = guardMessages(body);
    if (!checked.ok) return rpcError(200, checked.code, checked.message, checked.id);
    body = checked.body;

    const call = toolCallOf(body);
    if (call !== null && !(TOOL_NAMES as readonly unknown[]).includes(call.name)) {
      const tools = TOOL_NAMES.join(', ');
      const message =
        typeof call.name === 'string'
          ? `Unknown tool: ${JSON.stringify(call.name.slice(0, 100))}. Available tools: ${tools}.`
          : `Invalid params: tools/call needs params.name, the name of a tool as a string: one of ${tools}.`;
      return rpcError(200, -32602, message, call.id);
    }

    const proto = protoArgumentAnswer(body);
    if (proto !== null) {
      // The search's own parser refused the call: it ran as a tool call does, so it is logged and spends one.
      const args = (body as { params: { arguments: unknown } }).params.arguments;
      try {
        opts.onToolCall?.(
          {
            tool: 'find_injury_attorneys',
            args,
            ...NO_SEARCH_FIELDS,
            status: 400,
          },
          request,
          info,
        );
      } catch {
        // Reporting must never change the answer.
      }
      return proto;
    }

    const scope = scopeFor(request, info, await dataOf());
    try {
      if (await isLegacyRequest(request, body, { maxRequestBodySize: MAX_BODY_BYTES })) {
        return withNoStore(await serveLegacy(request, body, scope));
      }
      return withNoStore(await modernFor(scope).fetch(request, { parsedBody: body }));
    } catch (error) {
      reportError(error instanceof Error ? error : new Error(String(error)));
      return rpcError(500, -32603, 'Internal error');
    }
  };
}
