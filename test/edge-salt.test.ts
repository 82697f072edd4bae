/**
 * The edge salt rotation: today's and tomorrow's salt copied from the shared S3 salts (a real s3rver) into the
 * key-value store, every other day's deleted, idempotent; the edge function then hashes an address exactly as the
 * function's request log does. The store is in memory: a CloudFront KeyValueStore cannot run here.
 */
import { describe, expect, it } from 'vitest';
import { viewerRequestCode } from '../infra/edge-function.ts';
import { dayAfter, edgeSaltKey, rotateEdgeSalt, utcDay, type SaltKeyStore } from '../shim/aws/edge-salt.ts';
import { S3SaltProvider } from '../shim/aws/salt.ts';
import { RotatorEnv } from '../shim/aws/salt-rotator.ts';
import { hashAddress } from '../shim/http/request-log.ts';
import { loadCloudFrontFunction, viewerRequest } from '../bench/lib/cloudfront-runtime.ts';
import { useS3rver } from './helpers/s3rver.ts';

/** A key-value store in memory that records its writes. */
class MemoryStore implements SaltKeyStore {
  readonly data = new Map<string, string>();
  writes = 0;
  async list(): Promise<Map<string, string>> {
    return new Map(this.data);
  }
  async put(key: string, value: string): Promise<void> {
    this.writes++;
    this.data.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.writes++;
    this.data.delete(key);
  }
}

const server = useS3rver({ buckets: ['salts'], conditionalWrites: true });
const salts = (): S3SaltProvider => new S3SaltProvider({ bucket: 'salts', ...server.clientOptions });

describe('days', () => {
  it('UTC days and the day after, across month and year ends', () => {
    expect(utcDay(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22');
    expect(dayAfter('2026-11-30')).toBe('2026-12-01');
    expect(dayAfter('2026-12-31')).toBe('2027-01-01');
    expect(dayAfter('2028-02-28')).toBe('2028-02-29');
    expect(edgeSaltKey('2026-11-22')).toBe('salt-2026-11-22');
  });
});

describe('rotateEdgeSalt', () => {
  it("puts today's and tomorrow's shared salt, then does nothing more the same day", async () => {
    const store = new MemoryStore();
    const now = new Date('2026-11-22T10:00:00Z');
    const report = await rotateEdgeSalt(store, salts(), now);
    expect(report).toEqual({
      days: ['2026-11-22', '2026-11-23'],
      put: ['salt-2026-11-22', 'salt-2026-11-23'],
      deleted: [],
    });
    // The very bytes every function instance reads from S3 for that day.
    for (const day of report.days)
      expect(store.data.get(edgeSaltKey(day))).toBe(Buffer.from(await salts().saltFor(day)).toString('hex'));
    expect(store.data.get('salt-2026-11-22')).not.toBe(store.data.get('salt-2026-11-23'));
    const writes = store.writes;
    expect(await rotateEdgeSalt(store, salts(), new Date('2026-11-22T11:00:00Z'))).toEqual({
      days: ['2026-11-22', '2026-11-23'],
      put: [],
      deleted: [],
    });
    expect(store.writes).toBe(writes);
  });

  it('on the next day adds the day after and deletes every older salt; keys that are not salts stay', async () => {
    const store = new MemoryStore();
    await store.put('other-setting', 'x');
    await store.put('salt-2026-11-01', 'ff'.repeat(32));
    await rotateEdgeSalt(store, salts(), new Date('2026-11-22T23:30:00Z'));
    const tomorrow = store.data.get('salt-2026-11-23');
    const report = await rotateEdgeSalt(store, salts(), new Date('2026-11-23T00:05:00Z'));
    expect(report).toEqual({
      days: ['2026-11-23', '2026-11-24'],
      put: ['salt-2026-11-24'],
      deleted: ['salt-2026-11-22'],
    });
    expect([...store.data.keys()].sort()).toEqual(['other-setting', 'salt-2026-11-23', 'salt-2026-11-24']);
    // Yesterday's "tomorrow" is today's salt: the edge never switches salts within a day.
    expect(store.data.get('salt-2026-11-23')).toBe(tomorrow);
  });

  it('repairs a salt that differs from the shared one', async () => {
    const store = new MemoryStore();
    await store.put('salt-2026-11-25', '00'.repeat(32));
    const report = await rotateEdgeSalt(store, salts(), new Date('2026-11-25T12:00:00Z'));
    expect(report.put).toEqual(['salt-2026-11-25', 'salt-2026-11-26']);
    expect(store.data.get('salt-2026-11-25')).toBe(Buffer.from(await salts().saltFor('2026-11-25')).toString('hex'));
  });

  it('edge and function hash one address alike on the same day, and differently on another day', async () => {
    const store = new MemoryStore();
    await rotateEdgeSalt(store, salts(), new Date());
    const fn = loadCloudFrontFunction(viewerRequestCode('kvs-id'), 'kvs-id', store.data);
    await fn.handler(viewerRequest('/v1/attorneys', 'zip=60601', { ip: '2001:db8::7' }));
    const line = JSON.parse(fn.logs[0] as string) as { address_hash: string };
    const day = utcDay(new Date());
    expect(line.address_hash).toBe(hashAddress(await salts().saltFor(day), '2001:db8::7'));
    expect(line.address_hash).not.toBe(hashAddress(await salts().saltFor(dayAfter(day)), '2001:db8::7'));
  });
});

describe("the rotator's environment", () => {
  it('needs the salt bucket and the store ARN', () => {
    expect(
      RotatorEnv.safeParse({
        SALT_BUCKET: 'salts',
        EDGE_SALT_KVS_ARN: 'arn:aws:cloudfront::111122223333:key-value-store/abc',
      }).success,
    ).toBe(true);
    expect(RotatorEnv.safeParse({ SALT_BUCKET: 'salts' }).success).toBe(false);
    expect(RotatorEnv.safeParse({ SALT_BUCKET: 'salts', EDGE_SALT_KVS_ARN: 'abc' }).success).toBe(false);
  });
});
