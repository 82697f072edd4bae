/**
 * The hand check of manifest.json accepts exactly what the zod `Manifest` accepts (on the generated test site's manifest
 * and on many broken variants of it), and the ordered walk of two manifests pairs every key as a brute-force lookup does.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinManifests, manifestKeys } from '../generator/site/manifest-join.ts';
import { ManifestFormatError, parseManifest } from '../generator/site/manifest-parse.ts';
import { keys, Manifest, Pointer, type ManifestT } from '../shim/format/site-format.ts';
import { rng as seeded } from './helpers/rng.ts';

const SITE = process.env.TEST_SITE_DIR as string;

async function siteManifest(): Promise<{ text: string; version: string }> {
  const version = Pointer.parse(JSON.parse(await readFile(join(SITE, keys.pointer), 'utf8'))).version;
  return { text: await readFile(join(SITE, keys.manifest(version)), 'utf8'), version };
}

describe('parseManifest', () => {
  it('accepts the generated manifest and returns what zod returns', async () => {
    const { text, version } = await siteManifest();
    const parsed = parseManifest(Buffer.from(text), keys.manifest(version));
    expect(parsed).toEqual(Manifest.parse(JSON.parse(text)));
    expect(manifestKeys(parsed.objects).length).toBeGreaterThan(100);
  });

  it('refuses exactly what zod refuses, naming the key', async () => {
    const { text } = await siteManifest();
    const good = JSON.parse(text) as { objects: Record<string, Record<string, unknown>> };
    const first = Object.keys(good.objects)[0] as string;
    const variants: unknown[] = [
      null,
      [],
      'manifest',
      { ...good, schema_version: 2 },
      { ...good, schema_version: '1' },
      { ...good, version: 7 },
      { ...good, objects: [] },
      { ...good, objects: null },
      { ...good, objects: { ...good.objects, [first]: null } },
      { ...good, objects: { ...good.objects, [first]: { bytes: 1 } } },
      { ...good, objects: { ...good.objects, [first]: { sha256: 'ab', bytes: 1.5 } } },
      { ...good, objects: { ...good.objects, [first]: { sha256: 'ab', bytes: '3' } } },
      { ...good, objects: { ...good.objects, [first]: { sha256: 1, bytes: 3 } } },
      { ...good, objects: { ...good.objects, [first]: { sha256: 'ab', bytes: 2 ** 60 } } },
      { ...good, objects: {} },
      { schema_version: 1, version: 'v', objects: { a: { sha256: 'ab', bytes: 0, extra: true } } },
    ];
    for (const v of variants) {
      const zodSays = Manifest.safeParse(v).success;
      let handSays = true;
      try {
        parseManifest(JSON.stringify(v), 'v/x/manifest.json');
      } catch (err) {
        expect(err).toBeInstanceOf(ManifestFormatError);
        expect((err as Error).message).toContain('v/x/manifest.json');
        handSays = false;
      }
      expect(handSays, JSON.stringify(v).slice(0, 120)).toBe(zodSays);
    }
    expect(() => parseManifest('{"schema_version":1,', 'k')).toThrow(/k is not JSON/);
  });
});

describe('joinManifests', () => {
  it('pairs every relative key as a lookup in each manifest would, in order, sorted or not', () => {
    const rng = seeded(7);
    for (let round = 0; round < 20; round++) {
      const a: ManifestT['objects'] = {};
      const b: ManifestT['objects'] = {};
      const rels = Array.from({ length: 60 }, (_, i) => `firms/l_${(i * 7919) % 97}.json`);
      for (const rel of rels) {
        const r = rng();
        if (r < 0.7) a[`v/A/${rel}`] = { sha256: `s${Math.floor(rng() * 3)}`, bytes: 1 };
        if (r > 0.3) b[`v/Bb/${rel}`] = { sha256: `s${Math.floor(rng() * 3)}`, bytes: 1 };
      }
      const seen: [string, string | undefined, string | undefined][] = [];
      joinManifests(a, 'v/A/', b, 'v/Bb/', (rel, x, y) => seen.push([rel, x?.sha256, y?.sha256]));
      const all = [...new Set(rels)]
        .filter((rel) => a[`v/A/${rel}`] !== undefined || b[`v/Bb/${rel}`] !== undefined)
        .sort();
      expect(seen).toEqual(all.map((rel) => [rel, a[`v/A/${rel}`]?.sha256, b[`v/Bb/${rel}`]?.sha256]));
    }
  });
});
