/** ByteLru, the byte-bounded LRU behind the parsed-object and answer caches: checked against a plain list model. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteLru } from '../shim/lib/byte-lru.ts';

/** The obvious model: a list oldest first; a set appends, then drops from the front while the sum exceeds the budget. */
class ListModel {
  list: { key: string; value: number; cost: number }[] = [];
  evictions = 0;
  private readonly budget: number;
  constructor(budget: number) {
    this.budget = budget;
  }
  get(key: string): number | undefined {
    const i = this.list.findIndex((e) => e.key === key);
    if (i < 0) return undefined;
    const [e] = this.list.splice(i, 1);
    this.list.push(e!);
    return e!.value;
  }
  set(key: string, value: number, cost: number): boolean {
    if (cost > this.budget) return false;
    this.list = this.list.filter((e) => e.key !== key);
    this.list.push({ key, value, cost });
    while (this.list.reduce((s, e) => s + e.cost, 0) > this.budget) {
      this.list.shift();
      this.evictions++;
    }
    return true;
  }
}

describe('ByteLru', () => {
  it('evicts the least recently used (a get counts as a use) until the total fits', () => {
    const lru = new ByteLru<string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A');
    lru.set('c', 'C', 4);
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual(['A', undefined, 'C']);
    expect({ bytes: lru.bytes, size: lru.size, evictions: lru.evictions }).toEqual({ bytes: 8, size: 2, evictions: 1 });
  });

  it('replaces a key without counting an eviction, and refuses an entry bigger than the budget', () => {
    const lru = new ByteLru<number>(10);
    lru.set('a', 1, 6);
    lru.set('a', 2, 3);
    expect({ value: lru.get('a'), bytes: lru.bytes, evictions: lru.evictions }).toEqual({
      value: 2,
      bytes: 3,
      evictions: 0,
    });
    expect(lru.set('huge', 3, 11)).toBe(false);
    expect({ huge: lru.get('huge'), a: lru.get('a') }).toEqual({ huge: undefined, a: 2 });
    const off = new ByteLru<number>(0);
    expect(off.set('x', 1, 1)).toBe(false);
    expect(off.size).toBe(0);
  });

  it('agrees with the list model over random sequences of gets and sets', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('get' as const), key: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f') }),
      fc.record({
        kind: fc.constant('set' as const),
        key: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
        value: fc.integer(),
        cost: fc.integer({ min: 0, max: 40 }),
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.array(op, { maxLength: 60 }), (budget, ops) => {
        const lru = new ByteLru<number>(budget);
        const model = new ListModel(budget);
        for (const o of ops) {
          if (o.kind === 'get') expect(lru.get(o.key)).toBe(model.get(o.key));
          else expect(lru.set(o.key, o.value, o.cost)).toBe(model.set(o.key, o.value, o.cost));
          expect(lru.bytes).toBe(model.list.reduce((s, e) => s + e.cost, 0));
          expect(lru.bytes).toBeLessThanOrEqual(budget);
          expect({ size: lru.size, evictions: lru.evictions }).toEqual({
            size: model.list.length,
            evictions: model.evictions,
          });
        }
      }),
    );
  });
});
