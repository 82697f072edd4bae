/**
 * Pruning old version prefixes: the plan keeps the serving version, the newest N, everything a kept layer reads from and
 * anything young; on s3rver exactly the planned prefixes disappear and every object a kept version reads stays.
 */
import { execFile } from 'node:child_process';
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPool } from '../generator/write/pool.ts';
import {
  planPrune,
  pruneBucket,
  PruneStoppedError,
  type StoredVersionInfo,
} from '../generator/publish/prune-bucket.ts';
import { createS3Client, s3Client } from '../shim/store/s3-client.ts';
import type { LayersT } from '../shim/format/site-format.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { isDeleteObjects, startStallProxy, type StallProxy } from './helpers/stall-proxy.ts';

const DAY = 86_400_000;
const layerOver = (base: string, objects: LayersT['objects']): LayersT => ({
  base,
  generated_meta: { sha256: 'x', bytes: 1 },
  objects,
});
const info = (version: string, week: string | null, t: number, layers?: LayersT): StoredVersionInfo => ({
  version,
  week,
  metaModifiedMs: week === null ? null : t,
  newestMs: t,
  layers,
  objects: 3,
  bytes: 30,
});

describe('planPrune', () => {
  const now = 100 * DAY;
  const versions = [
    info('2026-W44-a', '2026-W44', 10 * DAY),
    info('2026-W45-b', '2026-W45', 11 * DAY),
    info('2026-W46-c', '2026-W46', 12 * DAY),
    info(
      '2026-W46-d',
      '2026-W46',
      13 * DAY,
      layerOver('2026-W46-c', { 'firms/x.json': { in: '2026-W45-b', sha256: 's', bytes: 1 }, 'firms/y.json': null }),
    ),
    info('2026-W47-e', null, 14 * DAY),
  ];

  it('keeps the serving layer, its base and every version its map names; deletes the rest', () => {
    const plan = planPrune(versions, '2026-W46-d', 1, now, DAY);
    expect(plan.keep).toEqual([
      { version: '2026-W45-b', why: 'read by a kept version' },
      { version: '2026-W46-c', why: 'read by a kept version' },
      { version: '2026-W46-d', why: 'serving' },
    ]);
    expect(plan.remove.map((r) => r.version)).toEqual(['2026-W44-a', '2026-W47-e']);
  });

  it('keeps the newest N by week then meta time, counting the serving one, and never what is younger than the minimum age', () => {
    const plan = planPrune(versions, '2026-W44-a', 2, now, DAY);
    expect(plan.keep.map((k) => [k.version, k.why])).toEqual([
      ['2026-W44-a', 'serving'],
      ['2026-W45-b', 'read by a kept version'],
      ['2026-W46-c', 'read by a kept version'],
      ['2026-W46-d', 'recent'],
    ]);
    expect(plan.remove.map((r) => r.version)).toEqual(['2026-W47-e']);
    const young = planPrune(versions, '2026-W46-d', 1, 14 * DAY + 1000, DAY);
    expect(young.keep.find((k) => k.version === '2026-W47-e')?.why).toBe('younger than the minimum age');
  });

  it('refuses when the serving version or a prefix a kept version reads is missing, and when keep < 1', () => {
    expect(() => planPrune(versions, '2026-W48-z', 1, now, DAY)).toThrow(/pointer names 2026-W48-z/);
    expect(() =>
      planPrune(
        versions.filter((v) => v.version !== '2026-W45-b'),
        '2026-W46-d',
        1,
        now,
        DAY,
      ),
    ).toThrow(/reads from v\/2026-W45-b\//);
    expect(() => planPrune(versions, '2026-W46-d', 0, now, DAY)).toThrow(/keep must be/);
  });
});

// Asynchronously: s3rver runs in this process and must keep answering while the CLI waits on it.
const runPrune = (args: string[]): Promise<{ status: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['generator/publish/prune-cli.ts', ...args],
      { env: { ...process.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } },
      (err, stdout, stderr) =>
        resolve({ status: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });

describe('pruneBucket on s3rver', () => {
  const BUCKET = 'site';
  const s3 = useS3rver({ buckets: [BUCKET] });
  let client: S3Client;
  const put = (key: string, body: string): Promise<unknown> =>
    client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  const keysUnder = async (prefix: string): Promise<string[]> => {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
    return (page.Contents ?? []).map((o) => o.Key ?? '').sort();
  };

  beforeAll(async () => {
    client = s3Client(s3.clientOptions);
    const meta = (version: string, week: string, layers?: LayersT): string =>
      JSON.stringify({ schema_version: 2, version, week, ...(layers ? { layers } : {}) });
    for (const [v, w] of [
      ['2026-W44-a', '2026-W44'],
      ['2026-W45-b', '2026-W45'],
      ['2026-W46-c', '2026-W46'],
    ] as const) {
      await put(`prod/v/${v}/firms/x.json`, '{}');
      await put(`prod/v/${v}/firms/y.json`, '{}');
      await put(`prod/v/${v}/meta.json`, meta(v, w));
    }
    await put('prod/v/2026-W46-d/firms/z.json', '{}');
    await put(
      'prod/v/2026-W46-d/meta.json',
      meta(
        '2026-W46-d',
        '2026-W46',
        layerOver('2026-W46-c', {
          'firms/x.json': { in: '2026-W45-b', sha256: 's', bytes: 2 },
          'firms/y.json': null,
          'firms/z.json': { in: '2026-W46-d', sha256: 's', bytes: 2 },
        }),
      ),
    );
    // An abandoned upload: objects, no meta.json.
    await put('prod/v/2026-W47-e/firms/x.json', '{}');
    await put('prod/current.json', JSON.stringify({ schema_version: 1, version: '2026-W46-d', week: '2026-W46' }));
    await put('other/v/2026-W40-q/meta.json', meta('2026-W40-q', '2026-W40'));
  });
  it('deletes nothing younger than the minimum age, nothing in a dry run, then exactly the unread prefixes', async () => {
    const before = await keysUnder('');
    const quiet = (): void => {};
    const young = await pruneBucket({ client, bucket: BUCKET, prefix: 'prod', keep: 1, log: quiet });
    expect(young.remove).toEqual([]);
    const later = () => Date.now() + 2 * DAY;
    const dry = await pruneBucket({
      client,
      bucket: BUCKET,
      prefix: 'prod/',
      keep: 1,
      dryRun: true,
      now: later,
      log: quiet,
    });
    expect(dry.remove.map((r) => r.version)).toEqual(['2026-W44-a', '2026-W47-e']);
    expect(await keysUnder('')).toEqual(before);

    const done = await pruneBucket({ client, bucket: BUCKET, prefix: 'prod/', keep: 1, now: later, log: quiet });
    expect(done.deletedObjects).toBe(4);
    const after = await keysUnder('');
    expect(after).toEqual(
      before.filter((k) => !k.startsWith('prod/v/2026-W44-a/') && !k.startsWith('prod/v/2026-W47-e/')),
    );
    // Every object the serving layer reads is still there: its own, its base's and the one its map sends elsewhere.
    for (const k of ['prod/v/2026-W46-d/firms/z.json', 'prod/v/2026-W45-b/firms/x.json', 'prod/v/2026-W46-c/meta.json'])
      expect(after).toContain(k);
    expect(after).toContain('other/v/2026-W40-q/meta.json');
  });

  it('the CLI has --help, checks its arguments and prunes with --dry-run', async () => {
    const run = runPrune;
    const help = await run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--keep <n>/);
    for (const flag of ['--batch-size <n>', '--request-timeout-ms <ms>', '--max-attempts <n>'])
      expect(help.stdout).toContain(flag);
    expect((await run(['--bucket', BUCKET, '--keep', '1', '--batch-size', '1001'])).status).toBe(2);
    expect((await run(['--bucket', BUCKET])).status).toBe(2);
    const dry = await run([
      '--bucket',
      BUCKET,
      '--prefix',
      'prod/',
      '--keep',
      '1',
      '--min-age-hours',
      '0',
      '--dry-run',
      '--endpoint',
      s3.endpoint,
    ]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('');
    expect(dry.stderr).toMatch(/keep {3}v\/2026-W46-d\/ \(serving\)/);
  });
});

describe('prune on a slow store (s3rver behind a proxy that stops answering chosen requests)', () => {
  const BUCKET = 'site';
  const s3 = useS3rver({ buckets: [BUCKET] });
  let client: S3Client;
  let proxy: StallProxy;
  const OLD_KEYS = 1050;
  const keysUnder = async (prefix: string): Promise<string[]> => {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: BUCKET,
          Prefix: prefix,
          ...(token !== undefined ? { ContinuationToken: token } : {}),
        }),
      );
      out.push(...(page.Contents ?? []).map((o) => o.Key ?? ''));
      token = page.NextContinuationToken;
    } while (token !== undefined);
    return out.sort();
  };
  /** A site under `root`: a kept version (3 objects) the pointer names, and an older one of `old` objects plus its meta.json. */
  const seed = async (root: string, old = OLD_KEYS): Promise<void> => {
    const put = (key: string, body: string): Promise<unknown> =>
      client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${root}${key}`, Body: body }));
    const meta = (version: string, week: string): string => JSON.stringify({ schema_version: 2, version, week });
    await runPool(
      Array.from({ length: old }, (_, i) => `v/2026-W40-old/firms/f${String(i).padStart(5, '0')}.json`),
      16,
      async (k) => {
        await put(k, '{}');
      },
    );
    await put('v/2026-W40-old/meta.json', meta('2026-W40-old', '2026-W40'));
    await put('v/2026-W41-new/firms/a.json', '{}');
    await put('v/2026-W41-new/firms/b.json', '{}');
    await put('v/2026-W41-new/meta.json', meta('2026-W41-new', '2026-W41'));
    await put('current.json', JSON.stringify({ schema_version: 1, version: '2026-W41-new', week: '2026-W41' }));
  };
  const kept = [
    'current.json',
    'v/2026-W41-new/firms/a.json',
    'v/2026-W41-new/firms/b.json',
    'v/2026-W41-new/meta.json',
  ];

  beforeAll(async () => {
    client = createS3Client({ ...s3.clientOptions, requestTimeoutMs: 60_000, socketTimeoutMs: 60_000 });
    proxy = await startStallProxy(s3.endpoint);
    await seed('a/');
    await seed('b/');
  }, 180_000);
  afterAll(async () => {
    await proxy?.stop();
  });

  it('a request the store never answers times out, the SDK retries it, and the prune of a 1,051-object version finishes', async () => {
    proxy.hold = { match: isDeleteObjects, skip: 1, times: 1 };
    const t0 = Date.now();
    const res = await runPrune([
      '--bucket',
      BUCKET,
      '--prefix',
      'a/',
      '--keep',
      '1',
      '--min-age-hours',
      '0',
      '--endpoint',
      proxy.endpoint,
      '--batch-size',
      '250',
      '--request-timeout-ms',
      '3000',
      '--max-attempts',
      '3',
    ]);
    const seconds = (Date.now() - t0) / 1000;
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe('deleted v/2026-W40-old/\n');
    // meta.json, then 1,050 objects in 5 requests of at most 250, one of them held once and sent again (s3rver under
    // load may take longer than the timeout on others too: those are sent again as well).
    expect(proxy.held).toBe(1);
    expect(proxy.matched).toBeGreaterThanOrEqual(1 + 5 + 1);
    expect(res.stderr).toMatch(/v\/2026-W40-old\/: 1050\/1050 objects deleted \(1051\/1051 in all/);
    expect(await keysUnder('a/')).toEqual(kept.map((k) => `a/${k}`).sort());
    process.stderr.write(
      `prune on s3rver: ${OLD_KEYS + 1} objects, ${proxy.matched} delete requests (1 held and retried), ${seconds.toFixed(1)} s\n`,
    );
  });

  it('a store that stops answering: prune stops with the kept version whole and no meta.json left on the half-deleted one; a re-run finishes', async () => {
    proxy.hold = { match: isDeleteObjects, skip: 2 };
    proxy.matched = 0;
    proxy.held = 0;
    const slow = createS3Client({
      ...s3.clientOptions,
      endpoint: proxy.endpoint,
      requestTimeoutMs: 5000,
      socketTimeoutMs: 5000,
      maxAttempts: 2,
    });
    const err = await pruneBucket({
      client: slow,
      bucket: BUCKET,
      prefix: 'b/',
      keep: 1,
      minAgeMs: 0,
      batchSize: 100,
      log: () => {},
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PruneStoppedError);
    expect((err as Error).message).toMatch(
      /^stopped in v\/2026-W40-old\/ after deleting 101 of 1051 objects: .*Every kept version is whole.*Run the same command again/,
    );
    expect(proxy.held).toBe(2);
    const left = await keysUnder('b/');
    for (const k of kept) expect(left).toContain(`b/${k}`);
    expect(left).not.toContain('b/v/2026-W40-old/meta.json');
    expect(left.filter((k) => k.startsWith('b/v/2026-W40-old/'))).toHaveLength(OLD_KEYS - 100);

    // The CLI says the same and exits 3; once the store answers again, the same command deletes what is left.
    proxy.hold = { match: isDeleteObjects };
    const pruneB = [
      '--bucket',
      BUCKET,
      '--prefix',
      'b/',
      '--keep',
      '1',
      '--min-age-hours',
      '0',
      '--endpoint',
      proxy.endpoint,
    ];
    const stopped = await runPrune([...pruneB, '--request-timeout-ms', '1000', '--max-attempts', '1']);
    expect(stopped.status).toBe(3);
    expect(stopped.stderr).toMatch(
      /prune: stopped in v\/2026-W40-old\/ after deleting 0 of 950 objects.*Every kept version is whole/,
    );
    proxy.hold = null;
    const again = await runPrune(pruneB);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/delete v\/2026-W40-old\/ \(950 objects/);
    expect(await keysUnder('b/')).toEqual(kept.map((k) => `b/${k}`).sort());
  });

  it('a rollback between planning and deleting: the pointer moved, nothing is deleted', async () => {
    await seed('c/', 5);
    proxy.hold = null;
    let reads = 0;
    proxy.before = async (req) => {
      if (req.method !== 'GET' || !(req.url ?? '').includes('c/current.json')) return;
      reads += 1;
      // The second read of the pointer comes after the plan: an operator rolls back to the version being pruned.
      if (reads === 2)
        await client.send(
          new PutObjectCommand({
            Bucket: BUCKET,
            Key: 'c/current.json',
            Body: JSON.stringify({ schema_version: 1, version: '2026-W40-old', week: '2026-W40' }),
          }),
        );
    };
    const before = await keysUnder('c/');
    const viaProxy = createS3Client({ ...s3.clientOptions, endpoint: proxy.endpoint });
    const err = await pruneBucket({
      client: viaProxy,
      bucket: BUCKET,
      prefix: 'c/',
      keep: 1,
      minAgeMs: 0,
      log: () => {},
    }).catch((e: unknown) => e);
    proxy.before = null;
    expect((err as Error).message).toMatch(
      /the pointer moved from 2026-W41-new to 2026-W40-old while planning: nothing deleted/,
    );
    expect(await keysUnder('c/')).toEqual(before);
  });
});
