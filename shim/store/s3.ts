/** Store over an S3 bucket (optionally under a key prefix), for the AWS path. */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isNotFound, normalisePrefix, s3Client, type S3ClientOptions } from './s3-client.ts';
import { assertSafeRange, describeRange } from './range.ts';
import { assertSafeKey, StoreError, type ReadOptions, type Store } from './types.ts';

const gunzipAsync = promisify(gunzip);

/** Sockets the site store may open to S3 (the local server's MAX_CONNECTIONS; the Lambda serves one request at a time). */
export const S3_STORE_SOCKETS = 1024;

/** Where the site lives and how to reach it. */
export interface S3StoreOptions extends S3ClientOptions {
  bucket: string;
  /** Key prefix the site was published under, e.g. "prod/" (default: bucket root). */
  prefix?: string;
  /** An explicit client (otherwise the memoised one for these options). */
  client?: S3Client;
  /**
   * Called after each object found, with the body's bytes as received (the stored object, gzip-compressed when
   * published so) and as returned (inflated); not called for a missing key or a failed read. For measurement only.
   */
  onRead?: (key: string, wireBytes: number, decodedBytes: number) => void;
}

/**
 * Reads `<prefix><key>` with GetObject; NoSuchKey is a missing key, anything else a StoreError; gzip bodies are
 * inflated (by get; a range of one is a StoreError). The read's signal goes to the SDK as its abortSignal, which
 * destroys the request (and with it a body still arriving), so a read given up at its deadline frees its socket at
 * once instead of holding it until the body ends.
 */
export class S3Store implements Store {
  readonly kind = 's3';
  readonly bucket: string;
  readonly prefix: string;
  private readonly client: S3Client;
  private readonly onRead: S3StoreOptions['onRead'];

  constructor(options: S3StoreOptions) {
    const { bucket, prefix, client, onRead, ...clientOptions } = options;
    this.bucket = bucket;
    this.prefix = normalisePrefix(prefix);
    // A pool as large as the server's connection cap, so reads do not queue for a socket: a read that starts late in
    // its deadline (after waiting in node's agent queue) was seen to go out after it was aborted and hold its socket.
    this.client = client ?? s3Client({ maxSockets: S3_STORE_SOCKETS, ...clientOptions });
    this.onRead = onRead;
  }

  async get(key: string, options: ReadOptions = {}): Promise<Uint8Array | null> {
    assertSafeKey(key);
    const found = await this.fetch(key, undefined, options);
    if (found === null) return null;
    const { body, encoding } = found;
    if (!isGzip(encoding)) {
      this.onRead?.(key, body.byteLength, body.byteLength);
      return body;
    }
    let inflated: Buffer;
    try {
      inflated = await gunzipAsync(body);
    } catch (err) {
      throw new StoreError(`s3 store could not inflate ${key}: ${describe(err)}`, key, { cause: err });
    }
    this.onRead?.(key, body.byteLength, inflated.byteLength);
    return new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength);
  }

  /**
   * One GetObject with `Range: bytes=start-(end - 1)`. S3 answers a range that starts past the object with 416
   * (InvalidRange) and one that ends past it with the bytes there are: both are a StoreError, as is a body stored
   * gzip-encoded (its bytes are a range of the compressed object, not of the object).
   */
  async getRange(key: string, start: number, end: number, options: ReadOptions = {}): Promise<Uint8Array | null> {
    assertSafeRange(key, start, end);
    const found = await this.fetch(key, `bytes=${start}-${end - 1}`, options);
    if (found === null) return null;
    const { body, encoding } = found;
    const what = `${describeRange(start, end)} of ${key}`;
    if (isGzip(encoding))
      throw new StoreError(`s3 store could not read ${what}: the object is stored gzip-encoded`, key);
    if (body.byteLength !== end - start) {
      throw new StoreError(
        `s3 store could not read ${what}: ${body.byteLength} bytes came back, not ${end - start}`,
        key,
      );
    }
    this.onRead?.(key, body.byteLength, body.byteLength);
    return body;
  }

  /** The body (as stored) and Content-Encoding of one GetObject, or null for NoSuchKey; any other failure a StoreError. */
  private async fetch(
    key: string,
    range: string | undefined,
    { signal }: ReadOptions,
  ): Promise<{ body: Uint8Array; encoding: string | undefined } | null> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.prefix + key,
          ...(range !== undefined ? { Range: range } : {}),
        }),
        signal !== undefined ? { abortSignal: signal } : {},
      );
      if (!out.Body) throw new Error('response has no body');
      return { body: await out.Body.transformToByteArray(), encoding: out.ContentEncoding };
    } catch (err) {
      if (isNotFound(err)) return null;
      const what = range === undefined ? key : `${range.replace('=', ' ')} of ${key}`;
      throw new StoreError(`s3 store could not read ${what}: ${describe(err)}`, key, { cause: err });
    }
  }
}

/** True when a Content-Encoding names gzip. */
function isGzip(encoding: string | undefined): boolean {
  return encoding !== undefined && /\bgzip\b/i.test(encoding);
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } } | null;
  const status = e?.$metadata?.httpStatusCode;
  return `${e?.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${e?.message ?? String(err)}`;
}
