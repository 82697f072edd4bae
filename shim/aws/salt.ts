/**
 * The daily salt on the AWS path (docs/CONTRACT.md, Privacy): one random salt per UTC day in S3 under a
 * private prefix that CloudFront never serves, created by whichever instance needs it first with a
 * conditional write, and expired by a bucket lifecycle rule (1 day after creation, so gone within 48 hours).
 */
import { randomBytes } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SaltProvider } from '../edge/edge-types.ts';
import { isNotFound, normalisePrefix, s3Client, type S3ClientOptions } from '../store/s3-client.ts';

/** Key prefix (under the store prefix) of the salt objects; the lifecycle rule expires it after 1 day. */
export const SALT_PREFIX = 'private/salt/';

/** Salt length in bytes. */
export const SALT_BYTES = 32;

/** Where the salts live. */
export interface S3SaltProviderOptions extends S3ClientOptions {
  bucket: string;
  /** The same prefix the site is published under (the salt lives at `<prefix>private/salt/<day>`). */
  prefix?: string;
  /** An explicit client (otherwise the memoised one for these options). */
  client?: S3Client;
}

/** SaltProvider over S3: read the day's salt, or create it with PutObject If-None-Match "*" and read the winner's on 412. */
export class S3SaltProvider implements SaltProvider {
  readonly bucket: string;
  readonly prefix: string;
  private readonly client: S3Client;
  /** Only the most recent day is kept, so an old day's salt does not outlive the day in memory. */
  private cached: { day: string; salt: Promise<Uint8Array> } | null = null;

  constructor(options: S3SaltProviderOptions) {
    const { bucket, prefix, client, ...clientOptions } = options;
    this.bucket = bucket;
    this.prefix = normalisePrefix(prefix);
    this.client = client ?? s3Client(clientOptions);
  }

  /** The S3 key of day `day`'s salt. */
  keyFor(day: string): string {
    return `${this.prefix}${SALT_PREFIX}${day}`;
  }

  saltFor(day: string): Promise<Uint8Array> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return Promise.reject(new Error(`not a UTC day (YYYY-MM-DD): ${day}`));
    if (this.cached?.day === day) return this.cached.salt;
    const salt = this.load(day);
    const entry = { day, salt };
    this.cached = entry;
    // A failed load is not cached: the next request tries again.
    salt.catch(() => {
      if (this.cached === entry) this.cached = null;
    });
    return salt;
  }

  private async load(day: string): Promise<Uint8Array> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await this.read(day);
      if (existing) return existing;
      const salt = new Uint8Array(randomBytes(SALT_BYTES));
      try {
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: this.keyFor(day),
            Body: salt,
            IfNoneMatch: '*',
            ContentType: 'application/octet-stream',
            CacheControl: 'no-store',
          }),
        );
        return salt;
      } catch (err) {
        // 412: another instance created it first. 409: a concurrent conditional write was in flight. Either way, read theirs.
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status !== 412 && status !== 409) throw err;
        if (status === 409) await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
      }
    }
    throw new Error(`salt for ${day} could not be created or read`);
  }

  private async read(day: string): Promise<Uint8Array | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.keyFor(day) }));
      const bytes = await out.Body?.transformToByteArray();
      if (!bytes || bytes.byteLength !== SALT_BYTES)
        throw new Error(`salt object for ${day} has ${bytes?.byteLength ?? 0} bytes, expected ${SALT_BYTES}`);
      return bytes;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }
}
