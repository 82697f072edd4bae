import { latLngToCell } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { cellsCoveringCircle, destination, haversineMiles } from '../shim/core/geo.ts';
import { rng } from './helpers/rng.ts';


describe('haversineMiles', () => {
  it('matches known distances (miles)', () => {
    // One degree of latitude on a 3958.8-mile sphere is 69.09 miles.
    expect(haversineMiles(40, -74, 41, -74)).toBeCloseTo(69.093, 2);
    expect(haversineMiles(10, 10, 10, 10)).toBe(0);
    // Chicago to New York, about 711 miles great-circle.
    expect(haversineMiles(41.8781, -87.6298, 40.7128, -74.006)).toBeGreaterThan(705);
    expect(haversineMiles(41.8781, -87.6298, 40.7128, -74.006)).toBeLessThan(715);
  });

  it('destination() lands at the distance it was asked for', () => {
    const next = rng(7);
    for (let i = 0; i < 200; i++) {
      const lat = 25 + next() * 24;
      const lng = -124 + next() * 57;
      const d = next() * 60;
      const [la, ln] = destination(lat, lng, d, next() * 2 * Math.PI);
      expect(Math.abs(haversineMiles(lat, lng, la, ln) - d)).toBeLessThan(1e-6);
    }
  });
});

describe('cellsCoveringCircle', () => {
  it('contains the cell of every point inside the circle (dense sampling, radii 1..50, resolutions 3..6)', () => {
    const next = rng(42);
    for (let q = 0; q < 120; q++) {
      const lat = 25 + next() * 24;
      const lng = -124 + next() * 57;
      const radius = 1 + next() * 49;
      const res = 3 + Math.floor(next() * 4);
      const cover = new Set(cellsCoveringCircle(lat, lng, radius, res));
      // Points on the rim and inside: the rim is where a too-small cover would miss cells.
      for (let i = 0; i < 400; i++) {
        const d = i < 200 ? radius * 0.9999 : radius * Math.sqrt(next());
        const [pLat, pLng] = destination(lat, lng, d, next() * 2 * Math.PI);
        const cell = latLngToCell(pLat, pLng, res);
        if (!cover.has(cell)) expect.fail(`cell ${cell} of a point ${d.toFixed(3)} mi from (${lat}, ${lng}) is missing from the res-${res} cover of radius ${radius}`);
      }
    }
  });

  it('stays small: at most a few cells beyond the circle', () => {
    // A 15-mile circle at res 5 (cells ~98 sq mi) covers about 707 sq mi; the cover must not balloon.
    const cells = cellsCoveringCircle(40.7128, -74.006, 15, 5);
    expect(cells.length).toBeGreaterThanOrEqual(8);
    expect(cells.length).toBeLessThanOrEqual(30);
    expect([...cells].sort()).toEqual(cells);
  });
});
