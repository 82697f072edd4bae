/**
 * The names documents record, beside a name, a far larger place one edit away, in its own document or another
 * (generator/model/name-rivals.ts): checked against a brute-force comparison of every name of the sample's gazetteer
 * with every populous name, and through the resolver ("Huston" is asked about, Houston, TX first).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createService } from '../shim/answer/service-impl.ts';
import { ApiError } from '../shim/contract/errors.ts';
import { keys, NameGazetteer, Pointer, type NameEntryT } from '../shim/format/site-format.ts';
import { CLEAR_MIN_POPULATION, osaDistance } from '../shim/places/spelling.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';

const SITE = process.env.TEST_SITE_DIR as string;

function publishedNames(): { names: Map<string, NameEntryT[]>; rivals: Map<string, NameEntryT> } {
  const v = Pointer.parse(JSON.parse(readFileSync(join(SITE, keys.pointer), 'utf8'))).version;
  const dir = join(SITE, keys.root(v), 'gazetteer/names');
  const names = new Map<string, NameEntryT[]>();
  const rivals = new Map<string, NameEntryT>();
  for (const file of readdirSync(dir)) {
    const doc = NameGazetteer.parse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    for (const [k, e] of Object.entries(doc.names)) names.set(k, e);
    for (const [k, e] of Object.entries(doc.rivals ?? {})) rivals.set(k, e);
  }
  return { names, rivals };
}

describe('near spellings across names documents', () => {
  it('are every far larger name one edit away, and no other', () => {
    const { names, rivals } = publishedNames();
    const populous = [...names].filter(([, e]) => (e[0]?.[4] ?? 0) >= CLEAR_MIN_POPULATION);
    const expected = new Map<string, NameEntryT>();
    for (const [key, entries] of names) {
      if (key.length < 5) continue;
      const largest = Math.max(0, ...entries.map((e) => e[4] ?? 0));
      for (const [other, top] of populous) {
        const place = top[0] as NameEntryT;
        if (osaDistance(key, other, 1) !== 1) continue;
        const best = expected.get(key);
        if ((place[4] ?? 0) > largest && (best === undefined || (place[4] ?? 0) > (best[4] ?? 0)))
          expected.set(key, place);
      }
    }
    expect(rivals.size).toBeGreaterThan(50);
    expect(new Map([...rivals].sort())).toEqual(new Map([...expected].sort()));
    expect(rivals.get('huston')?.slice(0, 2)).toEqual(['TX', 'Houston']);
    // In its own document too: Milwaukie and Milwaukee share their prefix.
    expect(rivals.get('milwaukie')?.slice(0, 2)).toEqual(['WI', 'Milwaukee']);
  }, 60_000);

  it('make the resolver ask about the larger place: "Huston" is Houston, TX or Huston, ID', async () => {
    const service = createService(createSiteSource(new FolderStore(SITE)));
    const err = await service.findAttorneys({ location: 'Huston' }, { publicBaseUrl: 'http://x' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('ambiguous_location');
    expect((err as ApiError).toProblem().candidates?.map((c) => `${c.city}, ${c.state}`)).toEqual([
      'Houston, TX',
      'Huston, ID',
    ]);
    const idaho = await service.findAttorneys({ location: 'Huston, ID' }, { publicBaseUrl: 'http://x' });
    expect(idaho.location.state).toBe('ID');
  });
});
