/** The answer cache on its own: the normalised key (equivalent queries share it, any change of answer splits it), the byte bound, LRU order, versions kept apart. */
import { describe, expect, it } from 'vitest';
import { AnswerCache, answerKey, type CachedAnswer } from '../shim/http/answer-cache.ts';
import { parseQuery } from '../shim/http/query.ts';

const key = (search: string): string | null => answerKey(parseQuery(search));
const answer = (bytes: number, tag = 'x'): CachedAnswer => ({
  status: 200,
  headers: [['content-type', 'application/json']],
  body: Buffer.alloc(bytes, tag),
  log: {},
});

describe('answerKey', () => {
  it('gives equivalent queries one key: order, explicit defaults, location forms, src', () => {
    const base = key('zip=60601');
    expect(base).not.toBeNull();
    for (const same of [
      'location=60601',
      'zip=60601&radius_miles=15&limit=10',
      'limit=10&zip=60601',
      'zip=60601&src=my-app',
      'zip=60601&practice_area=personal_injury',
      'zip=60601&radius_miles=15.0',
    ]) {
      expect(key(same), same).toBe(base);
    }
    expect(key('lat=41.88&lng=-87.63')).toBe(key('location=41.88,-87.63'));
  });

  it('splits queries whose answers differ', () => {
    const keys = [
      'zip=60601',
      'zip=60602',
      'zip=60601&limit=3',
      'zip=60601&radius_miles=5',
      'location=Chicago,%20IL',
      'lat=41.88&lng=-87.63',
      'lat=41.88&lng=-87.64',
    ].map(key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is null for anything the service would refuse (the app answers those)', () => {
    for (const bad of [
      '',
      'radius=5&zip=60601',
      'zip=6060',
      'zip=60601&limit=26',
      'zip=60601&zip=60602',
      'lat=41',
      'zip=60601&location=60601',
      'zip=60601&practice_area=tax',
    ]) {
      expect(key(bad), bad).toBeNull();
    }
  });
});

describe('AnswerCache', () => {
  it('keeps versions and codings apart', () => {
    const c = new AnswerCache(1 << 20);
    c.set('v1', 'identity', 'k', answer(10, 'a'));
    expect(c.get('v2', 'identity', 'k')).toBeUndefined();
    expect(c.get('v1', 'br', 'k')).toBeUndefined();
    expect(c.get('v1', 'identity', 'k')?.body.toString()).toBe('a'.repeat(10));
    expect(c.stats()).toMatchObject({ hits: 1, misses: 2, entries: 1 });
  });

  it('stays within its byte budget, evicting the least recently used first', () => {
    const c = new AnswerCache(10_000);
    for (let i = 0; i < 5; i++) c.set('v', 'identity', `k${i}`, answer(1500));
    c.get('v', 'identity', 'k0');
    for (let i = 5; i < 20; i++) {
      c.set('v', 'identity', `k${i}`, answer(1500));
      c.get('v', 'identity', 'k0');
      expect(c.stats().bytes).toBeLessThanOrEqual(10_000);
    }
    expect(c.get('v', 'identity', 'k0')).toBeDefined();
    expect(c.get('v', 'identity', 'k1')).toBeUndefined();
    expect(c.get('v', 'identity', 'k19')).toBeDefined();
    expect(c.stats().evictions).toBeGreaterThan(0);
  });

  it('is worth storing from the second sight of a query on, per version, within a bounded memory of queries', () => {
    const c = new AnswerCache(1 << 20);
    expect(c.seenAgain('v1', 'k')).toBe(false);
    expect(c.seenAgain('v1', 'k')).toBe(true);
    expect(c.seenAgain('v1', 'k')).toBe(true);
    expect(c.seenAgain('v2', 'k')).toBe(false);
    // Tens of thousands of one-off queries later, the first is forgotten and counts as new again.
    for (let i = 0; i < 40_000; i++) c.seenAgain('v1', `once${i}`);
    expect(c.seenAgain('v1', 'k')).toBe(false);
  });

  it('stores nothing larger than the budget, and nothing at all with a budget of 0', () => {
    const c = new AnswerCache(1000);
    c.set('v', 'identity', 'big', answer(2000));
    expect(c.stats().entries).toBe(0);
    const off = new AnswerCache(0);
    off.set('v', 'identity', 'k', answer(1));
    expect(off.stats().entries).toBe(0);
  });
});
