/**
 * One contract suite run against every Store implementation (memory, folder, S3 on a real s3rver):
 * exact bytes back, missing keys are null, unsafe keys rejected, failures are StoreError (never null).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client, s3Client } from '../shim/store/s3-client.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { S3_STORE_SOCKETS, S3Store } from '../shim/store/s3.ts';
import { StoreError, type Store } from '../shim/store/types.ts';
import { startBlackhole, startS3rver, unusedPort } from '../bench/lib/s3rver.ts';
import { useS3rver } from './helpers/s3rver.ts';

/** The objects every implementation is seeded with. */
const FIXTURES: Record<string, Uint8Array> = {
  'current.json': utf8('{"schema_version":1,"version":"2026-W47.abc","week":"2026-W47"}'),
  'v/2026-W47.abc/meta.json': utf8(JSON.stringify({ note: 'naïve café ✓', n: 1 })),
  'v/2026-W47.abc/shards/5/85283473fffffff.json': utf8(
    JSON.stringify({ offices: Array.from({ length: 2000 }, (_, i) => ({ i, name: `Office ${i}` })) }),
  ),
  'v/2026-W47.abc/firms/l_abcdefghijklmnop.json': randomBytes(70_000),
  'v/2026-W47.abc/gazetteer/zip/100.json': new Uint8Array(0),
};

const MISSING = [
  'nope.json',
  'v/2026-W47.abc/firms/l_zzzzzzzzzzzzzzzz.json',
  'v/other/deep/nested/key.json',
  'current.json/below-a-file.json',
];
const UNSAFE = [
  '../etc/passwd',
  '/current.json',
  'v/../current.json',
  'v//meta.json',
  '',
  'v\\meta.json',
  './current.json',
  'v/2026-W47.abc/',
  'a\u0000b',
];

/** What one implementation provides to the shared suite. */
interface Subject {
  /** A store over a root that holds exactly FIXTURES. */
  seeded(): Promise<Store>;
  /** A store (and key) whose read fails for a reason other than "missing"; absent when the store does no I/O. */
  failing?: () => Promise<{ store: Store; key: string }>;
}

function storeContract(name: string, subject: () => Subject): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await subject().seeded();
    });

    it('returns the exact bytes of every stored key, nested or not, empty or large', async () => {
      for (const [key, bytes] of Object.entries(FIXTURES)) {
        const got = await store.get(key);
        expect(got, key).not.toBeNull();
        expect(Buffer.from(got!).equals(Buffer.from(bytes)), key).toBe(true);
      }
    });

    it('answers null for keys that do not exist', async () => {
      for (const key of MISSING) expect(await store.get(key), key).toBeNull();
    });

    it('rejects unsafe keys with StoreError before any read', async () => {
      for (const key of UNSAFE) await expect(store.get(key), JSON.stringify(key)).rejects.toBeInstanceOf(StoreError);
    });

    it('serves many concurrent reads correctly', async () => {
      const entries = Object.entries(FIXTURES);
      const reads = Array.from({ length: 60 }, (_, i) => entries[i % entries.length]!);
      const got = await Promise.all(reads.map(([key]) => store.get(key)));
      got.forEach((bytes, i) => expect(Buffer.from(bytes!).equals(Buffer.from(reads[i]![1]))).toBe(true));
    });

    const failing = subject().failing;
    if (!failing) return;
    it('turns a store failure into StoreError, not null, within a bounded time', { timeout: 20_000 }, async () => {
      const { store: broken, key } = await failing();
      const err = await broken.get(key).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).key).toBe(key);
    });
  });
}

// --- memory -------------------------------------------------------------------------------------

storeContract('MemoryStore', () => ({
  async seeded() {
    return new MemoryStore(new Map(Object.entries(FIXTURES)));
  },
  // MemoryStore does no I/O, so it has no failure mode to test.
}));

// --- folder -------------------------------------------------------------------------------------

const folders: string[] = [];
afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

async function seededFolder(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'store-test-'));
  folders.push(root);
  for (const [key, bytes] of Object.entries(FIXTURES)) {
    await mkdir(dirname(join(root, key)), { recursive: true });
    await writeFile(join(root, key), bytes);
  }
  return root;
}

storeContract('FolderStore', () => ({
  async seeded() {
    return new FolderStore(await seededFolder());
  },
  async failing() {
    // A key that names a directory is an I/O error (EISDIR), not a missing object.
    return { store: new FolderStore(await seededFolder()), key: 'v/2026-W47.abc/shards' };
  },
}));

// --- S3 on s3rver -------------------------------------------------------------------------------

const server = useS3rver({ buckets: [] });
let bucketCounter = 0;

async function seededBucket(prefix: string, gzipAbove?: number): Promise<string> {
  const bucket = `store-test-${++bucketCounter}`;
  const client = s3Client(server.clientOptions);
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  for (const [key, bytes] of Object.entries(FIXTURES)) {
    const compress = gzipAbove !== undefined && bytes.byteLength > gzipAbove;
    await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: prefix + key,
        Body: compress ? gzipSync(bytes) : bytes,
        ...(compress ? { ContentEncoding: 'gzip' } : {}),
        ContentType: 'application/json',
      }),
    );
  }
  return bucket;
}

storeContract('S3Store (s3rver, bucket root)', () => ({
  async seeded() {
    return new S3Store({ bucket: await seededBucket(''), ...server.clientOptions });
  },
  async failing() {
    // Connection refused on every attempt: the SDK retries (maxAttempts) and then the store must throw.
    const endpoint = `http://127.0.0.1:${await unusedPort()}`;
    return { store: new S3Store({ bucket: 'site', ...server.clientOptions, endpoint }), key: 'current.json' };
  },
}));

storeContract('S3Store (s3rver, prefix, gzip-encoded objects)', () => ({
  async seeded() {
    return new S3Store({
      bucket: await seededBucket('prod/site/', 1024),
      prefix: '/prod/site',
      ...server.clientOptions,
    });
  },
  async failing() {
    // A missing bucket is a misconfiguration, never "no such object".
    return { store: new S3Store({ bucket: 'no-such-bucket', ...server.clientOptions }), key: 'current.json' };
  },
}));

describe('S3Store failure modes beyond the contract', () => {
  it(
    'gives up on a server that accepts connections and never answers (request timeout, bounded retries)',
    { timeout: 20_000 },
    async () => {
      const hole = await startBlackhole();
      try {
        const store = new S3Store({
          bucket: 'site',
          ...server.clientOptions,
          endpoint: hole.endpoint,
          requestTimeoutMs: 300,
          maxAttempts: 2,
        });
        await expect(store.get('current.json')).rejects.toBeInstanceOf(StoreError);
      } finally {
        await hole.stop();
      }
    },
  );

  it('reports StoreError once the server has been stopped mid-life', { timeout: 20_000 }, async () => {
    const own = await startS3rver();
    const options = { ...own.clientOptions, maxAttempts: 2 };
    await createS3Client(options).send(new PutObjectCommand({ Bucket: 'site', Key: 'current.json', Body: utf8('{}') }));
    const store = new S3Store({ bucket: 'site', ...options });
    expect(Buffer.from((await store.get('current.json'))!).toString()).toBe('{}');
    await own.stop();
    await expect(store.get('current.json')).rejects.toBeInstanceOf(StoreError);
  });

  it('reports a corrupt gzip body as StoreError', async () => {
    const bucket = await seededBucket('');
    await s3Client(server.clientOptions).send(
      new PutObjectCommand({ Bucket: bucket, Key: 'bad.json', Body: utf8('not gzip at all'), ContentEncoding: 'gzip' }),
    );
    await expect(new S3Store({ bucket, ...server.clientOptions }).get('bad.json')).rejects.toBeInstanceOf(StoreError);
  });

  it('shares one client per configuration', () => {
    expect(s3Client(server.clientOptions)).toBe(s3Client({ ...server.clientOptions }));
    expect(s3Client(server.clientOptions)).not.toBe(s3Client({ ...server.clientOptions, requestTimeoutMs: 1234 }));
  });
});

describe('S3Store onRead (measurement hook)', () => {
  it('reports each object found with its bytes as stored (gzip) and as returned, and nothing for a missing key', async () => {
    const bucket = await seededBucket('', 1024);
    const seen: [string, number, number][] = [];
    const store = new S3Store({
      bucket,
      ...server.clientOptions,
      onRead: (key, wire, decoded) => seen.push([key, wire, decoded]),
    });
    const big = 'v/2026-W47.abc/shards/5/85283473fffffff.json';
    const small = 'current.json';
    expect(await store.get(big)).toEqual(FIXTURES[big]);
    expect(await store.get(small)).toEqual(FIXTURES[small]);
    expect(await store.get('nope.json')).toBeNull();
    // Independent answers: the gzip body seededBucket stored, and the fixtures' own lengths.
    expect(seen).toEqual([
      [big, gzipSync(FIXTURES[big]!).byteLength, FIXTURES[big]!.byteLength],
      [small, FIXTURES[small]!.byteLength, FIXTURES[small]!.byteLength],
    ]);
    expect(seen[0]![1]).toBeLessThan(seen[0]![2]);
  });

  it('does not change which client a configuration shares', () => {
    // The site store's own pool size is part of its configuration (S3_STORE_SOCKETS); onRead is not.
    expect(new S3Store({ bucket: 'site', ...server.clientOptions, onRead: () => undefined })['client']).toBe(
      s3Client({ maxSockets: S3_STORE_SOCKETS, ...server.clientOptions }),
    );
    expect(new S3Store({ bucket: 'other', ...server.clientOptions })['client']).toBe(
      new S3Store({ bucket: 'site', ...server.clientOptions, onRead: () => undefined })['client'],
    );
  });
});

function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}
