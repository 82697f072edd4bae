/**
 * coverage-cells.json in pieces (coverage-cells/<cell>.json, shim/places/coverage.ts): the pieces hold exactly the
 * whole document's cells, each under its own coarse cell, hashed in meta.json; the metro a point's piece gives equals
 * the whole document's at many points; a version without pieces (written before them) answers from the whole document.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cellToLatLng, cellToParent, getResolution } from 'h3-js';
import { afterAll, describe, expect, it } from 'vitest';
import { createService } from '../shim/answer/service-impl.ts';
import { metroForPoint } from '../shim/places/coverage.ts';
import { MAX_PIECES, metroAt } from '../shim/places/resolve-city.ts';
import { CoverageCells, type CoverageCellsT, type MetaT } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { withoutCoveragePieces } from './helpers/without-pieces.ts';
import { coldQuerySets } from '../bench/cold/query-sets.ts';
import { ApiError } from '../shim/contract/errors.ts';
import { RoundStore } from '../bench/cold/round-store.ts';

const SITE = process.env.TEST_SITE_DIR as string;
const version = (JSON.parse(readFileSync(join(SITE, 'current.json'), 'utf8')) as { version: string }).version;
const root = join(SITE, 'v', version);
const whole = CoverageCells.parse(JSON.parse(readFileSync(join(root, 'coverage-cells.json'), 'utf8')));
const meta = JSON.parse(readFileSync(join(root, 'meta.json'), 'utf8')) as MetaT;
const pieceNames = readdirSync(join(root, 'coverage-cells')).sort();
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

/** Seeded points: every measured cell's centre, and random points over the states and just past their coasts. */
function points(): [number, number][] {
  const out = Object.keys(whole.cells).map((c) => cellToLatLng(c));
  let seed = 11;
  const next = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 4000; i++) out.push([24 + next() * 26, -125 + next() * 59]);
  return out;
}

describe('coverage pieces', () => {
  it('hold exactly the cells of coverage-cells.json, each piece the cells under its coarse cell, hashed in meta.json', () => {
    expect(pieceNames.length).toBeGreaterThan(1);
    const union: CoverageCellsT['cells'] = {};
    for (const name of pieceNames) {
      const rel = `coverage-cells/${name}`;
      const piece = CoverageCells.parse(JSON.parse(readFileSync(join(root, rel), 'utf8')));
      const parent = name.replace(/\.json$/, '');
      expect(piece.res).toBe(whole.res);
      expect(meta.sha256?.[rel]).toMatch(/^[0-9a-f]{64}$/);
      for (const [cell, metros] of Object.entries(piece.cells)) {
        expect(cellToParent(cell, getResolution(parent))).toBe(parent);
        union[cell] = metros;
      }
    }
    expect(Object.keys(union).sort()).toEqual(Object.keys(whole.cells).sort());
    expect(union).toEqual(whole.cells);
  });

  it("give every point the metro of the whole document, reading the point's piece only", async () => {
    const source = createSiteSource(new FolderStore(SITE));
    const reader = await source.current();
    let covered = 0;
    for (const [lat, lng] of points()) {
      const want = metroForPoint(whole, lat, lng);
      if (want !== null) covered++;
      expect(await metroAt(reader, lat, lng), `${lat},${lng}`).toBe(want);
    }
    expect(covered).toBeGreaterThan(Object.keys(whole.cells).length);
  });
});

describe('a version written before the pieces', () => {
  const copy = withoutCoveragePieces(SITE);
  afterAll(() => copy.remove());

  it('is answered from the whole coverage-cells.json, the same answers', async () => {
    const now = createService(createSiteSource(new FolderStore(SITE)));
    for (const q of [
      { lat: '41.8781', lng: '-87.6298', radius_miles: '15' },
      { zip: '60601', radius_miles: '15' },
      { lat: '39.5', lng: '-116.5', radius_miles: '50' },
    ]) {
      const rounds = new RoundStore(new FolderStore(copy.dir));
      const before = await createService(createSiteSource(rounds)).findAttorneys(q, CTX);
      expect(before).toEqual(await now.findAttorneys(q, CTX));
      expect(rounds.rounds.flat().some((k) => k.endsWith('/coverage-cells.json'))).toBe(true);
      expect(rounds.roundsAfterPointer).toBeLessThanOrEqual(3);
    }
  });
});

/** The answer to `args` cold from `dir`, or the refusal's code, detail and candidates; with the keys it read and its rounds. */
async function coldAnswer(dir: string, args: Record<string, string>) {
  const rounds = new RoundStore(new FolderStore(dir));
  const answer = await createService(createSiteSource(rounds))
    .findAttorneys(args, CTX)
    .catch((err: unknown) => {
      if (!(err instanceof ApiError)) throw err;
      return { code: err.code, detail: err.detail, candidates: err.extra.candidates };
    });
  const waited = rounds.roundsAfterPointer;
  await rounds.settled();
  return { answer, keys: rounds.rounds.flat(), waited };
}

describe('place names', () => {
  const copy = withoutCoveragePieces(SITE);
  afterAll(() => copy.remove());
  const sets = coldQuerySets([1]).filter((s) => !s.label.startsWith('lat,lng'));
  const queries = [
    ...sets.flatMap((s) => s.queries.map((q) => q.args)),
    // A state code that is also a nickname, out of coverage (the other state's place is looked up), a place inside a
    // city, a misspelling with suggestions, a name best known abroad.
    ...['Venice, LA', 'Buckhead, Atlanta, GA', 'Evanston near Chicago, IL', 'Sprngfeld, MO', 'Toronto, Canada'].map(
      (location) => ({ location, radius_miles: '50' }),
    ),
  ];

  it('read the coverage pieces of their points, not coverage-cells.json, with the answers of the whole document', async () => {
    expect(sets.map((s) => s.label)).toEqual([
      '"City, ST" at 50 mi',
      '"City, ST" at 50 mi, limit 25',
      'place inside a city at 50 mi',
      'name without a state at 50 mi',
    ]);
    expect(queries.length).toBeGreaterThan(100);
    let covered = 0;
    let refused = 0;
    let wholes = 0;
    for (const args of queries) {
      const pieces = await coldAnswer(SITE, args);
      const whole = await coldAnswer(copy.dir, args);
      expect(pieces.answer, args.location).toEqual(whole.answer);
      expect(pieces.waited, args.location).toBeLessThanOrEqual(whole.waited);
      const read = pieces.keys.filter((k) => k.includes('/coverage-cells/')).length;
      const readWhole = pieces.keys.some((k) => k.endsWith('/coverage-cells.json'));
      if ('code' in pieces.answer) {
        // A refusal looks up the places it lists: their pieces, or the whole document past MAX_PIECES of them.
        refused++;
        if (readWhole) wholes++;
        else expect(read, args.location).toBeLessThanOrEqual(MAX_PIECES);
      } else {
        expect(readWhole, args.location).toBe(false);
        expect(read, args.location).toBeGreaterThan(0);
        if (pieces.answer.covered) covered++;
      }
    }
    // Both kinds of answer, and refusals whose candidates say covered or not, are compared.
    expect(covered).toBeGreaterThan(80);
    expect(refused).toBeGreaterThan(20);
    expect(wholes).toBeGreaterThan(0);
    expect(wholes).toBeLessThan(refused);
  });
});
