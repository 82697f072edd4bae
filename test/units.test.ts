/**
 * Counting units (generator/model/units.ts) against the plain answer: the connected components of every pair of one firm's
 * offices at most `miles` apart, found by a search over all pairs, and numbered by their first office.
 */
import { describe, expect, it } from 'vitest';
import { destination, haversineMiles } from '../shim/search/geo.ts';
import { unitsOf } from '../generator/model/units.ts';
import { rng } from './helpers/rng.ts';

/** Components by breadth-first search over all pairs of a firm's offices; numbered in order of first position. */
function plainUnits(firms: readonly string[], lat: readonly number[], lng: readonly number[], miles: number): number[] {
  const comp = new Array<number>(firms.length).fill(-1);
  let next = 0;
  for (let p = 0; p < firms.length; p++) {
    if (comp[p] !== -1) continue;
    comp[p] = next;
    const queue = [p];
    while (queue.length > 0) {
      const a = queue.shift() as number;
      for (let b = 0; b < firms.length; b++) {
        if (comp[b] !== -1 || firms[b] !== firms[a]) continue;
        if (haversineMiles(lat[a] as number, lng[a] as number, lat[b] as number, lng[b] as number) <= miles) {
          comp[b] = next;
          queue.push(b);
        }
      }
    }
    next++;
  }
  return comp;
}

describe('counting units', () => {
  it('are the components of each firm linked by steps of at most the given miles, numbered by first office', () => {
    const r = rng(41);
    for (const miles of [101, 30]) {
      const firms: string[] = [];
      const lat: number[] = [];
      const lng: number[] = [];
      for (let i = 0; i < 1500; i++) {
        // Offices over about 500 miles, firms of 1 to about 40 offices, so chains form and break at every scale.
        const [a, b] = destination(39, -95, 250 * Math.sqrt(r()), r() * 360);
        firms.push(`f${Math.floor(r() ** 2 * 120)}`);
        lat.push(a);
        lng.push(b);
      }
      const got = unitsOf(firms, Float64Array.from(lat), Float64Array.from(lng), miles);
      const want = plainUnits(firms, lat, lng, miles);
      expect(Array.from(got.unitAt)).toEqual(want);
      expect(got.units).toBe(Math.max(...want) + 1);
      expect(got.units).toBeGreaterThan(new Set(firms).size);
    }
  });

  it('link offices exactly at the distance and split those just beyond it', () => {
    const [a1, b1] = destination(40, -100, 101, 90);
    const d = haversineMiles(40, -100, a1, b1);
    expect(
      Array.from(unitsOf(['f', 'f'], Float64Array.from([40, a1]), Float64Array.from([-100, b1]), d).unitAt),
    ).toEqual([0, 0]);
    expect(
      Array.from(
        unitsOf(['f', 'f'], Float64Array.from([40, a1]), Float64Array.from([-100, b1]), d * (1 - 1e-12)).unitAt,
      ),
    ).toEqual([0, 1]);
    // North-south pairs: the latitude sweep's early stop must not drop a link at the distance.
    const [a2, b2] = destination(40, -100, 101, 0);
    const dn = haversineMiles(40, -100, a2, b2);
    expect(
      Array.from(unitsOf(['f', 'f'], Float64Array.from([40, a2]), Float64Array.from([-100, b2]), dn).unitAt),
    ).toEqual([0, 0]);
  });

  it('are whole firms numbered by the rank of their firm_id when no distance is given (schema 2)', () => {
    const got = unitsOf(
      ['b', 'a', 'c', 'a'],
      Float64Array.from([0, 40, 0, -40]),
      Float64Array.from([0, 0, 90, 0]),
      null,
    );
    expect(Array.from(got.unitAt)).toEqual([1, 0, 2, 0]);
    expect(got.units).toBe(3);
  });
});
