/**
 * One S3Client per configuration, created at module scope and reused for the life of the process
 * (a Lambda instance keeps its connections warm across invocations).
 */
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** How to reach S3 (or an S3-protocol server such as s3rver) and how long to wait for it. */
export interface S3ClientOptions {
  /** AWS region; defaults to AWS_REGION, then us-east-1. */
  region?: string;
  /** Custom endpoint, e.g. http://127.0.0.1:4568 for s3rver. */
  endpoint?: string;
  /** Path-style addressing (needed by s3rver). Defaults to true when `endpoint` is set. */
  forcePathStyle?: boolean;
  /** Static credentials (tests); otherwise the default provider chain (Lambda role, profile, env). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Milliseconds to establish a TCP (and TLS) connection; default 1000. */
  connectionTimeoutMs?: number;
  /** Milliseconds from sending a request to its response headers; default 3000. */
  requestTimeoutMs?: number;
  /**
   * Milliseconds a socket may sit idle, waiting for the headers or mid-body, before the read fails and the socket is
   * destroyed; default 3000. A body that trickles is ended by the read's abortSignal at its deadline instead.
   */
  socketTimeoutMs?: number;
  /** Attempts per call including the first (SDK standard retry with backoff); default 3. */
  maxAttempts?: number;
  /** Concurrent sockets per host; default 50. */
  maxSockets?: number;
}

const clients = new Map<string, S3Client>();

/** The memoised client for `options` (same options, same client). */
export function s3Client(options: S3ClientOptions = {}): S3Client {
  const memoKey = stableKey(options);
  let client = clients.get(memoKey);
  if (!client) {
    client = createS3Client(options);
    clients.set(memoKey, client);
  }
  return client;
}

function stableKey(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableKey(v)}`).join(',')}}`;
}

/** A new client for `options` (prefer s3Client, which memoises). */
export function createS3Client(options: S3ClientOptions): S3Client {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 50 };
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const client = new S3Client({
    region,
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
    ...(options.credentials !== undefined ? { credentials: options.credentials } : {}),
    maxAttempts: options.maxAttempts ?? 3,
    // Checksums only where the API requires them: s3rver does not understand the streaming
    // checksum trailers, and publish verifies content by sha256 against the manifest instead.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler({
      connectionTimeout: options.connectionTimeoutMs ?? 1000,
      requestTimeout: options.requestTimeoutMs ?? 3000,
      socketTimeout: options.socketTimeoutMs ?? 3000,
      // Without this a request timeout is only logged as a warning and the call can hang.
      throwOnRequestTimeout: true,
      httpAgent: new Agent(agentOptions),
      httpsAgent: new HttpsAgent(agentOptions),
    }),
  });
  nameMissingBucket(client, options.endpoint !== undefined ? `at ${options.endpoint}` : `in region ${region}`);
  return client;
}

/**
 * S3's NoSuchBucket says only "The specified bucket does not exist": every call through `client` that meets it is
 * made to name the bucket, where it was looked for (`where`: the endpoint or region) and the key or prefix asked for,
 * and what an operator checks, so release, publish, prune and audit all say it the same way.
 */
function nameMissingBucket(client: S3Client, where: string): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (err) {
        const e = err as { name?: string; message?: string } | null;
        if (e?.name === 'NoSuchBucket' && typeof e.message === 'string' && !e.message.startsWith('bucket "')) {
          const input = args.input as { Bucket?: string; Key?: string; Prefix?: string };
          const asked =
            input.Key !== undefined
              ? ` (asked for key "${input.Key}")`
              : input.Prefix !== undefined
                ? ` (listing prefix "${input.Prefix}")`
                : '';
          e.message = `bucket "${input.Bucket ?? '?'}" does not exist ${where}${asked}: check --bucket (the bucket's name, not the site's domain; the stack's SiteBucketName output), --endpoint or --region, and the AWS account of the credentials`;
        }
        throw err;
      }
    },
    { step: 'initialize', name: 'nameMissingBucket' },
  );
}

/** Normalise a key prefix: '' or ending in exactly one '/', never starting with '/'. */
export function normalisePrefix(prefix: string | undefined): string {
  const p = (prefix ?? '').replace(/^\/+/, '').replace(/\/+$/, '');
  return p === '' ? '' : `${p}/`;
}

/** True when `err` is S3's "no such key" (a 404 other than a missing bucket, which is a misconfiguration). */
export function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
