/**
 * The local HTTP server, the Node adapter: node:http's request read into the app's plain request value once (no web
 * Request or Response), the app's plain answer written back as it is, and the composition over the site folder or
 * bucket. The adapter's own rules (Host, body limit, Expect, CONNECT, parser errors) are node-guards.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './edge/env.ts';
import { ApiError, toApiError } from './contract/errors.ts';
import type { App } from './edge/edge-types.ts';
import { clientAddress, rateLimitKey } from './http/client-address.ts';
import { publicCorsHeaders } from './http/cors.ts';
import { peekHeaders } from './http/admission.ts';
import { splitTarget } from './http/target.ts';
import type { AnswerCache } from './http/answer-cache.ts';
import type { JsonLinesSink } from './http/jsonl-sink.ts';
import type { SiteSourceStats } from './search/site-reader.ts';
import { createLocalApp, type ServerOverrides } from './local-app.ts';
import { admitRequest, installGuards, sendProblem, type EdgeHeaders, type GuardOptions } from './node-guards.ts';
import { runWithDeadline } from './store/request-deadline.ts';
import { limitConnections, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS } from './connection-limit.ts';

import {
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_GRACE_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_BODY_BYTES,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_INTERVAL_MS,
} from './edge/limits.ts';

export {
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_GRACE_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_BODY_BYTES,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_INTERVAL_MS,
};

/** Options of toNodeListener. */
export interface NodeListenerOptions extends GuardOptions {
  /** Trusted proxies in front of the server: the client address is the X-Forwarded-For entry that many from the right (0: the socket peer). */
  proxyHops: number;
}

/** A node:http request listener that runs `app`: the request read once into its plain value, the answer written as it is. */
export function toNodeListener(
  app: App,
  opts: NodeListenerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const edgeHeaders = opts.edgeHeaders ?? (() => ({}));
  const badTarget = new ApiError('bad_request', 'The request target must be a path such as /v1/attorneys.');
  const answer = async (req: IncomingMessage, res: ServerResponse, address: string): Promise<void> => {
    const admitted = await admitRequest(req, res, address, opts);
    if (admitted === null) return;
    const target = splitTarget(req.url ?? '/');
    if (target === null) {
      sendProblem(res, badTarget, edgeHeaders(address), false, opts.publicBaseUrl);
      return;
    }
    const { status, headers, body } = await app({
      method: req.method ?? 'GET',
      path: target.path,
      query: target.query,
      headers: req.headers,
      body: admitted.body,
      clientAddress: address,
    });
    res.writeHead(status, headers);
    if (!res.destroyed) res.end(body ?? undefined);
  };
  return (req, res) => {
    const forwardedFor = req.headers['x-forwarded-for'];
    const address = clientAddress(
      req.socket.remoteAddress,
      Array.isArray(forwardedFor) ? forwardedFor.join(', ') : (forwardedFor ?? null),
      opts.proxyHops,
    );
    answer(req, res, address).catch((err: unknown) => {
      if (!res.headersSent) sendProblem(res, toApiError(err), edgeHeaders(address), false, opts.publicBaseUrl);
      else res.destroy();
    });
  };
}

/** A running local server. */
export interface RunningServer {
  /** Base URL of the bound socket, e.g. http://127.0.0.1:8787 */
  url: string;
  /** The base URL used in links (PUBLIC_BASE_URL or url). */
  publicBaseUrl: string;
  server: Server;
  /** The request log sink (flush it before reading the file). */
  log: JsonLinesSink;
  /** The answer cache (null when ANSWER_CACHE_MIB is 0). */
  answers: AnswerCache | null;
  /** Counters of the parsed-object cache (null when a service was injected). */
  siteStats: (() => SiteSourceStats) | null;
  /** Stop accepting, finish in-flight requests (up to graceMs), flush the log. */
  close(graceMs?: number): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolvePromise(server.address() as AddressInfo);
    });
  });
}

/** Build the app over the site folder and serve it on config.host:config.port. */
export async function startServer(config: Config, overrides: ServerOverrides = {}): Promise<RunningServer> {
  let listener: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  // Host is checked by the listener, so its absence gets a problem body like every other refusal.
  const server = createServer(
    { requireHostHeader: false, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    (req, res) => {
      // One deadline for all the store reads of this request (STORE_TIMEOUT_MS), counted from its arrival.
      if (listener !== null) runWithDeadline(config.storeTimeoutMs, () => listener?.(req, res));
      else sendProblem(res, new ApiError('service_unavailable', 'The server is starting; retry in a few seconds.'), {});
    },
  );
  server.headersTimeout = overrides.timeouts?.headersMs ?? HEADERS_TIMEOUT_MS;
  server.requestTimeout = overrides.timeouts?.requestMs ?? REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.keepAliveTimeoutBuffer = KEEP_ALIVE_GRACE_MS;
  limitConnections(
    server,
    {
      perAddress: config.proxyHops > 0 ? null : (overrides.connections?.perAddress ?? MAX_CONNECTIONS_PER_ADDRESS),
      total: overrides.connections?.total ?? MAX_CONNECTIONS,
    },
    config.publicBaseUrl ?? undefined,
  );

  const bound = await listen(server, config.port, config.host);
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const url = `http://${host}:${bound.port}`;
  const publicBaseUrl = config.publicBaseUrl ?? url;

  const { app, log, answers, source, limits } = createLocalApp(config, publicBaseUrl, overrides);
  const edgeHeaders: EdgeHeaders = (address) => ({
    ...publicCorsHeaders(),
    ...peekHeaders(limits, rateLimitKey(address)),
  });
  listener = toNodeListener(app, { proxyHops: config.proxyHops, edgeHeaders, publicBaseUrl });
  installGuards(server, { edgeHeaders, publicBaseUrl, maxBodyBytes: MAX_BODY_BYTES });

  return {
    url,
    publicBaseUrl,
    server,
    log,
    answers,
    siteStats: source === null ? null : () => source.stats(),
    async close(graceMs = 5000): Promise<void> {
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
      // The log's last writes get the same grace: a file system that no longer answers must not hold up the stop.
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([log.close(), new Promise<void>((done) => (waited = setTimeout(done, graceMs)))]);
      clearTimeout(waited);
    },
  };
}
