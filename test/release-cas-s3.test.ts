/**
 * One release at a time on a bucket (a loopback s3rver): the pointer is written with If-Match on the ETag the release
 * started from (If-None-Match "*" on an empty bucket), read again just before, and a release whose base moved is
 * refused. s3rver itself ignores both conditions; bench/lib/s3rver.ts checks them on its side (conditionalWrites),
 * as S3 does, so the refusal by the condition is shown too. A rollback refusal names --bucket, --distribution and
 * the folders in the commands it suggests.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PutObjectCommand, type PutObjectCommandInput, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { readPointerBase } from '../generator/publish/pointer-cas.ts';
import { publishSite } from '../generator/publish/publish.ts';
import { release, type ReleaseOptions } from '../generator/release/release.ts';
import { LiveMovedError } from '../generator/write/live-moved.ts';
import { createS3Client } from '../shim/store/s3-client.ts';
import { firmPackPrefix, keys, Meta, Pointer } from '../shim/format/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { generateLive } from './helpers/generate-live.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

const s3 = useS3rver({ buckets: ['race', 'cas', 'moved', 'back'], conditionalWrites: true });
afterAll(removeTempDirs);

const silent = { log: () => {} };

async function setPhone(data: string, phone: string): Promise<void> {
  const file = join(data, 'weeks', '2026-W47', 'places.jsonl');
  const rows = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const out = rows.map((l) => {
    const p = JSON.parse(l) as Record<string, unknown>;
    return JSON.stringify(p.place_id === 'p1' ? { ...p, phone } : p);
  });
  await writeFile(file, `${out.join('\n')}\n`);
}

const bucketLive = async (bucket: string): Promise<string> => {
  const bytes = await new S3Store({ bucket, ...s3.clientOptions }).get(keys.pointer);
  return Pointer.parse(JSON.parse(Buffer.from(bytes as Uint8Array).toString('utf8'))).version;
};

/** The PutObject inputs `client` sends, recorded before they go. */
function recordPuts(client: S3Client): PutObjectCommandInput[] {
  const puts: PutObjectCommandInput[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutObjectCommand') puts.push({ ...(args.input as PutObjectCommandInput) });
      return next(args);
    },
    { step: 'initialize', name: 'recordPuts' },
  );
  return puts;
}

describe('two releases at once on a bucket', () => {
  it('the weekly release is refused when a removal release moved the pointer first; the removal holds', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('s3-race'), 'site');
    const records = await tempDir('s3-race-records');
    const bucket = { bucket: 'race', ...s3.clientOptions };
    const run = (dataDir: string, extra: Partial<ReleaseOptions> = {}) =>
      release({ dataDir, siteDir: site, recordsDir: records, bucket, verifySample: 5, ...silent, ...extra });
    const v0 = await run(data);
    expect(v0.outcome, v0.error ?? '').toBe('released');
    const other = await copyFixture();
    await appendFile(
      join(other, 'removals.jsonl'),
      `${JSON.stringify({ date: '2026-11-21', listing_id: listingIdOf('p3'), reason: 'asked to be removed' })}\n`,
    );
    await setPhone(data, '(312) 555-0181');
    let removal: Awaited<ReturnType<typeof release>> | undefined;
    const weekly = await run(data, {
      beforePointer: async () => {
        removal = await run(other);
      },
    });
    expect(removal?.outcome, removal?.error ?? '').toBe('released');
    expect(weekly.outcome).toBe('refused');
    expect(weekly.failed_step).toBe('live moved');
    expect(weekly.error).toContain('s3://race/');
    expect(await bucketLive('race')).toBe(removal?.version);
    const store = new S3Store({ bucket: 'race', ...s3.clientOptions });
    const version = removal?.version as string;
    const meta = Meta.parse(JSON.parse(new TextDecoder().decode((await store.get(keys.meta(version))) ?? undefined)));
    const pack = await store.get(keys.firmPack(version, firmPackPrefix(listingIdOf('p3'), meta.listing_prefix_length)));
    expect(pack).not.toBeNull();
    expect(new TextDecoder().decode(pack ?? undefined)).not.toContain(listingIdOf('p3'));
  });
});

describe('the conditional pointer write', () => {
  it('carries IfNoneMatch "*" on an empty bucket, then IfMatch on the ETag it started from', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('s3-cas'), 'site');
    const v1 = await generateLive({ dataDir: data, outDir: site, quiet: true, log: () => {} });
    const client = createS3Client(s3.clientOptions);
    const puts = recordPuts(client);
    const first = await publishSite({
      bucket: 'cas',
      siteDir: site,
      client,
      quiet: true,
      base: { version: null, etag: null },
    });
    expect(first.pointerWritten).toBe(true);
    const pointerPut = puts.filter((p) => p.Key === keys.pointer);
    expect(pointerPut.map((p) => [p.IfNoneMatch, p.IfMatch])).toEqual([['*', undefined]]);

    const base = await readPointerBase(client, 'cas', '');
    expect(base.version).toBe(v1.version);
    expect(base.etag).toMatch(/^"[0-9a-f]{32}"$/);
    await setPhone(data, '(312) 555-0182');
    await generateLive({ dataDir: data, outDir: site, quiet: true, log: () => {} });
    puts.length = 0;
    await publishSite({ bucket: 'cas', siteDir: site, client, quiet: true, base });
    expect(puts.filter((p) => p.Key === keys.pointer).map((p) => [p.IfNoneMatch, p.IfMatch])).toEqual([
      [undefined, base.etag],
    ]);
  });

  it('a pointer written by another release between the re-read and the write is refused by the condition', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('s3-moved'), 'site');
    await generateLive({ dataDir: data, outDir: site, quiet: true, log: () => {} });
    const client = createS3Client(s3.clientOptions);
    await publishSite({ bucket: 'moved', siteDir: site, client, quiet: true });
    const base = await readPointerBase(client, 'moved', '');
    await setPhone(data, '(312) 555-0183');
    const next = await generateLive({ dataDir: data, outDir: site, quiet: true, log: () => {} });
    // Another writer's pointer lands just as this one is sent (after the re-read): only the condition can refuse it.
    const intruder = `${JSON.stringify({ schema_version: 1, version: base.version, week: '2026-W47' })}\n`;
    const other = createS3Client(s3.clientOptions);
    client.middlewareStack.add(
      (nextHandler, context) => async (args) => {
        const input = args.input as PutObjectCommandInput;
        if (context.commandName === 'PutObjectCommand' && input.Key === keys.pointer)
          await other.send(new PutObjectCommand({ Bucket: 'moved', Key: keys.pointer, Body: intruder }));
        return nextHandler(args);
      },
      { step: 'initialize', name: 'intruder' },
    );
    const err = await publishSite({ bucket: 'moved', siteDir: site, client, quiet: true, base }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LiveMovedError);
    const bytes = await new S3Store({ bucket: 'moved', ...s3.clientOptions }).get(keys.pointer);
    expect(Buffer.from(bytes as Uint8Array).toString('utf8')).toBe(intruder);
    expect(await bucketLive('moved')).not.toBe(next.version);
  });

  it('a stale base is refused before anything is uploaded', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('s3-stale'), 'site');
    await generateLive({ dataDir: data, outDir: site, quiet: true, log: () => {} });
    const client = createS3Client(s3.clientOptions);
    const puts = recordPuts(client);
    const err = await publishSite({
      bucket: 'moved',
      siteDir: site,
      client,
      quiet: true,
      base: { version: null, etag: null },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiveMovedError);
    expect((err as Error).message).toMatch(/moved from \(none\) to .*run the release again/);
    expect(puts).toEqual([]);
  });
});

describe('rollback on a bucket', () => {
  it('a refusal names --bucket in the commands it suggests', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('s3-back'), 'site');
    const records = await tempDir('s3-back-records');
    const bucket = { bucket: 'back', ...s3.clientOptions };
    const v1 = await release({ dataDir: data, siteDir: site, recordsDir: records, bucket, verifySample: 5, ...silent });
    await setPhone(data, '(312) 555-0184');
    const v2 = await release({ dataDir: data, siteDir: site, recordsDir: records, bucket, verifySample: 5, ...silent });
    expect([v1.outcome, v2.outcome]).toEqual(['released', 'released']);
    const r = await release({
      dataDir: data,
      siteDir: site,
      recordsDir: records,
      bucket: { ...bucket, distributionId: 'EBACK' },
      invalidate: true,
      rollback: '2026-W47-0123456789',
      ...silent,
    });
    expect(r.outcome).toBe('refused');
    expect(r.error).toContain(
      `it may go back to ${v1.version as string} (npm run release -- --rollback <version> --bucket back`,
    );
    // Each suggested command acts where this one did: the same distribution, inputs, site folder and records.
    const where = ` --distribution EBACK --invalidate --data ${data} --site ${site} --records ${records}`;
    expect(r.error).toContain(`--rollback <version> --bucket back --endpoint ${s3.endpoint}${where})`);
    expect(r.error).toContain(`npm run release -- --week 2026-W47 --bucket back --endpoint ${s3.endpoint}${where}`);
    expect(await bucketLive('back')).toBe(v2.version);
    const back = await release({
      dataDir: data,
      siteDir: site,
      recordsDir: records,
      bucket,
      rollback: v1.version as string,
      ...silent,
    });
    expect(back.outcome, back.error ?? '').toBe('released');
    expect(await bucketLive('back')).toBe(v1.version);
  });
});
