/**
 * Block coordinate columns (cell schema 6): steps from the previous office give back every coordinate exactly, as the
 * same double, whatever its decimals; damaged columns are refused, not decoded into other places.
 */
import { describe, expect, it } from 'vitest';
import { decodeCoords, decodeSteps, encodeCoords, encodeSteps, type Coords } from '../shim/format/block-coords.ts';
import { rng } from './helpers/rng.ts';

const roundTrip = (lat: number[], lng: number[]): Coords =>
  decodeCoords(JSON.parse(JSON.stringify(encodeCoords(lat, lng))), lat.length) as Coords;

describe('block coordinates as steps', () => {
  it('give back six-decimal degrees exactly, in a few digits per office', () => {
    const r = rng(3);
    const lat = Array.from({ length: 500 }, () => Number((40.7 + r() * 0.05).toFixed(6)));
    const lng = Array.from({ length: 500 }, () => Number((-74 + r() * 0.05).toFixed(6)));
    const stored = encodeCoords(lat, lng);
    expect(stored.coord_digits).toBe(6);
    expect(stored.exact).toEqual([]);
    const back = roundTrip(lat, lng);
    expect([...back.lat]).toEqual(lat);
    expect([...back.lng]).toEqual(lng);
    expect(JSON.stringify(stored).length).toBeLessThan(0.7 * JSON.stringify({ lat, lng }).length);
  });

  it('take the fewest decimals that hold every coordinate, and list the ones none holds as stored', () => {
    expect(encodeCoords([40.5, -12], [7, 0]).coord_digits).toBe(1);
    expect(encodeCoords([40, -12], [7, 0]).coord_digits).toBe(0);
    const lat = [40.1, 1 / 3, -0.000123456, 89.9999999999, 0.1 + 0.2];
    const lng = [-73.9, -2 / 3, 179.123456789, -180, 0];
    const stored = encodeCoords(lat, lng);
    expect(stored.coord_digits).toBe(9);
    expect(stored.exact.filter((_, k) => k % 3 === 0)).toEqual([1, 3, 4]);
    const back = roundTrip(lat, lng);
    expect([...back.lat]).toEqual(lat);
    expect([...back.lng]).toEqual(lng);
  });

  it('are the same bytes for the same coordinates (a -0 step is written 0)', () => {
    expect(JSON.stringify(encodeCoords([-0.0000001, -0.0000001], [0, 0]))).toBe(
      JSON.stringify(encodeCoords([-0.0000001, -0.0000001], [0, 0])),
    );
    expect(encodeCoords([-0.0000001, -0.0000001], [0, 0]).dlat).toEqual([-1, 0]);
    expect(Object.is(encodeCoords([-0.0000001, -0.0000001], [-0, 0]).dlng[0], 0)).toBe(true);
  });

  it('refuse columns that do not fit the block', () => {
    const ok = encodeCoords([40.1, 40.2], [-73.9, -73.8]);
    expect(typeof decodeCoords(ok, 2)).toBe('object');
    expect(decodeCoords(ok, 3)).toMatch(/not 3/);
    expect(decodeCoords({ ...ok, coord_digits: 10 }, 2)).toMatch(/coord_digits/);
    expect(decodeCoords({ ...ok, exact: [1, 40] }, 2)).toMatch(/triples/);
    expect(decodeCoords({ ...ok, exact: [2, 40, -73] }, 2)).toMatch(/position 2/);
    expect(decodeCoords({ ...ok, exact: [1, 40, -73, 0, 40, -73] }, 2)).toMatch(/position 0/);
    expect(decodeCoords({ ...ok, dlat: [2 ** 53, 2 ** 53] }, 2)).toMatch(/overflow/);
  });

  it('give back unit numbers from their steps, and refuse steps that leave 0 to 2^31', () => {
    const units = [5, 9, 9, 2, 700000, 0];
    const steps = encodeSteps(units);
    expect(steps).toEqual([5, 4, 0, -7, 699998, -700000]);
    expect([...(decodeSteps(steps) as Int32Array)]).toEqual(units);
    expect(decodeSteps([3, -4])).toMatch(/-1 at position 1/);
    expect(decodeSteps([2 ** 31])).toMatch(/position 0/);
  });
});
