/**
 * Cold path: store objects and bytes one query reads with an empty cache (a new site source per query), and the time
 * a fresh server process takes to its first /v1/attorneys answer.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createService } from '../shim/core/service-impl.ts';
import { createSiteSource } from '../shim/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { REPO } from './child.ts';
import { CountingStore } from './counting-store.ts';
import { allMetroPoints, loadMetros, pointArgs, pointPath, type QueryPoint } from './points.ts';
import { median, spread, type Spread } from './stats.ts';

/** Reads of one cold query set at one radius (or location form). */
export interface ColdReads {
  /** "radius 15 mi" or "City, ST at 15 mi". */
  label: string;
  queries: number;
  objects: { median: number; max: number };
  bytes: { median: number; max: number };
  /** Shard objects alone (median and max). */
  shardObjects: { median: number; max: number };
  /** The query that read the most bytes, and the kinds of object it read. */
  worst: { query: string; objects: number; bytes: number; byKind: Record<string, { objects: number; bytes: number }> };
}

/** What kind of object a key is, for the breakdown ("shard res 5", "shard index", "gazetteer city", ...). */
export function kindOf(key: string): string {
  if (key === 'current.json') return 'pointer';
  const rel = key.replace(/^v\/[^/]+\//, '');
  const shard = /^shards\/(\d+)\//.exec(rel);
  if (shard) return `shard res ${shard[1]}`;
  if (rel === 'shards/index.json') return 'shard index';
  if (rel.startsWith('gazetteer/zip/')) return 'gazetteer zip';
  if (rel.startsWith('gazetteer/city/')) return 'gazetteer city';
  return rel;
}

const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

async function coldSet(site: string, label: string, queries: { name: string; args: Record<string, string> }[]): Promise<ColdReads> {
  const objects: number[] = [];
  const bytes: number[] = [];
  const shards: number[] = [];
  let worst: ColdReads['worst'] = { query: '', objects: 0, bytes: -1, byKind: {} };
  for (const q of queries) {
    const store = new CountingStore(new FolderStore(site));
    await createService(createSiteSource(store)).findAttorneys(q.args, CTX);
    objects.push(store.objects);
    bytes.push(store.bytes);
    shards.push(store.reads.filter((r) => kindOf(r.key).startsWith('shard res')).length);
    if (store.bytes > worst.bytes) {
      const byKind: Record<string, { objects: number; bytes: number }> = {};
      for (const r of store.reads) {
        const k = kindOf(r.key);
        const e = (byKind[k] ??= { objects: 0, bytes: 0 });
        e.objects++;
        e.bytes += r.bytes;
      }
      worst = { query: q.name, objects: store.objects, bytes: store.bytes, byKind };
    }
  }
  return {
    label,
    queries: queries.length,
    objects: { median: median(objects), max: Math.max(...objects) },
    bytes: { median: median(bytes), max: Math.max(...bytes) },
    shardObjects: { median: median(shards), max: Math.max(...shards) },
    worst,
  };
}

/** Cold reads over every metro (centre and four 10-mile offsets) at each radius, plus ZIP and "City, ST" forms at 15 miles. */
export async function measureColdReads(siteDir: string, radii: readonly number[], points: readonly QueryPoint[] = allMetroPoints()): Promise<ColdReads[]> {
  const site = resolve(siteDir);
  const out: ColdReads[] = [];
  for (const radius of radii) {
    out.push(await coldSet(site, `lat,lng at ${radius} mi`, points.map((p) => ({ name: `${p.label}, ${radius} mi`, args: pointArgs(p, radius) }))));
  }
  const cities = loadMetros().flatMap((m) => m.principal_cities);
  out.push(await coldSet(site, '"City, ST" at 50 mi', cities.map((c) => ({ name: `${c}, 50 mi`, args: { location: c, radius_miles: '50' } }))));
  return out;
}

/** Time from spawn to first answer of a fresh server process, over several starts. */
export interface FirstAnswer {
  /** Spawn to the first 200 of /v1/attorneys, in ms. */
  firstAnswerMs: Spread;
  /** Spawn to the "Serving" line, in ms. */
  listeningMs: Spread;
  command: string;
}

/** Spawn `node --import tsx shim/cli.ts --no-build` on an ephemeral port `runs` times; poll until /v1/attorneys answers 200. */
export async function measureFirstAnswer(siteDir: string, runs: number, onProgress?: (line: string) => void): Promise<FirstAnswer> {
  const first: number[] = [];
  const listening: number[] = [];
  const path = pointPath({ lat: 41.8781, lng: -87.6298 }, 15);
  for (let i = 0; i < runs; i++) {
    const logDir = mkdtempSync(join(tmpdir(), 'iad-bench-cold-'));
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'shim/cli.ts', '--no-build'], {
      cwd: REPO,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SITE_DIR: resolve(siteDir), LOG_DIR: logDir, RATE_LIMIT_PER_HOUR: '0' },
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
        child.once('exit', (code) => fail(new Error(`shim/cli.ts exited (${code}) before listening`)));
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
        if (performance.now() - t0 > 60_000) throw new Error(`no 200 from the fresh server within 60 s (last: ${last})`);
        await new Promise((r) => setTimeout(r, 5));
      }
      first.push(performance.now() - t0);
      onProgress?.(`fresh process ${i + 1}/${runs}: listening after ${listening.at(-1)?.toFixed(0)} ms, first answer after ${first.at(-1)?.toFixed(0)} ms`);
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
    command: `PORT=0 SITE_DIR=<site> RATE_LIMIT_PER_HOUR=0 node --import tsx shim/cli.ts --no-build, then GET ${path} until 200`,
  };
}
