/** The site reader over a store: pointer cache, version switch, object cache and its byte bound, failures as StoreError. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { keys } from '../shim/format/site-format.ts';
import { createSiteSource, heldBytes } from '../shim/search/site-reader.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { minimalMeta } from './helpers/minimal-meta.ts';
import { StoreError, type Store } from '../shim/store/types.ts';

/** A store that counts reads per key, over a MemoryStore. */
class CountingStore implements Store {
  readonly kind = 'counting';
  readonly reads = new Map<string, number>();
  readonly inner: MemoryStore;
  constructor(inner: MemoryStore) {
    this.inner = inner;
  }
  async get(key: string): Promise<Uint8Array | null> {
    this.reads.set(key, (this.reads.get(key) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, 2));
    return this.inner.get(key);
  }
}

function site(): MemoryStore {
  const m = new MemoryStore();
  for (const v of ['a', 'b']) {
    m.set(keys.meta(v), JSON.stringify(minimalMeta(v)));
    m.set(`v/${v}/thing.json`, JSON.stringify({ version: v, n: 1 }));
  }
  m.set(keys.pointer, JSON.stringify({ schema_version: 1, version: 'a', week: '2026-W47' }));
  return m;
}

const Thing = z.object({ version: z.string(), n: z.number() });
const point = (version: string) => JSON.stringify({ schema_version: 1, version, week: '2026-W47' });

describe('createSiteSource', () => {
  it('caches parsed objects, dedupes concurrent reads, and never caches a miss', async () => {
    const store = new CountingStore(site());
    const source = createSiteSource(store);
    const r = await source.current();
    expect(r.version).toBe('a');
    expect(r.meta.version).toBe('a');
    const many = await Promise.all(Array.from({ length: 10 }, () => r.json('v/a/thing.json', Thing)));
    for (const t of many) expect(t).toEqual({ version: 'a', n: 1 });
    expect(await r.json('v/a/thing.json', Thing)).toBe(many[0]);
    expect(store.reads.get('v/a/thing.json')).toBe(1);
    expect(await r.json('v/a/missing.json', Thing)).toBeNull();
    expect(await r.json('v/a/missing.json', Thing)).toBeNull();
    expect(store.reads.get('v/a/missing.json')).toBe(2);
    // The object comes back (restored, or re-published under the same version): seen at once, no restart.
    store.inner.set('v/a/missing.json', JSON.stringify({ version: 'a', n: 2 }));
    expect(await r.json('v/a/missing.json', Thing)).toEqual({ version: 'a', n: 2 });
    expect(source.stats().cacheHits).toBeGreaterThanOrEqual(10);
  });

  it('reads current.json at most once per TTL and switches version when it changes', async () => {
    const mem = site();
    const store = new CountingStore(mem);
    let clock = 0;
    const source = createSiteSource(store, { pointerTtlMs: 1000, now: () => clock });
    const [r1, r2] = await Promise.all([source.current(), source.current()]);
    expect(r1).toBe(r2);
    expect(store.reads.get(keys.pointer)).toBe(1);
    mem.set(keys.pointer, point('b'));
    clock = 999;
    expect((await source.current()).version).toBe('a');
    expect(store.reads.get(keys.pointer)).toBe(1);
    clock = 1000;
    const rb = await source.current();
    expect(rb.version).toBe('b');
    expect(await rb.json('v/b/thing.json', Thing)).toEqual({ version: 'b', n: 1 });
    // The reader taken before the switch still answers from its own version only.
    expect(await r1.json('v/a/thing.json', Thing)).toEqual({ version: 'a', n: 1 });
    await expect(r1.json('v/b/thing.json', Thing)).rejects.toBeInstanceOf(StoreError);
    await expect(rb.json('v/a/thing.json', Thing)).rejects.toBeInstanceOf(StoreError);
    // Switching back reuses the version's reader (meta read once).
    mem.set(keys.pointer, point('a'));
    clock = 5000;
    expect(await source.current()).toBe(r1);
    expect(store.reads.get(keys.meta('a'))).toBe(1);
  });

  it('fails with StoreError when the pointer or the meta is missing or corrupt', async () => {
    const none = createSiteSource(new MemoryStore());
    await expect(none.current()).rejects.toBeInstanceOf(StoreError);

    const noMeta = site();
    noMeta.set(keys.pointer, point('c'));
    await expect(createSiteSource(noMeta).current()).rejects.toThrow(/meta/);

    const badPointer = site();
    badPointer.set(keys.pointer, '{"version":');
    await expect(createSiteSource(badPointer).current()).rejects.toBeInstanceOf(StoreError);

    const wrongMeta = site();
    wrongMeta.set(keys.meta('a'), JSON.stringify(minimalMeta('b')));
    await expect(createSiteSource(wrongMeta).current()).rejects.toBeInstanceOf(StoreError);

    // A failure is not cached: once the pointer is back, the source recovers.
    const later = site();
    const store = new MemoryStore();
    const source = createSiteSource(store, { pointerTtlMs: 0 });
    await expect(source.current()).rejects.toBeInstanceOf(StoreError);
    store.set(keys.pointer, point('a'));
    store.set(keys.meta('a'), (await later.get(keys.meta('a')))!);
    expect((await source.current()).version).toBe('a');
  });

  it('rejects corrupt JSON and schema mismatches with StoreError, without caching them', async () => {
    const mem = site();
    mem.set('v/a/corrupt.json', '{"version": "a", n:');
    mem.set('v/a/wrong.json', JSON.stringify({ version: 'a', n: 'one' }));
    mem.set('v/a/binary.json', new Uint8Array([0xff, 0xfe, 0x00]));
    const r = await createSiteSource(mem).current();
    await expect(r.json('v/a/corrupt.json', Thing)).rejects.toBeInstanceOf(StoreError);
    await expect(r.json('v/a/wrong.json', Thing)).rejects.toThrow(/schema/);
    await expect(r.json('v/a/binary.json', Thing)).rejects.toBeInstanceOf(StoreError);
    mem.set('v/a/wrong.json', JSON.stringify({ version: 'a', n: 1 }));
    expect(await r.json('v/a/wrong.json', Thing)).toEqual({ version: 'a', n: 1 });
  });

  it('passes on store failures as StoreError', async () => {
    const failing: Store = {
      kind: 'failing',
      get: async (key) => {
        if (key.endsWith('thing.json')) throw new StoreError('disk on fire', key);
        return site().get(key);
      },
    };
    const r = await createSiteSource(failing).current();
    await expect(r.json('v/a/thing.json', Thing)).rejects.toThrow(/disk on fire/);
  });

  it('keeps the cache within its byte budget, evicting the least recently used', async () => {
    const mem = site();
    const body = JSON.stringify({ version: 'a', n: 1, pad: 'x'.repeat(900) });
    for (let i = 0; i < 20; i++) mem.set(`v/a/o${i}.json`, body);
    const store = new CountingStore(mem);
    // Room for five: each object is charged what holding it costs (heldBytes), not its stored size.
    const budget = 5 * heldBytes('v/a/o0.json', body.length, JSON.parse(body));
    const source = createSiteSource(store, { cacheBytes: budget });
    const r = await source.current();
    for (let i = 0; i < 20; i++) await r.json(`v/a/o${i}.json`, Thing);
    expect(source.stats().cachedBytes).toBeLessThanOrEqual(budget);
    expect(source.stats().cachedObjects).toBe(5);
    await r.json('v/a/o19.json', Thing);
    expect(store.reads.get('v/a/o19.json')).toBe(1);
    await r.json('v/a/o0.json', Thing);
    expect(store.reads.get('v/a/o0.json')).toBe(2);
  });
});
