/** query_id: the same normalised query on the same version always has the same id; anything that changes the answer changes it. */
import { describe, expect, it } from 'vitest';
import { queryId, type NormalisedQuery } from '../shim/answer/query-id.ts';

const BASE: NormalisedQuery = {
  version: '2026-W47-0123456789',
  locationInput: 'Chicago, IL',
  radiusMiles: 15,
  limit: 10,
  practiceArea: 'personal_injury',
};

describe('queryId', () => {
  it('is a version-8 UUID, stable for the same query and version', () => {
    const id = queryId(BASE);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(queryId({ ...BASE })).toBe(id);
  });

  it('differs when the version or any part of the query differs', () => {
    const variants: NormalisedQuery[] = [
      { ...BASE, version: '2026-W48-0123456789' },
      { ...BASE, locationInput: 'Chicago, IN' },
      { ...BASE, locationInput: 'chicago, IL' },
      { ...BASE, radiusMiles: 15.5 },
      { ...BASE, limit: 11 },
      { ...BASE, practiceArea: 'other' },
    ];
    const ids = new Set([BASE, ...variants].map(queryId));
    expect(ids.size).toBe(variants.length + 1);
  });

  it('cannot be forged by moving text between fields', () => {
    expect(queryId({ ...BASE, version: 'a', locationInput: 'b,c' })).not.toBe(
      queryId({ ...BASE, version: 'a,b', locationInput: 'c' }),
    );
  });
});
