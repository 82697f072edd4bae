/**
 * The S3-backed daily salt on a real s3rver: created once per UTC day under <prefix>private/salt/<day>, shared by
 * every instance, different per day. s3rver ignores If-None-Match on PUT, so the race between two instances is
 * tested against the helper's emulation of S3's conditional write (412 when the key exists).
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { createS3Client, s3Client } from '../shim/store/s3-client.ts';
import { SALT_BYTES, S3SaltProvider } from '../shim/aws/salt.ts';
import { unusedPort } from '../bench/lib/s3rver.ts';
import { useS3rver } from './helpers/s3rver.ts';

const server = useS3rver({ buckets: ['site'], conditionalWrites: true });

const provider = (): S3SaltProvider => new S3SaltProvider({ bucket: 'site', prefix: 'prod/', ...server.clientOptions });

describe('S3SaltProvider', () => {
  it('creates a random salt for the day under the private prefix, and reads it back', async () => {
    const salt = await provider().saltFor('2026-11-16');
    expect(salt.byteLength).toBe(SALT_BYTES);
    const stored = await s3Client(server.clientOptions).send(
      new GetObjectCommand({ Bucket: 'site', Key: 'prod/private/salt/2026-11-16' }),
    );
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(Buffer.from(salt))).toBe(true);
  });

  it('gives every instance the same salt for the same day, and a different one for another day', async () => {
    const a = await provider().saltFor('2026-11-17');
    const b = await provider().saltFor('2026-11-17');
    const next = await provider().saltFor('2026-11-18');
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(next))).toBe(false);
  });

  it('keeps the day salt in memory: repeated calls do not touch S3', async () => {
    const p = provider();
    const first = await p.saltFor('2026-11-19');
    const gets = server.requests.GET ?? 0;
    for (let i = 0; i < 5; i++) expect(await p.saltFor('2026-11-19')).toBe(first);
    expect(server.requests.GET ?? 0).toBe(gets);
  });

  it('an instance that loses the creation race (412) uses the winner salt', async () => {
    // Instance A reads "no salt yet"; before its conditional PUT lands, instance B's salt is written.
    const client = createS3Client(server.clientOptions);
    const winner = new Uint8Array(SALT_BYTES).fill(7);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutObjectCommand') {
          await s3Client(server.clientOptions).send(
            new PutObjectCommand({ Bucket: 'site', Key: 'prod/private/salt/2026-11-20', Body: winner }),
          );
        }
        return next(args);
      },
      { step: 'initialize', name: 'competingInstance' },
    );
    const salt = await new S3SaltProvider({ bucket: 'site', prefix: 'prod/', client }).saltFor('2026-11-20');
    expect(Buffer.from(salt).equals(Buffer.from(winner))).toBe(true);
  });

  it('many instances starting at once agree on one salt', async () => {
    const salts = await Promise.all(Array.from({ length: 8 }, () => provider().saltFor('2026-11-21')));
    for (const s of salts) expect(Buffer.from(s).equals(Buffer.from(salts[0]!))).toBe(true);
  });

  it(
    'rejects a malformed day, and fails (without caching the failure) when S3 is unreachable',
    { timeout: 20_000 },
    async () => {
      await expect(provider().saltFor('2026-11-22T00:00')).rejects.toThrow(/UTC day/);
      const down = new S3SaltProvider({
        bucket: 'site',
        ...server.clientOptions,
        endpoint: `http://127.0.0.1:${await unusedPort()}`,
        maxAttempts: 1,
      });
      await expect(down.saltFor('2026-11-22')).rejects.toThrow();
      await expect(down.saltFor('2026-11-22')).rejects.toThrow();
    },
  );
});
