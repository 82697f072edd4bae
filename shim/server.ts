/** The local HTTP server: node:http <-> web-standard Request/Response, with body limit and timeouts, and its composition. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { composeApp } from './compose.ts';
import type { Config } from './config.ts';
import { createService } from './core/service-impl.ts';
import type { Service } from './core/service.ts';
import type { App } from './edge-types.ts';
import { clientAddress } from './http/client-address.ts';
import { compressResponse } from './http/compress.ts';
import { JsonLinesSink } from './http/jsonl-sink.ts';
import { customProblem } from './http/problem.ts';
import { createRateLimiter, perWindow } from './http/rate-limit.ts';
import { MemorySaltProvider } from './http/salt.ts';
import { createSiteSource } from './site-reader.ts';
import { FolderStore } from './store/folder.ts';

/** Largest request body read, in bytes (MCP messages are small). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Time allowed to receive the request headers, and the whole request, in milliseconds. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** Idle keep-alive connections are closed after this many milliseconds. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

class BodyTooLarge extends Error {}

function problemText(status: number, detail: string): string {
  return JSON.stringify(customProblem(status, status === 413 ? 'payload_too_large' : 'invalid_parameter', status === 413 ? 'Request body too large' : 'Bad request', detail));
}

function sendProblem(res: ServerResponse, status: number, detail: string, close = false): void {
  const body = problemText(status, detail);
  res.writeHead(status, {
    'content-type': 'application/problem+json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(close ? { connection: 'close' } : {}),
  });
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
  return host !== undefined && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? host : 'localhost';
}

/** Options of toNodeListener. */
export interface NodeListenerOptions {
  /** Take the client address from X-Forwarded-For (left-most). */
  trustProxy: boolean;
  /** Request body limit in bytes (default MAX_BODY_BYTES). */
  maxBodyBytes?: number;
}

/** A node:http request listener that runs `app`. */
export function toNodeListener(app: App, opts: NodeListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  return (req, res) => {
    void (async () => {
      const target = req.url ?? '/';
      let url: URL;
      try {
        if (!target.startsWith('/')) throw new Error('not origin-form');
        url = new URL(target, `http://${hostOf(req)}`);
      } catch {
        sendProblem(res, 400, 'The request target must be a path such as /v1/attorneys.');
        return;
      }
      const method = req.method ?? 'GET';
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
          if (err instanceof BodyTooLarge) sendProblem(res, 413, `The request body is larger than ${limit} bytes.`, true);
          else res.destroy();
          return;
        }
      } else {
        req.resume();
      }
      const address = clientAddress(req.socket.remoteAddress, headers.get('x-forwarded-for'), opts.trustProxy);
      const request = new Request(url, { method, headers, ...(body !== undefined ? { body } : {}) });
      let response: Response;
      try {
        response = await compressResponse(await app(request, { clientAddress: address }), headers.get('accept-encoding'));
      } catch (err) {
        console.error('[shim] app failed:', err);
        sendProblem(res, 500, 'The service failed to answer this request.');
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
        const body = Buffer.from(await response.arrayBuffer());
        if (!res.destroyed) res.end(body);
      } catch {
        res.destroy();
      }
    })().catch((err: unknown) => {
      console.error('[shim] request handling failed:', err);
      if (!res.headersSent) sendProblem(res, 500, 'The service failed to answer this request.');
      else res.destroy();
    });
  };
}

/** Parts a caller may replace (tests, benchmarks). */
export interface ServerOverrides {
  service?: Service;
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
  const server = createServer((req, res) => {
    if (listener !== null) listener(req, res);
    else sendProblem(res, 503, 'The server is starting.');
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

  const bound = await listen(server, config.port, config.host);
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const url = `http://${host}:${bound.port}`;
  const publicBaseUrl = config.publicBaseUrl ?? url;

  const service = overrides.service ?? createService(createSiteSource(new FolderStore(resolve(config.siteDir)), { cacheBytes: config.cacheBytes }));
  const log = new JsonLinesSink(resolve(config.logDir));
  const app = composeApp({
    service,
    publicBaseUrl,
    allowedOrigins: config.allowedOrigins,
    correctionsEmail: config.correctionsEmail,
    rateLimiter: createRateLimiter({ limit: perWindow(config.rateLimitPerHour, config.rateLimitWindowSeconds), windowSeconds: config.rateLimitWindowSeconds }),
    log,
    salt: new MemorySaltProvider(),
    onMcpError: (error) => console.error('[shim] mcp:', error.message),
  });
  listener = toNodeListener(app, { trustProxy: config.trustProxy });

  return {
    url,
    publicBaseUrl,
    server,
    log,
    async close(graceMs = 5000): Promise<void> {
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
      await log.close();
    },
  };
}
