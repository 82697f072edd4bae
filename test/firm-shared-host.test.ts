/**
 * An office whose website is a page on a shared host (a social network, a lawyer directory) is a firm of its own: two
 * unrelated offices linking their own pages on one host must both be listed by distance, not folded into one "firm"
 * whose nearest office hides the other, and a removal cannot name such a host as a firm.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BadInputError } from '../generator/generate.ts';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { generateLive } from './helpers/generate-live.ts';

const quiet = { quiet: true, log: () => {} };
const PAGES: Record<string, string> = {
  p4: 'https://www.facebook.com/SoloAttorneyChicago',
  p7: 'https://facebook.com/GammaInjury/',
};

afterAll(removeTempDirs);

describe('offices on a shared host', () => {
  it('are listed each by its own distance, as firms of their own', async () => {
    const data = await copyFixture();
    const file = join(data, 'weeks', '2026-W47', 'places.jsonl');
    const rows = (await readFile(file, 'utf8')).split('\n').map((l) => {
      if (l === '') return l;
      const p = JSON.parse(l) as { place_id: string; website: string | null };
      p.website = PAGES[p.place_id] ?? p.website;
      return JSON.stringify(p);
    });
    await writeFile(file, rows.join('\n'));
    const site = join(await tempDir('shared-host'), 'site');
    await generateLive({ dataDir: data, outDir: site, ...quiet });
    const service = createService(createSiteSource(new FolderStore(site), { pointerTtlMs: 0 }));
    const found = await service.findAttorneys(
      { lat: '41.885', lng: '-87.62', radius_miles: '10', limit: '25' },
      { publicBaseUrl: 'https://directory.example' },
    );
    const ids = found.results.map((r) => r.listing_id);
    // Gamma is at the point and Solo Attorney 1.5 miles away: both shown, in distance order.
    expect(ids[0]).toBe(listingIdOf('p7'));
    expect(ids).toContain(listingIdOf('p4'));
  }, 120_000);

  it('a removal naming a shared host is a bad row, not every office on it', async () => {
    const data = await copyFixture();
    const line = { domain: 'facebook.com', date: '2026-11-20', reason: 'a firm asked to be removed' };
    await writeFile(join(data, 'removals.jsonl'), `${JSON.stringify(line)}\n`);
    const err = await generateLive({ dataDir: data, outDir: join(await tempDir('shared-rm'), 'site'), ...quiet }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as BadInputError).rows[0]?.reason).toMatch(/shared host.*listing_id/);
  }, 120_000);
});
