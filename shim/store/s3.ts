/** Store over an S3 bucket (optionally under a key prefix), for the AWS path. */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isNotFound, normalisePrefix, s3Client, type S3ClientOptions } from '../aws/s3-client.ts';
import { assertSafeKey, StoreError, type Store } from './types.ts';

const gunzipAsync = promisify(gunzip);

/** Where the site lives and how to reach it. */
export interface S3StoreOptions extends S3ClientOptions {
  bucket: string;
  /** Key prefix the site was published under, e.g. "prod/" (default: bucket root). */
  prefix?: string;
  /** An explicit client (otherwise the memoised one for these options). */
  client?: S3Client;
}

/** Reads `<prefix><key>` with GetObject; NoSuchKey is a missing key, anything else a StoreError; gzip bodies are inflated. */
export class S3Store implements Store {
  readonly kind = 's3';
  readonly bucket: string;
  readonly prefix: string;
  private readonly client: S3Client;

  constructor(options: S3StoreOptions) {
    const { bucket, prefix, client, ...clientOptions } = options;
    this.bucket = bucket;
    this.prefix = normalisePrefix(prefix);
    this.client = client ?? s3Client(clientOptions);
  }

  async get(key: string): Promise<Uint8Array | null> {
    assertSafeKey(key);
    let body: Uint8Array;
    let encoding: string | undefined;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      if (!out.Body) throw new Error('response has no body');
      body = await out.Body.transformToByteArray();
      encoding = out.ContentEncoding;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw new StoreError(`s3 store could not read ${key}: ${describe(err)}`, key, { cause: err });
    }
    if (encoding === undefined || !/\bgzip\b/i.test(encoding)) return body;
    try {
      const inflated = await gunzipAsync(body);
      return new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength);
    } catch (err) {
      throw new StoreError(`s3 store could not inflate ${key}: ${describe(err)}`, key, { cause: err });
    }
  }
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } } | null;
  const status = e?.$metadata?.httpStatusCode;
  return `${e?.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${e?.message ?? String(err)}`;
}
