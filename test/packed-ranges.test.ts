/**
 * The packed-layout what-if of the cold-path benchmark (bench/cold/packed-ranges.ts): the GETs and bytes of a query's
 * reads as ranges of packs, checked against a byte-by-byte recount of what the merged GETs cover.
 */
import { describe, expect, it } from 'vitest';
import { codedSize, fittedReads, packedReads, type Placed } from '../bench/cold/packed-ranges.ts';
import type { ColdQueryReads } from '../bench/cold/cold.ts';

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** GETs and bytes by brute force: per round and pack, mark every byte a GET returns, a GET being a maximal run of ranges no more than `gap` apart. */
function recount(q: ColdQueryReads, placed: Map<string, Placed>, gap: number, indexExtra: number) {
  let gets = 0;
  let bytes = 0;
  for (const round of q.allRounds ?? q.rounds) {
    const packs = new Map<string, Placed[]>();
    for (const key of round) {
      const p = placed.get(key);
      if (p === undefined) {
        gets++;
        bytes += (q.reads.find((r) => r.key === key)?.bytes ?? 0) + (key.endsWith('cells/index.json') ? indexExtra : 0);
      } else packs.set(p.pack, [...(packs.get(p.pack) ?? []), p]);
    }
    for (const list of packs.values()) {
      const end = Math.max(...list.map((p) => p.at + p.size));
      const wanted = new Uint8Array(end);
      for (const p of list) wanted.fill(1, p.at, p.at + p.size);
      // Walk the pack: a GET starts at a wanted byte and runs on while the next wanted byte is within `gap`.
      let i = 0;
      while (i < end) {
        if (wanted[i] !== 1) {
          i++;
          continue;
        }
        gets++;
        let last = i;
        for (let j = i; j < end && j - last <= gap + 1; j++) if (wanted[j] === 1) last = j;
        bytes += last - i + 1;
        i = last + 1;
      }
    }
  }
  return { gets, bytes };
}

describe('packed ranges', () => {
  it('counts the GETs and bytes of merged ranges as a byte-by-byte recount does', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = rng(seed);
      const placed = new Map<string, Placed>();
      const keys: string[] = [];
      for (const pack of ['a', 'b']) {
        let at = 0;
        for (let k = 0; k < 12; k++) {
          const size = 1 + Math.floor(r() * 40);
          const key = `v/x/cells/blocks/${pack}${k}.json`;
          placed.set(key, { pack, at, size });
          keys.push(key);
          at += size;
        }
      }
      const rounds = [['v/x/cells/index.json'], keys.filter(() => r() < 0.4), keys.filter(() => r() < 0.3)];
      const reads = [...new Set(rounds.flat())].map((key) => ({
        key,
        bytes: placed.get(key)?.size ?? 500,
        found: true,
        startMs: 0,
        endMs: 0,
      }));
      const q: ColdQueryReads = { query: `seed ${seed}`, reads, rounds, allRounds: rounds };
      for (const gap of [0, 5, 30, 1000])
        expect(packedReads(q, placed, gap, 7), `seed ${seed}, gap ${gap}`).toEqual(recount(q, placed, gap, 7));
    }
  });

  it('fits a plan to a number of GETs at the least bytes any choice of merges would cost', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = rng(seed);
      const placed = new Map<string, Placed>();
      let at = 0;
      const keys: string[] = [];
      for (let k = 0; k < 10; k++) {
        const size = 1 + Math.floor(r() * 30);
        const key = `v/x/cells/blocks/${k}.json`;
        placed.set(key, { pack: 'g', at: at + Math.floor(r() * 50), size });
        at = (placed.get(key)?.at ?? 0) + size;
        keys.push(key);
      }
      const wanted = keys.filter(() => r() < 0.7);
      if (wanted.length === 0) continue;
      const reads = wanted.map((key) => ({ key, bytes: 0, found: true, startMs: 0, endMs: 0 }));
      const q: ColdQueryReads = { query: `seed ${seed}`, reads, rounds: [wanted] };
      const spans = wanted.map((k) => placed.get(k) as Placed).sort((a, b) => a.at - b.at);
      const gaps = spans.slice(1).map((p, i) => p.at - ((spans[i] as Placed).at + (spans[i] as Placed).size));
      const sizes = spans.reduce((n, p) => n + p.size, 0);
      for (const maxGets of [1, 2, 3, 5, 20]) {
        // Every subset of the gaps to merge: the fewest bytes among plans within maxGets GETs (or all merged).
        let best = Infinity;
        for (let mask = 0; mask < 1 << gaps.length; mask++) {
          let gets = spans.length;
          let bytes = sizes;
          gaps.forEach((g, i) => {
            if ((mask >> i) & 1) {
              gets--;
              bytes += Math.max(g, 0);
            }
          });
          if (gets <= Math.max(maxGets, 1)) best = Math.min(best, bytes);
        }
        const fitted = fittedReads(q, placed, maxGets, 0);
        expect(fitted.gets, `seed ${seed}`).toBeLessThanOrEqual(Math.max(maxGets, 1));
        expect(fitted.bytes, `seed ${seed}, ${maxGets} GETs`).toBe(best);
      }
    }
  });

  it('reads each object whole as one GET when nothing is adjacent, and one GET for adjacent ranges', () => {
    const placed = new Map<string, Placed>([
      ['k0', { pack: 'g', at: 0, size: 10 }],
      ['k1', { pack: 'g', at: 10, size: 5 }],
      ['k2', { pack: 'g', at: 40, size: 5 }],
    ]);
    const reads = ['k0', 'k1', 'k2'].map((key) => ({ key, bytes: 0, found: true, startMs: 0, endMs: 0 }));
    const q: ColdQueryReads = { query: 'q', reads, rounds: [['k0', 'k1', 'k2']] };
    expect(packedReads(q, placed, 0, 0)).toEqual({ gets: 2, bytes: 20 });
    expect(packedReads(q, placed, 25, 0)).toEqual({ gets: 1, bytes: 45 });
    // Adjacent objects asked in two rounds cannot share a GET.
    expect(packedReads({ ...q, rounds: [['k0'], ['k1']] }, placed, 0, 0)).toEqual({ gets: 2, bytes: 15 });
  });

  it('estimates a binary coding: varints by magnitude, hashes and H3 ids at their binary width', () => {
    // Zigzag: 0 -> 0, -1 -> 1, 63 -> 126, -64 -> 127 fit 7 bits; 64 -> 128 does not.
    expect([0, -1, 63, -64, 64, 8191, 8192].map(codedSize)).toEqual([1, 1, 1, 1, 2, 2, 3]);
    // Reach in miles to 0.0001: 1.2345 miles is 12,345 units, a 3-byte varint.
    expect(codedSize(1.2345)).toBe(3);
    expect(codedSize('a'.repeat(64))).toBe(32);
    expect(codedSize('8a2a1072b59ffff')).toBe(8);
    expect(codedSize('New York')).toBe(9);
    // An array: its length, then its items; an object: one byte, its values, and 8 bytes per map key (H3 id).
    expect(codedSize([1, 2, 3])).toBe(4);
    expect(codedSize({ n: 5, cells: { '8a2a1072b59ffff': 1 } })).toBe(1 + 1 + (1 + 1 + 8));
  });
});
