/**
 * Versions are immutable (no byte under v/<version>/ changes once written), in a site folder and in a bucket: the same
 * week released again over another live version gets a new id, since its changes document compares with that version.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { paginateListObjectsV2 } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { checkManifest } from '../generator/audit/manifest.ts';
import { openSite } from '../generator/site/site.ts';
import { release } from '../generator/release/release.ts';
import { s3Client } from '../shim/store/s3-client.ts';
import { keys } from '../shim/format/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { copyFixture, readTree, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { type RunningS3rver } from '../bench/lib/s3rver.ts';
import { useS3rver } from './helpers/s3rver.ts';

const silent = { log: () => {} };
const PHONE_FIX = `${JSON.stringify({ action: 'update', place_id: 'p4', reason: 'firm called', date: '2026-11-20', set: { phone: '(312) 555-0199' } })}\n`;

/** Every object under `v/<version>/` of a folder, by key, with its bytes. */
async function versionBytes(site: string, version: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [k, b] of await readTree(site)) if (k.startsWith(keys.root(version))) out.set(k, b.toString('base64'));
  return out;
}

/** Every object of the bucket under `prefix`, by key, with its bytes. */
async function bucketBytes(s3: RunningS3rver, prefix: string): Promise<Map<string, string>> {
  const client = s3Client(s3.clientOptions);
  const store = new S3Store({ bucket: 'site', client });
  const out = new Map<string, string>();
  for await (const page of paginateListObjectsV2({ client }, { Bucket: 'site', Prefix: prefix })) {
    for (const o of page.Contents ?? [])
      if (o.Key) out.set(o.Key, Buffer.from((await store.get(o.Key)) as Uint8Array).toString('base64'));
  }
  return out;
}

const s3 = useS3rver();
afterAll(removeTempDirs);

describe('a week released again after a correction and its undoing', () => {
  for (const target of ['folder', 'bucket'] as const) {
    it(`${target}: gets a new version id; the first version keeps every byte`, async () => {
      const data = await copyFixture();
      const site = join(await tempDir(`immutable-${target}`), 'site');
      const records = await tempDir('immutable-rec');
      const bucket =
        target === 'bucket'
          ? { bucket: { bucket: 'site', prefix: `${target}-${Date.now()}/`, ...s3.clientOptions } }
          : {};
      const run = async (): Promise<string> => {
        const r = await release({ dataDir: data, siteDir: site, recordsDir: records, ...bucket, ...silent });
        expect(r.outcome, r.error ?? '').toBe('released');
        return r.version as string;
      };
      const first = await run();
      const folderBefore = await versionBytes(site, first);
      const inBucket = async (): Promise<Map<string, string> | null> =>
        target === 'folder' ? null : bucketBytes(s3, `${bucket.bucket?.prefix ?? ''}${keys.root(first)}`);
      const bucketBefore = await inBucket();
      if (bucketBefore !== null) expect(bucketBefore.size).toBeGreaterThan(10);
      expect(await run()).toBe(first); // the same inputs over the same live version: the same version, nothing new

      await writeFile(join(data, 'corrections.jsonl'), PHONE_FIX);
      const corrected = await run();
      expect(corrected).not.toBe(first);
      await writeFile(join(data, 'corrections.jsonl'), '');
      const undone = await run();
      // Its content equals the first version's, but its changes document compares with the corrected one.
      expect(undone).not.toBe(first);
      expect(undone).not.toBe(corrected);
      expect(await versionBytes(site, first)).toEqual(folderBefore);
      const changes = JSON.parse(await readFile(join(site, keys.changes(undone)), 'utf8')) as {
        previous: { version: string } | null;
      };
      expect(changes.previous?.version).toBe(corrected);
      expect(await inBucket()).toEqual(bucketBefore);
      // audit verify recomputes the new id from the content and the version compared with.
      const checked = await checkManifest(await openSite({ kind: 'folder', dir: site }, undone));
      expect(checked.problems).toEqual([]);
    }, 240_000);
  }
});
