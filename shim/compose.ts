/** Wires the whole service (REST and MCP over one Service) for a platform adapter: the local server and the Lambda handler. */
import { createApp } from './app.ts';
import type { Service } from './answer/service.ts';
import type { App, RequestLogSink, SaltProvider, WebApp } from './edge/edge-types.ts';
import type { AnswerCache } from './http/answer-cache.ts';
import type { RequestLimits } from './http/admission.ts';

/** What a platform provides. */
export interface ComposeOptions {
  service: Service;
  publicBaseUrl: string;
  allowedOrigins: string[];
  /** The OpenAPI contact address (null: the default). */
  correctionsEmail?: string | null;
  /** The answer quota and the ceiling on every request. */
  limits: RequestLimits;
  log: RequestLogSink;
  salt: SaltProvider;
  /** Where MCP faults are reported (stderr locally, a structured line on Lambda). */
  onMcpError: (error: Error) => void;
  /** Finished search answers (absent: none kept). */
  answers?: AnswerCache | null;
}

/**
 * The App with /mcp mounted; MCP tool calls are logged through the same sink as REST requests. The MCP route (and the
 * MCP SDK under it, a third of the Lambda bundle) is loaded on the first /mcp request, not at start-up, so a cold
 * start that answers a search does not pay for it.
 */
export function composeApp(opts: ComposeOptions): App {
  let route: Promise<WebApp> | null = null;
  const load = async (): Promise<WebApp> => {
    const { createMcpRoute } = await import('./mcp/route.ts');
    return createMcpRoute(opts.service, {
      publicBaseUrl: opts.publicBaseUrl,
      allowedOrigins: opts.allowedOrigins,
      onToolCall: (call, _request, info) =>
        info.recordCall?.({
          endpoint: `/mcp ${call.tool}`,
          query_id: call.query_id,
          location: call.location,
          src: call.src,
          covered: call.covered,
          result_count: call.result_count,
          metro: call.metro,
          zip3: call.zip3,
          status: call.status,
        }),
      onError: opts.onMcpError,
    });
  };
  const mcp: WebApp = async (request, info) => {
    // A failed load is not remembered: the next /mcp request tries again.
    route ??= load().catch((err: unknown) => {
      route = null;
      throw err;
    });
    return (await route)(request, info);
  };
  return createApp({
    service: opts.service,
    config: {
      publicBaseUrl: opts.publicBaseUrl,
      allowedOrigins: opts.allowedOrigins,
      correctionsEmail: opts.correctionsEmail ?? null,
    },
    limits: opts.limits,
    log: opts.log,
    salt: opts.salt,
    mcp,
    answers: opts.answers ?? null,
  });
}
