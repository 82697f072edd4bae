/** Shared set-up of the collector tests: a data folder with metros.json, and fake places from the synthetic sample. */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MetrosFile, PlaceRecord, type MetroT, type PlaceRecordT } from '../../generator/inputs/schema.ts';
import { haversineMiles } from '../../shim/search/geo.ts';
import { fakeOtherBusiness, fakePlaceFromRecord, type FakePlace } from './places-fake.ts';

/** The checked-in metros. */
export function metros(): MetroT[] {
  return MetrosFile.parse(JSON.parse(readFileSync(resolve('data/metros.json'), 'utf8'))).metros;
}

/** A metro by slug. */
export function metro(slug: string): MetroT {
  const m = metros().find((x) => x.slug === slug);
  if (!m) throw new Error(`no metro ${slug}`);
  return m;
}

/** A fresh data folder holding a copy of metros.json. */
export function dataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `iad-${prefix}-`));
  copyFileSync(resolve('data/metros.json'), join(dir, 'metros.json'));
  mkdirSync(join(dir, 'weeks'));
  return dir;
}

/** The synthetic sample's first week's offices within `miles` of a metro's centre. */
export function sampleOffices(slug: string, miles: number): PlaceRecordT[] {
  const week = readdirSync(resolve('data/weeks')).sort()[0];
  if (week === undefined) throw new Error('no sample week: run through vitest (global setup synthesises it)');
  const m = metro(slug);
  return readFileSync(resolve('data/weeks', week, 'places.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => PlaceRecord.parse(JSON.parse(l)))
    .filter((p) => haversineMiles(p.lat, p.lng, m.center.lat, m.center.lng) <= miles);
}

/** The fake's world around a metro: its sample offices in the API's shape plus a few cafes that are not law offices. */
export function fakeWorld(slug: string, miles: number): FakePlace[] {
  const m = metro(slug);
  const cafes = Array.from({ length: 8 }, (_, i) =>
    fakeOtherBusiness(
      `ChIJcafe${String(i).padStart(4, '0')}`,
      m.center.lat + (i - 4) * 0.02,
      m.center.lng + (i % 3) * 0.02,
    ),
  );
  return [...sampleOffices(slug, miles).map(fakePlaceFromRecord), ...cafes];
}

/** The operator's claimed status for every place of `world` (alternating by position, so both values occur). */
export function claimsFor(world: readonly FakePlace[]): Map<string, boolean> {
  return new Map(world.map((p, i) => [p.id, i % 3 === 0]));
}

/** The same claims as operator-flags.jsonl lines. */
export function claimsFile(world: readonly FakePlace[]): string {
  return [...claimsFor(world)].map(([place_id, claimed]) => `${JSON.stringify({ place_id, claimed })}\n`).join('');
}
