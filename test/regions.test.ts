/**
 * A region a person names ("Long Island", "the Bay Area", "DFW") is refused as a county is: it is not one point, and
 * distances from any one point of it would mislead. The refusal names the region and cities in it, and each of those
 * cities resolves, so the caller can ask the person and send one. Before, "Long Island" was read as Long Island City,
 * a neighbourhood of Queens.
 */
import { describe, expect, it } from 'vitest';
import { createService } from '../shim/answer/service-impl.ts';
import { ApiError } from '../shim/contract/errors.ts';
import { normaliseCityName } from '../shim/format/site-format.ts';
import { REGIONS } from '../shim/places/regions.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';

const SITE = process.env.TEST_SITE_DIR as string;
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

/** How people write each region, every key of REGIONS among them. */
const SPELLINGS = [
  'Long Island',
  'Bay Area',
  'the Bay Area',
  'SF Bay Area',
  'San Francisco Bay Area',
  'Silicon Valley',
  'DFW',
  'Dallas-Fort Worth',
  'Twin Cities',
  'The Twin Cities',
  'Tampa Bay',
  'South Florida',
  'Inland Empire',
  'Hampton Roads',
  'SoCal',
  'Southern California',
  'NorCal',
  'Northern California',
  'Jersey Shore',
  'the Jersey Shore',
  'South Jersey',
  'North Jersey',
  'tri-state',
  'tri-state area',
  'the tri-state area',
  'Hamptons',
  'the Hamptons',
  'Poconos',
  'the Poconos',
  'Pocono',
  'Pocono Mountains',
  'Catskills',
  'the Catskills',
  'Adirondacks',
  'the Adirondacks',
  'Ozarks',
  'the Ozarks',
  'Florida Keys',
  'the Florida Keys',
  'the Keys',
  'Outer Banks',
  'the Outer Banks',
  'OBX',
  'Lake Tahoe',
  'Tahoe',
  'Wine Country',
  'Napa Valley',
  'Hill Country',
  'the Hill Country',
  'Texas Hill Country',
  "Martha's Vineyard",
  'Oahu',
  'Maui',
  'Kauai',
  'Kona',
];

describe('a region named as the location', () => {
  const service = createService(createSiteSource(new FolderStore(SITE)));

  it('is refused, naming the region and its cities, with or without its state', async () => {
    expect(new Set(SPELLINGS.map(normaliseCityName))).toEqual(new Set(Object.keys(REGIONS)));
    for (const location of SPELLINGS) {
      const region = REGIONS[normaliseCityName(location)];
      for (const sent of [location, `${location}, ${region?.state ?? ''}`]) {
        const err = await service.findAttorneys({ location: sent }, CTX).catch((e: unknown) => e);
        expect(err, sent).toBeInstanceOf(ApiError);
        expect((err as ApiError).code).toBe('location_not_understood');
        expect((err as ApiError).detail).toContain(`names a region (${region?.name ?? ''})`);
        for (const city of region?.cities ?? []) expect((err as ApiError).detail).toContain(city);
      }
    }
  });

  it('lists cities that each resolve, and leaves same-named places in other states alone', async () => {
    for (const region of new Set(Object.values(REGIONS))) {
      for (const city of region.cities) {
        const answer = await service.findAttorneys({ location: city }, CTX);
        expect(answer.location.lat, city).toBeTypeOf('number');
      }
    }
    const kansas = await service.findAttorneys({ location: 'Long Island, KS' }, CTX);
    expect(kansas.location.lat).toBeCloseTo(39.94, 1);
    const queens = await service.findAttorneys({ location: 'Long Island City' }, CTX);
    expect(queens.location.lat).toBeCloseTo(40.74, 1);
  });
});
