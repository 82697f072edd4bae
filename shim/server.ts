/** The local HTTP server: node:http <-> web-standard Request/Response, with body limit and timeouts, and its composition. */
import {
  createServer,
  maxHeaderSize,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { resolve } from 'node:path';
import { composeApp } from './compose.ts';
import type { Config } from './config.ts';
import { createService } from './core/service-impl.ts';
import type { Service } from './core/service.ts';
import { ApiError, toApiError } from './core/errors.ts';
import type { App } from './edge-types.ts';
import { clientAddress, normaliseAddress, rateLimitKey } from './http/client-address.ts';
import { compressPlain, compressResponse } from './http/compress.ts';
import { plainParts, plainResponse } from './http/plain-response.ts';
import { publicCorsHeaders } from './http/cors.ts';
import { JsonLinesSink } from './http/jsonl-sink.ts';
import { webMethod } from './http/method.ts';
import { renderProblem } from './http/problem.ts';
import { AnswerCache } from './http/answer-cache.ts';
import { createRequestLimits, peekHeaders, type RequestLimits } from './http/limits.ts';
import { perWindow } from './http/rate-limit.ts';
import { RequestLogger, type LogFields } from './http/request-log.ts';
import { eligible, remember, serveFromCache, type FastPathDeps, type PlainAnswer } from './node-fast-path.ts';
import { MemorySaltProvider } from './http/salt.ts';
import { createSiteSource, pointerEventText, type CachedSiteSource, type SiteSourceStats } from './core/site-reader.ts';
import { FolderStore } from './store/folder.ts';
import { S3Store } from './store/s3.ts';
import { withDeadline } from './store/deadline.ts';
import { runWithDeadline } from './store/request-deadline.ts';
import { logLine, mcpErrorLog } from './log-line.ts';
import {
  limitConnections,
  MAX_CONNECTIONS,
  MAX_CONNECTIONS_PER_ADDRESS,
  type ConnectionCaps,
} from './connection-limit.ts';
import { getRequestListener, type HttpBindings } from '@hono/node-server';

import {
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_GRACE_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_BODY_BYTES,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_INTERVAL_MS,
} from './limits.ts';

export {
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_GRACE_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_BODY_BYTES,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_INTERVAL_MS,
};

class BodyTooLarge extends Error {}

/** Headers every answer carries beyond its own (CORS, RateLimit), for the caller at `address`; counts nothing. */
export type EdgeHeaders = (address: string) => Record<string, string>;

/** The HTTP/1.1 bytes of a problem answer, for a socket the HTTP server no longer writes to (client errors). */
function problemBytes(error: ApiError, extra: Record<string, string>, publicBaseUrl?: string): string {
  const { status, headers, body } = renderProblem(error, 'client error', publicBaseUrl, extra);
  const lines = Object.entries({
    ...headers,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  }).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** What the HTTP parser refused, as the problem the caller gets. */
function clientErrorProblem(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'header_fields_too_large',
        `The request headers are larger than ${maxHeaderSize} bytes; send fewer or shorter headers.`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // node reports both limits with this one code.
      return new ApiError(
        'request_timeout',
        `The request was not received in time: the headers must arrive within ${HEADERS_TIMEOUT_MS / 1000} seconds and the whole request within ${REQUEST_TIMEOUT_MS / 1000} seconds.`,
      );
    case 'HPE_INVALID_METHOD':
      // The parser refused the request line itself (a lower-case or unknown method): a malformed request, the
      // caller's to fix, so 400 rather than 501 (a 5xx would blame the service) or 405 (which needs the path's Allow).
      return new ApiError(
        'bad_request',
        'The request method is not one this service knows; methods are upper case: GET, HEAD or OPTIONS (POST for /mcp).',
      );
    default:
      return new ApiError(
        'bad_request',
        'The request is not valid HTTP/1.1 (request line, Host or headers); nothing was processed.',
      );
  }
}

/**
 * Answer what node's HTTP parser refused (oversized headers, bad request line, unknown method, missing Host) with a
 * problem+json carrying the edge headers, where the socket still takes an answer.
 */
export function answerClientError(
  edgeHeaders: EdgeHeaders,
  publicBaseUrl?: string,
): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const address = normaliseAddress((socket as Partial<Socket>).remoteAddress ?? 'unknown');
    socket.end(problemBytes(clientErrorProblem(err.code), edgeHeaders(address), publicBaseUrl));
  };
}

/** A problem answer (renderProblem) as status, headers with its length, and body. */
function problemFor(
  error: ApiError,
  extra: Record<string, string>,
  publicBaseUrl?: string,
): { status: number; headers: Record<string, string>; body: string } {
  const { status, headers, body } = renderProblem(error, 'server', publicBaseUrl, extra);
  return { status, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, body };
}

/** Write a problem answer (renderProblem) on a node:http response. */
function sendProblem(
  res: ServerResponse,
  error: ApiError,
  extra: Record<string, string>,
  close = false,
  publicBaseUrl?: string,
): void {
  const { status, headers, body } = problemFor(error, extra, publicBaseUrl);
  res.writeHead(status, { ...headers, ...(close ? { connection: 'close' } : {}) });
  res.end(body);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.byteLength;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** A host for the Request URL: the Host header when it is a plain host[:port], else "localhost". */
function hostOf(req: IncomingMessage): string {
  const host = req.headers.host;
  return host !== undefined && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)
    ? host
    : 'localhost';
}

/** Options of toNodeListener. */
export interface NodeListenerOptions {
  /** Trusted proxies in front of the server: the client address is the X-Forwarded-For entry that many from the right (0: the socket peer). */
  proxyHops: number;
  /** CORS and RateLimit headers for answers the adapter gives itself (413, 400); none by default. */
  edgeHeaders?: EdgeHeaders;
  /** Base of the problem `type` pages of those answers (default: the placeholder base). */
  publicBaseUrl?: string;
  /** Request body limit in bytes (default MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /** The answer cache and what its fast path shares with the app; absent: every request runs the app. */
  fast?: FastPathDeps;
}

/** A plain lower-case host[:port] and an origin-form target that needs no normalising (node-server's own fast URL rule). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
const PLAIN_TARGET = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

/** Whether @hono/node-server's lightweight Request carries this request exactly as the Request built here would. */
function lightweightFits(req: IncomingMessage, target: string): boolean {
  const host = req.headers.host;
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    host !== undefined &&
    PLAIN_HOST.test(host) &&
    PLAIN_TARGET.test(target) &&
    !DOT_SEGMENT.test(target) &&
    !(req.socket as Partial<{ encrypted: boolean }>).encrypted
  );
}

/**
 * A node:http request listener that runs `app`. A thin wrapper in front of @hono/node-server's getRequestListener:
 * the answer-cache fast path must see the IncomingMessage before any Request exists, TRACE and CONNECT cannot be a
 * web Request (they travel in RequestInfo.method), and the body limit, the Host check and their problem answers
 * come before a Request is built. A GET or HEAD with a plain host and target then runs through getRequestListener,
 * whose Request reads the node request lazily and whose Response (global while it runs) is written to the socket from
 * its bytes and header record without an undici Request, Response or stream; every other request gets a Request
 * built here with its body read up to the limit.
 */
export function toNodeListener(
  app: App,
  opts: NodeListenerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const edgeHeaders = opts.edgeHeaders ?? (() => ({}));

  /** Run the app on `request`: a search answer read into bytes through the answer cache, else the answer to write. */
  const answerFor = async (
    request: Request,
    address: string,
    cacheable: ReturnType<typeof eligible>,
    info: { method?: string },
  ): Promise<Response | PlainAnswer> => {
    let answerLog: LogFields | undefined;
    const onSearchAnswer = (fields: LogFields): void => void (answerLog = fields);
    const answer = await app(request, {
      clientAddress: address,
      ...info,
      ...(cacheable !== null ? { onSearchAnswer, search: cacheable.search } : {}),
    });
    const acceptEncoding = request.headers.get('accept-encoding');
    if (cacheable !== null && opts.fast !== undefined) {
      const plain = await remember(opts.fast.cache, cacheable, answer, answerLog, acceptEncoding);
      if (plain !== null) return plain;
    }
    const parts = plainParts(answer);
    const kept = parts === undefined ? null : compressPlain(parts, acceptEncoding);
    return kept !== null ? plainResponse(kept) : compressResponse(answer, acceptEncoding);
  };

  const lightweight = getRequestListener(
    async (request, env): Promise<Response> => {
      const { incoming } = env as HttpBindings;
      const { address, cacheable } = pending.get(incoming) as Pending;
      try {
        const answer = await answerFor(request, address, cacheable, {});
        // Made while getRequestListener's Response is the global one: written from its bytes and header record.
        return answer instanceof Response
          ? answer
          : new Response(answer.body, { status: answer.status, headers: headerRecord(answer.headers) });
      } catch (err) {
        const { status, headers, body } = problemFor(toApiError(err), edgeHeaders(address), opts.publicBaseUrl);
        return new Response(body, { status, headers });
      }
    },
    { autoCleanupIncoming: false },
  );
  interface Pending {
    address: string;
    cacheable: ReturnType<typeof eligible>;
  }
  const pending = new WeakMap<IncomingMessage, Pending>();

  return (req, res) => {
    const forwardedFor = req.headers['x-forwarded-for'];
    const address = clientAddress(
      req.socket.remoteAddress,
      Array.isArray(forwardedFor) ? forwardedFor.join(', ') : (forwardedFor ?? null),
      opts.proxyHops,
    );
    void (async () => {
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
        sendProblem(
          res,
          new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header.'),
          edgeHeaders(address),
          true,
          opts.publicBaseUrl,
        );
        return;
      }
      const target = req.url ?? '/';
      const cacheable = opts.fast === undefined ? null : eligible(req.method, target, req.headers);
      if (
        cacheable !== null &&
        opts.fast !== undefined &&
        (await serveFromCache(opts.fast, cacheable, req, res, address))
      )
        return;
      if (lightweightFits(req, target)) {
        req.resume();
        pending.set(req, { address, cacheable });
        await lightweight(req, res);
        return;
      }
      let url: URL;
      try {
        if (!target.startsWith('/')) throw new Error('not origin-form');
        url = new URL(target, `http://${hostOf(req)}`);
      } catch {
        sendProblem(
          res,
          new ApiError('bad_request', 'The request target must be a path such as /v1/attorneys.'),
          edgeHeaders(address),
          false,
          opts.publicBaseUrl,
        );
        return;
      }
      const { method, info } = webMethod(req.method ?? 'GET');
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        try {
          headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
        } catch {
          // A header undici will not carry is dropped; node's parser has already refused malformed ones.
        }
      }
      let body: Buffer | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        const declared = Number(req.headers['content-length'] ?? 0);
        try {
          if (declared > limit) throw new BodyTooLarge();
          body = await readBody(req, limit);
        } catch (err) {
          if (err instanceof BodyTooLarge)
            sendProblem(
              res,
              new ApiError('payload_too_large', `The request body is larger than ${limit} bytes.`),
              edgeHeaders(address),
              true,
              opts.publicBaseUrl,
            );
          else res.destroy();
          return;
        }
      } else {
        req.resume();
      }
      const request = new Request(url, { method, headers, ...(body !== undefined ? { body } : {}) });
      let response: Response | PlainAnswer;
      try {
        response = await answerFor(request, address, cacheable, info);
      } catch (err) {
        sendProblem(res, toApiError(err), edgeHeaders(address), false, opts.publicBaseUrl);
        return;
      }
      if (!(response instanceof Response)) {
        // A search answer read once into bytes by remember: written as they are.
        res.writeHead(response.status, headerRecord(response.headers));
        if (!res.destroyed) res.end(response.body);
        return;
      }
      const out: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        out[name] = value;
      });
      const setCookie = response.headers.getSetCookie();
      if (setCookie.length > 0) out['set-cookie'] = setCookie;
      res.writeHead(response.status, out);
      if (response.body === null) {
        res.end();
        return;
      }
      try {
        // Every answer is buffered JSON (no streaming routes), so one arrayBuffer() read and one write beat iterating
        // the web stream chunk by chunk into node:http.
        const bytes = Buffer.from(await response.arrayBuffer());
        if (!res.destroyed) res.end(bytes);
      } catch {
        res.destroy();
      }
    })().catch((err: unknown) => {
      if (!res.headersSent) sendProblem(res, toApiError(err), edgeHeaders(address), false, opts.publicBaseUrl);
      else res.destroy();
    });
  };
}

/** Headers as a plain record (no Set-Cookie among them). */
function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** Parts a caller may replace (tests, benchmarks). */
export interface ServerOverrides {
  service?: Service;
  /** The rate limits (tests give them a fixed clock). */
  limits?: RequestLimits;
  /** Header and request timeouts in milliseconds (default HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS; tests shorten them). */
  timeouts?: { headersMs: number; requestMs: number };
  /** Open connections per address and in all (default MAX_CONNECTIONS_PER_ADDRESS, MAX_CONNECTIONS). */
  connections?: Partial<ConnectionCaps>;
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
  /** The answer cache of the fast path (null when ANSWER_CACHE_MIB is 0). */
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

  const raw =
    config.siteBucket === null
      ? new FolderStore(resolve(config.siteDir))
      : new S3Store({ ...config.siteBucket, forcePathStyle: config.siteBucket.endpoint !== undefined });
  const store = withDeadline(raw, config.storeTimeoutMs);
  const source =
    overrides.service === undefined
      ? createSiteSource(store, { cacheBytes: config.cacheBytes, onPointer: (e) => logLine(pointerEventText(e)) })
      : null;
  const service = overrides.service ?? createService(source as CachedSiteSource);
  const log = new JsonLinesSink(resolve(config.logDir));
  const limits =
    overrides.limits ??
    createRequestLimits({
      limit: perWindow(config.rateLimitPerHour, config.rateLimitWindowSeconds),
      windowSeconds: config.rateLimitWindowSeconds,
    });
  const salt = new MemorySaltProvider();
  const answers = config.answerCacheBytes > 0 ? new AnswerCache(config.answerCacheBytes) : null;
  const fast: FastPathDeps | undefined =
    answers === null
      ? undefined
      : {
          cache: answers,
          currentVersion: () => service.currentVersion(),
          limits,
          logger: new RequestLogger(log, salt),
        };
  const app = composeApp({
    service,
    publicBaseUrl,
    allowedOrigins: config.allowedOrigins,
    correctionsEmail: config.correctionsEmail,
    limits,
    log,
    salt,
    onMcpError: mcpErrorLog((message) => logLine(`[shim] mcp: ${message}`)),
  });
  const edgeHeaders: EdgeHeaders = (address) => ({
    ...publicCorsHeaders(),
    ...peekHeaders(limits, rateLimitKey(address)),
  });
  listener = toNodeListener(app, {
    proxyHops: config.proxyHops,
    edgeHeaders,
    publicBaseUrl,
    ...(fast !== undefined ? { fast } : {}),
  });
  server.on('clientError', answerClientError(edgeHeaders, publicBaseUrl));
  const socketAddress = (req: IncomingMessage): string => normaliseAddress(req.socket.remoteAddress ?? 'unknown');
  // Without these listeners node answers an unknown Expect with a bare 417, and `100-continue` with 100 Continue before
  // the listener can see that the declared body is over the limit.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const error = new ApiError(
      'expectation_failed',
      `The Expect header "${String(req.headers.expect).slice(0, 100)}" cannot be met; only 100-continue is supported.`,
    );
    sendProblem(res, error, edgeHeaders(socketAddress(req)), true, publicBaseUrl);
  });
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
      // Refused before 100 Continue, so the client never sends the body.
      sendProblem(
        res,
        new ApiError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`),
        edgeHeaders(socketAddress(req)),
        true,
        publicBaseUrl,
      );
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  // node:http hands CONNECT to this event instead of the request listener; with no listener it drops the connection.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const address = normaliseAddress(req.socket.remoteAddress ?? 'unknown');
    const error = new ApiError(
      'method_not_allowed',
      'CONNECT is not supported: this is not a proxy. Use GET, HEAD or OPTIONS (POST for /mcp).',
    );
    socket.end(problemBytes(error, { ...edgeHeaders(address), allow: 'GET, HEAD, OPTIONS' }, publicBaseUrl));
  });

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
