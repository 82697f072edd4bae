/** Wires the whole service (REST and MCP over one Service) for a platform adapter: the local server and the Lambda handler. */
import { createApp } from './app.ts';
import type { Service } from './core/service.ts';
import type { App, RequestLogSink, SaltProvider } from './edge-types.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import { recordCall } from './http/request-log.ts';
import { createMcpRoute } from './mcp/route.ts';

/** What a platform provides. */
export interface ComposeOptions {
  service: Service;
  publicBaseUrl: string;
  allowedOrigins: string[];
  /** The OpenAPI contact address (null: the default). */
  correctionsEmail?: string | null;
  rateLimiter: RateLimiter;
  log: RequestLogSink;
  salt: SaltProvider;
  /** Where MCP faults are reported (stderr locally, a structured line on Lambda). */
  onMcpError: (error: Error) => void;
}

/** The App with /mcp mounted; MCP tool calls are logged through the same sink as REST requests. */
export function composeApp(opts: ComposeOptions): App {
  const mcp = createMcpRoute(opts.service, {
    publicBaseUrl: opts.publicBaseUrl,
    allowedOrigins: opts.allowedOrigins,
    onToolCall: (call, request) =>
      recordCall(request, {
        endpoint: `/mcp ${call.tool}`,
        query_id: call.query_id,
        location: call.location,
        src: call.src,
        covered: call.covered,
        result_count: call.result_count,
        status: call.status,
      }),
    onError: opts.onMcpError,
  });
  return createApp({
    service: opts.service,
    config: { publicBaseUrl: opts.publicBaseUrl, allowedOrigins: opts.allowedOrigins, correctionsEmail: opts.correctionsEmail ?? null },
    rateLimiter: opts.rateLimiter,
    log: opts.log,
    salt: opts.salt,
    mcp,
  });
}
