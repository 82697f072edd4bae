/**
 * A week published before the city gazetteer was split by first letter (one gazetteer/city/<ST>.json per state, meta.json
 * gazetteer.states) is still served by this shim: every "City, ST" search answers as on the split version, and a
 * missing state document is a store failure (503), not an unknown place.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../shim/contract/errors.ts';
import type { Service } from '../shim/answer/service.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { StoreError } from '../shim/store/types.ts';
import { linkSite, type SiteCopy } from './helpers/site-copy.ts';

const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };
let copy: SiteCopy;
let split: Service;
let presplit: Service;
const names: string[] = [];

beforeAll(() => {
  const site = process.env.TEST_SITE_DIR;
  if (site === undefined) throw new Error('TEST_SITE_DIR is not set');
  copy = linkSite(site);
  // Rewrite the copy as a pre-split week: merge each state's documents into one, and list states in meta.json.
  const cityDir = copy.empty('gazetteer/city');
  const srcCity = join(site, 'v', copy.version, 'gazetteer', 'city');
  const states = readdirSync(srcCity).sort();
  for (const st of states) {
    const cities: Record<string, unknown> = {};
    for (const f of readdirSync(join(srcCity, st)).sort())
      Object.assign(
        cities,
        (JSON.parse(readFileSync(join(srcCity, st, f), 'utf8')) as { cities: Record<string, unknown> }).cities,
      );
    writeFileSync(join(cityDir, `${st}.json`), `${JSON.stringify({ schema_version: 1, state: st, cities })}\n`);
    for (const key of Object.keys(cities).slice(0, 3)) names.push(`${(cities[key] as { name: string }).name}, ${st}`);
  }
  const metaPath = copy.own('meta.json');
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as {
    gazetteer: { zip3: string[]; cities?: unknown; states?: string[] };
    sha256?: unknown;
  };
  delete meta.gazetteer.cities;
  // Weeks generated before the split also predate the recorded hashes.
  delete meta.sha256;
  meta.gazetteer.states = states;
  writeFileSync(metaPath, `${JSON.stringify(meta)}\n`);
  // ... and the pointer's hash of meta.json.
  const pointerPath = join(copy.dir, 'current.json');
  const { meta_sha256: _metaHash, ...pointer } = JSON.parse(readFileSync(pointerPath, 'utf8')) as Record<
    string,
    unknown
  >;
  writeFileSync(pointerPath, `${JSON.stringify(pointer)}\n`);
  split = createService(createSiteSource(new FolderStore(site)));
  presplit = createService(createSiteSource(new FolderStore(copy.dir)));
});
afterAll(() => copy?.remove());

describe('a pre-split week', () => {
  it('answers every "City, ST" search as the split week does', async () => {
    expect(names.length).toBeGreaterThan(100);
    for (const location of names) {
      const [a, b] = await Promise.all([
        split.findAttorneys({ location, limit: 3 }, CTX),
        presplit.findAttorneys({ location, limit: 3 }, CTX),
      ]);
      expect(b.location, location).toEqual(a.location);
      expect(
        b.results.map((r) => r.listing_id),
        location,
      ).toEqual(a.results.map((r) => r.listing_id));
    }
  });

  it('says an unknown place is unknown, and a listed state whose document is gone is a store failure', async () => {
    await expect(presplit.findAttorneys({ location: 'Qwxyzville, TX' }, CTX)).rejects.toSatisfy(
      (e) => e instanceof ApiError && e.code === 'location_not_understood',
    );
    rmSync(join(copy.dir, 'v', copy.version, 'gazetteer', 'city', 'TX.json'));
    // A fresh source: the first one holds Texas parsed in its cache.
    const fresh = createService(createSiteSource(new FolderStore(copy.dir)));
    await expect(fresh.findAttorneys({ location: 'Austin, TX' }, CTX)).rejects.toBeInstanceOf(StoreError);
  });
});
