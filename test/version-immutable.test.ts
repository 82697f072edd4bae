/**
 * Versions are immutable (no byte under v/<version>/ changes once written), in a site folder and in a bucket: the same
 * week released again over another live version gets a new id, since its changes document compares with that version.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
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

/**
 * What an older generator would have left: `rel` of `version` with other bytes (written to a new file and renamed, so
 * that a file shared by copy-on-write with another version keeps its bytes), recorded in meta.json and the manifest.
 */
async function asIfOlderGenerator(site: string, version: string, rel: string): Promise<void> {
  const root = join(site, keys.root(version));
  const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
  const replace = async (path: string, text: string): Promise<void> => {
    await writeFile(`${path}.new`, text);
    await rename(`${path}.new`, path);
  };
  const doc = JSON.parse(await readFile(join(root, rel), 'utf8')) as { info: { description: string } };
  doc.info.description = `${doc.info.description} (as an older generator wrote it)`;
  const text = `${JSON.stringify(doc)}\n`;
  await replace(join(root, rel), text);
  const meta = JSON.parse(await readFile(join(root, 'meta.json'), 'utf8')) as { sha256: Record<string, string> };
  meta.sha256[rel] = sha(text);
  const metaText = `${JSON.stringify(meta)}\n`;
  await replace(join(root, 'meta.json'), metaText);
  const manifest = JSON.parse(await readFile(join(root, 'manifest.json'), 'utf8')) as {
    objects: Record<string, { sha256: string; bytes: number }>;
  };
  manifest.objects[keys.root(version) + rel] = { sha256: sha(text), bytes: Buffer.byteLength(text) };
  manifest.objects[keys.root(version) + 'meta.json'] = { sha256: sha(metaText), bytes: Buffer.byteLength(metaText) };
  await replace(join(root, 'manifest.json'), `${JSON.stringify(manifest)}\n`);
}

describe('the live week released again after a generator upgrade (same inputs, other bytes)', () => {
  it('is refused saying what differs and what to do; --new-version releases it over the live version', async () => {
    const data = await copyFixture();
    const dir = await tempDir('immutable-upgrade');
    const site = join(dir, 'site');
    const releaseCli = (...extra: string[]): { status: number | null; stdout: string; stderr: string } =>
      spawnSync(
        process.execPath,
        ['generator/release/cli.ts', '--data', data, '--site', site, '--records', join(dir, 'rec'), ...extra],
        { encoding: 'utf8' },
      );
    const first = releaseCli();
    expect(first.status, first.stderr).toBe(0);
    const live = (): string =>
      (JSON.parse(readFileSync(join(site, 'current.json'), 'utf8')) as { version: string }).version;
    const x = live();
    await asIfOlderGenerator(site, x, 'openapi.json');
    const before = await versionBytes(site, x);

    const refused = releaseCli('--week', '2026-W47');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `version ${x} is already in ${site} with other bytes (meta.json, openapi.json): the same inputs give the same version id, but this generator writes those objects otherwise`,
    );
    expect(refused.stderr).toContain(
      `${x} is live with these inputs: to keep it, there is nothing to do (it stays as it is); to publish this generator's output instead, run npm run release -- --week 2026-W47 --new-version, which makes it a new version over ${x}`,
    );
    expect(live()).toBe(x);

    const again = releaseCli('--week', '2026-W47', '--new-version');
    expect(again.status, again.stderr).toBe(0);
    const y = live();
    expect(y).not.toBe(x);
    expect(y.startsWith('2026-W47-')).toBe(true);
    expect(await versionBytes(site, x)).toEqual(before);
    const changes = JSON.parse(await readFile(join(site, keys.changes(y)), 'utf8')) as {
      previous: { version: string } | null;
      counts: { added: number; removed: number; changed: number };
    };
    expect(changes.previous?.version).toBe(x);
    expect(changes.counts).toMatchObject({ added: 0, removed: 0, changed: 0 });
    const checked = await checkManifest(await openSite({ kind: 'folder', dir: site }, y));
    expect(checked.problems).toEqual([]);
    // Run again without the flag, the week reproduces the now-live new version: nothing refused, nothing new.
    const same = releaseCli('--week', '2026-W47');
    expect(same.status, same.stderr).toBe(0);
    expect(live()).toBe(y);
  }, 240_000);
});
