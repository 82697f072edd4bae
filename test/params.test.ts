/** Attorney-search argument validation: every 400 case with its code, for REST strings and MCP JSON values alike. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../shim/contract/errors.ts';
import { parseAttorneysArgs } from '../shim/answer/params.ts';
import { ATTORNEYS_PARAMS } from '../shim/contract/query-schema.ts';
import { Problem } from '../shim/contract/schemas.ts';

function fail(raw: Record<string, unknown>): ApiError {
  try {
    parseAttorneysArgs(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(() => Problem.parse(e.toProblem())).not.toThrow();
    return e;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be rejected`);
}

describe('parseAttorneysArgs', () => {
  it('applies the defaults', () => {
    expect(parseAttorneysArgs({ zip: '60601' })).toEqual({
      location: { form: 'zip', zip: '60601' },
      radiusMiles: 15,
      limit: 10,
      practiceArea: 'personal_injury',
      src: null,
    });
  });

  it('accepts each location form, from strings and from JSON numbers', () => {
    expect(parseAttorneysArgs({ location: 'Austin, TX' }).location).toEqual({ form: 'location', value: 'Austin, TX' });
    expect(parseAttorneysArgs({ lat: '41.88', lng: '-87.63' }).location).toEqual({
      form: 'point',
      lat: 41.88,
      lng: -87.63,
      input: '41.88,-87.63',
    });
    expect(parseAttorneysArgs({ lat: 41.88, lng: -87.63 }).location).toEqual({
      form: 'point',
      lat: 41.88,
      lng: -87.63,
      input: '41.88,-87.63',
    });
    const q = parseAttorneysArgs({
      zip: '02134',
      radius_miles: '2.5',
      limit: '25',
      practice_area: 'personal_injury',
      src: 'my-app/1.0',
    });
    expect(q).toMatchObject({ radiusMiles: 2.5, limit: 25, src: 'my-app/1.0' });
    expect(parseAttorneysArgs({ zip: '02134', radius_miles: 50, limit: 1 })).toMatchObject({
      radiusMiles: 50,
      limit: 1,
    });
    expect(parseAttorneysArgs({ zip: '02134', radius_miles: '1', limit: '1.0' })).toMatchObject({
      radiusMiles: 1,
      limit: 1,
    });
  });

  it('treats undefined as absent (a JSON-RPC client may leave optional keys undefined)', () => {
    expect(parseAttorneysArgs({ zip: '60601', location: undefined, src: undefined }).location.form).toBe('zip');
  });

  it('requires a location: location_required', () => {
    for (const raw of [{}, { radius_miles: '10' }, { limit: 5, src: 'x' }]) {
      const e = fail(raw);
      expect(e.code).toBe('location_required');
      expect(e.status).toBe(400);
      expect(e.detail).toMatch(/location/);
      expect(e.detail).toMatch(/zip/);
      expect(e.detail).toMatch(/lat/);
    }
  });

  it('rejects more than one location form, naming them: invalid_parameter', () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ location: 'Austin, TX', zip: '78701' }, ['location', 'zip']],
      [{ zip: '78701', lat: '30', lng: '-97' }, ['zip', 'lat+lng']],
      [{ location: '30,-97', lat: 30, lng: -97 }, ['location', 'lat+lng']],
      [{ location: '30,-97', lat: 30 }, ['location', 'lat+lng']],
    ];
    for (const [raw, names] of cases) {
      const e = fail(raw);
      expect(e.code).toBe('invalid_parameter');
      for (const n of names) expect(e.detail).toContain(n);
      expect(e.detail).toMatch(/exactly one/);
    }
  });

  it('rejects lat without lng and lng without lat', () => {
    const a = fail({ lat: '30' });
    expect(a.code).toBe('invalid_parameter');
    expect(a.extra.parameter).toBe('lng');
    expect(a.detail).toMatch(/lat and lng/);
    const b = fail({ lng: '-97' });
    expect(b.code).toBe('invalid_parameter');
    expect(b.extra.parameter).toBe('lat');
  });

  it('rejects out-of-range or non-numeric coordinates', () => {
    for (const [raw, param] of [
      [{ lat: '91', lng: '0' }, 'lat'],
      [{ lat: '-90.5', lng: '0' }, 'lat'],
      [{ lat: '10', lng: '180.01' }, 'lng'],
      [{ lat: 'north', lng: '0' }, 'lat'],
      [{ lat: '', lng: '0' }, 'lat'],
      [{ lat: '0x10', lng: '0' }, 'lat'],
      [{ lat: '10', lng: 'Infinity' }, 'lng'],
      [{ lat: ' 10', lng: '0' }, 'lat'],
      [{ lat: true, lng: 0 }, 'lat'],
    ] as const) {
      const e = fail(raw);
      expect(e.code).toBe('invalid_parameter');
      expect(e.extra.parameter).toBe(param);
      expect(e.detail).toMatch(param === 'lat' ? /-90 to 90/ : /-180 to 180/);
    }
  });

  it('suggests swapping lat and lng only when the pair the other way round lies where the US does', () => {
    const swapped = fail({ lat: '-118.2437', lng: '34.0522' });
    expect(swapped.detail).toContain('look swapped: send lat=34.0522&lng=-118.2437');
    // lat=0&lng=91 is in the Bay of Bengal: no swap to suggest, only the range.
    for (const raw of [
      { lat: '91', lng: '0' },
      { lat: '120', lng: '-45' },
      { lat: '-150', lng: '-20' },
    ]) {
      const e = fail(raw);
      expect(e.extra.parameter).toBe('lat');
      expect(e.detail).toMatch(/-90 to 90/);
      expect(e.detail).not.toContain('swapped');
    }
  });

  it('rejects a bad zip, naming the accepted form', () => {
    for (const zip of ['6060', '606011', '60601-1234', 'abcde', '', 60601, null]) {
      const e = fail({ zip });
      expect(e.code).toBe('invalid_parameter');
      expect(e.extra.parameter).toBe('zip');
      expect(e.detail).toMatch(/5-digit/);
    }
  });

  it('rejects an empty, blank, over-long or non-string location', () => {
    for (const location of ['', '   ', 'x'.repeat(201), 12345, 'Austin\u0000, TX', null]) {
      const e = fail({ location });
      expect(e.code).toBe('invalid_parameter');
      expect(e.extra.parameter).toBe('location');
      expect(e.detail).toMatch(/City, ST/);
    }
  });

  it('rejects radius_miles that is not a number from 1 to 50, naming the bound', () => {
    for (const r of ['0', '0.99', '50.01', '51', '-5', 'ten', '', '1e1', 'NaN', 0, 75, Number.NaN, null]) {
      const e = fail({ zip: '60601', radius_miles: r });
      expect(e.code).toBe('invalid_parameter');
      expect(e.extra.parameter).toBe('radius_miles');
      expect(e.detail).toContain('radius_miles');
      expect(e.detail).toMatch(/from 1 to 50/);
    }
  });

  it('rejects limit that is not an integer from 1 to 25, naming the bound', () => {
    for (const l of ['0', '26', '2.5', 'many', '', 0, 100, 3.5]) {
      const e = fail({ zip: '60601', limit: l });
      expect(e.code).toBe('invalid_parameter');
      expect(e.extra.parameter).toBe('limit');
      expect(e.detail).toMatch(/integer from 1 to 25/);
    }
  });

  it('rejects any practice_area except personal_injury: practice_area_unsupported', () => {
    for (const p of ['family_law', 'Personal_Injury', '', 1]) {
      const e = fail({ zip: '60601', practice_area: p });
      expect(e.code).toBe('practice_area_unsupported');
      expect(e.extra.accepted).toEqual(['personal_injury']);
      expect(e.detail).toContain('personal_injury');
    }
  });

  it('rejects an empty, long or unprintable src', () => {
    expect(parseAttorneysArgs({ zip: '60601', src: 'é'.repeat(100) }).src).toHaveLength(100);
    for (const src of ['', 'x'.repeat(101), 'app\nname', 'tab\there', 'zero\u200bwidth', 42]) {
      const e = fail({ zip: '60601', src });
      expect(e.code).toBe('invalid_parameter');
      expect(e.extra.parameter).toBe('src');
      expect(e.detail).toMatch(/1 to 100 printable characters/);
    }
  });

  it('rejects unknown parameters, naming them and the accepted ones, before anything else', () => {
    for (const name of ['radius', 'q', 'miles', 'Zip']) {
      const e = fail({ [name]: '5' });
      expect(e.code).toBe('unknown_parameter');
      expect(e.extra.parameter).toBe(name);
      expect(e.extra.accepted).toEqual([...ATTORNEYS_PARAMS]);
      expect(e.detail).toContain(JSON.stringify(name));
      for (const p of ATTORNEYS_PARAMS) expect(e.detail).toContain(p);
    }
  });

  it('suggests the parameter a common mistake meant', () => {
    expect(fail({ zip: '60601', radius: '5' }).detail).toContain('Did you mean radius_miles?');
    expect(fail({ Zip: '60601' }).detail).toContain('Did you mean zip?');
    expect(fail({ latitude: '41', longitude: '-87' }).detail).toContain('Did you mean lat?');
    expect(fail({ zip: '60601', xyzzy: '1' }).detail).not.toContain('Did you mean');
  });

  it('rejects a repeated parameter', () => {
    for (const raw of [
      { zip: ['60601', '60602'] },
      { zip: '60601', limit: ['5', '6'] },
      { zip: '60601', radius_miles: ['5'] },
      { lat: ['1', '2'], lng: '3' },
    ]) {
      const e = fail(raw);
      expect(e.code).toBe('invalid_parameter');
      expect(e.detail).toMatch(/once/);
    }
  });

  it('gives the same message for a REST string and the equal MCP value', () => {
    expect(fail({ zip: '60601', radius_miles: 75 }).detail).toBe(fail({ zip: '60601', radius_miles: '75' }).detail);
    expect(fail({ lat: 95, lng: 0 }).detail).toBe(fail({ lat: '95', lng: '0' }).detail);
  });
});
