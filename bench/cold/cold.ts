/**
 * Cold path: store objects and bytes one query reads with an empty cache (a new site source per query), and the time
 * a fresh server process takes to its first /v1/attorneys answer. The same query sets over S3 are in cold-s3.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { REPO } from '../lib/child.ts';
import { CountingStore, type StoreRead } from '../lib/counting-store.ts';
import { metroZips } from './metro-zips.ts';
import { RoundStore } from './round-store.ts';
import { allMetroPoints, pointPath, type QueryPoint } from '../lib/points.ts';
import { answerableSets, askCold, coldQuerySets, type ColdQuery } from './query-sets.ts';
import type { Store } from '../../shim/store/types.ts';
import { median, spread, type Spread } from '../lib/stats.ts';
import { benchServerEnv } from '../lib/server-env.ts';

/** Reads of one cold query set at one radius (or location form). */
export interface ColdReads {
  /** "radius 15 mi" or "City, ST at 15 mi". */
  label: string;
  queries: number;
  /** Queries answered with a 400 (a name of places in several states); absent in results stored before it was counted. */
  refused?: number;
  objects: { median: number; max: number };
  bytes: { median: number; max: number };
  /** Cell-tree objects alone (median and max); the field keeps its name in stored results. */
  shardObjects: { median: number; max: number };
  /**
   * Objects and bytes outside the cell tree (pointer, meta.json, hash documents, coverage, gazetteer), per query, and
   * the query reading the most of those bytes (absent in results stored before it was measured).
   */
  offTree?: {
    objects: { median: number; max: number };
    bytes: { median: number; max: number };
    worst: {
      query: string;
      objects: number;
      bytes: number;
      byKind: Record<string, { objects: number; bytes: number }>;
    };
  };
  /** Store round trips after the pointer, by dependency depth (round-store.ts), per query. */
  rounds: { median: number; max: number };
  /** The query that read the most bytes, and the kinds of object it read. */
  worst: {
    query: string;
    objects: number;
    bytes: number;
    rounds: number;
    byKind: Record<string, { objects: number; bytes: number }>;
  };
  /** The query that read the most objects (absent in results stored before it was kept). */
  most?: ColdReads['worst'];
  /** The query with the most rounds, and the kinds of object read in each of its rounds. */
  deepest: { query: string; rounds: string[] };
}

/** One cold query's reads (every one it started) and the rounds its answer waited for (their keys, the pointer's included). */
export interface ColdQueryReads {
  query: string;
  reads: readonly StoreRead[];
  rounds: readonly (readonly string[])[];
  /** Answered with a 400 (its reads are still what a cold refusal costs). */
  refused?: boolean;
  /** Every round of reads, those after the answer included (reads it started and no longer waited for). */
  allRounds?: readonly (readonly string[])[];
  /** What the answer searched and showed (absent for a refusal, or in reads stored before it was kept). */
  answer?: ColdAnswer;
}

/**
 * The search an answer made: its point (degrees), radius (miles), the listing ids it showed, nearest first, and the
 * `limit` it was asked (absent in reads stored before it was kept: the default).
 */
export interface ColdAnswer {
  lat: number;
  lng: number;
  radius: number;
  shown: string[];
  limit?: number;
}

/** Rounds of a query other than those that read the pointer alone. */
export function roundsAfterPointer(rounds: readonly (readonly string[])[]): (readonly string[])[] {
  return rounds.filter((r) => !r.every((k) => k === 'current.json'));
}

/** One round as its kinds of object: "cell block x3 + cell shared". */
export function roundKinds(keys: readonly string[]): string {
  const n = new Map<string, number>();
  for (const k of keys) n.set(kindOf(k), (n.get(kindOf(k)) ?? 0) + 1);
  return [...n].map(([k, c]) => (c === 1 ? k : `${k} x${c}`)).join(' + ');
}

/** What kind of object a key is, for the breakdown ("cell block", "cell records", "cell index", "gazetteer city", ...). */
export function kindOf(key: string): string {
  if (key === 'current.json') return 'pointer';
  const rel = key.replace(/^v\/[^/]+\//, '');
  if (rel === 'cells/index.json') return 'cell index';
  if (rel.startsWith('cells/groups/')) return 'cell group';
  if (rel.startsWith('cells/shared/')) return 'cell shared';
  if (rel.startsWith('cells/blocks/')) return 'cell block';
  // A range request of a group's pack of blocks (CountingStore and RoundStore record it as `<key>#<start>-<end>`).
  if (rel.startsWith('cells/packs/')) return 'cell pack range';
  if (rel.startsWith('cells/records/')) return 'cell records';
  if (rel.startsWith('gazetteer/zip/')) return 'gazetteer zip';
  if (rel.startsWith('gazetteer/city/')) return 'gazetteer city';
  if (rel.startsWith('gazetteer/points/')) return 'gazetteer points';
  if (rel.startsWith('hashes/')) return `hash document ${rel.slice('hashes/'.length, -'.json'.length)}`;
  return rel;
}

/** Bytes by kind of object of one query's reads ("cell block": 3 objects, 120 KiB). */
export function readsByKind(reads: readonly StoreRead[]): Record<string, { objects: number; bytes: number }> {
  const byKind: Record<string, { objects: number; bytes: number }> = {};
  for (const r of reads) {
    const e = (byKind[kindOf(r.key)] ??= { objects: 0, bytes: 0 });
    e.objects++;
    e.bytes += r.bytes;
  }
  return byKind;
}

/** Objects, bytes and cell-tree objects (median, max) of a set from each query's reads, and its heaviest query by bytes. */
export function summariseCold(label: string, perQuery: readonly ColdQueryReads[]): ColdReads {
  const objects = perQuery.map((q) => q.reads.length);
  const bytes = perQuery.map((q) => q.reads.reduce((n, r) => n + r.bytes, 0));
  const cellObjects = perQuery.map((q) => q.reads.filter((r) => kindOf(r.key).startsWith('cell ')).length);
  const rounds = perQuery.map((q) => roundsAfterPointer(q.rounds).length);
  const offReads = perQuery.map((q) => q.reads.filter((r) => !kindOf(r.key).startsWith('cell ')));
  const offBytes = offReads.map((reads) => reads.reduce((n, r) => n + r.bytes, 0));
  const offWorstAt = offBytes.indexOf(Math.max(...offBytes));
  const offWorst = offReads[offWorstAt] ?? [];
  let worst: ColdReads['worst'] = { query: '', objects: 0, bytes: -1, rounds: 0, byKind: {} };
  let most: ColdReads['worst'] = { ...worst, objects: -1 };
  let deepest: ColdReads['deepest'] = { query: '', rounds: [] };
  perQuery.forEach((q, i) => {
    const b = bytes[i] ?? 0;
    const after = roundsAfterPointer(q.rounds);
    const summary = (): ColdReads['worst'] => ({
      query: q.query,
      objects: q.reads.length,
      bytes: b,
      rounds: after.length,
      byKind: readsByKind(q.reads),
    });
    if (b > worst.bytes) worst = summary();
    if (q.reads.length > most.objects) most = summary();
    if (after.length > deepest.rounds.length) deepest = { query: q.query, rounds: after.map(roundKinds) };
  });
  return {
    label,
    queries: perQuery.length,
    refused: perQuery.filter((q) => q.refused === true).length,
    objects: { median: median(objects), max: Math.max(...objects) },
    bytes: { median: median(bytes), max: Math.max(...bytes) },
    shardObjects: { median: median(cellObjects), max: Math.max(...cellObjects) },
    offTree: {
      objects: { median: median(offReads.map((r) => r.length)), max: Math.max(...offReads.map((r) => r.length)) },
      bytes: { median: median(offBytes), max: Math.max(...offBytes) },
      worst: {
        query: perQuery[offWorstAt]?.query ?? '',
        objects: offWorst.length,
        bytes: offBytes[offWorstAt] ?? 0,
        byKind: readsByKind(offWorst),
      },
    },
    rounds: { median: median(rounds), max: Math.max(...rounds) },
    worst,
    most,
    deepest,
  };
}

/** One query on a new site source over `store` (empty cache): every read it started, and the rounds its answer waited for. */
export async function coldQueryReads(store: Store, q: ColdQuery): Promise<ColdQueryReads> {
  const rounds = new RoundStore(store);
  const counting = new CountingStore(rounds);
  let answer: ColdAnswer | undefined;
  const asked = await askCold(createService(createSiteSource(counting)), q.args, (a) => {
    answer = {
      lat: a.location.lat,
      lng: a.location.lng,
      radius: a.radius_miles_used,
      shown: a.results.map((r) => r.listing_id),
      ...(q.args.limit !== undefined ? { limit: Number(q.args.limit) } : {}),
    };
  });
  const waited = rounds.rounds.slice();
  await rounds.settled();
  return {
    query: q.name,
    reads: counting.reads.slice(),
    rounds: waited,
    refused: asked === 'refused',
    allRounds: rounds.rounds.slice(),
    ...(answer !== undefined ? { answer } : {}),
  };
}

/**
 * `store` without its getRange: every object read whole, one request each, as the layout what-ifs (packed-ranges.ts,
 * fine-ranges.ts) and section 11's tree sweep count reads before placing them in layouts of their own.
 */
export function wholeObjects(store: Store): Store {
  return { kind: store.kind, get: (key, options) => store.get(key, options) };
}

/**
 * Each query's cold reads from the site folder, by query set of coldQuerySets; with `wholeObjects`, every object read
 * whole (no range requests of packs).
 */
export async function coldReadsBySet(
  siteDir: string,
  radii: readonly number[],
  points: readonly QueryPoint[] = allMetroPoints(),
  options: { wholeObjects?: boolean } = {},
): Promise<{ label: string; perQuery: ColdQueryReads[] }[]> {
  const site = resolve(siteDir);
  const out: { label: string; perQuery: ColdQueryReads[] }[] = [];
  const storeOf = (): Store =>
    options.wholeObjects === true ? wholeObjects(new FolderStore(site)) : new FolderStore(site);
  for (const set of await answerableSets(site, coldQuerySets(radii, points, metroZips(site)))) {
    const perQuery: ColdQueryReads[] = [];
    for (const q of set.queries) perQuery.push(await coldQueryReads(storeOf(), q));
    out.push({ label: set.label, perQuery });
  }
  return out;
}

/** Cold reads from the site folder over the query sets of coldQuerySets, summarised per set. */
export async function measureColdReads(
  siteDir: string,
  radii: readonly number[],
  points: readonly QueryPoint[] = allMetroPoints(),
): Promise<ColdReads[]> {
  return (await coldReadsBySet(siteDir, radii, points)).map((s) => summariseCold(s.label, s.perQuery));
}

/** Time from spawn to first answer of a fresh server process, over several starts. */
export interface FirstAnswer {
  /** Spawn to the first 200 of /v1/attorneys, in ms. */
  firstAnswerMs: Spread;
  /** Spawn to the "Serving" line, in ms. */
  listeningMs: Spread;
  command: string;
}

/** Spawn `node --import tsx start.ts --no-build` on an ephemeral port `runs` times; poll until /v1/attorneys answers 200. */
export async function measureFirstAnswer(
  siteDir: string,
  runs: number,
  onProgress?: (line: string) => void,
): Promise<FirstAnswer> {
  const first: number[] = [];
  const listening: number[] = [];
  const path = pointPath({ lat: 41.8781, lng: -87.6298 }, 15);
  for (let i = 0; i < runs; i++) {
    const logDir = mkdtempSync(join(tmpdir(), 'iad-bench-cold-'));
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'start.ts', '--no-build'], {
      cwd: REPO,
      env: { ...process.env, ...benchServerEnv(siteDir, logDir) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const base = await new Promise<string>((done, fail) => {
        let text = '';
        child.stdout.on('data', (c: Buffer) => {
          text += c.toString('utf8');
          const m = /on (http:\/\/[^\s]+)/.exec(text);
          if (m?.[1]) done(m[1]);
        });
        child.once('exit', (code) => fail(new Error(`start.ts exited (${code}) before listening`)));
      });
      listening.push(performance.now() - t0);
      let last = 'no answer';
      for (;;) {
        const res = await fetch(base + path).catch(() => null);
        if (res !== null) {
          const body = await res.text();
          if (res.status === 200) break;
          last = `${res.status} ${body.slice(0, 200)}`;
        }
        if (performance.now() - t0 > 60_000)
          throw new Error(`no 200 from the fresh server within 60 s (last: ${last})`);
        await new Promise((r) => setTimeout(r, 5));
      }
      first.push(performance.now() - t0);
      onProgress?.(
        `fresh process ${i + 1}/${runs}: listening after ${listening.at(-1)?.toFixed(0)} ms, first answer after ${first.at(-1)?.toFixed(0)} ms`,
      );
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(logDir, { recursive: true, force: true });
    }
  }
  return {
    firstAnswerMs: spread(first),
    listeningMs: spread(listening),
    command: `PORT=0 SITE_DIR=<site> RATE_LIMIT_PER_HOUR=0 node --import tsx start.ts --no-build, then GET ${path} until 200`,
  };
}
