/**
 * The bucket's pointer written by compare-and-swap: read with its ETag when a release begins, read again just before
 * the write (an S3-protocol server that ignores conditions, such as s3rver, is still refused there), and written with
 * `IfMatch` on that ETag (`IfNoneMatch: "*"` when there was none), so S3 itself refuses a write over a pointer another
 * release wrote in between (412 Precondition Failed, or 409 when two conditional writes meet).
 */
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, type PutObjectCommandInput, type S3Client } from '@aws-sdk/client-s3';
import { isNotFound } from '../../shim/store/s3-client.ts';
import { keys, Pointer } from '../../shim/format/site-format.ts';
import { parseObject } from '../../shim/format/site-json.ts';
import { LiveMovedError } from '../write/live-moved.ts';

/** The bucket's pointer as a release saw it: the version it names and its ETag (both null when there is none). */
export interface PointerBase {
  version: string | null;
  etag: string | null;
}

/** Read `<prefix>current.json` with its ETag. */
export async function readPointerBase(client: S3Client, bucket: string, prefix: string): Promise<PointerBase> {
  try {
    const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + keys.pointer }));
    const bytes = await out.Body?.transformToByteArray();
    if (bytes === undefined) throw new Error(`s3://${bucket}/${prefix}${keys.pointer} has no body`);
    const body = out.ContentEncoding === 'gzip' ? new Uint8Array(gunzipSync(bytes)) : bytes;
    return { version: parseObject(body, keys.pointer, Pointer).version, etag: out.ETag ?? null };
  } catch (err) {
    if (isNotFound(err)) return { version: null, etag: null };
    throw err;
  }
}

/** The condition a pointer write carries: the ETag it replaces, or "no pointer yet". */
export function pointerCondition(base: PointerBase): Pick<PutObjectCommandInput, 'IfMatch' | 'IfNoneMatch'> {
  return base.etag === null ? { IfNoneMatch: '*' } : { IfMatch: base.etag };
}

/** True for S3's answers to a failed condition: 412 Precondition Failed, 409 ConditionalRequestConflict. */
export function isConditionFailed(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return status === 412 || status === 409 || e.name === 'PreconditionFailed' || e.name === 'ConditionalRequestConflict';
}

/** Refuse with LiveMovedError unless the bucket's pointer is still `base` (same version, same ETag). */
export async function assertPointerUnmoved(
  client: S3Client,
  bucket: string,
  prefix: string,
  base: PointerBase,
): Promise<void> {
  const now = await readPointerBase(client, bucket, prefix);
  if (now.version !== base.version || now.etag !== base.etag)
    throw new LiveMovedError(`s3://${bucket}/${prefix}`, base.version, now.version);
}
