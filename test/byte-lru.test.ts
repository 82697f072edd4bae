/** ByteLru, the byte-bounded LRU (on lru-cache) behind the parsed-object and answer caches: checked against a plain list model. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteLru } from '../shim/lib/byte-lru.ts';

/**
 * The obvious model: a list oldest first; a set appends (a cost is at least 1), then drops from the front while the sum
 * exceeds the budget; an entry bigger than the budget is refused and drops the key's old value.
 */
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
    this.list = this.list.filter((e) => e.key !== key);
    cost = Math.max(1, cost);
    if (cost > this.budget) return false;
    this.list.push({ key, value, cost });
    while (this.list.reduce((s, e) => s + e.cost, 0) > this.budget) {
      this.list.shift();
      this.evictions++;
    }
    return true;
  }
}

/** The cache holds objects (lru-cache's values are objects); a number in a box. */
interface Box {
  n: number;
}
const box = (n: number): Box => ({ n });

describe('ByteLru', () => {
  it('evicts the least recently used (a get counts as a use) until the total fits', () => {
    const lru = new ByteLru<Box>(10);
    lru.set('a', box(1), 4);
    lru.set('b', box(2), 4);
    expect(lru.get('a')?.n).toBe(1);
    lru.set('c', box(3), 4);
    expect([lru.get('a')?.n, lru.get('b'), lru.get('c')?.n]).toEqual([1, undefined, 3]);
    expect({ bytes: lru.bytes, size: lru.size, evictions: lru.evictions }).toEqual({ bytes: 8, size: 2, evictions: 1 });
  });

  it('replaces a key without counting an eviction, and refuses an entry bigger than the budget', () => {
    const lru = new ByteLru<Box>(10);
    lru.set('a', box(1), 6);
    lru.set('a', box(2), 3);
    expect({ value: lru.get('a')?.n, bytes: lru.bytes, evictions: lru.evictions }).toEqual({
      value: 2,
      bytes: 3,
      evictions: 0,
    });
    expect(lru.set('huge', box(3), 11)).toBe(false);
    expect({ huge: lru.get('huge'), a: lru.get('a')?.n }).toEqual({ huge: undefined, a: 2 });
    // A refused value does not leave the key's old value behind to be served as if it were the new one.
    expect(lru.set('a', box(4), 11)).toBe(false);
    expect(lru.get('a')).toBeUndefined();
    const off = new ByteLru<Box>(0);
    expect(off.set('x', box(1), 1)).toBe(false);
    expect(off.size).toBe(0);
  });

  it('charges the same value stored again under its key at its new cost, evicting others to fit', () => {
    const lru = new ByteLru<Box>(10);
    const a = box(1);
    lru.set('a', a, 3);
    lru.set('b', box(2), 4);
    lru.set('a', a, 8);
    expect({ a: lru.get('a'), b: lru.get('b'), bytes: lru.bytes, evictions: lru.evictions }).toEqual({
      a,
      b: undefined,
      bytes: 8,
      evictions: 1,
    });
  });

  it('charges a cost of 0 as 1 byte, so a budget always bounds the number of entries', () => {
    const lru = new ByteLru<Box>(3);
    for (const k of ['a', 'b', 'c', 'd']) lru.set(k, box(0), 0);
    expect({ size: lru.size, bytes: lru.bytes, evictions: lru.evictions }).toEqual({ size: 3, bytes: 3, evictions: 1 });
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
        const lru = new ByteLru<Box>(budget);
        const model = new ListModel(budget);
        for (const o of ops) {
          if (o.kind === 'get') expect(lru.get(o.key)?.n).toBe(model.get(o.key));
          else expect(lru.set(o.key, box(o.value), o.cost)).toBe(model.set(o.key, o.value, o.cost));
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
