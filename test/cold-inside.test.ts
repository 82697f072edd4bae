/**
 * Places named inside a city, cold ("Buckhead, Atlanta, GA", "Buckhead in Atlanta, GA", "Lake in the Hills, IL",
 * "100 Main St, Chicago, IL"): the names documents read beside meta.json give the point the resolver will answer from,
 * so the search starts in the round after meta.json and the query waits for at most 3 round trips after the pointer,
 * with the warm answer.
 */
import { describe, expect, it } from 'vitest';
import { coldQuerySets, INSIDE_PLACES, placesInsideCities } from '../bench/cold/query-sets.ts';
import { RoundStore } from '../bench/cold/round-store.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { cityHint } from '../shim/places/city-hint.ts';
import { parseLocation } from '../shim/places/location.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';

const site = process.env.TEST_SITE_DIR as string;
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

describe('places named inside a city, cold', () => {
  it('asks every form in the cold bench: the listed places, then each metro street address and "X in City"', () => {
    const places = placesInsideCities();
    expect(places.slice(0, INSIDE_PLACES.length)).toEqual([...INSIDE_PLACES]);
    expect(places).toEqual(expect.arrayContaining(['100 Main St, New York, NY', 'Newark in New York, NY']));
    const set = coldQuerySets([1]).find((s) => s.label === 'place inside a city at 50 mi');
    expect(set?.queries.map((q) => q.args.location)).toEqual(places);
  });

  it('hints the point the resolver answers from, and answers in at most 3 round trips as warm', async () => {
    const warm = createService(createSiteSource(new FolderStore(site)));
    const reader = await createSiteSource(new FolderStore(site)).current();
    const readings = new Set<string>();
    for (const place of placesInsideCities()) {
      const q = { location: place, radius_miles: '50' };
      const expected = await warm.findAttorneys(q, CTX);
      // The hint is the answer's point: the one search the query starts is the one it keeps.
      expect(await cityHint(reader, parseLocation(place)), place).toEqual({
        lat: expected.location.lat,
        lng: expected.location.lng,
      });
      const rounds = new RoundStore(new FolderStore(site));
      expect(await createService(createSiteSource(rounds)).findAttorneys(q, CTX)).toEqual(expected);
      expect(rounds.roundsAfterPointer, place).toBeLessThanOrEqual(3);
      readings.add(expected.location.note?.startsWith('Read as ') === true ? 'place' : 'city');
    }
    // Both readings are asked: a place inside the city, and the city's centre (an address, a place too far or unknown).
    expect([...readings].sort()).toEqual(['city', 'place']);
  });
});
