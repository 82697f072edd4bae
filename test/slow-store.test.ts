/**
 * One deadline per request (STORE_TIMEOUT_MS) for all its store reads, the pointer included, over a loopback fake S3
 * that answers late and over a folder: reads each under the deadline but over it together are one 503 at the
 * deadline, and each read still running then is aborted. (The slow-S3 attack itself is test/slow-s3.slow.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { keys } from '../shim/format/site-format.ts';
import { DEFAULT_STORE_TIMEOUT_MS, LAMBDA_TIMEOUT_SECONDS, withDeadline } from '../shim/store/deadline.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { runWithDeadline } from '../shim/store/request-deadline.ts';
import { StoreError, type Store } from '../shim/store/types.ts';
import { sleep, until, useFakeS3Site } from './helpers/fake-s3-site.ts';
import { firmPackKey } from './helpers/firm-pack.ts';
import { createHandler } from '../shim/aws/handler.ts';
import { lazyS3Store } from '../shim/aws/lazy-s3.ts';
import { loadLambdaEnv } from '../shim/edge/env.ts';
import { functionUrlEvent } from '../bench/lib/function-url.ts';

const SITE = (): string => process.env.TEST_SITE_DIR as string;
/** The deadline of a request's store reads in these tests (STORE_TIMEOUT_MS). */
const DEADLINE_MS = 1500;

const site = useFakeS3Site(DEADLINE_MS);
const { get } = site;

describe('one deadline per request covers all its store reads, the pointer included', () => {
  it('over S3: pointer, meta and firm reads each slow but under the deadline are one 503 at the deadline', async () => {
    // Each read alone is well inside the deadline; the three or more a cold firm read needs are not.
    site.fake.fault = () => ({ delayMs: Math.round(DEADLINE_MS * 0.6) });
    await site.startServer();
    const got = await get(`/v1/firms/${site.firmIds[0] as string}`);
    expect(got.status).toBe(503);
    expect(Number(got.retryAfter)).toBeGreaterThan(0);
    expect(got.ended - got.started).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
    // Generous for a shared machine; without the one deadline it was a 200 after 1.8 deadlines.
    expect(got.ended - got.started).toBeLessThan(DEADLINE_MS + 3000);
    site.fake.fault = () => null;
    // The late reads were aborted: nothing of them is left open at S3.
    expect(await until(() => site.fake.held() === 0, 3000), `${site.fake.held()} responses still held`).toBe(true);
    expect((await get(`/v1/firms/${site.firmIds[0] as string}`)).status).toBe(200);
  }, 20_000);

  it('over a folder: the reads of one request share the deadline, and each is aborted at it', async () => {
    const folder = new FolderStore(SITE());
    const aborted: string[] = [];
    // A folder whose every read takes 300 ms (a slow mount a test cannot make with files), honouring the signal.
    const slowFolder: Store = {
      kind: 'slow-folder',
      get: (key, options) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve(folder.get(key)), 300);
          options?.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            aborted.push(key);
            reject(new StoreError('aborted', key));
          });
        }),
    };
    const source = createSiteSource(withDeadline(slowFolder, 500));
    const t = performance.now();
    // Pointer, meta and coverage: 900 ms of reads against one 500 ms deadline.
    const read = runWithDeadline(500, async () => {
      const reader = await source.current();
      return reader.json(keys.coverage(reader.version), z.unknown());
    });
    await expect(read).rejects.toBeInstanceOf(StoreError);
    const ms = performance.now() - t;
    expect(ms).toBeGreaterThanOrEqual(450);
    // Below the 900 ms the three reads take one after another: the deadline ended it, not the last read.
    expect(ms).toBeLessThan(900);
    expect(aborted.length).toBe(1);
    // With a whole deadline of its own, the same request succeeds.
    const fresh = createSiteSource(withDeadline(slowFolder, 500));
    const ok = await runWithDeadline(2000, async () => {
      const reader = await fresh.current();
      return reader.json(keys.coverage(reader.version), z.unknown());
    });
    expect(ok).not.toBeNull();
  });

  it('on Lambda: one invocation reading pointer, meta and a firm, each 0.4 of the deadline, is one 503 at it', async () => {
    const folder = new FolderStore(SITE());
    const step = Math.round(DEFAULT_STORE_TIMEOUT_MS * 0.4);
    // The handler's own deadline (DEFAULT_STORE_TIMEOUT_MS) over a folder whose every read takes 0.4 of it.
    const slowFolder: Store = {
      kind: 'slow-folder',
      get: (key, options) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve(folder.get(key)), step);
          options?.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new StoreError('aborted', key));
          });
        }),
    };
    const secret = 'a-secret-of-enough-length-for-the-origin-check';
    const handler = createHandler(
      loadLambdaEnv({ SITE_BUCKET: 'directory-site', SALT_BUCKET: 'directory-salt', ORIGIN_VERIFY_SECRETS: secret }),
      {
        store: withDeadline(slowFolder, DEFAULT_STORE_TIMEOUT_MS),
        salt: { saltFor: async () => new Uint8Array(32) },
        log: { write: () => undefined },
      },
    );
    const t = performance.now();
    const result = await handler(functionUrlEvent({ target: `/v1/firms/${site.firmIds[0] as string}` }, secret));
    const ms = performance.now() - t;
    expect(result.statusCode).toBe(503);
    expect(ms).toBeGreaterThanOrEqual(DEFAULT_STORE_TIMEOUT_MS - 100);
    // Without the one deadline the three reads answered 200 after 1.2 deadlines.
    expect(ms).toBeLessThan(DEFAULT_STORE_TIMEOUT_MS + 1000);
  }, 20_000);

  it("on Lambda the S3 store loaded on first use hands the deadline's abort on: no stalled read keeps its socket", async () => {
    site.fake.fault = () => 'stall';
    // The Lambda's store as the handler builds it (lazy-s3.ts), over the fake S3 whose answers never start.
    const store = withDeadline(
      lazyS3Store({ bucket: 'site', endpoint: site.fake.endpoint, region: 'us-east-1', forcePathStyle: true }),
      500,
    );
    const sample = process.env.TEST_SITE_DIR as string;
    const reads = site.firmIds.slice(0, 5).map((id) => store.get(firmPackKey(sample, site.version, id)));
    for (const read of reads) await expect(read).rejects.toThrow(/within 500 ms/);
    // Without the signal passed through, every stalled answer stays open until S3's own socket timeout.
    expect(await until(() => site.fake.held() === 0, 1500), `${site.fake.held()} responses still held`).toBe(true);
  }, 20_000);

  it("on Lambda the one deadline ends at least 3 s inside the function's timeout, left for the answer", () => {
    expect(DEFAULT_STORE_TIMEOUT_MS + 3000).toBeLessThanOrEqual(LAMBDA_TIMEOUT_SECONDS * 1000);
  });

  it('over a folder: a read started after the deadline passed is refused without touching the store', async () => {
    let reads = 0;
    const counting: Store = { kind: 'counting', get: (key) => (reads++, new FolderStore(SITE()).get(key)) };
    const store = withDeadline(counting, 1000);
    await runWithDeadline(50, async () => {
      await sleep(100);
      await expect(store.get('current.json')).rejects.toThrow(/within 50 ms/);
    });
    expect(reads).toBe(0);
  });
});
