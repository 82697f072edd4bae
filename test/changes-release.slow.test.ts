/**
 * On a release to a bucket the changes document compares with the bucket's live version (not whatever the local folder
 * holds), and audit measure reads a bucket like a folder. Real S3-protocol server (s3rver) on loopback.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { measure } from '../generator/audit/measure.ts';
import { openSite } from '../generator/site/site.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { release } from '../generator/release/release.ts';
import { ChangesDoc, keys } from '../shim/format/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { addFollowingWeek, copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { useS3rver } from './helpers/s3rver.ts';

const silent = { log: (): void => {} };
const s3 = useS3rver();
afterAll(removeTempDirs);

it('compares with the version live in the bucket, and audit measure checks the bucket', async () => {
  const bucket = { bucket: 'site', ...s3.clientOptions };
  const store = new S3Store({ ...bucket });
  const records = await tempDir('changes-records');
  const data = await copyFixture();
  const first = await release({
    dataDir: data,
    siteDir: join(await tempDir('changes-a'), 'site'),
    recordsDir: records,
    bucket,
    ...silent,
  });
  expect(first.outcome, first.error ?? '').toBe('released');

  // Next week, released from another machine whose site folder is empty: the bucket is what was live.
  const { from, to } = await addFollowingWeek(data);
  const places = (await readFile(join(from, 'places.jsonl'), 'utf8')).replace(/"Gamma Injury"/g, '"Gamma Injury Law"');
  await writeFile(join(to, 'places.jsonl'), places);
  const second = await release({
    dataDir: data,
    siteDir: join(await tempDir('changes-b'), 'site'),
    recordsDir: records,
    bucket,
    ...silent,
  });
  expect(second.outcome, second.error ?? '').toBe('released');
  expect(second.version).not.toBe(first.version);

  const bytes = await store.get(keys.changes(second.version as string));
  expect(bytes).not.toBeNull();
  const doc = ChangesDoc.parse(JSON.parse(Buffer.from(bytes as Uint8Array).toString('utf8')));
  expect(doc.previous).toEqual({ version: first.version, week: '2026-W47' });
  expect(doc.changed).toEqual([
    {
      listing_id: listingIdOf('p7'),
      firm_id: expect.any(String),
      name: 'Gamma Injury Law',
      city: 'Chicago',
      state: 'IL',
      fields: [{ field: 'name', old: 'Gamma Injury', new: 'Gamma Injury Law', reason: { kind: 'weekly_data' } }],
    },
  ]);
  expect(doc.added).toEqual([]);
  expect(doc.removed).toEqual([]);

  const report = await measure({ site: { kind: 's3', ...bucket } });
  expect(report.version).toBe(second.version);
  expect(report.mismatches).toEqual([]);
  expect(report.problems).toEqual([]);
  expect(report.firm_documents).toBe(report.offices);

  // A same-day correction goes up as a layer over the live version; its changes document and measurement still check.
  const correction = {
    action: 'update',
    place_id: 'p1',
    reason: 'Call from the office manager',
    date: '2026-11-26',
    public_note: 'Phone corrected by the firm',
    set: { phone: '(312) 555-0177' },
  };
  await writeFile(join(data, 'corrections.jsonl'), `${JSON.stringify(correction)}\n`);
  const third = await release({
    dataDir: data,
    siteDir: join(await tempDir('changes-c'), 'site'),
    recordsDir: records,
    bucket,
    ...silent,
  });
  expect(third.outcome, third.error ?? '').toBe('released');
  const layered = await openSite({ kind: 's3', ...bucket });
  expect(layered.version).toBe(third.version);
  expect(layered.meta.layers).toBeDefined();
  const fix = await layered.json(keys.changes(third.version as string), ChangesDoc);
  expect(fix?.previous?.version).toBe(second.version);
  expect(fix?.changed).toEqual([
    {
      listing_id: listingIdOf('p1'),
      firm_id: expect.any(String),
      name: 'Alpha Injury Law',
      city: 'Chicago',
      state: 'IL',
      fields: [
        {
          field: 'phone',
          old: '(312) 555-0100',
          new: '(312) 555-0177',
          reason: { kind: 'correction', date: '2026-11-26', note: 'Phone corrected by the firm' },
        },
      ],
    },
  ]);
  expect(JSON.stringify(fix)).not.toContain('office manager');
  const again = await measure({ site: { kind: 's3', ...bucket } });
  expect(again.version).toBe(third.version);
  expect(again.mismatches).toEqual([]);
}, 180_000);
