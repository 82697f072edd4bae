import { latLngToCell } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { boundingBox, cellsCoveringCircle, destination, haversineMiles } from '../shim/search/geo.ts';
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
        if (!cover.has(cell))
          expect.fail(
            `cell ${cell} of a point ${d.toFixed(3)} mi from (${lat}, ${lng}) is missing from the res-${res} cover of radius ${radius}`,
          );
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

describe("boundingBox (the search's KD-tree query box)", () => {
  it('holds every point within the radius, on the circle itself too, and is not much larger than it', () => {
    const next = rng(31);
    for (let i = 0; i < 300; i++) {
      const lat = 18 + next() * 53; // Puerto Rico to northern Alaska
      const lng = -170 + next() * 105;
      const radius = 1 + next() * 49;
      const [minLng, minLat, maxLng, maxLat] = boundingBox(lat, lng, radius);
      let east = -Infinity;
      for (let k = 0; k < 72; k++) {
        const [pLat, pLng] = destination(
          lat,
          lng,
          radius * (k % 2 === 0 ? 1 : next()),
          (k * Math.PI) / 36 + next() * 0.05,
        );
        const inside = pLat >= minLat && pLat <= maxLat && pLng >= minLng && pLng <= maxLng;
        expect(
          inside,
          `${pLat},${pLng} at ${radius} mi of ${lat},${lng}: box ${[minLng, minLat, maxLng, maxLat].join(',')}`,
        ).toBe(true);
        east = Math.max(east, pLng);
      }
      // The box is tight: its east edge is within 2% of the circle's sampled eastmost point (in degrees from the centre).
      expect(maxLng - lng).toBeLessThan((east - lng) * 1.02 + 1e-6);
      expect(maxLat - lat).toBeCloseTo(radius / 69.093, 3);
    }
  });

  it('spans every longitude when the circle crosses the antimeridian', () => {
    expect(boundingBox(52, 179.9, 20)).toEqual([-180, expect.any(Number), 180, expect.any(Number)]);
  });
});
