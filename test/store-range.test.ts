/**
 * Store.getRange: one suite run over every store that reads ranges (folder, memory, S3 on a real s3rver) and through
 * withDeadline over each: the bytes are those of the object as stored, a missing key is null, a range past the end or
 * of a gzip-encoded object is a StoreError. Then the decorators: a deadline cuts a stalled range read short, and the
 * bench's counting and round stores record range reads under `<key>#<start>-<end>`.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RoundStore } from '../bench/cold/round-store.ts';
import { CountingStore, RereadStore } from '../bench/lib/counting-store.ts';
import { withDeadline, StoreDeadlineError } from '../shim/store/deadline.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { S3Store } from '../shim/store/s3.ts';
import { s3Client } from '../shim/store/s3-client.ts';
import { StoreError, type Store } from '../shim/store/types.ts';
import { startFakeS3, type FakeS3 } from './helpers/fake-s3.ts';
import { useS3rver } from './helpers/s3rver.ts';

const ROOT = 'v/2026-W47.abc';
/** Cell objects packed in one object: random bytes, which publishing stores as they are (gzip would not save 10%). */
const PACKED = `${ROOT}/cells/packed/8528347.bin`;
/** A JSON document large and repetitive enough that publishing stores it gzip-encoded. */
const DOCUMENT = `${ROOT}/shards/5/85283473fffffff.json`;
const SMALL = `${ROOT}/meta.json`;
const FIXTURES: Record<string, Uint8Array> = {
  [PACKED]: randomBytes(6000),
  [DOCUMENT]: utf8(JSON.stringify({ offices: Array.from({ length: 500 }, (_, i) => ({ i, name: `Office ${i}` })) })),
  [SMALL]: utf8(JSON.stringify({ note: 'naïve café ✓', n: 1 })),
};
const MISSING = [`${ROOT}/cells/packed/0000000.bin`, 'nope.json', `${SMALL}/below-a-file.bin`];

function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function size(key: string): number {
  return FIXTURES[key]!.byteLength;
}

/** What one store gives the shared suite. */
interface Subject {
  name: string;
  store: () => Store;
  /** True when DOCUMENT is stored gzip-encoded, so a range of it is refused. */
  gzipStored: boolean;
}

/** The range asked for and the bytes of the object it must return. */
function expectRange(got: Uint8Array | null, key: string, start: number, end: number): void {
  expect(got, `${key} ${start}-${end}`).not.toBeNull();
  expect(Buffer.from(got!).equals(Buffer.from(FIXTURES[key]!.subarray(start, end))), `${key} ${start}-${end}`).toBe(
    true,
  );
}

async function rejection(read: Promise<unknown>): Promise<unknown> {
  return read.then(
    () => null,
    (err: unknown) => err,
  );
}

function rangeContract(subject: Subject): void {
  describe(`getRange: ${subject.name}`, () => {
    const range = (key: string, start: number, end: number): Promise<Uint8Array | null> => {
      const store = subject.store();
      expect(store.getRange, 'the store reads ranges').toBeDefined();
      return store.getRange!(key, start, end);
    };

    it('returns the first bytes, a middle range, the last byte and a single byte', async () => {
      expectRange(await range(PACKED, 0, 16), PACKED, 0, 16);
      expectRange(await range(PACKED, 1000, 2500), PACKED, 1000, 2500);
      expectRange(await range(PACKED, size(PACKED) - 1, size(PACKED)), PACKED, size(PACKED) - 1, size(PACKED));
      expectRange(await range(PACKED, 4321, 4322), PACKED, 4321, 4322);
      expectRange(await range(SMALL, 3, size(SMALL)), SMALL, 3, size(SMALL));
      expectRange(await range(PACKED, 0, size(PACKED)), PACKED, 0, size(PACKED));
    });

    it('returns the bytes get returns, sliced', async () => {
      const store = subject.store();
      const whole = (await store.get(PACKED))!;
      for (const [start, end] of [
        // Not [0, 1]: s3rver reads `bytes=0-0` as the whole object (S3 answers one byte), which S3Store refuses.
        [0, 2],
        [17, 900],
        [2999, 3001],
        [5000, 6000],
      ] as const) {
        const got = await store.getRange!(PACKED, start, end);
        expect(Buffer.from(got!).equals(Buffer.from(whole.subarray(start, end))), `${start}-${end}`).toBe(true);
      }
    });

    it('answers null for a key that does not exist', async () => {
      for (const key of MISSING) expect(await range(key, 0, 4), key).toBeNull();
    });

    it('is a StoreError naming the key when the range ends or starts past the object', async () => {
      for (const [start, end] of [
        [size(PACKED) - 10, size(PACKED) + 1],
        [0, size(PACKED) + 500],
        [size(PACKED), size(PACKED) + 1],
        [size(PACKED) + 100, size(PACKED) + 200],
      ] as const) {
        const err = await rejection(range(PACKED, start, end));
        expect(err, `${start}-${end}`).toBeInstanceOf(StoreError);
        expect((err as StoreError).key).toBe(PACKED);
      }
    });

    it('rejects an unsafe key and an empty, reversed or negative range with StoreError before reading', async () => {
      for (const [key, start, end] of [
        ['../etc/passwd', 0, 4],
        ['v//meta.json', 0, 4],
        [PACKED, 5, 5],
        [PACKED, 6, 5],
        [PACKED, -1, 5],
        [PACKED, 0.5, 5],
      ] as const) {
        expect(await rejection(range(key, start, end)), `${key} ${start}-${end}`).toBeInstanceOf(StoreError);
      }
    });

    if (subject.gzipStored) {
      it('is a StoreError for an object stored gzip-encoded, whose get is inflated', async () => {
        const err = await rejection(range(DOCUMENT, 0, 16));
        expect(err).toBeInstanceOf(StoreError);
        expect((err as StoreError).message).toMatch(/gzip/);
        expect(Buffer.from((await subject.store().get(DOCUMENT))!).equals(Buffer.from(FIXTURES[DOCUMENT]!))).toBe(true);
      });
    } else {
      it('reads a range of the JSON document, stored as it is', async () => {
        expectRange(await range(DOCUMENT, 100, 400), DOCUMENT, 100, 400);
      });
    }
  });
}

// --- the stores -----------------------------------------------------------------------------------

let folder = '';
afterAll(async () => {
  if (folder !== '') await rm(folder, { recursive: true, force: true });
});
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'store-range-'));
  for (const [key, bytes] of Object.entries(FIXTURES)) {
    await mkdir(dirname(join(folder, key)), { recursive: true });
    await writeFile(join(folder, key), bytes);
  }
});

const server = useS3rver({ buckets: [] });
const BUCKET = 'store-range';
const PREFIX = 'prod/';
beforeAll(async () => {
  const client = s3Client(server.clientOptions);
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  for (const [key, bytes] of Object.entries(FIXTURES)) await putAsPublished(key, bytes);
});

/** PutObject as publishSite stores a body: gzip-encoded when it is over 1 KiB and that saves 10%. */
async function putAsPublished(key: string, bytes: Uint8Array): Promise<void> {
  const packed = gzipSync(bytes, { level: 6 });
  const gzip = bytes.byteLength > 1024 && packed.byteLength <= bytes.byteLength * 0.9;
  await s3Client(server.clientOptions).send(
    new PutObjectCommand({
      Bucket: BUCKET,
      Key: PREFIX + key,
      Body: gzip ? packed : bytes,
      ...(gzip ? { ContentEncoding: 'gzip' } : {}),
    }),
  );
}

const s3Reads: [string, number, number][] = [];
const SUBJECTS: Subject[] = [
  { name: 'FolderStore', store: () => new FolderStore(folder), gzipStored: false },
  { name: 'MemoryStore', store: () => new MemoryStore(new Map(Object.entries(FIXTURES))), gzipStored: false },
  {
    name: 'S3Store (s3rver)',
    store: () =>
      new S3Store({
        bucket: BUCKET,
        prefix: PREFIX,
        ...server.clientOptions,
        onRead: (key, wire, decoded) => s3Reads.push([key, wire, decoded]),
      }),
    gzipStored: true,
  },
];

for (const subject of SUBJECTS) {
  rangeContract(subject);
  rangeContract({
    ...subject,
    name: `withDeadline(${subject.name})`,
    store: () => withDeadline(subject.store(), 5000),
  });
}

describe('getRange on S3 beyond the shared cases', () => {
  it('tells onRead the range bytes as received and as returned', async () => {
    s3Reads.length = 0;
    const store = SUBJECTS[2]!.store();
    await store.getRange!(PACKED, 10, 110);
    await rejection(store.getRange!(DOCUMENT, 0, 16));
    expect(s3Reads).toEqual([[PACKED, 100, 100]]);
  });
});

describe('decorators and getRange', () => {
  it('withDeadline and the bench stores read ranges only when the store they wrap does', () => {
    const whole: Store = { kind: 'whole', get: (key) => Promise.resolve(FIXTURES[key] ?? null) };
    for (const store of [
      withDeadline(whole, 1000),
      new CountingStore(whole),
      new RereadStore(whole),
      new RoundStore(whole),
    ])
      expect(store.getRange, store.kind).toBeUndefined();
    const ranged = new FolderStore(folder);
    for (const store of [
      withDeadline(ranged, 1000),
      new CountingStore(ranged),
      new RereadStore(ranged),
      new RoundStore(ranged),
    ])
      expect(store.getRange, store.kind).toBeDefined();
  });

  describe('withDeadline over a stalled S3', () => {
    let fake: FakeS3;
    beforeAll(async () => {
      fake = await startFakeS3(folder, BUCKET);
      fake.fault = () => 'stall';
    });
    afterAll(async () => {
      await fake.stop();
    });

    it('gives a range read up at the deadline and lets go of the connection', async () => {
      const store = withDeadline(
        new S3Store({ bucket: BUCKET, ...server.clientOptions, endpoint: fake.endpoint }),
        300,
      );
      const began = performance.now();
      const err = await rejection(store.getRange!(PACKED, 0, 16));
      expect(err).toBeInstanceOf(StoreDeadlineError);
      expect((err as StoreError).key).toBe(PACKED);
      expect(performance.now() - began).toBeLessThan(3000);
      await expect.poll(() => fake.held(), { timeout: 3000 }).toBe(0);
    });
  });

  it('CountingStore and RereadStore record a range read under <key>#<start>-<end>, with its bytes', async () => {
    const counting = new CountingStore(new FolderStore(folder));
    await counting.getRange!(PACKED, 100, 164);
    await counting.getRange!(MISSING[0]!, 0, 8);
    await counting.get(SMALL);
    expect(counting.reads.map((r) => [r.key, r.bytes, r.found])).toEqual([
      [`${PACKED}#100-164`, 64, true],
      [`${MISSING[0]}#0-8`, 0, false],
      [SMALL, size(SMALL), true],
    ]);
    expect(counting.bytes).toBe(64 + size(SMALL));
    const reread = new RereadStore(new FolderStore(folder));
    await reread.getRange!(PACKED, 0, 10);
    await reread.getRange!(PACKED, 10, 20);
    await reread.getRange!(PACKED, 0, 10);
    await reread.get(PACKED);
    expect([reread.reads, reread.rereads]).toEqual([4, 1]);
  });

  it('RoundStore holds a range read with the gets asked beside it and records it as <key>#<start>-<end>', async () => {
    const rounds = new RoundStore(new FolderStore(folder));
    const counting = new CountingStore(rounds);
    const [range, whole] = await Promise.all([counting.getRange!(PACKED, 0, 32), counting.get(SMALL)]);
    expectRange(range, PACKED, 0, 32);
    expect(whole).not.toBeNull();
    // A read that needs a result of the first round goes out in the second.
    expectRange(await counting.getRange!(PACKED, 32, 64), PACKED, 32, 64);
    await rounds.settled();
    expect(rounds.rounds).toEqual([[`${PACKED}#0-32`, SMALL], [`${PACKED}#32-64`]]);
    expect(counting.reads.map((r) => r.key)).toEqual([`${PACKED}#0-32`, SMALL, `${PACKED}#32-64`]);
  });

  it('RoundStore passes a failed range read back to its caller', async () => {
    const rounds = new RoundStore(new FolderStore(folder));
    expect(await rejection(rounds.getRange!(PACKED, 0, size(PACKED) + 1))).toBeInstanceOf(StoreError);
    expect(rounds.rounds).toEqual([[`${PACKED}#0-${size(PACKED) + 1}`]]);
  });
});
