/**
 * A real S3-protocol server (s3rver) on 127.0.0.1, on a free port, over a temporary folder, for benchmarks and tests
 * (startS3rver; test/helpers/s3rver.ts runs it around a test file). Also a "black hole" TCP server that accepts
 * connections and never answers, to test timeouts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3ClientOptions } from '../../shim/store/s3-client.ts';

interface S3rverInstance {
  configureBuckets(): Promise<void>;
  getMiddleware(): (req: IncomingMessage, res: ServerResponse) => void;
  store: {
    existsObject(bucket: string, key: string): Promise<boolean>;
    getMetadata(bucket: string, key: string): Promise<{ etag: string }>;
  };
  logger?: { close(): void; exceptions?: { unhandle(): void } };
}
type S3rverCtor = new (options: Record<string, unknown>) => S3rverInstance;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;

/** s3rver's fixed credentials as the usual AWS environment variables, for code (or a child process) that reads them. */
export const S3RVER_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

/** A running s3rver and the client options that reach it. */
export interface RunningS3rver {
  /** e.g. http://127.0.0.1:41234 */
  endpoint: string;
  port: number;
  /** Buckets created at start. */
  buckets: string[];
  /** Options for s3Client / S3Store / publishSite (short timeouts, s3rver's fixed credentials). */
  clientOptions: S3ClientOptions;
  /** Count of requests received so far, by method (GET, HEAD, PUT; a server-side copy counts as COPY, not PUT). */
  requests: Record<string, number>;
  /** Stop the server and delete its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options for startS3rver. */
export interface StartS3rverOptions {
  /** Buckets to create (default ["site"]). */
  buckets?: string[];
  /**
   * Emulate S3's conditional writes on PUT, which s3rver ignores: `If-None-Match: *` is 412 PreconditionFailed when the
   * key exists, `If-Match: <etag>` is 412 when the key is missing or its ETag differs; such PUTs are serialised per key
   * (check, then write, as S3 does atomically). Off by default.
   */
  conditionalWrites?: boolean;
}

/** Start s3rver on 127.0.0.1, port 0, over a fresh temporary folder. */
export async function startS3rver(options: StartS3rverOptions = {}): Promise<RunningS3rver> {
  const buckets = options.buckets ?? ['site'];
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const s3rver = new S3rver({
    directory,
    silent: true,
    configureBuckets: buckets.map((name) => ({ name })),
    // Path-style only: the SDK is configured with forcePathStyle.
    vhostBuckets: false,
  });
  await s3rver.configureBuckets();
  const middleware = s3rver.getMiddleware();
  const requests: Record<string, number> = {};
  const locks = new Map<string, Promise<void>>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method ?? 'GET';
    const label = method === 'PUT' && req.headers['x-amz-copy-source'] ? 'COPY' : method;
    requests[label] = (requests[label] ?? 0) + 1;
    const ifMatch = req.headers['if-match'];
    const conditional = req.headers['if-none-match'] === '*' || typeof ifMatch === 'string';
    if (!(options.conditionalWrites && method === 'PUT' && conditional)) {
      middleware(req, res);
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.split('/').map(decodeURIComponent);
    const bucket = path[1] ?? '';
    const key = path.slice(2).join('/');
    const lockKey = `${bucket}/${key}`;
    const previous = locks.get(lockKey) ?? Promise.resolve();
    const done = previous.then(async () => {
      const etag =
        typeof ifMatch === 'string'
          ? await s3rver.store.getMetadata(bucket, key).then(
              (m) => m.etag,
              () => null,
            )
          : null;
      const failed = typeof ifMatch === 'string' ? etag !== ifMatch : await s3rver.store.existsObject(bucket, key);
      if (failed) {
        req.resume();
        res.writeHead(412, { 'content-type': 'application/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>${typeof ifMatch === 'string' ? 'If-Match' : 'If-None-Match'}</Condition></Error>`,
        );
        return;
      }
      await new Promise<void>((resolve) => {
        res.once('close', resolve);
        middleware(req, res);
      });
    });
    locks.set(
      lockKey,
      done.catch(() => undefined),
    );
  };

  const server = createServer(handle);
  // Keep idle keep-alive sockets a minute past the advertised 5 s (node's default is 1 s): the SDK's agent closes them
  // itself at the hint, and a test process starved of CPU under load (or busy between two calls) must not send its next
  // request on a socket this server destroys in that same instant (ECONNRESET). As in shim/server.ts.
  server.keepAliveTimeoutBuffer = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped = false;

  return {
    endpoint,
    port,
    buckets,
    requests,
    clientOptions: {
      endpoint,
      forcePathStyle: true,
      region: S3RVER_ENV.AWS_REGION,
      credentials: { accessKeyId: S3RVER_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: S3RVER_ENV.AWS_SECRET_ACCESS_KEY },
      connectionTimeoutMs: 500,
      requestTimeoutMs: 5000,
      socketTimeoutMs: 5000,
      maxAttempts: 3,
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      s3rver.logger?.exceptions?.unhandle();
      s3rver.logger?.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A TCP server on 127.0.0.1 that accepts connections and never answers (to test request timeouts). */
export async function startBlackhole(): Promise<{ endpoint: string; port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function unusedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
