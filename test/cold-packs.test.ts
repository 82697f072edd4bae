/**
 * A cold search reads the blocks it plans, and the shared pages it needs, as byte ranges of their groups' packs
 * (cells/packs/<group>.bin, shim/search/block-packs.ts): the same answers as from the block objects, in fewer requests; a damaged range is a
 * store failure like a damaged block; a missing pack sends the search to the block objects. On a copy of the sample
 * whose tree has small blocks (bench/cold/tree-sweep.ts writeVariant), so that a group holds many blocks.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from './helpers/seeded.ts';
import { coldQueryReads, wholeObjects, type ColdQueryReads } from '../bench/cold/cold.ts';
import {
  joinedReads,
  leastGetsWithin,
  ONLINE_MARGIN_BYTES,
  ONLINE_RESERVE,
  onlineReads,
  packLayout,
  type JoinReserve,
  type Placed,
} from '../bench/cold/packed-ranges.ts';
import { writeVariant } from '../bench/cold/tree-sweep.ts';
import type { StoreRead } from '../bench/lib/counting-store.ts';
import {
  PACK_GAP_BYTES,
  PACK_JOIN_BUDGET_BYTES,
  packRuns,
  recordSpan,
  type PackSpan,
} from '../shim/search/block-packs.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { StoreError } from '../shim/contract/errors.ts';
import { CellBlock, CellGroup, CellIndex } from '../shim/format/cell-format.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { keys, Pointer, type StoredOfficeT } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import type { ReadOptions, Store } from '../shim/store/types.ts';
import { scanOffices } from '../generator/site/scan.ts';
import { openSite } from '../generator/site/site.ts';

const SITE = process.env.TEST_SITE_DIR as string;
const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

/** A folder store that counts requests, can damage the ranges of one pack, or answer it as missing. */
class PackStore implements Store {
  readonly kind = 'packs';
  requests = 0;
  ranges = 0;
  /** Keys read whole. */
  gets: string[] = [];
  damaged: string | null = null;
  missing: string | null = null;
  private readonly inner: FolderStore;
  constructor(root: string) {
    this.inner = new FolderStore(root);
  }
  get(key: string, options?: ReadOptions): Promise<Uint8Array | null> {
    this.requests++;
    this.gets.push(key);
    return this.inner.get(key, options);
  }
  async getRange(key: string, start: number, end: number, options?: ReadOptions): Promise<Uint8Array | null> {
    this.requests++;
    this.ranges++;
    if (this.missing !== null && key.endsWith(this.missing)) return null;
    const bytes = await this.inner.getRange(key, start, end, options);
    if (bytes === null || this.damaged === null || !key.endsWith(this.damaged)) return bytes;
    return bytes.map((b) => b ^ 1);
  }
}

const QUERIES: Record<string, string>[] = [
  { lat: '41.8781', lng: '-87.6298', radius_miles: '1' },
  { lat: '41.8781', lng: '-87.6298', radius_miles: '15' },
  { location: '40.7128,-74.006', radius_miles: '15' },
  { location: '40.7128,-74.006', radius_miles: '50' },
  { zip: '60601', radius_miles: '50' },
  { location: 'Philadelphia, PA', radius_miles: '50' },
  { location: 'Houston, TX', radius_miles: '15', limit: '25' },
  { location: 'Los Angeles, CA', radius_miles: '50', limit: '3' },
];

let dir: string;
let variant: string;
let version: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cold-packs-'));
  variant = join(dir, 'site');
  version = Pointer.parse(JSON.parse(readFileSync(join(SITE, keys.pointer), 'utf8'))).version;
  const offices: StoredOfficeT[] = [];
  const root = join(SITE, keys.root(version), 'cells/records');
  // The offices of the sample, from its record chunks (what writeVariant rebuilds a tree from).
  for (const line of readFileSync(join(SITE, keys.manifest(version)), 'utf8').match(/cells\/records\/[^"]+\.json/g) ??
    [])
    offices.push(...(JSON.parse(readFileSync(join(root, line.slice('cells/records/'.length)), 'utf8')).offices as []));
  writeVariant(SITE, version, offices, { leafMax: 16, blockMax: 96, recordChunk: 8, sharedRes: 5 }, variant);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cold reads of packed blocks', () => {
  it('gives the answers of the block objects in fewer requests, and merges the blocks of a group', async () => {
    const index = CellIndex.parse(JSON.parse(readFileSync(join(variant, keys.cellIndex(version)), 'utf8')));
    expect(Math.max(...Object.values(index.blocks).map((b) => b.length))).toBeGreaterThan(4);
    let fewer = 0;
    let sharedPages = 0;
    for (const q of QUERIES) {
      const packed = new PackStore(variant);
      const whole = new PackStore(variant);
      const a = await createService(createSiteSource(packed)).findAttorneys(q, CTX);
      const b = await createService(createSiteSource(wholeObjects(whole))).findAttorneys(q, CTX);
      const original = await createService(createSiteSource(new FolderStore(SITE))).findAttorneys(q, CTX);
      expect(a, JSON.stringify(q)).toEqual(b);
      // The copy's tree is another one; the answer is the same offices at the same distances.
      expect(a.results, JSON.stringify(q)).toEqual(original.results);
      expect(a.firms_within_radius).toBe(original.firms_within_radius);
      expect(packed.requests, JSON.stringify(q)).toBeLessThanOrEqual(whole.requests);
      // Blocks, shared pages and record chunks come from the packs, never as objects of their own.
      expect(packed.gets.filter((k) => /\/cells\/(?:blocks|shared|records)\//.test(k))).toEqual([]);
      sharedPages += whole.gets.filter((k) => k.includes('/cells/shared/')).length;
      if (packed.requests < whole.requests) fewer++;
    }
    expect(fewer).toBeGreaterThan(QUERIES.length / 2);
    // The queries do read shared pages (as objects, when read whole).
    expect(sharedPages).toBeGreaterThan(0);
  });

  it('is what the pack what-if counts: its copy of the shim rule gives the requests and bytes the search made', async () => {
    // bench/cold/pack-sim.ts --join replays reads made of whole objects through packRuns; here a search over ranges made
    // them. The sample's packs are small (no round has ranges more than 16 KiB apart), so this holds the replay to the
    // search; the join itself is held to its rule by the brute-force test of packRuns below.
    const { placed } = packLayout(variant, version);
    let ranged = 0;
    for (const args of [...QUERIES, { location: '40.7128,-74.006', radius_miles: '50', limit: '25' }]) {
      const q = { name: JSON.stringify(args), args };
      const real = await coldQueryReads(new FolderStore(variant), q);
      const whole = await coldQueryReads(wholeObjects(new FolderStore(variant)), q);
      const counted = { gets: real.reads.length, bytes: real.reads.reduce((n, r) => n + r.bytes, 0) };
      expect(joinedReads(whole, placed, PACK_JOIN_BUDGET_BYTES), q.name).toEqual(counted);
      ranged += real.reads.filter((r) => r.key.includes('/cells/packs/')).length;
    }
    expect(ranged).toBeGreaterThan(QUERIES.length);
  });

  it('is a store failure when the packs are damaged, and reads the block objects when they are missing', async () => {
    const q = { location: '40.7128,-74.006', radius_miles: '50' };
    const expected = await createService(createSiteSource(new PackStore(variant))).findAttorneys(q, CTX);
    // Every range read comes back with its bytes changed: each block cut from it fails its group's sha256.
    const damaged = new PackStore(variant);
    damaged.damaged = '.bin';
    await expect(createService(createSiteSource(damaged)).findAttorneys(q, CTX)).rejects.toBeInstanceOf(StoreError);
    expect(damaged.ranges).toBeGreaterThan(0);
    // No pack: the blocks are read as objects, and the answer is the same.
    const missing = new PackStore(variant);
    missing.missing = '.bin';
    expect(await createService(createSiteSource(missing)).findAttorneys(q, CTX)).toEqual(expected);
    expect(missing.ranges).toBeGreaterThan(0);
  });

  it('passes audit: every pack is its group blocks, and a changed pack is named', async () => {
    const site = await openSite({ kind: 'folder', dir: variant });
    expect((await scanOffices(site)).problems).toEqual([]);
    const index = CellIndex.parse(JSON.parse(readFileSync(join(variant, keys.cellIndex(version)), 'utf8')));
    const group = Object.keys(index.block_bytes ?? {}).find((g) => (index.blocks[g] ?? []).length > 2) as string;
    const file = join(variant, keys.cellPack(version, group));
    const bytes = readFileSync(file);
    const damaged = Buffer.from(bytes);
    const at = (index.block_bytes?.[group]?.[0] ?? 0) + 1;
    damaged[at] = (damaged[at] ?? 0) ^ 1;
    writeFileSync(file, damaged);
    try {
      const problems = (await scanOffices(await openSite({ kind: 'folder', dir: variant }))).problems;
      expect(problems).toEqual([
        expect.stringMatching(new RegExp(`cells/packs/${group}\\.bin: bytes \\d+-\\d+ are not block`)),
      ]);
    } finally {
      writeFileSync(file, bytes);
    }
  });

  it('is a store failure when a record chunk in a pack is damaged, and audit names the chunk', async () => {
    const q = { location: '40.7128,-74.006', radius_miles: '50' };
    const index = CellIndex.parse(JSON.parse(readFileSync(join(variant, keys.cellIndex(version)), 'utf8')));
    // One byte of every record chunk in every pack changed: blocks and shared pages stay intact.
    let chunks = 0;
    const originals = Object.keys(index.block_bytes ?? {}).map((group) => {
      const file = join(variant, keys.cellPack(version, group));
      const bytes = readFileSync(file);
      const damaged = Buffer.from(bytes);
      const treeRel = keys.cellGroup(version, group, index.schema_version);
      const tree = CellGroup.parse(decodeStored(readFileSync(join(variant, treeRel)), treeRel));
      for (const [cell] of index.blocks[group] ?? []) {
        const rel = keys.cellBlock(version, cell);
        const block = CellBlock.parse(decodeStored(readFileSync(join(variant, rel)), rel));
        for (let k = 0; k < block.records_bytes.length; k++) {
          const at = (recordSpan(index, version, tree, { cell, recordBytes: block.records_bytes }, k)?.start ?? 0) + 1;
          damaged[at] = (damaged[at] ?? 0) ^ 1;
          chunks++;
        }
      }
      writeFileSync(file, damaged);
      return [file, bytes] as const;
    });
    try {
      const err = await createService(createSiteSource(new PackStore(variant)))
        .findAttorneys(q, CTX)
        .catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(StoreError);
      expect(String(err)).toMatch(/cells\/records\/[0-9a-f]{15}\/\d+\.json/);
      const problems = (await scanOffices(await openSite({ kind: 'folder', dir: variant }))).problems;
      expect(chunks).toBeGreaterThan(originals.length);
      expect(problems).toHaveLength(chunks);
      for (const p of problems)
        expect(p).toMatch(/cells\/packs\/[0-9a-f]{15}\.bin: bytes \d+-\d+ are not record chunk \d+ of block/);
    } finally {
      for (const [file, bytes] of originals) writeFileSync(file, bytes);
    }
  });

  it('passes audit with the cell index meta.json carries, and names one that is not cells/index.json', async () => {
    const site = await openSite({ kind: 'folder', dir: variant });
    const carried = site.meta.cell_index as Record<string, unknown> | undefined;
    expect(carried).toEqual(JSON.parse(readFileSync(join(variant, keys.cellIndex(version)), 'utf8')));
    const other = { ...carried, units: Number(carried?.units) + 1 };
    const scan = await scanOffices({ ...site, meta: { ...site.meta, cell_index: other } });
    expect(scan.problems).toEqual([`${keys.meta(version)}: its cell_index is not ${keys.cellIndex(version)}`]);
  });
});

/** `n` random spans over three packs (a seeded generator, so every run tests the same cases). */
function randomSpans(rand: (n: number) => number): [string, PackSpan][] {
  const spans: [string, PackSpan][] = [];
  for (let i = 0; i < 1 + rand(30); i++) {
    const start = rand(200_000);
    spans.push([`k${i}`, { pack: `p${rand(3)}`, start, end: start + 1 + rand(20_000) }]);
  }
  return spans;
}

/** The holes of a run: stretches of at least one byte that none of its spans covers, in offset order. */
function holesOf(run: { start: number; spans: [string, PackSpan][] }): number[] {
  const covered = run.spans.map(([, s]) => [s.start, s.end] as const).sort((a, b) => a[0] - b[0]);
  const holes: number[] = [];
  let reach = run.start;
  for (const [s, e] of covered) {
    if (s > reach) holes.push(s - reach);
    reach = Math.max(reach, e);
  }
  return holes;
}

describe('packRuns', () => {
  it('puts every span in one run of its pack, merges gaps up to the limit and no more (brute force)', () => {
    const rand = seeded(7);
    for (let trial = 0; trial < 200; trial++) {
      const spans = randomSpans(rand);
      const runs = packRuns(spans, PACK_GAP_BYTES, 0);
      for (const [key, span] of spans) {
        const holding = runs.filter((r) => r.spans.some(([k]) => k === key));
        expect(holding).toHaveLength(1);
        const run = holding[0]!;
        expect(run.pack).toBe(span.pack);
        expect(run.start <= span.start && span.end <= run.end).toBe(true);
      }
      for (const pack of new Set(runs.map((r) => r.pack))) {
        const mine = runs.filter((r) => r.pack === pack).sort((a, b) => a.start - b.start);
        // Runs of one pack are farther apart than the gap (else they would be one).
        for (let i = 1; i < mine.length; i++) expect(mine[i]!.start - mine[i - 1]!.end).toBeGreaterThan(PACK_GAP_BYTES);
        // Within a run, the bytes no span covers form no hole larger than the gap, and the run ends with its spans.
        for (const r of mine) {
          for (const hole of holesOf(r)) expect(hole).toBeLessThanOrEqual(PACK_GAP_BYTES);
          expect(Math.max(...r.spans.map(([, s]) => s.end))).toBe(r.end);
        }
      }
    }
  });

  it('joins the smallest gaps left first, within the budget and no further (brute force)', () => {
    const rand = seeded(7);
    let joined = 0;
    for (let trial = 0; trial < 300; trial++) {
      const spans = randomSpans(rand);
      const budget = [0, 8_000, 30_000, PACK_JOIN_BUDGET_BYTES][trial % 4]!;
      const runs = packRuns(spans, PACK_GAP_BYTES, budget);
      // Every span in exactly one run of its pack.
      for (const [key, span] of spans) {
        const holding = runs.filter((r) => r.spans.some(([k]) => k === key));
        expect(holding).toHaveLength(1);
        expect(holding[0]!.pack).toBe(span.pack);
        expect(holding[0]!.start <= span.start && span.end <= holding[0]!.end).toBe(true);
      }
      // The holes wider than the merge gap were joined by the budget: they sum to at most it...
      const wide = runs.flatMap(holesOf).filter((h) => h > PACK_GAP_BYTES);
      const spent = wide.reduce((a, b) => a + b, 0);
      expect(spent).toBeLessThanOrEqual(budget);
      joined += wide.length;
      // ...no gap left between runs of one pack is smaller than one joined, and the smallest left does not fit.
      const left: number[] = [];
      for (const pack of new Set(runs.map((r) => r.pack))) {
        const mine = runs.filter((r) => r.pack === pack).sort((a, b) => a.start - b.start);
        for (let i = 1; i < mine.length; i++) left.push(mine[i]!.start - mine[i - 1]!.end);
      }
      for (const g of left) {
        expect(g).toBeGreaterThan(PACK_GAP_BYTES);
        for (const h of wide) expect(g).toBeGreaterThanOrEqual(h);
      }
      if (left.length > 0) expect(spent + Math.min(...left)).toBeGreaterThan(budget);
      // Without a budget nothing past the gap is joined: as many runs or more.
      expect(packRuns(spans, PACK_GAP_BYTES, 0).length).toBeGreaterThanOrEqual(runs.length);
    }
    // The cases join something (the test is not vacuous).
    expect(joined).toBeGreaterThan(50);
  });
});

/**
 * A random cold query: rounds of keys (in `rounds` [least, more at random] rounds, `keys` the same per round), each a
 * read of its own one time in `loose` or else a span of up to `size` bytes at most `at` into one of two packs.
 */
function randomQuery(
  rand: (n: number) => number,
  query: string,
  shape: { rounds: [number, number]; keys: [number, number]; size: number; loose: number; at: number },
): { q: ColdQueryReads; placed: Map<string, Placed> } {
  const placed = new Map<string, Placed>();
  const reads: StoreRead[] = [];
  const rounds: string[][] = [];
  for (let r = 0; r < shape.rounds[0] + rand(shape.rounds[1]); r++) {
    const round: string[] = [];
    for (let k = 0; k < shape.keys[0] + rand(shape.keys[1]); k++) {
      const key = `r${r}k${k}`;
      const size = 1 + rand(shape.size);
      if (rand(shape.loose) === 0) reads.push({ key, bytes: size, found: true, startMs: 0, endMs: 0 });
      else placed.set(key, { pack: `p${rand(2)}`, at: rand(shape.at), size });
      round.push(key);
    }
    rounds.push(round);
  }
  return { q: { query, reads, rounds }, placed };
}

describe('leastGetsWithin', () => {
  /** The fewest GETs of `q` within `maxBytes` by trying every set of gaps to join (a join is within one round and pack). */
  function bruteForce(q: ColdQueryReads, placed: ReadonlyMap<string, Placed>, maxBytes: number): number {
    let loose = 0;
    let base = 0;
    const gaps: number[] = [];
    let gets = 0;
    for (const round of q.rounds) {
      const byPack = new Map<string, [number, number][]>();
      for (const key of round) {
        const p = placed.get(key);
        if (p === undefined) {
          loose++;
          base += q.reads.find((r) => r.key === key)?.bytes ?? 0;
        } else byPack.set(p.pack, [...(byPack.get(p.pack) ?? []), [p.at, p.at + p.size]]);
      }
      for (const list of byPack.values()) {
        list.sort((a, b) => a[0] - b[0]);
        // Overlapping or touching ranges are one range before any join.
        const runs: [number, number][] = [];
        for (const [s, e] of list) {
          const last = runs.at(-1);
          if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
          else runs.push([s, e]);
        }
        gets += runs.length;
        base += runs.reduce((n, [s, e]) => n + e - s, 0);
        for (let i = 1; i < runs.length; i++) gaps.push(runs[i]![0] - runs[i - 1]![1]);
      }
    }
    let best = Infinity;
    for (let mask = 0; mask < 2 ** gaps.length; mask++) {
      let bytes = base;
      let joined = 0;
      gaps.forEach((g, i) => {
        if ((mask >> i) & 1) {
          bytes += g;
          joined++;
        }
      });
      if (bytes <= maxBytes) best = Math.min(best, loose + gets - joined);
    }
    return best === Infinity ? loose + gets : best;
  }

  it('finds the fewest GETs any join of ranges reaches within the bytes (brute force)', () => {
    const rand = seeded(11);
    let saved = 0;
    for (let trial = 0; trial < 300; trial++) {
      const { q, placed } = randomQuery(rand, `trial ${trial}`, {
        rounds: [1, 3],
        keys: [1, 6],
        size: 5_000,
        loose: 4,
        at: 60_000,
      });
      const maxBytes = 5_000 + rand(120_000);
      const least = leastGetsWithin(q, placed, maxBytes);
      const expected = bruteForce(q, placed, maxBytes);
      expect(least.gets).toBe(expected);
      const none = leastGetsWithin(q, placed, 0);
      // Within the bytes whenever it joined anything; no bytes allowed joins nothing.
      if (least.gets < none.gets) expect(least.bytes).toBeLessThanOrEqual(maxBytes);
      saved += none.gets - least.gets;
    }
    // The cases join something (the test is not vacuous).
    expect(saved).toBeGreaterThan(100);
  });
});

describe('onlineReads', () => {
  it('joins only past 20 GETs, only beyond the shipped join, and never to fewer GETs than any join within its bytes', () => {
    const rand = seeded(29);
    const none: JoinReserve = { gets: { limit10: 0, limit25: 0 }, bytes: { limit10: 0, limit25: 0 } };
    let helped = 0;
    for (let trial = 0; trial < 200; trial++) {
      const name = `trial ${trial}${rand(2) === 0 ? ', limit 25' : ''}`;
      const { q, placed } = randomQuery(rand, name, {
        rounds: [2, 3],
        keys: [4, 16],
        size: 20_000,
        loose: 5,
        at: 1_500_000,
      });
      const { rounds } = q;
      const joined = joinedReads(q, placed, PACK_JOIN_BUDGET_BYTES);
      for (const reserve of [ONLINE_RESERVE, none]) {
        const online = onlineReads(q, placed, PACK_JOIN_BUDGET_BYTES, reserve);
        expect(online.gets).toBeLessThanOrEqual(joined.gets);
        expect(online.bytes).toBeGreaterThanOrEqual(joined.bytes);
        // Its plan is one join of the ranges within its own bytes: no join does better within them.
        expect(online.gets).toBeGreaterThanOrEqual(leastGetsWithin(q, placed, online.bytes).gets);
        if (online.gets < joined.gets && reserve === ONLINE_RESERVE) helped++;
      }
      // Without a reserve, a query the shipped join keeps within 20 GETs is asked exactly as the shipped join asks it.
      if (joined.gets <= 20) expect(onlineReads(q, placed, PACK_JOIN_BUDGET_BYTES, none)).toEqual(joined);
      // One round and no reserve: whatever it joins past the shipped join stays within 1 MiB less the margin.
      const one: ColdQueryReads = { ...q, rounds: [rounds.flat()] };
      const alone = onlineReads(one, placed, PACK_JOIN_BUDGET_BYTES, none);
      if (alone.gets < joinedReads(one, placed, PACK_JOIN_BUDGET_BYTES).gets)
        expect(alone.bytes).toBeLessThanOrEqual(1024 * 1024 - ONLINE_MARGIN_BYTES);
    }
    // The cases go past 20 GETs and get joined (the test is not vacuous).
    expect(helped).toBeGreaterThan(20);
  });
});
