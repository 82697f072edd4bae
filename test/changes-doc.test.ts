/**
 * The public changes document (v/<version>/changes.json): what changed since the version live before, and why, with no
 * private detail of a request; it agrees with `npm run audit -- diff` and is deterministic.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkManifest } from '../generator/audit/manifest.ts';
import { diffSites } from '../generator/audit/diff.ts';
import { openSite } from '../generator/site/site.ts';
import { generateLive } from './helpers/generate-live.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { ChangesDoc, keys, type ChangesDocT } from '../shim/format/site-format.ts';
import { addFollowingWeek, copyFixture, readJson, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';
import { startTestServer } from './helpers/server.ts';

const quiet = { quiet: true, log: (): void => {} };
const PRIVATE = ['Jane Roe', 'jane@roe.example', 'Mr Zeta', 'closed after a complaint'];

/** Week 2026-W48 from W47: Far Away Law (p8) gone, a new Gamma office (p11), Beta Legal renamed; plus a correction file and a firm removal. */
async function nextWeek(data: string): Promise<void> {
  const { from, to } = await addFollowingWeek(data);
  const rows = (await readFile(join(from, 'places.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const p7 = rows.find((r) => r.place_id === 'p7') as Record<string, unknown>;
  const out = rows
    .filter((r) => r.place_id !== 'p8')
    .map((r) => (r.place_id === 'p6' ? { ...r, name: 'Beta Legal LLP' } : r))
    .concat([{ ...p7, place_id: 'p11', street_address: 'P11 Lake St', lat: 41.886, lng: -87.63 }]);
  await writeFile(join(to, 'places.jsonl'), `${out.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const periods = [1, 2, 3, 4, 5].map((day) => ({ open: { day, time: '0800' }, close: { day, time: '1800' } }));
  const corrections = [
    {
      action: 'update',
      place_id: 'p1',
      reason: 'Email from Jane Roe <jane@roe.example>',
      date: '2026-11-24',
      public_note: 'Phone and hours corrected by the firm',
      set: { phone: '(312) 555-0199', opening_hours: { periods } },
    },
    { action: 'remove', place_id: 'p4', reason: 'closed after a complaint', date: '2026-11-23' },
  ];
  await writeFile(join(data, 'corrections.jsonl'), corrections.map((c) => `${JSON.stringify(c)}\n`).join(''));
  await writeFile(
    join(data, 'removals.jsonl'),
    `${JSON.stringify({ domain: 'zeta.example', date: '2026-11-22', reason: 'Mr Zeta phoned', public_note: 'The firm asked to be removed' })}\n`,
  );
}

let data: string;
let site: string;
let first: string;
let second: string;
let doc: ChangesDocT;

beforeAll(async () => {
  data = await copyFixture();
  site = join(await tempDir('changes'), 'site');
  first = await copyFixtureSite(site);
  await nextWeek(data);
  second = (await generateLive({ dataDir: data, outDir: site, ...quiet })).version;
  doc = ChangesDoc.parse(await readJson(site, keys.changes(second)));
});
afterAll(removeTempDirs);

describe('changes document', () => {
  it('says the first version of a site has nothing to compare with', async () => {
    const d = ChangesDoc.parse(await readJson(site, keys.changes(first)));
    expect(d).toMatchObject({
      schema_version: 1,
      generated: 'by generator/; do not edit',
      version: first,
      previous: null,
      counts: { added: 0, removed: 0, changed: 0 },
    });
  });

  it('lists added, removed and changed listings with old and new values and why', () => {
    expect(doc.previous).toEqual({ version: first, week: '2026-W47' });
    expect(doc.added).toEqual([
      {
        listing_id: listingIdOf('p11'),
        firm_id: expect.any(String),
        name: 'Gamma Injury',
        city: 'Chicago',
        state: 'IL',
        reasons: [{ kind: 'weekly_data' }],
      },
    ]);
    const removed = new Map(doc.removed.map((r) => [r.listing_id, r]));
    expect(removed.get(listingIdOf('p8'))).toMatchObject({
      old: { name: 'Far Away Law', city: 'Denver', state: 'CO' },
      reasons: [{ kind: 'weekly_data' }],
    });
    expect(removed.get(listingIdOf('p4'))).toMatchObject({
      old: null,
      reasons: [{ kind: 'correction', date: '2026-11-23', note: null }],
    });
    for (const p of ['p9', 'p10'])
      expect(removed.get(listingIdOf(p))).toMatchObject({
        old: null,
        reasons: [{ kind: 'removal', scope: 'firm', date: '2026-11-22', note: 'The firm asked to be removed' }],
      });
    expect(doc.removed.map((r) => r.listing_id)).toEqual([...removed.keys()].sort());
    const p1 = doc.changed.find((c) => c.listing_id === listingIdOf('p1'));
    const correction = { kind: 'correction', date: '2026-11-24', note: 'Phone and hours corrected by the firm' };
    expect(p1?.fields.find((f) => f.field === 'phone')).toEqual({
      field: 'phone',
      old: '(312) 555-0100',
      new: '(312) 555-0199',
      reason: correction,
    });
    const hours = p1?.fields.find((f) => f.field === 'hours');
    expect(hours?.reason).toEqual(correction);
    expect((hours?.new as { weekly: { mon: unknown } }).weekly.mon).toEqual([{ opens: '08:00', closes: '18:00' }]);
    expect(hours?.old).not.toEqual(hours?.new);
    const p6 = doc.changed.find((c) => c.listing_id === listingIdOf('p6'));
    expect(p6?.fields).toEqual([
      { field: 'name', old: 'Beta Legal', new: 'Beta Legal LLP', reason: { kind: 'weekly_data' } },
    ]);
    expect(doc.counts).toEqual({ added: doc.added.length, removed: doc.removed.length, changed: doc.changed.length });
  });

  it('publishes no private detail of a request', async () => {
    const text = await readFile(join(site, keys.changes(second)), 'utf8');
    for (const s of PRIVATE) expect(text).not.toContain(s);
    expect(text).not.toContain('"reason":"');
  });

  it('agrees with audit diff', async () => {
    const d = await diffSites(
      { kind: 'folder', dir: site },
      { kind: 'folder', dir: site },
      { oldVersion: first, newVersion: second },
    );
    expect(doc.added.map((a) => a.listing_id)).toEqual(d.added.map((a) => a.listing_id).sort());
    expect(doc.removed.map((a) => a.listing_id)).toEqual(d.removed.map((a) => a.listing_id).sort());
    const fromDiff = d.changed
      .map((c) => ({ id: c.listing_id, fields: c.fields.map((f) => [f.field, f.old, f.new]) }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(
      doc.changed.map((c) => ({ id: c.listing_id, fields: c.fields.map((f) => [f.field, f.old, f.new]) })),
    ).toEqual(fromDiff);
  });

  it('gives the same inputs over no live version another version id (its changes differ), and the manifest still checks', async () => {
    // The version id covers the version live before, so a version's changes document never changes after publishing.
    const elsewhere = join(await tempDir('changes-fresh'), 'site');
    const fresh = (await generateLive({ dataDir: data, outDir: elsewhere, ...quiet })).version;
    expect(fresh).not.toBe(second);
    expect(fresh.slice(0, 8)).toBe(second.slice(0, 8));
    expect(ChangesDoc.parse(await readJson(elsewhere, keys.changes(fresh))).previous).toBeNull();
    expect(ChangesDoc.parse(await readJson(site, keys.changes(second))).previous).not.toBeNull();
    const check = await checkManifest(await openSite({ kind: 'folder', dir: site }, second));
    expect(check.problems).toEqual([]);
  });

  it('is kept as published when the same inputs are generated again', async () => {
    const before = await readFile(join(site, keys.changes(second)));
    expect((await generateLive({ dataDir: data, outDir: site, ...quiet })).version).toBe(second);
    expect(await readFile(join(site, keys.changes(second)))).toEqual(before);
  });

  it('is byte-identical for the same inputs and the same previous version', async () => {
    const other = join(await tempDir('changes-again'), 'site');
    const fresh = await copyFixture();
    await copyFixtureSite(other);
    await nextWeek(fresh);
    await generateLive({ dataDir: fresh, outDir: other, ...quiet });
    expect(await readFile(join(other, keys.changes(second)))).toEqual(await readFile(join(site, keys.changes(second))));
  });

  it('says when a listing comes back because its removal was lifted', async () => {
    await writeFile(
      join(data, 'removals.jsonl'),
      `${JSON.stringify({ domain: 'zeta.example', date: '2026-11-22', reason: 'Mr Zeta phoned', public_note: 'The firm asked to be removed', lifted: '2026-11-26' })}\n`,
    );
    const third = (await generateLive({ dataDir: data, outDir: site, ...quiet })).version;
    const d = ChangesDoc.parse(await readJson(site, keys.changes(third)));
    expect(d.previous?.version).toBe(second);
    expect(d.added.map((a) => a.listing_id).sort()).toEqual([listingIdOf('p9'), listingIdOf('p10')].sort());
    for (const a of d.added)
      expect(a.reasons).toEqual([
        { kind: 'removal_lifted', date: '2026-11-22', lifted: '2026-11-26', note: 'The firm asked to be removed' },
      ]);
  });
});

describe('GET /v1/changes', () => {
  it('serves the served version’s changes document as published, cacheable, with no private detail', async () => {
    const server = await startTestServer({ SITE_DIR: site });
    try {
      const response = await fetch(`${server.url}/v1/changes`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      // Earlier cases generate further versions into the site: the one served is whatever current.json names.
      const served = ((await readJson(site, keys.pointer)) as { version: string }).version;
      expect(response.headers.get('directory-version')).toBe(served);
      expect(response.headers.get('etag')).not.toBeNull();
      const text = await response.text();
      expect(ChangesDoc.parse(JSON.parse(text))).toEqual(ChangesDoc.parse(await readJson(site, keys.changes(served))));
      expect(JSON.parse(text)).toMatchObject({ version: served });
      for (const secret of PRIVATE) expect(text).not.toContain(secret);
      const index = (await (await fetch(`${server.url}/`, { headers: { accept: 'application/json' } })).json()) as {
        endpoints: Record<string, string>;
      };
      expect(index.endpoints.changes).toBe(`${server.url}/v1/changes`);
    } finally {
      await server.close();
    }
  });
});
